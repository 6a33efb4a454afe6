"""Knowledge answers that quote, not splice (issue 29): whole sentences of one document cited where they stand, a second
document shown apart with the amounts they disagree on, and "not found" when nothing retrieved answers. Prompts and
documents written for this file."""

from __future__ import annotations

import re
from pathlib import Path

from foundation.config import PROJECT_ROOT
from orchestration.interpretation.document_sentences import terms
from orchestration.interpretation.generic_answers import answer
from orchestration.outputs import ChunkMetadata, RetrievedChunk
from orchestration.runtime import handle_turn
from orchestration.services import Services
from tests.catalog import BY_ID, RULES
from tests.unit.test_conversations import Chat


def _chunk(cid: str, source: str, title: str, content: str) -> RetrievedChunk:
    return RetrievedChunk(content=content, metadata=ChunkMetadata(chunk_id=cid, source=source, title=title))


def test_a_knowledge_answer_quotes_one_document_and_shows_a_second_that_disagrees_apart() -> None:
    """Whole sentences of the best document, cited where they stand; another document that answers as well is shown
    apart with its own citation, and the amounts they disagree on are named. Nothing answers: not found."""
    standard = _chunk("a#1", "standard-patching.md", "Patch Management Standard",
                      "Critical vulnerabilities on network devices must be remediated within 14 days. "
                      "High ones within 30 days.\n\nLab devices are out of scope.")
    runbook = _chunk("b#1", "runbook-ops.md", "Operations Runbook",
                     "Critical vulnerabilities on network devices are remediated within 30 days of the advisory.")
    other = _chunk("c#1", "standard-ntp.md", "NTP Standard", "Every device uses two NTP servers with authentication.")
    out = answer("within how many days must critical vulnerabilities be remediated?", [standard, runbook, other],
                 "cbp_generic", RULES)
    lines = out.summary.split("\n")
    assert lines[0] == ("**The documents disagree**: our *Patch Management Standard* says 14 days, our *Operations "
                        "Runbook* 30 days.")
    assert lines[1] == ("Critical vulnerabilities on network devices must be remediated within 14 days. ⟦a#1⟧ — our "
                        "*Patch Management Standard*")  # the answer first, where it comes from after its marker
    assert lines[2:5] == ["", "Beside it, our *Operations Runbook* says:", "- Critical vulnerabilities on network "
                          "devices are remediated within 30 days of the advisory. ⟦b#1⟧"]  # each line its own chunk
    assert "NTP" not in out.summary
    assert [e.source for e in out.enterprise_context_applied] == ["standard-patching.md", "runbook-ops.md"]
    missing = answer("what is our standard for ipv6 router advertisement guard?", [other], "cbp_generic", RULES)
    assert missing.summary.startswith("**Not found in the knowledge base**") and not missing.enterprise_context_applied


def test_a_value_kept_in_a_table_is_quoted_with_its_column_headings() -> None:
    """A deadline in a Markdown table is read row by row, each cell with its heading; plurals are folded, so
    "deadline" and "criticals" find "Remediation deadlines" and "Critical"."""
    policy = _chunk("p#1", "policy-patching.md", "Patching Policy",
                    "## Remediation deadlines\n\n| Severity | Exposed | Internal |\n|---|---|---|\n"
                    "| **Critical** | 5 days | 21 days |\n| High | 20 days | 45 days |\n\nLab devices are exempt.")
    out = answer("what's our patching deadline for criticals", [policy], "cbp_generic", RULES)
    assert out.summary.split("\n")[0] == "Critical — Exposed: 5 days; Internal: 21 days. ⟦p#1⟧ — our *Patching Policy*"
    assert "|" not in out.summary.split("⟦")[0]
    highs = answer("what's our patching deadline for high ones", [policy], "cbp_generic", RULES)
    assert "High — Exposed: 20 days; Internal: 45 days." in highs.summary, highs.summary


def test_a_passage_that_only_names_the_same_thing_does_not_answer(demo_warehouse: Path, services: Services) -> None:
    """No bundled document describes how an exception is requested (only approved exceptions themselves): the
    answer says so instead of quoting an exception record. A question of time about remediation quotes the
    deadline table of the policy (its amounts checked against the document's own text)."""
    corpus = PROJECT_ROOT / "knowledge_base" / "corpus"
    assert not any(re.search(r"\brequest\w* (?:an |a )?exception", p.read_text(), re.I) for p in corpus.glob("*.md"))
    state = handle_turn("what's the process for requesting an exception to a finding?", services=services)
    assert state.final.answer.startswith("**Not found in the knowledge base**"), state.final.answer[:300]
    state = handle_turn("how long do we have to fix a critical finding", services=services)
    row = re.search(r"^\| Critical \| ([^|]+) \| ([^|]+) \|", (corpus / "policy-vulnerability-management.md")
                    .read_text(), re.M)
    assert row
    assert f"Critical — Internet-facing or PCI scope: {row.group(1).strip()}; Internal: {row.group(2).strip()}" \
        in state.final.answer.split("\n")[0], state.final.answer[:400]  # the answer leads
    # the router hears "findings" as the SLIC view here; the words ask the policy, not the fleet's matches
    state = handle_turn("how soon do we need to close medium findings?", services=services)
    medium = re.search(r"^\| Medium \| ([^|]+) \|", (corpus / "policy-vulnerability-management.md").read_text(), re.M)
    assert medium and state.mcp.tool_calls == []
    assert f"Medium — Internet-facing or PCI scope: {medium.group(1).strip()}" in state.final.answer
    # who owns a part of the network is the overview's, whatever part it names (a list item quoted whole)
    owner = re.search(r"^- \*\*Stores\*\*:.*?Owned by ([^;.]+)", (corpus / "org-network-overview.md").read_text(),
                      re.M | re.S)
    state = handle_turn("who owns the store firewalls?", services=services)
    assert owner and state.mcp.tool_calls == [] and f"Owned by {' '.join(owner.group(1).split())}" in state.final.answer, \
        state.final.answer[:500]


def test_a_standard_matched_on_a_technology_word_stands_only_for_checks_of_its_platforms() -> None:
    """"switches with telnet enabled": the firewalls' standard says "Telnet is never configured [ASA-TELNET]" — the
    word matches, but every check it names is the ASA's, so it is not cited for the switches' checks; a standard
    naming an IOS check, or naming none, may be."""
    from orchestration.interpretation.enterprise import context_for_rule, platforms_of, speaks_for

    firewall = _chunk("f#1", "standard-firewall.md", "Firewall Standard",
                      "Telnet is never configured [ASA-TELNET]. SSH version 2 only [ASA-SSH-V2].")
    switches = _chunk("s#1", "standard-vty.md", "VTY Standard", "Telnet is never enabled on a vty line [VTY-SSH-ONLY].")
    plain = _chunk("p#1", "standard-mgmt.md", "Management Standard", "Telnet is never used to manage a device.")
    for c in (firewall, switches, plain):
        c.metadata.topic = "approved_configurations"
    assert platforms_of(["NXOS-TELNET", "XR-TELNET"], BY_ID) == {"nx-os", "ios-xr"}
    assert not speaks_for(firewall, {"nx-os"}, BY_ID) and speaks_for(firewall, {"asa"}, BY_ID)
    assert speaks_for(plain, {"nx-os"}, BY_ID) and speaks_for(switches, {"ios-xe", "nx-os"}, BY_ID)
    cited = [c.source for c in context_for_rule([firewall, switches, plain], "NXOS-TELNET", BY_ID, "telnet")]
    assert "standard-firewall.md" not in cited and "standard-mgmt.md" in cited
    assert [c.source for c in context_for_rule([firewall], "ASA-TELNET", BY_ID, "telnet")] == ["standard-firewall.md"]


def test_a_deadline_asked_of_the_last_answer_and_a_release_asked_as_approved_read_the_policy_that_says(
        demo_warehouse: Path, services: Services) -> None:
    """"how fast do we need to fix those" after high findings is the deadline for high findings (the vulnerability
    policy, not the change policy); "is 16.12.4 approved?" quotes the approved releases, never a count of devices."""
    chat = Chat(services)
    chat("high findings at Store-50")
    answer = chat("how fast do we need to fix those per policy").final.answer
    assert "policy-vulnerability-management.md" in answer and "30 days" in answer, answer[:500]
    answer = handle_turn("is 16.12.4 approved?", services=services).final.answer
    assert "Approved releases" in answer and "policy-vulnerability-management.md" in answer, answer[:500]
    assert not answer.split("\n\n")[0].startswith("**Yes**"), answer[:300]


def test_a_release_asked_as_approved_is_answered_yes_or_no_from_the_trains_the_policy_lists() -> None:
    """The verdict comes from the quoted sentence's own trains, so another policy's list gives another verdict."""
    policy = _chunk("p#1", "policy-software.md", "Software Policy",
                    "Approved releases: IOS-XE 17.12.x, NX-OS 10.4.x and ASA 9.20.x. Older trains are upgraded "
                    "within a quarter.")
    no = answer("is 17.9.4 approved?", [policy], "cbp_generic", RULES).summary
    assert no.startswith("**No** — 17.9.4 is not in any approved train (17.12.x, 10.4.x, 9.20.x)."), no
    yes = answer("are we allowed to run 9.20.2 on the asas", [policy], "cbp_generic", RULES).summary
    assert yes.startswith("**Yes** — 9.20.2 is in an approved train (9.20.x)."), yes
    assert "Approved releases" in yes  # the sentence the verdict was read from is quoted under it
    plain = answer("what releases are approved?", [policy], "cbp_generic", RULES).summary
    assert not plain.startswith("**"), plain  # no release asked: no verdict


def test_that_release_and_that_signature_name_the_value_the_last_query_kept(demo_warehouse: Path,
                                                                           services: Services) -> None:
    chat = Chat(services)
    chat("devices running 16.12.4 at the branches")
    state = chat("is that version approved?")
    assert state.conversation.effective_prompt == "is 16.12.4 approved?", state.conversation.effective_prompt
    assert state.final.answer.startswith("**No**"), state.final.answer[:300]
    chat = Chat(services)
    chat("which devices match SLIC-SW-001")
    answer_ = chat("what does that signature mean for us").final.answer
    lead = next(line for line in answer_.split("\n\n")[1:] if line.strip())
    assert lead.startswith("**SLIC-SW-001** —") and "CVE-" in lead, lead


def test_a_verdict_on_a_release_reads_the_approved_list_not_a_sentence_about_an_approved_exception() -> None:
    """The quote may hold only the sentence about the release asked ("9.8 must be upgraded … unless an approved
    exception applies"): the verdict reads the passage's list of approved trains, wherever the quote left it."""
    policy = _chunk("p#2", "policy-software.md", "Software Policy",
                    "Approved releases: IOS-XE 17.12.x and ASA 9.20.x. Releases past end of maintenance (ASA 9.8) "
                    "must be upgraded within 6 months unless an approved exception applies.")
    verdict = answer("is 9.8(4) approved", [policy], "cbp_generic", RULES).summary
    assert verdict.startswith("**No** — 9.8(4) is not in any approved train (17.12.x, 9.20.x)."), verdict


def test_a_procedure_asked_for_is_answered_with_its_numbered_steps() -> None:
    """"who do I escalate to": the steps of the passage that numbers them, each cited, then when it applies — not only
    the list of when to escalate."""
    when = _chunk("e#1", "procedure-escalation.md", "Incident Escalation Procedure",
                  "## When to escalate\n\nEscalate when a device has a default community or an exposed management "
                  "plane.")
    how = _chunk("e#2", "procedure-escalation.md", "Incident Escalation Procedure",
                 "## How\n\n1. Open a P1 ticket with the device and the finding.\n2. Page the duty engineer on "
                 "the bridge line.\n3. Record the change.\n\nLow findings go to the backlog.")
    said = answer("who do i escalate to", [when, how], "cbp_generic", RULES).summary
    assert said.index("1. Open a P1 ticket") < said.index("Escalate when"), said
    assert "2. Page the duty engineer on the bridge line." in said and "backlog" not in said, said
    assert "⟦e#2⟧" in said and "⟦e#1⟧" in said, said
    plain = answer("when must we escalate", [when, how], "cbp_generic", RULES).summary
    assert "1. Open a P1" not in plain, plain  # no procedure asked: the passage that answers


def test_how_fast_after_findings_is_the_deadline_the_policy_gives(demo_warehouse: Path, services: Services) -> None:
    chat = Chat(services)
    chat("critical findings at Store-46")
    said = chat("how fast do they need fixing").final.answer
    assert "policy-vulnerability-management.md" in said and "7 days" in said, said[:400]


def test_a_verb_matches_its_other_forms_in_the_passage_that_answers(demo_warehouse: Path, services: Services) -> None:
    """"how long do we have to upgrade them" after the devices on 9.8(4) is answered by "must be upgraded within 6
    months", whatever form the verb takes on either side."""
    assert terms("upgraded") == terms("upgrade") == terms("upgrading") and terms("fixing") == terms("fix")
    assert terms("used") == {"used"}  # short words keep their ending
    chat = Chat(services)
    chat("which devices run 9.8(4)")
    said = chat("how long do we have to upgrade them").final.answer
    assert "must be upgraded within 6 months" in said.split("\n\n")[0], said[:400]


def test_a_question_the_data_would_answer_with_something_else_is_the_documents(demo_warehouse: Path,
                                                                                  services: Services) -> None:
    """No device, place, time or measure named, and the data would fall back on a summary, refuse an action only asked
    about, or ask which view is meant: the documents that say it answer. A request to act is still refused, and a
    measure named about a part of the network is still the data's."""
    for question, words in [("bpdu guard per port or global?", "preferably globally"),
                            ("high findings at a branch - what kind of ticket", "P2 tickets"),
                            ("who gets paged for a critical finding", "SOC on-call")]:
        state = handle_turn(question, services=services)
        assert (state.intent.domain_details.skill or "").endswith("_generic") and words in state.final.answer, \
            (question, state.final.answer[:300])
    request = handle_turn("open a ticket for the high findings at the branches", services=services)
    assert "I can't act" in request.final.answer, request.final.answer[:300]
    measured = handle_turn("compliance in us-west", services=services)
    assert (measured.intent.domain_details.skill or "").endswith("_assessment"), measured.final.answer[:300]


def test_a_check_no_rule_is_is_said_never_answered_with_every_failing_device(demo_warehouse: Path,
                                                                            services: Services) -> None:
    """"Which devices fail storm control?": no check of the catalog looks at storm control — said, and nothing runs;
    a check the catalog has ("without dhcp snooping") still lists its failing devices."""
    state = handle_turn("which devices fail storm control?", services=services)
    assert state.final.answer.startswith("I know no check of **storm control**") and not state.mcp.tool_calls, \
        state.final.answer[:300]
    known = handle_turn("switches without dhcp snooping", services=services)
    assert "L2-DHCP-SNOOPING" in known.final.answer and known.mcp.tool_calls, known.final.answer[:300]


def test_what_the_exception_register_does_not_hold_is_the_exception_documents(demo_warehouse: Path,
                                                                              services: Services) -> None:
    """"What's the compensating control for the pos tls exception": the register holds an exception's checks, places,
    devices, approver and expiry, not its compensating controls — the exception's document answers, its section's
    sentences quoted; "what's the expiry of …" is still the register's."""
    state = handle_turn("what's the compensating control for the pos tls exception", services=services)
    assert (state.intent.domain_details.skill or "").endswith("_generic"), state.final.answer[:300]
    assert "Quarterly ASV scans of the store public addresses." in state.final.answer, state.final.answer[:500]
    expiry = handle_turn("what's the expiry of the pos tls exception", services=services)
    assert (expiry.intent.domain_details.skill or "").endswith("_assessment") and "2027-03-31" in expiry.final.answer
