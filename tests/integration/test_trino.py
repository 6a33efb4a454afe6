"""The Trino backend, exercised with the real ``trino`` client against the Trino-protocol test server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assessment_engine.warehouse.sql_path import run_sql
from assessment_engine.warehouse.store import (
    DuckDBWarehouse,
    TrinoWarehouse,
    WarehouseUnavailable,
)
from foundation.config import get_settings
from orchestration.runtime import handle_turn
from orchestration.services import Services, build_services
from orchestration.tools.analysis_tool import analyse
from orchestration.tools.comparison_tool import compare
from orchestration.tools.issue_tracking_tool import track
from tests.catalog import BUNDLED, ONTOLOGY, statements
from tests.conftest import free_port
from tests.trino_protocol_server import TrinoProtocolServer


@pytest.fixture()
def trino_server(demo_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TrinoProtocolServer]:
    port = free_port()
    with TrinoProtocolServer(demo_warehouse, port) as server:
        monkeypatch.setenv("ASSESS_WAREHOUSE_BACKEND", "trino")
        monkeypatch.setenv("ASSESS_TRINO_HOST", "127.0.0.1")
        monkeypatch.setenv("ASSESS_TRINO_PORT", str(port))
        yield server


def test_tools_return_the_same_figures_through_trino(trino_server: TrinoProtocolServer, demo_warehouse: Path, services: Services) -> None:
    trino = services.warehouse()
    assert isinstance(trino, TrinoWarehouse)
    duck = DuckDBWarehouse(demo_warehouse)
    try:
        a, b = analyse(trino, "summary", catalog=BUNDLED), analyse(duck, "summary", catalog=BUNDLED)
        assert a["metrics"] == b["metrics"] and a["breakdowns"] == b["breakdowns"]
        scope = {"sites": ["DataCenter-1"]}
        assert compare(trino, "latest", "previous", "assets", scope=scope)["metrics"] == \
            compare(duck, "latest", "previous", "assets", scope=scope)["metrics"]
        assert track(trino, "persistent", "since_prior", priority="high")["total_unresolved"] == \
            track(duck, "persistent", "since_prior", priority="high")["total_unresolved"]
    finally:
        duck.close()
    assert any(s.startswith("EXECUTE IMMEDIATE") for s in trino_server.statements)  # parameters were bound


def test_sql_path_through_trino(trino_server: TrinoProtocolServer, services: Services) -> None:
    sql, result = run_sql(services.warehouse(), "SELECT a.os_version, COUNT(*) AS n FROM assets a WHERE a.site = ? "
                                           "GROUP BY a.os_version", ["Branch-05"], statements())
    assert result.columns == ["os_version", "n"] and sum(r[1] for r in result.rows) > 0


def test_a_whole_turn_runs_on_trino(trino_server: TrinoProtocolServer, services: Services) -> None:
    state = handle_turn("Which assets got worse since the previous assessment?", services=services)
    (call,) = state.mcp.tool_calls
    assert call.tool_name == "assessment_comparison_tool" and call.status == "ok"


def test_unreachable_trino_is_a_clear_tool_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSESS_WAREHOUSE_BACKEND", "trino")
    monkeypatch.setenv("ASSESS_TRINO_PORT", str(free_port()))
    services = build_services()  # over the settings just changed
    state = handle_turn("Summarize my latest configuration best practice assessment", services=services)
    (call,) = state.mcp.tool_calls
    assert call.status == "error" and "Trino" in (call.error or "")
    assert state.final.partial and state.final.missing_inputs


def test_an_uploaded_config_is_refused_on_trino_not_written_where_nothing_reads_it(
        trino_server: TrinoProtocolServer, demo_warehouse: Path) -> None:
    from assessment_engine.warehouse.user_configs import assess_files
    from assessment_engine.warehouse.versions import current_file

    before = current_file(demo_warehouse)
    with pytest.raises(WarehouseUnavailable, match="reads its assessments from trino"):
        assess_files([("r1.cfg", b"hostname R1\ninterface Gi0/0\n ip address 10.0.0.1 255.255.255.0\n")], BUNDLED, get_settings())
    assert current_file(demo_warehouse) == before


def test_every_evaluation_turn_runs_on_trino_and_its_trace_lists_the_sql_trino_received(
        trino_server: TrinoProtocolServer) -> None:
    from benchmarks.queries import census
    from benchmarks.turns import prompts

    found = census()
    assert found.errors == [] and found.untranslatable == {}
    # every prompt of the evals beside this checkout ran (30 of its own; 50 with ../shared's upstream cases)
    assert len(found.per_turn) == len(prompts()) >= 30 and max(found.per_turn) >= 5 and len(found.statements) >= 20
    received = " ".join(trino_server.statements)
    missing = [q for q in found.statements if q not in received and q.replace("'", "''") not in received]
    assert missing == []


@pytest.mark.parametrize("table_format", ["iceberg", "hive"])
def test_the_trino_ddl_declares_every_table_and_serves_the_tools(table_format: str, demo_warehouse: Path,
                                                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``assess ddl``'s Trino statements parse as Trino SQL and declare every column of the ontology; tables made
    from them (on DuckDB, the statements read back from Trino's dialect) and filled with the demo data serve the
    tools, through the Trino protocol, the same figures as the demo warehouse itself."""
    import duckdb
    import sqlglot


    ontology = ONTOLOGY
    statements = ontology.ddl("trino", table_format)
    for statement, (name, table) in zip(statements, ontology.tables.items(), strict=True):
        create = sqlglot.parse_one(statement, read="trino")
        assert create.this.this.name == name
        assert [c.name for c in create.this.expressions] == list(table.columns)
        assert ("partitioning = ARRAY['collection']" in statement) == (table_format == "iceberg" and "collection" in table.columns)
    lake = tmp_path / "lake.duckdb"
    con = duckdb.connect(str(lake))
    con.execute(f"ATTACH '{demo_warehouse}' AS demo (READ_ONLY)")
    for statement, name in zip(statements, ontology.tables, strict=True):
        con.execute(sqlglot.transpile(statement, read="trino", write="duckdb")[0])
        con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM demo.{name}")
    con.close()
    port = free_port()
    with TrinoProtocolServer(lake, port):
        monkeypatch.setenv("ASSESS_WAREHOUSE_BACKEND", "trino")
        monkeypatch.setenv("ASSESS_TRINO_HOST", "127.0.0.1")
        monkeypatch.setenv("ASSESS_TRINO_PORT", str(port))
        on_trino = build_services()  # over the settings just changed
        duck = DuckDBWarehouse(demo_warehouse)
        try:
            a, b = analyse(on_trino.warehouse(), "summary", catalog=BUNDLED), analyse(duck, "summary", catalog=BUNDLED)
            assert a["metrics"] == b["metrics"] and a["breakdowns"] == b["breakdowns"]
        finally:
            duck.close()
            on_trino.close()


def test_the_changes_between_two_runs_compile_on_trino(trino_server: TrinoProtocolServer, services: Services) -> None:
    # the changes fact sets each result beside its baseline run's in a LEFT JOIN: the statement Trino receives
    state = handle_turn("which site had the most new failures since october", services=services)
    assert state.final.answer.split("\n\n")[1].startswith("**") and "new failures" in state.final.answer, \
        state.final.answer[:300]
    assert state.mcp.tool_calls and all(c.status == "ok" for c in state.mcp.tool_calls)
