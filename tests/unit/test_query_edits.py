"""Follow-ups read as edits of the last answer's query (issue 52, ``orchestration/nlu/query_edits.py``): a new time, a
new order, a narrower condition, the best or worst group, a row picked by its place — each answer's figures checked
against SQL on the demo warehouse. The wordings are not the language eval's."""

from __future__ import annotations

import re
from pathlib import Path

from orchestration.runtime import handle_turn
from orchestration.services import Services
from tests.unit.test_answer_forms import first_line
from tests.unit.test_answers import LATEST, sql
from tests.unit.test_conversations import Chat

RUNS = "SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at"
FLEET = "results r JOIN assets a ON a.asset_id = r.asset_id AND a.collection = 'fleet' JOIN sites s ON s.site = a.site"
FAILS = f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail'"
PASS = "ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1)"


def test_a_follow_up_naming_only_a_month_re_times_the_last_figure(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    chat = Chat(services)
    chat("number of high severity failures at Branch-04")
    for month, run in (("september", runs[1]), ("aug", runs[0])):
        (n,), = sql(demo_warehouse, FAILS + " AND a.site = 'Branch-04' AND r.severity = 'high'", [run])
        state = chat(f"and {month}?")
        assert state.intent.query is not None and state.intent.query.runs == [run], state.intent.query
        assert first_line(state.final.answer).startswith(f"**{n}**"), state.final.answer[:300]
        assert run in state.final.answer


def test_a_month_with_no_run_is_said_not_answered_with_another(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("number of failed checks at Store-41")
    answer = chat("what about march?").final.answer
    assert "no assessment run" in answer.lower() or "no run" in answer.lower(), answer[:300]
    assert not re.search(r"^\*\*\d", first_line(answer)), answer[:300]  # no figure of another run


def test_sorting_narrowing_and_the_worst_group_edit_the_grouped_query(demo_warehouse: Path,
                                                                       services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    chat = Chat(services)
    chat("failed checks per environment")
    narrowed = chat("only the switches")
    per = dict(sql(demo_warehouse, f"SELECT a.environment, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                   "r.status = 'fail' AND a.device_type = 'switch' GROUP BY 1", [latest]))
    query = narrowed.intent.query
    assert query is not None and query.group_by == ["environment"] and query.condition("device_type") is not None
    for env, n in per.items():
        assert re.search(rf"\b{env}\b\D{{0,12}}\b{n}\b", narrowed.final.answer), (env, n, narrowed.final.answer[:400])
    worst = chat("which environment is the worst")
    top = max(per.items(), key=lambda kv: kv[1])
    assert first_line(worst.final.answer).startswith(f"**{top[0]}**"), worst.final.answer[:300]


def test_the_nth_row_of_a_ranking_is_the_subject_of_the_next_question(demo_warehouse: Path,
                                                                       services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                 "r.status = 'fail' AND s.site_type = 'branch' GROUP BY 1 ORDER BY n DESC, 1 LIMIT 4",
                 [latest])
    chat = Chat(services)
    chat("top 4 branches by failed checks")
    second = ranked[1][0]
    state = chat("how many devices does the second one have")
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND site = ?", [second])
    assert state.conversation.effective_prompt == f"how many devices does {second} have"
    assert first_line(state.final.answer).startswith(f"**{n} device"), state.final.answer[:300]


def test_a_follow_up_asking_something_else_is_no_edit(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("pass rate at Branch-02")
    state = chat("how do I fix its worst finding?")
    assert not any("edit of the last query" in s for s in state.intent.signals)


def test_a_picked_row_asked_about_its_devices_lists_them(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (lowest,), = sql(demo_warehouse, f"""SELECT site FROM (SELECT a.site, ROUND(100.0 * COUNT(*) FILTER (WHERE
        r.status = 'pass') / COUNT(*), 1) p FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'branch'
        GROUP BY 1 ORDER BY p, 1 LIMIT 1)""", [latest])
    devices = {d for d, in sql(demo_warehouse, "SELECT asset_id FROM assets WHERE collection = 'fleet' AND site = ?",
                               [lowest])}
    chat = Chat(services)
    chat("branches ranked by pass rate, worst first")
    answer = chat("the worst one - what are its devices").final.answer
    assert first_line(answer).startswith(f"**{len(devices)} device"), answer[:300]
    assert set(re.findall(r"\b(?:RTR|SW|FW|WLC|NX)-[\w-]+", answer)) == devices, answer[:600]


def test_a_negated_release_lists_the_devices_on_every_other_one(demo_warehouse: Path, services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND device_type = 'firewall' "
                                "AND os_version <> '9.16(4)'")
    lead = first_line(Chat(services)("which firewalls are not on 9.16(4)").final.answer)
    assert lead.startswith(f"**{n} devices**"), lead


def test_clearing_the_filters_asks_the_next_question_of_the_whole_fleet(demo_warehouse: Path, services: Services) -> None:
    """Follow-ups narrow the last query; "reset the scope" ends that: the next figure is the fleet's (SQL), not the
    store firewalls', and a follow-up with nothing to build on is asked about rather than applied to them."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (fleet,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' "
                                    "AND r.severity = 'critical'", [latest])
    (narrow,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' "
                                     "AND r.severity = 'critical' AND s.site_type = 'store' AND a.device_type = "
                                     "'firewall'", [latest])
    assert fleet != narrow
    chat = Chat(services)
    chat("what fails at the stores")
    assert first_line(chat("just the firewalls, critical only").final.answer).startswith(f"**{narrow}**")
    assert chat("ok, reset the scope").final.answer.startswith("Filters cleared")
    lead = first_line(chat("how many critical failed checks?").final.answer)
    assert lead.startswith(f"**{fleet}**"), lead
    chat("what fails at the stores")
    lead = first_line(chat("start over: how many critical failed checks").final.answer)
    assert lead.startswith(f"**{fleet}**"), lead


def test_a_bare_severity_excluded_place_and_new_place_edit_the_last_query(demo_warehouse: Path,
                                                                         services: Services) -> None:
    """"and high?" after the critical findings of a site counts its high ones (the reader alone does not take "high"
    for a severity); "not counting the lab" excludes; "at the stores" after an edited list narrows that list."""
    (latest,) = [r for r, in sql(demo_warehouse, RUNS)][-1:]
    site = sql(demo_warehouse, f"SELECT a.site FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND "
                               "r.severity = 'high' GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 1", [latest])[0][0]
    (high,), = sql(demo_warehouse, FAILS + " AND a.site = ? AND r.severity = 'high'", [latest, site])
    chat = Chat(services)
    chat(f"critical findings at {site}")
    state = chat("and high?")
    assert state.intent.query is not None and state.intent.query.condition("severity").values == ["high"]  # type: ignore[union-attr]
    assert first_line(state.final.answer).startswith(f"**{high}** "), state.final.answer[:300]

    chat = Chat(services)
    chat("how many devices fail ssh checks")
    state = chat("not counting the lab")
    query = state.intent.query
    environment, rules = (query.condition("environment"), query.condition("rule")) if query else (None, None)
    assert environment is not None and environment.negated and rules is not None, query
    (lab_free,), = sql(demo_warehouse, f"""SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ?
        AND r.status = 'fail' AND r.rule_id IN ({', '.join('?' * len(rules.values))}) AND a.environment <> 'lab'""",
                       [latest, *rules.values])
    assert first_line(state.final.answer).startswith(f"**{lab_free}**"), state.final.answer[:300]

    release, kind = sql(demo_warehouse, """SELECT a.os_version, a.device_type FROM assets a JOIN sites s USING (site)
        WHERE a.collection = 'fleet' AND s.site_type = 'store' GROUP BY 1, 2 ORDER BY COUNT(*) DESC, 1, 2 LIMIT 1""")[0]
    stores = {d for d, in sql(demo_warehouse, """SELECT a.asset_id FROM assets a JOIN sites s USING (site) WHERE
        a.collection = 'fleet' AND s.site_type = 'store' AND a.os_version = ? AND a.device_type = ?""", [release, kind])}
    chat = Chat(services)
    chat(f"devices on {release}")
    chat(f"only the {kind}s")
    answer = chat("at the stores").final.answer
    assert first_line(answer).startswith(f"**{len(stores)} devices**"), answer[:300]
    assert stores <= set(re.findall(r"\b[A-Z]{2,3}-[\w-]+\b", answer)), answer[:400]


def test_a_row_picked_before_its_own_clause_is_that_clauses_subject(demo_warehouse: Path, services: Services) -> None:
    """"the third one - what does it fail?" after a ranking of sites is "what does <third site> fail?" — asked on its
    own, not the ranking again with one site — and "and in september?" then re-times that site's checks."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    ranked = [s for s, _ in sql(demo_warehouse, f"""SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND
        r.status = 'fail' GROUP BY 1 ORDER BY n DESC, 1 LIMIT 5""", [runs[-1]])]
    failing = {r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND a.site = ?", [runs[-1], ranked[2]])}
    chat = Chat(services)
    chat("worst 5 sites by failed checks")
    state = chat("the third one - what does it fail?")
    assert state.conversation.effective_prompt == f"what does {ranked[2]} fail?"
    assert ranked[2] in state.final.answer and failing & set(re.findall(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b",
                                                                      state.final.answer)), state.final.answer[:400]
    (then,), = sql(demo_warehouse, FAILS + " AND a.site = ?", [runs[1], ranked[2]])
    answer = chat("and in september?").final.answer
    assert first_line(answer).startswith(f"**{then}** failed checks ({ranked[2]}"), answer[:300]


def test_other_rows_of_the_same_devices_are_every_one_of_them_not_the_failing_ones(demo_warehouse: Path,
                                                                                  services: Services) -> None:
    """"which sites are they at" after "how many devices run the worst one": every site with a device on that release
    (a site whose device fails nothing included), not a ranking of the sites by failed checks."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    worst = sql(demo_warehouse, f"""SELECT a.os_version FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 ORDER BY
        COUNT(*) FILTER (WHERE r.status = 'pass') * 1.0 / COUNT(*), 1 LIMIT 1""", [runs[-1]])[0][0]
    sites = {s for s, in sql(demo_warehouse, "SELECT DISTINCT site FROM assets WHERE collection = 'fleet' AND "
                                             "os_version = ?", [worst])}
    chat = Chat(services)
    chat("worst 3 releases by pass rate")
    chat("how many devices run the worst one")
    answer = chat("which sites are they at").final.answer
    assert first_line(answer).startswith(f"**{len(sites)} sites**"), answer[:300]
    assert sites <= set(re.findall(r"\b[A-Z][\w]*-\d+\b|\bHQ\b", answer)), answer[:600]


def test_which_one_has_the_fewest_after_a_breakdown_is_its_lowest_group(demo_warehouse: Path,
                                                                       services: Services) -> None:
    """The words alone ("which one has the fewest") read as no question of the product's; after a breakdown they
    are an edit of it, never "outside what I know"."""
    (latest,), = sql(demo_warehouse, RUNS)[-1:]
    counts = sql(demo_warehouse, f"SELECT s.site_type, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                 "r.status = 'fail' AND r.severity = 'critical' GROUP BY 1 ORDER BY n, 1", [latest])
    chat = Chat(services)
    chat("how many critical findings are there")
    chat("by site type")
    lead = first_line(chat("which one has the fewest").final.answer)
    assert lead.startswith(f"**{counts[0][0]}** has the fewest") and f": {counts[0][1]} " in lead, (lead, counts)


def test_a_row_picked_alone_is_that_rows_figure(demo_warehouse: Path, services: Services) -> None:
    """"top one?" after a ranking: the first row's figures, its key kept as a condition (not a bare name asked)."""
    (latest,), = sql(demo_warehouse, RUNS)[-1:]
    rates = sql(demo_warehouse, f"SELECT s.region, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), "
                                f"1) p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 ORDER BY p, 1", [latest])
    chat = Chat(services)
    chat("pass rate per region")
    chat("sort by pass rate")
    state = chat("top one?")
    query = state.intent.query
    assert query is not None and query.group_by == [] and query.condition("region").values == [rates[0][0]]  # type: ignore[union-attr]
    assert first_line(state.final.answer).startswith(f"**{rates[0][1]}%** pass rate"), state.final.answer[:300]


def test_compare_to_another_place_sets_the_last_figure_beside_it(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    chat = Chat(services)
    chat("pass rate at Store-41")
    for question, run in (("compare to Store-40", runs[-1]), ("and in september?", runs[1])):
        rates = sql(demo_warehouse, f"SELECT a.site, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / "
                                    f"COUNT(*), 1) FROM {FLEET} WHERE r.assessment_id = ? AND a.site IN ('Store-40', "
                                    "'Store-41') GROUP BY 1 ORDER BY 1", [run])
        lead = first_line(chat(question).final.answer)
        for site, rate in rates:
            assert f"**{site}** {rate}%" in lead, (question, lead, rates)


def test_one_devices_checks_compared_with_another_are_the_checks_they_differ_on(demo_warehouse: Path,
                                                                               services: Services) -> None:
    chat = Chat(services)
    chat("failed checks on RTR-BR04-1")
    state = chat("how does that compare with RTR-BR05-1")
    query = state.intent.query
    assert query is not None and query.output == "difference"
    assert sorted(query.condition("device").values) == ["RTR-BR04-1", "RTR-BR05-1"]  # type: ignore[union-attr]
    assert "RTR-BR04-1 and RTR-BR05-1 differ on" in first_line(state.final.answer)


def test_since_when_after_a_devices_checks_is_each_checks_stretch(demo_warehouse: Path, services: Services) -> None:
    """"since when" after what a device fails: for each check failing now, the run its unbroken stretch began with;
    "fix the aaa ones" after it is still about that device."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    device = "SW-HQ-CORE-2"
    verdicts = sql(demo_warehouse, "SELECT rule_id, assessment_id FROM results WHERE asset_id = ? AND status = 'fail'",
                   [device])
    failing: dict[str, set[str]] = {}
    for rule, run in verdicts:
        failing.setdefault(rule, set()).add(run)
    chat = Chat(services)
    chat(f"what fails on {device}")
    answer = chat("since when").final.answer
    for rule, on in failing.items():
        if runs[-1] not in on:
            continue
        start = runs[-1]
        for run in reversed(runs):
            if run not in on:
                break
            start = run
        assert f"**{rule}** since {start}" in answer, (rule, answer[:500])
    fix = chat("fix the aaa ones").final.answer
    assert device in first_line(fix) and "AAA" in first_line(fix), fix[:300]


def test_what_are_they_names_the_things_the_last_figure_counted(demo_warehouse: Path, services: Services) -> None:
    """"what are they" after a count of failed checks: those checks by name, in the rows the answer before named (the
    stores tied at the top), never the whole scope's summary."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per_site = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                   "'fail' AND r.severity = 'high' AND s.site_type = 'branch' GROUP BY 1 ORDER BY 2 DESC",
                   [latest])
    top = [site for site, n in per_site if n == per_site[0][1]]
    chat = Chat(services)
    chat("number of high severity failures at the branches")
    chat("which branch has the most")
    they = chat("what are they")
    rules = {r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             f"r.status = 'fail' AND r.severity = 'high' AND a.site IN "
                                             f"({', '.join('?' for _ in top)})", [latest, *top])}
    query = they.intent.query
    assert query is not None and query.group_by == ["rule"], query
    assert set(re.findall(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b", they.final.answer.split("\n\n", 2)[-1])) >= rules
    assert all(site in they.final.answer for site in top), they.final.answer[:300]


def test_sorting_a_list_chosen_by_a_check_sorts_those_devices_by_all_their_failures(demo_warehouse: Path,
                                                                                      services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    chat = Chat(services)
    chat("switches failing SSH-V2 at the branches")
    ranked = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                 "'fail' AND r.asset_id IN (SELECT r.asset_id FROM " + FLEET + " WHERE r.assessment_id "
                                 "= ? AND r.rule_id = 'SSH-V2' AND r.status = 'fail' AND a.device_type = 'switch' AND "
                                 "s.site_type = 'branch') GROUP BY 1 ORDER BY 2 DESC, 1", [latest, latest])
    assert len(ranked) > 1 and ranked[0][1] > 1  # every device fails SSH-V2 once: their totals differ
    sorted_ = chat("order them by failed checks")
    lead = first_line(sorted_.final.answer)
    assert ranked[0][0] in lead and str(ranked[0][1]) in lead, lead


def test_an_ordinal_alone_after_a_drill_drills_into_that_row(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = [d for d, _ in sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? "
                                                "AND r.status = 'fail' AND a.site = 'Branch-05' GROUP BY 1 ORDER BY 2 "
                                                "DESC, 1", [latest])]
    chat = Chat(services)
    chat("top 3 devices by failed checks at Branch-05")
    assert chat("what does the second one fail").intent.entity("device") == ranked[1]
    third = chat("and the third?")
    assert third.intent.entity("device") == ranked[2], third.final.answer[:200]
    assert ranked[2] in first_line(third.final.answer)


def test_a_narrowing_after_a_breakdown_keeps_the_breakdown_and_the_next_edit_keeps_both(demo_warehouse: Path,
                                                                                          services: Services) -> None:
    """"failed checks by platform" (the OS: ios-xe, nx-os, asa — not the tools' product families) → "only the stores"
    → "which platform is worst": each turn on the stores, by platform."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = dict(sql(demo_warehouse, f"SELECT a.platform, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                   "'fail' AND s.site_type = 'store' GROUP BY 1", [latest]))
    chat = Chat(services)
    first = chat("failed checks by platform")
    assert first.intent.asked_query is not None and first.intent.asked_query.group_by == ["platform"]
    narrowed = chat("only the stores")
    for platform, n in per.items():
        assert re.search(rf"\b{re.escape(platform)}\b\D{{0,6}}\b{n:,}\b", narrowed.final.answer), (
            platform, n, narrowed.final.answer[:300])
    worst = chat("which platform is worst")
    top = max(per.items(), key=lambda kv: kv[1])
    assert first_line(worst.final.answer).startswith(f"**{top[0]}**"), worst.final.answer[:300]


def test_the_next_row_after_a_row_picked_is_picked_from_the_same_ranking(demo_warehouse: Path,
                                                                          services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                 "'fail' AND s.site_type = 'branch' GROUP BY 1 ORDER BY 2 DESC, 1", [latest])
    assert ranked[0][1] != ranked[1][1]  # the demo's first two branches differ: the test is about the second
    chat = Chat(services)
    chat("top 3 branches by failed checks")
    assert first_line(chat("top one?").final.answer).startswith(f"**{ranked[0][1]}**")
    second = chat("and the second one?")
    assert first_line(second.final.answer).startswith(f"**{ranked[1][1]}**"), second.final.answer[:200]
    assert ranked[1][0] in first_line(second.final.answer)


def test_which_of_the_two_sets_the_last_two_answers_side_by_side(demo_warehouse: Path, services: Services) -> None:
    """"pass rate at Branch-02" → "and Branch-03?" → "which one is worse": the two sites' pass rates, the worse first;
    over runs, "which improved more" says which changed the more to the better — or that none improved."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = dict(sql(demo_warehouse, "SELECT a.site, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), "
                                     f"1) FROM {FLEET} WHERE r.assessment_id = ? AND a.site IN ('Branch-02', "
                                     "'Branch-03') GROUP BY 1", [latest]))
    assert rates["Branch-02"] != rates["Branch-03"]
    chat = Chat(services)
    chat("pass rate at Branch-02")
    chat("and Branch-03?")
    worse = chat("which one is worse")
    site = min(rates, key=lambda k: rates[k])
    assert first_line(worse.final.answer).startswith(f"**{site}**"), worse.final.answer[:300]
    assert f"{rates[site]}%" in first_line(worse.final.answer)


def test_which_devices_have_them_then_leaving_a_region_out_narrows_those_devices(demo_warehouse: Path,
                                                                                  services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    base = (f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND "
            "r.severity = 'high' AND s.site_type = 'store'")
    devices = {d for d, in sql(demo_warehouse, base, [latest])}
    kept = {d for d, in sql(demo_warehouse, base + " AND s.region <> 'us-west'", [latest])}
    assert devices > kept > set()  # the demo has high findings at stores in us-west and elsewhere
    chat = Chat(services)
    chat("number of high findings at the stores")
    listed = chat("what devices have those")
    query = listed.intent.query
    assert query is not None and query.group_by == ["device"], query
    assert set(re.findall(r"\b[A-Z]{2,3}-ST\d\d-\d\b", listed.final.answer)) == devices
    narrowed = chat("drop us-west")
    query = narrowed.intent.query
    assert query is not None and query.condition("site_type") is not None, query  # the stores are kept
    named = set(re.findall(r"\b[A-Z]{2,3}-ST\d\d-\d\b", narrowed.final.answer))
    assert named == kept, (named ^ kept, narrowed.final.answer[:400])


def test_how_many_of_those_counts_the_devices_the_last_count_was_of(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    where = (f"FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND r.rule_id = 'ASA-LOGGING' AND "
             "a.device_type = 'firewall' AND s.region = 'us-east'")
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) {where}", [latest])
    sites = {s for s, in sql(demo_warehouse, f"SELECT DISTINCT a.site {where}", [latest])}
    chat = Chat(services)
    chat("how many firewalls do we have in us-east")
    counted = chat("how many of those fail ASA-LOGGING")
    assert re.match(rf"\*\*{n}\*\*", first_line(counted.final.answer)), counted.final.answer[:300]
    where_answer = chat("which sites")
    lead = first_line(where_answer.final.answer)
    assert all(site in lead for site in sites), where_answer.final.answer[:400]
    assert re.match(rf"\*\*{len(sites)} sites?\*\*", lead), lead


def test_a_bound_of_exactly_n_devices_and_then_none(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per_rule = "SELECT rule_id FROM (SELECT r.rule_id, COUNT(DISTINCT r.asset_id) FILTER (WHERE r.status = 'fail') n " \
               f"FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1) WHERE n = ?"
    n = next(k for k in range(1, 20) if sql(demo_warehouse, per_rule, [latest, k]))  # a count some rules have
    some = {r for r, in sql(demo_warehouse, per_rule, [latest, n])}
    none = {r for r, in sql(demo_warehouse, per_rule, [latest, 0])}
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    rule_ids = r"\b(?!ASMT-)[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b"
    chat = Chat(services)
    answer = chat(f"which rules fail on exactly {words.get(n, n)} devices").final.answer
    assert set(re.findall(rule_ids, answer.split("\n", 2)[-1])) == some, answer[:400]
    answer = chat("and on no device?").final.answer
    assert set(re.findall(rule_ids, answer.split("\n", 2)[-1])) == none, answer[:400]


def test_the_other_place_of_a_kind_is_that_kind_but_the_one_asked_before(demo_warehouse: Path,
                                                                          services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (n,), = sql(demo_warehouse, FAILS + " AND a.site = 'DataCenter-1'", [runs[1]])
    chat = Chat(services)
    chat("failed checks at DataCenter-2 in september")
    other = chat("and the other data center?")
    assert first_line(other.final.answer).startswith(f"**{n}**"), other.final.answer[:300]
    assert runs[1] in other.final.answer


def test_still_failing_a_named_check_asks_about_now_and_how_many_counts_those(demo_warehouse: Path,
                                                                              services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'SSH-V2' AND a.device_type = 'router'", [latest])
    chat = Chat(services)
    answer = chat("are any routers still failing SSH-V2").final.answer
    assert first_line(answer).startswith("**Yes**" if n else "**No**"), answer[:300]
    answer = chat("how many is that").final.answer
    assert re.match(rf"\*\*{n} devices?\*\*", first_line(answer)), answer[:300]


def test_which_devices_and_where_are_they_name_the_rows_behind_the_last_answer(demo_warehouse: Path,
                                                                               services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    high = f"FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND r.severity = 'high' AND " \
           "s.site_type = 'branch'"
    devices = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id {high}", [latest])}
    sites = {s for s, in sql(demo_warehouse, f"SELECT DISTINCT a.site {high}", [latest])}
    chat = Chat(services)
    chat("list the high severity findings at the branches")
    which = chat("which devices?")
    query = which.intent.query
    assert query is not None and query.group_by == ["device"], query
    assert re.match(rf"\*\*{len(devices)} devices\*\*", first_line(which.final.answer)), which.final.answer[:300]
    where_ = chat("where are they")
    query = where_.intent.query
    assert query is not None and query.group_by == ["site"], query
    assert re.match(rf"\*\*{len(sites)} sites\*\*", first_line(where_.final.answer)), where_.final.answer[:300]


def test_which_of_those_ranks_the_rows_the_last_answer_listed_by_the_measure_named(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = sql(demo_warehouse, "SELECT site, rate FROM (SELECT a.site, COUNT(*) FILTER (WHERE r.status = 'fail') n, "
                                "ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'fail') / COUNT(*), 1) rate "
                                f"FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'branch' GROUP BY 1) "
                                "WHERE n > 10 ORDER BY rate DESC", [latest])
    assert rates, "the demo's branches have more than 10 failed checks"
    chat = Chat(services)
    chat("branches with more than 10 failed checks")
    top = chat("which of those has the highest fail rate")
    lead = first_line(top.final.answer)
    assert lead.startswith(f"**{rates[0][0]}**") and f"{rates[0][1]}%" in lead, lead


def test_which_group_moved_most_since_a_month_after_a_breakdown(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rate = ("SELECT a.device_type, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1) "
            f"FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1")
    before, after = dict(sql(demo_warehouse, rate, [runs[1]])), dict(sql(demo_warehouse, rate, [runs[-1]]))
    best = max(after, key=lambda k: (after[k] - before.get(k, 0), k))
    chat = Chat(services)
    chat("pass rate per device type")
    moved = chat("which type improved the most since september")
    query = moved.intent.query
    assert query is not None and query.output == "change" and query.runs[0] == runs[1], query
    if after[best] > before.get(best, 0):
        assert first_line(moved.final.answer).startswith(f"**{best}**"), moved.final.answer[:300]


def test_there_after_a_row_picked_from_a_ranking_in_a_region_is_that_region(demo_warehouse: Path,
                                                                            services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                 "r.status = 'fail' AND s.region = 'us-central' GROUP BY 1 ORDER BY n DESC, 1", [latest])
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND s.region = 'us-central' AND r.rule_id = ?",
                [latest, ranked[0][0]])
    chat = Chat(services)
    chat("most common failures in us-central")
    answer = chat("how many devices fail the first one there").final.answer
    assert re.match(rf"\*\*{n}\*\*", first_line(answer)) and "us-central" in first_line(answer), answer[:300]


def test_the_worst_of_one_devices_checks_is_the_most_severe(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    device, = next(iter(sql(demo_warehouse, "SELECT asset_id FROM results WHERE assessment_id = ? AND status = 'fail' "
                                            "GROUP BY 1 HAVING COUNT(*) FILTER (WHERE severity = 'critical') = 1 "
                                            "AND COUNT(*) > 3 ORDER BY 1 LIMIT 1", [latest])))
    (critical,), = sql(demo_warehouse, "SELECT rule_id FROM results WHERE assessment_id = ? AND asset_id = ? AND "
                                       "status = 'fail' AND severity = 'critical'", [latest, device])
    for follow_up in ("which of them is the most serious", "which one is worst"):
        chat = Chat(services)
        chat(f"what fails on {device}")
        lead = first_line(chat(follow_up).final.answer)
        assert lead.startswith(f"**{critical}** is the most severe: critical"), (follow_up, lead)


def test_there_after_the_worst_one_named_is_that_one(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per_region = sql(demo_warehouse, f"SELECT s.region, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                     "r.status = 'fail' GROUP BY 1 ORDER BY 2 DESC, 1", [latest])
    worst = per_region[0][0]
    chat = Chat(services)
    lead = first_line(chat("what's the worst region at the moment").final.answer)
    assert lead.startswith(f"**{worst}**") and per_region[1][0] not in lead, lead
    state = chat("what fails most there")
    assert state.intent.query is not None and state.intent.query.condition("region") is not None, state.intent.query
    assert state.intent.query.condition("region").values == [worst]  # type: ignore[union-attr]


def test_both_after_two_answers_about_two_checks_is_the_devices_failing_each(demo_warehouse: Path,
                                                                            services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    both = {d for d, in sql(demo_warehouse, f"SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                            "'fail' AND r.rule_id IN ('NTP-AUTH', 'LOG-HOST') GROUP BY 1 "
                                            "HAVING COUNT(*) = 2", [latest])}
    chat = Chat(services)
    chat("number of devices failing NTP-AUTH")
    chat("what about LOG-HOST")
    lead = first_line(chat("which have both").final.answer)
    assert lead.startswith(f"**{len(both)} devices** failing both"), lead
    assert set(re.findall(r"\b[A-Z]{2,3}-[\w-]+-\d\b|\b[A-Z]{2,3}-[A-Z]+\d*-\d\b", lead)) >= both, lead


def _failing(demo_warehouse: Path, column: str, where: str, params: list[object] | None = None) -> set[str]:
    """The distinct ``column`` values of the latest run's failed checks that ``where`` keeps."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    return {v for v, in sql(demo_warehouse, f"SELECT DISTINCT {column} FROM {FLEET} WHERE r.assessment_id = ? AND "
                                            f"r.status = 'fail' AND {where}", [latest, *(params or [])])}


PASS_RATE = (f"SELECT {PASS} FROM {FLEET} "
             "WHERE r.assessment_id = ? AND a.site = ?")


def test_compared_with_a_month_the_last_figure_is_set_beside_its_value_then(demo_warehouse: Path,
                                                                              services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    chat = Chat(services)
    chat("pass rate at Branch-05")
    for question, site in (("how does it compare with september", "Branch-05"), ("and Branch-08?", "Branch-08")):
        state = chat(question)
        query = state.intent.query
        assert query is not None and query.measures[:1] == ["pass_rate"] and query.runs == [runs[1], runs[-1]], query
        for run in (runs[1], runs[-1]):
            (rate,), = sql(demo_warehouse, PASS_RATE, [run, site])
            assert str(rate) in first_line(state.final.answer), (question, run, rate, state.final.answer[:300])


def test_places_counted_then_the_ones_that_do_not_are_the_rest_of_that_kind(demo_warehouse: Path,
                                                                          services: Services) -> None:
    failing = _failing(demo_warehouse, "a.site", "r.rule_id = 'SSH-V2' AND s.site_type = 'branch'")
    branches = {s for s, in sql(demo_warehouse, "SELECT site FROM sites WHERE site_type = 'branch'")}
    assert failing and branches - failing  # the demo has both kinds, or this checks nothing
    chat = Chat(services)
    counted = chat("how many branches fail SSH-V2")
    assert first_line(counted.final.answer).startswith(f"**{len(failing)}**"), counted.final.answer[:300]
    rest = chat("which branches don't?").final.answer
    assert all(re.search(rf"\b{s}\b", rest) for s in branches - failing), rest[:400]
    assert not any(re.search(rf"\b{s}\b", rest) for s in failing), rest[:400]


def test_it_after_a_ranking_of_checks_is_the_check_it_named_first(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    counts = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(DISTINCT r.asset_id) n FROM {FLEET} WHERE r.assessment_id = ? "
                                 "AND r.status = 'fail' AND s.site_type = 'branch' GROUP BY 1 ORDER BY n DESC", [latest])
    assert counts[0][1] > counts[1][1]  # one check leads at the branches, or "it" names none
    chat = Chat(services)
    ranked = chat("most frequent failures in the branches")
    state = chat("which devices fail it")
    lead = first_line(ranked.final.answer)
    named = re.match(r"\*\*([A-Z0-9-]+)\*\*", lead)
    assert named is not None, lead
    assert named.group(1) == counts[0][0] and named.group(1) in state.conversation.effective_prompt, (
        state.conversation.effective_prompt, counts[0])
    assert chat("and how many devices does it have").conversation.effective_prompt == ""  # "it" has, so a place


def test_of_them_passing_everything_and_the_ones_that_are_not(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    asas = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                            "a.platform = 'asa'", [latest])}  # judged in the latest run
    failing = _failing(demo_warehouse, "r.asset_id", "a.platform = 'asa'")
    clean = asas - failing
    chat = Chat(services)
    chat("how many asa firewalls do we have")
    passing = chat("how many of them pass all their checks").final.answer
    assert first_line(passing).startswith(f"**{len(clean)} device"), passing[:300]
    rest = chat("show the ones that aren't").final.answer
    assert all(re.search(rf"\b{d}\b", rest) for d in failing), rest[:400]
    assert not any(re.search(rf"\b{d}\b", rest) for d in clean), rest[:400]


def test_two_severities_of_one_devices_checks_keep_only_those(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rows = sql(demo_warehouse, f"SELECT r.rule_id, r.severity FROM {FLEET} WHERE r.assessment_id = ? AND "
                               "r.status = 'fail' AND r.asset_id = 'RTR-CORE-1'", [latest])
    kept = {r for r, s in rows if s in ("critical", "high")}
    assert kept and len(kept) < len(rows)
    chat = Chat(services)
    chat("what fails on RTR-CORE-1")
    answer = chat("which of these are critical or high?").final.answer
    assert all(re.search(rf"\b{r}\b", answer) for r in kept), answer[:400]
    assert not any(re.search(rf"\b{r}\b", answer) for r, s in rows if r not in kept), answer[:400]


def test_checks_failing_at_both_places_asked_about_are_those_each_fails(demo_warehouse: Path,
                                                                        services: Services) -> None:
    first, second = (_failing(demo_warehouse, "r.rule_id", "a.site = ?", [s]) for s in ("Branch-02", "Branch-05"))
    assert first & second and first ^ second  # the demo has checks of both kinds, or this checks nothing
    chat = Chat(services)
    chat("what is failing at Branch-02")
    again = chat("and at Branch-05?")
    named = [r for r in second if re.search(rf"\b{r}\b", again.final.answer)]
    assert len(named) >= min(len(second), 25), again.final.answer[:400]  # 20 in the table, then the rest by name
    both = chat("which of the checks fail at both").final.answer
    assert all(re.search(rf"\b{r}\b", both) for r in first & second), both[:400]
    assert not any(re.search(rf"\b{r}\b", both) for r in first ^ second), both[:400]


def test_checks_failing_at_every_place_of_a_kind_are_counted_against_that_kind(demo_warehouse: Path,
                                                                               services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    everywhere = {r for r, in sql(demo_warehouse, f"SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                                  "r.status = 'fail' AND s.site_type = 'campus' GROUP BY 1 HAVING "
                                                  "COUNT(DISTINCT a.site) = (SELECT COUNT(*) FROM sites WHERE "
                                                  "site_type = 'campus')", [latest])}
    somewhere = _failing(demo_warehouse, "r.rule_id", "s.site_type = 'campus'") - everywhere
    assert everywhere and somewhere
    answer = handle_turn("what checks fail at every campus", services=services).final.answer
    assert all(re.search(rf"\b{r}\b", answer) for r in everywhere), answer[:400]
    assert not any(re.search(rf"\b{r}\b", answer) for r in somewhere), answer[:400]


def test_the_top_n_of_a_table_and_the_measure_carried_to_a_ranking_of_its_row(demo_warehouse: Path,
                                                                              services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    chat = Chat(services)
    chat("high findings per site")
    top = chat("only the top 2")
    query = top.intent.query
    assert query is not None and query.limit == 2 and query.order is not None and query.order.descending, query
    per_region = sql(demo_warehouse, f"SELECT s.region, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                     "r.status = 'fail' AND r.severity = 'high' GROUP BY 1 ORDER BY n DESC", [latest])
    assert per_region[0][1] > per_region[1][1]
    chat("which region has the most high findings")
    state = chat("which site there has the most")
    per_site = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                   "r.status = 'fail' AND r.severity = 'high' AND s.region = ? GROUP BY 1 "
                                   "ORDER BY n DESC", [latest, per_region[0][0]])
    tied = [s for s, n in per_site if n == per_site[0][1]]
    lead = first_line(state.final.answer)
    assert all(f"**{s}**" in lead for s in tied) and str(per_site[0][1]) in lead, (lead, per_site[:4])


def test_which_of_a_listed_lot_fail_a_check_their_last_answer_showed_is_those_devices(demo_warehouse: Path,
                                                                                    services: Services) -> None:
    failing = _failing(demo_warehouse, "r.asset_id", "r.rule_id = 'OSPF-AUTH' AND a.role = 'leaf'")
    assert failing
    chat = Chat(services)
    chat("show the leaf switches")
    state = chat("which of those fail OSPF-AUTH?")
    assert state.conversation.resolution != "finding_reference", state.conversation.resolution
    assert re.search(rf"\b{len(failing)} device", first_line(state.final.answer)), state.final.answer[:300]
    assert all(re.search(rf"\b{d}\b", state.final.answer) for d in failing), state.final.answer[:400]


def test_a_breakdown_compared_with_a_month_is_each_groups_change(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    chat = Chat(services)
    chat("failed checks per site type")
    answer = chat("compared with august?").final.answer
    for run in (runs[0], runs[-1]):
        for kind, n in sql(demo_warehouse, f"SELECT s.site_type, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                           "r.status = 'fail' GROUP BY 1", [run]):
            assert re.search(rf"\| {kind} \|.*\b{n:,}\b", answer), (run, kind, n, answer[:600])


def test_how_many_devices_is_that_after_places_counts_the_devices_behind_them(demo_warehouse: Path,
                                                                              services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'NTP-AUTH'", [latest])
    chat = Chat(services)
    chat("at which sites do devices fail NTP-AUTH")
    lead = first_line(chat("how many devices are there in total").final.answer)
    assert lead.startswith(f"**{n}**"), lead




def test_the_one_row_with_the_lowest_figure_is_what_it_and_its_point_at(demo_warehouse: Path,
                                                                         services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = sql(demo_warehouse, f"SELECT r.asset_id, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "a.device_type = 'switch' GROUP BY 1 ORDER BY p, 1", [latest])
    worst, rate = rates[0]
    chat = Chat(services)
    state = chat("give me the switch with the poorest pass rate")  # one row: "the <thing> with the <end> <figure>"
    assert state.intent.query is not None and state.intent.query.limit == 1, state.intent.query
    lead = first_line(state.final.answer)
    tied = [d for d, p in rates if p == rate]
    assert any(f"**{d}**" in lead for d in tied) and f"{rate}%" in lead, lead
    shown = next(d for d in tied if f"**{d}**" in lead)
    failing = [r for r, in sql(demo_warehouse, f"SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND r.asset_id = ?", [latest, shown])]
    answer = chat("and what is it failing").final.answer
    assert failing and all(re.search(rf"\b{r}\b", answer) for r in failing), (shown, answer[:500])


def test_their_figure_after_a_count_of_devices_is_of_those_devices(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    chat = Chat(services)
    chat("how many spine switches do we have")
    (now,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND a.role = 'spine'",
                  [runs[-1]])
    state = chat("what is their pass rate")
    assert first_line(state.final.answer).startswith(f"**{now}%**"), state.final.answer[:300]
    (then,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND a.role = 'spine'",
                   [runs[1]])
    assert f"{then}" in chat("how does that compare to september").final.answer


def test_a_summary_compared_with_another_place_sets_the_two_side_by_side(demo_warehouse: Path,
                                                                           services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    chat = Chat(services)
    chat("give me an overview of Branch-03")
    answer = chat("compare it with Branch-05").final.answer
    assert "Branch-03, Branch-05" in answer.split("\n\n")[0], answer[:200]  # the scope line: both places
    for site in ("Branch-03", "Branch-05"):
        (rate, failed), = sql(demo_warehouse, f"SELECT {PASS}, SUM(CASE WHEN r.status = 'fail' THEN 1 ELSE 0 END) "
                                              f"FROM {FLEET} WHERE r.assessment_id = ? AND a.site = ?", [latest, site])
        assert re.search(rf"^\| {site} \| {rate}% \| {failed} \|$", answer, re.M), (site, rate, failed, answer[:500])
    # compared with a month instead, a summary is the comparison's: the failed checks then and now
    chat = Chat(services)
    chat("give me an overview of Branch-03")
    assert chat("compare it with october").intent.query is None


def test_failures_per_category_and_a_category_named_in_words(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT u.category, COUNT(*) FROM {FLEET} JOIN rules u ON u.rule_id = r.rule_id WHERE "
                              "r.assessment_id = ? AND r.status = 'fail' GROUP BY 1", [latest])
    answer = handle_turn("how many failed checks in each category", services=services).final.answer
    assert per and all(re.search(rf"\*\*{c.replace('_', ' ')}\*\* {n:,}\b", answer) for c, n in per), answer[:400]
    (rate,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} JOIN rules u ON u.rule_id = r.rule_id WHERE "
                                   "r.assessment_id = ? AND u.category = 'control_plane'", [latest])
    state = handle_turn("what's the pass rate on control plane checks", services=services)
    assert first_line(state.final.answer).startswith(f"**{rate}%**"), state.final.answer[:300]
    assert state.intent.query is not None and state.intent.query.condition("rule") is None  # no check guessed


def test_a_breakdown_of_counts_names_the_groups_with_the_most(demo_warehouse: Path, services: Services) -> None:
    top = sql(demo_warehouse, "SELECT a.site, COUNT(*) n FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                              "a.collection = 'fleet' WHERE e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' AND "
                              "strftime(e.ts, '%Y-%m') = '2026-09' GROUP BY 1 ORDER BY n DESC, 1 LIMIT 1")
    lead = first_line(handle_turn("failed logins per site in september", services=services).final.answer)
    assert f"**{top[0][0]}** ({top[0][1]})" in lead, lead


def test_a_severity_said_of_the_rows_narrows_one_devices_checks(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    device = "RTR-LAB1-1"
    medium = [r for r, in sql(demo_warehouse, "SELECT rule_id FROM results WHERE assessment_id = ? AND asset_id = ? "
                                              "AND status = 'fail' AND severity = 'medium'", [latest, device])]
    others = [r for r, in sql(demo_warehouse, "SELECT rule_id FROM results WHERE assessment_id = ? AND asset_id = ? "
                                              "AND status = 'fail' AND severity <> 'medium'", [latest, device])]
    chat = Chat(services)
    chat(f"what is {device} failing")
    answer = chat("which ones are medium?").final.answer
    assert medium and all(re.search(rf"\b{r}\b", answer) for r in medium), answer[:500]
    assert not any(re.search(rf"\b{r}\b", answer) for r in others), answer[:500]


def test_one_devices_events_of_a_month_are_a_figure_and_two_are_set_side_by_side(demo_warehouse: Path,
                                                                               services: Services) -> None:
    per = dict(sql(demo_warehouse, "SELECT asset_id, COUNT(*) FROM events WHERE mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' "
                                   "AND strftime(ts, '%Y-%m') = '2026-10' AND asset_id IN ('FW-ST38-1', 'RTR-BR04-1') "
                                   "GROUP BY 1"))
    chat = Chat(services)
    for device in ("FW-ST38-1", "RTR-BR04-1"):
        state = chat(f"how many failed logins did {device} have in october" if device == "FW-ST38-1" else
                     f"and {device}?")
        assert first_line(state.final.answer).startswith(f"**{per.get(device, 0)}**"), state.final.answer[:300]
    top = max(per, key=lambda d: per[d])
    assert first_line(chat("which one had more").final.answer).startswith(f"**{top}**")


def test_compare_two_values_of_a_dimension_gives_each_its_figure(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    answer = handle_turn("compare branch and campus failed checks", services=services).final.answer
    for kind in ("branch", "campus"):
        (n,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' "
                                    "AND s.site_type = ?", [latest, kind])
        assert re.search(rf"\*\*{kind}\*\*\W+{n:,}\b", answer), (kind, n, answer[:300])


def test_the_worst_site_has_the_most_critical_then_high_failures(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (site, critical, high, failed), = sql(demo_warehouse, f"""SELECT a.site, COUNT(*) FILTER (WHERE r.severity =
        'critical'), COUNT(*) FILTER (WHERE r.severity = 'high'), COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND
        r.status = 'fail' GROUP BY 1 ORDER BY 2 DESC, 3 DESC, 4 DESC, 1 LIMIT 1""", [latest])
    lead = first_line(handle_turn("which location is in the worst shape", services=services).final.answer)
    assert lead.startswith(f"**{site}** is the worst: {failed} failed checks ({critical} critical, {high} high"), lead


def test_breaking_down_the_one_row_named_groups_that_row(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = sql(demo_warehouse, f"SELECT s.tier, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 "
                                "ORDER BY p DESC, 1", [latest])
    chat = Chat(services)
    chat("pass rate per tier")
    assert first_line(chat("which one is highest").final.answer).startswith(f"**{rates[0][0]}**")
    answer = chat("can you break that down by device type").final.answer
    per = sql(demo_warehouse, f"SELECT a.device_type, {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND s.tier = ? "
                              "GROUP BY 1", [latest, rates[0][0]])
    assert per and all(re.search(rf"\b{kind.replace('_', '[_ ]')}\b\W+{rate}%", answer) for kind, rate in per), \
        answer[:400]


def test_any_of_them_somewhere_after_a_list_is_a_yes_or_no_with_the_devices(demo_warehouse: Path,
                                                                            services: Services) -> None:
    chat = Chat(services)
    chat("list the wlcs")
    for site in ("HQ", "Store-30"):
        there = [d for d, in sql(demo_warehouse, "SELECT asset_id FROM assets WHERE collection = 'fleet' AND "
                                                 "device_type = 'wireless_controller' AND site = ?", [site])]
        lead = first_line(chat(f"any of them at {site}?").final.answer)
        assert lead.startswith("**Yes**" if there else "**No**"), lead
        assert all(d in lead for d in there), lead


def test_which_kind_of_row_has_the_end_of_a_figure_is_answered_without_asking_back(demo_warehouse: Path,
                                                                                  services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (env, rate), = sql(demo_warehouse, f"SELECT a.environment, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? "
                                       "GROUP BY 1 ORDER BY p DESC, 1 LIMIT 1", [latest])
    state = handle_turn("which environment has the highest pass rate", services=services)
    assert state.intent.clarification_question is None
    assert first_line(state.final.answer).startswith(f"**{env}** has the highest pass rate: {rate}%")


def test_what_fails_at_a_site_names_every_failing_check(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    failing = [r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? "
                                               "AND r.status = 'fail' AND a.site = 'Lab-1'", [latest])]
    assert len(failing) > 25  # more than the findings table and the old cap of 25
    answer = handle_turn("what fails at Lab-1", services=services).final.answer
    assert [r for r in failing if not re.search(rf"\b{r}\b", answer)] == [], answer[-800:]


def test_the_risk_of_the_one_check_in_play_is_its_rationale_and_exceptions_are_of_it(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    (rationale, title), = sql(demo_warehouse, "SELECT rationale, title FROM rules WHERE rule_id = 'SNMP-RW'")
    chat = Chat(services)
    chat("which devices fail SNMP-RW")
    answer = chat("so what").final.answer  # the check's rationale (its findings explained, or what the standard says)
    assert "SNMP-RW" in answer and rationale.rstrip(".") in answer, answer
    excepted = sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE rule_id = 'SNMP-RW'")
    lead = first_line(chat("are any covered by an exception").final.answer)
    assert not excepted and lead.startswith(("**No", "**None")), lead  # none is of SNMP-RW (the register has others)


def test_the_devices_of_one_row_of_a_breakdown_and_the_same_release_elsewhere(demo_warehouse: Path,
                                                                             services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT asset_id) FROM slic_results WHERE assessment_id = ? AND "
                                "severity = 'high'", [latest])
    chat = Chat(services)
    chat("slic matches per severity")
    lead = first_line(chat("which devices have the high ones").final.answer)
    assert lead.startswith(f"**{n} devices**"), lead
    (release,), = sql(demo_warehouse, "SELECT os_version FROM assets WHERE asset_id = 'SW-HQ-CORE-2'")
    others = [d for d, in sql(demo_warehouse, "SELECT asset_id FROM assets WHERE collection = 'fleet' AND os_version = ? "
                                              "AND asset_id <> 'SW-HQ-CORE-2'", [release])]
    chat = Chat(services)
    chat("which software version is SW-HQ-CORE-2 running")
    answer = chat("what other boxes run the same version").final.answer
    listed = answer.split("\n\n")[1].split(":", 1)[1]
    assert others and all(d in listed for d in others) and "SW-HQ-CORE-2" not in listed, answer[:500]


def test_negations_rates_and_the_devices_behind_a_count(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (clean,), = sql(demo_warehouse, f"""SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND
        a.device_type = 'switch' AND r.asset_id NOT IN (SELECT asset_id FROM results WHERE assessment_id = ? AND
        status = 'fail' AND severity IN ('critical', 'high'))""", [latest, latest])
    lead = first_line(handle_turn("how many switches don't have any high or critical findings",
                                  services=services).final.answer)
    assert lead.startswith(f"**{clean}"), lead
    (rate,), = sql(demo_warehouse, f"""SELECT ROUND(100.0 * SUM(CASE WHEN r.status = 'fail' THEN 1 ELSE 0 END) /
        COUNT(*), 1) FROM {FLEET} JOIN rules u ON u.rule_id = r.rule_id WHERE r.assessment_id = ? AND
        u.technology = 'ntp'""", [latest])
    lead = first_line(handle_turn("what's the failure rate of the ntp checks", services=services).final.answer)
    assert lead.startswith(f"**{rate}%**"), lead
    failing = [d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND r.severity = 'critical' AND s.site_type = 'campus'",
                               [latest])]
    chat = Chat(services)
    chat("number of critical findings at the campuses")
    answer = chat("show me the devices").final.answer
    assert failing and all(d in answer for d in failing), answer[:400]


def test_a_rate_of_a_part_then_per_group_then_the_worst(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (rate,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND s.region = 'us-west'",
                   [latest])
    chat = Chat(services)
    assert first_line(chat("compliance in us-west").final.answer).startswith(f"**{rate}%**")
    per = sql(demo_warehouse, f"SELECT a.device_type, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "s.region = 'us-west' GROUP BY 1 ORDER BY p, 1", [latest])
    chat("per device type")
    lead = first_line(chat("worst one?").final.answer)
    assert lead.startswith(f"**{per[0][0]}** has the lowest pass rate: {per[0][1]}%"), lead


def test_a_summary_of_a_kind_then_the_worst_of_them_then_its_findings_and_fixes(demo_warehouse: Path,
                                                                                services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"""SELECT a.site, COUNT(*) FILTER (WHERE r.severity = 'critical') c,
        COUNT(*) FILTER (WHERE r.severity = 'high') h, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND
        r.status = 'fail' AND s.site_type = 'store' GROUP BY 1 ORDER BY 2 DESC, 3 DESC, 4 DESC, 1""", [latest])
    worst = ranked[0][0]
    assert ranked[1][1:] != ranked[0][1:]  # one store leads: "its" is that store
    critical = [r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                                "r.status = 'fail' AND r.severity = 'critical' AND a.site = ?",
                                [latest, worst])]
    chat = Chat(services)
    chat("how are the stores looking")
    assert first_line(chat("and the worst?").final.answer).startswith(f"**{worst}** is the worst")
    answer = chat("what are its critical findings").final.answer
    assert worst in answer.split("\n\n")[0] and all(r in answer for r in critical), answer[:400]
    fixes = chat("how do i fix them").final.answer
    assert f"site {worst}" in fixes.split("\n\n")[0] and all(r in fixes for r in critical), fixes[:400]


def test_anything_new_since_a_month_is_the_new_failures_between_the_two_runs(demo_warehouse: Path,
                                                                            services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (new,), = sql(demo_warehouse, f"""SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND
        a.site = 'Store-45' AND NOT EXISTS (SELECT 1 FROM results o WHERE o.assessment_id = ? AND o.asset_id =
        r.asset_id AND o.rule_id = r.rule_id AND o.status = 'fail')""", [runs[-1], runs[1]])
    state = handle_turn("anything new at Store-45 since september?", services=services)
    assert state.intent.clarification_question is None
    assert first_line(state.final.answer).startswith(f"**{new} new failed check"), state.final.answer[:300]


def test_how_many_devices_per_group_have_findings_of_a_severity_counts_devices(demo_warehouse: Path,
                                                                               services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT a.environment, COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? "
                              "AND r.status = 'fail' AND r.severity = 'high' GROUP BY 1", [latest])
    lead = first_line(handle_turn("how many devices in each environment have high findings",
                                  services=services).final.answer)
    assert lead.startswith(f"**{sum(n for _, n in per)}** devices failing"), lead
    assert all(f"**{env}** {n}" in lead for env, n in per), lead
    (pct,), = sql(demo_warehouse, f"""SELECT ROUND(100.0 * COUNT(DISTINCT r.asset_id) FILTER (WHERE r.status = 'pass')
        / COUNT(DISTINCT r.asset_id), 1) FROM {FLEET} WHERE r.assessment_id = ? AND r.rule_id = 'SSH-V2' AND
        a.device_type = 'switch'""", [latest])
    lead = first_line(handle_turn("what percentage of switches pass SSH-V2", services=services).final.answer)
    assert lead.startswith(f"**{pct}%**"), lead


def test_the_rows_two_rankings_share_are_in_both(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    top = {region: [r for r, _ in sql(demo_warehouse, f"""SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE
        r.assessment_id = ? AND r.status = 'fail' AND s.region = ? GROUP BY 1 ORDER BY n DESC, 1 LIMIT 4""",
                                      [latest, region])] for region in ("us-central", "us-west")}
    common = [r for r in top["us-west"] if r in top["us-central"]]
    chat = Chat(services)
    chat("top 4 failing rules in us-central")
    chat("and in us-west?")
    lead = first_line(chat("which of them are in both lists").final.answer)
    assert common and all(r in lead for r in common), lead
    assert not any(r in lead for r in set(top["us-west"]) - set(common)), lead


def test_the_places_whose_figure_dropped_are_only_those_that_did(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    dropped = [s for s, in sql(demo_warehouse, f"""WITH p AS (SELECT a.site, r.assessment_id run, {PASS} p FROM {FLEET}
        WHERE r.assessment_id IN (?, ?) AND s.site_type = 'branch' GROUP BY 1, 2) SELECT n.site FROM p n JOIN p o ON
        o.site = n.site AND n.run = ? AND o.run = ? WHERE n.p < o.p""", [runs[-1], runs[0], runs[-1], runs[0]])]
    rose = [s for s, in sql(demo_warehouse, f"""WITH p AS (SELECT a.site, r.assessment_id run, {PASS} p FROM {FLEET}
        WHERE r.assessment_id IN (?, ?) AND s.site_type = 'branch' GROUP BY 1, 2) SELECT n.site FROM p n JOIN p o ON
        o.site = n.site AND n.run = ? AND o.run = ? WHERE n.p > o.p""", [runs[-1], runs[0], runs[-1], runs[0]])]
    for question in ("which branches had their pass rate fall since august",
                     "branches where the pass rate went down since august"):
        answer = handle_turn(question, services=services).final.answer
        assert dropped and rose and "got worse" in first_line(answer), answer[:300]
        assert all(re.search(rf"\b{s}\b", answer) for s in dropped), answer[:600]
        assert not any(re.search(rf"\b{s}\b", answer) for s in rose), answer[:600]  # only those that dropped




def test_a_business_criticality_is_not_a_severity(demo_warehouse: Path, services: Services) -> None:
    """"low criticality devices" are devices of that business criticality, not low-severity findings; a severity said
    beside one ("business critical boxes with high failures") is still the findings'."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND criticality = 'low'")
    lead = first_line(Chat(services)("how many low criticality devices do we have").final.answer)
    assert lead.startswith(f"**{n}**") and "business criticality low" in lead, lead
    devices = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND r.severity = 'high' AND a.criticality = "
                                               "'critical'", [latest])}
    answer = Chat(services)("which business critical boxes have high failures").final.answer
    assert set(re.findall(r"\b(?:RTR|SW|FW|WLC|NX)-[\w-]+", answer)) == devices, answer[:600]


def test_the_pass_rate_of_a_kind_of_device_is_their_checks_rate(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (rate,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND a.role = 'edge' AND "
                                   "a.device_type = 'firewall'", [latest])
    lead = first_line(Chat(services)("what's the pass rate of the edge firewalls").final.answer)
    assert lead.startswith(f"**{rate}%**"), lead


def test_events_per_month_are_every_month_the_log_covers(demo_warehouse: Path, services: Services) -> None:
    months = sql(demo_warehouse, "SELECT strftime(ts, '%Y-%m'), COUNT(*) FROM events e JOIN assets a ON a.asset_id = "
                                 "e.asset_id AND a.collection = 'fleet' WHERE mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' "
                                 "GROUP BY 1 ORDER BY 1")
    answer = Chat(services)("failed logins month by month").final.answer
    for month, n in months:
        assert re.search(rf"\|\s*{month}\s*\|\s*{n:,}\s*\|", answer), (month, n, answer[:600])


def test_a_bound_on_a_figure_lists_or_counts_the_rows_it_keeps(demo_warehouse: Path, services: Services) -> None:
    """"sites under 75% pass rate" are the sites whose own rate is under it; "how many routers have more than 15
    failed checks" counts routers, each by its own failed checks (it answered the whole network's figures)."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    sites = {s for s, in sql(demo_warehouse, f"SELECT a.site FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 "
                                             f"HAVING {PASS} < 75", [latest])}
    answer = Chat(services)("sites under 75% pass rate").final.answer
    assert first_line(answer).startswith(f"**{len(sites)} sites** with a pass rate under 75%"), answer[:300]
    assert {s for s in re.findall(r"\b(?:Store|Branch|Site|DataCenter|Lab)-[\w]+|\bHQ\b", answer)} == sites
    (n,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM (SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND a.device_type = 'router' GROUP BY 1 HAVING COUNT(*) > 15)",
                [latest])
    lead = first_line(Chat(services)("how many routers have more than 15 failed checks").final.answer)
    assert lead.startswith(f"**{n} devices** with more than 15 failed checks"), lead


def test_their_figure_after_a_list_is_of_the_devices_listed_and_moves_with_a_new_place(demo_warehouse: Path,
                                                                                        services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rate = {site: p for site, p in sql(demo_warehouse, f"SELECT a.site, {PASS} FROM {FLEET} WHERE r.assessment_id = ? "
                                                       "AND a.role = 'access' GROUP BY 1", [latest])}
    chat = Chat(services)
    chat("list the access switches at HQ")
    assert first_line(chat("what's their overall pass rate").final.answer).startswith(f"**{rate['HQ']}%**")
    lead = first_line(chat("and the ones at Site-A?").final.answer)
    assert lead.startswith(f"**{rate['Site-A']}%**"), lead


def test_how_many_at_a_place_after_a_count_counts_the_same_things_there(demo_warehouse: Path,
                                                                          services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets a JOIN sites s ON s.site = a.site WHERE a.collection = "
                                "'fleet' AND a.device_type = 'router' AND s.region = 'us-east'")
    chat = Chat(services)
    chat("how many routers do we have")
    lead = first_line(chat("how many in us-east").final.answer)
    assert lead.startswith(f"**{n}**"), lead


def test_which_improved_the_most_after_an_earlier_month_is_each_groups_change_since_then(
        demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per = {run: dict(sql(demo_warehouse, f"SELECT s.site_type, {PASS} FROM {FLEET} WHERE r.assessment_id = ? "
                                         "GROUP BY 1", [run])) for run in (runs[1], runs[-1])}
    change = {k: per[runs[-1]][k] - per[runs[1]][k] for k in per[runs[-1]]}
    best = max(change.values())
    chat = Chat(services)
    chat("pass rate per site type")
    chat("and in september?")
    state = chat("which improved the most")
    assert state.intent.query is not None and state.intent.query.runs == [runs[1], runs[-1]], state.intent.query
    lead = first_line(state.final.answer)
    assert any(f"**{k}**" in lead for k, v in change.items() if abs(v - best) < 0.05), (change, lead)


def test_the_most_of_them_after_a_list_counts_the_devices_listed_per_group(demo_warehouse: Path,
                                                                           services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"""SELECT s.site_type, COUNT(*) n FROM (SELECT r.asset_id FROM {FLEET} WHERE
        r.assessment_id = ? AND r.status = 'fail' AND a.device_type = 'router' GROUP BY 1 HAVING COUNT(*) > 15) d
        JOIN assets a ON a.asset_id = d.asset_id JOIN sites s ON s.site = a.site GROUP BY 1 ORDER BY n DESC""",
              [latest])
    chat = Chat(services)
    chat("routers with more than 15 failed checks")
    lead = first_line(chat("which site type has the most of them").final.answer)
    top = [k for k, n in per if n == per[0][1]]
    assert any(f"**{k}**" in lead for k in top) and str(per[0][1]) in lead, (per, lead)


def test_devices_with_their_value_are_each_device_and_its_value(demo_warehouse: Path, services: Services) -> None:
    rows = sql(demo_warehouse, "SELECT asset_id, model FROM assets WHERE collection = 'fleet' AND role = 'leaf' "
                               "ORDER BY 1")
    answer = Chat(services)("list the leaf switches with their model").final.answer
    assert first_line(answer).startswith(f"**{len(rows)} devices** with their model"), answer[:300]
    for device, model in rows:
        assert re.search(rf"\|\s*{device}\s*\|\s*{re.escape(model)}\s*\|", answer), (device, model)


def test_the_worst_device_by_severity_also_names_the_one_failing_most(demo_warehouse: Path,
                                                                      services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"""SELECT r.asset_id, COUNT(*) FILTER (WHERE r.severity = 'critical') c,
        COUNT(*) FILTER (WHERE r.severity = 'high') h, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND
        r.status = 'fail' AND a.site = 'Store-33' GROUP BY 1""", [latest])
    by_severity = max(per, key=lambda x: (x[1], x[2], x[3]))[0]
    most = max(per, key=lambda x: x[3])[0]
    lead = first_line(Chat(services)("worst device at Store-33").final.answer)
    assert lead.startswith(f"**{by_severity}**") and most in lead, lead


def test_config_changes_are_counted_from_the_event_log(demo_warehouse: Path, services: Services) -> None:
    per = sql(demo_warehouse, "SELECT e.asset_id, COUNT(*) n FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                              "a.collection = 'fleet' WHERE e.mnemonic = 'SYS-5-CONFIG_I' AND e.ts >= TIMESTAMP "
                              "'2026-09-01' AND e.ts < TIMESTAMP '2026-10-01' GROUP BY 1 ORDER BY n DESC")
    top = [d for d, n in per if n == per[0][1]]
    lead = first_line(Chat(services)("which box logged the most configuration changes in september").final.answer)
    assert all(f"**{d}**" in lead for d in top) and f": {per[0][1]}" in lead, (per[:3], lead)


def test_events_since_a_month_are_each_month_since_or_their_total_when_counted(demo_warehouse: Path,
                                                                                services: Services) -> None:
    months = sql(demo_warehouse, "SELECT strftime(e.ts, '%Y-%m'), COUNT(*) FROM events e JOIN assets a ON a.asset_id = "
                                 "e.asset_id AND a.collection = 'fleet' WHERE e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' "
                                 "AND a.site = 'DataCenter-1' AND e.ts >= TIMESTAMP '2026-09-01' GROUP BY 1 ORDER BY 1")
    total = sum(n for _, n in months)
    lead = first_line(Chat(services)("how many failed logins at DataCenter-1 since september").final.answer)
    assert lead.startswith(f"**{total:,}** failed logins"), (months, lead)
    answer = Chat(services)("failed logins at DataCenter-1 since september, month by month").final.answer
    for month, n in months:
        assert re.search(rf"\|\s*{month}\s*\|\s*{n:,}\s*\|", answer), (month, n, answer[:500])


def test_what_the_query_cannot_hold_is_said_beside_the_answer(demo_warehouse: Path, services: Services) -> None:
    """A figure the data does not hold ("the most reboots") is said, and what is ranked instead; a condition that does
    not apply to what is counted (a check's severity, for failed logins) is said, not dropped silently."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' GROUP BY 1 ORDER BY n DESC", [latest])
    answer = Chat(services)("which box had the most reboots").final.answer
    assert "reboots" in answer and "ranked by failed checks" in answer, answer[:400]
    assert first_line(answer).startswith(f"**{per[0][0]}**"), answer[:300]
    answer = Chat(services)("failed logins for critical checks at HQ").final.answer
    assert "severity critical does not apply to failed logins" in answer, answer[:400]
    assert "severity" not in answer.splitlines()[0], answer.splitlines()[0]  # not said as the scope it covered


def test_more_or_fewer_than_a_month_are_the_groups_that_moved_that_way(demo_warehouse: Path,
                                                                        services: Services) -> None:
    """"devices with more critical findings than last month" are those whose count went up (a device assessed then
    with none had 0; one not assessed then is left out, and said); "sites with fewer failed checks than in september"
    those whose count went down since that run."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (up,), = sql(demo_warehouse, f"""SELECT COUNT(*) FROM (SELECT r.asset_id, COUNT(*) FILTER (WHERE r.assessment_id =
        ? AND r.status = 'fail' AND r.severity = 'critical') b, COUNT(*) FILTER (WHERE r.assessment_id = ? AND
        r.status = 'fail' AND r.severity = 'critical') n FROM {FLEET} GROUP BY 1 HAVING COUNT(DISTINCT
        r.assessment_id) FILTER (WHERE r.assessment_id IN (?, ?)) = 2) WHERE n > b""",
                 [runs[-2], runs[-1], runs[-2], runs[-1]])
    (new,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT asset_id) FROM results WHERE assessment_id = ? AND asset_id "
                                  "NOT IN (SELECT asset_id FROM results WHERE assessment_id = ?)", [runs[-1], runs[-2]])
    lead = first_line(Chat(services)("which devices have more critical findings than last month").final.answer)
    assert lead.startswith(f"**{up} devices** got worse between {runs[-2]} and {runs[-1]}"), lead
    assert new and f"{new} device{'s' if new > 1 else ''} not assessed in both runs" in lead, lead
    (down,), = sql(demo_warehouse, f"""SELECT COUNT(*) FROM (SELECT a.site, COUNT(*) FILTER (WHERE r.assessment_id = ?)
        b, COUNT(*) FILTER (WHERE r.assessment_id = ?) n FROM {FLEET} WHERE r.status = 'fail' GROUP BY 1) WHERE n < b""",
                   [runs[1], runs[-1]])
    lead = first_line(Chat(services)("sites with fewer failed checks than in september").final.answer)
    assert lead.startswith(f"**{down} sites** got better between {runs[1]} and {runs[-1]}"), lead


def test_months_ago_are_the_months_counted_back_from_today() -> None:
    from datetime import date

    from orchestration.nlu.frame import read_time
    today = date(2026, 11, 29)
    assert read_time("and three months ago?", [], today).months == ["2026-08"]
    assert read_time("pass rate a month ago", [], today).months == ["2026-10"]
    assert read_time("failed checks a year ago", [], today).months == ["2025-11"]
    assert read_time("failed logins 6 weeks ago", [], date(2026, 3, 10)).months == ["2026-02"]


def test_an_average_per_kind_of_device_is_one_figure_of_those_devices(demo_warehouse: Path,
                                                                      services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (avg,), = sql(demo_warehouse, f"SELECT ROUND(COUNT(*) FILTER (WHERE r.status = 'fail') * 1.0 / COUNT(DISTINCT "
                                  f"r.asset_id), 1) FROM {FLEET} WHERE r.assessment_id = ? AND a.device_type = "
                                  "'router'", [latest])
    lead = first_line(Chat(services)("mean number of failures per router").final.answer)
    assert lead.startswith(f"**{avg}** failed checks per device on average"), lead


def test_which_are_excepted_after_the_failing_devices_are_the_excepted_ones_of_that_scope(
        demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    excepted = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? "
                                                "AND r.status = 'exception' AND r.rule_id = 'SNMP-ACL'", [latest])}
    assert excepted
    chat = Chat(services)
    chat("which routers fail SNMP-ACL")
    answer = chat("which of them have an exception").final.answer
    assert set(re.findall(r"\b(?:RTR|SW|FW|WLC|NX)-[\w-]+", first_line(answer))) == excepted, answer[:400]


def test_how_many_of_those_after_the_lowest_group_counts_that_groups_devices(demo_warehouse: Path,
                                                                             services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (platform,), = sql(demo_warehouse, f"SELECT a.platform FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 ORDER BY "
                                       f"{PASS}, 1 LIMIT 1", [latest])
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND platform = ?", [platform])
    chat = Chat(services)
    chat("pass rate by platform")
    assert first_line(chat("which one is lowest").final.answer).startswith(f"**{platform}**")
    lead = first_line(chat("how many of those are there").final.answer)
    assert lead.startswith(f"**{n}**"), lead


def test_never_passed_is_failing_in_every_run_read(demo_warehouse: Path, services: Services) -> None:
    """"never passed NTP-AUTH" is failing it in every run on record (it answered the latest run's failures); "in every
    run since september" in each of those runs."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (n,), = sql(demo_warehouse, f"""SELECT COUNT(*) FROM (SELECT r.asset_id FROM {FLEET} WHERE r.status = 'fail' AND
        r.rule_id = 'NTP-AUTH' GROUP BY 1 HAVING COUNT(DISTINCT r.assessment_id) = {len(runs)})""")
    lead = first_line(Chat(services)("how many boxes never passed NTP-AUTH").final.answer)
    assert lead.startswith(f"**{n} devices** failing in all {len(runs)} runs"), lead
    rules = {x for x, in sql(demo_warehouse, f"""SELECT r.rule_id FROM {FLEET} WHERE r.status = 'fail' AND a.site =
        'Branch-02' AND r.assessment_id IN (?, ?, ?) GROUP BY 1 HAVING COUNT(DISTINCT r.assessment_id) = 3""",
                                      runs[1:])}
    answer = Chat(services)("which checks failed at Branch-02 in every run since september").final.answer
    assert set(re.findall(r"(?m)^\| ([A-Z][A-Z0-9-]+) \|", answer)) == rules, answer[:600]
    assert first_line(answer).startswith(f"**{len(rules)} checks** failing in all 3 runs"), answer[:300]


def test_a_site_summary_then_its_high_findings_then_their_devices(demo_warehouse: Path, services: Services) -> None:
    """"what are its high findings" after a site's summary are its failed checks of that severity (it answered the
    SLIC signatures); "which devices have them" the devices failing those checks there."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rules = {x for x, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "r.status = 'fail' AND r.severity = 'high' AND a.site = 'Site-B'", [latest])}
    devices = {x for x, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND r.severity = 'high' AND a.site = 'Site-B'",
                               [latest])}
    chat = Chat(services)
    chat("how is Site-B doing")
    answer = chat("what are its high findings").final.answer
    assert "SLIC" not in first_line(answer) and all(rule in answer for rule in rules), answer[:800]
    lead = first_line(chat("which devices have them").final.answer)
    assert lead.startswith(f"**{len(devices)} devices**"), lead
    assert set(re.findall(r"\b(?:RTR|SW|FW|WLC|NX)-[\w-]+", lead)) == devices, lead


def test_a_ranking_by_one_severity_then_by_another_then_last_month(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]

    def top(run: str) -> set[str]:
        per = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                  "'fail' AND r.severity = 'high' GROUP BY 1 ORDER BY n DESC", [run])
        return {s for s, n in per if n == per[0][1]}
    chat = Chat(services)
    chat("top 3 sites by critical findings")
    lead = first_line(chat("and by high findings?").final.answer)
    assert any(f"**{s}**" in lead for s in top(runs[-1])) and "high" in lead, lead
    lead = first_line(chat("what about last month").final.answer)
    assert any(f"**{s}**" in lead for s in top(runs[-2])) and runs[-2] in lead, lead


def test_the_most_common_value_is_one_row_and_them_is_its_devices(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (release, n), = sql(demo_warehouse, "SELECT os_version, COUNT(*) n FROM assets WHERE collection = 'fleet' "
                                        "GROUP BY 1 ORDER BY n DESC, 1 LIMIT 1")
    (failing,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                      "r.status = 'fail' AND r.severity = 'critical' AND a.os_version = ?",
                      [latest, release])
    chat = Chat(services)
    assert first_line(chat("which is the most common software version").final.answer).startswith(f"**{release}**")
    lead = first_line(chat("how many of them fail something critical").final.answer)
    assert lead.startswith(f"**{failing}**"), lead


def test_now_after_a_figure_of_an_earlier_month_is_the_same_figure_in_the_latest_run(demo_warehouse: Path,
                                                                                      services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'SSH-V2'", [runs[-1]])
    chat = Chat(services)
    chat("how many devices failed SSH-V2 in september")
    state = chat("and how many fail it today")
    assert state.intent.query is not None and state.intent.query.runs == [runs[-1]], state.intent.query
    assert first_line(state.final.answer).startswith(f"**{n}**"), state.final.answer[:300]


def test_rankings_by_score_or_performance_are_by_pass_rate(demo_warehouse: Path, services: Services) -> None:
    """"lowest scoring switch", "top performing sites": ranked by pass rate (the templates ranked by failed checks, the
    most failing first, whatever end was asked)."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT r.asset_id, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? AND a.device_type = "
                              "'switch' GROUP BY 1 ORDER BY p, 1", [latest])
    lead = first_line(Chat(services)("lowest scoring switch").final.answer)
    assert lead.startswith(f"**{per[0][0]}**") and f"{per[0][1]}%" in lead, lead
    sites = sql(demo_warehouse, f"SELECT a.site, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 ORDER BY "
                                "p DESC, 1", [latest])
    lead = first_line(Chat(services)("top performing sites").final.answer)
    assert lead.startswith(f"**{sites[0][0]}**") and f"{sites[0][1]}%" in lead, lead


def test_devices_assessed_in_a_month_are_those_its_run_judged(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ?", [runs[0]])
    lead = first_line(Chat(services)("how many boxes did we assess in august").final.answer)
    assert lead.startswith(f"**{n}** devices assessed"), lead


def test_for_both_after_two_answers_about_two_devices_is_each_ones_figure(demo_warehouse: Path,
                                                                          services: Services) -> None:
    per = dict(sql(demo_warehouse, "SELECT asset_id, COUNT(*) FROM events WHERE mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' "
                                   "AND asset_id IN ('FW-ST48-1', 'FW-ST52-1') AND ts >= TIMESTAMP '2026-08-01' AND ts < "
                                   "TIMESTAMP '2026-09-01' GROUP BY 1"))
    chat = Chat(services)
    chat("failed logins on FW-ST48-1 in october")
    chat("and FW-ST52-1?")
    answer = chat("and in august for both").final.answer
    for device, n in per.items():
        assert f"**{device}** {n}" in first_line(answer), (per, answer[:300])


def test_compared_with_the_other_places_of_its_kind_is_their_figure(demo_warehouse: Path,
                                                                    services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (rate,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'branch' "
                                   "AND a.site <> 'Branch-06'", [latest])
    chat = Chat(services)
    chat("whats the pass rate at Branch-06")
    lead = first_line(chat("how does that compare with the other branches").final.answer)
    assert lead.startswith(f"**{rate}%**") and "Branch-06" in lead, lead


def test_at_least_is_a_bound_not_the_lowest(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM (SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND a.device_type = 'switch' GROUP BY 1 HAVING COUNT(*) >= 12)",
                [latest])
    lead = first_line(Chat(services)("how many switches fail at least 12 checks").final.answer)
    assert lead.startswith(f"**{n} devices** with at least 12 failed checks"), lead


def test_whats_failing_somewhere_leads_with_how_much_and_the_widest_check(demo_warehouse: Path,
                                                                          services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND "
                                "a.site = 'DataCenter-1'", [latest])
    per = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(DISTINCT r.asset_id) d FROM {FLEET} WHERE r.assessment_id = ? "
                              "AND r.status = 'fail' AND a.site = 'DataCenter-1' GROUP BY 1 ORDER BY d DESC", [latest])
    lead = first_line(Chat(services)("what is failing at DataCenter-1").final.answer)
    widest = {rule for rule, d in per if d == per[0][1]}
    named = set(re.findall(r"\*\*([A-Z][A-Z0-9-]+)\*\*", lead))
    assert lead.startswith(f"**{n}** failed checks") and named and named <= widest, (widest, lead)


def test_which_is_the_most_common_after_a_list_of_values_is_the_one_with_most_devices(demo_warehouse: Path,
                                                                                     services: Services) -> None:
    per = sql(demo_warehouse, "SELECT model, COUNT(*) n FROM assets WHERE collection = 'fleet' AND device_type = "
                              "'firewall' GROUP BY 1 ORDER BY n DESC")
    chat = Chat(services)
    chat("how many firewalls do we have")
    chat("which models")
    lead = first_line(chat("which one is the most common").final.answer)
    assert lead.startswith(f"**{per[0][0]}**") and str(per[0][1]) in lead, lead


def test_the_exception_that_expires_first_alone_or_after_a_list(demo_warehouse: Path, services: Services) -> None:
    rows = sql(demo_warehouse, "SELECT exception_id, expires_on FROM exceptions ORDER BY expires_on, exception_id")
    lead = first_line(Chat(services)("which waiver runs out first").final.answer)
    assert lead.startswith(f"**{rows[0][0]}** expires first, on **{rows[0][1]}**"), lead
    here = sql(demo_warehouse, "SELECT exception_id, expires_on FROM exceptions WHERE sites LIKE '%DataCenter-2%' "
                               "ORDER BY expires_on, exception_id")
    chat = Chat(services)
    chat("exceptions at DataCenter-2")
    lead = first_line(chat("which one expires first").final.answer)
    assert here[0][0] in lead and str(here[0][1]) in lead and "Do you want" not in lead, (here, lead)


def test_their_value_and_whether_they_pass_after_a_list_of_devices(demo_warehouse: Path, services: Services) -> None:
    """"what's their software" after a list is each listed device's release (it was out of scope); "are they
    compliant" is No with those failing, by SQL (it said Yes and listed them)."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rows = sql(demo_warehouse, "SELECT asset_id, os_version FROM assets WHERE collection = 'fleet' AND role = 'core' "
                               "AND site = 'DataCenter-2'")
    failing = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                  "r.status = 'fail' AND a.role = 'core' AND a.site = 'DataCenter-2' GROUP BY 1",
                  [latest])
    chat = Chat(services)
    chat("list the core routers at DataCenter-2")
    answer = chat("what's their software").final.answer
    assert all(f"**{d}**: release **{v}**" in answer for d, v in rows), answer[:400]
    lead = first_line(chat("are they compliant").final.answer)
    assert lead.startswith("**No**" if failing else "**Yes**"), lead
    assert all(f"{d} ({n})" in lead for d, n in failing), (failing, lead)


def test_findings_that_are_new_since_a_run_are_the_comparisons_new_ones(demo_warehouse: Path,
                                                                         services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (n,), = sql(demo_warehouse, f"""SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND
        (r.asset_id, r.rule_id) NOT IN (SELECT (asset_id, rule_id) FROM results WHERE assessment_id = ? AND
        status = 'fail')""", [runs[-1], runs[-2]])
    lead = first_line(Chat(services)("how many issues are new since the previous run").final.answer)
    assert lead.startswith(f"**{n} new failed checks**"), lead


def test_which_checks_fail_at_both_after_two_places_side_by_side(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    both = {x for x, in sql(demo_warehouse, f"""SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND
        r.status = 'fail' AND a.site IN ('Branch-03', 'Branch-06') GROUP BY 1 HAVING COUNT(DISTINCT a.site) = 2""",
                                    [latest])}
    chat = Chat(services)
    chat("summarize Branch-03")
    chat("compare with Branch-06")
    answer = chat("what fails at both").final.answer
    assert first_line(answer).startswith(f"**{len(both)} checks** failing at both sites"), answer[:300]
    assert all(re.search(rf"(?<![\w-]){re.escape(rule)}(?![\w-])", answer) for rule in both), answer[:800]


def test_same_but_another_time_and_a_count_as_a_percentage(demo_warehouse: Path, services: Services) -> None:
    """"same but for last month" is the last question in the run before (it was asked back); "as a percentage" after
    a count of devices failing a check is their share of those judged on it."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]

    def failing(run: str) -> tuple[int, int]:
        (n, judged), = sql(demo_warehouse, f"""SELECT COUNT(DISTINCT CASE WHEN r.status = 'fail' THEN r.asset_id END),
            COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND r.rule_id = 'NTP-AUTH' AND
            a.device_type = 'router'""", [run])
        return n, judged
    chat = Chat(services)
    chat("how many routers fail NTP-AUTH")
    n, judged = failing(runs[-1])
    lead = first_line(chat("as a percentage").final.answer)
    assert lead.startswith(f"**{round(100 * n / judged, 1)}%**") and f"{n} of {judged}" in lead, lead
    before, _ = failing(runs[-2])
    state = chat("same but for last month")
    assert runs[-2] in state.final.answer and f"{before}" in first_line(state.final.answer), state.final.answer[:300]


def test_a_share_of_devices_in_an_earlier_month_is_that_runs(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (n, judged), = sql(demo_warehouse, f"""SELECT COUNT(DISTINCT CASE WHEN r.status = 'fail' THEN r.asset_id END),
        COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND r.rule_id = 'SSH-V2' AND
        a.device_type = 'switch'""", [runs[1]])
    lead = first_line(Chat(services)("what percent of switches failed SSH-V2 in september").final.answer)
    assert lead.startswith(f"**{round(100 * n / judged, 1)}%**") and runs[1] in lead, lead


def test_a_series_with_none_in_any_month_says_none_first(demo_warehouse: Path, services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM events e JOIN assets a ON a.asset_id = e.asset_id WHERE "
                                "a.role = 'spine' AND e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED'")
    lead = first_line(Chat(services)("failed logins on the spine switches month by month").final.answer)
    assert lead.startswith("**None**: no failed logins in any month") if n == 0 else lead.startswith("From "), lead


def test_there_after_a_list_of_places_is_those_places(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("list the sites in us-west")
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets a JOIN sites s ON s.site = a.site WHERE "
                                "a.collection = 'fleet' AND s.region = 'us-west' AND a.device_type = 'switch'")
    lead = first_line(chat("and how many switches there").final.answer)
    assert lead.startswith(f"**{n}"), lead
    chat = Chat(services)
    chat("which sites have no firewall")  # the places listed, by name: no condition of its own says where they are
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND site NOT IN (SELECT site "
                                "FROM assets WHERE collection = 'fleet' AND device_type = 'firewall')")
    lead = first_line(chat("how many devices there").final.answer)
    assert lead.startswith(f"**{n} devices**"), lead


def test_a_check_picked_from_a_ranking_in_one_place_is_asked_there(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (rule,), = sql(demo_warehouse, f"SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND "
                                   "a.site = 'Site-B' GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 1", [latest])
    devices = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND a.site = 'Site-B' AND r.rule_id = ?",
                               [latest, rule])}
    elsewhere = {d for d, in sql(demo_warehouse, "SELECT asset_id FROM assets WHERE collection = 'fleet' AND "
                                                 "site <> 'Site-B'")}
    chat = Chat(services)
    assert first_line(chat("most failed check at Site-B").final.answer).startswith(f"**{rule}**")
    state = chat("what devices fail it")
    assert "Site-B" in state.conversation.effective_prompt, state.conversation.effective_prompt
    named = set(re.findall(r"\b(?:RTR|SW|FW|NX|WLC)-[\w-]+", state.final.answer))
    assert devices <= named and not named & elsewhere, named
    # a place of its own is kept: "at the stores" is not Site-B
    chat("most failed check at Site-B")
    assert "Site-B" not in chat("how many stores fail it").conversation.effective_prompt


def test_which_one_has_more_of_two_places_side_by_side(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = dict(sql(demo_warehouse, f"SELECT a.site, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                   "'fail' AND r.severity = 'high' AND a.site IN ('Site-A', 'Site-B') GROUP BY 1",
                   [latest]))
    chat = Chat(services)
    chat("pass rate at Site-A")
    chat("and Site-B?")
    lead = first_line(chat("which one has fewer high findings").final.answer)
    fewest = min(per.get(s, 0) for s in ("Site-A", "Site-B"))
    assert lead.startswith("**" + min(("Site-A", "Site-B"), key=lambda s: (per.get(s, 0), s))), (per, lead)
    assert str(fewest) in lead, lead


def test_short_question_words_typed_fast_are_read() -> None:
    from orchestration.nlu.spelling import expand_shorthand

    assert expand_shorthand("wich routers fail AAA-NEW-MODEL") == "which routers fail AAA-NEW-MODEL"
    assert expand_shorthand("hw many stores") == "how many stores"
    assert expand_shorthand("hw version of FW-HQ-1") == "hw version of FW-HQ-1"  # hardware, not how


def test_devices_that_logged_an_event_are_counted_and_named(demo_warehouse: Path, services: Services) -> None:
    devices = {d for d, in sql(demo_warehouse, "SELECT DISTINCT e.asset_id FROM events e JOIN assets a ON a.asset_id = "
                                               "e.asset_id AND a.collection = 'fleet' WHERE a.site = 'Branch-09' AND "
                                               "e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' AND "
                                               "strftime(e.ts, '%Y-%m') = '2026-09'")}
    state = Chat(services)("how many boxes at Branch-09 logged a failed login in september")
    lead = first_line(state.final.answer)
    assert lead.startswith(f"**{len(devices)} device"), lead
    assert devices <= set(re.findall(r"\b(?:RTR|SW|FW|NX|WLC)-[\w-]+", state.final.answer)), state.final.answer[:400]


def test_their_figure_after_a_list_of_sites_is_each_ones(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    listed = {s for s, in sql(demo_warehouse, f"SELECT a.site FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                              "'fail' AND s.site_type = 'branch' GROUP BY 1 HAVING COUNT(*) > 10",
                              [runs[-1]])}
    before = dict(sql(demo_warehouse, f"SELECT a.site, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) "
                                      f"/ COUNT(*), 1) FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1", [runs[1]]))
    chat = Chat(services)
    chat("branches with more than 10 failed checks")
    answer = chat("and their pass rate in september?").final.answer
    for site in listed:
        assert re.search(rf"{site}\W{{1,8}}{before[site]}%", answer), (site, before[site], answer[:600])
    pooled = chat("their overall pass rate").final.answer
    assert first_line(pooled).startswith("**") and "%" in first_line(pooled) and "|" not in pooled.split("\n\n")[1]


def test_which_has_more_devices_failing_of_two_places_compared(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = dict(sql(demo_warehouse, f"SELECT a.site, COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? "
                                   "AND r.status = 'fail' AND r.severity = 'high' AND a.site IN ('Branch-01', "
                                   "'Branch-02') GROUP BY 1", [latest]))
    chat = Chat(services)
    chat("compare Branch-01 with Branch-02")
    lead = first_line(chat("which one has more devices failing a high check").final.answer)
    top = max(("Branch-01", "Branch-02"), key=lambda s: per.get(s, 0))
    if per.get("Branch-01", 0) != per.get("Branch-02", 0):
        assert lead.startswith(f"**{top}**") and str(per[top]) in lead, (per, lead)
    else:
        assert "Branch-01" in lead and "Branch-02" in lead, (per, lead)


def test_a_phrase_measure_is_read_in_the_singular(services: Services) -> None:
    from orchestration.nlu.query_reader import measure_words

    model = services.catalog.semantic_model
    assert measure_words("devices with a config change", model) == ["config_changes"]
    assert measure_words("the most failed check", model) == ["failed_checks"]
    assert "devices" not in measure_words("the device with the most failed logins", model)


def test_when_was_it_lowest_after_a_figure_over_runs_is_that_run(demo_warehouse: Path, services: Services) -> None:
    per_run = dict(sql(demo_warehouse, f"SELECT r.assessment_id, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 "
                                       f"ELSE 0 END) / COUNT(*), 1) FROM {FLEET} WHERE a.device_type = 'switch' "
                                       "GROUP BY 1"))
    chat = Chat(services)
    chat("switch pass rate over time")
    lead = first_line(chat("when did it peak").final.answer)
    best = max(per_run.items(), key=lambda kv: kv[1])
    assert lead.startswith(f"**{best[0]}**") and f"{best[1]}%" in lead, (per_run, lead)


def test_which_one_after_a_count_of_devices_ranks_those_devices(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                 "'fail' AND r.asset_id IN (SELECT asset_id FROM results WHERE assessment_id = ? AND "
                                 "status = 'fail' AND rule_id = 'SNMP-RW') GROUP BY 1 ORDER BY 2 DESC", [latest, latest])
    chat = Chat(services)
    chat("how many devices fail SNMP-RW")
    lead = first_line(chat("which one fails the most checks").final.answer)
    top = [d for d, n in ranked if n == ranked[0][1]]
    assert any(lead.startswith(f"**{d}**") for d in top) and str(ranked[0][1]) in lead, (ranked[:3], lead)


def test_leaving_out_a_kind_of_device_leaves_out_only_those(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND "
                                "a.role <> 'wan'", [latest])
    chat = Chat(services)
    chat("failed checks per device type")
    state = chat("now without the wan routers")
    assert first_line(state.final.answer).startswith(f"**{n:,}**"), state.final.answer[:300]


def test_how_many_places_have_a_rate_bound_counts_those_places(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    under = {s for s, in sql(demo_warehouse, f"SELECT a.site FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = "
                                             "'branch' GROUP BY 1 HAVING 100.0 * SUM(CASE WHEN r.status = 'pass' THEN "
                                             "1 ELSE 0 END) / COUNT(*) < 80", [latest])}
    chat = Chat(services)
    lead = first_line(chat("how many branches are below 80% pass rate").final.answer)
    assert lead.startswith(f"**{len(under)} site"), lead
    answer = chat("which ones?").final.answer
    assert all(site in answer for site in under), (under, answer[:400])


def test_a_grouped_figure_last_month_is_that_runs_not_a_change(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per = dict(sql(demo_warehouse, f"SELECT a.device_type, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                   "r.status = 'fail' AND r.severity = 'high' GROUP BY 1", [runs[-2]]))
    state = Chat(services)("high fails per device type last month")
    assert state.intent.query is not None and state.intent.query.runs == [runs[-2]], state.intent.query
    assert all(re.search(rf"{t.replace('_', ' ')}\W{{1,6}}{n}\b", state.final.answer) for t, n in per.items()), \
        (per, state.final.answer[:400])


def test_which_of_those_after_a_summary_are_its_failed_checks(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rules = {r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "r.status = 'fail' AND r.severity = 'high' AND a.site = 'Branch-02'",
                              [latest])}
    chat = Chat(services)
    chat("how is Branch-02 doing")
    state = chat("which of these are high")
    named = set(re.findall(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b", state.final.answer))
    assert rules and rules <= named, (rules, state.final.answer[:400])


def test_a_check_with_no_exception_is_said_no(demo_warehouse: Path, services: Services) -> None:
    excepted = {r for r, in sql(demo_warehouse, "SELECT rule_id FROM exceptions")}
    assert "SNMP-RW" not in excepted
    lead = first_line(Chat(services)("is SNMP-RW excepted anywhere").final.answer)
    assert lead.startswith("**No**") and "SNMP-RW" in lead, lead


def test_fixed_after_new_since_a_month_is_between_the_same_runs(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (fixed,), = sql(demo_warehouse, "SELECT COUNT(*) FROM results o JOIN assets a ON a.asset_id = o.asset_id AND "
                                    "a.collection = 'fleet' WHERE o.assessment_id = ? AND o.status = 'fail' AND "
                                    "(o.asset_id, o.rule_id) IN (SELECT (asset_id, rule_id) FROM results WHERE "
                                    "assessment_id = ? AND status = 'pass')", [runs[0], runs[-1]])
    chat = Chat(services)
    chat("new failures since august?")
    lead = first_line(chat("and how many were resolved").final.answer)
    assert f"{fixed:,}" in lead and runs[0] in lead, (fixed, lead)


def test_which_device_logs_the_most_after_events_per_month(demo_warehouse: Path, services: Services) -> None:
    per = sql(demo_warehouse, "SELECT e.asset_id, COUNT(*) n FROM events e JOIN assets a ON a.asset_id = e.asset_id "
                              "AND a.collection = 'fleet' WHERE a.site = 'Site-A' AND e.mnemonic = 'SYS-5-CONFIG_I' "
                              "GROUP BY 1 ORDER BY 2 DESC")
    top = [d for d, n in per if n == per[0][1]]
    chat = Chat(services)
    chat("config changes at Site-A month by month")
    lead = first_line(chat("which box logged the most").final.answer)
    assert any(lead.startswith(f"**{d}**") for d in top) and str(per[0][1]) in lead, (per[:3], lead)
    grouped = first_line(Chat(services)("config changes by region").final.answer)
    assert grouped.startswith("**") and "region" in grouped, grouped


def test_a_region_summarized_then_better_or_worse_between_its_runs(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rate = {run: sql(demo_warehouse, f"SELECT ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / "
                                     f"COUNT(*), 1) FROM {FLEET} WHERE r.assessment_id = ? AND s.region = 'us-east'",
                     [run])[0][0] for run in (runs[0], runs[-1])}
    chat = Chat(services)
    assert f"{rate[runs[0]]}%" in first_line(chat("how did us-east do in august").final.answer)
    assert f"{rate[runs[-1]]}%" in first_line(chat("and in november?").final.answer)
    lead = first_line(chat("did it get better").final.answer)
    # put as a yes/no, it is answered Yes or No first, then which way it went
    word = "Yes** — better" if rate[runs[-1]] > rate[runs[0]] else "No** — worse" if rate[runs[-1]] < rate[
        runs[0]] else "No** — no change"
    assert lead.startswith(f"**{word}"), (rate, lead)


def test_the_findings_of_a_device_list_are_its_failed_checks(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rules = {r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "r.status = 'fail' AND r.severity = 'high' AND a.site = 'Branch-05' AND "
                                             "a.device_type = 'router'", [latest])}
    chat = Chat(services)
    chat("list routers with high findings at Branch-05")
    answer = chat("what are their issues").final.answer
    named = set(re.findall(r"\b[A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+\b", answer))
    assert rules and rules <= named and not {r for r in named if r.startswith("SLIC")}, (rules, answer[:400])


def test_a_place_named_after_a_ranking_of_places_by_a_check_keeps_the_check(demo_warehouse: Path,
                                                                            services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    failing = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND r.rule_id = 'SSH-V2' AND a.site = 'HQ'", [latest])}
    chat = Chat(services)
    chat("which sites fail SSH-V2 the most")
    answer = chat("which devices at HQ").final.answer
    named = set(re.findall(r"\b(?:RTR|SW|FW|NX|WLC)-[\w-]+", answer))
    assert failing and named == failing, (failing, answer[:400])


def test_a_count_of_a_kind_after_a_ranking_is_its_own_question(demo_warehouse: Path, services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets a JOIN sites s ON s.site = a.site WHERE a.collection = "
                                "'fleet' AND a.device_type = 'switch' AND s.site_type = 'branch'")
    chat = Chat(services)
    chat("which branches have the most critical findings")
    lead = first_line(chat("how many switches at the branches").final.answer)
    assert lead.startswith(f"**{n} switch"), lead


def test_it_after_a_value_ranked_first_is_that_value(demo_warehouse: Path, services: Services) -> None:
    (platform, n), = sql(demo_warehouse, "SELECT platform, COUNT(*) FROM assets WHERE collection = 'fleet' GROUP BY 1 "
                                         "ORDER BY 2 DESC, 1 LIMIT 1")
    (sites,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT site) FROM assets WHERE collection = 'fleet' AND "
                                    "platform = ?", [platform])
    chat = Chat(services)
    assert first_line(chat("which platform do we have the most of").final.answer).startswith(f"**{platform}**")
    lead = first_line(chat("how many sites have it").final.answer)
    assert lead.startswith(f"**{sites}**"), (platform, sites, lead)


def test_a_product_family_named_is_a_condition_read_from_the_inventory(demo_warehouse: Path,
                                                                      services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (family,), = sql(demo_warehouse, "SELECT product_family FROM assets WHERE collection = 'fleet' GROUP BY 1 "
                                     "ORDER BY COUNT(*) DESC, 1 LIMIT 1")
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND a.product_family = ? AND r.severity = 'high'", [latest, family])
    state = Chat(services)(f"count of {family.lower()} boxes with a failed high severity check")
    query = state.intent.query
    assert query is not None and query.condition("product_family") is not None, state.intent.asked_query
    assert query.condition("product_family").values == [family]
    assert first_line(state.final.answer).startswith(f"**{n}**"), state.final.answer[:300]


def test_which_device_with_a_superlative_ranks_devices_not_the_scope(demo_warehouse: Path,
                                                                    services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = sql(demo_warehouse, f"SELECT r.asset_id, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) "
                                f"/ COUNT(*), 1) p FROM {FLEET} WHERE r.assessment_id = ? AND a.criticality = 'critical' "
                                "GROUP BY 1", [latest])
    best = max(p for _, p in rates)
    top = {d for d, p in rates if p == best}
    answer = Chat(services)("what mission critical device has the highest compliance").final.answer
    lead = first_line(answer)
    assert any(d in lead for d in top), (top, lead)


def test_which_kind_there_after_the_place_ranked_first_ranks_that_kind_there(demo_warehouse: Path,
                                                                            services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per_region = sql(demo_warehouse, f"SELECT s.region, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                     "r.status = 'fail' AND r.severity = 'high' GROUP BY 1 ORDER BY n DESC, 1", [latest])
    region = per_region[0][0]
    per_site = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                   "r.status = 'fail' AND r.severity = 'high' AND s.region = ? AND s.site_type = 'store' "
                                   "GROUP BY 1", [latest, region])
    most = max(n for _, n in per_site)
    chat = Chat(services)
    chat("which region has the most high findings")
    state = chat("ok which store there")
    query = state.intent.query
    assert query is not None and query.group_by == ["site"] and query.condition("region") is not None, query
    assert query.condition("severity") is not None and query.order is not None
    lead = first_line(state.final.answer)
    assert any(s in lead for s, n in per_site if n == most) and str(most) in lead, lead


def test_its_sites_after_the_region_ranked_first_are_that_regions(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (region,), = sql(demo_warehouse, f"SELECT s.region FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' "
                                     "GROUP BY 1 ORDER BY COUNT(*) DESC, 1 LIMIT 1", [latest])
    sites = {s for s, in sql(demo_warehouse, "SELECT site FROM sites WHERE region = ? AND site IN "
                                             "(SELECT site FROM assets WHERE collection = 'fleet')", [region])}
    chat = Chat(services)
    chat("region with the most failed checks?")
    answer = chat("show its sites").final.answer
    assert all(re.search(rf"(?<![\w-]){s}(?![\w-])", answer) for s in sites), (sites, answer[:400])


def test_which_of_a_listed_kind_has_the_most_leads_with_that_one(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' AND a.site = 'DataCenter-1' AND a.device_type = 'router' GROUP BY 1 "
                              "ORDER BY n DESC", [latest])
    chat = Chat(services)
    chat("list the routers at DataCenter-1")
    lead = first_line(chat("which of those has the most failed checks").final.answer)
    assert lead.startswith(f"**{per[0][0]}**") and str(per[0][1]) in lead, (per, lead)


def test_a_severity_named_with_a_count_of_checks_is_a_filter_not_a_breakdown(demo_warehouse: Path,
                                                                            services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, FAILS + " AND a.device_type = 'router' AND r.severity = 'high'", [latest])
    lead = first_line(Chat(services)("how many failed checks on routers with high severity").final.answer)
    assert lead.startswith(f"**{n}** failed checks"), (n, lead)


def test_the_pci_scope_of_sites_is_a_population_not_the_experts_pci_view(demo_warehouse: Path,
                                                                         services: Services) -> None:
    """"pci stores", "non pci", "outside pci scope" are the sites' ``pci_scope``; what findings mean *for* PCI stays
    the SLIC expert's reading."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.severity = 'high' AND NOT s.pci_scope", [latest])
    lead = first_line(Chat(services)("how many devices outside pci scope have high failures").final.answer)
    assert lead.startswith(f"**{n}**") and "not in PCI scope" in lead, (n, lead)
    per = dict(sql(demo_warehouse, f"SELECT s.pci_scope, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                   "r.status = 'fail' AND r.severity = 'critical' GROUP BY 1", [latest]))
    answer = Chat(services)("critical failures pci sites versus non-pci").final.answer
    assert re.search(rf"in PCI scope\D{{0,12}}\b{per[True]}\b", answer) and \
        re.search(rf"not in PCI scope\D{{0,12}}\b{per[False]}\b", answer), (per, answer[:400])
    meant = Chat(services)("what is the pci impact of our findings")
    assert meant.intent.domain_details.skill == "sec_expert_insights", meant.intent.domain_details


def test_an_average_per_place_is_the_places_failures_averaged(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (avg,), = sql(demo_warehouse, f"SELECT ROUND(1.0 * COUNT(*) FILTER (WHERE r.status = 'fail') / COUNT(DISTINCT a.site), 1) "
                                  f"FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'branch'", [runs[-2]])
    state = Chat(services)("on average how many failures does each branch have in october")
    assert state.intent.query is not None and state.intent.query.measures == ["failed_checks_per_site"], state.intent.query
    assert first_line(state.final.answer).startswith(f"**{avg}**"), (avg, state.final.answer[:300])


def test_events_of_a_kind_named_are_the_logs_not_the_signature_matching_them(demo_warehouse: Path,
                                                                            services: Services) -> None:
    per = dict(sql(demo_warehouse, "SELECT a.site, COUNT(*) FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                                   "a.collection = 'fleet' WHERE e.mnemonic = 'PLATFORM_ENV-1-PWR' GROUP BY 1"))
    state = Chat(services)("psu alarms by site")
    assert state.intent.query is not None and state.intent.query.condition("signature") is None, state.intent.query
    assert f"**{sum(per.values())}**" in first_line(state.final.answer), (per, state.final.answer[:300])
    matched = Chat(services)("which devices does the power supply signature match")
    assert matched.intent.query is not None and matched.intent.query.condition("signature") is not None


def test_but_pass_a_check_is_judged_and_passed_not_merely_not_failed(demo_warehouse: Path,
                                                                     services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = f"""SELECT COUNT(*) FROM (SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 HAVING
        COUNT(*) FILTER (WHERE r.rule_id = 'AAA-ACCOUNTING' AND r.status = 'fail') > 0 AND
        COUNT(*) FILTER (WHERE r.rule_id = 'NTP-AUTH' AND r.status {{}}) {{}})"""
    (passing,), = sql(demo_warehouse, per.format("= 'pass'", "> 0"), [latest])
    (not_failing,), = sql(demo_warehouse, per.format("= 'fail'", "= 0"), [latest])
    assert passing != not_failing  # the difference is the devices NTP-AUTH does not apply to
    lead = first_line(Chat(services)("number of devices failing AAA-ACCOUNTING that pass NTP-AUTH").final.answer)
    assert lead.startswith(f"**{passing}**"), (passing, not_failing, lead)


def test_devices_that_do_not_fail_anything_are_counted_and_named(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    clean = {d for d, in sql(demo_warehouse, f"SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "a.platform = 'nx-os' GROUP BY 1 HAVING COUNT(*) FILTER (WHERE "
                                             "r.status = 'fail') = 0", [latest])}
    lead = first_line(Chat(services)("how many nexus boxes never fail a check").final.answer)
    assert lead.startswith(f"**{len(clean)} device"), (clean, lead)


def test_their_figure_after_a_short_list_of_devices_is_each_ones(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rate = "ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1)"
    per = sql(demo_warehouse, f"SELECT r.asset_id, {rate} FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "a.site = 'DataCenter-2' AND a.device_type = 'router' GROUP BY 1", [latest])
    chat = Chat(services)
    chat("show the routers at DataCenter-2")
    answer = chat("and their compliance?").final.answer
    assert len(per) > 1 and all(re.search(rf"{d}\D{{0,12}}\b{p}%", answer) for d, p in per), (per, answer[:400])
    (pooled,), = sql(demo_warehouse, f"SELECT {rate} FROM {FLEET} WHERE r.assessment_id = ? AND "
                                     "a.site = 'DataCenter-2' AND a.device_type = 'router'", [latest])
    lead = first_line(chat("their overall compliance").final.answer)
    assert lead.startswith(f"**{pooled}%**"), (pooled, lead)


def test_how_many_of_a_kind_fail_a_check_counts_the_devices(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n, checks), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id), COUNT(*) FROM {FLEET} WHERE "
                                       "r.assessment_id = ? AND r.status = 'fail' AND a.product_family = 'Catalyst 9300' "
                                       "AND r.rule_id IN (SELECT rule_id FROM rules WHERE technology = 'snmp')", [latest])
    lead = first_line(Chat(services)("how many catalyst 9300s fail the snmp checks").final.answer)
    assert lead.startswith(f"**{n}** of the") and "devices" in lead, (n, checks, lead)


def test_which_device_there_after_places_ranked_is_the_one_of_them_with_the_most(demo_warehouse: Path,
                                                                                 services: Services) -> None:
    month = "2026-10"
    logged = ("FROM events e JOIN assets a ON a.asset_id = e.asset_id AND a.collection = 'fleet' WHERE e.mnemonic = "
              "'SYS-5-CONFIG_I' AND strftime(e.ts, '%Y-%m') = ?")
    # the two places ranked first, and those tied with the second (a limit keeps the rows tied at its cut)
    top = [s for s, in sql(demo_warehouse, f"SELECT site FROM (SELECT a.site, RANK() OVER (ORDER BY COUNT(*) DESC) k "
                                           f"{logged} GROUP BY 1) WHERE k <= 2", [month])]
    per = sql(demo_warehouse, f"SELECT e.asset_id, COUNT(*) n {logged} AND a.site IN ({', '.join('?' * len(top))}) "
                              "GROUP BY 1 ORDER BY n DESC", [month, *top])
    chat = Chat(services)
    chat("top 2 sites by config changes in october")
    lead = first_line(chat("so which device there").final.answer)
    most = [d for d, n in per if n == per[0][1]]
    assert all(f"**{d}**" in lead for d in most) and str(per[0][1]) in lead, (top, per[:3], lead)


def test_a_series_of_months_says_which_months_the_log_covers_in_part(demo_warehouse: Path, services: Services) -> None:
    """"970 → 26" is no fall when the log ends on the second day of the last month: the answer says so."""
    (first, last), = sql(demo_warehouse, "SELECT CAST(MIN(ts) AS DATE), CAST(MAX(ts) AS DATE) FROM events")
    lead = first_line(Chat(services)("how many config changes per month").final.answer)
    assert f"up to {last}" in lead and "partial" in lead, (first, last, lead)
    assert (f"from {first}" in lead) == (first.day != 1), lead


def test_events_the_log_holds_are_no_live_state(demo_warehouse: Path, services: Services) -> None:
    """"interface flaps" are the log's LINK-3-UPDOWN events, counted; the CPU load of a device is live state."""
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                                "a.collection = 'fleet' WHERE e.mnemonic = 'LINK-3-UPDOWN'")
    lead = first_line(Chat(services)("interface flaps by site type").final.answer)
    assert lead.startswith(f"**{n:,}**"), (n, lead)
    live = Chat(services)("current cpu load on RTR-HQ-EDGE-1")
    assert live.intent.frame.cannot == "live_state", live.intent.frame


def test_a_value_said_before_the_dimension_filters_its_rows(demo_warehouse: Path, services: Services) -> None:
    """"which nx-os release …": the releases of NX-OS devices ranked, not the sites of them."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rate = "ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1)"
    per = sql(demo_warehouse, f"SELECT a.os_version, {rate} p FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "a.platform = 'nx-os' GROUP BY 1 ORDER BY p", [latest])
    lead = first_line(Chat(services)("which nx-os release has the lowest pass rate?").final.answer)
    lowest = [v for v, p in per if p == per[0][1]]
    assert all(f"**{v}**" in lead for v in lowest) and f"{per[0][1]}%" in lead, (per, lead)


def test_groups_compared_across_runs_without_a_figure_named_are_compared_by_their_rate(
        demo_warehouse: Path, services: Services) -> None:
    """A site type with more devices gains failed checks as it grows: "got worse the most" compares pass rates."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rate = "ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1)"
    per = sql(demo_warehouse, f"WITH o AS (SELECT s.site_type k, {rate} p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1), "
                              f"n AS (SELECT s.site_type k, {rate} p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1) SELECT k, "
                              "ROUND(n.p - o.p, 1) d FROM n JOIN o USING (k) ORDER BY d", [runs[1], runs[-1]])
    lead = first_line(Chat(services)("which kind of site got worse the most since september").final.answer)
    worst = [k for k, d in per if d == per[0][1]]
    assert per[0][1] < 0 and any(f"**{k}**" in lead for k in worst) and "pass rate" in lead, (per, lead)


def test_a_follow_up_naming_its_own_figure_and_grouping_is_a_question_of_its_own(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    """The words an edit accounts for may overlap ("failed checks" and "failed"): the rest ("by region") still
    counts, so the follow-up is not taken for a re-timing of the last grouping."""
    chat = Chat(services)
    chat("which site type improved the most since september")
    lead = first_line(chat("failed checks by region since august").final.answer)
    assert "per region" in lead and "site type" not in lead, lead


def test_which_device_there_after_every_place_shown_is_the_one_at_the_place_shown_first(
        demo_warehouse: Path, services: Services) -> None:
    logged = ("FROM events e JOIN assets a ON a.asset_id = e.asset_id AND a.collection = 'fleet' WHERE e.mnemonic = "
              "'SYS-5-CONFIG_I' AND strftime(e.ts, '%Y-%m') = '2026-09'")
    (site, _), = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n {logged} GROUP BY 1 ORDER BY n DESC LIMIT 1")
    per = sql(demo_warehouse, f"SELECT e.asset_id, COUNT(*) n {logged} AND a.site = ? GROUP BY 1 ORDER BY n DESC",
              [site])
    chat = Chat(services)
    chat("config changes in september per site")
    lead = first_line(chat("ok which device there had the most").final.answer)
    most = [d for d, n in per if n == per[0][1]]
    assert any(f"**{d}**" in lead for d in most) and site in lead, (site, per[:3], lead)


def test_the_top_one_of_a_device_list_sorted_by_a_figure_is_its_first_device(
        demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' AND a.device_type = 'wireless_controller' GROUP BY 1 ORDER BY n DESC",
              [latest])
    assert per[0][1] > per[1][1], per  # one device first
    rules = [r for r, in sql(demo_warehouse, f"SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "r.status = 'fail' AND r.asset_id = ?", [latest, per[0][0]])]
    chat = Chat(services)
    chat("show me the wireless controllers")
    chat("order them by failed checks")
    answer = chat("which checks does the top one fail?").final.answer
    assert answer.lstrip("*").startswith(per[0][0]) or per[0][0] in first_line(answer), answer[:300]
    assert all(r in answer for r in rules), (rules, answer[:600])


def test_and_their_figure_after_a_count_of_devices_is_that_figure_of_them(demo_warehouse: Path,
                                                                          services: Services) -> None:
    """"and their failed checks" read alone is no question (no class): carried over, it is still its own figure of
    the place counted, never the count asked again."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND "
                                "a.site = 'Branch-04'", [latest])
    chat = Chat(services)
    chat("how many devices in Branch-04")
    lead = first_line(chat("and their failed checks").final.answer)
    assert lead.startswith(f"**{n}** failed checks") and "Branch-04" in lead, (n, lead)


def test_devices_listed_by_their_slic_matches_say_each_ones_count(demo_warehouse: Path, services: Services) -> None:
    """Devices with SLIC matches are those the matches name, each with its count — not the inventory's devices."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, "SELECT x.asset_id, COUNT(*) FROM slic_results x JOIN assets a ON a.asset_id = x.asset_id "
                              "AND a.collection = 'fleet' WHERE x.assessment_id = ? AND a.site = 'Store-50' GROUP BY 1",
              [latest])
    assert len({n for _, n in per}) > 1, per  # counts that differ: each is said
    lead = first_line(Chat(services)("which devices at Store-50 have slic matches").final.answer)
    assert all(f"{d} ({n} SLIC match" in lead for d, n in per), (per, lead)
    assert lead.startswith(f"**{len(per)} device"), (per, lead)


def test_and_the_fewest_after_the_most_is_the_other_end(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT a.site, COUNT(*) FILTER (WHERE r.status = 'fail') n FROM {FLEET} WHERE "
                              "r.assessment_id = ? AND a.device_type = 'switch' GROUP BY 1 ORDER BY n", [latest])
    chat = Chat(services)
    chat("which sites have the most failed checks on switches")
    lead = first_line(chat("and the least?").final.answer)
    fewest = [s for s, n in per if n == per[0][1]]
    assert any(f"**{s}**" in lead for s in fewest) and "fewest" in lead, (per[:3], lead)


def test_which_device_made_the_most_after_a_count_of_events_ranks_by_those_events(
        demo_warehouse: Path, services: Services) -> None:
    """One device per device ranks nothing: "which box had the most" after the failed logins of a month is ranked by
    those failed logins, in that month."""
    per = sql(demo_warehouse, "SELECT e.asset_id, COUNT(*) n FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                              "a.collection = 'fleet' WHERE e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' AND "
                              "strftime(e.ts, '%Y-%m') = '2026-09' GROUP BY 1 ORDER BY n DESC")
    chat = Chat(services)
    chat("failed logins in september")
    lead = first_line(chat("which box had the most").final.answer)
    most = [d for d, n in per if n == per[0][1]]
    assert any(f"**{d}**" in lead for d in most) and str(per[0][1]) in lead, (per[:3], lead)


def test_a_request_naming_its_own_kind_and_bound_is_no_edit_of_the_last_list(services: Services,
                                                                             demo_warehouse: Path) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    want = [d for d, in sql(demo_warehouse, f"SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                            "r.status = 'fail' AND a.role = 'access' GROUP BY 1 HAVING COUNT(*) > 15",
                            [latest])]
    chat = Chat(services)
    chat("which switches at HQ fail NTP-AUTH")
    answer = chat("show the access switches with more than 15 failed checks").final.answer
    assert want and all(d in answer for d in want), (want, answer[:400])


def test_how_many_for_both_after_two_lists_counts_the_rows_of_both(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'NTP-AUTH' AND a.site IN ('Branch-02', 'Branch-05')",
                [latest])
    chat = Chat(services)
    chat("devices at Branch-02 failing NTP-AUTH")
    chat("and at Branch-05")
    lead = first_line(chat("how many for both sites together").final.answer)
    assert lead.startswith(f"**{n} device"), (n, lead)


def test_a_value_of_the_grouping_said_alone_is_that_rows_figure(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (rate,), = sql(demo_warehouse, "SELECT ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*), 1) "
                                   f"FROM {FLEET} WHERE r.assessment_id = ? AND s.region = 'us-west'", [latest])
    chat = Chat(services)
    chat("pass rate per region")
    lead = first_line(chat("only us-west").final.answer)
    assert lead.startswith(f"**{rate}%**"), (rate, lead)


def test_which_month_had_the_most_after_events_per_month_then_that_months_place(demo_warehouse: Path,
                                                                               services: Services) -> None:
    logged = ("FROM events e JOIN assets a ON a.asset_id = e.asset_id AND a.collection = 'fleet' WHERE e.mnemonic = "
              "'SYS-5-CONFIG_I'")
    per = sql(demo_warehouse, f"SELECT strftime(e.ts, '%Y-%m') m, COUNT(*) n {logged} GROUP BY 1 ORDER BY n DESC")
    month = per[0][0]
    sites = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n {logged} AND strftime(e.ts, '%Y-%m') = ? GROUP BY 1 "
                                "ORDER BY n DESC", [month])
    chat = Chat(services)
    chat("config changes per month")
    assert first_line(chat("which month saw the most").final.answer).startswith(f"**{month}**")
    lead = first_line(chat("and which site had the most in that month").final.answer)
    most = [s for s, n in sites if n == sites[0][1]]
    assert any(f"**{s}**" in lead for s in most) and month in lead, (month, sites[:3], lead)


def test_how_many_on_each_after_values_listed_counts_each(services: Services, demo_warehouse: Path) -> None:
    per = dict(sql(demo_warehouse, "SELECT device_type, COUNT(*) FROM assets WHERE collection = 'fleet' GROUP BY 1"))
    chat = Chat(services)
    chat("what device types do we have")
    answer = chat("how many devices for each one").final.answer
    assert all(str(n) in answer for n in per.values()), (per, answer[:300])


def test_a_role_read_from_the_words_is_kept_where_the_tools_would_drop_it(demo_warehouse: Path,
                                                                          services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, FAILS + " AND a.role = 'core' AND a.device_type = 'router'", [latest])
    (wider,), = sql(demo_warehouse, FAILS + " AND a.device_type = 'router'", [latest])
    lead = first_line(Chat(services)("show failed checks on the core routers").final.answer)
    assert n != wider and lead.startswith(f"**{n}**"), (n, wider, lead)


def test_a_follow_up_of_two_edits_applies_both_in_turn(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                              "'fail' AND a.role = 'access' AND r.severity = 'high' GROUP BY 1", [latest])
    chat = Chat(services)
    chat("failed checks on the access switches")
    state = chat("just the high ones - which devices")
    lead = first_line(state.final.answer)
    assert state.intent.query is not None and state.intent.query.group_by == ["device"], state.intent.query
    assert lead.startswith(f"**{len(per)} devices**") and str(sum(n for _, n in per)) in lead, (len(per), lead)


def test_fail_it_after_one_check_is_that_check_with_the_kind_asked_fleet_wide(demo_warehouse: Path,
                                                                              services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'SNMP-V3-PRIV' AND a.device_type = 'switch'",
                [latest])
    chat = Chat(services)
    chat("which devices at Store-33 fail SNMP-V3-PRIV")
    lead = first_line(chat("how many switches fail it across the fleet").final.answer)
    assert lead.startswith(f"**{n}**") and "Store-33" not in lead, (n, lead)


def test_which_changed_most_keeps_the_two_runs_the_last_change_was_between(demo_warehouse: Path,
                                                                           services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rate = ("SELECT a.site, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / NULLIF(SUM(CASE WHEN "
            "r.status IN ('pass', 'fail') THEN 1 ELSE 0 END), 0), 1) FROM " + FLEET +
            " WHERE r.assessment_id = ? AND s.site_type = 'store' GROUP BY 1")
    before, after = dict(sql(demo_warehouse, rate, [runs[0]])), dict(sql(demo_warehouse, rate, [runs[1]]))
    deltas = {k: after[k] - before[k] for k in after if k in before}
    worst = [k for k, d in deltas.items() if d == min(deltas.values())]
    chat = Chat(services)
    chat("how did the pass rate of the stores change from august to september")
    lead = first_line(chat("which store dropped the most").final.answer)
    assert any(f"**{k}**" in lead for k in worst) and runs[0] in lead and runs[1] in lead, (worst, lead)


def test_a_kind_of_place_alone_after_a_count_of_places_counts_them_there(demo_warehouse: Path,
                                                                         services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    count = (f"SELECT COUNT(DISTINCT a.site) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND "
             "r.rule_id = 'NTP-AUTH' AND s.site_type = ?")
    (branches,), = sql(demo_warehouse, count, [latest, "branch"])
    (stores,), = sql(demo_warehouse, count, [latest, "store"])
    chat = Chat(services)
    assert first_line(chat("how many branches have NTP-AUTH failing").final.answer).startswith(f"**{branches}**")
    lead = first_line(chat("and the stores?").final.answer)
    assert stores != branches and lead.startswith(f"**{stores}**"), (stores, lead)


def test_that_month_after_a_device_picked_in_a_month_is_both(demo_warehouse: Path, services: Services) -> None:
    logged = ("FROM events e JOIN assets a ON a.asset_id = e.asset_id AND a.collection = 'fleet' WHERE "
              "strftime(e.ts, '%Y-%m') = '2026-10' AND e.mnemonic = ?")
    per = sql(demo_warehouse, f"SELECT e.asset_id, COUNT(*) n {logged} AND a.site = 'HQ' GROUP BY 1 ORDER BY n DESC",
              ["SYS-5-CONFIG_I"])
    top = per[0][0]
    assert per[1][1] < per[0][1], per[:3]  # one device made the most
    (n,), = sql(demo_warehouse, f"SELECT COUNT(*) {logged} AND e.asset_id = ?", ["SEC_LOGIN-5-LOGIN_SUCCESS", top])
    (every,), = sql(demo_warehouse, "SELECT COUNT(*) FROM events WHERE mnemonic = 'SEC_LOGIN-5-LOGIN_SUCCESS' AND "
                                    "asset_id = ?", [top])
    chat = Chat(services)
    chat("config changes at HQ in october")
    chat("which device made the most")
    lead = first_line(chat("and how many successful logins did it have that month").final.answer)
    assert n != every and lead.startswith(f"**{n}**") and top in lead, (top, n, every, lead)


def test_a_template_that_drops_a_filter_asked_does_not_answer(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    matches = ("SELECT COUNT(*) FROM slic_results r JOIN assets a ON a.asset_id = r.asset_id AND a.collection = "
               "'fleet' JOIN sites s ON s.site = a.site WHERE r.assessment_id = ? AND s.site_type = 'store'")
    (high,), = sql(demo_warehouse, matches + " AND r.severity = 'high'", [latest])
    (every,), = sql(demo_warehouse, matches, [latest])
    lead = first_line(Chat(services)("how many high SLIC findings at the stores").final.answer)
    assert high != every and lead.startswith(f"**{high}**"), (high, every, lead)


def test_compare_a_kind_of_place_sets_each_place_of_it_side_by_side(demo_warehouse: Path,
                                                                    services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT a.site, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' "
                              "AND s.site_type = 'campus' GROUP BY 1", [latest])
    answer = Chat(services)("compare the campuses on failed checks").final.answer
    assert len(per) == 2 and all(site in answer and str(n) in answer for site, n in per), (per, answer[:400])


def test_another_figure_named_alone_measures_the_same_rows(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT s.tier, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' "
                              "GROUP BY 1", [latest])
    chat = Chat(services)
    chat("pass rate per tier")
    state = chat("what about failed checks?")
    assert state.intent.query is not None and state.intent.query.group_by == ["tier"], state.intent.query
    assert all(re.search(rf"\b{t}\b\D{{0,12}}\b{n}\b", state.final.answer) for t, n in per), (per, state.final.answer[:300])


def test_which_of_those_are_keeps_the_rows_shown_not_a_new_top(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    top = [r for r, _ in sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "r.status = 'fail' GROUP BY 1 ORDER BY n DESC LIMIT 4", [latest])]
    medium = {r for r, in sql(demo_warehouse, "SELECT rule_id FROM rules WHERE severity = 'medium'")}
    wider = [r for r, _ in sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? "
                                               "AND r.status = 'fail' AND r.severity = 'medium' GROUP BY 1 ORDER BY n "
                                               "DESC LIMIT 4", [latest])]
    chat = Chat(services)
    chat("top 4 failing rules")
    answer = chat("which ones are medium").final.answer
    kept = [r for r in top if r in medium]
    assert kept and all(r in answer for r in kept), (kept, answer[:300])
    assert not [r for r in wider if r not in top and r in answer], (wider, answer[:300])  # no other medium rule


def test_the_first_one_after_an_answer_of_one_row_is_the_first_of_the_list_before(demo_warehouse: Path,
                                                                                     services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (first, n), = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(DISTINCT r.asset_id) n FROM {FLEET} WHERE "
                                      "r.assessment_id = ? AND r.status = 'fail' GROUP BY 1 ORDER BY COUNT(*) DESC "
                                      "LIMIT 1", [latest])
    chat = Chat(services)
    chat("top 5 failing rules")
    chat("which of them are high severity")
    lead = first_line(chat("how many devices fail the first one").final.answer)
    assert lead.startswith(f"**{n}**") and first in lead, (first, n, lead)


def test_which_kind_has_the_lowest_is_one_row_and_it_is_that_row(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = sql(demo_warehouse, f"SELECT a.site, SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) * 1.0 / SUM(CASE "
                                f"WHEN r.status IN ('pass', 'fail') THEN 1 ELSE 0 END) p FROM {FLEET} WHERE "
                                "r.assessment_id = ? AND s.site_type = 'branch' GROUP BY 1 ORDER BY p", [latest])
    worst = rates[0][0]
    assert rates[1][1] > rates[0][1]
    (devices,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND site = ?", [worst])
    chat = Chat(services)
    first = chat("which branch office has the lowest pass rate").final.answer
    assert first_line(first).startswith(f"**{worst}**") and "| Branch-" not in first, first[:400]
    lead = first_line(chat("how many devices does it have").final.answer)
    assert lead.startswith(f"**{devices} device"), (worst, devices, lead)


ROW_PASS_RATE = ("SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) * 1.0 / SUM(CASE WHEN r.status IN ('pass', 'fail') "
             "THEN 1 ELSE 0 END)")


def test_which_of_those_after_a_ranking_of_devices_picks_among_its_rows(demo_warehouse: Path,
                                                                         services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT * FROM (SELECT r.asset_id, a.site, s.site_type, RANK() OVER (ORDER BY "
                                 f"{ROW_PASS_RATE}) n FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1, 2, 3) WHERE n <= 6",
                 [latest])  # (the rows tied at the cut are kept)
    stores = [d for d, _, kind, _ in ranked if kind == "store"]
    chat = Chat(services)
    table = chat("bottom 6 devices by pass rate").final.answer
    assert "more (every row" not in table, table[-200:]  # the six asked, not "… and N more"
    lead = first_line(chat("which of them are at the stores").final.answer)
    assert lead.startswith(f"**{len(stores)} device") and all(d in lead for d in stores), (stores, lead)


def test_an_ordinal_past_the_last_list_is_of_the_list_before(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = [d for d, in sql(demo_warehouse, f"SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 "
                                               f"ORDER BY {ROW_PASS_RATE}, 1 LIMIT 5", [latest])]
    (fails,), = sql(demo_warehouse, FAILS + " AND r.asset_id = ?", [latest, ranked[3]])
    chat = Chat(services)
    chat("the 5 devices with the worst pass rate")
    chat("which of them are firewalls")
    lead = first_line(chat("what's the failed check count of the fourth one").final.answer)
    assert ranked[3] in lead and str(fails) in lead, (ranked, fails, lead)


def test_where_the_devices_with_no_failure_are_and_how_many_are_of_a_kind(demo_warehouse: Path,
                                                                          services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    clean = sql(demo_warehouse, f"SELECT r.asset_id, a.site, a.device_type FROM {FLEET} WHERE r.assessment_id = ? "
                                "GROUP BY 1, 2, 3 HAVING COUNT(*) FILTER (WHERE r.status = 'fail') = 0", [latest])
    sites = sorted({site for _, site, _ in clean})
    firewalls = sum(kind == "firewall" for _, _, kind in clean)
    chat = Chat(services)
    chat("devices without any failed check")
    where = first_line(chat("at which sites are they").final.answer)
    assert where.startswith(f"**{len(sites)} sites**") and all(s in where for s in sites), (sites, where)
    lead = first_line(chat("how many of those are firewalls").final.answer)
    assert firewalls and lead.startswith(f"**{firewalls}**"), (firewalls, lead)


def test_the_first_run_named_is_read_not_the_latest(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (first,), = sql(demo_warehouse, FAILS + " AND r.severity = 'high'", [runs[0]])
    (latest,), = sql(demo_warehouse, FAILS + " AND r.severity = 'high'", [runs[-1]])
    lead = first_line(Chat(services)("high severity failures in the earliest assessment").final.answer)
    assert first != latest and lead.startswith(f"**{first:,}**") and runs[0] in lead, (first, latest, lead)


def test_its_site_after_one_device_asks_the_same_of_that_site(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (site,), = sql(demo_warehouse, "SELECT site FROM assets WHERE asset_id = 'RTR-ST45-1'")
    (n,), = sql(demo_warehouse, FAILS + " AND a.site = ?", [latest, site])
    chat = Chat(services)
    chat("how many failed checks does RTR-ST45-1 have")
    lead = first_line(chat("and its whole site?").final.answer)
    assert lead.startswith(f"**{n}**") and site in lead, (site, n, lead)


def test_list_them_after_a_count_of_sites_then_the_best_of_them(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    sites = [s for s, in sql(demo_warehouse, "SELECT site FROM sites WHERE region = 'us-central'")]
    rates = sql(demo_warehouse, f"SELECT a.site, {ROW_PASS_RATE} p FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "s.region = 'us-central' GROUP BY 1 ORDER BY p DESC", [latest])
    chat = Chat(services)
    chat("how many sites in us-central")
    listed = first_line(chat("list them").final.answer)
    assert listed.startswith(f"**{len(sites)} sites** (") and all(s in listed for s in sites), (sites, listed)
    best = first_line(chat("which one has the highest pass rate").final.answer)
    assert rates[0][1] > rates[1][1] and best.startswith(f"**{rates[0][0]}**"), (rates[:2], best)


def test_how_many_of_a_kind_after_the_sites_of_failing_devices_counts_those_failing(demo_warehouse: Path,
                                                                                     services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'NTP-AUTH' AND a.device_type = 'switch'", [latest])
    (judged,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                     "a.device_type = 'switch'", [latest])
    chat = Chat(services)
    chat("how many devices fail NTP-AUTH")
    chat("at which sites are they")
    lead = first_line(chat("how many of them are switches").final.answer)
    assert n != judged and lead.startswith(f"**{n}**"), (n, judged, lead)


def test_read_as_an_engineer_would_five_shapes_found_reading_answers(demo_warehouse: Path, services: Services) -> None:
    """Answers read before the session's stop: a one-row breakdown keeps its figure; the devices "with their pass
    rate" show it; "which switches … under 85%" are rows, not one figure; "what share … pass every check" leads with
    the passing share."""
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rate = (f"SELECT ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / SUM(CASE WHEN r.status IN "
            f"('pass', 'fail') THEN 1 ELSE 0 END), 1) FROM {FLEET} WHERE r.assessment_id = ?")
    platforms = sql(demo_warehouse, "SELECT DISTINCT a.platform FROM assets a JOIN sites s ON s.site = a.site WHERE "
                                    "a.collection = 'fleet' AND s.site_type = 'branch'")
    assert len(platforms) == 1
    (branch,), = sql(demo_warehouse, rate + " AND s.site_type = 'branch'", [latest])
    chat = Chat(services)
    chat("pass rate by platform")
    assert f"{branch}%" in first_line(chat("just the branches").final.answer)
    devices = sql(demo_warehouse, f"SELECT r.asset_id, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) "
                                  "/ SUM(CASE WHEN r.status IN ('pass', 'fail') THEN 1 ELSE 0 END), 1) p FROM "
                                  f"{FLEET} WHERE r.assessment_id = ? AND a.site = 'Site-B' GROUP BY 1", [latest])
    listed = Chat(services)("show the devices at Site-B with their pass rate").final.answer
    assert all(d in listed and f"{p}%" in listed for d, p in devices), (devices, listed[:500])
    under = [(d, p) for d, p in sql(demo_warehouse, f"SELECT r.asset_id, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' "
                                                    "THEN 1 ELSE 0 END) / SUM(CASE WHEN r.status IN ('pass', 'fail') "
                                                    f"THEN 1 ELSE 0 END), 1) p FROM {FLEET} WHERE r.assessment_id = ? "
                                                    "AND a.site = 'HQ' AND a.device_type = 'switch' GROUP BY 1",
                                     [latest]) if p < 85]
    rows = Chat(services)("which HQ switches have a pass rate below 85%").final.answer
    assert under and all(d in rows for d, _ in under), (under, rows[:400])
    clean = sql(demo_warehouse, f"SELECT COUNT(*) FILTER (WHERE f = 0), COUNT(*) FROM (SELECT r.asset_id, COUNT(*) "
                                f"FILTER (WHERE r.status = 'fail') f FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "a.site = 'Site-A' GROUP BY 1)", [latest])[0]
    lead = first_line(Chat(services)("what share of the devices at Site-A pass every check").final.answer)
    assert f"{clean[0]} of {clean[1]} devices pass every check" in lead, (clean, lead)


def test_whether_a_named_row_leads_ranks_every_row_not_that_one_alone(demo_warehouse: Path,
                                                                        services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                 "r.status = 'fail' GROUP BY 1 ORDER BY n DESC, 1", [latest])
    top, second = ranked[0], ranked[1]
    assert top[1] > second[1]  # (the demo's ranking has one site first; else the question below is a tie)
    chat = Chat(services)
    state = chat(f"does {second[0]} have the most failed checks of all sites?")
    query = state.intent.query
    assert query is not None and query.leader == second[0] and query.condition("site") is None, query
    lead = first_line(state.final.answer)
    assert lead.startswith("**No**") and f"**{top[0]}** ({top[1]})" in lead and f"{second[1]}, 2nd" in lead, lead
    assert first_line(chat(f"and is {top[0]} the site with the most failed checks").final.answer).startswith("**Yes**")


def test_is_it_still_first_after_the_top_row_re_ranks_then_and_now(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per_run = {run: sql(demo_warehouse, f"SELECT a.role, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                        "r.status = 'fail' AND r.severity = 'high' GROUP BY 1 ORDER BY n DESC", [run])
               for run in (runs[1], runs[-1])}
    leader = per_run[runs[-1]][0][0]
    chat = Chat(services)
    chat("high severity failures per role")
    assert first_line(chat("which role has the most").final.answer).startswith(f"**{leader}**")
    then = chat("was it also the top one in september?")
    query = then.intent.query
    assert query is not None and query.leader == leader and query.runs == [runs[1]], query
    led_then = per_run[runs[1]][0][0] == leader and per_run[runs[1]][0][1] > per_run[runs[1]][1][1]
    assert first_line(then.final.answer).startswith("**Yes**" if led_then else "**No**"), then.final.answer[:300]
    now = chat("still the top one?")
    assert now.intent.query is not None and now.intent.query.runs == [runs[-1]], now.intent.query
    assert first_line(now.final.answer).startswith("**Yes**"), now.final.answer[:300]


def test_how_many_did_it_have_then_is_the_top_rows_figure_in_that_run(demo_warehouse: Path,
                                                                       services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (region, _), = sql(demo_warehouse, f"SELECT s.region, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                       "r.status = 'fail' AND r.rule_id = 'NTP-AUTH' GROUP BY 1 ORDER BY n DESC LIMIT 1",
                       [runs[-1]])
    (then,), = sql(demo_warehouse, FAILS + " AND r.rule_id = 'NTP-AUTH' AND s.region = ?", [runs[0], region])
    chat = Chat(services)
    chat("NTP-AUTH failures per region")
    chat("which region has the most")
    state = chat("how many did it have in the earliest assessment")
    query = state.intent.query
    assert query is not None and query.runs == [runs[0]] and query.condition("region") is not None, query
    assert first_line(state.final.answer).startswith(f"**{then}**"), state.final.answer[:300]


def test_them_after_a_count_re_timed_is_that_counts_devices_not_the_older_list(demo_warehouse: Path,
                                                                                 services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    now = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                           "r.status = 'fail' AND r.rule_id = 'SNMP-DEFAULT-COMM' AND "
                                           "s.site_type = 'store'", [runs[-1]])}
    before = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? "
                                              "AND r.status = 'fail' AND r.rule_id = 'SNMP-DEFAULT-COMM'", [runs[0]])}
    assert now - before  # (a device failing now that the first run's list did not name: the case this guards)
    chat = Chat(services)
    chat("which devices failed SNMP-DEFAULT-COMM in the first run")
    chat("how many fail it now")
    answer = chat("which of them are in stores").final.answer
    assert all(re.search(rf"(?<![\w-]){re.escape(d)}(?![\w-])", answer) for d in now), (sorted(now), answer[:500])


def test_a_names_possessive_is_read_as_the_name(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rules = {r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "r.status = 'fail' AND r.severity = 'critical' AND r.asset_id = "
                                             "'FW-ST30-1'", [latest])}
    assert rules
    answer = handle_turn("FW-ST30-1's critical findings?", thread_id="possessive", user_id="possessive",
                         services=services).final.answer
    assert all(r in answer for r in rules), (rules, answer[:400])


def test_the_nth_alone_after_a_question_of_the_first_asks_it_of_the_nth(demo_warehouse: Path,
                                                                        services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = [d for d, _ in sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? "
                                                "AND r.status = 'fail' AND a.device_type = 'firewall' GROUP BY 1 "
                                                "ORDER BY n DESC, 1 LIMIT 4", [latest])]
    counts = dict(sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                      "r.status = 'fail' AND r.severity = 'medium' GROUP BY 1", [latest]))
    chat = Chat(services)
    listed = chat("top 4 firewalls by failed checks")
    rows = [r for r in ranked if r in listed.final.answer]
    assert len(rows) == 4, listed.final.answer[:400]  # (no tie at the cut: the four are the four shown)
    chat("how many medium findings does the first one have")
    state = chat("and the second?")
    assert state.conversation.effective_prompt == f"how many medium findings does {ranked[1]} have"
    assert first_line(state.final.answer).startswith(f"**{counts.get(ranked[1], 0)}**"), state.final.answer[:300]


def test_how_many_at_a_kind_of_place_after_the_place_with_the_most_counts_there(demo_warehouse: Path,
                                                                                 services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                                "a.collection = 'fleet' JOIN sites s ON s.site = a.site WHERE e.mnemonic = "
                                "'SEC_LOGIN-4-LOGIN_FAILED' AND strftime(e.ts, '%Y-%m') = '2026-10' AND "
                                "s.site_type = 'branch'")
    chat = Chat(services)
    chat("failed logins in october")
    chat("which site saw the most")
    state = chat("and how many at the branches?")
    query = state.intent.query
    assert query is not None and not query.group_by and query.limit is None, query
    assert first_line(state.final.answer).startswith(f"**{n:,}**"), state.final.answer[:300]


def test_which_is_worse_of_two_places_side_by_side_is_the_lower_one(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = dict(sql(demo_warehouse, f"SELECT a.site, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) "
                                     f"/ COUNT(*), 1) FROM {FLEET} WHERE r.assessment_id = ? AND a.site IN "
                                     "('Branch-03', 'Store-36') GROUP BY 1", [latest]))
    assert rates["Branch-03"] != rates["Store-36"]
    chat = Chat(services)
    chat("pass rate at Branch-03")
    chat("how does that compare to Store-36")
    lower = min(rates, key=rates.__getitem__)
    assert first_line(chat("which one is worse").final.answer).startswith(f"**{lower}**")


def test_rows_sorted_by_a_measure_named_after_them_are_those_rows_in_that_order(demo_warehouse: Path,
                                                                                  services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per_rule = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(DISTINCT r.asset_id) n FROM {FLEET} WHERE "
                                   "r.assessment_id = ? AND r.status = 'fail' AND a.site = 'HQ' GROUP BY 1 "
                                   "ORDER BY n DESC", [latest])
    state = handle_turn("failing checks at HQ, ordered by the number of devices failing them", thread_id="sorted",
                        user_id="sorted", services=services)
    query = state.intent.query
    assert query is not None and query.group_by == ["rule"] and query.order is not None and \
        query.order.measure == "devices_failing", query
    top = [r for r, n in per_rule if n == per_rule[0][1]]
    assert any(f"**{r}**" in first_line(state.final.answer) for r in top), state.final.answer[:300]
    body = state.final.answer
    assert body.index(f"| {per_rule[0][0]} |") < body.index(f"| {per_rule[-1][0]} |")  # the most first


def test_a_value_left_out_is_not_carried_as_a_filter_of_the_next_question(demo_warehouse: Path,
                                                                           services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (release, _), = sql(demo_warehouse, "SELECT os_version, COUNT(*) n FROM assets WHERE collection = 'fleet' AND "
                                        "platform = 'ios-xe' AND site = 'HQ' GROUP BY 1 ORDER BY n DESC LIMIT 1")
    (n,), = sql(demo_warehouse, FAILS + " AND a.site = 'HQ' AND a.platform = 'ios-xe' AND a.os_version <> ?",
                [latest, release])
    chat = Chat(services)
    chat("list the ios-xe devices at HQ")
    chat(f"which are not on {release}")
    state = chat("how many failed checks do they have")
    query = state.intent.query
    assert query is None or query.condition("release") is None or query.condition("release").negated, query
    assert first_line(state.final.answer).startswith(f"**{n}**"), state.final.answer[:300]


def test_which_is_worse_after_what_fails_at_two_places_in_turn_compares_the_places(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = dict(sql(demo_warehouse, f"SELECT a.site, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                   "'fail' AND a.site IN ('Branch-06', 'Store-36') GROUP BY 1", [latest]))
    assert per["Branch-06"] != per["Store-36"]
    chat = Chat(services)
    chat("what fails at Branch-06")
    chat("and at Store-36?")
    worse = max(per, key=per.__getitem__)
    assert first_line(chat("which one is worse").final.answer).startswith(f"**{worse}**")


def test_whether_a_row_is_in_the_top_n_of_its_kind_ranks_that_kind_only(demo_warehouse: Path,
                                                                          services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                 "'fail' AND s.site_type = 'branch' GROUP BY 1 ORDER BY n DESC, 1", [latest])
    cut = ranked[2][1]
    inside = ranked[0][0]
    outside = next(site for site, n in ranked if n < cut)
    for site, yes in ((inside, True), (outside, False)):
        state = handle_turn(f"is {site} among the top 3 branches by failed checks?", thread_id=f"top-{site}",
                            user_id="top", services=services)
        query = state.intent.query
        assert query is not None and query.leader == site and query.condition("site_type") is not None, query
        assert first_line(state.final.answer).startswith("**Yes**" if yes else "**No**"), state.final.answer[:300]


def test_which_had_more_after_one_figure_in_two_periods_asked_in_turn_names_the_period(demo_warehouse: Path,
                                                                                      services: Services) -> None:
    per_month = dict(sql(demo_warehouse, "SELECT strftime(e.ts, '%Y-%m'), COUNT(*) FROM events e JOIN assets a ON "
                                         "a.asset_id = e.asset_id AND a.collection = 'fleet' WHERE e.mnemonic = "
                                         "'SYS-5-CONFIG_I' AND a.site = 'Branch-02' GROUP BY 1"))
    assert per_month["2026-08"] != per_month["2026-10"]
    chat = Chat(services)
    chat("config changes at Branch-02 in august")
    chat("and in october?")
    more = max(("2026-08", "2026-10"), key=per_month.__getitem__)
    lead = first_line(chat("which month had more").final.answer)
    assert lead.startswith(f"**More in {more}**") and f"{per_month[more]}" in lead, lead


def test_one_of_the_n_of_a_kind_with_the_most_asks_whether_that_row_is_among_them(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                 "'fail' AND r.severity = 'high' AND s.site_type = 'store' GROUP BY 1 ORDER BY n DESC, 1",
                 [latest])
    last = ranked[-1][0]
    assert ranked[-1][1] < ranked[3][1]
    state = handle_turn(f"is {last} one of the 4 stores with the most high findings?", thread_id="one-of",
                        user_id="one-of", services=services)
    query = state.intent.query
    assert query is not None and query.group_by == ["site"] and query.leader == last, query
    assert first_line(state.final.answer).startswith("**No**"), state.final.answer[:300]


def test_whether_any_of_a_devices_checks_is_of_a_severity_is_yes_or_no_then_which(demo_warehouse: Path,
                                                                                  services: Services) -> None:
    high = [r for r, in sql(demo_warehouse, f"SELECT rule_id FROM results WHERE assessment_id = {LATEST} AND "
                                            "asset_id = 'RTR-HQ-EDGE-1' AND status = 'fail' AND severity = 'high' "
                                            "ORDER BY 1")]
    assert high
    chat = Chat(services)
    chat("whats failing on RTR-HQ-EDGE-1")
    lead = first_line(chat("are any of them high?").final.answer)
    assert lead.startswith("**Yes**") and all(r in lead for r in high), lead
    lead = first_line(chat("which ones are high").final.answer)
    assert lead.startswith(f"**{len(high)}**") and all(r in lead for r in high), lead


def test_its_after_a_ranking_is_the_row_it_led_with(demo_warehouse: Path, services: Services) -> None:
    (tier, _), = sql(demo_warehouse, f"""SELECT s.tier, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') /
        COUNT(*), 1) p FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site WHERE
        r.assessment_id = {LATEST} AND a.collection = 'fleet' GROUP BY 1 ORDER BY p LIMIT 1""")
    sites = {s for s, in sql(demo_warehouse, f"SELECT site FROM sites WHERE tier = '{tier}'")}
    chat = Chat(services)
    chat("rank the tiers by pass rate, lowest first")
    answer = chat("and its worst site?").final.answer
    lead = first_line(answer)
    named = re.match(r"\*\*([\w-]+)\*\*", lead)
    assert named is not None and named.group(1) in sites, lead


def test_how_many_of_them_are_somewhere_narrows_the_rows_it_follows(demo_warehouse: Path, services: Services) -> None:
    """"how many of them are in us-east" after the store switches: those switches there — not every switch in us-east."""
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets a JOIN sites s ON s.site = a.site WHERE a.collection = "
                                "'fleet' AND a.device_type = 'switch' AND s.site_type = 'store' AND s.region = 'us-east'")
    (wider,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets a JOIN sites s ON s.site = a.site WHERE a.collection = "
                                    "'fleet' AND a.device_type = 'switch' AND s.region = 'us-east'")
    assert n != wider
    chat = Chat(services)
    chat("list the switches at the stores")
    lead = first_line(chat("how many of them are in us-east").final.answer)
    assert re.match(rf"\*\*{n}\b", lead), lead


def test_two_sides_in_a_month_are_that_runs_sides(demo_warehouse: Path, services: Services) -> None:
    run = "(SELECT assessment_id FROM assessments WHERE collection = 'fleet' AND strftime(started_at, '%Y-%m') = " \
          "'2026-09')"
    rates = dict(sql(demo_warehouse, f"""SELECT a.environment = 'lab', ROUND(100.0 * COUNT(*) FILTER (WHERE
        r.status = 'pass') / COUNT(*), 1) FROM results r JOIN assets a USING (asset_id) WHERE r.assessment_id = {run}
        AND a.collection = 'fleet' GROUP BY 1"""))
    state = handle_turn("lab vs everything else pass rate in september", services=services)
    assert state.intent.query is not None and len(state.intent.query.runs) == 1
    lead = first_line(state.final.answer)
    assert f"**lab** {rates[True]}%" in lead and f"**everything else** {rates[False]}%" in lead, lead


def test_which_ones_after_a_count_of_a_product_line_are_of_that_line(demo_warehouse: Path, services: Services) -> None:
    failing = [d for d, in sql(demo_warehouse, f"""SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING
        (asset_id) WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.severity = 'high' AND a.collection =
        'fleet' AND a.product_family LIKE 'ISR %' ORDER BY 1""")]
    assert failing
    chat = Chat(services)
    chat("how many ISR routers fail something high")
    lead = first_line(chat("which ones").final.answer)
    assert lead.startswith(f"**{len(failing)} device"), lead


def test_how_many_distinct_things_is_that_counts_the_rows_kinds_not_the_rows(demo_warehouse: Path,
                                                                             services: Services) -> None:
    """After the SLIC matches of a place listed by signature, "how many distinct signatures is that" is the number of
    signatures there — not the matches, not the fleet's devices."""
    (latest,), = sql(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY "
                                     "started_at DESC LIMIT 1")
    matched = ("FROM slic_results x JOIN assets a ON a.asset_id = x.asset_id AND a.collection = 'fleet' "
               "WHERE x.assessment_id = ? AND a.site = 'HQ'")
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT x.signature_id) {matched}", [latest])
    (matches,), = sql(demo_warehouse, f"SELECT COUNT(*) {matched}", [latest])
    assert n != matches  # the two figures differ: the check below tells them apart
    chat = Chat(services)
    chat("known issues matched at HQ")
    state = chat("how many distinct signatures is that")
    assert first_line(state.final.answer).startswith(f"**{n}**"), state.final.answer[:300]


def test_rows_of_another_kind_after_two_places_are_not_one_of_the_two(demo_warehouse: Path,
                                                                       services: Services) -> None:
    """After a figure at one branch and then at another, "which boxes there have fewer failed checks than in the
    previous run" asks for the devices of the place last named that got better — not which of the two branches has
    fewer."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per_device = (f"SELECT r.asset_id, SUM(CASE WHEN r.status = 'fail' THEN 1 ELSE 0 END) FROM {FLEET} WHERE "
                  "r.assessment_id = ? AND a.site = 'Branch-02' GROUP BY 1")
    before, after = dict(sql(demo_warehouse, per_device, [runs[-2]])), dict(sql(demo_warehouse, per_device, [runs[-1]]))
    better = sorted(d for d in after if d in before and after[d] < before[d])
    chat = Chat(services)
    chat("failed checks at Branch-01 compared with the previous run")
    chat("and Branch-02?")
    state = chat("which boxes there have fewer failed checks than in the previous run")
    query = state.intent.query
    assert query is not None and query.group_by == ["device"], query
    assert (query.condition("site") or query).values == ["Branch-02"], query  # type: ignore[union-attr]
    for device in better:
        assert device in state.final.answer, (device, state.final.answer[:400])
    assert "Branch-01" not in first_line(state.final.answer), state.final.answer[:300]


def test_how_many_devices_is_that_after_a_ranking_counts_the_row_it_led_with(demo_warehouse: Path,
                                                                             services: Services) -> None:
    """"how many boxes is that" after the platform with the most failed checks: that platform's devices assessed —
    not every device of the run."""
    pct = "100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / COUNT(*)"
    rates = sql(demo_warehouse, f"SELECT a.platform, {pct} p, COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE "
                                f"r.assessment_id = ({LATEST}) GROUP BY 1 ORDER BY p")
    assert rates[0][1] < rates[1][1]  # one platform leads: the case has one row to count
    chat = Chat(services)
    chat("what platform has the lowest pass rate")
    state = chat("how many boxes is that")
    assert first_line(state.final.answer).startswith(f"**{rates[0][2]}**"), state.final.answer[:300]


def test_whether_one_device_fails_a_severity_is_answered_with_its_checks_and_edited_as_such(
        demo_warehouse: Path, services: Services) -> None:
    """"does RTR-HQ-EDGE-1 fail anything high" is Yes or No and which checks; "what about medium" asks the same of
    medium (the scope line says medium, not high); "and its pass rate" is the device's, over all its checks."""
    failing = f"SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND r.status = 'fail' AND " \
              "r.asset_id = 'RTR-HQ-EDGE-1' AND r.severity = ?"
    high, medium = [r for r, in sql(demo_warehouse, failing, ["high"])], [r for r, in sql(demo_warehouse, failing,
                                                                                          ["medium"])]
    assert medium  # the second question has checks to name
    (rate,), = sql(demo_warehouse, f"SELECT ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / "
                                   f"COUNT(*), 1) FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                   "r.asset_id = 'RTR-HQ-EDGE-1'")
    chat = Chat(services)
    first = chat("does RTR-HQ-EDGE-1 fail anything high")
    assert first.final.answer.split("\n\n", 1)[1].startswith("**Yes" if high else "**No"), first.final.answer[:300]
    second = chat("what about medium")
    body = second.final.answer
    assert body.split("\n\n", 1)[1].startswith("**Yes"), body[:300]
    assert all(rule in body for rule in medium), (medium, body[:500])
    scope = body.splitlines()[0]
    assert "severity medium" in scope and "severity high" not in scope, scope
    third = chat("and its pass rate?")
    assert f"**{rate}%**" in third.final.answer.split("\n\n", 2)[1], third.final.answer[:300]
    assert "Unverified" not in third.final.answer, third.final.answer


def test_a_fix_in_between_keeps_the_rows_those_refers_to(demo_warehouse: Path, services: Services) -> None:
    """"which routers fail SSH-V2" → "how do i fix that" → "are any of those pci scoped": the routers listed, whether
    any is in PCI scope and which — the fix asked nothing of its own to point at (it was read as a question about
    SLIC signatures and PCI)."""
    in_pci = [d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = "
                                              f"({LATEST}) AND r.status = 'fail' AND r.rule_id = 'SSH-V2' AND "
                                              "a.device_type = 'router' AND s.pci_scope")]
    assert in_pci
    chat = Chat(services)
    chat("which routers fail SSH-V2")
    chat("how do i fix that")
    state = chat("are any of those pci scoped")
    lead = state.final.answer.split("\n\n", 1)[1]
    assert lead.startswith("**Yes"), lead[:300]
    assert all(d in lead for d in in_pci), (in_pci, lead[:500])


def test_which_one_of_a_kind_named_in_the_singular_is_a_device(demo_warehouse: Path, services: Services) -> None:
    """"which leaf is lowest" after the pass rate of the spines and then of the leaf switches: the leaf switch with
    the lowest pass rate, not the role compared with the other."""
    rates = sql(demo_warehouse, "SELECT r.asset_id, 100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / "
                                f"COUNT(*) p FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND a.role = 'leaf' "
                                "GROUP BY 1 ORDER BY p")
    lowest = [d for d, p in rates if p == rates[0][1]]
    chat = Chat(services)
    chat("pass rate of the spine switches")
    chat("what about the leaf switches")
    state = chat("which leaf is lowest")
    assert any(d in first_line(state.final.answer) for d in lowest), state.final.answer[:300]


def test_sorting_a_ranking_by_a_rate_sorts_its_rows_by_their_whole_rate(demo_warehouse: Path,
                                                                        services: Services) -> None:
    """"top 5 devices by high findings" → "sort them by pass rate": those five, each by its pass rate over every
    check — not a new top five of the high-severity checks' pass rate."""
    chat = Chat(services)
    ranked = chat("top 5 devices by high findings")
    listed = re.findall(r"^\| (?:\d+ \| )?([A-Z]+-[\w-]+) \|", ranked.final.answer, re.M)
    assert listed, ranked.final.answer[:500]
    state = chat("sort them by pass rate")
    query = state.intent.query
    assert query is not None and query.condition("severity") is None, query
    rates = sql(demo_warehouse, "SELECT r.asset_id, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) "
                                f"/ COUNT(*), 1) p FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND r.asset_id IN "
                                f"({', '.join('?' for _ in listed)}) GROUP BY 1 ORDER BY p", listed)
    assert first_line(state.final.answer).startswith(f"**{rates[0][0]}**"), (rates, state.final.answer[:300])
    assert f"{rates[0][1]}%" in first_line(state.final.answer), (rates, state.final.answer[:300])


def test_which_of_the_two_series_improved_more_compares_their_change(demo_warehouse: Path,
                                                                     services: Services) -> None:
    """Two series one after the other (high findings at the datacenters, then the branches, over the last 3 runs) →
    "which of the two improved more": the one whose figure fell the most (or rose the least) between the first and
    the last run — not the two series summed over the runs — and "its worst site" is of that one."""
    runs = [r for r, in sql(demo_warehouse, RUNS)][-3:]
    per = {}
    for kind in ("datacenter", "branch"):
        per[kind] = [n for n, in (sql(demo_warehouse, FAILS + " AND r.severity = 'high' AND s.site_type = ?",
                                      [run, kind])[0] for run in (runs[0], runs[-1]))]
    best = min(per, key=lambda k: per[k][1] - per[k][0])
    assert per["datacenter"][1] - per["datacenter"][0] != per["branch"][1] - per["branch"][0]
    chat = Chat(services)
    chat("high findings at the datacenters over the last 3 runs")
    chat("and the branches?")
    state = chat("which of the two improved more")
    lead = first_line(state.final.answer)
    assert f"**{best}**" in lead or best in lead.split(":")[0], (per, lead)
    assert f"{per[best][0]} → {per[best][1]}" in lead, (per, lead)
    worst = sql(demo_warehouse, f"SELECT a.site, COUNT(*) FILTER (WHERE r.severity = 'critical') c, COUNT(*) FILTER "
                                f"(WHERE r.severity = 'high') h, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = "
                                f"({LATEST}) AND r.status = 'fail' AND s.site_type = ? GROUP BY 1 ORDER BY c DESC, "
                                "h DESC, n DESC", [best])
    its = first_line(chat("and its worst site?").final.answer)
    assert its.startswith(f"**{worst[0][0]}**"), (worst[:3], its)


def test_list_them_after_a_yes_is_the_rows_and_a_place_after_a_list_is_no_yes_no(demo_warehouse: Path,
                                                                                  services: Services) -> None:
    """"devices with no critical findings in us-west" → "and in us-east?" (a list there, not "Yes — …") → "are any
    of them routers?" (Yes/No) → "list them": the routers, not the checks they were counted by."""
    none_critical = (f"SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND s.region = 'us-east' "
                     "{and_type} GROUP BY 1 HAVING COUNT(*) FILTER (WHERE r.status = 'fail' AND r.severity = "
                     "'critical') = 0")
    routers = [d for d, in sql(demo_warehouse, none_critical.format(and_type="AND a.device_type = 'router'"))]
    assert routers
    chat = Chat(services)
    chat("devices with no critical findings in us-west")
    east = chat("and in us-east?")
    assert east.intent.query is not None and east.intent.query.output == "list", east.intent.query
    assert not first_line(east.final.answer).startswith("**Yes"), first_line(east.final.answer)
    assert first_line(chat("are any of them routers?").final.answer).startswith("**Yes"), "yes/no asked"
    listed = chat("list them")
    query = listed.intent.query
    assert query is not None and query.group_by == ["device"] and query.output == "list", query
    assert all(d in listed.final.answer for d in routers), (routers, listed.final.answer[:500])


def test_is_that_in_our_standard_after_one_check_asks_the_documents_about_that_check(
        demo_warehouse: Path, services: Services) -> None:
    """"which switches fail L2-BPDUGUARD" → "is this part of our standard?": the standard's words on that check,
    cited — it answered "Not found in the knowledge base" (the pronoun named nothing the documents hold)."""
    chat = Chat(services)
    chat("which switches fail L2-BPDUGUARD")
    state = chat("is this part of our standard?")
    answer = state.final.answer
    assert "Not found" not in answer and "L2-BPDUGUARD" in first_line(answer), answer[:400]
    assert "[1]" in first_line(answer) and "bpduguard" in first_line(answer).lower(), answer[:400]


def test_sort_worst_first_orders_the_groups_shown_and_it_is_then_the_first(demo_warehouse: Path,
                                                                          services: Services) -> None:
    """"pass rate per region" → "sort them worst first": the regions, lowest pass rate first (it ranked the sites
    anew by failed checks) — and "how many devices does it have" is of that region."""
    rates = sql(demo_warehouse, "SELECT s.region, 100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / "
                                f"COUNT(*) p FROM {FLEET} WHERE r.assessment_id = ({LATEST}) GROUP BY 1 ORDER BY p")
    (devices,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets a JOIN sites s ON s.site = a.site WHERE "
                                      "a.collection = 'fleet' AND s.region = ?", [rates[0][0]])
    chat = Chat(services)
    chat("pass rate per region")
    state = chat("sort them worst first")
    query = state.intent.query
    assert query is not None and query.group_by == ["region"] and query.order is not None, query
    assert first_line(state.final.answer).startswith(f"**{rates[0][0]}**"), state.final.answer[:300]
    assert first_line(chat("how many devices does it have").final.answer).startswith(f"**{devices}"), "its devices"


def test_its_figure_after_whether_a_row_still_leads_is_that_rows(demo_warehouse: Path, services: Services) -> None:
    """"which region had the most failed checks in september" → "is it still the top one" → "what's its count now":
    the region asked about, whichever leads now."""
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per = f"SELECT s.region, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' GROUP BY 1 " \
          "ORDER BY n DESC"
    then = sql(demo_warehouse, per, [runs[1]])[0][0]
    now = dict(sql(demo_warehouse, per, [runs[-1]]))
    chat = Chat(services)
    chat("which region had the most failed checks in september")
    chat("is it still the top one")
    lead = first_line(chat("how many failed checks does it have now").final.answer)
    assert lead.startswith(f"**{now[then]}**") and then in lead, (then, now, lead)


def test_dropping_the_one_kind_kept_takes_the_filter_off(demo_warehouse: Path, services: Services) -> None:
    """"failed checks per site type for firewalls" → "ok drop the firewalls": every device per site type again — it
    kept the firewalls and left them out at once ("None — no site types")."""
    per = dict(sql(demo_warehouse, f"SELECT s.site_type, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                   "r.status = 'fail' GROUP BY 1"))
    chat = Chat(services)
    chat("failed checks per site type for firewalls")
    state = chat("ok drop the firewalls")
    query = state.intent.query
    assert query is not None and query.condition("device_type") is None and query.group_by == ["site_type"], query
    assert f"**{sum(per.values()):,}**" in first_line(state.final.answer), (per, state.final.answer[:300])


def test_of_that_type_is_the_value_the_last_ranking_led_with(demo_warehouse: Path, services: Services) -> None:
    """"high findings by platform" → "which platform has the most" → "show the devices on that platform with a high
    finding": that platform's devices — it listed every platform's."""
    per = sql(demo_warehouse, f"SELECT a.platform, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                              "r.status = 'fail' AND r.severity = 'high' GROUP BY 1 ORDER BY n DESC")
    assert per[0][1] > per[1][1]
    (devices,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = "
                                      f"({LATEST}) AND r.status = 'fail' AND r.severity = 'high' AND a.platform = ?",
                      [per[0][0]])
    chat = Chat(services)
    chat("high findings by platform")
    chat("which platform has the most")
    state = chat("show the devices on that platform with a high finding")
    assert first_line(state.final.answer).startswith(f"**{devices} devices**"), (per[0], state.final.answer[:300])


def test_a_new_region_keeps_the_kind_of_site_asked_about(demo_warehouse: Path, services: Services) -> None:
    """"failed checks at the branches in us-central" → "and us-east?": the branches in us-east — a region is no kind
    of site, so it replaces the region only (it dropped the branches and counted all of us-east)."""
    (n,), = sql(demo_warehouse, FAILS + " AND s.site_type = 'branch' AND s.region = 'us-east'",
                [[r for r, in sql(demo_warehouse, RUNS)][-1]])
    chat = Chat(services)
    chat("failed checks at the branches in us-central")
    state = chat("and us-east?")
    query = state.intent.query
    assert query is not None and query.condition("site_type") is not None, query
    assert first_line(state.final.answer).startswith(f"**{n}**"), (n, state.final.answer[:300])


def _month_of(warehouse: Path, run: str) -> str:
    (month,), = sql(warehouse, "SELECT strftime(started_at, '%B') FROM assessments WHERE assessment_id = ?", [run])
    return str(month).lower()


def test_a_row_picked_by_its_place_with_it_is_that_row_in_the_run_the_list_was_of(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    earlier = [r for r, in sql(demo_warehouse, RUNS)][-2]
    ranked = sql(demo_warehouse, f"""SELECT a.asset_id, COUNT(*) FILTER (WHERE r.status = 'fail') FROM {FLEET}
        WHERE r.assessment_id = ? GROUP BY 1 ORDER BY 100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*),
        1 LIMIT 3""", [earlier])
    chat = Chat(services)
    chat(f"devices ranked by pass rate in {_month_of(demo_warehouse, earlier)}, lowest first")
    device, failed = ranked[2]
    answer = chat("ok the third one, what is it failing?").final.answer
    assert first_line(answer).startswith(f"{device} has {failed} failed checks"), answer[:300]
    assert earlier in first_line(answer), answer[:300]


def test_groups_asked_best_or_worst_first_are_every_group_in_that_order(demo_warehouse: Path,
                                                                        services: Services) -> None:
    earlier = [r for r, in sql(demo_warehouse, RUNS)][-2]
    per = sql(demo_warehouse, f"SELECT s.region, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' GROUP BY 1 ORDER BY n DESC, 1", [earlier])
    answer = handle_turn(f"failed checks by region in {_month_of(demo_warehouse, earlier)}, worst first",
                         services=services).final.answer
    rows = re.findall(r"^\| ([\w-]+) \| ([\d,]+) \|$", answer, re.M)
    assert len(per) > 1 and rows == [(region, f"{n:,}") for region, n in per], answer[:500]


def test_the_worst_row_of_another_kind_than_the_last_ranking_is_a_question_of_its_own(demo_warehouse: Path,
                                                                                      services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (site, rate), = sql(demo_warehouse, f"""SELECT a.site, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') /
        COUNT(*), 1) p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 ORDER BY p, 1 LIMIT 1""", [latest])
    chat = Chat(services)
    chat("which tier has the best pass rate")
    answer = chat("worst site by pass rate").final.answer
    assert first_line(answer).startswith(f"**{site}** has the lowest pass rate: {rate}%"), answer[:300]


def test_which_of_those_sites_narrows_the_sites_listed_not_their_devices(demo_warehouse: Path,
                                                                         services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    where = "FROM slic_results x JOIN assets a ON a.asset_id = x.asset_id AND a.collection = 'fleet' JOIN sites s ON " \
            "s.site = a.site WHERE x.assessment_id = ? AND x.signature_id = 'SLIC-CFG-004'"
    kept = {site for site, in sql(demo_warehouse, f"SELECT DISTINCT a.site {where} AND s.region = 'us-east'", [latest])}
    dropped = {site for site, in sql(demo_warehouse, f"SELECT DISTINCT a.site {where} AND s.region <> 'us-east'",
                                     [latest])}
    chat = Chat(services)
    chat("how many boxes match SLIC-CFG-004")
    chat("where are they, by site")
    answer = chat("which of those sites are in us-east?").final.answer
    assert "devices of an earlier answer" not in answer, answer[:300]
    named = set(re.findall(r"\b(?:Store-\d+|Branch-\d+|Site-[AB]|HQ|DataCenter-\d|Lab-1)\b", answer))
    assert kept and named == kept and not named & dropped, answer[:500]


def test_worst_with_no_figure_of_its_own_is_worst_by_the_figure_just_asked(demo_warehouse: Path,
                                                                           services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (branch, rate), = sql(demo_warehouse, f"""SELECT a.site, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') /
        COUNT(*), 1) p FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'branch' GROUP BY 1 ORDER BY p, 1
        LIMIT 1""", [latest])
    chat = Chat(services)
    chat("pass rate at the branches compared with the campuses")
    answer = chat("which branch is worst at the moment").final.answer
    assert first_line(answer).startswith(f"**{branch}** has the lowest pass rate: {rate}%"), answer[:300]
    # on its own, "worst" ranks by severity: the most critical failures first
    alone = handle_turn("which branch is the worst?", services=services).final.answer
    assert "pass rate" not in first_line(alone), alone[:300]


def test_a_grouping_said_with_a_hyphenated_value_before_it_groups_that_values_rows(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"""SELECT a.os_version, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') /
        COUNT(*), 1) FROM {FLEET} WHERE r.assessment_id = ? AND a.platform = 'nx-os' GROUP BY 1""", [latest])
    answer = handle_turn("pass rate per nx-os release", services=services).final.answer
    assert len(per) > 1, per
    for release, rate in per:
        assert re.search(rf"{re.escape(release)}\D{{0,12}}\b{rate}%", answer), (release, rate, answer[:500])


def test_how_many_on_one_of_the_releases_listed_counts_the_devices_on_it(demo_warehouse: Path,
                                                                        services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND device_type = 'switch' "
                                "AND os_version = '17.9.4'")
    chat = Chat(services)
    chat("which software releases are the switches on")
    answer = chat("how many are on 17.9.4?").final.answer
    assert first_line(answer).startswith(f"**{n}**"), answer[:300]


def test_one_word_of_a_signatures_title_said_before_signature_names_it(demo_warehouse: Path,
                                                                       services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT asset_id) FROM slic_results WHERE assessment_id = ? AND "
                                "signature_id = 'SLIC-EVT-002'", [latest])
    (every,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT asset_id) FROM slic_results WHERE assessment_id = ?",
                    [latest])
    answer = handle_turn("how many boxes hit the routing signature", services=services).final.answer
    assert n != every and first_line(answer).startswith((f"**{n}**", f"**{n} devices**")), answer[:300]


def test_the_exception_for_a_check_after_exceptions_listed_is_the_one_listed_for_it(demo_warehouse: Path,
                                                                                     services: Services) -> None:
    (exception, expires, approver), = sql(demo_warehouse, "SELECT exception_id, expires_on, approved_by FROM "
                                                          "exceptions WHERE rule_id = 'IF-URPF-EDGE'")
    chat = Chat(services)
    chat("show the exceptions for DataCenter-2")
    answer = chat("when does the exception for IF-URPF-EDGE run out?").final.answer
    assert exception in first_line(answer) and str(expires) in answer, answer[:400]
    assert approver in chat("and who signed it off").final.answer


def test_the_ones_in_the_region_a_ranking_led_with_are_the_things_it_counted_there(demo_warehouse: Path,
                                                                                    services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    failing = f"FROM {FLEET} WHERE r.assessment_id = ? AND r.status = 'fail' AND r.rule_id = 'NTP-AUTH'"
    (region,), = sql(demo_warehouse, f"SELECT s.region {failing} GROUP BY 1 ORDER BY COUNT(DISTINCT r.asset_id) DESC, "
                                     "1 LIMIT 1", [latest])
    there = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id {failing} AND s.region = ?",
                             [latest, region])}
    elsewhere = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id {failing} AND s.region <> ?",
                                 [latest, region])}
    chat = Chat(services)
    chat("which region has the most devices failing NTP-AUTH")
    answer = chat("show me the ones in that region").final.answer
    named = set(re.findall(r"\b(?:RTR|SW|FW|WLC|NX)-[\w-]+", answer))
    assert there and named == there and not named & elsewhere, answer[:600]


def test_the_worse_or_most_common_row_of_a_list_not_ranked_is_picked_by_its_figure(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = sql(demo_warehouse, f"""SELECT r.asset_id, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') /
        COUNT(*), 1) p FROM {FLEET} WHERE r.assessment_id = ? AND a.site = 'Lab-1' GROUP BY 1 ORDER BY p, 1""",
                [latest])
    assert len(rates) > 1 and rates[0][1] != rates[1][1], rates
    chat = Chat(services)
    chat("how many devices at Lab-1")
    chat("list them with their pass rate")
    answer = chat("what fails on the worse one?").final.answer
    assert first_line(answer).startswith(f"{rates[0][0]} has"), answer[:300]
    per = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' AND r.severity = 'high' AND s.site_type = 'branch' GROUP BY 1 "
                              "ORDER BY n DESC, 1", [latest])
    assert len(per) > 1 and per[0][1] > per[1][1], per
    devices = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? "
                                               "AND r.status = 'fail' AND r.rule_id = ? AND s.site_type = 'branch'",
                               [latest, per[0][0]])}
    chat = Chat(services)
    chat("high severity failures at the branches")
    chat("per check")
    answer = chat("which devices fail the most common one").final.answer
    assert set(re.findall(r"\b(?:RTR|SW|FW|WLC|NX)-[\w-]+", answer)) == devices, answer[:600]


def test_how_many_with_no_thing_named_counts_the_figure_the_conversation_counts(demo_warehouse: Path,
                                                                                 services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"{FAILS} AND a.site = 'Site-B'", [latest])
    (devices,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND site = 'Site-B'")
    chat = Chat(services)
    chat("failed checks month by month at Branch-03")
    answer = chat("how many does Site-B have at the moment").final.answer
    assert n != devices and first_line(answer).startswith(f"**{n}**"), answer[:300]


def test_the_same_ones_asked_of_another_device_are_the_rows_just_shown(demo_warehouse: Path,
                                                                       services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    mine = {r for r, in sql(demo_warehouse, "SELECT rule_id FROM results WHERE assessment_id = ? AND asset_id = "
                                            "'RTR-CORE-1' AND status = 'fail' AND severity = 'critical'", [latest])}
    theirs = {r for r, in sql(demo_warehouse, "SELECT rule_id FROM results WHERE assessment_id = ? AND asset_id = "
                                              "'RTR-LAB1-1' AND status = 'fail'", [latest])}
    assert mine, mine
    chat = Chat(services)
    chat("critical findings on RTR-CORE-1")
    answer = chat("does RTR-LAB1-1 fail the same checks?").final.answer
    assert first_line(answer).startswith("**Yes**" if mine & theirs else "**No**"), answer[:300]
    listed = set(re.findall(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b", answer)) - {"RTR-LAB1-1", latest}
    assert listed <= mine, (listed, answer[:500])
    # then what it fails, asked whole: every check it fails, not the ones the last question chose
    answer = chat("so what is RTR-LAB1-1 failing?").final.answer
    assert f"has {len(theirs)} failed checks" in first_line(answer), answer[:300]


def test_a_month_before_after_a_figure_is_that_figure_in_the_run_before(demo_warehouse: Path,
                                                                        services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (now,), = sql(demo_warehouse, f"{FAILS} AND a.site = 'Branch-05'", [runs[-1]])
    (before,), = sql(demo_warehouse, f"{FAILS} AND a.site = 'Branch-05'", [runs[-2]])
    assert now != before
    chat = Chat(services)
    chat("failed checks at Branch-05")
    assert first_line(chat("and the month before?").final.answer).startswith(f"**{before}**")


def test_how_many_of_them_counts_them_whatever_figure_words_follow(demo_warehouse: Path,
                                                                   services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (devices, checks), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id), COUNT(*) FROM {FLEET} WHERE "
                                             "r.assessment_id = ? AND r.status = 'fail' AND r.severity = 'high' AND "
                                             "s.region = 'us-west'", [latest])
    assert devices != checks
    chat = Chat(services)
    chat("how many devices are in us-west")
    answer = chat("how many of them failed a high check").final.answer
    assert first_line(answer).startswith(f"**{devices}**"), answer[:300]


def test_the_store_after_a_question_about_one_store_is_that_store(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rate = {s: p for s, p in sql(demo_warehouse, f"""SELECT a.site, ROUND(100.0 * COUNT(*) FILTER (WHERE r.status =
        'pass') / COUNT(*), 1) FROM {FLEET} WHERE r.assessment_id = ? AND a.site IN ('Store-38', 'Store-39')
        GROUP BY 1""", [latest])}
    chat = Chat(services)
    chat("which devices at Store-38 fail the most checks")
    assert first_line(chat("and the pass rate of the store as a whole?").final.answer).startswith(
        f"**{rate['Store-38']}%**")
    answer = chat("compared with Store-39").final.answer
    assert all(f"{p}%" in answer for p in rate.values()) and "Unverified" not in answer, answer[:400]


def test_the_things_a_led_row_counted_are_counted_again_where_the_words_say(demo_warehouse: Path,
                                                                              services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    matched = ("FROM slic_results x JOIN assets a ON a.asset_id = x.asset_id AND a.collection = 'fleet' JOIN sites s "
               "ON s.site = a.site WHERE x.assessment_id = ? AND x.severity = 'high'")
    (top, n), = sql(demo_warehouse, f"SELECT x.signature_id, COUNT(DISTINCT x.asset_id) n {matched} GROUP BY 1 "
                                    "ORDER BY n DESC, 1 LIMIT 1", [latest])
    (branches,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT x.asset_id) {matched} AND x.signature_id = ? AND "
                                       "s.site_type = 'branch'", [latest, top])
    chat = Chat(services)
    chat("list the high severity signatures that matched")
    assert first_line(chat("which one matched the most devices?").final.answer).startswith(f"**{top}**")
    answer = chat("how many of those devices are at the branches").final.answer
    assert first_line(answer).startswith(f"**{branches}**"), answer[:300]


def test_that_role_and_the_kind_said_after_a_ranking_or_a_count(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (role,), = sql(demo_warehouse, f"""SELECT a.role FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 ORDER BY
        100.0 * COUNT(*) FILTER (WHERE r.status = 'pass') / COUNT(*) DESC, 1 LIMIT 1""", [latest])
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND role = ?", [role])
    chat = Chat(services)
    chat("which role has the best pass rate")
    assert first_line(chat("how many boxes have that role").final.answer).startswith(f"**{n}**")
    routers = {d for d, in sql(demo_warehouse, "SELECT DISTINCT e.asset_id FROM events e JOIN assets a ON a.asset_id "
                                               "= e.asset_id AND a.collection = 'fleet' WHERE e.mnemonic = "
                                               "'SYS-2-MALLOCFAIL' AND a.device_type = 'router'")}
    chat = Chat(services)
    chat("how many memory allocation failures did the switches log")
    answer = chat("which routers were they on").final.answer
    assert routers and set(re.findall(r"\b(?:RTR|SW|FW|WLC|NX)-[\w-]+", answer)) == routers, answer[:500]


def test_whether_the_devices_listed_share_one_value_is_yes_only_when_they_do(demo_warehouse: Path,
                                                                            services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    sites = {s for s, in sql(demo_warehouse, f"SELECT DISTINCT a.site FROM {FLEET} WHERE r.assessment_id = ? AND "
                                             "r.status = 'fail' AND r.rule_id = 'SNMP-V3-PRIV' AND "
                                             "a.device_type = 'router'", [latest])}
    chat = Chat(services)
    chat("which routers fail SNMP-V3-PRIV")
    answer = chat("are they all at the same site?").final.answer
    assert first_line(answer).startswith("**Yes**" if len(sites) == 1 else f"**No** — {len(sites)} sites"), answer


def test_how_many_of_them_fail_a_check_the_last_answer_showed_counts_them(demo_warehouse: Path,
                                                                          services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    failing = {d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                               "r.status = 'fail' AND r.rule_id = 'ASA-TLS' AND a.os_version = "
                                               "'9.8(4)' AND s.site_type = 'store'", [latest])}
    regions = {g for g, in sql(demo_warehouse, "SELECT DISTINCT s.region FROM assets a JOIN sites s ON s.site = a.site "
                                               f"WHERE a.collection = 'fleet' AND a.asset_id IN "
                                               f"({', '.join(repr(d) for d in failing)})")}
    releases = {g for g, in sql(demo_warehouse, "SELECT DISTINCT os_version FROM assets WHERE collection = 'fleet' "
                                                f"AND asset_id IN ({', '.join(repr(d) for d in failing)})")}
    chat = Chat(services)
    chat("list the asas on 9.8(4) at the stores")
    answer = chat("how many of them fail ASA-TLS?").final.answer
    assert len(failing) > 1 and first_line(answer).startswith(f"**{len(failing)}**"), answer[:300]
    answer = chat("are they all in the same region").final.answer
    assert first_line(answer).startswith("**Yes**" if len(regions) == 1 else f"**No** — {len(regions)} regions"), answer
    answer = chat("and do they all run the same release?").final.answer
    assert first_line(answer).startswith("**Yes**" if len(releases) == 1 else "**No**"), answer[:300]


def test_more_of_a_figure_in_one_month_than_another_is_the_rows_that_got_worse(demo_warehouse: Path,
                                                                               services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (worse,), = sql(demo_warehouse, f"""WITH x AS (SELECT a.site, COUNT(*) FILTER (WHERE r.assessment_id = ?) o,
        COUNT(*) FILTER (WHERE r.assessment_id = ?) n FROM {FLEET} WHERE r.status = 'fail' GROUP BY 1)
        SELECT COUNT(*) FROM x WHERE n > o""", [runs[-3], runs[-2]])
    months = [_month_of(demo_warehouse, r) for r in runs[-3:-1]]
    answer = handle_turn(f"which sites had more failed checks in {months[1]} than in {months[0]}",
                         services=services).final.answer
    assert first_line(answer).startswith(f"**{worse} sites** got worse"), answer[:300]


def test_how_many_did_it_fail_then_is_the_row_picked_counted_in_the_run_in_play(demo_warehouse: Path,
                                                                                services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' AND a.device_type = 'router' GROUP BY 1 ORDER BY 2 DESC", [runs[1]])
    assert per[0][1] > per[1][1], per[:2]  # (the data has one leader then)
    chat = Chat(services)
    chat("which router has the most failed checks")
    assert first_line(chat(f"and in {_month_of(demo_warehouse, runs[1])}?").final.answer).startswith(f"**{per[0][0]}**")
    answer = chat("how many did it fail then").final.answer
    assert first_line(answer).startswith(f"**{per[0][1]}** failed checks") and runs[1] in first_line(answer), answer


def test_a_figure_over_a_group_of_places_and_which_of_them_changed_most_since_a_month(demo_warehouse: Path,
                                                                                      services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (pooled,), = sql(demo_warehouse, f"SELECT {PASS} "
                                     f"FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'store'", [runs[-1]])
    answer = Chat(services)("overall pass rate across the stores").final.answer
    assert first_line(answer).startswith(f"**{pooled}%**"), answer[:300]  # one figure, not one per store
    rates = dict(sql(demo_warehouse, f"""SELECT s.region, ROUND(100.0 * AVG(CASE WHEN r.status = 'pass' THEN 1 ELSE 0
        END) FILTER (WHERE r.assessment_id = ?), 1) - ROUND(100.0 * AVG(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END)
        FILTER (WHERE r.assessment_id = ?), 1) FROM {FLEET} GROUP BY 1""", [runs[-1], runs[0]]))
    fell = sorted(rates.items(), key=lambda kv: kv[1])
    assert fell[0][1] < 0 and fell[0][1] < fell[1][1], fell  # (one region fell the most)
    chat = Chat(services)
    chat("pass rate per region")
    answer = chat(f"which of them fell the most since {_month_of(demo_warehouse, runs[0])}").final.answer
    assert first_line(answer).startswith(f"**{fell[0][0]}** got worse the most") and runs[0] in first_line(answer), \
        answer[:300]


def test_a_percentage_bound_alone_bounds_the_pass_rate_and_their_devices_are_those_places(demo_warehouse: Path,
                                                                                        services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rates = sql(demo_warehouse, f"SELECT a.site, {PASS} "
                                f"FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'branch' GROUP BY 1", [latest])
    below = sorted(site for site, rate in rates if rate < 78)
    assert 1 < len(below) < len(rates), rates
    (devices,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND site IN "
                                      f"({', '.join(repr(s) for s in below)})")
    chat = Chat(services)
    answer = chat("which branches are below 78 percent").final.answer
    assert sorted(re.findall(r"Branch-\d+", first_line(answer))) == below, answer[:400]
    answer = chat("how many devices do they have").final.answer
    assert first_line(answer).startswith(f"**{devices}** devices"), answer[:300]


def test_the_ones_listed_after_the_row_a_ranking_led_with_are_the_things_it_counted(demo_warehouse: Path,
                                                                                    services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT a.device_type, COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? "
                              "AND r.status = 'fail' AND r.rule_id = 'SNMP-V3-PRIV' GROUP BY 1 ORDER BY 2 DESC", [latest])
    assert per[0][1] > per[1][1], per
    there = sorted(d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? "
                                                   "AND r.status = 'fail' AND r.rule_id = 'SNMP-V3-PRIV' AND "
                                                   "s.region = 'us-east' AND a.device_type = ?", [latest, per[0][0]]))
    chat = Chat(services)
    chat("devices failing SNMP-V3-PRIV per device type")
    chat("which type has the most")
    answer = chat("show me the ones in us-east").final.answer
    named = set(re.findall(r"\b[A-Z]{2,4}-[A-Z0-9-]+\b", answer)) - {"SNMP-V3-PRIV", latest}
    assert len(there) > 1 and named == set(there), (there, answer[:600])


def test_in_the_latest_run_re_times_a_figure_asked_of_an_earlier_run(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    then, now = (sql(demo_warehouse, FAILS + " AND r.severity = 'critical' AND s.site_type = 'branch'", [run])[0][0]
                 for run in (runs[0], runs[-1]))
    assert then != now
    chat = Chat(services)
    chat(f"how many critical failures in {_month_of(demo_warehouse, runs[0])}")
    assert first_line(chat("how many of those at the branches").final.answer).startswith(f"**{then}**")
    answer = chat("and for the most recent run").final.answer
    assert first_line(answer).startswith(f"**{now}**") and runs[-1] in first_line(answer), answer[:300]


def test_what_the_devices_counted_fail_most_then_how_many_of_them_fail_that(demo_warehouse: Path,
                                                                            services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' AND a.os_version = '17.3.4a' GROUP BY 1 ORDER BY 2 DESC", [latest])
    assert per[0][1] > per[1][1], per[:2]
    chat = Chat(services)
    chat("how many devices are on 17.3.4a")
    answer = chat("what do they fail most").final.answer
    assert first_line(answer).startswith(f"**{per[0][0]}**"), answer[:300]  # (it was a compile error)
    answer = chat("and how many of them fail that one").final.answer
    assert first_line(answer).startswith(f"**{per[0][1]}**"), answer[:300]


def test_since_then_is_since_the_run_the_last_answer_was_of(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rates = {site: {run: rate for run, rate in sql(
        demo_warehouse, f"SELECT r.assessment_id, {PASS} "
                        f"FROM {FLEET} WHERE a.site = ? GROUP BY 1", [site])} for site in ("Store-30", "Store-33")}
    drop = {site: r[runs[-1]] - r[runs[0]] for site, r in rates.items()}
    assert min(drop.values()) < 0 and drop["Store-30"] != drop["Store-33"], drop
    chat = Chat(services)
    chat("pass rate of Store-30 vs Store-33")
    chat(f"what about in {_month_of(demo_warehouse, runs[0])}")
    answer = chat("so which one fell more since then").final.answer
    assert first_line(answer).startswith(f"**{min(drop, key=drop.__getitem__)}**") and runs[0] in first_line(answer), \
        answer[:300]


def test_the_ones_of_a_row_and_how_many_devices_have_them(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    high = {s for s, in sql(demo_warehouse, "SELECT DISTINCT x.signature_id FROM slic_results x JOIN assets a ON "
                                            "a.asset_id = x.asset_id AND a.collection = 'fleet' WHERE "
                                            "x.assessment_id = ? AND x.severity = 'high'", [latest])}
    (devices,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT x.asset_id) FROM slic_results x JOIN assets a ON "
                                      "a.asset_id = x.asset_id AND a.collection = 'fleet' WHERE x.assessment_id = ? "
                                      "AND x.severity = 'high'", [latest])
    chat = Chat(services)
    chat("number of slic matches by severity")
    answer = chat("show me the high ones").final.answer
    assert len(high) > 1 and high <= set(re.findall(r"SLIC-[A-Z]+-\d+", answer)), (high, answer[:400])
    answer = chat("how many devices have them").final.answer
    assert first_line(answer).startswith(f"**{devices}**"), answer[:300]


def test_a_figure_per_group_is_a_data_question_whatever_the_frame_leans_to(demo_warehouse: Path,
                                                                           services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = dict(sql(demo_warehouse, f"SELECT s.region, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                   "r.status = 'fail' AND r.severity = 'critical' GROUP BY 1", [latest]))
    for asked in ("critical deviations per region", "breakdown of critical failures by region"):
        answer = handle_turn(asked, services=services).final.answer
        for region, n in per.items():  # (a breakdown by a dimension the analysis tool has no breakdown for: compiled)
            assert re.search(rf"\*\*{region}\*\* {n}\b", first_line(answer)), (asked, region, n, answer[:300])


def test_any_of_them_in_a_region_after_a_list_is_yes_or_no_then_which(demo_warehouse: Path,
                                                                      services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    there = sorted(d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? "
                                                   "AND r.status = 'fail' AND r.rule_id = 'BGP-NEIGHBOR-AUTH' AND "
                                                   "a.device_type = 'router' AND s.region = 'us-west'", [latest]))
    chat = Chat(services)
    chat("which routers fail BGP-NEIGHBOR-AUTH")
    answer = chat("any of them in us-west?").final.answer
    assert first_line(answer).startswith("**Yes**" if there else "**No**"), answer[:300]
    assert all(d in first_line(answer) for d in there), answer[:300]


def test_a_row_asked_for_after_an_answer_with_no_ranking_is_asked_back_not_refused(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    chat = Chat(services)
    chat("summary of the latest assessment")
    for asked in ("which is highest", "and the lowest?"):
        answer = chat(asked).final.answer
        assert "outside what I know" not in answer and answer.startswith("Which figure, over which rows?"), answer[:300]
    assert "outside what I know" in chat("what is the weather like").final.answer  # (still refused when off topic)


def test_a_side_qualified_by_a_word_before_it_is_set_against_everything_else(demo_warehouse: Path,
                                                                             services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (side, rest), = sql(demo_warehouse, f"""SELECT COUNT(*) FILTER (WHERE s.region = 'us-east' AND s.site_type = 'store'),
        COUNT(*) FILTER (WHERE NOT (s.region = 'us-east' AND s.site_type = 'store')) FROM {FLEET}
        WHERE r.assessment_id = ? AND r.status = 'fail'""", [latest])
    answer = handle_turn("number of failed checks at the us-east stores compared with everything else",
                         services=services).final.answer
    assert re.search(rf"\*\*store\*\* {side}\b", first_line(answer)) and \
        re.search(rf"\*\*everything else\*\* {rest}\b", first_line(answer)), (side, rest, answer[:300])


def test_how_many_is_that_across_the_whole_fleet_counts_the_list_without_its_place(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'SSH-V2' AND a.device_type = 'switch'", [latest])
    chat = Chat(services)
    chat("which switches at Site-B fail SSH-V2")
    answer = chat("how many is that across the whole fleet").final.answer
    assert first_line(answer).startswith(f"**{n} devices**"), (n, answer[:300])


def test_one_row_of_a_breakdown_split_by_another_dimension(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = dict(sql(demo_warehouse, f"SELECT s.region, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                   "r.status = 'fail' AND s.site_type = 'branch' GROUP BY 1", [latest]))
    chat = Chat(services)
    chat("failed checks per site type")
    answer = chat("break branch down by region").final.answer
    for region, n in per.items():
        assert re.search(rf"\*\*{region}\*\* {n}\b", answer), (region, n, answer[:300])


def test_a_span_of_months_is_every_run_in_it_and_now_is_the_latest(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    counts = {run: sql(demo_warehouse, FAILS + " AND a.site = 'Store-41'", [run])[0][0] for run in runs}
    chat = Chat(services)
    answer = chat(f"failed checks at Store-41 from {_month_of(demo_warehouse, runs[0])} to "
                  f"{_month_of(demo_warehouse, runs[2])}").final.answer
    assert all(run in answer for run in runs[:3]) and runs[3] not in answer, answer[:400]  # (the run between, too)
    assert f"| {runs[1]} | {counts[runs[1]]} |" in answer, answer[:400]
    chat("which month had the fewest")
    answer = chat("and now?").final.answer
    assert first_line(answer).startswith(f"**{counts[runs[-1]]}** failed checks") and runs[-1] in first_line(answer), \
        answer[:300]


def test_the_exception_covering_the_most_checks(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT r.exception_id, COUNT(*) FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.exception_id IS NOT NULL GROUP BY 1 ORDER BY 2 DESC", [latest])
    assert per[0][1] > per[1][1], per
    answer = handle_turn("which waiver covers the most checks", services=services).final.answer
    assert first_line(answer).startswith(f"**{per[0][0]}**") and "None" not in first_line(answer), answer[:300]


def test_any_of_those_somewhere_after_a_count_of_devices_is_yes_or_no(demo_warehouse: Path, services: Services) -> None:
    for release, place in (("17.6.5", "HQ"), ("17.9.4", "DataCenter-1")):
        (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND device_type = 'router' "
                                    "AND os_version = ? AND site = ?", [release, place])
        chat = Chat(services)
        chat(f"how many routers run {release}")
        answer = chat(f"any of those at {place}?").final.answer
        assert first_line(answer).startswith("**Yes**" if n else "**No**"), (release, place, n, answer[:300])


def test_it_after_the_newest_release_is_that_release(demo_warehouse: Path, services: Services) -> None:
    (newest,), = sql(demo_warehouse, "SELECT os_version FROM assets WHERE collection = 'fleet' AND platform = 'ios-xe' "
                                     "GROUP BY 1 ORDER BY string_split(os_version, '.')[1]::INT DESC, "
                                     "string_split(os_version, '.')[2]::INT DESC LIMIT 1")
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND device_type = 'router' "
                                "AND os_version = ?", [newest])
    chat = Chat(services)
    assert newest in first_line(chat("what's the newest ios-xe release we run").final.answer)
    answer = chat("how many routers are on it").final.answer
    assert first_line(answer).startswith(f"**{n} routers**") or first_line(answer).startswith(f"**{n}** "), answer[:300]


def test_it_after_a_list_of_one_check_is_that_check(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    rules = sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                                "'fail' AND r.severity = 'critical' AND a.site = 'Branch-05'", [latest])
    assert len(rules) == 1, rules
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = ? AND a.site = 'Branch-05'", [latest, rules[0][0]])
    chat = Chat(services)
    chat("critical findings at Branch-05")
    answer = chat("how many devices have it").final.answer
    assert first_line(answer).startswith(f"**{n}**") and rules[0][0] in answer, answer[:300]


def test_how_many_failed_checks_on_a_kind_of_box_counts_the_checks(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, FAILS + " AND a.os_version = '9.3(10)'", [latest])
    (devices,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                      "r.status = 'fail' AND a.os_version = '9.3(10)'", [latest])
    assert n != devices
    answer = handle_turn("nx-os 9.3(10) switches - how many failed checks altogether", services=services).final.answer
    assert first_line(answer).startswith(f"**{n}** failed checks"), (n, answer[:300])


def test_how_many_of_those_after_a_ranking_led_by_one_row_is_of_that_row(demo_warehouse: Path,
                                                                         services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, "SELECT os_version, COUNT(*) FROM assets WHERE collection = 'fleet' GROUP BY 1 "
                              "ORDER BY 2 DESC")
    assert per[0][1] > per[1][1]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND r.rule_id = 'NTP-AUTH' AND a.os_version = ?", [latest, per[0][0]])
    chat = Chat(services)
    chat("which software version runs on the most devices")
    answer = chat("how many of those fail NTP-AUTH").final.answer
    assert first_line(answer).startswith(f"**{n}**"), (per[0][0], n, answer[:300])


def test_a_count_of_logged_events_is_scoped_to_the_log_not_the_inventory(demo_warehouse: Path,
                                                                         services: Services) -> None:
    run = [r for r, in sql(demo_warehouse, RUNS)][-2]
    (month,), = sql(demo_warehouse, "SELECT strftime(started_at, '%Y-%m') FROM assessments WHERE assessment_id = ?",
                    [run])
    answer = handle_turn(f"failed logins per site in {_month_of(demo_warehouse, run)}, top 5",
                         services=services).final.answer
    assert answer.startswith(f"**Scope:** events logged in {month}"), answer[:200]
    assert "current inventory" not in answer.splitlines()[0], answer[:200]


def test_whats_the_best_one_after_a_figure_per_group_is_the_best_of_those_groups(demo_warehouse: Path,
                                                                                 services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT s.region, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 "
                              "ORDER BY 2 DESC", [latest])
    assert per[0][1] > per[1][1]
    chat = Chat(services)
    chat("pass rate for each region")
    answer = chat("whats the best one").final.answer
    assert first_line(answer).startswith(f"**{per[0][0]}**"), (per, answer[:300])


def test_right_now_after_a_series_is_the_latest_run_not_live_state(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = sql(demo_warehouse, f"SELECT a.site, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "s.site_type = 'datacenter' GROUP BY 1 ORDER BY 2 DESC", [latest])
    assert per[0][1] > per[-1][1]
    chat = Chat(services)
    chat("pass rate trend at the datacenters")
    answer = chat("which datacenter is highest right now").final.answer
    assert first_line(answer).startswith(f"**{per[0][0]}**"), (per, answer[:300])
    # running state asked after a figure is still refused — not the figure again, there
    refused = chat(f"is {per[0][0]} reachable at the moment").final.answer
    assert "live or operational state" in refused and not re.search(r"\d+\.\d%", refused), refused[:300]


def test_the_rows_a_ranking_cut_are_what_they_and_an_ordinal_point_at(demo_warehouse: Path,
                                                                       services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    top = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' AND a.device_type = 'router' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5",
              [latest])
    assert top[2][1] > top[3][1] > top[4][1]  # the fourth is one check, and the cut of four no tie
    severities = {s for s, in sql(demo_warehouse, "SELECT DISTINCT severity FROM rules WHERE rule_id IN (?, ?, ?, ?)",
                                  [r for r, _ in top[:4]])}
    chat = Chat(services)
    chat("4 checks the routers fail most")
    shown = chat("which severities are they").final.answer
    said = {s for s in ("critical", "high", "medium", "low") if re.search(rf"\b{s}\b", first_line(shown))}
    assert said == severities, (severities, shown[:300])
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "r.status = 'fail' AND a.device_type = 'router' AND r.rule_id = ?", [latest, top[3][0]])
    answer = chat("how many routers fail the fourth one").final.answer
    assert first_line(answer).startswith(f"**{n}**") and top[3][0] in answer, (top, n, answer[:300])


def test_there_after_where_a_device_is_is_that_place(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (device, site), = sql(demo_warehouse, f"SELECT r.asset_id, any_value(a.site) FROM {FLEET} WHERE r.assessment_id = ? "
                                          "AND r.status = 'fail' AND a.device_type = 'router' GROUP BY 1 "
                                          "ORDER BY COUNT(*) DESC, 1 LIMIT 1", [latest])
    (rate,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND a.site = ?",
                   [latest, site])
    chat = Chat(services)
    chat(f"which site is {device} in")
    answer = chat("and the pass rate there?").final.answer
    assert first_line(answer).startswith(f"**{rate}%**") and site in first_line(answer), (site, rate, answer[:300])


def test_how_many_devices_they_hit_at_a_place_counts_the_matches_there(demo_warehouse: Path,
                                                                      services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    (n,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT x.asset_id) FROM slic_results x JOIN assets a ON "
                                "a.asset_id = x.asset_id AND a.collection = 'fleet' JOIN sites s ON s.site = a.site "
                                "WHERE x.assessment_id = ? AND x.severity = 'high' AND s.region = 'us-east'", [latest])
    (everywhere,), = sql(demo_warehouse, "SELECT COUNT(DISTINCT x.asset_id) FROM slic_results x JOIN assets a ON "
                                         "a.asset_id = x.asset_id AND a.collection = 'fleet' WHERE x.assessment_id = ? "
                                         "AND x.severity = 'high'", [latest])
    assert n != everywhere
    chat = Chat(services)
    chat("high severity slic signatures")
    answer = chat("how many devices do they match in us-east").final.answer
    assert first_line(answer).startswith(f"**{n}**"), (n, answer[:300])


def test_how_many_devices_after_a_count_of_high_failures_counts_the_devices_failing_high(
        demo_warehouse: Path, services: Services) -> None:
    first = [r for r, in sql(demo_warehouse, RUNS)][0]
    (checks,), = sql(demo_warehouse, FAILS + " AND r.severity = 'high' AND s.region = 'us-west'", [first])
    (devices,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                      "r.status = 'fail' AND r.severity = 'high' AND s.region = 'us-west'", [first])
    assert checks != devices
    chat = Chat(services)
    chat(f"number of high fails in us-west in {_month_of(demo_warehouse, first)}")
    answer = chat("how many boxes is that").final.answer
    assert first_line(answer).startswith(f"**{devices}**"), (checks, devices, answer[:300])


def test_how_many_did_it_have_then_after_the_device_leading_logged_events(demo_warehouse: Path,
                                                                          services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    before, after = (sql(demo_warehouse, "SELECT strftime(started_at, '%Y-%m') FROM assessments WHERE "
                                         "assessment_id = ?", [r])[0][0] for r in runs[1:3])
    led = sql(demo_warehouse, "SELECT e.asset_id, COUNT(*) FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                              "a.collection = 'fleet' WHERE e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' AND a.site = 'HQ' "
                              "AND strftime(e.ts, '%Y-%m') = ? GROUP BY 1 ORDER BY 2 DESC LIMIT 2", [before])
    assert led[0][1] > led[1][1]
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM events e WHERE e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' AND "
                                "e.asset_id = ? AND strftime(e.ts, '%Y-%m') = ?", [led[0][0], after])
    chat = Chat(services)
    chat(f"failed logins at HQ in {_month_of(demo_warehouse, runs[1])}")
    assert led[0][0] in first_line(chat("which device had the most").final.answer)
    answer = chat(f"and how many did it log in {_month_of(demo_warehouse, runs[2])}").final.answer
    assert first_line(answer).startswith(f"**{n}**") and led[0][0] in first_line(answer), (led, n, answer[:300])


def test_how_a_place_did_from_one_month_to_another_is_its_series(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rates = [sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ? AND s.site_type = 'branch'",
                 [r])[0][0] for r in runs[:3]]
    answer = handle_turn(f"how did the branches do between {_month_of(demo_warehouse, runs[0])} and "
                         f"{_month_of(demo_warehouse, runs[2])}", services=services).final.answer
    for rate in rates:
        assert f"{rate}%" in answer, (rates, answer[:400])


def test_things_of_rows_chosen_for_having_none_are_all_their_things(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    clean = f"""SELECT site FROM assets WHERE collection = 'fleet' AND site NOT IN (SELECT a.site FROM {FLEET}
        WHERE r.assessment_id = ? AND r.status = 'fail' AND r.severity = 'critical')"""
    per = sql(demo_warehouse, f"SELECT site, COUNT(*) FROM assets WHERE collection = 'fleet' AND site IN ({clean}) "
                              "GROUP BY 1 ORDER BY 2 DESC", [latest])
    assert len(per) > 2 and per[0][1] > per[1][1]
    chat = Chat(services)
    chat("sites without a single critical failure")
    answer = chat("and how many boxes do they have altogether").final.answer
    assert first_line(answer).startswith(f"**{sum(n for _, n in per)}**"), (per, answer[:300])
    answer = chat("which of those has the most").final.answer
    assert first_line(answer).startswith(f"**{per[0][0]}**"), (per, answer[:300])


def test_how_many_of_a_kind_fail_them_somewhere_counts_that_kind_failing_those_checks(
        demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    checks = [r for r, in sql(demo_warehouse, f"SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                              "r.status = 'fail' GROUP BY 1 HAVING COUNT(DISTINCT r.asset_id) > 40",
                              [latest])]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                f"r.status = 'fail' AND a.device_type = 'switch' AND s.region = 'us-west' AND "
                                f"r.rule_id IN ({', '.join('?' * len(checks))})", [latest, *checks])
    (anything,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ? AND "
                                       "r.status = 'fail' AND a.device_type = 'switch' AND s.region = 'us-west'",
                       [latest])
    assert checks and n != anything
    chat = Chat(services)
    chat("checks failing on more than 40 devices")
    answer = chat("how many switches fail them in us-west").final.answer
    assert first_line(answer).startswith(f"**{n}**"), (checks, n, answer[:300])


def test_they_after_a_filter_that_left_none_are_the_rows_before_it(demo_warehouse: Path, services: Services) -> None:
    (none_left,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND "
                                        "os_version = '16.9.4' AND environment = 'staging'")
    sites = {s for s, in sql(demo_warehouse, "SELECT DISTINCT site FROM assets WHERE collection = 'fleet' AND "
                                             "os_version = '16.9.4'")}
    assert none_left == 0 and len(sites) > 1
    chat = Chat(services)
    chat("boxes running 16.9.4")
    assert first_line(chat("are any of them in staging?").final.answer).startswith("**No**")
    answer = chat("which sites are they in").final.answer
    assert all(s in answer for s in sites) and "staging" not in answer.split("\n\n")[0], (sites, answer[:400])


def test_an_edit_is_always_a_statement_the_compiler_can_make(services: Services) -> None:
    from assessment_engine.query import Bound, Condition, DataQuery
    from assessment_engine.warehouse.query_compiler import QueryError, compile_query
    from orchestration.nlu.query_edits import QueryEdit, compilable

    model = services.catalog.semantic_model
    broken = DataQuery(measures=["devices"], group_by=["site"], output="list",
                       conditions=[Condition(dimension="rule", values=["SSH-V2"]),
                                   Condition(dimension="device_type", values=["switch"])],
                       bounds=[Bound(measure="failed_checks", op=">", value=3)])
    try:
        compile_query(broken, model, "fleet")
        raise AssertionError("the inventory has no rule column: this query must not compile")
    except QueryError:
        pass
    mended = compilable(QueryEdit(broken, [], ["the sites"]), model)
    assert mended is not None
    compile_query(mended.query, model, "fleet")  # raises if it still cannot be made
    assert [c.dimension for c in mended.query.conditions] == ["device_type"] and not mended.query.bounds
    assert any("rule SSH-V2 left out" in n for n in mended.notes), mended.notes
    # a query no statement can make at all (figures of two tables) is no query: the tools answer the turn
    from orchestration.agents.intent_classifier import _compilable
    from orchestration.state import Intent
    mixed = DataQuery(measures=["sites_failing", "sites"], output="value")
    assert compilable(QueryEdit(mixed, [], []), model) is None
    assert _compilable(Intent(query=mixed, asked_query=mixed), model).query is None


def test_there_after_a_row_picked_from_a_ranking_at_a_kind_of_site_is_that_kind(demo_warehouse: Path,
                                                                               services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    ranked = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                                 "r.status = 'fail' AND s.site_type = 'store' GROUP BY 1 ORDER BY n DESC, 1", [latest])
    index = next(i for i in range(3) if [n for _, n in ranked].count(ranked[i][1]) == 1)  # a row no other ties
    chat = Chat(services)
    chat("most common failures at the stores")
    chat(f"how many stores fail the {('first', 'second', 'third')[(index + 1) % 3]} one")
    lead = first_line(chat(f"how many devices fail the {('first', 'second', 'third')[index]} one there").final.answer)
    assert re.match(rf"\*\*{ranked[index][1]}\*\*", lead) and ranked[index][0] in lead, lead


def test_how_many_did_a_place_have_counts_the_logged_figure_of_the_month_in_play(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                                "a.collection = 'fleet' WHERE e.mnemonic = 'SYS-5-CONFIG_I' AND a.site = 'DataCenter-1' "
                                "AND strftime(e.ts, '%Y-%m') = '2026-10'")
    chat = Chat(services)
    chat("which site made the most config changes in october")
    lead = first_line(chat("how many did DataCenter-1 make").final.answer)
    assert re.match(rf"\*\*{n}\*\*", lead) and "2026-10" in lead, lead


def test_a_count_for_each_value_listed_then_the_worst_of_those_values(demo_warehouse: Path, services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    per = dict(sql(demo_warehouse, "SELECT os_version, COUNT(*) FROM assets WHERE collection = 'fleet' AND "
                                   "device_type = 'switch' GROUP BY 1"))
    rates = sql(demo_warehouse, f"SELECT a.os_version, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? AND "
                                "a.device_type = 'switch' GROUP BY 1 ORDER BY p, 1", [latest])
    chat = Chat(services)
    listed = chat("what release are the switches on")  # the inventory's values, not a standard's
    assert listed.intent.frame.ask == "list" and all(v in listed.final.answer for v in per), listed.final.answer[:300]
    counted = chat("how many switches run each").final.answer
    for release, n in per.items():
        assert re.search(rf"\*\*{re.escape(release)}\*\*\s+{n}\b", counted), (release, n, counted[:400])
    lowest = first_line(chat("which of those versions has the lowest pass rate").final.answer)
    assert lowest.startswith(f"**{rates[0][0]}**") and f"{rates[0][1]}%" in lowest, (rates[:2], lowest)


def test_the_most_frequent_signatures_are_ranked_by_their_matches(demo_warehouse: Path, services: Services) -> None:
    ranked = sql(demo_warehouse, "SELECT x.signature_id, COUNT(*) n FROM slic_results x JOIN assets a ON a.asset_id = "
                                 "x.asset_id AND a.collection = 'fleet' JOIN sites s ON s.site = a.site WHERE "
                                 f"x.assessment_id = {LATEST} AND s.site_type = 'store' GROUP BY 1 ORDER BY n DESC, 1")
    assert ranked[0][1] > ranked[1][1]  # one leads
    lead = first_line(Chat(services)("the most frequent slic signatures at the stores").final.answer)
    assert lead.startswith(f"**{ranked[0][0]}**") and f": {ranked[0][1]} " in lead, lead


def test_worst_of_a_plain_list_is_by_the_figure_the_conversation_was_about(demo_warehouse: Path,
                                                                           services: Services) -> None:
    latest = [r for r, in sql(demo_warehouse, RUNS)][-1]
    regions = sql(demo_warehouse, f"SELECT s.region, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1 "
                                  "ORDER BY p DESC", [latest])
    best = regions[0][0]
    sites = sql(demo_warehouse, f"SELECT a.site, {PASS} p FROM {FLEET} WHERE r.assessment_id = ? AND s.region = ? "
                                "GROUP BY 1 ORDER BY p, 1", [latest, best])
    chat = Chat(services)
    chat("which region has the highest pass rate")
    chat("list its sites")
    lead = first_line(chat("which of those is the worst").final.answer)
    assert lead.startswith(f"**{sites[0][0]}**") and f"{sites[0][1]}%" in lead, (sites[:2], lead)


def test_the_most_that_month_keeps_the_place_the_months_were_counted_at(demo_warehouse: Path,
                                                                        services: Services) -> None:
    changes = ("FROM events e JOIN assets a ON a.asset_id = e.asset_id AND a.collection = 'fleet' WHERE "
               "e.mnemonic = 'SYS-5-CONFIG_I' AND a.site = 'DataCenter-1'")
    (month,), = sql(demo_warehouse, f"SELECT strftime(e.ts, '%Y-%m') m {changes} GROUP BY 1 ORDER BY COUNT(*) DESC LIMIT 1")
    devices = sql(demo_warehouse, f"SELECT e.asset_id, COUNT(*) n {changes} AND strftime(e.ts, '%Y-%m') = ? "
                                  "GROUP BY 1 ORDER BY n DESC, 1", [month])
    chat = Chat(services)
    chat("config changes by month at DataCenter-1")
    chat("which month had the most")
    answer = chat("which box logged the most that month").final.answer
    lead = first_line(answer)
    assert lead.startswith(f"**{devices[0][0]}**") and f": {devices[0][1]} " in lead, (devices[:2], lead)
    assert "in the data" not in answer  # "that month" is a time, no figure the data lacks


def test_a_kind_of_site_after_a_site_moves_the_question_there(demo_warehouse: Path, services: Services) -> None:
    where = f"FROM {FLEET} WHERE r.assessment_id = {LATEST} AND r.status = 'fail' AND r.severity = 'high' AND " \
            "s.site_type = 'store'"
    (total,), = sql(demo_warehouse, f"SELECT COUNT(*) {where}")
    devices = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n {where} GROUP BY 1 ORDER BY n DESC, 1")
    assert devices[0][1] > devices[1][1]
    chat = Chat(services)
    chat("how many high findings at Lab-1")
    moved = chat("and at the stores?")
    assert first_line(moved.final.answer).startswith(f"**{total}**") and "Lab-1" not in moved.final.answer, \
        moved.final.answer[:400]
    lead = first_line(chat("which device there has the most").final.answer)
    assert lead.startswith(f"**{devices[0][0]}**") and f": {devices[0][1]} " in lead, (devices[:2], lead)


def test_the_ones_at_a_place_after_a_count_are_listed(demo_warehouse: Path, services: Services) -> None:
    failing = [d for d, in sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = "
                                               f"{LATEST} AND r.status = 'fail' AND r.rule_id = 'ASA-TELNET' AND "
                                               "s.site_type = 'store' ORDER BY 1")]
    chat = Chat(services)
    chat("how many firewalls fail ASA-TELNET")
    answer = chat("show me the ones at the stores").final.answer
    assert first_line(answer).startswith(f"**{len(failing)} devices**"), answer[:300]
    assert all(d in answer for d in failing), (failing, answer[:600])


def test_which_of_them_after_where_some_devices_are_is_one_of_those_devices(demo_warehouse: Path,
                                                                            services: Services) -> None:
    ranked = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = {LATEST} AND "
                                 "r.status = 'fail' AND a.os_version = '9.12(4)' GROUP BY 1 ORDER BY n DESC, 1")
    assert ranked[0][1] > ranked[1][1]
    chat = Chat(services)
    chat("how many boxes run 9.12(4)")
    chat("where are they")
    lead = first_line(chat("which of them fails the most checks").final.answer)
    assert lead.startswith(f"**{ranked[0][0]}**") and f": {ranked[0][1]} " in lead, (ranked[:2], lead)


def _fails(path: Path, device: str, status: str = "r.status = 'fail'") -> set[str]:
    return {r for r, in sql(path, f"SELECT r.rule_id FROM {FLEET} WHERE r.assessment_id = {LATEST} AND "
                                  f"{status} AND r.asset_id = ?", [device])}


def test_vice_versa_and_what_both_share_after_what_one_device_fails_alone(demo_warehouse: Path,
                                                                          services: Services) -> None:
    first, second = _fails(demo_warehouse, "SW-HQ-ACC-3"), _fails(demo_warehouse, "SW-HQ-ACC-4")
    # (a check with no verdict on the other is said apart, not counted as a difference)
    judged = _fails(demo_warehouse, "SW-HQ-ACC-3", "r.status IN ('pass', 'fail')") & \
        _fails(demo_warehouse, "SW-HQ-ACC-4", "r.status IN ('pass', 'fail')")
    first, second = first & judged, second & judged
    assert second - first and first & second
    chat = Chat(services)
    chat("which checks fail on SW-HQ-ACC-3 but not on SW-HQ-ACC-4")
    reverse = first_line(chat("vice versa").final.answer)
    assert reverse.startswith(f"**{len(second - first)} checks**") and all(r in reverse for r in second - first), reverse
    assert not any(r in reverse.split(":", 1)[1].split(".")[0] for r in first - second), reverse
    shared = first_line(chat("which ones do they share").final.answer)
    assert re.match(rf"\*\*{len(first & second)} checks?\*\*", shared) and all(r in shared for r in first & second), \
        shared


def test_across_how_many_devices_then_which_of_them_are_a_kind(demo_warehouse: Path, services: Services) -> None:
    where = (f"FROM slic_results x JOIN assets a ON a.asset_id = x.asset_id AND a.collection = 'fleet' JOIN sites s ON "
             f"s.site = a.site WHERE x.assessment_id = {LATEST} AND s.site_type = 'store'")
    (devices,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT x.asset_id) {where}")
    switches = [d for d, in sql(demo_warehouse, f"SELECT DISTINCT x.asset_id {where} AND a.device_type = 'switch'")]
    chat = Chat(services)
    chat("how many slic matches at the stores")
    assert first_line(chat("across how many devices").final.answer).startswith(f"**{devices}**")
    listed = chat("which of them are switches").final.answer
    assert first_line(listed).startswith(f"**{len(switches)} devices**") and all(d in listed for d in switches), \
        listed[:500]


def test_failed_checks_that_have_an_exception_are_the_excepted_ones(demo_warehouse: Path,
                                                                      services: Services) -> None:
    per_site = dict(sql(demo_warehouse, f"SELECT a.site, COUNT(*) FROM {FLEET} WHERE r.assessment_id = {LATEST} AND "
                                        "r.status = 'exception' GROUP BY 1"))
    answer = Chat(services)("failed checks that have an exception, per site").final.answer
    assert first_line(answer).startswith(f"**{sum(per_site.values())}**") or \
        first_line(answer).startswith(f"**{len(per_site)} sites**"), answer[:400]
    for site, n in per_site.items():
        assert re.search(rf"\b{site}\b\D{{0,12}}\b{n}\b", answer), (site, n, answer[:600])


def test_the_software_of_a_row_picked_by_its_place_is_looked_up(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    ranking = chat("rank the wan routers by failed checks").final.answer
    second = re.findall(r"^\| (RTR-[\w-]+) \|", ranking, re.M)[1]
    (release,), = sql(demo_warehouse, f"SELECT os_version FROM assets WHERE collection = 'fleet' AND asset_id = '{second}'")
    looked_up = first_line(chat("which software is the second one on").final.answer)
    assert second in looked_up and release in looked_up and "failed" not in looked_up, looked_up


def test_those_devices_after_a_signature_ranking_are_the_lead_rows_devices(demo_warehouse: Path,
                                                                         services: Services) -> None:
    chat = Chat(services)
    lead = first_line(chat("which slic signature matches the most switches").final.answer)
    signature = re.search(r"SLIC-[A-Z]+-\d+", lead).group(0)  # type: ignore[union-attr]
    switches = {d for d, in sql(demo_warehouse, "SELECT DISTINCT x.asset_id FROM slic_results x JOIN assets a ON "
                                "a.asset_id = x.asset_id AND a.collection = 'fleet' WHERE x.assessment_id = "
                                f"{LATEST} AND a.device_type = 'switch' AND x.signature_id = '{signature}'")}
    listed = chat("show me those switches").final.answer
    named = set(re.findall(r"(?<![\w-])(?:SW|NX)-[\w-]+\b", listed))
    assert first_line(listed).startswith(f"**{len(switches)} devices**") and named == switches, listed[:600]


def test_each_of_those_sites_is_every_site_listed_whole(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("switches running 9.3(10)")
    sites = {s for s, in sql(demo_warehouse, "SELECT DISTINCT site FROM assets WHERE collection = 'fleet' AND "
                                             "device_type = 'switch' AND os_version = '9.3(10)'")}
    chat("which sites are they at")
    answer = chat("how many failed checks at each of those sites").final.answer
    for site in sites:  # the whole site's failed checks, not those of the switches on 9.3(10) alone
        (failed,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {FLEET} WHERE r.assessment_id = {LATEST} AND "
                                         f"r.status = 'fail' AND a.site = '{site}'")
        assert re.search(rf"{re.escape(site)}\D+{failed}\b", answer), (site, failed, answer[:600])


def test_between_the_two_is_the_two_runs_the_conversation_asked_of(demo_warehouse: Path, services: Services) -> None:
    per_type = {}
    for run in ("2026-08", "2026-10"):
        per_type[run] = dict(sql(demo_warehouse, f"SELECT s.site_type, COUNT(*) FROM {FLEET} WHERE r.status = 'fail' "
                                                 "AND r.assessment_id = (SELECT assessment_id FROM assessments WHERE "
                                                 f"strftime(started_at, '%Y-%m') = '{run}') GROUP BY 1"))
    growth = {t: per_type["2026-10"].get(t, 0) - n for t, n in per_type["2026-08"].items()}
    worst = [t for t, g in growth.items() if g == max(growth.values())]
    chat = Chat(services)
    chat("failed checks per site type in august")
    chat("now october")
    lead = first_line(chat("which site type got worse the most between the two").final.answer)
    assert any(t in lead for t in worst) and "ASMT-2026-08-03" in lead and "ASMT-2026-10-05" in lead, (worst, lead)


def test_fixes_per_device_are_counted_between_the_runs_asked(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' "
                                            "ORDER BY started_at")]
    fixed = dict(sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) FROM results r JOIN results o ON o.asset_id = "
                                     f"r.asset_id AND o.rule_id = r.rule_id WHERE r.assessment_id = '{runs[-1]}' AND "
                                     f"o.assessment_id = '{runs[1]}' AND o.status = 'fail' AND r.status <> 'fail' "
                                     "GROUP BY 1"))
    most = [d for d, n in fixed.items() if n == max(fixed.values())]
    lead = first_line(Chat(services)("which box got the most fixes since september").final.answer)
    assert all(d in lead for d in most) and str(max(fixed.values())) in lead, (most, lead)


def test_what_broke_there_lists_the_checks_behind_the_change_led(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' "
                                            "ORDER BY started_at")]
    chat = Chat(services)
    lead = first_line(chat("which site had the most new failures since october").final.answer)
    site = re.match(r"\*\*([\w-]+)\*\*", lead).group(1)  # type: ignore[union-attr]
    broke = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) FROM results r JOIN results o ON o.asset_id = r.asset_id "
                                f"AND o.rule_id = r.rule_id JOIN assets a ON a.asset_id = r.asset_id AND a.collection = "
                                f"'fleet' WHERE r.assessment_id = '{runs[-1]}' AND o.assessment_id = '{runs[-2]}' AND "
                                f"a.site = '{site}' AND r.status = 'fail' AND o.status <> 'fail' GROUP BY 1")
    listed = chat("what broke there").final.answer
    assert first_line(listed).startswith(f"**{sum(n for _, n in broke)}** new failures") and all(
        rule in listed for rule, _ in broke), (broke, listed[:600])


def test_new_failures_per_site_add_up_to_the_comparisons_count(demo_warehouse: Path, services: Services) -> None:
    # the changes fact and the comparison are two ways to the same figure: a device or check not judged then is new
    whole = first_line(Chat(services)("how many new failures since september").final.answer)
    per_site = first_line(Chat(services)("new failures per site since september").final.answer)
    total = re.match(r"\*\*([\d,]+)", whole).group(1)  # type: ignore[union-attr]
    assert per_site.startswith(f"**{total}** new failures") and "sites" in per_site, (whole, per_site)


def test_a_checks_transition_between_a_run_and_now_is_the_devices_that_changed(demo_warehouse: Path,
                                                                              services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, "SELECT assessment_id FROM assessments WHERE collection = 'fleet' "
                                            "ORDER BY started_at")]

    def changed(then: str, now: str) -> set[str]:
        return {d for d, in sql(demo_warehouse, f"SELECT r.asset_id FROM results r JOIN results o ON o.asset_id = "
                                                f"r.asset_id AND o.rule_id = r.rule_id JOIN assets a ON a.asset_id = "
                                                f"r.asset_id AND a.collection = 'fleet' WHERE a.device_type = 'switch' "
                                                f"AND r.rule_id = 'AAA-ACCOUNTING' AND o.assessment_id = '{runs[0]}' AND "
                                                f"r.assessment_id = '{runs[-1]}' AND o.status = '{then}' AND "
                                                f"r.status = '{now}'")}
    for asked, want in (("which switches failed AAA-ACCOUNTING in august but pass it now", changed("fail", "pass")),
                        ("which switches passed AAA-ACCOUNTING in august and fail it now", changed("pass", "fail"))):
        lead = first_line(Chat(services)(asked).final.answer)
        named = set(re.findall(r"(?<![\w-])(?:SW|NX)-[\w-]+\b", lead))
        assert want and named == want and lead.startswith(f"**{len(want)} device"), (asked, want, lead)


# the changes between two runs, computed here as the semantic model defines them (contracts/semantic_model.yaml)
CHANGES = (f"{FLEET} LEFT JOIN results o ON o.asset_id = r.asset_id AND o.rule_id = r.rule_id AND o.assessment_id = ? "
           f"WHERE r.assessment_id = ?")
NEW = "r.status = 'fail' AND (o.status IS NULL OR o.status <> 'fail')"
FIXED = "o.status = 'fail' AND r.status <> 'fail'"


def test_a_negated_scope_of_new_failures_is_the_scope_asked_not_its_opposite(demo_warehouse: Path,
                                                                            services: Services) -> None:
    # the comparison tool's scope holds no "not": before, "not running 16.12.4" came back as the switches ON 16.12.4
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    (n,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {CHANGES} AND {NEW} AND a.device_type = 'switch' AND "
                                f"a.os_version <> '16.12.4'", [runs[-2], runs[-1]])
    lead = first_line(Chat(services)("how many new failures since october on switches not running 16.12.4").final.answer)
    assert lead.startswith(f"**{n}** new failures") and "not release 16.12.4" in lead, (n, lead)


def test_what_got_fixed_outside_a_place_since_a_month_lists_the_checks_fixed_there(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    fixed = dict(sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) FROM {CHANGES} AND {FIXED} AND a.device_type = "
                                     f"'router' AND a.site <> 'HQ' GROUP BY 1", [runs[1], runs[-1]]))
    answer = Chat(services)("what got fixed on the routers not at HQ since september").final.answer
    assert first_line(answer).startswith(f"**{sum(fixed.values())}** fixed checks") and \
        f"across {len(fixed)} checks" in first_line(answer) and all(rule in answer for rule in fixed), answer[:400]


def test_how_many_devices_fixed_a_check_counts_the_devices_that_did(demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    devices = [d for d, in sql(demo_warehouse, f"SELECT DISTINCT a.asset_id FROM {CHANGES} AND {FIXED} AND "
                                               f"r.rule_id = 'SNMP-ACL'", [runs[0], runs[-1]])]
    lead = first_line(Chat(services)("how many devices fixed SNMP-ACL since august").final.answer)
    assert lead.startswith(f"**{len(devices)} devices**") and all(d in lead for d in devices), (devices, lead)


def test_the_rows_of_a_change_added_up_then_ranked_are_the_same_rows(demo_warehouse: Path, services: Services) -> None:
    # "which stores have new failures", "how many is that altogether", "which of them has the most": one set of rows
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {CHANGES} AND {NEW} AND s.site_type = 'store' "
                              f"GROUP BY 1 ORDER BY n DESC", [runs[-2], runs[-1]])
    chat = Chat(services)
    listed = first_line(chat("which stores have new failures since october").final.answer)
    total = first_line(chat("how many new failures is that altogether").final.answer)
    most = first_line(chat("which of them has the most").final.answer)
    assert listed.startswith(f"**{len(per)} sites** with new failures"), (len(per), listed)
    assert total.startswith(f"**{sum(n for _, n in per)}** new failures"), (per, total)
    top = [s for s, n in per if n == per[0][1]]
    assert any(f"**{s}**" in most for s in top) and str(per[0][1]) in most, (per, most)


def test_a_lookup_of_the_devices_listed_is_of_those_devices_never_the_fleet(demo_warehouse: Path,
                                                                           services: Services) -> None:
    # "whats their site" was read again as a question of its own, which had no devices: the whole inventory came back
    on = [d for d, in sql(demo_warehouse, "SELECT asset_id FROM assets WHERE collection = 'fleet' AND os_version = "
                                          "'17.3.4a'")]
    chat = Chat(services)
    chat("devices on 17.3.4a")
    answer = chat("whats their site").final.answer
    sites = dict(sql(demo_warehouse, "SELECT asset_id, site FROM assets WHERE collection = 'fleet'"))
    assert all(f"**{d}**: site **{sites[d]}**" in answer or f"| {d} | {sites[d]} |" in answer for d in on), answer[:400]
    assert not any(d in answer for d in sites if d not in on), answer[:400]


def test_what_type_are_they_tallies_the_kinds_then_a_month_re_times_the_question_that_chose_them(
        demo_warehouse: Path, services: Services) -> None:
    zero = "SELECT r.asset_id FROM {R} WHERE r.assessment_id = ? GROUP BY 1 HAVING SUM(CASE WHEN r.status = 'fail' THEN 1 ELSE 0 END) = 0"
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    now = [d for d, in sql(demo_warehouse, zero.format(R=FLEET), [runs[-1]])]
    kinds = sql(demo_warehouse, f"SELECT device_type, COUNT(*) n FROM assets WHERE collection = 'fleet' AND asset_id IN "
                                f"({zero.format(R=FLEET)}) GROUP BY 1 ORDER BY n DESC", [runs[-1]])
    then = [d for d, in sql(demo_warehouse, zero.format(R=FLEET), [runs[0]])]
    chat = Chat(services)
    chat("devices with zero failed checks")
    kinded = first_line(chat("what type are they").final.answer)
    assert kinded.startswith(f"**{len(now)} devices**") and all(
        f"{k} **{n}**" in kinded for k, n in kinds), (kinds, kinded)
    again = first_line(chat("and in august?").final.answer)
    assert again.startswith(f"**{len(then)} devices** with no failed checks") and runs[0] in again, (then, again)


def test_which_one_moved_the_most_is_the_largest_change_either_way_between_the_two_answers(
        demo_warehouse: Path, services: Services) -> None:
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rate = ("SELECT a.device_type, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / COUNT(*), 1) "
            f"FROM {FLEET} WHERE r.assessment_id = ? GROUP BY 1")
    before, after = dict(sql(demo_warehouse, rate, [runs[1]])), dict(sql(demo_warehouse, rate, [runs[-1]]))
    moves = sorted(((abs(after[k] - before[k]), k) for k in after), reverse=True)
    chat = Chat(services)
    chat("pass rate by device type in september")
    chat("and now?")
    lead = first_line(chat("which one moved the most").final.answer)
    top = [k for d, k in moves if abs(d - moves[0][0]) < 0.05]
    assert any(f"**{k.replace('_', ' ')}**" in lead or f"**{k}**" in lead for k in top) and runs[1] in lead, (moves, lead)


def test_router_and_firewall_shorthand_reads_as_the_kind_of_device(demo_warehouse: Path, services: Services) -> None:
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ({LATEST}) "
                                "AND r.status = 'fail' AND r.rule_id = 'NTP-AUTH' AND a.device_type = 'router'")
    lead = first_line(Chat(services)("rtrs failing NTP-AUTH").final.answer)
    assert lead.startswith(f"**{n} devices**"), (n, lead)


def test_a_share_of_the_stores_counts_stores_not_their_devices(demo_warehouse: Path, services: Services) -> None:
    # "what % of the stores have a critical finding" was the share of the stores' devices (44.1 %, 26 of 59)
    (stores, failing), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT a.site), COUNT(DISTINCT CASE WHEN r.status = 'fail' "
                                             f"AND r.severity = 'critical' THEN a.site END) FROM {FLEET} WHERE "
                                             f"r.assessment_id = ({LATEST}) AND s.site_type = 'store'")
    lead = first_line(Chat(services)("what % of the stores have a critical finding").final.answer)
    assert lead.startswith(f"**{round(100 * failing / stores, 1)}%**"), (failing, stores, lead)


def test_the_filters_an_edit_holds_are_carried_to_the_next_question(demo_warehouse: Path, services: Services) -> None:
    # "what failed most on them then" after the run the firewalls' pass rate was lowest in: of the firewalls
    rates = sql(demo_warehouse, f"SELECT r.assessment_id, ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 "
                                f"END) / COUNT(*), 1) p FROM {FLEET} WHERE a.device_type = 'firewall' GROUP BY 1 ORDER BY p")
    per = sql(demo_warehouse, f"SELECT r.rule_id, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND r.status = "
                              f"'fail' AND a.device_type = 'firewall' GROUP BY 1 ORDER BY n DESC", [rates[0][0]])
    chat = Chat(services)
    chat("pass rate trend for the firewalls")
    chat("which run was lowest")
    lead = first_line(chat("what failed most on them then").final.answer)
    assert any(f"**{rule}**" in lead for rule, n in per if n == per[0][1]) and "firewall" in lead, (per[:3], lead)


def test_a_signature_picked_from_a_ranking_of_some_devices_stays_with_those_devices(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    per = sql(demo_warehouse, "SELECT x.signature_id, COUNT(DISTINCT x.asset_id) n FROM slic_results x JOIN assets a ON "
                              "a.asset_id = x.asset_id AND a.collection = 'fleet' WHERE x.assessment_id = "
                              f"({LATEST}) AND a.role = 'wan' GROUP BY 1 ORDER BY n DESC")
    sites = [s for s, in sql(demo_warehouse, "SELECT DISTINCT a.site FROM slic_results x JOIN assets a ON a.asset_id = "
                                             f"x.asset_id AND a.collection = 'fleet' WHERE x.assessment_id = ({LATEST}) "
                                             "AND a.role = 'wan' AND x.signature_id = ?", [per[0][0]])]
    assert per[0][1] > per[1][1]  # (one signature leads: "the top one" is that one)
    chat = Chat(services)
    chat("which slic signatures hit the wan routers")
    hit = first_line(chat("how many of them does the top one hit").final.answer)
    at = first_line(chat("which sites are those routers at").final.answer)
    assert hit.startswith(f"**{per[0][1]}**"), (per[0], hit)
    assert at.startswith(f"**{len(sites)} sites**") and all(s in at for s in sites), (sites, at)


def test_a_list_sorted_says_its_devices_are_an_earlier_answers_not_six_of_their_names(demo_warehouse: Path,
                                                                                       services: Services) -> None:
    chat = Chat(services)
    chat("devices not at stores failing VTY-ACL")
    chat("sort by failed checks")
    top3 = chat("just the top 3").final.answer
    scope, lead = top3.split("\n\n")[0], first_line(top3)
    shown = re.findall(r"\| ([A-Z][\w-]+) \| \d+ \|", top3)
    assert "devices of an earlier answer" in scope and len(shown) == 3 and not any(
        d in scope for d in shown), (scope, lead)


def test_which_of_them_has_the_most_after_devices_with_a_figure_ranks_them_by_it(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    # it listed the 31 devices again, from the inventory
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {CHANGES} AND {NEW} AND a.device_type = 'switch' AND "
                              f"a.os_version <> '16.12.4' GROUP BY 1 ORDER BY n DESC", [runs[-2], runs[-1]])
    chat = Chat(services)
    chat("switches not running 16.12.4 with new failures since october")
    lead = first_line(chat("which of them has the most").final.answer)
    top = [d for d, n in per if n == per[0][1]]
    assert all(f"**{d}**" in lead for d in top) and str(per[0][1]) in lead, (per[:4], lead)


def test_which_ones_dont_after_a_share_of_stores_are_the_stores_without_one(demo_warehouse: Path,
                                                                            services: Services) -> None:
    clean = [s for s, in sql(demo_warehouse, f"SELECT a.site FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                             "s.site_type = 'store' GROUP BY 1 HAVING COUNT(*) FILTER (WHERE r.status = "
                                             "'fail' AND r.severity = 'critical') = 0")]
    chat = Chat(services)
    chat("what % of the stores have a critical finding")
    lead = first_line(chat("which ones dont").final.answer)
    assert lead.startswith(f"**{len(clean)} sites**") and all(s in lead for s in clean), (clean, lead)


def test_the_second_place_of_a_tied_ranking_is_where_there_is(demo_warehouse: Path, services: Services) -> None:
    # "there" was the first place the lead named, whatever place was picked
    per = sql(demo_warehouse, f"SELECT a.site, COUNT(*) FILTER (WHERE r.status = 'fail' AND r.severity = 'high') n "
                              f"FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND s.site_type = 'branch' GROUP BY 1 "
                              "ORDER BY n DESC, a.site")
    chat = Chat(services)
    ranked = chat("which branches have the most high findings").final.answer
    shown = re.findall(r"^\| (Branch-\d+) \|", ranked, re.M)
    answer = chat("the 2nd one - whats wrong there?").final.answer
    assert shown[:2] and {shown[0], shown[1]} <= {s for s, _ in per}, shown
    assert f"site {shown[1]}" in answer.split("\n\n")[0], answer[:300]


def test_a_signature_led_is_it_and_a_part_of_a_looked_up_list_is_counted(demo_warehouse: Path,
                                                                         services: Services) -> None:
    per = sql(demo_warehouse, "SELECT x.signature_id, COUNT(DISTINCT x.asset_id) n FROM slic_results x JOIN assets a ON "
                              f"a.asset_id = x.asset_id AND a.collection = 'fleet' WHERE x.assessment_id = ({LATEST}) "
                              "GROUP BY 1 ORDER BY n DESC")
    assert per[0][1] > per[1][1]
    chat = Chat(services)
    chat("top slic signatures")
    lead = first_line(chat("what boxes is it on").final.answer)
    assert lead.startswith(f"**{per[0][1]} devices**") and per[0][0] in lead, (per[:2], lead)
    nx = sql(demo_warehouse, "SELECT a.asset_id, s.region FROM assets a JOIN sites s ON s.site = a.site WHERE "
                             "a.collection = 'fleet' AND a.platform = 'nx-os' AND a.role = 'spine'")
    chat = Chat(services)
    chat("list the nx-os spine switches")
    chat("what code do they run")
    west = sum(1 for _, region in nx if region == "us-west")
    lead = first_line(chat("how many of them are in us-west").final.answer)
    assert lead.startswith(f"**{west}** device"), (nx, lead)


def test_which_device_after_one_devices_figure_ranks_every_device_and_then_is_that_month(demo_warehouse: Path,
                                                                                        services: Services) -> None:
    # it asked whether the one device led (a No), then read "then" as no time at all
    per = sql(demo_warehouse, "SELECT e.asset_id, COUNT(*) n FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                              "a.collection = 'fleet' WHERE e.mnemonic = 'SYS-5-CONFIG_I' AND strftime(e.ts, '%Y-%m') = "
                              "'2026-08' GROUP BY 1 ORDER BY n DESC")
    assert per[0][1] > per[1][1]
    (logins,), = sql(demo_warehouse, "SELECT COUNT(*) FROM events WHERE asset_id = ? AND mnemonic = "
                                     "'SEC_LOGIN-4-LOGIN_FAILED' AND strftime(ts, '%Y-%m') = '2026-08'", [per[0][0]])
    chat = Chat(services)
    chat("config changes on SW-HQ-CORE-1 in august")
    lead = first_line(chat("what device had the most that month").final.answer)
    assert lead.startswith(f"**{per[0][0]}**"), (per[:2], lead)
    lead = first_line(chat("how many failed logins did it have then").final.answer)
    assert lead.startswith(f"**{logins}**") and "2026-08" in lead, (logins, lead)


def test_an_exception_deadline_by_year_moves_in_a_follow_up_and_names_its_approvers(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    by_year = sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE expires_on < DATE '2028-01-01'")
    by_feb = sql(demo_warehouse, "SELECT exception_id, approved_by FROM exceptions WHERE expires_on < DATE '2027-02-01'")
    chat = Chat(services)
    lead = first_line(chat("exceptions expiring before 2028").final.answer)
    assert lead.startswith(f"**{len(by_year)} approved exception"), (by_year, lead)
    lead = first_line(chat("and before february 2027?").final.answer)
    assert lead.startswith(f"**{len(by_feb)} approved exception") and all(e in lead for e, _ in by_feb), (by_feb, lead)
    lead = first_line(chat("who signed off on those").final.answer)
    assert all(e in lead and who in lead for e, who in by_feb), (by_feb, lead)
    one = Chat(services)("what does EXC-2026-019 cover").final.answer
    assert "EXC-2026-019" in first_line(one) and "?" not in first_line(one), one[:200]


def test_by_type_the_month_before_pci_sites_and_the_most_of_a_change_edit_the_last_query(demo_warehouse: Path,
                                                                                        services: Services) -> None:
    per = dict(sql(demo_warehouse, "SELECT device_type, COUNT(*) FROM assets WHERE collection = 'fleet' AND site = "
                                   "'Site-B' GROUP BY 1"))
    chat = Chat(services)
    chat("device count at Site-B")
    grouped = chat("split it by type")
    assert grouped.intent.query is not None and grouped.intent.query.group_by == ["device_type"], grouped.intent.query
    assert all(str(n) in first_line(grouped.final.answer) for n in per.values()), (per, grouped.final.answer[:300])
    per = sql(demo_warehouse, "SELECT a.site, COUNT(*) n FROM events e JOIN assets a ON a.asset_id = e.asset_id AND "
                              "a.collection = 'fleet' WHERE e.mnemonic = 'SYS-5-CONFIG_I' AND strftime(e.ts, '%Y-%m') = "
                              "'2026-09' GROUP BY 1 ORDER BY n DESC")
    chat = Chat(services)
    chat("config changes per site in october")
    chat("and which site led")
    lead = first_line(chat("and a month earlier?").final.answer)
    assert lead.startswith(f"**{per[0][0]}**") and "2026-09" in lead, (per[:2], lead)
    pci = sql(demo_warehouse, f"SELECT DISTINCT r.asset_id FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                              "r.status = 'fail' AND r.rule_id = 'SNMP-DEFAULT-COMM' AND s.pci_scope")
    chat = Chat(services)
    chat("which devices fail SNMP-DEFAULT-COMM")
    answer = chat("are any of those at pci locations?").final.answer
    assert "SLIC" not in first_line(answer) and all(d in answer for d, in pci), (pci, answer[:300])
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per = sql(demo_warehouse, f"SELECT r.asset_id, COUNT(*) n FROM {CHANGES} AND {NEW} GROUP BY 1 ORDER BY n DESC",
              [runs[-3], runs[-1]])
    chat = Chat(services)
    chat("count of new failures since september")
    lead = first_line(chat("which box has the most of those").final.answer)
    top = [d for d, n in per if n == per[0][1]]
    assert all(d in lead for d in top) and str(per[0][1]) in lead, (per[:4], lead)


def test_counts_said_as_number_of_places_without_a_kind_and_our_worst_region(demo_warehouse: Path,
                                                                              services: Services) -> None:
    (over,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM (SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = "
                                   f"({LATEST}) AND r.status = 'fail' AND a.device_type = 'router' GROUP BY 1 HAVING "
                                   "COUNT(*) > 12)")
    lead = first_line(Chat(services)("count of routers with more than 12 failed checks").final.answer)
    assert lead.startswith(f"**{over} devices**"), (over, lead)  # (it was every router's summary)
    (bare,), = sql(demo_warehouse, "SELECT COUNT(*) FROM sites s WHERE s.site_type = 'campus' AND s.site NOT IN (SELECT "
                                   "site FROM assets WHERE collection = 'fleet' AND device_type = 'firewall')")
    lead = first_line(Chat(services)("how many campuses have no firewalls").final.answer)
    assert lead.startswith(f"**{bare} sites**" if bare else "**None**"), (bare, lead)
    per = sql(demo_warehouse, f"SELECT a.site, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND r.status = "
                              "'fail' AND r.severity = 'high' AND s.site_type = 'store' GROUP BY 1 ORDER BY n DESC")
    lead = first_line(Chat(services)("what's our worst store for high findings").final.answer)
    assert any(lead.startswith(f"**{s}**") for s, n in per if n == per[0][1]), (per[:3], lead)


def test_any_of_them_there_names_them_and_where_alone_is_their_places(demo_warehouse: Path,
                                                                       services: Services) -> None:
    west = [d for d, in sql(demo_warehouse, "SELECT a.asset_id FROM assets a JOIN sites s ON s.site = a.site WHERE "
                                            "a.collection = 'fleet' AND a.os_version = '17.3.4a' AND s.region = 'us-west'")]
    chat = Chat(services)
    chat("how many boxes are on 17.3.4a")
    lead = first_line(chat("any of those in us-west?").final.answer)
    assert lead.startswith("**Yes**" if west else "**No**") and all(d in lead for d in west), (west, lead)
    if len(west) > 1:
        (together,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                           f"r.asset_id IN ({', '.join(repr(d) for d in west)})")
        lead = first_line(chat("and the pass rate of them?").final.answer)
        assert lead.startswith(f"**{together}% pass rate**"), (together, lead)
    sites = {s for s, in sql(demo_warehouse, f"SELECT DISTINCT a.site FROM {FLEET} WHERE r.assessment_id = ({LATEST}) "
                                             "AND r.status = 'fail' AND r.rule_id = 'HTTP-SERVER'")}
    chat = Chat(services)
    chat("how many devices fail HTTP-SERVER")
    lead = first_line(chat("where?").final.answer)
    assert lead.startswith(f"**{len(sites)} sites**"), (sites, lead)


def test_which_got_fixed_after_a_figure_then_and_now_is_the_rows_that_fixed_it(demo_warehouse: Path,
                                                                              services: Services) -> None:
    # it listed the devices failing the check now
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    fixed = {d for d, in sql(demo_warehouse, f"SELECT r.asset_id FROM {FLEET} WHERE r.assessment_id = ? AND r.status <> "
                                             "'fail' AND r.rule_id = 'SSH-V2' AND r.asset_id IN (SELECT asset_id FROM "
                                             "results WHERE assessment_id = ? AND rule_id = 'SSH-V2' AND status = 'fail')",
                                  [runs[-1], runs[1]])}
    chat = Chat(services)
    chat("number of boxes failing SSH-V2 in september")
    chat("what about today")
    lead = first_line(chat("and which were fixed").final.answer)
    assert lead.startswith(f"**{len(fixed)} devices**" if fixed else "**None**") and all(d in lead for d in fixed), (
        fixed, lead)


def test_how_many_after_the_rows_that_moved_counts_them_and_what_broke_is_the_new_failures(demo_warehouse: Path,
                                                                                          services: Services) -> None:
    # "how many is that" after the branches that got worse was the fleet's summary; "what broke" was a series
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    chat = Chat(services)
    moved = first_line(chat("which stores got worse since august").final.answer)
    counted = first_line(chat("how many is that").final.answer)
    n = re.match(r"\*\*(\d+) sites\*\* got worse", moved)
    assert n is not None and counted.startswith(f"**{n.group(1)} sites**"), (moved, counted)
    (new,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM {CHANGES} AND {NEW} AND a.site = 'Branch-06'",
                  [runs[0], runs[-1]])
    lead = first_line(Chat(services)("what broke at Branch-06 since august").final.answer)
    assert lead.startswith(f"**{new}** new failure") if new else lead.startswith("**None"), (new, lead)


def test_any_of_that_after_the_one_device_a_ranking_led_with_is_that_devices_failures(demo_warehouse: Path,
                                                                                      services: Services) -> None:
    # it answered "Yes" with every exception of the register, none of which covered that device
    chat = Chat(services)
    worst = first_line(chat("which box is the worst").final.answer)
    device = re.match(r"\*\*([A-Z][\w-]+)\*\*", worst)
    assert device is not None, worst
    excepted = sql(demo_warehouse, f"SELECT COUNT(*) FROM results WHERE assessment_id = ({LATEST}) AND asset_id = ? AND "
                                   "exception_id IS NOT NULL", [device.group(1)])[0][0]
    lead = first_line(chat("is any of that covered by a waiver").final.answer)
    assert device.group(1) in lead and lead.startswith("**Yes" if excepted else "**No"), (excepted, lead)


def test_a_product_line_said_by_its_series_number_is_that_family_and_a_follow_up_swaps_it(
        demo_warehouse: Path, services: Services) -> None:
    # "pass rate of the catalyst 9200s" was the fleet's pass rate (the tools' summary, which holds no family); "and the
    # 9300s" listed every device
    rate = {f: sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                   "a.product_family = ?", [f])[0][0] for f in ("Catalyst 9300", "Catalyst 9200")}
    chat = Chat(services)
    first = first_line(chat("whats our compliance on the 9300s").final.answer)
    second = first_line(chat("how about the catalyst 9200s?").final.answer)
    assert first.startswith(f"**{rate['Catalyst 9300']}%**") and "Catalyst 9300" in first, (rate, first)
    assert second.startswith(f"**{rate['Catalyst 9200']}%**") and "Catalyst 9200" in second, (rate, second)


def test_devices_rated_by_criticality_are_counted_not_scored(demo_warehouse: Path, services: Services) -> None:
    # "rated" is a word of the pass rate ("worst rated sites"): "rated low criticality" added a pass rate and counted
    # only the devices assessed
    (n,), = sql(demo_warehouse, "SELECT COUNT(*) FROM assets WHERE collection = 'fleet' AND criticality = 'low'")
    state = Chat(services)("number of boxes rated low criticality")
    assert first_line(state.final.answer).startswith(f"**{n}** devices"), state.final.answer[:300]
    assert state.intent.query is not None and "pass_rate" not in state.intent.query.measures


def test_exceptions_lapsing_within_a_month_or_year_are_that_window_and_the_first_of_them_is_named(
        demo_warehouse: Path, services: Services) -> None:
    # "run out in 2027" listed every exception, 2026's included; after "who signed them off", "which one lapses first"
    # was sent to the documents
    window = [e for e, in sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE expires_on BETWEEN "
                                              "'2027-01-01' AND '2027-12-31' ORDER BY expires_on, exception_id")]
    outside = [e for e, in sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE year(expires_on) <> 2027")]
    first = sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE year(expires_on) = 2027 AND expires_on = "
                                "(SELECT MIN(expires_on) FROM exceptions WHERE year(expires_on) = 2027)")
    chat = Chat(services)
    listed = first_line(chat("waivers that lapse during 2027?").final.answer)
    assert all(e in listed for e in window) and not any(e in listed for e in outside), (window, listed)
    approvers = chat("who signed those off").final.answer
    assert all(e in approvers for e in window) and "Approved by" in approvers, approvers[:300]
    lead = first_line(chat("which one runs out first").final.answer)
    assert lead.startswith(f"**{first[0][0]}**") and "first" in lead, (first, lead)


def test_how_many_of_them_have_a_high_finding_after_a_count_of_sites_counts_those_sites(
        demo_warehouse: Path, services: Services) -> None:
    # it counted their high failed checks
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT a.site) FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                "r.status = 'fail' AND r.severity = 'high' AND s.region = 'us-central'")
    chat = Chat(services)
    chat("how many sites in us-central")
    lead = first_line(chat("and how many of those have a high finding").final.answer)
    assert lead.startswith(f"**{n}** sites"), (n, lead)


def test_fail_it_after_one_check_broken_down_by_kind_of_device_is_that_check(demo_warehouse: Path,
                                                                             services: Services) -> None:
    # "it" was the one row of the breakdown (the platform), and the check was lost; "<check> compliance across the
    # network" quoted the NTP standard
    (n,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT r.asset_id) FROM {FLEET} WHERE r.assessment_id = ({LATEST}) "
                                "AND r.status = 'fail' AND r.rule_id = 'NTP-AUTH' AND a.site = 'Site-A'")
    (rate,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                   "r.rule_id = 'NTP-AUTH'")
    chat = Chat(services)
    assert first_line(chat("NTP-AUTH compliance across the network").final.answer).startswith(f"**{rate}%**")
    chat("split by device type")
    lead = first_line(chat("how many boxes fail it at Site-A").final.answer)
    assert lead.startswith(f"**{n}**" if n else "**None"), (n, lead)


def test_what_got_fixed_in_a_month_before_the_latest_is_that_runs_change_from_the_run_before(
        demo_warehouse: Path, services: Services) -> None:
    # it was the summary of that month's run (or, read as "since", the change from that run to the latest)
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    fixed = {r for r, in sql(demo_warehouse, f"SELECT DISTINCT r.rule_id FROM {FLEET} WHERE r.assessment_id = ? AND "
                                              "r.status <> 'fail' AND a.site = 'Branch-05' AND (r.asset_id, r.rule_id) IN "
                                              "(SELECT asset_id, rule_id FROM results WHERE assessment_id = ? AND "
                                              "status = 'fail')", [runs[1], runs[0]])}
    state = Chat(services)("anything fixed at Branch-05 during september?")
    assert state.intent.query is not None and state.intent.query.runs == runs[:2], state.intent.query
    lead = first_line(state.final.answer)
    assert all(r in lead for r in fixed) if fixed else lead.startswith("**None"), (fixed, lead)


def test_that_month_after_the_worst_month_of_a_kind_of_device_is_asked_of_that_kind(demo_warehouse: Path,
                                                                                     services: Services) -> None:
    # "what failed the most that month" lost the routers and ranked the whole fleet's checks
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    per_run = dict(sql(demo_warehouse, f"SELECT r.assessment_id, COUNT(*) FROM {FLEET} WHERE r.status = 'fail' AND "
                                       "a.device_type = 'router' GROUP BY 1"))
    worst = max(runs, key=lambda r: per_run.get(r, 0))
    top = sql(demo_warehouse, f"WITH n AS (SELECT r.rule_id g, COUNT(*) n FROM {FLEET} WHERE r.assessment_id = ? AND "
                              "r.status = 'fail' AND a.device_type = 'router' GROUP BY 1) SELECT g FROM n WHERE n = "
                              "(SELECT MAX(n) FROM n)", [worst])
    chat = Chat(services)
    chat("router failures month by month")
    chat("worst month?")
    lead = first_line(chat("which check failed most that month").final.answer)
    assert any(lead.startswith(f"**{t}**") for t, in top) and "router" in lead, (top, lead)


def test_their_pass_rate_after_how_many_devices_leads_with_the_rate_over_all_of_them(demo_warehouse: Path,
                                                                                      services: Services) -> None:
    # it led with the lowest and the highest device only
    (rate,), = sql(demo_warehouse, f"SELECT {PASS} FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                   "a.role = 'access' AND s.site_type = 'branch'")
    chat = Chat(services)
    chat("access switches at the branches")
    chat("how many is that")
    lead = first_line(chat("and their pass rate?").final.answer)
    assert lead.startswith(f"**{rate}% pass rate** over the"), (rate, lead)


def test_the_most_common_finding_of_a_kind_of_site_is_a_check_not_a_site(demo_warehouse: Path,
                                                                          services: Services) -> None:
    # "the most common critical finding at the branches" ranked the branches (a tie of seven)
    top = {r for r, in sql(demo_warehouse, f"WITH n AS (SELECT r.rule_id g, COUNT(*) n FROM {FLEET} WHERE "
                                           f"r.assessment_id = ({LATEST}) AND r.status = 'fail' AND r.severity = 'high' "
                                           "AND s.site_type = 'store' GROUP BY 1) SELECT g FROM n WHERE n = "
                                           "(SELECT MAX(n) FROM n)")}
    lead = first_line(Chat(services)("most common high severity failure across the stores?").final.answer)
    assert all(f"**{t}**" in lead for t in top) and "Store-" not in lead, (top, lead)


def test_a_rate_for_two_platforms_joined_by_and_is_each_ones_and_asa_is_no_device_type_then(
        demo_warehouse: Path, services: Services) -> None:
    # "pass rate for nx-os and asa" was one rate of the firewalls among them (asa read as a device type as well)
    rate = dict(sql(demo_warehouse, f"SELECT a.platform, {PASS} FROM {FLEET} WHERE r.assessment_id = ({LATEST}) AND "
                                    "a.platform IN ('asa', 'ios-xe') GROUP BY 1"))
    answer = Chat(services)("compliance of asa and ios-xe").final.answer
    lead = first_line(answer)
    assert all(re.search(rf"{p}\W{{1,6}}{rate[p]}%", lead) for p in rate), (rate, lead)
    assert "firewall" not in answer.split("\n")[0], answer.split("\n")[0]


def test_better_or_worse_over_several_runs_leads_with_which_way(demo_warehouse: Path, services: Services) -> None:
    # it gave the two ends of the series and no verdict
    runs = [r for r, in sql(demo_warehouse, RUNS)]
    rate = dict(sql(demo_warehouse, f"SELECT r.assessment_id, {PASS} FROM {FLEET} WHERE a.site = 'Site-B' GROUP BY 1"))
    first, last = rate[runs[1]], rate[runs[-1]]
    word = "Better" if last > first else "Worse" if last < first else "Unchanged"
    lead = first_line(Chat(services)("has Site-B gotten better or worse since september").final.answer)
    assert lead.startswith(f"**{word}**") and f"{first}%" in lead and f"{last}%" in lead, (word, lead)
