"""Multi-turn conversations through the entry point the UI uses (``handle_turn`` with a thread id):
carryover, refinement, same devices, finding references, self-corrections, acknowledgements,
cancellations, personalization, vague follow-ups, and knowledge augmentation."""

from __future__ import annotations

import re
import uuid
from datetime import date
from pathlib import Path
from typing import Any

from orchestration.runtime import handle_turn
from orchestration.services import Services
from orchestration.state import AssessmentState
from tests.stores import configured_memory
from tests.unit.test_answers import LATEST, sql


class Chat:
    def __init__(self, services: Services, user: str = "alice") -> None:
        self.thread, self.user, self.services = f"t-{uuid.uuid4().hex[:8]}", user, services

    def __call__(self, prompt: str) -> AssessmentState:
        return handle_turn(prompt, thread_id=self.thread, user_id=self.user, services=self.services)


def ents(state: AssessmentState, etype: str) -> list[str]:
    return [e.value for e in state.intent.entities if e.type == etype]


def test_carryover_what_about_security(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    first = chat("Summarize the configuration best practice findings for DataCenter-1")
    assert first.intent.intent_class == "cbp_assessment" and first.intent.meta_intent == "new_topic"
    second = chat("What about security?")
    assert second.intent.intent_class == "security_assessment"
    assert second.intent.meta_intent == "followup_question" and second.conversation.resolution == "carryover"
    assert ents(second, "site") == ["DataCenter-1"]
    assert second.plan.routing[-1] == "Security Assessment Agent"
    assert second.mcp.tool_calls[0].input["scope"]["sites"] == ["DataCenter-1"]


def test_refinement_focus_only_on_firewalls(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("Assess the security posture of our DataCenter-1 infrastructure.")
    refined = chat("Focus only on firewalls")
    assert refined.conversation.resolution == "refinement"
    assert refined.intent.intent_class == "security_assessment"
    assert (ents(refined, "site"), ents(refined, "device_type")) == (["DataCenter-1"], ["firewall"])
    scope = refined.mcp.tool_calls[0].input["scope"]
    assert scope == {"sites": ["DataCenter-1"], "device_type": "firewall"}


def test_a_refinement_after_a_self_correction_refines_the_corrected_question(demo_warehouse: Path,
                                                                             services: Services) -> None:
    """"summarize DataCenter-1", "sorry I meant DataCenter-2", "just the firewalls": the firewalls of DataCenter-2 —
    the question the correction stood for, kept with the turn (migration 10), not the words "sorry I meant …"."""
    chat = Chat(services)
    chat("summarize DataCenter-1")
    assert chat("sorry I meant DataCenter-2").conversation.effective_prompt == "summarize DataCenter-2"
    refined = chat("just the firewalls")
    assert refined.conversation.effective_prompt == "summarize DataCenter-2"
    assert (ents(refined, "site"), ents(refined, "device_type")) == (["DataCenter-2"], ["firewall"])
    assert refined.intent.frame.cannot is None and "DataCenter-2 / firewall" in refined.final.answer


def test_same_devices_keep_every_filter_of_the_previous_scope(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("Which critical configuration deviations are on the HQ devices?")
    second = chat("Assess the security of the same devices")
    assert second.conversation.resolution == "same_devices"
    assert (ents(second, "site"), ents(second, "severity")) == (["HQ"], ["critical"])
    call = second.mcp.tool_calls[0].input
    assert call["scope"] == {"sites": ["HQ"]} and call["severity_filter"] == "critical"
    assert second.final.scope is not None and second.final.scope.sites == ["HQ"]
    assert second.final.scope.severity == "critical"


def test_explain_the_second_finding(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    first = chat("What are the top 5 configuration deviations across my network?")
    second_finding = first.plan.tasks[-1].outputs.model_dump()["findings"][1]
    follow = chat("Explain the second finding")
    assert follow.conversation.resolution == "finding_reference"
    assert follow.conversation.referenced_finding.rule_id == second_finding["rule_id"]  # type: ignore[index]
    assert second_finding["rule_id"] in follow.final.answer and "To fix it" in follow.final.answer


def test_how_do_i_fix_a_finding_by_id(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    first = chat("What are the top 5 configuration deviations across my network?")
    third = first.plan.tasks[-1].outputs.model_dump()["findings"][2]
    follow = chat(f"How do I fix {third['id']}?")
    assert follow.conversation.resolution == "finding_reference"
    assert third["recommendation"].split("\n")[0] in follow.final.answer


def test_self_correction_reruns_and_is_remembered(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services, user=f"u-{uuid.uuid4().hex[:6]}")
    chat("Summarize configuration best practice findings for Site-B")
    fixed = chat("Sorry, I meant Site-A")
    assert fixed.conversation.resolution == "self_correction"
    assert ents(fixed, "site") == ["Site-A"] and fixed.intent.intent_class == "cbp_assessment"
    assert fixed.mcp.tool_calls[0].input["scope"]["sites"] == ["Site-A"]
    assert {"entity_type": "site", "wrong": "Site-B", "right": "Site-A"} in configured_memory().corrections(chat.user)


def test_acknowledgement_and_cancellation_do_not_plan(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("Summarize my latest configuration best practice assessment")
    thanks = chat("thanks, that helps")
    assert thanks.intent.meta_intent == "acknowledgement" and not thanks.plan.tasks and "welcome" in thanks.final.answer
    stop = chat("never mind")
    assert stop.intent.meta_intent == "cancellation" and not stop.plan.tasks and "cancelled" in stop.final.answer.lower()


def test_vague_followup_without_history_hits_the_gate(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    state = chat("What about security?")
    assert state.intent.intent_class == "unknown_or_needs_clarification" and state.intent.clarification_question
    assert not state.plan.tasks


def test_personalization_is_stored_applied_visible_and_removable(demo_warehouse: Path, services: Services) -> None:
    user = f"u-{uuid.uuid4().hex[:6]}"
    chat = Chat(services, user=user)
    noted = chat("Always show me the top 3 issues from now on. My site is HQ.")
    assert noted.conversation.resolution == "preference" and "top 3" in noted.final.answer
    assert configured_memory().preferences(user) == {"top_n": "3", "default_site": "HQ"}
    later = Chat(services, user=user)("Summarize my latest configuration best practice assessment")  # a new conversation
    assert "top_3" in ents(later, "output_format") and ents(later, "site") == ["HQ"]
    assert len(later.plan.tasks[-1].outputs.model_dump()["findings"]) == 3
    assert later.mcp.tool_calls[0].input["scope"]["sites"] == ["HQ"]
    chat("Forget my preferences")
    assert configured_memory().preferences(user) == {}
    other = Chat(services)("Summarize my latest configuration best practice assessment")  # other users are unaffected
    assert ents(other, "site") == []


def test_knowledge_query_is_augmented_for_followups(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("What do the SLIC findings for DataCenter-1 mean given our internal policies?")
    follow = chat("And what about the approved exceptions?")
    ka = follow.plan.task_for("Knowledge Agent")
    assert ka is not None
    meta = ka.outputs.model_dump()["retrieval_query"]["query_metadata"]
    assert meta["is_followup"] is True and "site=DataCenter-1" in meta["augmented_from"]
    assert "DataCenter-1" in ka.outputs.model_dump()["retrieval_query"]["formulated_query"]


def test_what_about_another_site_keeps_the_request(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("Which critical deviations remain open from the prior assessment at HQ?")
    other = chat("What about DataCenter-2?")
    assert other.conversation.resolution == "carryover" and ents(other, "site") == ["DataCenter-2"]
    assert other.mcp.tool_calls[0].tool_name == "issue_tracking_tool"


def test_a_bare_follow_up_that_only_changes_where_keeps_the_questions_form(demo_warehouse: Path, services: Services) -> None:
    from assessment_engine.warehouse.store import connect_reader
    from assessment_engine.warehouse.versions import current_file

    handle_turn("which switches at DataCenter-2 fail critical checks", thread_id="t-where", services=services)
    follow = handle_turn("and at the stores?", thread_id="t-where", services=services)
    assert (follow.intent.frame.ask, follow.intent.frame.subject) == ("list", "devices")  # not "yes/no"
    con = connect_reader(current_file(demo_warehouse))
    try:
        failing = [r[0] for r in con.execute(
            "SELECT DISTINCT r.asset_id FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site "
            "WHERE r.assessment_id = (SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY "
            "started_at DESC LIMIT 1) AND s.site_type = 'store' AND a.device_type = 'switch' AND r.status = 'fail' "
            "AND r.severity = 'critical'").fetchall()]
    finally:
        con.close()
    answer = follow.final.answer
    assert failing and f"**{len(failing)} device" in answer and all(name in answer for name in failing), answer


def _of_latest_run(warehouse: Path, column: str, where: str, device: str) -> Any:
    """One value of ``device``'s results in the latest fleet run (``column`` over the rows matching ``where``)."""
    from assessment_engine.warehouse.store import connect_reader
    from assessment_engine.warehouse.versions import current_file

    con = connect_reader(current_file(warehouse))
    try:
        (value,), = con.execute(f"SELECT {column} FROM results WHERE asset_id = ? AND {where} AND assessment_id = "
                                "(SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at "
                                "DESC LIMIT 1)", [device]).fetchall()
    finally:
        con.close()
    return value


def _latest_counts(warehouse: Path, where: str, failing: str) -> tuple[int, int]:
    """(devices assessed, devices failing) in the latest fleet run, among assets × sites rows matching ``where``."""
    from assessment_engine.warehouse.store import connect_reader
    from assessment_engine.warehouse.versions import current_file

    con = connect_reader(current_file(warehouse))
    try:
        row = con.execute(
            "SELECT COUNT(DISTINCT a.asset_id), COUNT(DISTINCT CASE WHEN r.status = 'fail' AND " + failing
            + " THEN a.asset_id END) FROM results r JOIN assets a USING (asset_id) JOIN sites s ON s.site = a.site "
            "WHERE r.assessment_id = (SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY "
            "started_at DESC LIMIT 1) AND " + where).fetchone()
    finally:
        con.close()
    return row[0], row[1]


TELNET = "r.rule_id IN ('VTY-SSH-ONLY', 'NXOS-TELNET', 'ASA-TELNET', 'XR-TELNET')"


def test_a_follow_up_naming_only_a_new_place_keeps_what_was_asked(demo_warehouse: Path, services: Services) -> None:
    """"which asas at the stores have telnet enabled" → "and at the data centers?": still telnet, still a list of
    ASAs — and an empty answer says out of how many; "what about switches?" then drops the ASA platform."""
    chat = Chat(services)
    chat("which asas at the stores have telnet enabled")
    dc = chat("and at the data centers?")
    assert dc.intent.frame.filters.topic == ["telnet"] and dc.intent.frame.ask == "list"
    assessed, failing = _latest_counts(demo_warehouse, "a.platform = 'asa' AND s.site_type = 'datacenter'", TELNET)
    assert assessed and not failing  # the demo's data-centre ASAs have telnet closed: the answer says none of them
    assert f"of the {assessed} devices assessed in this scope fails" in dc.final.answer, dc.final.answer
    switches = chat("what about switches?")
    assert switches.intent.frame.filters.platform == [] and switches.intent.frame.filters.device_type == ["switch"]
    assessed, failing = _latest_counts(demo_warehouse, "a.device_type = 'switch' AND s.site_type = 'datacenter'",
                                       TELNET)
    assert f"{failing} device" in switches.final.answer or (not failing and f"of the {assessed}" in
                                                             switches.final.answer), switches.final.answer


def test_a_count_follow_up_at_a_kind_of_site_counts_the_same_check_there(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("how many devices fail the ntp authentication check")
    branches = chat("what about the branches?")
    frame = branches.intent.frame
    assert (frame.ask, frame.checks, frame.filters.site_type) == ("count", ["NTP-AUTH"], ["branch"])
    judged, failing = _latest_counts(demo_warehouse, "s.site_type = 'branch' AND r.rule_id = 'NTP-AUTH'",
                                     "r.rule_id = 'NTP-AUTH'")
    assert f"**{failing}** of the {judged} devices judged on NTP-AUTH" in branches.final.answer, branches.final.answer
    security = chat("what about security?")  # a new what about the same place
    assert security.intent.intent_class == "security_assessment"
    assert security.intent.frame.filters.site_type == ["branch"] and not security.intent.frame.checks


def test_an_empty_scope_is_not_called_compliant(demo_warehouse: Path, services: Services) -> None:
    """No firewall stands at a branch in the demo: "how many branch firewalls fail telnet" is not "none fail"."""
    assessed, _ = _latest_counts(demo_warehouse, "a.device_type = 'firewall' AND s.site_type = 'branch'", TELNET)
    assert assessed == 0
    answer = Chat(services)("how many branch firewalls fail telnet").final.answer
    assert "No device assessed in ASMT-" in answer and "is in this scope" in answer, answer


def test_which_devices_are_those_after_a_count_names_the_devices_counted(demo_warehouse: Path, services: Services) -> None:
    """"how many critical findings at the stores" → "which devices are those?" lists the devices counted (as SQL
    finds them), not the inventory; "how many of them are in production?" then counts among those."""
    chat = Chat(services)
    chat("how many critical findings at the stores")
    those = chat("which devices are those?")
    _, failing = _latest_counts(demo_warehouse, "s.site_type = 'store'", "r.severity = 'critical'")
    assert those.final.answer.split("\n\n")[1].startswith(f"**{failing} devices**"), those.final.answer[:400]
    assert those.intent.frame.filters.severity == ["critical"] and those.intent.frame.filters.site_type == ["store"]
    production = chat("and how many of them are in production?")
    _, in_production = _latest_counts(demo_warehouse, "s.site_type = 'store' AND a.environment = 'production'",
                                      "r.severity = 'critical'")
    assert re.match(rf"\*\*{in_production}(?: devices?)?\*\*", production.final.answer.split("\n\n")[1]), \
        production.final.answer[:400]
    assert "Unverified" not in production.final.answer


def test_why_does_the_first_one_fail_it_is_about_that_device_and_what_was_listed(demo_warehouse: Path, services: Services) -> None:
    """Read alone, "why does the first one fail it?" is a question for the documents; after a list of devices it is
    the first device's failures of what was listed (it answered "Not found in the knowledge base")."""
    chat = Chat(services)
    listed = chat("which devices at HQ fail critical checks?")
    first = re.search(r"^\| 1 \| ([A-Z0-9-]+) \|", listed.final.answer, re.M)
    assert first is not None, listed.final.answer[:400]
    why = chat("why does the first one fail it?")
    assert why.intent.intent_class == "cbp_assessment" and why.intent.frame.targets.device == [first.group(1)]
    n = _of_latest_run(demo_warehouse, "COUNT(*)", "severity = 'critical' AND status = 'fail'", first.group(1))
    assert n and "Not found in the knowledge base" not in why.final.answer
    assert f"{first.group(1)} has {n} critical deviation" in why.final.answer, why.final.answer[:400]


def test_the_evidence_for_the_first_one_and_then_its_fix_keep_the_device_and_the_check_listed(
        demo_warehouse: Path, services: Services) -> None:
    """After "which firewalls at the stores fail telnet?", "show me the evidence for the first one" is that device's
    ASA-TELNET evidence (it answered "That is outside what I know"), and "and the fix?" its fix for that check (it
    gave every failed check's catalog fix) — the evidence line as the warehouse holds it."""
    chat = Chat(services)
    listed = chat("which firewalls at the stores fail telnet?")
    first = re.search(r"^\| 1 \| ([A-Z0-9-]+) \|", listed.final.answer, re.M)
    assert first is not None, listed.final.answer[:400]
    evidence = _of_latest_run(demo_warehouse, "evidence", "rule_id = 'ASA-TELNET'", first.group(1))
    shown = chat("show me the evidence for the first one")
    assert shown.intent.frame.targets.device == [first.group(1)] and shown.intent.frame.checks == ["ASA-TELNET"]
    assert shown.final.answer.split("\n\n")[1].startswith(f"**ASA-TELNET** fails on {first.group(1)}")
    assert evidence.splitlines()[0] in shown.final.answer, shown.final.answer[:600]
    fix = chat("and the fix?")
    assert fix.final.answer.split("\n\n")[1].startswith(f"**To fix ASA-TELNET on {first.group(1)}**"), \
        fix.final.answer[:400]


def test_which_of_the_exceptions_listed_and_does_it_cover_a_device(demo_warehouse: Path, services: Services) -> None:
    """"which exceptions do we have", "which expire this year" (of those), "does it cover RTR-CORE-1?" (the one
    exception the last answer named): each answer as the register and the results say."""
    end = f"{date.today().year}-12-31"  # "this year", as the product reads it
    this_year = [e for e, in sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE expires_on <= "
                                                 "CAST(? AS DATE) ORDER BY 1", [end])]
    later = [e for e, in sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE expires_on > CAST(? AS DATE)",
                             [end])]
    chat = Chat(services)
    chat("which exceptions do we have")
    state = chat("which expire this year")
    assert state.conversation.effective_prompt == "which exceptions expire this year"
    answer = state.final.answer
    assert all(e in answer for e in this_year) and not any(e in answer for e in later), answer[:400]
    if len(this_year) == 1:
        (covered,), = sql(demo_warehouse, f"SELECT COUNT(*) > 0 FROM results WHERE asset_id = 'RTR-CORE-1' AND "
                                          f"exception_id = ? AND assessment_id = {LATEST}", this_year)
        lead = chat("does it cover RTR-CORE-1?").final.answer.split("\n\n")[1]
        assert lead.startswith("**Yes**" if covered else "**No**") and this_year[0] in lead, lead


def test_a_request_naming_a_new_site_is_its_own_not_the_last_turns_filters(demo_warehouse: Path,
                                                                           services: Services) -> None:
    """"show configuration issues at DataCenter-1" after a count of the ASAs on 9.8 covers DataCenter-1, not its ASAs
    on 9.8 (there are none); "and at DataCenter-1?" would ask the last question there."""
    (devices,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT asset_id) FROM results WHERE assessment_id = {LATEST} AND "
                                      "asset_id IN (SELECT asset_id FROM assets WHERE site = 'DataCenter-1')")
    chat = Chat(services)
    chat("how many asas are on 9.8")
    state = chat("show configuration issues at DataCenter-1")
    assert state.final.scope is not None and state.final.scope.assets == devices, state.final.answer[:300]
    assert not state.final.scope.platform and not state.final.scope.os_version


def test_a_verdict_on_an_exception_is_its_lead_and_checks_not_every_finding_and_fix(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    (covered,), = sql(demo_warehouse, f"SELECT COUNT(*) > 0 FROM results WHERE assessment_id = {LATEST} AND "
                                      "asset_id = 'RTR-CORE-1' AND exception_id = 'EXC-2026-014'")
    answer = Chat(services)("does EXC-2026-014 cover RTR-CORE-1?").final.answer
    assert answer.split("\n\n")[1].startswith("**Yes**" if covered else "**No**"), answer[:300]
    assert "**Findings**" not in answer and "**Evidence and fixes**" not in answer, answer[-600:]


def test_one_exception_listed_is_what_it_and_the_next_place_mean(demo_warehouse: Path, services: Services) -> None:
    """"when does it expire" after the one exception of the lab is that exception, whole; the lab named as a place is
    replaced by the next place named, not kept as an environment there."""
    (exc, expires, approver), = sql(demo_warehouse, "SELECT exception_id, CAST(expires_on AS VARCHAR), approved_by "
                                                    "FROM exceptions WHERE sites = 'Lab-1'")
    chat = Chat(services)
    listed = chat("which exceptions cover the lab").final.answer
    assert exc in listed and "EXC-2026-007" not in listed, listed[:300]  # the lab's, not every one
    state = chat("who approved it")
    assert state.conversation.effective_prompt == f"who approved {exc}"
    lead = state.final.answer.split("\n\n")[1]  # after the scope line
    assert approver in lead and expires in lead, lead
    dc = {e for e, in sql(demo_warehouse, "SELECT exception_id FROM exceptions WHERE ',' || sites || ',' LIKE "
                                          "'%,DataCenter-2,%'")}
    answer = chat("exceptions for DataCenter-2").final.answer
    assert dc and all(e in answer for e in dc) and "environment lab" not in answer, answer[:300]


def test_they_after_several_exceptions_listed_are_those_exceptions(demo_warehouse: Path, services: Services) -> None:
    rows = sql(demo_warehouse, "SELECT exception_id, rule_id FROM exceptions WHERE ',' || sites || ',' LIKE "
                               "'%,DataCenter-1,%' ORDER BY expires_on, exception_id")
    assert len(rows) > 1
    chat = Chat(services)
    chat("exceptions for DataCenter-1")
    state = chat("what checks do those cover?")
    assert all(e in state.conversation.effective_prompt for e, _ in rows), state.conversation.effective_prompt
    assert all(r in state.final.answer.split("\n\n")[1] for _, r in rows), state.final.answer[:400]
