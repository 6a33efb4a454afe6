"""Never a different question answered silently (issue 10): typed names read against the inventory (one
match used and said, several or none asked about), the scope every data answer covered, deictic prompts
with and without something to refer to, filters kept over 3-turn threads, findings named by their
deviation, evidence in context, small figures right, and answers whose Markdown renders as meant."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from orchestration.agents.reflector import reflect
from orchestration.interpretation.markdown import markdown_problems
from orchestration.nlu.entities import read_entities
from orchestration.runtime import handle_turn
from orchestration.services import Services
from tests.unit.test_answers import LATEST, sql
from tests.unit.test_conversations import Chat


def new_chat(services: Services) -> Chat:
    """A conversation of its own user, so that remembered name readings do not leak between tests."""
    return Chat(services, user=f"u-{uuid.uuid4().hex[:8]}")


# --- how typed names are read (one match / several / none), for every kind of name ------------------
READINGS = [
    # sites
    ("Show configuration issues at Datacentr-1", "site", "corrected", "DataCenter-1"),
    ("Show configuration issues at Brnach-05", "site", "corrected", "Branch-05"),
    ("security posture of Stor-47", "site", "corrected", "Store-47"),
    ("deviations at branch 5", "site", "exact", "Branch-05"),
    ("failed checks at Lab1", "site", "exact", "Lab-1"),
    ("failed checks at \u041dQ", "site", "corrected", "HQ"),  # a Cyrillic capital En: read as HQ, and said so
    ("failed checks at H\u200bQ", "site", "exact", "HQ"),  # a zero-width space removed before reading
    ("compliance of Datacenter-3", "site", "unknown", None),
    ("how many failed checks does site Q have", "site", "ambiguous", None),
    ("critical issues at Store-44", "site", "unknown", None),
    ("open deviations at Dallas", "site", "unknown", None),
    ("worst configured devices in the data center", "site", "ambiguous", None),  # there are two
    ("which routers at the branch have issues", "site", "ambiguous", None),
    # devices
    ("what should I fix on RTR-CROE-1", "device", "corrected", "RTR-CORE-1"),
    ("deviations of rtr-core-1", "device", "exact", "RTR-CORE-1"),
    ("is WLC-HQ1 compliant", "device", "exact", "WLC-HQ-1"),
    ("status of SW-HQ-ACC-9", "device", "unknown", None),
    ("checks of NX-LEAF-7", "device", "unknown", None),
    ("issues on FW-EDGE-3", "device", "unknown", None),
    # assessment ids
    ("Compare assessment ASSESS-2026-002 with the latest", "assessment_id", "unknown", None),
    ("summary of assessment 2026-10-05", "assessment_id", "corrected", "ASMT-2026-10-05"),
    ("results of ASMT-2026-11-2", "assessment_id", "corrected", "ASMT-2026-11-02"),
    ("results of ASMT-2026-12-07", "assessment_id", "unknown", None),
    ("results of ASMT-2026-09-07", "assessment_id", "exact", "ASMT-2026-09-07"),
    # platforms
    ("high issues on our IOS-XR routers", "platform", "unknown", None),
    ("critical deviations on Junos boxes", "platform", "unknown", None),
    ("failed checks on NX-OS switches", "platform", "exact", "nx-os"),
    ("deviations of the IOS devices", "platform", "corrected", "ios-xe"),
    # software versions
    ("devices running 17.6.5", "os_version", "exact", "17.6.5"),
    ("deviations of switches on 9.3(8)", "os_version", "exact", "9.3(8)"),
    ("devices on version 16.9", "os_version", "corrected", "16.9.4"),
    ("devices on version 9.3", "os_version", "ambiguous", None),
    ("are devices on 17.2.1 failing SSH checks", "os_version", "unknown", None),
]


@pytest.mark.parametrize(("prompt", "etype", "status", "value"), READINGS)
def test_typed_names_are_read_against_the_inventory(prompt: str, etype: str, status: str, value: str | None,
                                                    demo_warehouse: Path, services: Services) -> None:
    reading = read_entities(prompt, services.names())
    found = [r for r in reading.resolutions if r.entity_type == etype]
    assert len(found) == 1, (prompt, reading.resolutions)
    assert (found[0].status, found[0].value) == (status, value), found[0]
    if status in ("ambiguous", "unknown") and etype in ("site", "device", "os_version"):
        assert found[0].candidates or etype == "site", found[0]  # the closest names are offered
    entity = [e for e in reading.entities if e.type == etype]
    assert entity and entity[0].source == ("unresolved" if value is None else "inventory")


@pytest.mark.parametrize("prompt", [
    "how do I fix CFG-003", "why does SSH-V2 fail", "what does exception EXC-2026-014 cover", "AES-256 and SHA-256 keys",
    "PCI-DSS scope", "show the top-5 issues", "ISR-4331 routers", "SLIC-SW-002 matches", "is CVE-2023-20198 relevant",
    "which TLS deviations remain on the store firewalls", "compare the branch routers with the data center switches",
])
def test_identifiers_of_other_kinds_are_no_names(prompt: str, demo_warehouse: Path, services: Services) -> None:
    reading = read_entities(prompt, services.names())
    assert not [r for r in reading.resolutions if r.entity_type in ("site", "device", "assessment_id")], reading


# --- seen case 1: unknown names never widen the scope -----------------------------------------------
@pytest.mark.parametrize(("prompt", "site"), [("Show configuration issues at Datacentr-1", "DataCenter-1"),
                                              ("Show configuration issues at Brnach-05", "Branch-05")])
def test_a_misspelled_site_is_read_openly_and_the_answer_covers_only_it(prompt: str, site: str,
                                                                        demo_warehouse: Path, services: Services) -> None:
    state = handle_turn(prompt, services=services)
    (devices,), = sql(demo_warehouse, f"SELECT COUNT(DISTINCT asset_id) FROM results WHERE assessment_id = {LATEST} "
                                      "AND asset_id IN (SELECT asset_id FROM assets WHERE site = ?)", [site])
    assert state.final.scope is not None and state.final.scope.sites == [site] and state.final.scope.assets == devices
    lines = state.final.answer.split("\n\n")
    assert lines[0].startswith("**Scope:**") and f"site {site}" in lines[0] and f"{devices} devices in scope" in lines[0]
    # "I read 'Datacentr-1' as DataCenter-1", said with the scope it explains: the next paragraph is the answer
    assert f"as **{site}**" in lines[0] and prompt.split()[-1] in lines[0] and "I read" not in lines[1]
    assert state.mcp.tool_calls[0].input["scope"] == {"sites": [site]}
    assert not state.final.partial


def test_unknown_assessment_ids_are_asked_about_with_the_ids_on_record(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Compare assessment ASSESS-2026-002 with ASSESS-2026-001", services=services)
    assert state.intent.intent_class == "unknown_or_needs_clarification" and not state.plan.tasks
    ids = [r[0] for r in sql(demo_warehouse, "SELECT assessment_id FROM assessments ORDER BY started_at DESC")]
    answer = state.final.answer
    assert "ASSESS-2026-002" in answer and "ASSESS-2026-001" in answer and all(i in answer for i in ids)
    assert answer.index(ids[0]) < answer.index(ids[-1])  # latest first


@pytest.mark.parametrize("prompt", ["Summarize the security posture of Brnach-99", "List the failed checks of FW-BRANCH-9",
                                    "Which high severity issues do our IOS-XR routers have?",
                                    "Show critical issues at Store-44", "Are devices on 17.2.1 failing SSH checks?"])
def test_a_name_nobody_knows_runs_nothing_and_asks(prompt: str, demo_warehouse: Path, services: Services) -> None:
    state = handle_turn(prompt, services=services)
    assert state.intent.intent_class == "unknown_or_needs_clarification"
    assert state.plan.tasks == [] and state.mcp.tool_calls == []
    assert "have not run anything" in state.final.answer


def test_an_ambiguous_name_lists_the_candidates_and_the_reply_picks_one(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    asked = chat("How many failed checks does site Q have?")
    assert "**Site-A**" in asked.final.answer and "**Site-B**" in asked.final.answer and not asked.plan.tasks
    answered = chat("the second one")
    assert answered.conversation.resolution == "name_clarification"
    assert answered.final.scope is not None and answered.final.scope.sites == ["Site-B"]
    assert "I read 'site Q' as **Site-B** (as you chose)" in answered.final.answer


def test_both_covers_every_candidate_and_says_so(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    asked = chat("What are the worst configured devices in the data center?")
    assert "**DataCenter-1** or **DataCenter-2**" in asked.final.answer and not asked.plan.tasks
    both = chat("both")
    assert both.final.scope is not None and both.final.scope.sites == ["DataCenter-1", "DataCenter-2"]
    assert "as **DataCenter-1 and DataCenter-2** (as you chose)" in both.final.answer


def test_a_name_reply_reruns_the_request_and_is_remembered(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    chat("Show critical configuration issues at Store-44")
    rerun = chat("Store-46")
    assert rerun.conversation.resolution == "name_clarification"
    assert rerun.mcp.tool_calls[0].input["scope"] == {"sites": ["Store-46"]}
    assert rerun.mcp.tool_calls[0].input["severity_filter"] == "critical"
    later = chat("Summarize the configuration findings at Store-44")  # the alias is this user's now, and said so
    assert later.final.scope is not None and later.final.scope.sites == ["Store-46"]
    assert "as you told me earlier" in later.final.answer


def test_a_range_with_missing_members_says_which_were_left_out(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Summarize configuration findings for stores 39 to 45", services=services)
    assert state.final.scope is not None and state.final.scope.sites == ["Store-39", "Store-40", "Store-41", "Store-45"]
    assert "Store-42, Store-43, Store-44 are not in the inventory and were left out." in state.final.answer


# --- seen case 2: deictic prompts --------------------------------------------------------------------
@pytest.mark.parametrize("prompt", ["Can you check it?", "What about that one?", "Is it compliant?", "Fix those devices",
                                    "Check this device for security issues"])
def test_nothing_to_refer_to_gets_a_question(prompt: str, demo_warehouse: Path, services: Services) -> None:
    state = handle_turn(prompt, services=services)
    assert state.intent.intent_class == "unknown_or_needs_clarification" and state.plan.tasks == []
    assert "no earlier question" in state.final.answer and prompt.rstrip("?") in state.final.answer


def test_a_clarification_question_is_no_antecedent(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    chat("Can you check it?")
    again = chat("Is it compliant?")
    assert again.intent.intent_class == "unknown_or_needs_clarification" and again.plan.tasks == []


def test_with_an_antecedent_it_refers_to_the_previous_scope(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    chat("Summarize the configuration assessment for RTR-CORE-1")
    state = chat("Can you check it for security issues?")
    assert state.intent.intent_class == "security_assessment" and state.intent.meta_intent == "followup_question"
    assert state.mcp.tool_calls[0].input["scope"] == {"device": "RTR-CORE-1"}


# --- seen case 7: follow-ups keep every filter; a correction changes only what it corrects -----------
def test_the_same_devices_keep_environment_and_severity_over_three_turns(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    first = chat("Which high severity deviations are open in production?")
    second = chat("Now check the same devices for security issues.")
    third = chat("Focus only on firewalls")
    for state in (first, second, third):
        call = state.mcp.tool_calls[0].input
        assert call["scope"]["environment"] == "production" and call["severity_filter"] == "high", call
        assert state.final.scope is not None and (state.final.scope.environment, state.final.scope.severity) == (
            ["production"], "high")
    assert second.intent.intent_class == "security_assessment" and third.mcp.tool_calls[0].input["scope"][
        "device_type"] == "firewall"


def test_a_correction_changes_only_what_it_corrects(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    chat("Which critical deviations are open at HQ in production?")
    site = chat("Sorry, I meant Site-A")
    severity = chat("I meant high")
    assert site.final.scope is not None and severity.final.scope is not None
    assert (site.final.scope.sites, site.final.scope.environment, site.final.scope.severity) == (
        ["Site-A"], ["production"], "critical")
    assert (severity.final.scope.sites, severity.final.scope.environment, severity.final.scope.severity) == (
        ["Site-A"], ["production"], "high")


def test_what_about_keeps_the_filters_it_does_not_change(demo_warehouse: Path, services: Services) -> None:
    chat = new_chat(services)
    chat("Show critical deviations on NX-OS devices in production")
    state = chat("What about DataCenter-2?")
    query = state.intent.query  # the first question ran as a query: its words asked again there run as one too
    assert query is not None, state.mcp.tool_calls[0].input
    kept = {c.dimension: c.values for c in query.conditions if not c.negated}
    assert kept == {"site": ["DataCenter-2"], "environment": ["production"], "platform": ["nx-os"],
                    "severity": ["critical"]}, kept
    assert "DataCenter-2" in state.final.answer.split("\n\n")[1]  # the lead says where it counted


# --- the answer states its scope, and the reflector checks it -----------------------------------------
def test_every_data_answer_opens_with_the_scope_it_covered(demo_warehouse: Path, services: Services) -> None:
    prompts = ["Which assets got worse since the previous assessment?", "Which critical deviations remain open at HQ?",
               "Which IOS-XE versions run at Branch-05?", "What do the SLIC findings for DataCenter-1 mean given our "
               "internal policies?", "Assess the security posture of our DataCenter-1 infrastructure."]
    for prompt in prompts:
        state = handle_turn(prompt, services=services)
        assert state.final.scope is not None, prompt
        assert state.final.answer.startswith("**Scope:** "), prompt
        assert not state.final.partial, (prompt, state.final.missing_inputs)


def test_the_reflector_qualifies_an_answer_whose_scope_is_not_the_one_asked(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Summarize the configuration findings for HQ", services=services)
    assert state.final.scope is not None
    widened = state.final.scope.model_copy(update={"sites": []})
    final, decision = reflect(state.model_copy(update={"final": state.final.model_copy(update={"scope": widened})}))
    assert final.partial and final.risk_of_error == "high" and decision.startswith("qualify")
    assert "scope differs from the question: asked for sites HQ, the data covers all sites" in final.answer


def test_a_device_type_the_inventory_lacks_is_not_dropped_silently(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Which configuration deviations do the access points at HQ have?", services=services)
    assert state.final.partial and any("access point" in m for m in state.final.missing_inputs), state.final.missing_inputs


# --- seen cases 3/4: citations exactly as cited, Markdown that renders --------------------------------
def test_citations_sit_outside_code_and_every_chip_names_a_retrieved_chunk(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("How should I configure SNMPv3 according to our company standards?", services=services)
    answer = state.final.answer
    assert "```" in answer and not re.search(r"```[^\n]*\[\d+\]", answer)
    assert markdown_problems(answer, {c.number for c in state.final.citations}) == []
    retrieved = {c["metadata"]["chunk_id"] for c in state.task_outputs("Knowledge Agent").model_dump()["enterprise_context"][
        "retrieved_chunks"]}
    assert state.final.citations and {c.chunk_id for c in state.final.citations} <= retrieved
    assert len({f"[{c.number}] {c.source}" for c in state.final.citations}) == len(state.final.citations)


def test_the_markdown_check_catches_what_broke_the_snmpv3_answer() -> None:
    broken = ("According to our standard: text.\n\nReference configuration:\n```\nsnmp-server group X v3 priv\n``` [1] [2]"
              "\n\n**Sources**\n\n[1] standard-snmpv3.md — approved_configurations\n[2] standard-snmpv3.md — approved")
    problems = markdown_problems(broken, {1, 2})
    assert any("never closed" in p for p in problems) and any("inside a code block" in p for p in problems)
    assert markdown_problems("See `show run [1]` and [3].\n\n| a | b |\n\n**Sources**\n\n[1] x.md", {1}) == [
        "citation marker inside inline code: `show run [1]`", "table row outside a table on line 3",
        "marker [3] has no citation"]


# --- seen cases 5/6: findings name the deviation; evidence in context; small figures right ------------
def test_findings_are_titled_with_the_deviation_and_show_the_offending_line(demo_warehouse: Path, services: Services) -> None:
    (device,), = sql(demo_warehouse, f"SELECT MIN(asset_id) FROM results WHERE assessment_id = {LATEST} "
                                     "AND rule_id = 'VTY-SSH-ONLY' AND status = 'fail' AND evidence LIKE '%transport input%'")
    state = handle_turn(f"What should I fix on {device}?", services=services)
    finding = next(f for f in state.task_outputs("Config Best Practice Agent").model_dump()["findings"] if f["rule_id"] == "VTY-SSH-ONLY")
    assert finding["title"] == "Telnet or other non-SSH access allowed on VTY lines"
    assert finding["control"] == "VTY lines accept SSH only"
    lines = finding["evidence"].split("\n")
    assert re.match(r"\d+: line vty", lines[0]) and re.match(r"\d+: +transport input (?!ssh$)", lines[1]), lines
    assert "transport input" in state.final.answer.split("**VTY-SSH-ONLY**", 1)[1].split("fix:")[0]
    assert "HTTP-SERVER — HTTP server enabled" in handle_turn("Summarize my latest configuration assessment", services=services).final.answer


def test_a_topic_filtered_device_answer_says_what_it_counted(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Show the SSH issues on RTR-BR01-1", services=services)
    (total,), = sql(demo_warehouse, f"SELECT COUNT(*) FROM results WHERE assessment_id = {LATEST} "
                                    "AND asset_id = 'RTR-BR01-1'")
    m = re.search(r"out of the (\d+) checks on ssh \((\d+) checks on this device in all\)", state.final.answer)
    assert m and int(m.group(2)) == total and int(m.group(1)) < total, state.final.answer[:400]


def test_the_severity_breakdown_leaves_no_severity_out(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("Show breakdown of configuration deviations by severity", services=services)
    rows = sql(demo_warehouse, f"SELECT severity, COUNT(*) FROM results WHERE assessment_id = {LATEST} AND status = "
                               "'fail' GROUP BY 1")
    table = re.search(r"\| Severity \| Failed checks \| Devices \|\n\|[-:|]+\|\n((?:\|.*\|\n?)+)", state.final.answer)
    assert table, state.final.answer[:800]
    shown = [tuple(c.strip() for c in row.strip("|").split("|")) for row in table.group(1).strip().split("\n")]
    for severity, n in rows:
        assert (severity, f"{n:,}") in [(r[0], r[1]) for r in shown], (severity, shown)
    order = [s for s in ("critical", "high", "medium", "low", "info") if s in dict(rows)]
    assert [r[0] for r in shown] == order


# --- seen case 8: a best-practice question is generic --------------------------------------------------
@pytest.mark.parametrize(("prompt", "skill"), [("What is the best practice for SNMPv3?", "cbp_generic"),
                                               ("What are the best practices for NTP?", "cbp_generic"),
                                               ("What is the best practice for securing SNMP?", "sec_generic"),
                                               ("Which devices fail the SNMPv3 best practice?", "cbp_assessment")])
def test_best_practice_questions_route_by_what_they_ask(prompt: str, skill: str, demo_warehouse: Path, services: Services) -> None:
    from orchestration.agents.intent_classifier import classify

    assert classify(prompt, services=services).domain_details.skill == skill
