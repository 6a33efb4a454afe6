"""The three tools over the demo warehouse, with every figure recomputed independently from raw rows."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from assessment_engine.warehouse.store import connect_reader
from orchestration.services import Services, build_services
from orchestration.tools.analysis_tool import analyse
from orchestration.tools.comparison_tool import compare
from orchestration.tools.errors import ToolError
from orchestration.tools.issue_tracking_tool import track
from tests.catalog import BUNDLED


@pytest.fixture()
def raw(demo_warehouse: Path):  # type: ignore[no-untyped-def]
    """Raw rows read with a separate connection; the checks below recompute in Python."""
    con = connect_reader(demo_warehouse)
    runs = [r[0] for r in con.execute("SELECT assessment_id FROM assessments ORDER BY started_at").fetchall()]
    results = con.execute("SELECT assessment_id, asset_id, rule_id, status, severity FROM results").fetchall()
    assets = {r[0]: r[1:] for r in con.execute(
        "SELECT asset_id, site, environment, device_type, product_family, criticality, platform, os_version FROM assets"
    ).fetchall()}
    assessed = defaultdict(set)
    for run, asset in con.execute("SELECT assessment_id, asset_id FROM configs").fetchall():
        assessed[run].add(asset)
    con.close()
    return runs, results, assets, assessed


def test_summary_metrics_and_breakdowns(raw, services: Services) -> None:  # type: ignore[no-untyped-def]
    runs, results, assets, _ = raw
    latest = [r for r in results if r[0] == runs[-1]]
    fails = [r for r in latest if r[3] == "fail"]
    out = analyse(services.warehouse(), "summary", catalog=BUNDLED)
    m = out["metrics"]
    assert m["assessment_id"] == runs[-1]
    assert m["checks_performed"] == len(latest)
    assert m["checks_failed"] == len(fails)
    assert m["checks_passed"] == sum(r[3] == "pass" for r in latest)
    assert m["assets_assessed"] == len({r[1] for r in latest})
    at_risk = {r[1] for r in fails if r[4] in ("critical", "high")}
    assert m["assets_at_risk"] == len(at_risk)
    assert m["pct_assets_at_risk"] == round(100 * len(at_risk) / m["assets_assessed"], 1)
    assert {b["key"]: b["failures"] for b in out["breakdowns"]["severity"]} == dict(Counter(r[4] for r in fails))
    families = Counter(assets[r[1]][3] for r in fails)
    assert {b["key"]: b["failures"] for b in out["breakdowns"]["product_family"]} == dict(families)
    crit = Counter(assets[r[1]][4] for r in fails)
    assert {b["key"]: b["failures"] for b in out["breakdowns"]["criticality"]} == dict(crit)
    top = Counter(r[2] for r in fails).most_common(1)[0]
    assert out["top_rules"][0]["failing_assets"] == top[1]
    assert len(out["results_sample"]) <= out["sample_cap"] < len(fails)  # sample capped, aggregates are not


def test_filtered_percentage_of_production_routers_with_critical_deviations(raw, services: Services) -> None:  # type: ignore[no-untyped-def]
    runs, results, assets, _ = raw
    scope = {a for a, v in assets.items() if v[1] == "production" and v[2] == "router"}
    latest = [r for r in results if r[0] == runs[-1] and r[1] in scope]
    in_scope = {r[1] for r in latest}
    critical = {r[1] for r in latest if r[3] == "fail" and r[4] == "critical"}
    m = analyse(services.warehouse(), "filtering", severity_filter="critical", scope={"environment": "production", "device_type": "router"}, catalog=BUNDLED)["metrics"]
    assert m["assets_assessed"] == len(in_scope)
    assert m["assets_with_matching_failures"] == len(critical)
    assert m["pct_assets_with_matching_failures"] == round(100 * len(critical) / len(in_scope), 1)


def test_site_scope(raw, services: Services) -> None:  # type: ignore[no-untyped-def]
    runs, results, assets, _ = raw
    hq = [r for r in results if r[0] == runs[-1] and assets[r[1]][0] == "HQ"]
    m = analyse(services.warehouse(), "summary", scope={"sites": ["hq"]}, catalog=BUNDLED)["metrics"]
    assert m["checks_failed"] == sum(r[3] == "fail" for r in hq) and m["scope"] == "HQ"


def test_comparison_new_resolved_persistent_and_assets(raw, services: Services) -> None:  # type: ignore[no-untyped-def]
    runs, results, _, assessed = raw
    fails = defaultdict(set)
    for r in results:
        if r[3] == "fail":
            fails[r[0]].add((r[1], r[2]))
    prev, cur = fails[runs[-2]], fails[runs[-1]]
    common = assessed[runs[-1]] & assessed[runs[-2]]
    out = compare(services.warehouse(), "latest", "previous", "changes")
    m = out["metrics"]
    assert (out["current_assessment_id"], out["previous_assessment_id"]) == (runs[-1], runs[-2])
    checked_ok = {(r[1], r[2]) for r in results if r[0] == runs[-1] and r[3] != "fail"}
    assert m["new_issues"] == len(cur - prev)  # a newly assessed device's failures are new
    assert m["resolved_issues"] == len(prev & checked_ok)  # fixed: checked again and not failing
    assert m["persistent_issues"] == len(cur & prev)
    delta = Counter(a for a, _ in cur) - Counter()
    before = Counter(a for a, _ in prev)
    worsened = {a for a in common if delta[a] > before[a]}
    improved = {a for a in common if delta[a] < before[a]}
    assert m["worsened_assets"] == len(worsened) and m["improved_assets"] == len(improved)
    assert {x["asset_id"] for x in out["asset_level_changes"]["worsened"]} <= worsened
    assert [t["failures"] for t in out["trend_analysis"]] == [len(fails[r]) for r in runs]


def test_issue_tracking_persistent_critical(raw, services: Services) -> None:  # type: ignore[no-untyped-def]
    runs, results, _, _ = raw
    fails = defaultdict(set)
    for r in results:
        if r[3] == "fail" and r[4] == "critical":
            fails[(r[1], r[2])].add(r[0])
    persistent = {k for k, seen in fails.items() if runs[-1] in seen and runs[-2] in seen}
    out = track(services.warehouse(), "persistent", "since_prior", priority="critical")
    assert out["total_unresolved"] == len(persistent)
    assert out["severity_breakdown"]["critical"] == len(persistent)
    assert out["risk_assessment"]["level"] == ("critical" if persistent else "low")


def test_unknown_assessment_site_and_empty_scope_are_explicit(demo_warehouse: Path, services: Services) -> None:
    w = services.warehouse()
    with pytest.raises(ToolError, match="unknown assessment id 'ASMT-1999-01-01'"):
        analyse(w, "summary", assessment_id="ASMT-1999-01-01", catalog=BUNDLED)
    with pytest.raises(ToolError, match="unknown site 'Atlantis'"):
        analyse(w, "summary", scope={"sites": ["Atlantis"]}, catalog=BUNDLED)
    with pytest.raises(ToolError, match="did you mean Branch-05"):
        analyse(w, "summary", scope={"sites": ["Branch-5"]}, catalog=BUNDLED)
    empty = build_services().tools.call("assessment_analysis_tool", {"query_type": "filtering", "scope": {"sites": ["Lab-1"],
                                                                                           "environment": "staging"}})
    assert empty.call.status == "empty" and empty.call.row_count == 0
    err = build_services().tools.call("assessment_comparison_tool", {"current_assessment_id": "latest", "previous_assessment_id": "nope",
                                                   "comparison_focus": "overall"})
    assert err.call.status == "error" and "unknown assessment id 'nope'" in (err.call.error or "")
