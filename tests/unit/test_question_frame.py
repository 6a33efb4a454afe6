"""The question frame (DESIGN §4a): the corpus is sound, the reader is fitted on its training part only and
measured on the held-out part, the words' slots are read as engineers type them, and questions the product cannot
answer run nothing. Prompts here are written for these tests, not taken from the corpus."""

from __future__ import annotations

import re
from datetime import date

import pytest

from foundation.config import PROJECT_ROOT
from orchestration.agents.intent_classifier import frame_of
from orchestration.frame_eval import CORPUS_DATE, evaluate
from orchestration.nlu.frame import (
    FrameReader,
    LabelledQuestion,
    everyday_words,
    load_corpus,
    read_limit,
    read_time,
)
from orchestration.runtime import handle_turn
from orchestration.services import Services, build_services
from orchestration.state import QuestionFrame

CORPUS = PROJECT_ROOT / "evals" / "question_frames.jsonl"
TODAY = date(2026, 11, 24)


def test_the_corpus_is_large_labelled_and_split() -> None:
    questions = load_corpus(CORPUS)
    assert len(questions) >= 400
    assert len({q.question.lower() for q in questions}) == len(questions)
    test = [q for q in questions if q.split == "test"]
    assert 0.2 <= len(test) / len(questions) <= 0.3
    asks = {q.frame.ask for q in test}
    assert asks == {q.frame.ask for q in questions}  # every kind of ask is measured
    for q in questions:  # a not-answerable question says why, and nothing else has a reason
        assert (q.frame.ask == "not_answerable") == (q.frame.cannot is not None), q.question


def test_the_reader_learns_from_the_training_part_only() -> None:
    """Nothing of a held-out question reaches the fitted reader: not its words, not its label."""
    from knowledge_base.embeddings import HashingEmbedder

    questions = load_corpus(CORPUS)
    held_out = LabelledQuestion("qf-x", "test", "frobnicate the quuxly zzyzx",
                                QuestionFrame(ask="not_answerable", subject="none", cannot="licensing"))
    reader = FrameReader([*questions, held_out], HashingEmbedder())
    vocabulary = reader.vocabulary()
    assert "frobnicate" not in vocabulary and "zzyzx" not in vocabulary
    assert {w for q in questions if q.split == "train" for w in q.question.lower().split()} & vocabulary
    with pytest.raises(ValueError, match="no training questions"):
        FrameReader([held_out], HashingEmbedder())


@pytest.mark.usefixtures("demo_warehouse")
def test_held_out_frames_are_read_with_the_measured_accuracy() -> None:
    """The floor is the target of 95 % per slot (docs/ARCHITECTURE.md has the measured figures); a change that
    reads frames worse than that fails here."""
    scores = evaluate(load_corpus(CORPUS), build_services(), "test", CORPUS_DATE)
    floors = {"ask": 0.95, "subject": 0.95, "cannot": 0.97, "filters": 0.97, "time": 0.98, "targets": 0.98,
              "limit": 0.98}
    below = {slot: round(s.accuracy, 3) for slot, s in scores.items() if s.accuracy < floors[slot]}
    assert below == {}


@pytest.mark.usefixtures("demo_warehouse")
@pytest.mark.parametrize(("prompt", "ask", "subject"), [
    ("how many asas do we have at the stores", "count", "devices"),
    ("which routers in branch 6 still run telnet?", "list", "devices"),
    ("site-b vs branch-09", "compare", "findings"),
    ("why does RTR-BR04-1 fail NTP-AUTH", "explain", "findings"),
    ("gimme the commands to sort out snmp on sw-br06-acc-2", "fix", "findings"),
    ("what does the credentials policy say about local accounts", "policy", "documents"),
    ("top 5 failing checks at the branches", "ranking", "rules"),  # the checks ranked, at the branches
    ("failures per role", "count", "findings"),  # a figure per group, not a series (no time named)
])
def test_asks_and_subjects_of_new_questions(prompt: str, ask: str, subject: str) -> None:
    frame = frame_of(prompt, build_services(), today=TODAY)
    assert (frame.ask, frame.subject) == (ask, subject), frame.describe()


@pytest.mark.usefixtures("demo_warehouse")
def test_every_value_of_a_filter_is_kept_and_names_resolve() -> None:
    frame = frame_of("store routers or firewalls on 9.8(4) or 9.12(4) with critical or high findings",
                     build_services(), today=TODAY)
    assert frame.filters.site_type == ["store"]
    assert sorted(frame.filters.device_type) == ["firewall", "router"]
    assert sorted(frame.filters.os_version) == ["9.12(4)", "9.8(4)"]
    assert sorted(frame.filters.severity) == ["critical", "high"]
    frame = frame_of("compare dc1 and dc2 core switches on SNMP-V3-PRIV", build_services(), today=TODAY)
    assert sorted(frame.filters.site) == ["DataCenter-1", "DataCenter-2"]
    assert frame.filters.role == ["core"] and frame.targets.rule == ["SNMP-V3-PRIV"]
    assert frame.filters.topic == []  # the rule id names a rule, not the SNMP topic


@pytest.mark.usefixtures("demo_warehouse")
def test_an_expired_exception_is_one_whose_expiry_is_past() -> None:
    """"which exceptions have expired": those expiring by yesterday — not every approved exception."""
    frame = frame_of("which devices have an expired exception?", build_services(), today=date(2027, 2, 1))
    assert frame.time.before == "2027-01-31"


@pytest.mark.usefixtures("demo_warehouse")
def test_plain_english_words_are_not_corrected_into_domain_words() -> None:
    """"three" is not "tree" (spanning-tree), "at least" is not "at last", an "unremediated" finding is not a
    "remediate" one; typos of domain words are still corrected."""
    spelling = build_services().router().spelling
    kept = "the three worst stores where at least one route is unremediated and checks cover the branches"
    assert spelling.normalize(kept) == kept
    assert spelling.normalize("complaince of the firewals") == "compliance of the firewalls"
    # a word of the documents longer than a domain word by a suffix is its own word, not a typo of it
    assert spelling.normalize("the asset criticality of store firewalls") == "the asset criticality of store firewalls"
    frame = frame_of("pass rate over the last three assessments", build_services(), today=TODAY)
    assert frame.time.last_n == 3


@pytest.mark.usefixtures("demo_warehouse")
def test_the_checks_a_question_counts() -> None:
    """A rule's own phrase picks it ("urpf" is one interface rule), a topic's own name picks the whole topic
    ("aaa problems" are every AAA rule's), words that tell rules apart pick those ("aaa new-model")."""
    def checks(text: str) -> list[str]:
        return frame_of(text, build_services(), today=TODAY).checks

    assert checks("edge routers where urpf is switched off") == ["IF-URPF-EDGE"]
    assert checks("is aaa new-model configured at every store") == ["AAA-NEW-MODEL"]
    assert {"AAA-NEW-MODEL", "AAA-ACCOUNTING", "AAA-METHOD-NONE"} <= set(checks("aaa problems at the branches"))
    assert checks("firewalls with telnet open") == ["ASA-TELNET"]


@pytest.mark.usefixtures("demo_warehouse")
def test_roles_named_by_their_device_word_and_series_of_three_months() -> None:
    frame = frame_of("do the spines have copp", build_services(), today=TODAY)
    assert frame.filters.role == ["spine"] and frame.filters.topic == ["copp"]
    # shortened as engineers write them: the inventory's role names
    assert frame_of("which dist switches at hq lack aaa", build_services(), today=TODAY).filters.role == ["distribution"]
    assert frame_of("agg or acc switches with telnet", build_services(), today=TODAY).filters.role == [
        "access", "distribution"]
    frame = frame_of("evidence of NX-SPINE-1 failing COPP", build_services(), today=TODAY)
    assert frame.targets.rule == ["COPP"] and frame.filters.topic == []  # COPP as written is the rule
    frame = frame_of("hq: august vs september vs october", build_services(), today=TODAY)
    assert frame.ask == "trend" and len(frame.time.months) == 3


def test_time_words() -> None:
    def time(text: str) -> dict[str, object]:
        return read_time(text, [], TODAY).model_dump(exclude_defaults=True)

    assert time("since july, how did we do") == {"since": "2026-07"}
    assert time("compare sept with december") == {"months": ["2026-09", "2025-12"]}  # December is last year's
    assert time("the past two scans") == {"last_n": 2}
    assert time("waivers that end before the end of Q2 2027") == {"before": "2027-06-30"}
    assert time("what got better since the prior run") == {"relative": "previous"}
    assert time("summary from the last run") == {}  # the last run is the latest, not the one before
    assert time("you may ask about anything") == {}  # "may" the verb is not May
    assert time("events this month") == {"relative": "this_month"}
    # an expiry's month is the next one of that name (exceptions expire ahead), never a run's month
    assert time("exceptions expiring before march") == {"before": "2027-02-28"}
    assert time("which waivers expire by the end of january") == {"before": "2027-01-31"}
    assert time("exceptions that expire until december 2026") == {"before": "2026-12-31"}
    assert time("anything expiring in the next 30 days") == {"before": "2026-12-24"}


def test_limits() -> None:
    assert read_limit("the five worst boxes") == 5
    assert read_limit("top 25 failing rules") == 25
    assert read_limit("store 48 routers on 17.9.4") is None


@pytest.mark.usefixtures("demo_warehouse")
@pytest.mark.parametrize(("prompt", "says"), [
    ("what's the memory usage on rtr-br05-1 right now", "live or operational state"),
    # a yes/no about a link or a contract is not a yes/no about failed checks ("Yes — 19 failed checks" was the answer)
    ("is the wan link at Branch-06 down?", "live or operational state"),
    ("is FW-HQ-2 still covered by a support contract", "licensing or support-contract"),
    # "reach" was corrected into "each" and the logging standard quoted; the configuration's side is offered
    ("can FW-HQ-1 reach the syslog server?", "live or operational state(?s:.*)does FW-HQ-1 pass LOG-HOST"),
    ("can rtr-br05-1 ping the ntp servers", "live or operational state"),
    ("can the branch routers reach the tacacs servers", "live or operational state(?s:.*)which branch routers fail AAA-"),
    ("open an incident in servicenow for fw-st50-1", "can't act"),
    ("what's a good pizza place near the office", "only help|outside what I know"),  # the router's gate or the frame's
    ("summarise the headlines from this morning", "outside what I know"),  # read as a summary by the grammar alone
    ("any good films this weekend?", "only help|outside what I know"),  # the router's gate or the frame's
])
def test_what_the_product_cannot_see_or_do_runs_nothing(prompt: str, says: str, services: Services) -> None:
    state = handle_turn(prompt, thread_id=f"t-cannot-{abs(hash(prompt))}", services=services)
    assert re.search(says, state.final.answer), state.final.answer
    assert state.plan.tasks == [] and state.mcp.tool_calls == []
    assert "planner" not in state.trace.node_run_order


@pytest.mark.usefixtures("demo_warehouse")
def test_a_question_in_words_the_product_and_its_documents_lack_is_off_topic() -> None:
    """No word of it is in the corpus of answered questions, the catalog or the operations words; a word the shared
    documents hold ("breakglass", in the credentials policy) keeps a question answerable."""
    from orchestration.agents.intent_classifier import _documents_hold, frame_catalogs

    services = build_services()
    reader = services.reader()
    assert everyday_words("how is the cricket going", reader, frame_catalogs(services)) == ["cricket"]
    assert everyday_words("how are we doing?", reader, frame_catalogs(services)) == []  # no content word: not off-topic
    assert everyday_words("how is the snmp going at the warehouse", reader, frame_catalogs(services)) == []
    assert _documents_hold(services, ["breakglass"]) and not _documents_hold(services, ["cricket"])
    assert "breakglass" in everyday_words("where is the breakglass kept", reader, frame_catalogs(services))
    frame = frame_of("where is the breakglass kept", services, today=TODAY)
    assert frame.cannot != "off_topic", frame.describe()
    assert frame_of("how is the cricket going", services, today=TODAY).cannot == "off_topic"


@pytest.mark.usefixtures("demo_warehouse")
def test_the_frame_is_in_state_and_the_trace(services: Services) -> None:
    state = handle_turn("how many firewalls are at HQ?", thread_id="t-frame-trace", services=services)
    assert state.intent.frame.ask == "count" and state.intent.frame.filters.site == ["HQ"]
    summary = next(d.summary for d in state.trace.state_deltas if d.node == "intent_classifier")
    assert "asks: count devices · site=HQ" in summary



@pytest.mark.usefixtures("demo_warehouse")
def test_a_policy_lookup_without_slic_words_is_answered_from_the_documents(services: Services) -> None:
    """The router hears "escalation" as the SLIC expert's view; the words name no SLIC result and the frame reads a
    lookup in the documents: the procedure answers, not the fleet's signature matches. With SLIC words the expert
    answers (EVAL-002's kind)."""
    state = handle_turn("where is the escalation process written down", thread_id="t-docs-over-insights", services=services)
    assert state.intent.domain_details.skill == "cbp_generic", state.intent.signals
    assert "the documents answer: a policy lookup without SLIC words" in state.intent.signals
    assert state.mcp.tool_calls == [] and any("escalation" in c.source for c in state.final.citations)
    slic = handle_turn("what do the slic hits at DataCenter-2 mean under our policies", thread_id="t-slic-policy", services=services)
    assert slic.intent.domain_details.skill.endswith("expert_insights")  # type: ignore[union-attr]


def test_a_signature_titles_words_name_it_and_do_not_ask_for_commands() -> None:
    """"cli" and "command" ask for a fix — except where they are the words of a signature's title the question names
    (SLIC-SW-003 is "NX-OS CLI command injection"): those boxes are listed, not a fix written."""
    services = build_services()
    frame = frame_of("show me the boxes exposed to that cli command injection issue", services, today=TODAY)
    assert frame.targets.signature == ["SLIC-SW-003"] and frame.ask != "fix", frame
    fix = frame_of("what commands fix the cli command injection exposure", services, today=TODAY)
    assert fix.ask == "fix", fix  # a fix asked in words of its own still is one


def test_months_ago_count_back_from_the_latest_run_not_the_calendar() -> None:
    """"two months ago" is counted back from the latest run's month (as "last month" is the run before the latest):
    on the first of a month the calendar would move the answer to another run, though no run came."""
    latest = date(2026, 11, 2)
    for today in (date(2026, 11, 30), date(2026, 12, 1), date(2026, 12, 31)):
        assert read_time("pass rate two months ago", [], today, anchor=latest).months == ["2026-09"], today
    assert read_time("pass rate two months ago", [], date(2026, 12, 1)).months == ["2026-10"]  # no run known: today


def test_a_month_said_with_its_year_is_that_years_and_a_year_is_an_expiry_deadline() -> None:
    # "september 2025" was read as the last September (2026): the year said was dropped
    today = date(2026, 12, 2)
    assert read_time("failed checks in september 2025", [], today).months == ["2025-09"]
    assert read_time("pass rate in april 2027 and in june", [], today).months == ["2027-04", "2026-06"]
    assert read_time("exceptions that expire before 2027", [], today).before == "2026-12-31"
    assert read_time("waivers expiring by the end of 2027", [], today).before == "2027-12-31"
