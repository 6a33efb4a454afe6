"""The demo network: deterministic, realistic names, drift across at least three runs, events and SLIC."""

from __future__ import annotations

import re
from pathlib import Path

from assessment_engine.warehouse.build import build_demo_warehouse
from assessment_engine.warehouse.store import connect_reader
from assessment_engine.warehouse.versions import current_file
from tests.catalog import BUNDLED


def q(path: Path, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    con = connect_reader(current_file(path))
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_same_seed_same_warehouse(tmp_path: Path) -> None:
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    build_demo_warehouse(a, BUNDLED, devices=60, seed=3, runs=3)
    build_demo_warehouse(b, BUNDLED, devices=60, seed=3, runs=3)
    sql = "SELECT assessment_id, asset_id, rule_id, status, evidence FROM results ORDER BY 1, 2, 3"
    assert q(a, sql) == q(b, sql)
    assert q(a, "SELECT config_text FROM configs ORDER BY assessment_id, asset_id") == \
        q(b, "SELECT config_text FROM configs ORDER BY assessment_id, asset_id")


def test_size_is_a_parameter(tmp_path: Path) -> None:
    report = build_demo_warehouse(tmp_path / "w.duckdb", BUNDLED, devices=300, runs=3)
    assert 300 <= report.devices < 330


def test_sites_devices_and_platforms_look_real(demo_warehouse: Path) -> None:
    sites = {r[0] for r in q(demo_warehouse, "SELECT site FROM sites")}
    assert {"HQ", "DataCenter-1", "Branch-05", "Site-A", *(f"Store-{n}" for n in range(45, 53))} <= sites
    hosts = {r[0] for r in q(demo_warehouse, "SELECT asset_id FROM assets")}
    assert {"RTR-CORE-1", "FW-EDGE-2"} <= hosts
    assert {r[0] for r in q(demo_warehouse, "SELECT DISTINCT platform FROM assets")} == {"ios-xe", "nx-os", "asa"}
    assert {r[0] for r in q(demo_warehouse, "SELECT DISTINCT environment FROM assets")} >= {"production", "staging", "lab"}
    assert {r[0] for r in q(demo_warehouse, "SELECT DISTINCT device_type FROM assets")} == {
        "router", "switch", "firewall", "wireless_controller"}
    assert {r[0] for r in q(demo_warehouse, "SELECT DISTINCT criticality FROM assets")} == {"critical", "high", "medium", "low"}


def test_at_least_three_runs_with_drift(demo_warehouse: Path) -> None:
    runs = [r[0] for r in q(demo_warehouse, "SELECT assessment_id FROM assessments ORDER BY started_at")]
    assert len(runs) >= 3
    prev, cur = runs[-2], runs[-1]
    fails = "SELECT asset_id, rule_id FROM results WHERE assessment_id = '{}' AND status = 'fail'"
    p, c = set(q(demo_warehouse, fails.format(prev))), set(q(demo_warehouse, fails.format(cur)))
    assert c - p and p - c and c & p  # new, resolved and persistent issues
    per_asset = """SELECT asset_id, SUM(CASE WHEN assessment_id = '{}' THEN 1 ELSE 0 END) - SUM(CASE WHEN assessment_id = '{}'
                   THEN 1 ELSE 0 END) FROM results WHERE status = 'fail' GROUP BY asset_id"""
    deltas = [d for _, d in q(demo_warehouse, per_asset.format(cur, prev))]
    assert any(d > 0 for d in deltas) and any(d < 0 for d in deltas)  # worsened and improved assets


def test_results_come_from_the_engine_with_evidence(demo_warehouse: Path) -> None:
    rows = q(demo_warehouse, """SELECT r.evidence, r.evidence_lines, c.config_text FROM results r JOIN configs c
        ON c.assessment_id = r.assessment_id AND c.asset_id = r.asset_id
        WHERE r.status = 'fail' AND r.evidence_lines <> '' LIMIT 200""")
    assert rows
    for evidence, lines, config in rows:
        text = config.split("\n")
        shown = {int(n): t.strip() for n, t in (ln.split(": ", 1) for ln in evidence.split("\n")
                                                if re.match(r"\d+: ", ln))}
        assert all(text[n - 1].strip() == t for n, t in shown.items()), evidence  # every line quoted as numbered
        assert {int(n) for n in lines.split(",")} & set(shown)  # the offending lines are among them


def test_events_versions_and_slic_results_exist(demo_warehouse: Path) -> None:
    assert q(demo_warehouse, "SELECT COUNT(*) FROM events")[0][0] > 1000
    kinds = {r[0] for r in q(demo_warehouse, "SELECT DISTINCT kind FROM slic_results")}
    assert kinds == {"software", "config", "event"}
    cves = q(demo_warehouse, "SELECT COUNT(*) FROM slic_results WHERE cves LIKE 'CVE-%'")[0][0]
    assert cves > 0
    assert q(demo_warehouse, "SELECT COUNT(*) FROM results WHERE status = 'exception'")[0][0] > 0
