"""``assessment_context`` of real turns (the eval prompts, through the UI's entry point) holds warehouse
numbers that match an independent recomputation from the raw tables."""

from __future__ import annotations

import re
from pathlib import Path

from assessment_engine.warehouse.store import connect_reader
from assessment_engine.warehouse.versions import current_file
from orchestration.runtime import handle_turn
from orchestration.services import Services


def context(prompt: str, services: Services) -> dict:  # type: ignore[type-arg]
    state = handle_turn(prompt, services=services)
    task = state.plan.task_for("Data Query Agent")
    assert task is not None and task.status == "completed", (task, state.mcp.tool_calls)
    return task.outputs.model_dump()["assessment_context"]


def one(path: Path, sql: str, params: list | None = None):  # type: ignore[no-untyped-def, type-arg]
    con = connect_reader(current_file(path))
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


LATEST = "(SELECT assessment_id FROM assessments ORDER BY started_at DESC LIMIT 1)"


def test_checks_performed_and_failed(demo_warehouse: Path, services: Services) -> None:
    ctx = context("How many configuration best practice checks were performed in the latest assessment, and how many failed?", services=services)
    m = ctx["report_data"]["assessment_analysis_tool"]["metrics"]
    (performed, failed), = one(demo_warehouse, f"SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'fail') FROM results "
                                               f"WHERE assessment_id = {LATEST}")
    assert (m["checks_performed"], m["checks_failed"]) == (performed, failed)
    assert ctx["source_path"] == "mcp" and ctx["provenance"][0]["tool"] == "assessment_analysis_tool"


def test_percentage_of_production_routers_with_critical_deviations(demo_warehouse: Path, services: Services) -> None:
    ctx = context("What percentage of my production routers have critical configuration deviations?", services=services)
    m = ctx["report_data"]["assessment_analysis_tool"]["metrics"]
    (total, critical), = one(demo_warehouse, f"""
        SELECT COUNT(DISTINCT r.asset_id), COUNT(DISTINCT r.asset_id) FILTER (WHERE r.status = 'fail' AND r.severity = 'critical')
        FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND a.environment = 'production' AND a.device_type = 'router'""")
    assert m["pct_assets_with_matching_failures"] == round(100 * critical / total, 1)


def test_site_summary_for_hq(demo_warehouse: Path, services: Services) -> None:
    ctx = context("Give me a summary of configuration assessment findings for the HQ site.", services=services)
    m = ctx["report_data"]["assessment_analysis_tool"]["metrics"]
    (failed,), = one(demo_warehouse, f"SELECT COUNT(*) FROM results r JOIN assets a USING (asset_id) WHERE "
                                     f"r.assessment_id = {LATEST} AND a.site = 'HQ' AND r.status = 'fail'")
    assert m["checks_failed"] == failed and ctx["assets"]["inventory"]


def test_product_family_breakdown(demo_warehouse: Path, services: Services) -> None:
    ctx = context("Which Cisco product families have the most deviations from configuration best practices?", services=services)
    got = {b["key"]: b["failures"] for b in ctx["report_data"]["assessment_analysis_tool"]["breakdowns"]["product_family"]}
    want = dict(one(demo_warehouse, f"SELECT a.product_family, COUNT(*) FROM results r JOIN assets a USING (asset_id) "
                                    f"WHERE r.assessment_id = {LATEST} AND r.status = 'fail' GROUP BY 1"))
    assert got == want


def test_changes_since_last_assessment(demo_warehouse: Path, services: Services) -> None:
    ctx = context("What has changed since my last assessment?", services=services)
    m = ctx["report_data"]["assessment_comparison_tool"]["metrics"]
    runs = [r[0] for r in one(demo_warehouse, "SELECT assessment_id FROM assessments ORDER BY started_at")]
    fails = {run: set(one(demo_warehouse, "SELECT asset_id, rule_id FROM results WHERE assessment_id = ? AND "
                                          "status = 'fail'", [run])) for run in runs[-2:]}
    assert m["persistent_issues"] == len(fails[runs[-1]] & fails[runs[-2]])
    assert m["current_failures"] - m["previous_failures"] == len(fails[runs[-1]]) - len(fails[runs[-2]])


def test_critical_issues_open_since_prior(demo_warehouse: Path, services: Services) -> None:
    ctx = context("Which critical best practice deviations remain open from the prior assessment?", services=services)
    out = ctx["report_data"]["issue_tracking_tool"]
    runs = [r[0] for r in one(demo_warehouse, "SELECT assessment_id FROM assessments ORDER BY started_at")]
    sql = "SELECT asset_id, rule_id FROM results WHERE assessment_id = ? AND status = 'fail' AND severity = 'critical'"
    both = set(one(demo_warehouse, sql, [runs[-1]])) & set(one(demo_warehouse, sql, [runs[-2]]))
    assert out["total_unresolved"] == len(both)


def test_device_scope_for_rtr_core_1(demo_warehouse: Path, services: Services) -> None:
    ctx = context("What specific configuration changes should I make to fix the critical deviations on RTR-CORE-1?", services=services)
    rows = ctx["report_data"]["assessment_analysis_tool"]["results_sample"]
    want = set(one(demo_warehouse, f"SELECT rule_id FROM results WHERE assessment_id = {LATEST} AND asset_id = 'RTR-CORE-1' "
                                   "AND status = 'fail' AND severity = 'critical'"))
    assert {(r["rule_id"],) for r in rows} == want and want


def test_sql_path_answers_inventory_questions(demo_warehouse: Path, services: Services) -> None:
    ctx = context("Which IOS-XE versions run at Branch-05?", services=services)
    assert ctx["source_path"] == "sql"
    rows = ctx["report_data"]["sql_path"]["rows"]
    want = dict(one(demo_warehouse, "SELECT os_version, COUNT(*) FROM assets WHERE site = 'Branch-05' AND "
                                    "platform = 'ios-xe' GROUP BY 1"))
    assert {r["os_version"]: r["devices"] for r in rows} == want


def test_unknown_site_is_asked_about_never_answered_for_the_fleet(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Summarize the configuration assessment for Branch-77", services=services)
    assert state.intent.intent_class == "unknown_or_needs_clarification" and state.plan.tasks == []
    assert "Branch-77" in state.final.answer and not state.mcp.tool_calls
    (reading,) = [r for r in state.intent.name_resolutions if r.mention == "Branch-77"]
    assert reading.status == "unknown" and reading.candidates  # the closest branches are offered
    for question, place in (("pass rate at the paris office", "paris"), ("failed checks at the main office", "main")):
        state = handle_turn(question, services=services)  # a place in lower case, before a place noun
        assert f"the site '{place}'" in state.final.answer and not state.mcp.tool_calls, state.final.answer[:300]


def test_a_device_type_the_inventory_lacks_is_named_in_scope_and_gaps(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Show configuration issues on access points at HQ", services=services)
    assert "device type access_point" in state.final.answer.split("\n")[0]
    assert "the inventory has no access points (its device types: routers, switches, firewalls, wireless controllers)" \
        in state.final.answer


def test_a_count_is_out_of_the_devices_the_check_applies_to_and_a_kind_of_site_replaces_a_carried_site(
        demo_warehouse: Path, services: Services) -> None:
    (site, rule, judged, failing, assessed), = one(demo_warehouse, f"""
        WITH x AS (SELECT a.site, r.rule_id, r.asset_id, r.status FROM results r JOIN assets a USING (asset_id)
                   WHERE r.assessment_id = {LATEST})
        SELECT x.site, x.rule_id, COUNT(DISTINCT x.asset_id), COUNT(DISTINCT x.asset_id) FILTER (WHERE x.status = 'fail'),
               (SELECT COUNT(DISTINCT y.asset_id) FROM x AS y WHERE y.site = x.site)
        FROM x GROUP BY x.site, x.rule_id
        HAVING COUNT(DISTINCT x.asset_id) FILTER (WHERE x.status = 'fail') BETWEEN 1 AND COUNT(DISTINCT x.asset_id) - 1
           AND COUNT(DISTINCT x.asset_id) < (SELECT COUNT(DISTINCT y.asset_id) FROM x AS y WHERE y.site = x.site)
        ORDER BY x.site, x.rule_id LIMIT 1""")  # a rule some devices of the site have no verdict on
    state = handle_turn(f"how many devices fail {rule} at {site}", thread_id="t-judged", services=services)
    answer = state.final.answer
    assert f"**{failing}** of the {judged} devices judged on {rule}" in answer, answer
    unjudged = assessed - judged
    assert f"{unjudged} device{'s' if unjudged > 1 else ''} assessed here" in answer, answer
    assert "1 failed checks" not in answer

    follow = handle_turn("how many store switches fail critical checks", thread_id="t-judged", services=services)
    scope_line = follow.final.answer.split("\n")[0]
    assert "every store" in scope_line and site not in scope_line, scope_line


def test_a_check_that_never_applies_to_the_device_type_asked_is_not_judged_rather_than_none(
        demo_warehouse: Path, services: Services) -> None:
    (verdicts, firewalls), = one(demo_warehouse, f"""
        SELECT COUNT(*) FILTER (WHERE r.rule_id = 'SNMP-V3-PRIV'), COUNT(DISTINCT r.asset_id) FROM results r
        JOIN assets a USING (asset_id) WHERE r.assessment_id = {LATEST} AND a.device_type = 'firewall'""")
    assert verdicts == 0 and firewalls > 0  # the firewalls are assessed, never on SNMP-V3-PRIV
    answer = handle_turn("how many firewalls fail SNMP-V3-PRIV", services=services).final.answer
    assert "**Not judged.** SNMP-V3-PRIV applies to" in answer and "**None.**" not in answer, answer


def test_failed_checks_asked_with_evidence_show_lines_of_a_device_that_fails_each(demo_warehouse: Path, services: Services) -> None:
    """"show the failed checks with evidence" of the whole fleet: each finding shown with the lines of one device,
    and that device really fails that rule in the run (the fleet sample holds an example of every failing rule)."""
    answer = handle_turn("show me the failed checks with evidence", services=services).final.answer
    shown = re.findall(r"- \*\*([A-Z0-9-]+)\*\* [^\n]*?(?: — line|\n  - lines) on ([A-Za-z0-9_-]+)", answer)
    assert len(shown) == 10, answer  # the first ten findings of the table, each with its lines
    for rule, device in shown:
        assert one(demo_warehouse, f"SELECT status FROM results WHERE assessment_id = {LATEST} AND asset_id = ? "
                                   "AND rule_id = ?", [device, rule]) == [("fail",)], (rule, device)


def test_compliance_with_our_standard_is_the_verdict_of_its_checks_with_the_standard_cited(demo_warehouse: Path, services: Services) -> None:
    """"does RTR-CORE-1 conform to our aaa standard?": yes or no from the device's AAA checks in the latest run (as
    SQL computes it), the standard cited beside the verdict, and what the checks cannot judge said."""
    state = handle_turn("does RTR-CORE-1 conform to our aaa standard?", services=services)
    answer = state.final.answer
    statuses = dict(one(demo_warehouse, f"SELECT rule_id, status FROM results WHERE assessment_id = {LATEST} AND "
                                        "asset_id = 'RTR-CORE-1' AND rule_id IN (?, ?, ?, ?, ?, ?)",
                        ["AAA-NEW-MODEL", "AAA-LOGIN-DEFAULT", "AAA-ENABLE-DEFAULT", "AAA-METHOD-NONE",
                         "AAA-ACCOUNTING", "LOGIN-HARDEN"]))
    assert len(statuses) == 6
    assert answer.split("\n\n")[1].startswith("**Yes**" if set(statuses.values()) == {"pass"} else "**No**"), answer
    assert [c.source for c in state.final.citations][:1] == ["standard-aaa-tacacs.md"], state.final.citations
    assert "is not judged here" in answer


def test_a_rate_per_group_is_one_row_per_group_ranked_by_the_rate(demo_warehouse: Path, services: Services) -> None:
    """"pass rate per site type" is a row per kind of site (not per site), and "which role has the worst pass rate"
    names the role with the lowest rate (not the one failing most checks) — both as SQL computes them."""
    rates = one(demo_warehouse, "SELECT s.site_type, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1) "
                                f"FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site WHERE "
                                f"r.assessment_id = {LATEST} GROUP BY 1 ORDER BY 2, 1")
    answer = handle_turn("pass rate per site type", services=services).final.answer
    lead = answer.split("\n\n")[1]
    assert lead.startswith(f"**{rates[0][0]}** has the lowest pass rate ({rates[0][1]}%)"), answer
    assert all(f"**{kind}** {rate}%" in lead for kind, rate in rates), answer
    roles = one(demo_warehouse, "SELECT a.role, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1) "
                                f"FROM results r JOIN assets a USING (asset_id) WHERE r.assessment_id = {LATEST} "
                                "GROUP BY 1 ORDER BY 2, 1")
    answer = handle_turn("which role has the worst pass rate?", services=services).final.answer
    assert answer.split("\n\n")[1].startswith(f"**{roles[0][0]}** has the lowest pass rate: {roles[0][1]}%"), answer


def test_a_figure_per_group_of_the_whole_network_is_answered_not_asked_back(demo_warehouse: Path, services: Services) -> None:
    """"pass rate per environment" (no other scope) is one rate per environment, not the vague-question prompt; and
    "failures per role" a count per role, not the series over runs — as SQL computes them."""
    rates = one(demo_warehouse, "SELECT a.environment, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / "
                                f"COUNT(*), 1) FROM results r JOIN assets a USING (asset_id) WHERE r.assessment_id = "
                                f"{LATEST} GROUP BY 1 ORDER BY 2, 1")
    lead = handle_turn("pass rate per environment", services=services).final.answer.split("\n\n")[1]
    assert lead.startswith(f"**{rates[0][0]}** has the lowest pass rate ({rates[0][1]}%)"), lead
    assert all(f"**{env}** {rate}%" in lead for env, rate in rates), lead
    failures = one(demo_warehouse, "SELECT a.role, COUNT(*) FILTER (WHERE r.status = 'fail') FROM results r JOIN assets a "
                                   f"USING (asset_id) WHERE r.assessment_id = {LATEST} GROUP BY 1 ORDER BY 2 DESC")
    lead = handle_turn("failures per role", services=services).final.answer.split("\n\n")[1]
    assert lead.startswith(f"**{sum(n for _, n in failures):,}** failed checks"), lead
    assert all(f"**{role}** {n}" in lead for role, n in failures), lead


def test_what_changed_since_a_month_is_that_run_against_the_latest_check_by_check(demo_warehouse: Path, services: Services) -> None:
    """"what changed since september" is the September run against the latest — its new failed checks (a newly assessed
    device's too) and those checked again that no longer fail — not the series of runs between them, nor the previous
    run against the latest."""
    runs = one(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at")
    then = next(r for (r,) in runs if r[5:12] == "2026-09")
    latest = runs[-1][0]
    (new, fixed), = one(demo_warehouse, """
        WITH cur AS (SELECT asset_id, rule_id, status FROM results WHERE assessment_id = ?),
             pre AS (SELECT asset_id, rule_id, status FROM results WHERE assessment_id = ?)
        SELECT (SELECT COUNT(*) FROM cur WHERE status = 'fail' AND
                (asset_id, rule_id) NOT IN (SELECT asset_id, rule_id FROM pre WHERE status = 'fail')),
               (SELECT COUNT(*) FROM pre WHERE status = 'fail' AND
                (asset_id, rule_id) IN (SELECT asset_id, rule_id FROM cur WHERE status <> 'fail'))""", [latest, then])
    answer = handle_turn("what's changed since september?", services=services).final.answer
    assert answer.startswith(f"**Scope:** assessments {then} → {latest}"), answer
    lead = answer.split("\n\n")[1]
    assert lead.startswith(f"**{new} new failed checks**") and f"**{fixed} fixed checks**" in lead, lead


def test_a_share_of_devices_on_a_named_check_is_of_those_judged_on_it(demo_warehouse: Path, services: Services) -> None:
    """"what percentage of routers fail aaa accounting" is the share of routers failing AAA-ACCOUNTING (not of those
    failing any aaa check), and "what share of switches have bpdu guard" the share passing it — as SQL counts."""
    def share(device_type: str, rule: str) -> tuple[int, int]:
        (failing, judged), = one(demo_warehouse, "SELECT COUNT(*) FILTER (WHERE r.status = 'fail'), COUNT(*) FROM "
                                 f"results r JOIN assets a USING (asset_id) WHERE r.assessment_id = {LATEST} AND "
                                 "a.device_type = ? AND r.rule_id = ?", [device_type, rule])
        return failing, judged

    failing, judged = share("router", "AAA-ACCOUNTING")
    lead = handle_turn("what percentage of routers fail aaa accounting", services=services).final.answer.split("\n\n")[1]
    assert lead.startswith(f"**{100 * failing / judged:.1f}%** of the {judged} devices") and \
        f"fail AAA-ACCOUNTING checks ({failing} of {judged}" in lead, lead
    failing, judged = share("switch", "L2-BPDUGUARD")
    lead = handle_turn("what share of switches have bpdu guard", services=services).final.answer.split("\n\n")[1]
    assert lead.startswith(f"**{100 * (judged - failing) / judged:.1f}%** of the {judged} devices") and \
        f"pass L2-BPDUGUARD checks ({judged - failing} of {judged}" in lead, lead


def test_the_checks_every_device_passes_are_those_no_device_in_scope_fails(demo_warehouse: Path, services: Services) -> None:
    """"which checks pass everywhere at the stores" lists the checks judged at the stores that no store device fails
    (was the run's summary) — as SQL finds them."""
    clean = one(demo_warehouse, "SELECT r.rule_id FROM results r JOIN assets a USING (asset_id) JOIN sites s ON "
                                f"s.site = a.site WHERE r.assessment_id = {LATEST} AND s.site_type = 'store' GROUP BY 1 "
                                "HAVING COUNT(*) FILTER (WHERE r.status = 'fail') = 0")
    (judged,), = one(demo_warehouse, "SELECT COUNT(DISTINCT r.rule_id) FROM results r JOIN assets a USING (asset_id) "
                                     f"JOIN sites s ON s.site = a.site WHERE r.assessment_id = {LATEST} AND "
                                     "s.site_type = 'store'")
    lead = handle_turn("which checks pass everywhere at the stores", services=services).final.answer.split("\n\n")[1]
    assert lead.startswith(f"**{len(clean)} of the {judged} checks** judged in this scope pass"), lead
    assert all(f"**{rule}**" in lead for (rule,) in clean), lead


def test_a_count_asked_per_month_or_over_time_is_the_series_of_that_count(demo_warehouse: Path, services: Services) -> None:
    """"how many critical findings did we have each month?" is the failed critical checks of every run (it was the
    latest run's count), and "ntp auth failures over time" NTP-AUTH's per run (it quoted the NTP standard) — the
    figures as SQL counts them, oldest run first."""
    def series(condition: str) -> list[int]:
        return [n for _, n in one(demo_warehouse, "SELECT m.assessment_id, COUNT(*) FILTER (WHERE r.status = 'fail' "
                                                  f"AND {condition}) FROM results r JOIN assessments m USING "
                                                  "(assessment_id) WHERE m.collection = 'fleet' GROUP BY 1, "
                                                  "m.started_at ORDER BY m.started_at")]

    critical = handle_turn("how many critical findings did we have each month?", services=services).final.answer.split("\n\n")[1]
    assert " → ".join(f"**{n:,}**" for n in series("r.severity = 'critical'")) in critical, critical
    ntp = handle_turn("ntp auth failures over time", services=services)
    assert ntp.intent.intent_class == "cbp_assessment", ntp.intent.signals
    lead = ntp.final.answer.split("\n\n")[1]
    assert " → ".join(f"**{n:,}**" for n in series("r.rule_id = 'NTP-AUTH'")) in lead, lead


def test_a_yes_no_in_neutral_words_asks_what_the_checks_named_want(demo_warehouse: Path, services: Services) -> None:
    """"is ntp authentication enabled on RTR-CORE-1?" asks whether NTP-AUTH passes (it answered "Yes — fails
    NTP-AUTH"); "is telnet enabled on FW-ST30-1?" whether ASA-TELNET fails; "does RTR-CORE-1 send logs to the syslog
    server" whether LOG-HOST passes — each verdict as the warehouse holds it."""
    def status(device: str, rule: str) -> str:
        (verdict,), = one(demo_warehouse, f"SELECT status FROM results WHERE assessment_id = {LATEST} AND asset_id = ? "
                                          "AND rule_id = ?", [device, rule])
        return str(verdict)

    for question, device, rule, yes_when in (
            ("is ntp authentication enabled on RTR-CORE-1", "RTR-CORE-1", "NTP-AUTH", "pass"),
            ("is bpdu guard enabled on SW-BR01-ACC-1", "SW-BR01-ACC-1", "L2-BPDUGUARD", "pass"),
            ("is telnet enabled on FW-ST30-1", "FW-ST30-1", "ASA-TELNET", "fail"),
            ("does RTR-CORE-1 send logs to the syslog server", "RTR-CORE-1", "LOG-HOST", "pass")):
        verdict = status(device, rule)
        lead = handle_turn(question, services=services).final.answer.split("\n\n")[1]
        said = "Yes" if verdict == yes_when else "No"
        verb = "passes" if verdict == "pass" else "fails"
        assert lead.startswith(f"**{said}** — {device} {verb} {rule}"), (question, verdict, lead)


def test_better_or_worse_than_last_month_compares_the_two_runs(demo_warehouse: Path, services: Services) -> None:
    """"is RTR-BR05-1 better or worse than last month?" is the device's failed checks in the previous run against
    the latest (it was the device's summary of the latest run alone)."""
    runs = [r for (r,) in one(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' "
                                              "ORDER BY started_at DESC LIMIT 2")]
    counts = dict(one(demo_warehouse, "SELECT assessment_id, COUNT(*) FILTER (WHERE status = 'fail') FROM results "
                                      "WHERE asset_id = 'RTR-BR05-1' AND assessment_id IN (?, ?) GROUP BY 1", runs))
    before, now = counts[runs[1]], counts[runs[0]]
    answer = handle_turn("is RTR-BR05-1 better or worse than last month?", services=services).final.answer
    word = "Better" if now < before else "Worse" if now > before else "Unchanged"
    assert answer.split("\n\n")[1].startswith(f"**{word}**: RTR-BR05-1 went from {before} to {now} failed checks"), \
        answer[:400]


def test_when_devices_were_last_assessed_is_a_date_per_device(demo_warehouse: Path, services: Services) -> None:
    """"when were the store firewalls last audited": the latest run's date first, and every device in scope that
    run did not assess with the run that last did (as SQL finds them)."""
    rows = one(demo_warehouse, "SELECT a.asset_id, MAX(m.started_at) FROM assets a JOIN sites s ON s.site = a.site "
                               "LEFT JOIN results r ON r.asset_id = a.asset_id LEFT JOIN assessments m ON "
                               "m.assessment_id = r.assessment_id AND m.collection = 'fleet' WHERE a.collection = 'fleet' "
                               "AND s.site_type = 'store' AND a.device_type = 'firewall' GROUP BY 1")
    latest = max(when for _, when in rows if when is not None)
    behind = sorted(name for name, when in rows if when != latest)
    assert behind  # the demo keeps a store firewall out of the latest run
    answer = handle_turn("when were the store firewalls last audited?", services=services).final.answer
    lead = answer.split("\n\n")[1]
    assert lead.startswith(f"**{latest:%Y-%m-%d}** — the latest run") and f"{len(rows) - len(behind)} of the {len(rows)}" \
        in lead, answer
    assert all(f"**{name}** in " in lead for name in behind), answer


def test_two_named_sides_are_answered_side_by_side_not_with_signature_matches(demo_warehouse: Path, services: Services) -> None:
    """"prod vs lab critical findings" is each environment's critical failures (not the SLIC expert's reading), and
    "stores vs branches pass rate" each kind of site's rate (not a clarifying question) — as SQL computes them."""
    state = handle_turn("prod vs lab critical findings", services=services)
    assert state.plan.task_for("SLIC Agent") is None
    for env, failed in one(demo_warehouse, "SELECT a.environment, COUNT(*) FROM results r JOIN assets a USING (asset_id) "
                                           f"WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.severity = "
                                           "'critical' AND a.environment IN ('production', 'lab') GROUP BY 1"):
        assert f"**{env}**: {failed} failed" in state.final.answer, state.final.answer[:500]
    answer = handle_turn("stores vs branches pass rate", services=services).final.answer
    for kind, rate in one(demo_warehouse, "SELECT s.site_type, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') "
                                          "/ COUNT(*), 1) FROM results r JOIN assets a USING (asset_id) JOIN sites s ON "
                                          f"s.site = a.site WHERE r.assessment_id = {LATEST} AND s.site_type IN "
                                          "('store', 'branch') GROUP BY 1"):
        assert f"**{kind}**: " in answer and f"({rate}% pass)" in answer, answer[:500]


RESOLVED = """SELECT p.asset_id, p.rule_id FROM results p JOIN assets a USING (asset_id) JOIN results n ON
    n.asset_id = p.asset_id AND n.rule_id = p.rule_id AND n.assessment_id = ? WHERE p.assessment_id = ? AND
    p.status = 'fail' AND {where} AND n.status <> 'fail' ORDER BY 1, 2"""  # checked again and not failing


def test_what_was_fixed_between_runs_is_the_resolved_checks_listed(demo_warehouse: Path, services: Services) -> None:
    """"which issues were resolved at HQ since last month?": the failed checks of the previous run that pass now,
    counted and listed (device, check) as SQL finds them; "nothing was fixed" when none was."""
    (cur,), (prev,) = one(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY "
                                          "started_at DESC LIMIT 2")
    fixed = one(demo_warehouse, RESOLVED.format(where="a.site = 'HQ'"), [cur, prev])
    answer = handle_turn("which issues were resolved at HQ since last month?", services=services).final.answer
    assert answer.split("\n\n")[1].startswith(f"**{len(fixed)} fixed checks**"), answer[:400]
    for device, rule in fixed:
        assert re.search(rf"^\| \d+ \| {device} \| {rule} — ", answer, re.M), (device, rule)
    device = next(d for (d,) in one(demo_warehouse, "SELECT asset_id FROM assets WHERE collection = 'fleet' ORDER BY 1")
                  if not one(demo_warehouse, RESOLVED.format(where="a.asset_id = ?"), [cur, prev, d])
                  and one(demo_warehouse, "SELECT 1 FROM results WHERE assessment_id = ? AND asset_id = ? AND "
                                          "status = 'fail'", [prev, d]))
    answer = handle_turn(f"what got fixed on {device} since the previous assessment", services=services).final.answer
    assert answer.split("\n\n")[1].startswith("**Nothing was fixed**"), answer[:400]


def test_two_named_devices_are_side_by_side_and_a_count_per_group_is_per_group(demo_warehouse: Path, services: Services) -> None:
    """"rtr-br05-1 vs rtr-br06-1" is each device's failed checks in the latest run (not the change since the run
    before); "how many aaa failures per site type" is a count per kind of site, as SQL counts them."""
    answer = handle_turn("rtr-br05-1 vs rtr-br06-1", services=services).final.answer
    for device, checks, failed in one(demo_warehouse, "SELECT asset_id, COUNT(*), COUNT(*) FILTER (WHERE status = "
                                                      f"'fail') FROM results WHERE assessment_id = {LATEST} AND "
                                                      "asset_id IN ('RTR-BR05-1', 'RTR-BR06-1') GROUP BY 1"):
        assert f"**{device}**: {failed} failed of {checks} " in answer, answer[:500]
    answer = handle_turn("how many aaa failures per site type", services=services).final.answer
    counts = one(demo_warehouse, "SELECT s.site_type, COUNT(*) FROM results r JOIN assets a USING (asset_id) JOIN "
                                 f"sites s ON s.site = a.site JOIN rules ru ON ru.rule_id = r.rule_id WHERE "
                                 f"r.assessment_id = {LATEST} AND r.status = 'fail' AND ru.technology = 'aaa' GROUP BY 1")
    assert counts and all(f"**{kind}** {n}" in answer for kind, n in counts), (counts, answer[:500])


def test_how_many_of_a_kind_is_that_kind_counted_and_spread_by_site(demo_warehouse: Path, services: Services) -> None:
    """"how many firewalls do we have": the number of firewalls (named so, not "devices … on firewall"), then per
    site, as the inventory holds them."""
    answer = handle_turn("how many firewalls do we have", services=services).final.answer
    (total,), = one(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND device_type = 'firewall'")
    assert answer.split("\n\n")[1].startswith(f"**{total} firewalls** in the inventory — per site: "), answer[:300]
    assert " on firewall" not in answer


def test_switches_not_running_a_release_typed_short_are_every_other_switch(demo_warehouse: Path,
                                                                         services: Services) -> None:
    """"How many switches are not on 17.9" — every switch on another release, as SQL counts them; it listed the
    switches on 17.9.4 when the release typed was shorter than the one it was read as."""
    version = one(demo_warehouse, "SELECT os_version FROM assets WHERE collection = 'fleet' AND device_type = 'switch' "
                                  "AND os_version LIKE '17.9%' LIMIT 1")[0][0]
    other = one(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND device_type = 'switch' AND "
                                "os_version <> ?", [version])[0][0]
    typed = ".".join(version.split(".")[:2])
    answer = handle_turn(f"how many switches are not on {typed}", services=services).final.answer
    assert f"**{other}** devices" in answer, answer[:400]
