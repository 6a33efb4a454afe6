"""The comparison, issue-tracking and SLIC tools compute in the warehouse engine (set operations, window functions)
what they once computed in Python over every failing row: on the demo warehouse, for every kind of scope,
severity and run pair, the answer is exactly the one the Python version gives (``tool_oracles``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestration.services import Services
from orchestration.tools.comparison_tool import compare
from orchestration.tools.issue_tracking_tool import track
from orchestration.tools.slic_tool import slic_results_tool
from tests.catalog import BUNDLED
from tests.tool_oracles import compare_in_python, slic_in_python, track_in_python

SCOPES: list[dict[str, Any] | None] = [
    None, {"sites": ["DataCenter-1"]}, {"sites": ["Branch-05", "HQ"]}, {"environment": "production", "device_type": "router"},
    {"platform": "nx-os"}, {"device_type": "firewall"}, {"device": "nonexistent"},
]


def _runs(w: Any) -> list[str]:
    return [r[0] for r in w.query("SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at").rows]


def _computed(result: dict[str, Any]) -> dict[str, Any]:
    """The tool's result without saying where it came from (the oracle computes it one way only): a whole-run
    comparison of the latest run and the one before is read from what was stored with it, any other computed."""
    assert result.pop("computed_from") in ("comparison stored with the run", "results")
    return result


@pytest.mark.parametrize("scope", SCOPES[:-1])
@pytest.mark.parametrize("severity", [None, "critical", "medium"])
def test_comparison_in_sql_equals_the_python_comparison(demo_warehouse: Path, scope: dict[str, Any] | None,
                                                         severity: str | None, services: Services) -> None:
    w = services.warehouse()
    runs = _runs(w)
    for current, previous in [("latest", "previous"), (runs[-1], runs[0]), (runs[1], runs[2])]:
        got = _computed(compare(w, current, previous, "assets", severity_filter=severity, scope=scope))
        want = compare_in_python(w, current, previous, "assets", severity_filter=severity, scope=scope)
        assert got == want, (current, previous, scope, severity)
    assert got["metrics"]["current_assets"] > 0  # the scopes are not empty: the comparison had rows to compare


@pytest.mark.parametrize("scope", SCOPES[:-1])
def test_a_comparison_of_named_checks_in_sql_equals_the_python_comparison(demo_warehouse: Path,
                                                                          scope: dict[str, Any] | None, services: Services) -> None:
    """The checks a question names ("did telnet and snmp get better?"): the engine's IN filter against a filter
    applied here to every failing row."""
    w = services.warehouse()
    rules = ["NTP-AUTH", "SNMP-V3-PRIV", "VTY-SSH-ONLY", "ASA-TELNET"]
    got = _computed(compare(w, "latest", "previous", "assets", scope=scope, rules=rules))
    assert got == compare_in_python(w, "latest", "previous", "assets", scope=scope, rules=rules)
    assert got["rules_compared"] == rules
    everything = compare(w, "latest", "previous", "assets", scope=scope)
    assert got["metrics"]["current_failures"] < everything["metrics"]["current_failures"]


@pytest.mark.parametrize("scope", SCOPES[:-1])
@pytest.mark.parametrize(("tracking", "window", "priority", "rule"), [
    ("all", "latest", None, None), ("persistent", "since_prior", "critical", None), ("recurring", "latest", None, None),
    ("persistent", "latest", None, "ntp-auth"), ("all", "since_prior", "high", None)])
def test_issue_tracking_in_sql_equals_the_python_tracking(demo_warehouse: Path, scope: dict[str, Any] | None,
                                                          tracking: str, window: str, priority: str | None,
                                                          rule: str | None, services: Services) -> None:
    w = services.warehouse()
    for lookback in (2, 3):
        got = track(w, tracking, window, rule_filter=rule, priority=priority, lookback_assessments=lookback, scope=scope)
        want = track_in_python(w, tracking, window, rule_filter=rule, priority=priority, lookback_assessments=lookback,
                               scope=scope)
        assert got == want, (tracking, window, priority, rule, lookback, scope)


@pytest.mark.parametrize("group_here_max", [0, 500])  # grouped in the engine / fetched whole and grouped here
@pytest.mark.parametrize("scope", SCOPES[:-1] + [{"sites": ["Store-45", "Store-46"]}])
def test_slic_results_grouped_either_way_equal_the_python_grouping(demo_warehouse: Path, scope: dict[str, Any] | None,
                                                                   group_here_max: int,
                                                                   monkeypatch: pytest.MonkeyPatch, services: Services) -> None:
    from orchestration.tools import slic_tool

    monkeypatch.setattr(slic_tool, "GROUP_HERE_MAX", group_here_max)
    w = services.warehouse()
    for run in [*_runs(w), "latest"]:
        got = slic_results_tool(w, run, scope=scope)
        assert got == slic_in_python(w, run, scope=scope), (run, scope)
        assert list(got["by_severity"]) == list(slic_in_python(w, run, scope=scope)["by_severity"])  # order too
    if scope is None:  # the equality is over real groups: several signatures, PCI sites, more matches than the cap
        assert len(got["by_signature"]) > 3 and any(s["pci_sites"] for s in got["by_signature"])
        assert got["total_matches"] > len(got["results"]) == got["result_cap"]


def test_the_demo_data_exercises_every_branch(demo_warehouse: Path, services: Services) -> None:
    """The equality above means something only if the data has improved, worsened, new and recurring cases."""
    w = services.warehouse()
    runs = _runs(w)
    changes = compare(w, runs[-1], runs[0], "assets")["metrics"]
    assert changes["improved_assets"] and changes["worsened_assets"] and changes["new_issues"] and changes["resolved_issues"]
    assert track(w, "recurring", "latest")["total_unresolved"] > 0
    assert track(w, "persistent", "since_prior")["total_unresolved"] > 0


def test_breakdowns_come_in_one_statement_capped_with_the_number_of_keys(demo_warehouse: Path, services: Services) -> None:
    """Thousands of sites at 10,000 devices: the tool sends the largest keys of each breakdown and how many there are,
    and the summary's table says how many more there are."""
    from assessment_engine.warehouse.run_summary import BREAKDOWN_CAP
    from orchestration.interpretation.findings import breakdown_table
    from orchestration.tools.analysis_tool import analyse
    from orchestration.tools.results import AnalysisResult

    w = services.warehouse()
    result = analyse(w, "summary", catalog=BUNDLED)
    latest = result["metrics"]["assessment_id"]
    sites = w.query("SELECT a.site, COUNT(*) FROM results r JOIN assets a ON a.asset_id = r.asset_id "
                    "WHERE r.assessment_id = ? AND r.status = 'fail' GROUP BY a.site ORDER BY 2 DESC, 1", [latest]).rows
    assert len(sites) > BREAKDOWN_CAP  # the demo has more sites than the cap: the cap is exercised
    assert result["breakdown_keys"]["site"] == len(sites)
    assert [(r["key"], r["failures"]) for r in result["breakdowns"]["site"]] == [tuple(s) for s in sites[:BREAKDOWN_CAP]]
    typed = AnalysisResult.model_validate(result).breakdowns["site"]
    assert f"… and {len(sites) - 8} more" in breakdown_table("site", typed, len(sites))


def test_signatures_asked_for_are_filtered_before_the_cap(demo_warehouse: Path, services: Services) -> None:
    """The matches are capped, most severe first: a signature the question names is filtered in the statement, or a
    lower-severity one past the cap reads as "matched no device" though it matched many."""
    w = services.warehouse()
    whole = slic_results_tool(w, "latest")
    shown = {r["signature_id"] for r in whole["results"]}
    past_cap = [s["signature_id"] for s in whole["by_signature"] if s["signature_id"] not in shown]
    assert past_cap, "the demo's latest run has a signature past the cap: the case below checks something"
    named = slic_results_tool(w, "latest", signatures=[past_cap[0].lower()])
    want = [s for s in whole["by_signature"] if s["signature_id"] == past_cap[0]]
    assert named["by_signature"] == want and named["results"], named["by_signature"]
    assert {r["signature_id"] for r in named["results"]} == {past_cap[0]}
