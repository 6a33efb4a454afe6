"""Answers in the form of the question (issue 29): the complete list, the number, the ranked device, both sides,
the series, Yes/No with its exception, the devices that changed — each first line checked against figures and names
computed here with SQL over the demo warehouse, never against the product's output. Prompts written for this file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from orchestration.runtime import handle_turn
from orchestration.services import Services
from tests.unit.test_answers import LATEST, PREVIOUS, sql
from tests.unit.test_faithful_scope import new_chat

TELNET_RULES = ("SELECT rule_id FROM rules WHERE technology = 'telnet' OR LOWER(title || ' ' || rationale) LIKE "
                "'%telnet%'")


def first_line(answer: str) -> str:
    """The line after the scope line: the answer itself."""
    lines = [ln for ln in answer.splitlines() if ln.strip() and not ln.startswith("**Scope")]
    return lines[0]


def tool_of(state) -> tuple[str, str | None]:  # type: ignore[no-untyped-def]
    call = state.mcp.tool_calls[0]
    return call.tool_name, call.input.get("template")


def test_a_device_list_names_every_device_the_condition_selects(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("which boxes at the stores still let people in over telnet?", services=services)
    expected = {r[0] for r in sql(demo_warehouse, f"""
        SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND s.site_type = 'store'
          AND (r.rule_id IN (SELECT rule_id FROM rules WHERE technology = 'telnet') OR r.rule_id = 'VTY-SSH-ONLY')""")}
    assert tool_of(state) == ("sql_path", "device_list")
    head = first_line(state.final.answer)
    assert re.match(rf"\*\*{len(expected)} devices\*\*", head), head
    listed = set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M))
    assert listed == expected


def test_no_device_failing_a_check_the_scope_is_never_judged_on_is_not_a_pass(demo_warehouse: Path, services: Services) -> None:
    """CoPP is judged on IOS-XE routers only: "None fail" of the leaf switches would read as a pass."""
    judged = sql(demo_warehouse, f"""SELECT COUNT(*) FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.rule_id = 'COPP' AND a.device_type = 'switch'""")[0][0]
    assert judged == 0
    head = first_line(handle_turn("do any of the leaf switches fail copp", services=services).final.answer)
    assert head.startswith("**Not judged.** COPP applies to ios-xe routers only"), head


def test_a_count_of_devices_is_the_number_first_out_of_those_assessed(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("how many store firewalls have a critical failure?", services=services)
    (n, of), = sql(demo_warehouse, f"""
        SELECT COUNT(DISTINCT CASE WHEN r.status = 'fail' AND r.severity = 'critical' THEN r.asset_id END),
               COUNT(DISTINCT r.asset_id)
        FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site
        WHERE r.assessment_id = {LATEST} AND s.site_type = 'store' AND a.device_type = 'firewall'""")
    assert 0 < n < of
    head = first_line(state.final.answer)
    assert head.startswith(f"**{n}** of the {of} devices assessed in this scope fail critical checks"), head


def test_a_ranking_that_holds_every_failing_device_says_how_many_fail_none(demo_warehouse: Path, services: Services) -> None:
    """"Top 2 of 2" hid that the other NX-OS devices fail nothing: the ranking says all that fail, and of how many."""
    state = handle_turn("which nexus boxes are failing the most checks", services=services)
    rows = sql(demo_warehouse, f"""
        SELECT r.asset_id, COUNT(*) FILTER (WHERE r.status = 'fail') FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND a.platform = 'nx-os' GROUP BY r.asset_id""")
    failing = sorted((n, a) for a, n in rows if n)
    assert 1 < len(failing) < len(rows)  # the demo has both kinds: the sentence is exercised
    head = first_line(state.final.answer)
    assert head.startswith(f"**{failing[-1][1]}**"), head
    assert (f"All {len(failing)} devices failing any checks" in head and
            f"the other {len(rows) - len(failing)} of the {len(rows)} assessed in this scope fail none" in head), head


def test_a_ranking_of_devices_names_the_worst_device(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("which device has the most critical findings right now?", services=services)
    rows = sql(demo_warehouse, f"""
        SELECT asset_id, COUNT(*) AS n FROM results WHERE assessment_id = {LATEST} AND status = 'fail'
          AND severity = 'critical' GROUP BY asset_id ORDER BY n DESC""")
    top = {a for a, n in rows if n == rows[0][1]}
    head = first_line(state.final.answer)
    named = re.match(r"\*\*([A-Z0-9-]+)\*\*", head)
    assert named and named.group(1) in top and f"{rows[0][1]} failed checks" in head, head


def test_a_trend_question_gets_the_series_over_the_runs_asked(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("how has the pass rate developed since September?", services=services)
    runs = sql(demo_warehouse, """
        SELECT m.assessment_id, COUNT(*) FILTER (WHERE r.status = 'pass'), COUNT(*) FROM assessments m
        JOIN results r USING (assessment_id) WHERE m.collection = 'fleet' AND m.started_at >= DATE '2026-09-01'
        GROUP BY m.assessment_id, m.started_at ORDER BY m.started_at""")
    assert tool_of(state) == ("sql_path", "run_series")
    rates = [round(100 * p / n, 1) for _, p, n in runs]
    head = first_line(state.final.answer)
    assert f"from {rates[0]}%" in head and f"to {rates[-1]}%" in head and f"over {len(runs)} runs" in head, head
    for run_id, *_ in runs:
        assert f"| {run_id} |" in state.final.answer


def test_a_comparison_of_two_sites_shows_both_sides(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("HQ vs Site-B: who has more failed checks?", services=services)
    figures = dict(sql(demo_warehouse, f"""
        SELECT a.site, COUNT(*) FILTER (WHERE r.status = 'fail') FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND a.site IN ('HQ', 'Site-B') GROUP BY a.site"""))
    head = first_line(state.final.answer)
    for site, failed in figures.items():
        assert f"**{site}**: {failed:,} failed" in head, head


def test_exceptions_expiring_before_a_date_are_listed_by_id(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("which waivers run out before the end of Q1 2027?", services=services)
    expected = [r[0] for r in sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE expires_on <= "
                                                  "DATE '2027-03-31' ORDER BY expires_on, exception_id")]
    head = first_line(state.final.answer)
    assert head.startswith(f"**{len(expected)} approved exception"), head
    assert re.findall(r"EXC-\d{4}-\d{3}", head) == expected


def test_is_it_covered_by_an_exception_is_answered_yes_or_no(demo_warehouse: Path, services: Services) -> None:
    (device, rule, exception), = sql(demo_warehouse, f"""
        SELECT asset_id, rule_id, exception_id FROM results WHERE assessment_id = {LATEST} AND status = 'exception'
          AND rule_id = 'ASA-TLS' ORDER BY asset_id LIMIT 1""")
    state = handle_turn(f"the tls finding on {device} - do we have an exception for it or must it be fixed?", services=services)
    head = first_line(state.final.answer)
    assert head.startswith("**Yes**") and exception in head and rule in head, head


def test_better_or_worse_between_two_named_months(demo_warehouse: Path, services: Services) -> None:
    (before, after), = sql(demo_warehouse, """
        SELECT COUNT(*) FILTER (WHERE m.started_at < DATE '2026-10-01'), COUNT(*) FILTER (WHERE m.started_at >=
        DATE '2026-10-01') FROM results r JOIN assets a USING (asset_id) JOIN assessments m USING (assessment_id)
        WHERE a.site = 'Site-A' AND r.status = 'fail' AND m.started_at >= DATE '2026-09-01'
          AND m.started_at < DATE '2026-11-01'""")
    state = handle_turn("did Site-A improve from the September to the October assessment?", services=services)
    assert tool_of(state)[0] == "assessment_comparison_tool"
    word = "Better" if after < before else "Worse" if after > before else "Unchanged"
    assert first_line(state.final.answer).startswith(f"**{word}**: Site-A went from {before} to {after} failed checks")


def test_which_devices_got_worse_lists_them_all(demo_warehouse: Path, services: Services) -> None:
    rows = sql(demo_warehouse, f"""
        WITH c AS (SELECT asset_id, COUNT(*) FILTER (WHERE status = 'fail') AS n FROM results
                   WHERE assessment_id = {LATEST} GROUP BY asset_id),
             p AS (SELECT asset_id, COUNT(*) FILTER (WHERE status = 'fail') AS n FROM results
                   WHERE assessment_id = {PREVIOUS} GROUP BY asset_id)
        SELECT c.asset_id FROM c JOIN p USING (asset_id) WHERE c.n > p.n""")
    state = handle_turn("which switches and routers regressed since the previous scan?", services=services)
    kinds = dict(sql(demo_warehouse, "SELECT asset_id, device_type FROM assets"))
    expected = {a for (a,) in rows if kinds[a] in ("switch", "router")}
    head = first_line(state.final.answer)
    assert head.startswith(f"**{len(expected)} devices got worse**"), head
    assert set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M)) == expected


def test_those_means_the_devices_just_listed_and_keeps_the_topic(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    chat("show me every device with a weak snmp setup")
    state = chat("and which of those are in production?")
    expected = {r[0] for r in sql(demo_warehouse, f"""
        SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING (asset_id) JOIN rules ru USING (rule_id)
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND ru.technology = 'snmp'
          AND a.environment = 'production'""")}
    assert state.intent.frame.filters.topic == ["snmp"]
    assert set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M)) == expected


def test_the_first_device_on_that_list_is_the_first_row(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    listing = chat("list the devices at Branch-02 that fail critical or high checks")
    first = re.search(r"^\| 1 \| ([A-Z0-9-]+) \|", listing.final.answer, re.M)
    assert first, listing.final.answer[:600]
    state = chat("drill into the first device on that list")
    assert [e.value for e in state.intent.entities if e.type == "device"] == [first.group(1)]
    assert state.final.scope is not None and state.final.scope.devices == [first.group(1)]


def test_the_first_one_after_a_device_list_is_its_first_device_with_what_that_was(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    listing = chat("which firewalls at the stores still allow telnet")
    rows = re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", listing.final.answer, re.M)
    assert len(rows) > 2, listing.final.answer[:600]
    state = chat("how do i fix that on the first one")
    assert state.final.scope is not None and state.final.scope.devices == [rows[0]]
    (failing,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM results WHERE assessment_id = {LATEST} AND "
                                      "asset_id = ? AND status = 'fail' AND rule_id = 'ASA-TELNET'", [rows[0]])
    assert failing == 1 and state.intent.frame.checks == ["ASA-TELNET"]  # "that" is the telnet check listed
    assert "ASA-TELNET" in first_line(state.final.answer) and "ASA-MGMT-ANY" not in state.final.answer
    # after drilling into one, "the second device on that list" is still the list's second row
    state = chat("drill into the second device on that list")
    assert state.final.scope is not None and state.final.scope.devices == [rows[1]]


def test_several_values_of_one_filter_are_all_kept(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("store routers or switches with snmp problems", services=services)
    scope = state.mcp.tool_calls[0].input["params"]
    assert "router" in scope and "switch" in scope and "store" in scope
    expected = {r[0] for r in sql(demo_warehouse, f"""
        SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site
        JOIN rules ru USING (rule_id) WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND ru.technology = 'snmp'
          AND s.site_type = 'store' AND a.device_type IN ('router', 'switch')""")}
    assert set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M)) == expected


def test_issues_open_for_n_assessments_use_issue_tracking_over_n_runs(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("what has been failing at Branch-06 for 3 assessments or more?", services=services)
    call = state.mcp.tool_calls[0]
    assert call.tool_name == "issue_tracking_tool" and call.input["lookback_assessments"] == 3


def test_a_clear_yes_no_about_a_named_device_runs_without_a_question(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("is SW-HQ-ACC-2 compliant with our snmp rules?", services=services)
    fails = {r[0] for r in sql(demo_warehouse, f"""
        SELECT r.rule_id FROM results r JOIN rules ru USING (rule_id) WHERE r.assessment_id = {LATEST}
          AND r.asset_id = 'SW-HQ-ACC-2' AND ru.technology = 'snmp' AND r.status = 'fail'""")}
    assert state.intent.intent_class != "unknown_or_needs_clarification"
    head = first_line(state.final.answer)
    assert head.startswith("**No**" if fails else "**Yes**"), head
    for rule in fails:
        assert rule in head


def test_a_trend_over_a_single_run_runs_and_says_there_is_no_trend(demo_warehouse: Path, services: Services) -> None:
    (latest_month,), = sql(demo_warehouse, "SELECT STRFTIME(MAX(started_at), '%B') FROM assessments")
    state = handle_turn(f"how has the pass rate moved since {latest_month}?", services=services)
    assert state.intent.intent_class != "unknown_or_needs_clarification"
    assert "**Not covered:** fewer than two runs" in state.final.answer


def test_a_side_of_a_comparison_without_results_is_named(demo_warehouse: Path, services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE site = 'Store-30' AND device_type = "
                                "'wireless_controller'")
    assert n == 0  # the premise: Store-30 has no wireless controller
    state = handle_turn("compare the wireless controllers at HQ and Store-30", services=services)
    assert "**Not covered:** no results for store-30" in state.final.answer


def test_sites_ranked_by_critical_findings(demo_warehouse: Path, services: Services) -> None:
    rows = sql(demo_warehouse, f"""
        SELECT a.site, COUNT(*) AS n FROM results r JOIN assets a USING (asset_id) WHERE r.assessment_id = {LATEST}
          AND r.status = 'fail' AND r.severity = 'critical' GROUP BY a.site ORDER BY n DESC""")
    state = handle_turn("which sites have the most critical failures?", services=services)
    head = first_line(state.final.answer)
    top = sorted(s for s, n in rows if n == rows[0][1])
    if len(top) > 1:  # a tie is said, every site of it named — not one of them picked as "the most"
        assert head.startswith("No single site leads: ") and f"tie at {rows[0][1]} failed checks each" in head, head
        assert all(f"**{site}**" in head.split(" tie at ")[0] for site in top), head
    else:
        named = re.match(r"\*\*([\w-]+)\*\* has the most failed checks: (\d+)", head)
        assert named and named.group(1) == top[0] and int(named.group(2)) == rows[0][1], head


def test_every_table_of_an_answer_downloads_as_csv_with_the_complete_query_rows(demo_warehouse: Path, services: Services) -> None:
    import csv
    import io
    import uuid

    from orchestration.csv_export import CsvTable, answer_tables, has_tables
    from orchestration.trace_export import thread_states

    thread = f"csv-{uuid.uuid4().hex[:8]}"
    handle_turn("which switches are still on 16.12.4?", thread_id=thread, user_id="alice", services=services)
    expected = sorted(r[0] for r in sql(demo_warehouse, """
        SELECT asset_id FROM assets WHERE device_type = 'switch' AND os_version = '16.12.4' AND collection = 'fleet'"""))
    (state,) = thread_states(thread, "alice", services.memory())
    tables = {t.name: t for t in answer_tables(state, 1)}
    shown = list(csv.reader(io.StringIO(tables["turn1-table1.csv"].text())))
    assert shown[0][:2] == ["#", "Device"] and sorted(r[1] for r in shown[1:]) == expected
    rows = list(csv.DictReader(io.StringIO(tables["turn1-query-rows.csv"].text())))
    assert sorted(r["asset_id"] for r in rows) == expected and all(r["os_version"] == "16.12.4" for r in rows)
    risky = CsvTable("x.csv", ["cell"], [["=HYPERLINK(1)"], ["-0.8"], ["-cmd"], ["@x"], ["plain"]]).text()
    assert risky.splitlines()[1:] == ["'=HYPERLINK(1)", "-0.8", "'-cmd", "'@x", "plain"]
    # the "Tables (CSV)" button: a table with or without outer pipes has one; pipes in a sentence do not
    assert has_tables(state["final"]["answer"], 0) and has_tables("a | b\n--|:-:\n1 | 2", 0)
    assert not has_tables("routers | switches, compared", 0) and has_tables("no table", 3)


def _doubting_reader(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The reader doubts every ask, as it does on questions in words its corpus lacks: the first run answers with
    the assessment tools' summary, whatever the question."""
    from orchestration.agents import intent_classifier
    from orchestration.tools import question_plan
    monkeypatch.setattr(question_plan, "sure_of_form", lambda frame: False)
    monkeypatch.setattr(intent_classifier, "read_query", lambda *args, **kwargs: None)  # nor is it read as a query


def test_a_device_list_missing_from_the_answer_is_replanned_once_in_its_form(demo_warehouse: Path,
                                                                             monkeypatch, services: Services) -> None:  # type: ignore[no-untyped-def]
    _doubting_reader(monkeypatch)
    state = handle_turn("which routers fail ntp auth", services=services)
    expected = {r[0] for r in sql(demo_warehouse, f"""
        SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.rule_id = 'NTP-AUTH' AND a.device_type = 'router'""")}
    assert len(expected) > 3
    order = state.trace.node_run_order
    assert order.count("data_query_agent") == 2 and order.count("reflector") == 2 and order[-1] == "reflector"
    assert [(c.tool_name, c.input.get("template")) for c in state.mcp.tool_calls] == [
        ("assessment_analysis_tool", None), ("sql_path", "device_list")]
    assert state.plan.iteration == 2 and state.plan.task_for("Data Query Agent").directive == "question_form"  # type: ignore[union-attr]
    replan = next(d.summary for d in state.trace.state_deltas if d.node == "reflector")
    assert replan.startswith("replan: the answer lacks the devices asked for, listed"), replan
    assert re.match(rf"\*\*{len(expected)} devices\*\*", first_line(state.final.answer))
    assert set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M)) == expected
    assert "Not covered" not in state.final.answer


def test_a_series_missing_from_the_answer_is_replanned_into_the_runs_asked(demo_warehouse: Path,
                                                                          monkeypatch, services: Services) -> None:  # type: ignore[no-untyped-def]
    _doubting_reader(monkeypatch)
    state = handle_turn("failed checks at site-b over the last 3 runs", services=services)
    runs = sql(demo_warehouse, """
        SELECT r.assessment_id, COUNT(*) FILTER (WHERE r.status = 'fail') FROM results r JOIN assets a USING (asset_id)
        WHERE a.site = 'Site-B' AND r.assessment_id IN (SELECT assessment_id FROM assessments ORDER BY started_at DESC
                                                        LIMIT 3)
        GROUP BY 1 ORDER BY 1""")
    assert len(runs) == 3
    assert state.plan.iteration == 2 and [c.input.get("template") for c in state.mcp.tool_calls if c.tool_name == "sql_path"] \
        == ["run_series"]
    rows = re.findall(r"^\| (ASMT-[\d-]+) \| [\d-]+ \| \d+ \| \d+ \| (\d+) \|", state.final.answer, re.M)
    assert [(run, int(failed)) for run, failed in rows] == [(run, failed) for run, failed in runs]


def test_an_answer_already_in_its_form_is_not_replanned(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("which firewalls at the stores fail telnet checks", services=services)
    assert state.plan.iteration == 1 and state.trace.node_run_order.count("reflector") == 1
    assert tool_of(state) == ("sql_path", "device_list")


def test_the_replan_is_bounded_and_what_stays_missing_is_said(demo_warehouse: Path,
                                                              monkeypatch, services: Services) -> None:  # type: ignore[no-untyped-def]
    """A form the second run still does not deliver: one replan, then the answer says what it does not cover."""
    from orchestration.agents import reflector
    monkeypatch.setattr(reflector, "missing_form", lambda state, ontology: "the devices asked for, listed")
    state = handle_turn("how are the branches doing", services=services)
    assert state.plan.iteration == 2 and state.trace.node_run_order.count("reflector") == 2
    assert "**Not covered:** the devices asked for, listed: the data answered with a summary instead" \
        in state.final.answer
    assert state.final.partial


def _rules_by_failing_devices(path: Path, site: str) -> list[tuple[str, int]]:
    return sql(path, f"""SELECT r.rule_id, COUNT(DISTINCT r.asset_id) AS n FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND a.site = ? GROUP BY 1 ORDER BY 2 DESC, 1""", [site])


def test_a_ranking_whose_top_is_tied_says_no_single_rule_leads(demo_warehouse: Path, services: Services) -> None:
    ranked = _rules_by_failing_devices(demo_warehouse, "Branch-07")
    tied = {rule for rule, n in ranked if n == ranked[0][1]}
    assert len(tied) > 1  # the demo site this test is about has a tie at the top
    head = first_line(handle_turn("whats the most common failure at branch 7", services=services).final.answer)
    assert head.startswith(f"No single rule leads: {len(tied)} rules fail on {ranked[0][1]} devices each"), head
    assert set(re.findall(r"\*\*([A-Z0-9-]+)\*\*", head)) == tied


def test_a_top_n_ranking_lists_n_rules_and_the_ties_at_its_cut(demo_warehouse: Path, services: Services) -> None:
    ranked = _rules_by_failing_devices(demo_warehouse, "Branch-07")
    head = first_line(handle_turn("top 3 failing rules at branch 7?", services=services).final.answer)
    listed = re.findall(r"\d\. \*\*([A-Z0-9-]+)\*\* \([^)]*\) — (\d+) devices?", head)
    assert len(listed) == 3 and all(int(n) == dict(ranked)[rule] for rule, n in listed), head
    assert sorted(int(n) for _, n in listed) == sorted((n for _, n in ranked), reverse=True)[:3][::-1]
    cut = int(listed[-1][1])
    beyond = {rule for rule, n in ranked if n == cut} - {rule for rule, _ in listed}
    assert beyond and all(rule in head.split("ties with the last")[1] for rule in beyond), head


def test_a_device_ranking_with_a_tie_at_the_top_names_every_tied_device(demo_warehouse: Path, services: Services) -> None:
    per_site = sql(demo_warehouse, f"""SELECT a.site, r.asset_id, COUNT(*) FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2""")
    by_site: dict[str, list[tuple[str, int]]] = {}
    for site, device, n in per_site:
        by_site.setdefault(site, []).append((device, n))
    site, counts = next((s, c) for s, c in by_site.items() if len(c) > 2 and c[0][1] == c[1][1])  # a tie at the top
    tied = {d for d, n in counts if n == counts[0][1]}
    head = first_line(handle_turn(f"which box at {site.lower()} has the most failed checks", services=services).final.answer)
    assert head.startswith("No single device leads") and f"tie at {counts[0][1]} failed checks each" in head, head
    assert set(re.findall(r"\*\*([A-Z0-9-]+)\*\*", head)) == tied


def test_a_comparison_that_names_checks_compares_only_those_checks(demo_warehouse: Path, services: Services) -> None:
    """"did telnet get better at the stores?" is the telnet checks of the two runs, not every failure; in the security
    view too (its agent writes the devices that changed: a contract gap that answered "something went wrong")."""
    counts = dict(sql(demo_warehouse, f"""
        SELECT r.assessment_id, COUNT(*) FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id IN ({LATEST}, {PREVIOUS}) AND a.site = 'HQ' AND r.status = 'fail'
          AND r.rule_id IN (SELECT rule_id FROM rules WHERE technology = 'snmp') GROUP BY 1"""))
    latest, previous = (sql(demo_warehouse, q)[0][0] for q in (LATEST, PREVIOUS))
    state = handle_turn("hq snmp - better or worse than the previous run?", services=services)
    call = state.mcp.tool_calls[0]
    assert call.tool_name == "assessment_comparison_tool" and call.input["rules"]
    word = "Better" if counts[latest] < counts[previous] else "Worse" if counts[latest] > counts[previous] else "Unchanged"
    head = first_line(state.final.answer)
    assert head.startswith(f"**{word}**: HQ went from {counts[previous]} to {counts[latest]} failed SNMP-"), head
    assert "SNMP-" in state.final.answer.splitlines()[0]  # the scope line names the checks compared


def test_a_yes_no_against_an_earlier_run_is_the_comparison_with_yes_or_no_first(demo_warehouse: Path, services: Services) -> None:
    """"is hq more compliant than last time?" compares the two runs (it was a yes/no on the latest run alone)."""
    counts = dict(sql(demo_warehouse, f"""SELECT r.assessment_id, COUNT(*) FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id IN ({LATEST}, {PREVIOUS}) AND a.site = 'HQ' AND r.status = 'fail' GROUP BY 1"""))
    latest, previous = (sql(demo_warehouse, q)[0][0] for q in (LATEST, PREVIOUS))
    state = handle_turn("is HQ any more secure than the last time we ran it?", services=services)
    assert state.mcp.tool_calls[0].tool_name == "assessment_comparison_tool"
    better = counts[latest] < counts[previous]
    head = first_line(state.final.answer)
    assert head.startswith(f"**{'Yes' if better else 'No'}** — {'better' if better else 'worse'}: HQ went from "
                           f"{counts[previous]} to {counts[latest]} failed checks"), head


def test_a_yes_for_one_device_names_the_checks_of_the_topic_it_is_never_judged_on(demo_warehouse: Path, services: Services) -> None:
    """"ok on ntp?" of a device its platform judges on one NTP check only: the Yes covers that check, and the
    other check is said to be not judged there (a bare Yes would read as a pass of both)."""
    rows = sql(demo_warehouse, f"""SELECT a.asset_id, a.platform FROM assets a
        WHERE EXISTS (SELECT 1 FROM results r WHERE r.asset_id = a.asset_id AND r.assessment_id = {LATEST}
                      AND r.rule_id = 'NTP-SERVER' AND r.status = 'pass')
          AND NOT EXISTS (SELECT 1 FROM results r WHERE r.asset_id = a.asset_id AND r.assessment_id = {LATEST}
                          AND r.rule_id = 'NTP-AUTH') ORDER BY 1 LIMIT 1""")
    device, platform = rows[0]
    head = first_line(handle_turn(f"is {device.lower()} ok on ntp", services=services).final.answer)
    assert head.startswith(f"**Yes** — {device} passes NTP-SERVER"), head
    assert f"NTP-AUTH is not judged on {device} ({platform})" in head, head


def test_sites_without_failures_are_the_sites_listed(demo_warehouse: Path, services: Services) -> None:
    """"with no high findings" asks for the sites that fail none of those checks, not for the ranking of all."""
    expected = [r[0] for r in sql(demo_warehouse, f"""SELECT a.site FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.severity = 'high' GROUP BY 1
        HAVING COUNT(CASE WHEN r.status = 'fail' THEN 1 END) = 0 ORDER BY 1""")]
    head = first_line(handle_turn("list every site with no high findings", services=services).final.answer)
    assert expected == []  # every demo site fails a high check: the answer says so, it does not rank the sites
    assert head.startswith("**None.** Every site judged on high checks fails at least one of them"), head
    critical = [r[0] for r in sql(demo_warehouse, f"""SELECT a.site FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.severity = 'critical' GROUP BY 1
        HAVING COUNT(CASE WHEN r.status = 'fail' THEN 1 END) = 0 ORDER BY 1""")]
    assert critical  # and some site fails no critical check
    head = first_line(handle_turn("which sites are without critical findings?", services=services).final.answer)
    assert head.startswith(f"**{len(critical)} site"), head
    assert re.findall(r"\*\*([\w-]+)\*\*", head.split(":", 1)[1]) == critical, head


def test_devices_clean_on_a_topic_are_those_judged_on_it_that_fail_none(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("which branch switches have no failed ssh checks", services=services)
    rules = tuple(state.intent.frame.checks)
    assert rules and all("SSH" in r for r in rules)
    expected = {r[0] for r in sql(demo_warehouse, f"""SELECT a.asset_id FROM results r JOIN assets a USING (asset_id)
        JOIN sites s ON s.site = a.site WHERE r.assessment_id = {LATEST} AND s.site_type = 'branch'
          AND a.device_type = 'switch' AND r.rule_id IN ({', '.join("'" + r + "'" for r in rules)}) GROUP BY 1
        HAVING COUNT(CASE WHEN r.status = 'fail' THEN 1 END) = 0""")}
    assert first_line(state.final.answer).startswith(f"**{len(expected)} devices** — devices failing no ")
    listed = set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M))
    assert listed == expected


def test_whether_devices_of_a_kind_exist_is_yes_with_them_or_no(demo_warehouse: Path, services: Services) -> None:
    expected = [r[0] for r in sql(demo_warehouse, "SELECT asset_id FROM assets WHERE platform = 'asa' AND "
                                                  "os_version = '9.16(4)' ORDER BY 1")]
    head = first_line(handle_turn("do we still have asas on 9.16(4)?", services=services).final.answer)
    assert head.startswith(f"**Yes** — {len(expected)} device"), head
    assert all(name in head for name in expected), head
    (none,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE site = 'Branch-03' AND "
                                   "device_type = 'wireless_controller'")
    assert none == 0
    head = first_line(handle_turn("is there a wireless controller at branch 3", services=services).final.answer)
    assert head.startswith("**No** — the inventory has no wireless controllers at Branch-03"), head
    held = sql(demo_warehouse, "SELECT role, device_type, COUNT(*) FROM assets WHERE site = 'Branch-03' GROUP BY ALL")
    assert all(f"{n} {role} {kind}" in head for role, kind, n in held), (head, held)  # what the site does hold


def test_a_scope_that_holds_no_device_says_so_instead_of_none_fails(demo_warehouse: Path, services: Services) -> None:
    (cores,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE site = 'HQ' AND device_type = 'switch' "
                                    "AND role = 'core'")
    assert cores == 0  # the demo's HQ has access and distribution switches only
    roles = sql(demo_warehouse, "SELECT role, COUNT(*) FROM assets WHERE site = 'HQ' AND device_type = 'switch' "
                                "GROUP BY 1")
    named_core = [a for (a,) in sql(demo_warehouse, "SELECT asset_id FROM assets WHERE site = 'HQ' AND "
                                                     "device_type = 'switch' AND asset_id LIKE '%-CORE-%' ORDER BY 1")]
    assert named_core  # the HQ's collapsed core is named CORE and has the distribution role
    for prompt in ("aaa accounting on hq core switches", "which core switches at hq fail ssh?"):
        head = first_line(handle_turn(prompt, services=services).final.answer)
        assert head.startswith("**No device matches** — the inventory has no core switches at HQ"), (prompt, head)
        assert all(f"{n} {role} switch" in head for role, n in roles), head
        assert "No device in scope fails" not in head and "could not complete" not in head
        assert f"({', '.join(named_core)} are named core but have the distribution role" in head, head


def test_a_count_over_two_values_of_one_filter_gives_each_side(demo_warehouse: Path, services: Services) -> None:
    """"production vs lab" with no time named is two groups, not two runs: the count of each and their sum."""
    per = dict(sql(demo_warehouse, f"""SELECT a.environment, COUNT(*) FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.severity = 'high'
          AND a.environment IN ('production', 'lab') GROUP BY 1"""))
    head = first_line(handle_turn("how many high findings in production vs lab", services=services).final.answer)
    total = sum(per.values())
    assert re.match(rf"\*\*{total:,}\*\* (?:high-severity )?failed checks", head), head
    for env, n in per.items():
        assert f"**{env}** {n:,}" in head, head


def _exceptions_of(path: Path, site_type: str, device_type: str | None = None) -> list[str]:
    return [r[0] for r in sql(path, """SELECT e.exception_id FROM exceptions e WHERE EXISTS (SELECT 1 FROM sites s
        WHERE s.site_type = ? AND (',' || e.sites || ',') LIKE '%,' || s.site || ',%')
        AND (? IS NULL OR e.device_type IN (?, 'any')) ORDER BY e.expires_on, e.exception_id""",
        [site_type, device_type, device_type])]


def test_exceptions_of_a_kind_of_site_and_device_type_are_only_theirs(demo_warehouse: Path, services: Services) -> None:
    expected = _exceptions_of(demo_warehouse, "store")
    head = first_line(handle_turn("which exceptions cover the stores", services=services).final.answer)
    assert re.findall(r"EXC-\d{4}-\d{3}", head) == expected, head
    expected = _exceptions_of(demo_warehouse, "datacenter", "switch")
    assert expected and len(expected) < len(_exceptions_of(demo_warehouse, "datacenter"))
    head = first_line(handle_turn("exceptions for datacenter switches?", services=services).final.answer)
    assert re.findall(r"EXC-\d{4}-\d{3}", head) == expected, head


def test_checks_that_got_worse_over_a_time_range_are_each_check_with_its_devices_then_and_now(
        demo_warehouse: Path, services: Services) -> None:
    runs = [r[0] for r in sql(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' "
                                              "AND started_at >= TIMESTAMP '2026-10-01' ORDER BY started_at")]
    first, last = runs[0], runs[-1]
    expected = {rule: (before, after) for rule, before, after in sql(demo_warehouse, """
        SELECT r.rule_id, COUNT(DISTINCT CASE WHEN r.assessment_id = ? AND r.status = 'fail' THEN r.asset_id END),
               COUNT(DISTINCT CASE WHEN r.assessment_id = ? AND r.status = 'fail' THEN r.asset_id END)
        FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site
        WHERE r.assessment_id IN (?, ?) AND s.site_type = 'branch' GROUP BY 1""", [first, last, first, last])
        if after > before}
    state = handle_turn("which checks got worse at the branches since october?", services=services)
    assert tool_of(state) == ("sql_path", "rule_changes")
    head = first_line(state.final.answer)
    assert head.startswith(f"**{len(expected)} checks** that got worse, {first} "), head
    shown = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(
        r"^\| ([A-Z0-9-]+) \| [^|]+ \| \w+ \| (\d+) \| (\d+) \| \+\d+ \|$", state.final.answer, re.M)}
    assert shown == expected


def test_what_devices_fail_most_ranks_the_checks_they_fail(demo_warehouse: Path, services: Services) -> None:
    ranked = sql(demo_warehouse, f"""SELECT r.rule_id, COUNT(DISTINCT r.asset_id) FROM results r JOIN assets a
        USING (asset_id) WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND a.site = 'Branch-07'
        GROUP BY 1 ORDER BY 2 DESC""")
    state = handle_turn("what do the devices at branch 7 fail the most?", services=services)
    assert (state.intent.frame.ask, state.intent.frame.subject) == ("ranking", "rules")
    head = first_line(state.final.answer)
    top = {rule for rule, n in ranked if n == ranked[0][1]}
    assert set(re.findall(r"\*\*([A-Z0-9-]+)\*\*", head)) == top, head


def test_the_security_view_is_a_paragraph_of_its_own_after_a_table(demo_warehouse: Path, services: Services) -> None:
    answer = handle_turn("which store firewalls have telnet enabled", services=services).final.answer
    rows = [ln for ln in answer.splitlines() if ln.startswith("| ")]
    assert rows and all(ln.rstrip().endswith("|") for ln in rows), rows  # no sentence glued to a table row
    assert "\n\nSecurity view — " in answer


def test_how_are_we_doing_is_the_latest_summary_not_a_refusal(demo_warehouse: Path, services: Services) -> None:
    (performed, failed), = sql(demo_warehouse, f"SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'fail') FROM results "
                                               f"WHERE assessment_id = {LATEST}")
    state = handle_turn("so how are we doing?", services=services)
    assert state.intent.intent_class != "unknown_or_needs_clarification", state.final.answer[:200]
    assert f"{performed:,} checks performed, {failed:,} failed" in state.final.answer
    # a greeting about the assistant itself is not a question about the network
    assert handle_turn("how are you doing?", services=services).intent.intent_class == "unknown_or_needs_clarification"


def test_which_ones_after_a_count_lists_the_devices_counted(demo_warehouse: Path, services: Services) -> None:
    expected = {r[0] for r in sql(demo_warehouse, f"""
        SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.rule_id = 'L2-BPDUGUARD'
          AND s.site_type = 'store' AND a.device_type = 'switch'""")}
    chat = new_chat(services)
    count = chat("how many store switches are failing bpdu guard?")
    assert first_line(count.final.answer).startswith(f"**{len(expected)}** "), count.final.answer[:300]
    state = chat("which ones?")  # was refused as "outside what I know"
    assert state.intent.frame.ask == "list" and state.intent.frame.checks == ["L2-BPDUGUARD"]
    assert set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M)) == expected


def test_whether_a_devices_failures_are_covered_names_each_covered_and_each_not(demo_warehouse: Path, services: Services) -> None:
    rows = sql(demo_warehouse, f"SELECT rule_id, status, exception_id FROM results WHERE assessment_id = {LATEST} "
                               "AND asset_id = 'FW-ST48-1' AND status <> 'pass' ORDER BY rule_id")
    covered = [(rule, exc) for rule, status, exc in rows if status == "exception"]
    failing = [rule for rule, status, _ in rows if status == "fail"]
    assert covered and failing  # the demo's store firewall under the legacy-POS exception fails other checks too
    chat = new_chat(services)
    chat("what's failing on fw-st48-1?")
    head = first_line(chat("is any of that covered by an exception?").final.answer)
    assert head.startswith("**Partly** — on FW-ST48-1"), head
    assert all(f"{rule} is covered by approved exception {exc}" in head for rule, exc in covered), head
    assert f"{', '.join(failing)} fail" in head, head
    (clean,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM results WHERE assessment_id = {LATEST} AND asset_id = "
                                    "'FW-HQ-1' AND status <> 'pass'")
    assert clean == 0
    chat = new_chat(services)
    chat("whats failing on fw-hq-1")
    head = first_line(chat("and is any of that covered by an exception").final.answer)
    assert head.startswith("**No exception is needed** — FW-HQ-1 fails no check"), head


def test_a_request_for_fixes_that_names_nothing_gives_the_fixes_of_the_answer_before(demo_warehouse: Path, services: Services) -> None:
    """"what remediation would you suggest?" after a site's critical findings: that site's critical fixes, not the
    fleet's; a fix request that names its own subject is not carried over."""
    import uuid

    thread = f"fix-{uuid.uuid4().hex[:8]}"
    handle_turn("list the critical problems at branch-03", thread_id=thread, services=services)
    state = handle_turn("ok, and what corrective steps would you suggest?", thread_id=thread, services=services)
    expected = {r for (r,) in sql(demo_warehouse, f"""SELECT DISTINCT r.rule_id FROM results r JOIN assets a
        USING (asset_id) WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.severity = 'critical'
          AND a.site = 'Branch-03'""")}
    assert expected and {f.rule_id for f in state.plan.domain_task().outputs.findings} == expected  # type: ignore[union-attr]
    assert "site Branch-03" in state.final.answer.splitlines()[0] and "severity critical" in state.final.answer
    fresh = handle_turn("how do i fix telnet?", thread_id=thread, services=services)
    assert "Branch-03" not in fresh.final.answer.splitlines()[0]


def test_a_share_of_checks_is_the_pass_rate_or_the_failing_share_asked(demo_warehouse: Path, services: Services) -> None:
    """"pass rate for the X" asks the checks' pass rate (it led with the share of failing devices); "what % of checks
    fail" the failing share."""
    (passed, failed, n), = sql(demo_warehouse, f"""SELECT COUNT(*) FILTER (WHERE r.status = 'pass'),
        COUNT(*) FILTER (WHERE r.status = 'fail'), COUNT(*) FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND a.site = 'HQ'""")
    head = first_line(handle_turn("hq's pass rate right now?", services=services).final.answer)
    assert head.startswith(f"**{round(100 * passed / n, 1)}%** of the checks pass — {passed:,} of {n:,}"), head
    head = first_line(handle_turn("what fraction of the checks at hq are failing", services=services).final.answer)
    assert head.startswith(f"**{round(100 * failed / n, 1)}%** of the checks fail — {failed:,} of {n:,}"), head


def test_did_it_get_worse_since_a_month_is_yes_or_no_over_the_runs_since(demo_warehouse: Path, services: Services) -> None:
    """"since the september run" is the runs from September on (it was read as September only, and answered with
    today's failures as a Yes)."""
    runs = sql(demo_warehouse, """SELECT m.assessment_id, COUNT(*) FILTER (WHERE r.status = 'pass'), COUNT(*)
        FROM assessments m JOIN results r USING (assessment_id) JOIN assets a USING (asset_id)
        WHERE m.collection = 'fleet' AND m.started_at >= DATE '2026-09-01' AND a.site = 'Site-B'
        GROUP BY m.assessment_id, m.started_at ORDER BY m.started_at""")
    first, last = (round(100 * p / n, 1) for _, p, n in (runs[0], runs[-1]))
    state = handle_turn("has site-b gotten worse since the september assessment?", services=services)
    assert tool_of(state) == ("sql_path", "run_series")
    head = first_line(state.final.answer)
    verdict = "Yes" if last < first else "No"
    assert head.startswith(f"**{verdict}** — ") and f"from {first}%" in head and f"to {last}%" in head, head
    assert f"over {len(runs)} runs" in head, head


@pytest.mark.parametrize("question", ["did Site-B get better since september?", "is site-b improving since september?"])
def test_a_trend_put_as_a_yes_or_no_question_is_answered_yes_or_no_first(demo_warehouse: Path, services: Services,
                                                                          question: str) -> None:
    """Read as a trend (the series is the evidence), put as yes/no: the answer says Yes or No before how it moved."""
    runs = sql(demo_warehouse, """SELECT m.assessment_id, COUNT(*) FILTER (WHERE r.status = 'pass'), COUNT(*)
        FROM assessments m JOIN results r USING (assessment_id) JOIN assets a USING (asset_id)
        WHERE m.collection = 'fleet' AND m.started_at >= DATE '2026-09-01' AND a.site = 'Site-B'
        GROUP BY m.assessment_id, m.started_at ORDER BY m.started_at""")
    first, last = (round(100 * p / n, 1) for _, p, n in (runs[0], runs[-1]))
    state = handle_turn(question, services=services)
    assert state.intent.frame.polar and state.intent.frame.direction == "better"
    head = first_line(state.final.answer)
    verdict = "Yes" if last > first else "No"
    assert head.startswith(f"**{verdict}** — ") and f"from {first}%" in head and f"to {last}%" in head, head


def test_a_device_fix_is_written_from_its_configuration_and_verified_on_it(demo_warehouse: Path, services: Services) -> None:
    """"how do I fix VTY-SSH-ONLY on X": the commands name X's own VTY ranges (read from its stored configuration
    by SQL here) and the answer says the fix was re-judged on X's patched configuration."""
    device, text = sql(demo_warehouse, f"""SELECT r.asset_id, c.config_text FROM results r
        JOIN configs c ON c.asset_id = r.asset_id AND c.assessment_id = r.assessment_id
        WHERE r.assessment_id = {LATEST} AND r.rule_id = 'VTY-SSH-ONLY' AND r.status = 'fail'
        ORDER BY r.asset_id LIMIT 1""")[0]
    ranges = re.findall(r"^line vty \d+ \d+$", text, re.M)
    answer = handle_turn(f"how do I fix VTY-SSH-ONLY on {device}?", services=services).final.answer
    block = answer.split("```")[1]
    assert re.findall(r"^line vty \d+ \d+$", block, re.M) == ranges and " transport input ssh" in block
    assert (f"Verified on {device}'s patched configuration: VTY-SSH-ONLY passes, no other check is worse and a way in "
            "for an administrator is kept.") in answer


def test_a_version_named_short_and_a_device_type_narrow_the_checks(demo_warehouse: Path, services: Services) -> None:
    """"ssh v2" is the rule whose title says "SSH version 2" (not every SSH rule), and routers are not judged on
    the ASA's SSH rule; the devices listed are those SQL finds failing SSH-V2 among the store routers."""
    state = new_chat(services)("which store routers fail ssh v2")
    assert state.intent.frame.checks == ["SSH-V2"], state.intent.frame.checks
    expected = {r[0] for r in sql(demo_warehouse, f"""
        SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.rule_id = 'SSH-V2'
          AND s.site_type = 'store' AND a.device_type = 'router'""")}
    assert set(re.findall(r"^\| \d+ \| ([A-Z0-9-]+) \|", state.final.answer, re.M)) == expected


def test_why_a_device_fails_a_check_is_its_own_lines_and_its_own_fix(demo_warehouse: Path, services: Services) -> None:
    """"why does FW-ST30-1 fail ASA-TELNET": the lead is that check's evidence on that device (the stored lines),
    then a fix written from them — not a summary of the device."""
    (evidence,), = sql(demo_warehouse, f"SELECT evidence FROM results WHERE assessment_id = {LATEST} AND "
                                       "asset_id = 'FW-ST30-1' AND rule_id = 'ASA-TELNET' AND status = 'fail'")
    answer = new_chat(services)("why does FW-ST30-1 fail ASA-TELNET").final.answer
    lead = answer.split("\n\n", 1)[1]
    assert lead.startswith("**ASA-TELNET** fails on FW-ST30-1 (high)"), answer[:400]
    assert evidence.splitlines()[0] in lead.split("**Fix**")[0]
    telnet = re.search(r"^\d+: (telnet .+)$", evidence, re.M)
    assert telnet and f"no {telnet.group(1)}" in lead.split("**Fix**")[1]  # the device's own line removed


def test_is_it_fine_is_a_yes_or_no_on_whether_it_passes(demo_warehouse: Path, services: Services) -> None:
    """"is everything fine at Branch-02?" asks whether its checks pass: "No — N failed checks" (it said "Yes — N failed
    checks"); "is RTR-CORE-1 ok?" answers yes or no first for one device too — both as SQL counts the failures."""
    (failed,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM results r JOIN assets a USING (asset_id) WHERE "
                                     f"r.assessment_id = {LATEST} AND a.site = 'Branch-02' AND r.status = 'fail'")
    head = first_line(new_chat(services)("is everything fine at Branch-02?").final.answer)
    assert head.startswith(f"**{'No' if failed else 'Yes'}** — {failed} failed checks" if failed else "**Yes**"), head
    (failed,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM results WHERE assessment_id = {LATEST} AND "
                                     "asset_id = 'RTR-CORE-1' AND status = 'fail'")
    head = first_line(new_chat(services)("is RTR-CORE-1 ok?").final.answer)
    assert head.startswith(f"**No** — {failed} failed checks" if failed else "**Yes**"), head


@pytest.mark.parametrize(("question", "where"), [
    ("how many devices run 17.9.x", "a.os_version LIKE '17.9.%'"),
    ("which store ASAs are on 9.8.x", "(a.os_version LIKE '9.8(%' OR a.os_version LIKE '9.8.%') AND a.platform = 'asa' "
                                      "AND a.site IN (SELECT site FROM sites WHERE site_type = 'store')"),
])
def test_a_whole_train_is_every_release_of_it(demo_warehouse: Path, services: Services, question: str, where: str) -> None:
    """"17.9.x", "9.8.x" (ASA releases are written 9.8(4)): every release of the train, not a question back."""
    n = sql(demo_warehouse, f"SELECT COUNT(*) FROM assets a WHERE a.collection = 'fleet' AND {where}")[0][0]
    head = first_line(handle_turn(question, services=services).final.answer)
    assert n > 0 and head.startswith(f"**{n} devices**"), (n, head)


def test_a_train_no_device_runs_is_answered_no_with_the_releases_it_runs(demo_warehouse: Path,
                                                                         services: Services) -> None:
    releases = [r[0] for r in sql(demo_warehouse, "SELECT DISTINCT os_version FROM assets WHERE collection = 'fleet'")]
    assert not any(r.startswith("15.") for r in releases)
    head = first_line(handle_turn("anything still on version 15?", services=services).final.answer)
    assert head.startswith("**No** — no device runs 15.x — the inventory runs "), head
    assert all(r in head for r in releases), head
    listed = first_line(handle_turn("which sites have devices on 15.x", services=services).final.answer)
    assert listed.startswith("**None** — no device runs 15.x"), listed


def _site_rates(path: Path, kind: str | None, since: str) -> list[tuple[str, float, float]]:
    """(site, pass rate in the first run since ``since``, in the latest), by SQL."""
    runs = sql(path, f"SELECT assessment_id FROM assessments WHERE collection = 'fleet' AND started_at >= DATE '{since}' "
                     "ORDER BY started_at")
    first, last = runs[0][0], runs[-1][0]
    kinds = f"AND s.site_type = '{kind}'" if kind else ""
    return sql(path, f"""WITH x AS (SELECT a.site, r.assessment_id,
            ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1) AS rate
            FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site
            WHERE r.assessment_id IN ('{first}', '{last}') {kinds} GROUP BY a.site, r.assessment_id)
        SELECT b.site, b.rate, e.rate FROM x b JOIN x e ON e.site = b.site
        WHERE b.assessment_id = '{first}' AND e.assessment_id = '{last}'""")


def test_which_sites_got_worse_lists_the_sites_worst_first(demo_warehouse: Path, services: Services) -> None:
    """"which sites got worse since september" is the sites, each then and now — not the fleet's series."""
    worse = sorted((r for r in _site_rates(demo_warehouse, None, "2026-09-01") if r[2] < r[1]),
                   key=lambda r: (round(r[2] - r[1], 1), r[0]))
    state = handle_turn("which sites got worse since september?", services=services)
    assert tool_of(state) == ("sql_path", "site_changes")
    head = first_line(state.final.answer)
    assert worse and head.startswith(f"**{len(worse)} sites** got worse"), head
    assert head.split(": ", 1)[1].startswith(f"**{worse[0][0]}** ({worse[0][1]}% → {worse[0][2]}%)"), head


def test_which_branch_improved_the_most_names_it_first(demo_warehouse: Path, services: Services) -> None:
    better = sorted((r for r in _site_rates(demo_warehouse, "branch", "2026-09-01") if r[2] > r[1]),
                    key=lambda r: (-round(r[2] - r[1], 1), r[0]))
    head = first_line(handle_turn("which branch improved the most since september?", services=services).final.answer)
    assert better and head.startswith(f"**{len(better)} sites** got better"), head
    top = better[0]
    assert f"**{top[0]}** the most: pass rate {top[1]}% → {top[2]}% ({top[2] - top[1]:+.1f} points)" in head, head


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version))


def test_the_oldest_release_we_run_is_named_per_platform(demo_warehouse: Path, services: Services) -> None:
    """"the oldest ios version we run" is the inventory's, oldest by its numbers (16.9.4 before 16.12.4), not a
    refusal; releases of two platforms are not compared."""
    ios = sql(demo_warehouse, "SELECT os_version, COUNT(*) FROM assets WHERE collection = 'fleet' AND platform = 'ios-xe' "
                              "GROUP BY os_version")
    version, n = min(ios, key=lambda r: _release(r[0]))
    answer = handle_turn("what's the oldest ios version we run", services=services).final.answer
    assert f"**ios-xe {version}** ({n} devices, e.g. " in answer and "is the oldest release in scope" in answer, answer
    switches = sql(demo_warehouse, "SELECT platform, os_version, COUNT(*) FROM assets WHERE collection = 'fleet' "
                                   "AND device_type = 'switch' GROUP BY platform, os_version")
    answer = handle_turn("what is the newest version on the switches", services=services).final.answer
    for platform in {r[0] for r in switches}:
        _, newest, count = max((r for r in switches if r[0] == platform), key=lambda r: _release(r[1]))
        assert f"**{platform} {newest}** ({count} devices" in answer, answer


def test_which_rules_all_firewalls_pass_is_the_data_not_the_slic_view(demo_warehouse: Path, services: Services) -> None:
    """The router leans to the SLIC expert for "rules … firewalls"; the checks every device passes are counted."""
    judged = sql(demo_warehouse, f"""SELECT r.rule_id, COUNT(*) FILTER (WHERE r.status IN ('fail', 'exception'))
        FROM results r JOIN assets a USING (asset_id) WHERE r.assessment_id = {LATEST} AND a.device_type = 'firewall'
        AND r.status IN ('pass', 'fail', 'exception') GROUP BY r.rule_id""")
    clean = sorted(rule for rule, failing in judged if failing == 0)
    state = handle_turn("which rules do all firewalls pass", services=services)
    assert tool_of(state) == ("sql_path", "clean_rules")
    head = first_line(state.final.answer)
    assert head.startswith(f"**{len(clean)} of the {len(judged)} checks**"), head
    assert all(f"**{rule}**" in head for rule in clean), head


def test_what_it_can_do_instead_names_a_site_the_inventory_has(demo_warehouse: Path, services: Services) -> None:
    first = sql(demo_warehouse, "SELECT MIN(site) FROM sites WHERE site_type <> 'uploaded'")[0][0]
    answer = handle_turn("which devices are reachable from the internet?", services=services).final.answer
    assert answer.startswith("I can't see live or operational state"), answer[:100]
    assert f'("what does {first} fail and how do I fix it?")' in answer, answer


def test_a_trend_per_group_is_each_groups_series_side_by_side(demo_warehouse: Path, services: Services) -> None:
    """"failed checks per role since august": every role's figures per run, not the fleet's one series."""
    state = handle_turn("per-role trend of failed checks since august", services=services)
    assert tool_of(state) == ("sql_path", "group_series")
    runs = [r[0] for r in sql(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' AND "
                                              "started_at >= DATE '2026-08-01' ORDER BY started_at")]
    figures = sql(demo_warehouse, f"""SELECT a.role, r.assessment_id, COUNT(*) FILTER (WHERE r.status = 'fail'),
        ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1) FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id IN ('{runs[0]}', '{runs[-1]}') GROUP BY a.role, r.assessment_id""")
    at = {(role, run): (failed, rate) for role, run, failed, rate in figures}
    worst = min({role for role, _ in at}, key=lambda g: (round(at[(g, runs[-1])][1] - at[(g, runs[0])][1], 1), g))
    (before_failed, before), (after_failed, after) = at[(worst, runs[0])], at[(worst, runs[-1])]
    head = first_line(state.final.answer)
    assert head.startswith(f"Per role, {runs[0]} "), head
    assert f"first: **{worst}** {before}% → {after}% ({after - before:+.1f} points; failed {before_failed:,} → " \
           f"{after_failed:,})" in head, head


def test_a_named_exception_asked_about_names_the_devices_it_covers(demo_warehouse: Path, services: Services) -> None:
    """The devices an exception covers are those the run marked excepted under it (SQL), named in the lead."""
    covered = sorted(d for d, in sql(demo_warehouse, f"""SELECT DISTINCT asset_id FROM results WHERE
        assessment_id = {LATEST} AND status = 'exception' AND exception_id = 'EXC-2026-007'"""))
    assert covered
    lead = first_line(handle_turn("what boxes fall under the legacy POS exception?", services=services).final.answer)
    assert lead.startswith(f"**{len(covered)} devices** covered by EXC-2026-007"), lead
    assert lead.endswith(": " + ", ".join(covered) + "."), lead


def test_what_to_fix_first_leads_with_the_most_severe_failing_checks(demo_warehouse: Path, services: Services) -> None:
    """"what should we fix first at X" answers with the checks to fix first — the most severe failing there — and
    the order after them, before the site's figures."""
    site, severity = sql(demo_warehouse, f"""SELECT a.site, MIN(CASE r.severity WHEN 'critical' THEN 1 WHEN 'high'
        THEN 2 ELSE 3 END) FROM results r JOIN assets a USING (asset_id) WHERE r.assessment_id = {LATEST} AND
        r.status = 'fail' AND a.site LIKE 'Store-%' GROUP BY 1 ORDER BY 2, 1 LIMIT 1""")[0]
    worst = {r for r, in sql(demo_warehouse, f"""SELECT DISTINCT r.rule_id FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND a.site = ? AND r.severity = ?""",
                             [site, {1: "critical", 2: "high"}.get(severity, "medium")])}
    answer = handle_turn(f"what should we fix first at {site}", services=services).final.answer
    lead = first_line(answer)
    named = set(re.findall(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b", lead.split("(")[0]))
    assert lead.startswith("**Fix first:**") and named and named <= worst, (lead, worst)
    assert answer.index("1. ") < answer.index("checks performed"), answer[:600]  # the order before the figures


def test_the_exception_that_runs_out_last_is_the_registers_and_it_is_that_one(demo_warehouse: Path,
                                                                              services: Services) -> None:
    """"which waiver runs out last" is the register's latest expiry (a document's date was quoted instead, the
    wrong one); "who signed off on it" then is asked of that exception: its approver, rule and sites."""
    (exception, rule, sites, approver), = sql(demo_warehouse, """SELECT exception_id, rule_id, sites, approved_by
        FROM exceptions WHERE expires_on = (SELECT MAX(expires_on) FROM exceptions)""")
    chat = new_chat(services)
    first = chat("which waiver runs out last")
    assert first_line(first.final.answer).startswith(f"**{exception}** expires last"), first.final.answer[:300]
    second = first_line(chat("who approved it").final.answer)
    assert second.startswith(f"**{exception}**") and approver in second and rule in second, second
    assert all(site in second for site in sites.split(",")), second


def test_slic_matches_this_month_are_the_latest_runs_not_a_no_for_a_month_with_no_run(
        demo_warehouse: Path, services: Services) -> None:
    """"which boxes matched the smart install client enabled signature this month": that signature's devices (its
    title shares the words of a configuration check, which read it as no signature: every match of every signature
    was listed), in the latest run, said as such — on the first days of a month with no run yet it answered "No —
    matched no device in runs of <this month>"."""
    matched = {d for d, in sql(demo_warehouse, f"""SELECT DISTINCT x.asset_id FROM slic_results x JOIN assets a USING
        (asset_id) WHERE a.collection = 'fleet' AND x.signature_id = 'SLIC-CFG-001' AND x.assessment_id = {LATEST}""")}
    assert matched
    lead = first_line(new_chat(services)("which boxes matched the smart install client enabled signature this "
                                         "month").final.answer)
    assert lead.startswith(f"**{len(matched)} device"), lead
    (latest,), = sql(demo_warehouse, LATEST.strip("()"))
    assert ("latest run" in lead or latest in lead) and all(d in lead for d in sorted(matched)[:5]), lead


def test_how_many_devices_an_exception_covers_is_its_devices_not_the_inventory(demo_warehouse: Path,
                                                                               services: Services) -> None:
    """"how many boxes does EXC-2026-007 cover" counted the whole inventory (150 devices): it is the devices the
    latest run excepted under it."""
    covered = {d for d, in sql(demo_warehouse, f"""SELECT DISTINCT asset_id FROM results WHERE assessment_id = {LATEST}
        AND status = 'exception' AND exception_id = 'EXC-2026-007'""")}
    assert covered
    lead = first_line(new_chat(services)("how many boxes does EXC-2026-007 cover").final.answer)
    assert lead.startswith(f"**{len(covered)} device"), lead
