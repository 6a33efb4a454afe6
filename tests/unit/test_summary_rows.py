"""The analysis summary grouped in Python over a small scope's rows equals the summary statements run by
DuckDB over the same scope: every statement's rows in the same order, for every site of the demo network,
every severity, topic and product filter, and an older run; and the tool answers the same either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from assessment_engine.warehouse import run_summary, summary_rows
from assessment_engine.warehouse.store import Warehouse
from foundation.vocabulary.severity import SEVERITIES
from orchestration.services import Services
from orchestration.tools import analysis_tool
from orchestration.tools.analysis_tool import _filters, analyse
from orchestration.tools.scope import resolve_assessment
from tests.catalog import BUNDLED


def _both_ways(w: Warehouse, assessment_id: str, severity: str | None, scope: dict[str, Any] | None = None,
               product: str | None = None, topic: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    base, params, _ = _filters(w, assessment_id, scope, product, topic)
    rows = w.query(base + "SELECT * FROM b", params).dicts()
    in_python = summary_rows.summarise(rows, severity)
    in_engine = {name: w.query(sql, p) for name, (sql, p) in run_summary.statements(base, params, severity).items()}
    return in_python, in_engine


def _assert_equal(in_python: dict[str, Any], in_engine: dict[str, Any], case: Any) -> None:
    assert set(in_python) == set(in_engine), case
    for name, result in in_engine.items():
        assert in_python[name].rows == result.rows, (case, name)
        if name != "metrics":  # the metrics statement leaves its columns unnamed
            assert in_python[name].columns == result.columns, (case, name)


def test_every_breakdown_of_the_statements_has_a_python_key() -> None:
    assert set(summary_rows.KEYS) == set(run_summary.BREAKDOWNS)


@pytest.mark.parametrize("severity", [None, "high"])
def test_every_site_grouped_in_python_equals_the_statements(demo_warehouse: Path, severity: str | None, services: Services) -> None:
    w = services.warehouse()
    run = resolve_assessment(w, "latest")
    sites = [r[0] for r in w.query("SELECT DISTINCT site FROM assets ORDER BY site").rows]
    assert len(sites) >= 10
    for site in sites:
        in_python, in_engine = _both_ways(w, run.assessment_id, severity, {"sites": [site]})
        _assert_equal(in_python, in_engine, site)


def test_severities_topics_products_and_an_older_run_grouped_in_python_equal_the_statements(
        demo_warehouse: Path, services: Services) -> None:
    w = services.warehouse()
    runs = [r[0] for r in w.query("SELECT assessment_id FROM assessments ORDER BY started_at").rows]
    compared_failures = 0
    for severity in (None, *SEVERITIES):
        in_python, in_engine = _both_ways(w, runs[-1], severity, {"environment": "production"})
        _assert_equal(in_python, in_engine, severity)
        compared_failures += len(in_engine["sample"].rows)
    for topic, product in (("snmp", None), ("security", None), ("ntp,aaa", None), (None, "catalyst"),
                           ("no such topic", None)):
        in_python, in_engine = _both_ways(w, runs[-1], None, {"sites": ["HQ"]}, product, topic)
        _assert_equal(in_python, in_engine, (topic, product))
    in_python, in_engine = _both_ways(w, runs[0], "critical", {"sites": ["HQ", "DataCenter-1"]})
    _assert_equal(in_python, in_engine, runs[0])
    assert compared_failures > 50  # the comparison is not between empty results


def test_the_tool_answers_the_same_whoever_groups(demo_warehouse: Path, monkeypatch: pytest.MonkeyPatch, services: Services) -> None:
    w = services.warehouse()
    asks: list[dict[str, Any]] = [{"scope": {"sites": ["HQ"]}}, {"scope": {"environment": "production"},
                                                                 "severity_filter": "high"},
                                  {"focus_area": "snmp", "product_filter": "catalyst"}]
    here = [analyse(w, "summary", **ask, catalog=BUNDLED) for ask in asks]
    monkeypatch.setattr(summary_rows, "IN_PROCESS_MAX", 0)  # every scope now exceeds it: the engine groups
    assert analysis_tool.summary_rows.IN_PROCESS_MAX == 0
    assert [analyse(w, "summary", **ask, catalog=BUNDLED) for ask in asks] == here
    assert all(r["metrics"]["checks_failed"] for r in here)


def test_nulls_and_ties_are_grouped_and_ordered_as_the_engine_does() -> None:
    """Missing inventory fields (no platform, no OS version, no site), unknown severities and equal counts: the
    demo network has none of them, a customer's upload may."""
    e = run_summary._Connection(duckdb.connect())  # the writer's connection behind the query interface
    e.con.execute("""CREATE TABLE results (assessment_id VARCHAR, asset_id VARCHAR, rule_id VARCHAR, status VARCHAR,
                     severity VARCHAR, evidence VARCHAR, evidence_lines VARCHAR, exception_id VARCHAR)""")
    e.con.execute("""CREATE TABLE assets (asset_id VARCHAR, site VARCHAR, environment VARCHAR, device_type VARCHAR,
                     product_family VARCHAR, platform VARCHAR, os_version VARCHAR, criticality VARCHAR)""")
    e.con.execute("""CREATE TABLE rules (rule_id VARCHAR, title VARCHAR, category VARCHAR, technology VARCHAR,
                     remediation VARCHAR, rationale VARCHAR, refs VARCHAR)""")
    e.con.executemany("INSERT INTO assets VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
        ("r1", "S1", "prod", "router", "isr", "ios-xe", "17.6", "high"),
        ("r2", None, "prod", "router", None, None, "17.6", None),
        ("r3", "S2", "lab", "switch", "nexus", "nx-os", None, "critical"),
        ("r4", "S2", "lab", None, "nexus", "nx-os", "9.3", "low")])
    e.con.executemany("INSERT INTO rules VALUES (?, ?, ?, ?, ?, ?, ?)", [
        ("A", "Rule A", "management_plane", "ssh", "fix a", "why a", None),
        ("B", None, None, None, None, None, None),
        ("C", "Rule C", "services", "snmp", "fix c", "why c", "ref")])
    statuses = ("fail", "pass", "fail", "exception", "fail")
    severities = ("high", "odd", None, "critical", "high")
    e.con.executemany("INSERT INTO results VALUES ('run', ?, ?, ?, ?, ?, NULL, NULL)", [
        (asset, rule, statuses[(i + j) % 5], severities[(i * 3 + j) % 5], f"ev {asset} {rule}")
        for i, asset in enumerate(("r1", "r2", "r3", "r4")) for j, rule in enumerate(("A", "B", "C"))])
    base = run_summary.BASE.format(where="1 = 1")
    rows = e.query(base + "SELECT * FROM b", ["run"]).dicts()
    assert any(r["platform"] is None for r in rows if r["status"] == "fail")
    for severity in (None, "high", "critical", "info"):
        in_engine = {name: e.query(sql, p) for name, (sql, p) in
                     run_summary.statements(base, ["run"], severity).items()}
        _assert_equal(summary_rows.summarise(rows, severity), in_engine, severity)
    assert summary_rows.summarise([], None)["metrics"].rows == e.query(
        run_summary.statements(run_summary.BASE.format(where="1 = 0"), ["run"], None)["metrics"][0],
        ["run"]).rows  # no rows: counts 0, sums NULL
