"""The SQL path's two walls: the sqlglot guard and the read-only, no-external-access DuckDB reader.

A spy wrapped around the real warehouse records every statement that reaches DuckDB; for each hostile
input the test proves that nothing reached it except a single bounded SELECT over allowlisted tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
from sqlglot import exp

from assessment_engine.warehouse.sql_guard import ROW_CAP, UnsafeSQL, validate
from assessment_engine.warehouse.sql_path import run_sql
from assessment_engine.warehouse.store import DuckDBWarehouse, QueryResult
from orchestration.nlu.facets import read_facets
from orchestration.state import Entity, Intent
from orchestration.tools.scope import scope_for
from orchestration.tools.sql_plan import plan_sql
from tests.catalog import BUNDLED, ONTOLOGY, statements

HOSTILE = [
    # stacked statements and comments
    "SELECT * FROM assets; DROP TABLE assets",
    "SELECT * FROM assets; DELETE FROM results",
    "SELECT 1; ATTACH 'evil.db' AS e",
    "SELECT * FROM assets -- harmless\n; UPDATE assets SET site = 'x'",
    "SELECT * FROM assets /* ; DROP TABLE rules; */ ; DROP TABLE rules",
    "/* comment */ DELETE FROM assets",
    "SELECT * FROM assets;;; INSERT INTO assets VALUES ('x')",
    # DML / DDL / commands as the statement
    "DROP TABLE assets", "DELETE FROM results WHERE 1=1", "UPDATE assets SET criticality = 'low'",
    "INSERT INTO rules VALUES ('X')", "CREATE TABLE t AS SELECT * FROM assets", "ALTER TABLE assets ADD COLUMN x INT",
    "TRUNCATE TABLE results", "COPY assets TO '/tmp/out.csv'", "COPY assets FROM '/etc/passwd'",
    "ATTACH '/tmp/other.duckdb' AS o", "DETACH o", "INSTALL httpfs", "LOAD httpfs", "PRAGMA database_list",
    "SET enable_external_access = true", "CALL pragma_version()", "EXPORT DATABASE '/tmp/dump'", "BEGIN TRANSACTION",
    "CHECKPOINT", "VACUUM", "DESCRIBE assets", "SHOW TABLES", "USE memory",
    # DML/DDL hidden in CTEs and subqueries
    "WITH x AS (DELETE FROM assets RETURNING *) SELECT * FROM x",
    "WITH x AS (UPDATE assets SET site = 'a' RETURNING *) SELECT count(*) FROM x",
    "WITH x AS (INSERT INTO rules VALUES ('r') RETURNING *) SELECT * FROM x",
    "SELECT * FROM (DELETE FROM assets RETURNING *) d",
    "SELECT * INTO stolen FROM assets",
    "CREATE VIEW v AS SELECT * FROM assets",
    # system catalogs and other tables
    "SELECT * FROM information_schema.tables", "SELECT * FROM duckdb_tables()", "SELECT * FROM sqlite_master",
    "SELECT * FROM pg_catalog.pg_tables", "SELECT * FROM main.assets", "SELECT * FROM system.main.assets",
    "SELECT * FROM assets UNION SELECT * FROM secrets", "SELECT asset_id FROM assets UNION ALL SELECT rule_id FROM rules",
    "SELECT * FROM assets WHERE site IN (SELECT name FROM sqlite_master)", "SELECT * FROM users",
    # file-reading table functions and paths
    "SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_csv_auto('/etc/shadow')",
    "SELECT * FROM read_parquet('s3://bucket/x.parquet')", "SELECT * FROM read_text('/etc/hosts')",
    "SELECT * FROM '/etc/passwd'", "SELECT * FROM glob('/root/*')", "SELECT * FROM read_json('http://evil/x')",
    # side-effect and information functions
    "SELECT current_setting('enable_external_access')", "SELECT pg_sleep(10)", "SELECT sleep(5)",
    "SELECT getenv('HOME')", "SELECT read_blob('/etc/passwd')", "SELECT version()",
    "SELECT * FROM assets WHERE asset_id = current_user", "SELECT nextval('seq')",
    # columns that do not exist / unknown qualifiers
    "SELECT password FROM assets", "SELECT x.secret FROM assets", "SELECT * FROM assets WHERE evil_column = 1",
    # unbounded reads
    "SELECT * FROM results", "SELECT * FROM results LIMIT 1000000", "SELECT * FROM results LIMIT ?",
    # quote tricks spliced as if by a naive builder
    "SELECT * FROM assets WHERE site = 'HQ'; DROP TABLE assets; --'",
    "SELECT * FROM assets WHERE site = '' OR 1=1 UNION SELECT * FROM information_schema.tables --'",
]


class Spy:
    """The real warehouse, recording what reaches it."""

    dialect = "duckdb"

    def __init__(self, inner: DuckDBWarehouse) -> None:
        self.inner = inner
        self.executed: list[str] = []

    def query(self, sql: str, params: Sequence[Any] = ()) -> QueryResult:
        self.executed.append(sql)
        return self.inner.query(sql, params)


def assert_bounded_select(sql: str) -> None:
    (stmt,) = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    assert isinstance(stmt, exp.Select)
    limit = stmt.args["limit"].expression
    assert isinstance(limit, exp.Literal) and int(limit.name) <= ROW_CAP
    tables = {t.name for t in stmt.find_all(exp.Table)}
    assert tables <= set(ONTOLOGY.tables)


def test_the_hostile_list_is_long_enough() -> None:
    assert len(HOSTILE) >= 50


@pytest.mark.parametrize("sql", HOSTILE)
def test_hostile_sql_never_reaches_the_database_as_anything_but_a_bounded_select(sql: str, demo_warehouse: Path) -> None:
    spy = Spy(DuckDBWarehouse(demo_warehouse))
    try:
        run_sql(spy, sql, [], statements())
    except UnsafeSQL:
        pass
    except duckdb.Error:
        pass  # a bounded SELECT may still fail at execution (e.g. a missing parameter); it was bounded
    for executed in spy.executed:
        assert_bounded_select(executed)
    spy.inner.close()


def test_limits_keep_the_smaller_of_query_and_cap() -> None:
    o = ONTOLOGY
    assert validate("SELECT asset_id FROM assets LIMIT 10", o).endswith("LIMIT 10")
    assert validate("SELECT asset_id FROM assets LIMIT 99999", o).endswith(f"LIMIT {ROW_CAP}")
    assert validate("SELECT asset_id FROM assets", o).endswith(f"LIMIT {ROW_CAP}")


def test_entity_values_are_bound_never_spliced(demo_warehouse: Path) -> None:
    evil = "HQ'; DROP TABLE assets; --"
    intent = Intent(entities=[Entity(type="site", value=evil, confidence=1.0)])
    plan = plan_sql(read_facets("Which versions run at that site?", BUNDLED), scope_for(intent)[0], ONTOLOGY)
    assert plan is not None and evil not in plan.sql and evil in plan.params
    spy = Spy(DuckDBWarehouse(demo_warehouse))
    _, result = run_sql(spy, plan.sql, plan.params, statements())
    assert result.rows == []
    assert spy.inner.query("SELECT COUNT(*) FROM assets").rows[0][0] > 0  # table still there
    spy.inner.close()


@pytest.mark.parametrize("statement", [
    "DELETE FROM assets", "CREATE TABLE x (a INT)", "COPY assets TO '/tmp/leak.csv'",
    "SELECT * FROM read_csv('/etc/passwd')", "ATTACH '/tmp/other.duckdb' AS o", "SET enable_external_access = true",
])
def test_second_wall_reader_refuses_writes_and_file_access_even_without_the_guard(statement: str,
                                                                                  demo_warehouse: Path) -> None:
    reader = DuckDBWarehouse(demo_warehouse)
    with pytest.raises(duckdb.Error):
        reader.query(statement)
    reader.close()


def test_deep_nesting_is_rejected_not_a_recursion_error() -> None:
    for depth in (41, 400, 1900):
        with pytest.raises(UnsafeSQL, match="nested"):
            validate("SELECT " + "(" * depth + "1" + ")" * depth + " FROM assets", ONTOLOGY)
    assert validate("SELECT " + "(" * 10 + "1" + ")" * 10 + " AS x FROM assets", ONTOLOGY)


def test_a_runaway_query_is_stopped_by_the_statement_timeout(demo_warehouse: Path) -> None:
    from assessment_engine.warehouse.store import WarehouseUnavailable
    from assessment_engine.warehouse.versions import current_file

    warehouse = DuckDBWarehouse(current_file(demo_warehouse).parent / "warehouse.duckdb", timeout=1.0)
    started = __import__("time").perf_counter()
    with pytest.raises(WarehouseUnavailable, match="longer than 1 s"):
        warehouse.query("SELECT COUNT(*) FROM results a, results b, results c")
    assert __import__("time").perf_counter() - started < 10
    assert warehouse.query("SELECT COUNT(*) FROM assets").rows[0][0] > 0  # the connection still serves
    warehouse.close()
