"""Whole-run summaries written with each run: what the analysis tool reads back equals what its statements give
when run now, for every run and severity; narrower questions, older files and changed inventories are computed
from the results; an upload writes its own run's summary and drops the summaries its inventory change touches.
The same for each run's comparison with the run before it in its collection (the comparison tool)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pytest

from assessment_engine.warehouse import comparison_summary, run_summary
from assessment_engine.warehouse.config_templates import DeviceSpec, render
from assessment_engine.warehouse.demo_network import CONTROLS
from assessment_engine.warehouse.user_configs import assess_files
from assessment_engine.warehouse.versions import current_file
from foundation.config import get_settings
from foundation.vocabulary.severity import SEVERITIES
from orchestration.services import Services
from orchestration.tools.analysis_tool import analyse
from orchestration.tools.comparison_tool import compare
from tests.catalog import BUNDLED


def _live(w: Any, assessment_id: str, severity: str | None) -> dict[str, Any]:
    base, params = run_summary.whole_run(assessment_id)
    return {name: w.query(sql, p) for name, (sql, p) in run_summary.statements(base, params, severity).items()}


@pytest.mark.parametrize("severity", [None, *SEVERITIES])
def test_the_stored_summary_of_every_run_equals_the_statements_run_now(demo_warehouse: Path,
                                                                       severity: str | None, services: Services) -> None:
    w = services.warehouse()
    runs = [r[0] for r in w.query("SELECT assessment_id FROM assessments ORDER BY started_at").rows]
    assert len(runs) >= 4
    for assessment_id in runs:
        stored = run_summary.read(w, assessment_id, severity)
        assert stored is not None, assessment_id
        assert stored == _live(w, assessment_id, severity), (assessment_id, severity)
    if severity in (None, "critical", "high"):  # the comparison is not between empty results
        assert stored["sample"].rows and stored["breakdowns"].rows and stored["top_rules"].rows


def test_the_tool_reads_the_summary_only_for_a_whole_run_question(demo_warehouse: Path, services: Services) -> None:
    w = services.warehouse()
    assert analyse(w, "summary", catalog=BUNDLED)["computed_from"] == "summary stored with the run"
    assert analyse(w, "filtering", severity_filter="high", catalog=BUNDLED)["computed_from"] == "summary stored with the run"
    for narrower in ({"scope": {"sites": ["HQ"]}}, {"product_filter": "catalyst"}, {"focus_area": "snmp"},
                     {"focus_area": "security"}, {"scope": {"environment": "production"}}):
        assert analyse(w, "summary", **narrower, catalog=BUNDLED)["computed_from"] == "results", narrower


def _drop_summaries(warehouse: Path, services: Services) -> None:
    services.close()  # a writer opens the file itself: the reader goes first
    con = duckdb.connect(str(current_file(warehouse)))
    con.execute("DROP TABLE run_summaries")
    con.close()


def test_a_warehouse_written_before_summaries_answers_the_same_from_its_results(writable_warehouse: Path, services: Services) -> None:
    w = services.warehouse()
    stored = [analyse(w, "summary", severity_filter=s, catalog=BUNDLED) for s in (None, "critical")]
    _drop_summaries(writable_warehouse, services)
    w = services.warehouse()
    live = [analyse(w, "summary", severity_filter=s, catalog=BUNDLED) for s in (None, "critical")]
    assert [r.pop("computed_from") for r in stored] == ["summary stored with the run"] * 2
    assert [r.pop("computed_from") for r in live] == ["results"] * 2
    assert live == stored


def _upload(collection: str, version: str, controls_on: bool, now: datetime | None = None) -> str:
    spec = DeviceSpec("RTR-LAB-1", "Lab", "lab", "lab", "router", "wan", "f", "m", "ios-xe", "high", "10.9.9.9", 1)
    config = render(spec, version, dict.fromkeys(CONTROLS, controls_on), "now").encode()
    report = assess_files([("rtr-lab-1.cfg", config)], BUNDLED, get_settings(), collection=collection, owner="alice", now=now)
    assert report.assessment_id
    return report.assessment_id


def test_an_upload_stores_its_summary_and_drops_those_its_inventory_change_touches(writable_warehouse: Path, services: Services) -> None:
    first = _upload("lab-a", "17.6.1", False)
    w = services.warehouse()
    fleet_latest = analyse(w, "summary", catalog=BUNDLED)
    assert run_summary.read(w, first, None) == _live(w, first, None)
    before = analyse(w, "summary", assessment_id=first, viewer="alice", catalog=BUNDLED)
    assert before["computed_from"] == "summary stored with the run"

    second = _upload("lab-a", "17.9.4", True)  # the same device again: its OS version in the inventory changes
    w = services.warehouse()
    assert run_summary.read(w, first, None) is None  # its 'os' breakdown joins the changed inventory row
    again = analyse(w, "summary", assessment_id=first, viewer="alice", catalog=BUNDLED)
    assert again["computed_from"] == "results"
    version = w.query("SELECT os_version FROM assets WHERE asset_id = 'lab-a/RTR-LAB-1'").rows[0][0]
    assert [b["key"] for b in again["breakdowns"]["os"]] == [f"ios-xe {version}"]  # the inventory as it is now
    assert before["breakdowns"]["os"] != again["breakdowns"]["os"]  # a stored summary would have been stale
    assert run_summary.read(w, second, None) == _live(w, second, None)
    assert analyse(w, "summary", catalog=BUNDLED) == fleet_latest  # the fleet's runs were not touched


def _live_comparison(w: Any, current: str, previous: str) -> dict[str, Any]:
    found = {name: w.query(sql, p) for name, (sql, p) in comparison_summary.statements(
        current, previous, "1 = 1", [], "", [], run_summary.SAMPLE_CAP).items()}
    collection = w.query("SELECT collection, started_at FROM assessments WHERE assessment_id = ?", [current]).rows[0]
    mine = {r[0] for r in w.query("SELECT assessment_id FROM assessments WHERE collection = ? AND started_at <= ?",
                                  list(collection)).rows}
    for name in ("trend_fails", "trend_assets"):  # stored: the collection's runs up to the current one
        found[name] = type(found[name])(found[name].columns, [r for r in found[name].rows if r[0] in mine])
    return found


def test_each_run_stores_its_comparison_with_the_run_before_and_the_tool_reads_it(demo_warehouse: Path, services: Services) -> None:
    w = services.warehouse()
    runs = [r[0] for r in w.query("SELECT assessment_id FROM assessments ORDER BY started_at").rows]
    assert comparison_summary.read(w, runs[1], runs[0]) is not None
    for previous, current in zip(runs, runs[1:], strict=False):
        stored = comparison_summary.read(w, current, previous)
        assert stored is not None and stored == _live_comparison(w, current, previous), (previous, current)
        assert stored[comparison_summary.ASSETS_V].rows and stored[comparison_summary.ISSUES_V].rows
    assert comparison_summary.read(w, runs[2], runs[0]) is None  # not a pair written: computed live
    latest = compare(w, "latest", "previous", "overall")
    assert latest["computed_from"] == "comparison stored with the run"
    assert latest["metrics"]["current_failures"] == w.query(
        "SELECT COUNT(*) FROM results WHERE assessment_id = ? AND status = 'fail'", [runs[-1]]).rows[0][0]
    for narrower in ({"scope": {"sites": ["HQ"]}}, {"severity_filter": "high"}, {"rules": ["SNMP-001"]}):
        assert compare(w, "latest", "previous", "overall", **narrower)["computed_from"] == "results", narrower
    assert compare(w, runs[-1], runs[0], "overall")["computed_from"] == "results"


def test_a_comparison_read_back_is_the_comparison_computed_now(writable_warehouse: Path, services: Services) -> None:
    w = services.warehouse()
    stored = compare(w, "latest", "previous", "overall")
    services.close()  # a writer opens the file itself: the reader goes first
    con = duckdb.connect(str(current_file(writable_warehouse)))
    con.execute(f"DROP TABLE {comparison_summary.TABLE}")
    con.close()
    live = compare(services.warehouse(), "latest", "previous", "overall")
    assert (stored.pop("computed_from"), live.pop("computed_from")) == ("comparison stored with the run", "results")
    assert live == stored


def test_an_upload_stores_its_comparison_and_an_inventory_change_drops_the_pairs_it_touches(
        writable_warehouse: Path, services: Services) -> None:
    first = _upload("lab-b", "17.6.1", False, datetime(2026, 11, 27, 9, 0))
    same_second = _upload("lab-b", "17.6.1", False, datetime(2026, 11, 27, 9, 0))
    second = _upload("lab-b", "17.6.1", True, datetime(2026, 11, 27, 10, 0))  # its controls on: fewer failures
    w = services.warehouse()
    assert not w.query(f"SELECT * FROM {comparison_summary.TABLE} WHERE current_assessment_id IN (?, ?)",
                       [first, same_second]).rows  # a collection's first run has none, nor a run of the same second
    previous = max(first, same_second)  # of two runs of one second, the later id is "previous", as the tool resolves it
    assert comparison_summary.read(w, second, previous) == _live_comparison(w, second, previous)
    result = compare(w, "latest", "previous", "overall", collection="lab-b", viewer="alice")
    assert result["computed_from"] == "comparison stored with the run" and result["metrics"]["direction"] == "improved"
    assert result["previous_assessment_id"] == previous
    third = _upload("lab-b", "17.9.4", True, datetime(2026, 11, 27, 11, 0))  # its OS version changes: pairs dropped
    w = services.warehouse()
    assert comparison_summary.read(w, second, previous) is None
    assert comparison_summary.read(w, third, second) == _live_comparison(w, third, second)
