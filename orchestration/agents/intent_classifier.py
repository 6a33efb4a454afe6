"""Intent Classifier node (DESIGN §4): intent class, skill, meta-intent, entities, confidence, and
the clarification gate. Contract: contracts/agents/intent_classifier.yaml."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Collection, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from assessment_engine.checks.judgement import all_fit, fits
from assessment_engine.checks.pasted_lines import judge_lines
from assessment_engine.checks.rule_engine import Rule
from assessment_engine.query import Bound, Condition, DataQuery
from assessment_engine.semantic_model import SemanticModel
from assessment_engine.warehouse.build import load_exceptions
from assessment_engine.warehouse.query_compiler import compile_query
from assessment_engine.warehouse.versions import version_stamp
from foundation.yaml_files import ContractError
from orchestration.interpretation.document_sentences import asked_focus, says_it, terms
from orchestration.interpretation.template_shapes import DEVICE_ROWS, INVENTORY_TEMPLATES, SCOPE_KEYS
from orchestration.nlu.checks import checks_asked, wanted_state
from orchestration.nlu.clarification import (
    clarification_question,
    followup_without_history_question,
    names_question,
)
from orchestration.nlu.collection_switch import is_only_a_switch, read_switch
from orchestration.nlu.domain import domain_details_for
from orchestration.nlu.entities import Gazetteer, extract_entities, read_entities
from orchestration.nlu.facets import asked_besides, asks_release_age, changes_asked, group_key, read_facets
from orchestration.nlu.followups import (
    IT_OR_ITS,
    PICKS_AMONG,
    Resolution,
    after_reset,
    exception_meant,
    list_in_play,
    name_reply,
    names_what,
    preference_statement,
    resolve,
    since_reset,
)
from orchestration.nlu.frame import (
    AGO,
    ANY,
    SIGNATURE_SAID,
    Catalogs,
    everyday_words,
    read_frame,
    title_words,
)
from orchestration.nlu.inventory_names import collections_of
from orchestration.nlu.meta_intent import (
    PLACE_THERE,
    detect_meta_intent,
    is_file_handoff,
    overlong,
    refers_back,
)
from orchestration.nlu.prescribed import (
    LIVE,
    LIVE_STATE,
    NAMES_OURS,
    about_the_last_answer,
    asks_live,
    asks_no_state,
    prescribed,
)
from orchestration.nlu.query_edits import (
    BARE_EXTREME,
    CHANGE_EXTREME,
    COMPARE_TO,
    COUNT_UNNAMED,
    EDITED,
    GROUP_EXTREME,
    IT,
    OF_THEM,
    ONES_LISTED,
    ORDINAL,
    ROW_REF,
    THE_TWO_TIMES,
    THEM,
    THEN,
    QueryEdit,
    alone,
    among_listed,
    between_runs,
    both_checks,
    both_lists,
    both_places,
    both_sides,
    carried_measure,
    carried_unframed,
    changed_between,
    compilable,
    count_of_the_last_figure,
    edited_query,
    for_both,
    keeps_ranking,
    of_a_population,
    of_its_row,
    one_value_of_them,
    ones_of_the_last,
    picked_prompt,
    ranked_by_the_conversations_figure,
    rows_added_up,
    the_two_named,
    then_named,
    within_last,
    worst_by_the_last_measure,
)
from orchestration.nlu.query_reader import (
    COUNT_CUE,
    DIFFER,
    OVER_TIME,
    PCI_IN,
    PCI_OUT,
    POLICY,
    SUMMARY_FIGURES,
    attribute_asked,
    attribute_query,
    bound_to_every,
    grouped_by,
    measure_words,
    names_a_part_beyond_the_frame,
    ordered_by,
    places_in_scope,
    ranks_rows,
    read_query,
    sorted_rows,
    summary_query,
    values_named,
)
from orchestration.nlu.router import SKILL_TO_CLASS, RouteDecision
from orchestration.nlu.spelling import expand_shorthand
from orchestration.nlu.unknown_check import unknown_check
from orchestration.outputs import RetrievedChunk
from orchestration.services import Services, build_services
from orchestration.state import (
    AssessmentState,
    Conversation,
    Entity,
    Intent,
    PastTurn,
    QuestionFrame,
    StateUpdate,
)
from orchestration.tools.question_plan import SQL_SKILLS, holds, sql_plan_for
from orchestration.tools.scope import scope_for

CONVERSATIONAL = frozenset({"acknowledgement", "cancellation"})
# "which sites are they at", "what releases do those run": other rows of the devices the last answer was about
WHICH_OF_THEM = re.compile(r"^\s*(?:and\s+|so\s+)?(?:which|what)\s+(?:sites?|releases?|versions?|platforms?|models?|roles?|"
                           r"site types?|regions?)\s+(?:are|is|do|does|were|did)\s+(?:they|those|these|them|those devices)\b",
                           re.IGNORECASE)
DEVICE_ATTRIBUTE = "device attribute: "  # the Intent step's signal of an inventory lookup, with the dimension asked
QUERY_SKILLS = (*SQL_SKILLS, "cbp_expert_insights", "sec_expert_insights")  # SLIC figures are data questions too
NAMED_SCOPE = ("site", "device", "device_type", "platform", "os_version", "assessment_id", "environment")
# "which have zero failures" after a list: a question with no subject of its own is about the last answer's rows
SUBJECTLESS = re.compile(r"^\s*(?:and\s+|so\s+)?(?:which|what|how many)\s+(?:ones?\s+|of (?:them|those|these)\s+)?"
                         r"(?:have|has|had|are|is|were|was|do|does|did|fail\w*|pass\w*|run\w*)\b", re.IGNORECASE)
_FOLLOWUP_LEAD = re.compile(
    r"^\s*(?:and|also|what about|how about|same (?:for|with)|now|then|ok(?:ay)?,?|sorry,? i meant|i meant|focus (?:only )?on)\b",
    re.I,
)

# a follow-up asking for one row by its figure ("which is highest", "and the lowest?", "which one dropped more")
ROW_ASKED = re.compile(r"\b(?:which|what)\b.*\b(?:most|least|fewest|highest|lowest|worst|best|more|less|fewer|"
                       r"higher|lower|better|worse|dropped|improved|increased|decreased)\b|^\s*(?:and|so)?\s*(?:the\s+)?"
                       r"(?:highest|lowest|worst|best|top|bottom)\b", re.I)
DATA_CLASSES = ("cbp_assessment", "sec_assessment")
PASTED_LINES = "pasted configuration lines"  # the signal of a question that quotes configuration to judge
RELEASE_AGE = "the releases run, by age"  # the signal of "the oldest ios version we run"



def _gate(intent: Intent, question: str, confidence: float) -> Intent:
    return intent.evolve(
        intent_class="unknown_or_needs_clarification",
        confidence=round(min(confidence, 0.49), 3),
        clarification_question=question,
    )


def _derived_assessment_type(skill: str, entities: list[Entity]) -> list[Entity]:
    """The assessment type follows from the classified domain when the prompt does not say it."""
    if any(e.type == "assessment_type" for e in entities):
        return entities
    value = "security" if skill.startswith("sec_") else "configuration_best_practice"
    return [*entities, Entity(type="assessment_type", value=value, confidence=0.6, source="derived")]


def _is_bare_followup(prompt: str) -> bool:
    rest = _FOLLOWUP_LEAD.sub("", prompt)
    return len(re.findall(r"[A-Za-z0-9-]{2,}", rest)) <= 4


LLM_BAND = (0.3, 0.5)  # router confidence where an optional LLM may break the tie


def _llm_second_opinion(text: str, decision: RouteDecision, threshold: float, services: Services) -> RouteDecision:
    """When the router is unsure and an LLM is configured, let it pick a skill; only a valid label counts."""
    from dataclasses import replace

    from orchestration import llm
    from orchestration.nlu.router import SKILL_TO_CLASS

    if not (LLM_BAND[0] <= decision.confidence < LLM_BAND[1]) or decision.intent_class == "unknown_or_needs_clarification":
        return decision
    skills = [s for s in SKILL_TO_CLASS if s not in ("out_of_scope", "vague_request")]
    answer = llm.ask(
        services.chat_model(),
        "Classify this question from a network engineer about configuration best-practice and security "
        f"assessments. Answer with exactly one label from: {', '.join(skills)}, or 'unclear'.\n\nQuestion: {text}")
    label = (answer or "").strip().strip(".'\"").lower()
    if label not in skills:
        return decision
    return replace(decision, skill=label, intent_class=SKILL_TO_CLASS[label],
                   confidence=threshold,
                   signals=[*decision.signals, "llm_second_opinion"])


def classify(prompt: str, history_available: bool = False, gazetteer: Gazetteer | None = None,
             services: Services | None = None) -> Intent:
    """Classification of one prompt on its own (the node adds conversation handling); ``services`` default to
    those of the current settings, for callers outside the graph."""
    services = services or build_services()
    pasted = bool(judge_lines(prompt, services.catalog.rules.rules))
    intent = _classify(prompt, history_available, gazetteer or services.names(), services, pasted)
    return with_facets(intent, prompt, services)


def with_facets(intent: Intent, text: str, services: Services) -> Intent:
    """The intent with the facets and the question frame of the request it answers (``text``: the effective
    request; a follow-up's entities carried from the conversation are filters of its frame as well)."""
    unknown = [r.mention.upper() for r in intent.name_resolutions if r.entity_type == "device" and r.status == "unknown"]
    readable = text.strip() and not overlong(text, services.settings.max_prompt_chars)  # an overlong one was answered
    frame = frame_of(text, services, intent.entities, unknown_devices=unknown) if readable else QuestionFrame()
    facets = read_facets(text, services.catalog, intent.domain_details.presentation_requirement)
    if frame.ask == "not_answerable" and facets.release_age:  # "the oldest version we run": the releases, listed
        frame = frame.evolve(ask="list", subject="devices", cannot=None)
    if frame.ask == "not_answerable" and set(facets.planner_conditions) & services.contracts.extension_conditions():
        # an extension's agent or tool declared it answers this ("plan the upgrade waves"): not refused, its rows
        frame = frame.evolve(ask="list", cannot=None)
    return intent.evolve(facets=facets, frame=frame)


# follow-ups read as a query of their own over the scope they resolved to ("what do they fail" after a list), so that
# the next one can edit it ("and last month?")
FOLLOWS_AS_QUERY = ("same_devices", "refinement")
KEEPS_FILTERS = ("same_devices", "refinement", "carryover", "device_reference")  # follow-ups that keep filters
# "that" / "it" pointing at what the previous question was about (not at a device or the list itself)
THAT = re.compile(r"\b(?:that|this|it|same (?:issue|problem|finding|thing))\b"
                  r"(?! (?:one|device|switch|router|firewall|box|list|table)\b)", re.I)
# "show me the evidence for the first one", "the fix for the second one": about a device of the list, as listed
ABOUT_ITS_PLACE = re.compile(r"\b(?:evidence|proof|config(?:uration)? lines?|lines?|why|fix\w*|remediat\w*|commands?)\b",
                             re.I)
FIX_WORDS = re.compile(r"\bfix\w*|\bremediat\w*|\bcommands?\b|\bhow do i\b", re.I)  # "and the fix?" asks for it
SCOPE_FILTERS = ("site_type", "role", "platform", "os_version", "device_type", "environment")
WHAT_FILTERS = ("topic", "severity")  # what was counted: kept about the same devices, not for a new request


def kept_filters(frame: QuestionFrame, previous: QuestionFrame, kind: str, text: str = "",
                 sites: Sequence[str] = (), left_out: Collection[str] = ()) -> QuestionFrame:
    """The frame of a follow-up with every filter of the previous question it does not change ("give me the
    devices with weak snmp" → "which of those are in production?" still counts the SNMP checks; "show me the worst
    stores" → "how does that compare with last month?" is still about the stores). A new request about the previous
    scope ("what about security?") keeps where, not what; never a value it left out (``left_out``: "not on 10.2(5)")."""
    carried = SCOPE_FILTERS + (WHAT_FILTERS if kind != "carryover" else ())
    if kind == "device_reference":  # "how do I fix that on the first one": the device named, what "that" was
        # ("the evidence for the first one": why it is on the list — what the list counted — unless it names its own)
        about_place = ABOUT_ITS_PLACE.search(text) and not names_what(frame, text)
        carried = WHAT_FILTERS if THAT.search(text) or about_place else ()
        if about_place and not frame.checks:
            frame = frame.evolve(checks=previous.checks)
        if about_place and frame.ask == "not_answerable":  # read alone it meant nothing: its evidence, as "why"
            frame = frame.evolve(ask="explain", subject="findings", cannot=None)
    if frame.filters.site or frame.targets.device:  # a named site or device is the scope now
        carried = tuple(k for k in carried if k != "site_type")
        # an environment a site is named after ("the lab": Lab-1's environment) was said as a place: a new place
        # replaces it ("exceptions for DataCenter-1" after the lab's is not about DataCenter-1's lab devices)
        said_as_a_place = previous.filters.environment and all(
            any(s.lower().startswith(env.lower()) for s in [*previous.filters.site, *sites])
            for env in previous.filters.environment)
        if said_as_a_place:
            carried = tuple(k for k in carried if k != "environment")
    if not all_fit(previous.filters.platform, frame.filters.device_type):
        carried = tuple(k for k in carried if k not in ("platform", "os_version"))  # switches run no ASA software
    if frame.filters.role and not frame.filters.device_type:
        carried = tuple(k for k in carried if k != "device_type")  # "the core boxes" after leaf switches: their own kind
    filters = frame.filters.evolve(**{k: [v for v in getattr(previous.filters, k) if v.lower() not in left_out]
                                      for k in carried if not getattr(frame.filters, k) and getattr(previous.filters, k)})
    checks = frame.checks or (previous.checks if "topic" in carried and filters.topic == previous.filters.topic else [])
    bare = kind == "carryover" and _is_bare_followup(text)
    if bare and not names_what(frame, text):
        # "which asas at the stores have telnet enabled?" → "and at the data centers?": where changes, what is kept
        filters = filters.evolve(**{k: getattr(previous.filters, k) for k in WHAT_FILTERS if not getattr(filters, k)})
        checks = checks or previous.checks
    frame = frame.evolve(filters=filters, checks=checks)
    if bare and previous.ask in DATA_ASKS and not (frame.ask == "fix" and FIX_WORDS.search(text)):
        # "which switches at DataCenter-2 fail critical checks?" → "and at the stores?": only where changes; the
        # answer keeps the question's form (the list), not what the bare words alone read as ("yes/no")
        frame = frame.evolve(ask=previous.ask, subject=previous.subject, limit=frame.limit or previous.limit,
                             confidence=max(frame.confidence, previous.confidence),  # as sure of it as then
                             margin=max(frame.margin, previous.margin))
    named_rows = frame.subject == previous.subject == "sites" and NAMED_AMONG.search(text) is not None
    if kind == "same_devices" and PICKS_AMONG.search(text) and frame.subject != "devices" and not named_rows:
        # "which of those are in production?" picks devices; "which of those sites are tier 1" after sites, sites
        frame = frame.evolve(ask="list", subject="devices")
    return frame


# "which of those sites …": the rows picked among named by their noun (not "which of those are …")
NAMED_AMONG = re.compile(r"\bwhich\s+of\s+(?:those|these|them)\s+(?!are\b|is\b|were\b|was\b|have\b|has\b|do\b|does\b)"
                         r"[a-z]{3,}", re.I)
CANNOT_CONFIDENCE = 0.6  # below it a not-answerable reading is not trusted: answering wrongly beats refusing wrongly


def cannot_answer(intent: Intent) -> bool:
    """Whether the question asks for what the product cannot see or do (live state, licences, actions,
    other topics): then nothing runs and the answer says so. Conversational turns are never refused."""
    frame = intent.frame
    # "what about that one?" with nothing before it: the question of what it points at comes first
    pointless = intent.meta_intent == "followup_question" and intent.intent_class == "unknown_or_needs_clarification"
    # "which one has the fewest" after a breakdown: an edit of the last query, whatever the words alone read as
    edited = intent.query is not None and frame.cannot in (None, "off_topic")
    return (frame.ask == "not_answerable" and frame.confidence >= CANNOT_CONFIDENCE
            and intent.meta_intent not in CONVERSATIONAL and not pointless and not edited)


def frame_catalogs(services: Services) -> Catalogs:
    """The check catalog's ids, signatures and words the frame reader reads names against, made once per services."""
    return services.kept("frame catalogs", _catalogs)


def _catalogs(services: Services) -> Catalogs:
    catalog = services.catalog
    return Catalogs(tuple(catalog.rules.ids), tuple((s.id, s.title) for s in catalog.signatures),
                    tuple(title_words(f"{r.title} {r.deviation}") for r in catalog.rules.rules),
                    tuple((s.id, w) for s in catalog.signatures for w in s.words),
                    _exception_words(catalog.exceptions_file))


def _exception_words(path: Path) -> tuple[tuple[str, str], ...]:
    """The words only one approved exception has — of its source document's name and the acronyms of its reason
    ("approved-exceptions-legacy-pos.md", "POS terminals"): "the POS exception" is that one."""
    try:
        exceptions = load_exceptions(path)
    except (OSError, ContractError, KeyError, TypeError):  # no exceptions file: none named by a word
        return ()
    words: dict[str, set[str]] = {}
    for e in exceptions:
        own = set(re.split(r"[-_.]", e.source_document.lower())) - {"approved", "exceptions", "exception", "md", ""}
        own |= {a.lower() for a in re.findall(r"\b[A-Z][A-Za-z]*[A-Z]\b", e.reason)} | {e.rule_id.lower()}
        for w in own:
            words.setdefault(w, set()).add(e.exception_id)
    return tuple(sorted((w, next(iter(ids))) for w, ids in words.items() if len(ids) == 1))


# the values of a device attribute asked for: "which platforms do we have", "list the roles"
INVENTORY_VALUES = re.compile(r"^\s*(?:which|what|list|show(?:\s+me)?)\s+(?:the\s+|all\s+|our\s+)?(?:(?:os|device|"
                              r"hardware|software)\s+)?(?:platforms?|models?|roles?|releases?|versions?|types|product "
                              r"famil(?:y|ies))\b", re.I)


def frame_of(text: str, services: Services, entities: list[Entity] | None = None, today: date | None = None,
             unknown_devices: list[str] | None = None) -> QuestionFrame:
    """The question frame of one request; ``entities`` default to those its words name."""
    router = services.router()
    words = router.spelling.normalize(text)
    if entities is None:
        reading = read_entities(words, services.names(), router.spelling.known_words)
        entities = reading.entities
        unknown_devices = [r.mention.upper() for r in reading.resolutions
                           if r.entity_type == "device" and r.status == "unknown"]
    reader = services.reader()
    # a turn reads the same words up to three times (the router's doubt, the standards' view, the facets)
    # (read only where the words count back: on a remote warehouse the runs are a query each time)
    anchor = _latest_day(services) if AGO.search(words) else None
    key = (words, tuple((e.type, e.value, e.source) for e in entities), tuple(unknown_devices or ()),
           today or date.today(), anchor)  # "this month" is read against the day, "3 months ago" the latest run's
    frame: QuestionFrame | None = reader.frames.get(key)
    if frame is None:
        frame = read_frame(words, entities, reader, frame_catalogs(services), today, unknown_devices or (), anchor)
        rules = services.catalog.rules
        frame = frame.evolve(checks=_applicable(checks_asked(words, frame.filters.topic, frame.targets.rule,
                                                            rules.rules), frame, rules.by_id))
        if frame.targets.signature and not frame.targets.rule and SIGNATURE_SAID.search(words):
            # "which devices matched the smart install signature": the signature's matches, not the check whose words
            # its title shares
            frame = frame.evolve(checks=[], filters=frame.filters.evolve(topic=[]))
        if frame.ask in ("list", "summary") and ANY.search(words.strip()) and not (
                frame.checks and wanted_state(frame.checks, rules.rules, words) == "passes"):
            # "telnet anywhere in DC2?": whether any fails, then which; not "is snmp v3 used anywhere" (a feature
            # wanted on, whose yes is a device passing — read as the list it was)
            frame = frame.evolve(ask="yes_no", polar=True)
        if frame.polarity is None and frame.ask == "yes_no":  # its words say neither: the checks it names decide
            frame = frame.evolve(polarity=wanted_state(frame.checks, rules.rules, words) if frame.checks else "fails")
        elif frame.polarity is None and frame.ask == "share" and frame.checks:
            frame = frame.evolve(polarity=wanted_state(frame.checks, rules.rules, words))
        model = services.catalog.semantic_model
        if HOW_DID.search(words) and frame.ask in ("summary", "not_answerable") and \
                names_a_part_beyond_the_frame(words, model):
            # "how did us-west do in september": a part of the network the reader has no filter for, summarized
            frame = frame.evolve(ask="summary", subject="findings", cannot=None,
                                 confidence=max(frame.confidence, CLEAR_ASK))
        # (a log the warehouse holds is no live state: "link flaps by month" are its LINK-3-UPDOWN events)
        logged = (frame.ask in ("policy", "not_answerable") or frame.subject == "documents") and any(
            model.measures[m].fact == "events" for m in measure_words(words, model))
        if logged and (
                group_key(words) or grouped_by(words, model) or COUNT_WORDS.search(words)
                or frame.time.months or frame.time.relative):
            # "ospf adjacency changes by site", "config changes at HQ in october": logged events counted, which no
            # standard holds — whatever the reader made of the protocol's name
            frame = frame.evolve(ask="count", subject="findings", cannot=None,
                                 confidence=max(frame.confidence, CLEAR_ASK_FLEET))
        if frame.ask != "not_answerable" and not [e for e in entities if e.type not in UNSPECIFIC_ENTITIES] and \
                (everyday := everyday_words(words, reader, frame_catalogs(services))) and not _documents_hold(services, everyday):
            # "summarize the news today": no word of it is the product's, nor in its documents; the reader had
            # only its grammar to go by (a summary)
            frame = frame.evolve(ask="not_answerable", subject="none", cannot="off_topic",
                                 confidence=max(frame.confidence, CANNOT_CONFIDENCE))
        prescribed = _prescribed(words, entities, frame)
        if prescribed:
            # "which ntp servers should devices use", "how often do we rotate the snmpv3 keys": what our documents
            # prescribe, whatever the reader made of the topic's words (the fleet's NTP findings, live state)
            frame = frame.evolve(ask="policy", subject="documents", cannot=None,
                                 confidence=max(frame.confidence, CLEAR_ASK))
        if INVENTORY_VALUES.match(words) and not prescribed and (
                frame.ask == "not_answerable" and (frame.cannot in ("off_topic", "licensing") or
                                                   frame.cannot == "live_state" and not asks_live(words, LIVE))
                or frame.ask == "policy" and not POLICY.search(words)):
            # "which platforms do we have", "what roles are there", "which releases are the routers on": the
            # inventory's values of a device attribute, which no everyday question, licence or policy asks (the
            # reader, fitted on few of them, took it for small talk, a licence or a standard)
            frame = frame.evolve(ask="list", subject="devices", cannot=None, confidence=max(frame.confidence, CLEAR_ASK))
        elif frame.ask == "not_answerable" and frame.cannot == "live_state" and COUNT_CUE.search(words) and \
                not asks_live(words, LIVE) and names_a_part_beyond_the_frame(words, model):
            # "how many of them are in us-east": a part of the network counted, no running state (the reader took
            # "are in" for where traffic is)
            frame = frame.evolve(ask="count", subject="devices", cannot=None, confidence=max(frame.confidence, CLEAR_ASK))
        elif frame.ask == "not_answerable" and frame.cannot == "off_topic" and \
                values_named(words, services.names().values):
            # "how many ISRs do we have": a value of the inventory (a product family by its brand) is the product's
            # word, which the reader never saw
            frame = frame.evolve(ask="count" if COUNT_CUE.search(words) else "list", subject="devices", cannot=None,
                                 confidence=max(frame.confidence, CLEAR_ASK))
        reader.frames.put(key, frame)
    return frame


def _prescribed(words: str, entities: Sequence[Entity], frame: QuestionFrame) -> bool:
    """A question of what we do or must do (``nlu.prescribed``) about no device, place, time or check's failures."""
    # a kind of device is what a standard is written for ("what vtp mode should switches run"); a place or a device
    # is a part of the network, whose state the data holds
    named = [e for e in entities if e.type in ("site", "device", "asset_target")]
    t = frame.time
    # ("who approved it" after one exception: a question about the last answer's row, which the edits read)
    # the reader's own verdicts stand: an exception asked about is the register's, small talk and licences are
    # refused (only live state may be a standard's words: "are uptime timestamps ok in logs?")
    theirs = frame.ask == "exception" or frame.subject == "exceptions" or frame.cannot == "off_topic" or (
        frame.cannot in ("licensing", "action") and frame.confidence >= CANNOT_CONFIDENCE)
    # the reader's own clear reading of a lookup in the documents counts as a modal does ("what tier are the store
    # firewalls classed as", "what day is the change advisory board") — still about nothing of the network's state
    # ("what release are the switches on" is the inventory's values, the network's state, however sure the reader is)
    read = frame.ask == "policy" and frame.subject == "documents" and frame.confidence >= CLEAR_ASK \
        and asks_no_state(words) and not INVENTORY_VALUES.match(words)
    return (prescribed(words) or read) and not named and not frame.targets.device and not frame.targets.signature and \
        not t.names_runs and not about_the_last_answer(words) and not theirs


def _documents_say(intent: Intent, text: str, services: Services, viewer: str) -> Intent:
    """A question about no device, place or time, which the product would refuse, ask back about or answer with the
    data's fallback (the fleet's summary), and whose words one sentence of the documents the asker can see holds: the
    documents answer it, quoted and cited — "outside what I know" only when they do not ("what's the backup wan path at
    the branches" with a WAN standard uploaded; "bpdu guard per port or global?"; "who gets paged for a critical
    finding"; "high findings at a branch - what kind of ticket")."""
    frame = intent.frame
    if not _not_the_datas(intent, text, services.catalog.semantic_model) or (asks_live(text, LIVE) and not NAMES_OURS.search(text)) or any(
            e.type not in KINDS for e in intent.entities) or about_the_last_answer(text) or frame.time.names_runs or \
            (frame.subject == "exceptions" and frame.expiring is not None) or (  # the register's dates, ordered
            (COUNT_CUE.search(text) or _ROWS_ASKED.match(text)) and values_named(text, services.names().values)):
        return intent  # ("how many ISRs do we have": the inventory's own values counted or listed are the data's)
    retriever = services.retriever()
    found = retriever.search(text, k=3, viewer=viewer) if retriever is not None else []
    if not says_it(text, [RetrievedChunk.model_validate(c.as_dict()) for c in found],
                   services.sentence_vectors().similarities):
        return intent
    skill = "sec_generic" if (intent.domain_details.skill or "").startswith("sec_") else "cbp_generic"
    return intent.evolve(intent_class=SKILL_TO_CLASS[skill], confidence=max(intent.confidence, CLEAR_ASK),
                         domain_details=domain_details_for(skill, intent.entities), clarification_question=None,
                         frame=frame.evolve(ask="policy", subject="documents", cannot=None),
                         signals=[*intent.signals, "the documents answer: a sentence of them holds its words"])


# the data's own shortcuts: an inventory value looked up, the releases by age, configuration lines judged
_THE_DATAS = (RELEASE_AGE, PASTED_LINES)


# one of the warehouse's runs ("when was the last assessment"), not the schedule ("when does the monthly assessment run")
_RUN_NAMED = re.compile(r"\b(?:last|latest|previous|recent|newest|oldest|first|earliest)\s+(?:assessments?|runs?|scans?)\b",
                        re.I)
# what the register of approved exceptions holds, as a question's focus names it
_REGISTER = terms("id number name rule check site place scope device cover approver approval expiry expiration date "
                  "validity status list count exception")
_ROWS_ASKED = re.compile(r"^\s*(?:please\s+)?(?:show|list|give|count|display|get|find|pull|print)\b", re.I)
# a request to do something ("open a ticket for it", "can you reboot RTR-1", "i need you to push the fix"), not a
# question of how it is done: the verb first, not a noun of a compound ("patch deadline for a high vuln", "change
# window at the stores")
_REQUEST = re.compile(r"^\s*(?:please\s+)?(?:(?:can|could|would|will)\s+you\b|i(?:'d| would)? (?:like|want|need) "
                      r"(?:you )?to\b|let'?s\b|(?:open|create|raise|file|log|reboot|restart|reload|push|apply|deploy|fix|"
                      r"patch|upgrade|shut|disable|enable|send|e-?mail|notify|page|run|start|schedule|remediate|configure|"
                      r"change|update|delete|remove)\b(?!\s+(?:deadlines?|windows?|paths?|polic(?:y|ies)|procedures?|"
                      r"process|times?|timelines?|sla|plans?|schedules?|cadence|rules?|standards?|requirements?|order|"
                      r"priorit(?:y|ies)|advisory|board|management|requests?|records?|freeze|tickets?)\b))", re.I)


def _not_the_datas(intent: Intent, text: str, model: SemanticModel) -> bool:
    """Whether the data would not answer the question as asked: the product would refuse it (live state, another
    topic, licences; an action only when it is asked about, not requested: "what kind of ticket does a high finding
    get"), ask back which view is meant, or fall back on a summary the reader did not clearly read ("bpdu guard per
    port or global?" is no summary of the fleet). A clear ask of the data — a list, count, verdict or summary the
    reader is sure of, or any word of the fleet's state — is the data's."""
    frame = intent.frame
    if cannot_answer(intent) and frame.cannot in ("live_state", "off_topic", "licensing"):
        return True
    # a word of the fleet's state, or a name the inventory does not know (the gate asks about it), is the data's
    if not asks_no_state(text) or any(r.status != "exact" for r in intent.name_resolutions):
        return False
    if cannot_answer(intent):
        return frame.cannot == "action" and _REQUEST.match(text) is None
    if intent.intent_class == "unknown_or_needs_clarification":
        # (a bare follow-up or small talk is the gate's to ask about)
        return intent.meta_intent not in (*CONVERSATIONAL, "followup_question")
    skill = intent.domain_details.skill or ""
    if skill.endswith(("_assessment", "_expert_insights")) and frame.ask == "exception" and (
            asked := asked_focus(text)) and not asked & _REGISTER:
        # "what's the compensating control for the pos tls exception": what the register's rows do not hold (its
        # checks, places, devices, approver and expiry) is the exception document's
        return True
    # routed to the data: a measure of the warehouse ("compliance in us-west"), a group ("per severity"), a part of
    # the network the frame has no filter for or rows asked for ("show me the wireless controllers") keep it there
    if skill.endswith("_generic") or any(s in _THE_DATAS or s.startswith(DEVICE_ATTRIBUTE) for s in intent.signals) or \
            measure_words(text, model) or group_key(text) or grouped_by(text, model) or \
            names_a_part_beyond_the_frame(text, model) or _ROWS_ASKED.match(text) or _RUN_NAMED.search(text):
        return False
    # (the reader's own reading of a lookup in the documents, whatever the ask: "until when is urpf exempted on the dc
    # routers" is the exception's text, not the data centres' routers)
    unclear = frame.subject == "documents" or frame.confidence < (
        CLEAR_ASK if frame.ask in ("summary", "not_answerable", "policy") else CLEAR_ASK_POPULATION)
    return unclear and not frame.targets.device and not frame.targets.signature and intent.query is None


def documents_prescribe(frame: QuestionFrame, decision: RouteDecision, text: str,
                        entities: Sequence[Entity]) -> RouteDecision | None:
    """The router chose the data for a question of what we do or must do ("which ntp servers should devices use"):
    the standards' skill of the same view answers it."""
    skill = decision.skill or ""
    if skill.endswith("_generic") or frame.ask != "policy" or not _prescribed(text, entities, frame):
        return None
    chosen = "sec_generic" if skill.startswith("sec_") else "cbp_generic"
    return dataclasses.replace(decision, skill=chosen, intent_class=SKILL_TO_CLASS[chosen],
                               signals=[*decision.signals, "the documents answer: what we do or must do"])


HOW_DID = re.compile(r"\bhow(?:'s|s)?\s+(?:did|does|do|is|are|was|were)\b.*\b(?:do(?:ing)?|look(?:ing)?|fare|faring|"
                     r"perform(?:ing)?)\b", re.I)
COUNT_WORDS = re.compile(r"\b(?:how many|number of|count|per|each|by)\b", re.I)


def _applicable(checks: list[str], frame: QuestionFrame, rules: Mapping[str, Rule]) -> list[str]:
    """The checks asked that can apply to the device types and platforms named ("ssh v2 on the routers" is not the
    ASA's SSH rule); all of them when none can (then the answer says they are not judged there)."""
    types, platforms = frame.filters.device_type, set(frame.filters.platform)
    if frame.targets.rule or not (types or platforms):
        return checks
    kept = [c for c in checks if c not in rules or (
        (not types or any(fits(p, t) for p in rules[c].platforms for t in types))
        and (not platforms or platforms & set(rules[c].platforms)))]
    return kept or checks


UNSPECIFIC_ENTITIES = ("timeframe", "assessment_type")  # "today", "assessment": they name no part of the network

# what a question may name and still be the documents': kinds of things a standard is written for ("syslog source
# interface on firewalls", "who gets paged for a critical finding"), not a device, place, assessment or address
KINDS = (*UNSPECIFIC_ENTITIES, "device_type", "environment", "severity", "output_format", "priority", "platform",
         "os_version")


def _no_such_check(intent: Intent, text: str, services: Services) -> Intent:
    """A data question about the failures of a check no check of the catalog is ("which devices fail storm control?"):
    said and asked about, never answered with the devices failing any check."""
    frame = intent.frame
    skill = intent.domain_details.skill or ""
    if not skill.endswith(("_assessment", "_expert_insights")) or frame.checks or frame.targets.rule or \
            frame.targets.signature or frame.targets.cve or intent.query is not None or \
            measure_words(text, services.catalog.semantic_model):
        return intent
    name = unknown_check(services.router().spelling.normalize(text), services.reader(), frame_catalogs(services))
    if name is None:
        return intent
    rules = services.catalog.rules.rules
    families = ", ".join(sorted({r.id.split("-")[0] for r in rules}))
    return _gate(intent, f"I know no check of **{name}**: none of the assessment's {len(rules)} checks looks at it, so "
                 "I cannot say which devices fail it (nor list the devices failing any check instead). The checks' "
                 f"families are {families}; ask with one of them or a rule id (NTP-AUTH, L2-DHCP-SNOOPING).", 0.0)


def _documents_hold(services: Services, words: list[str]) -> bool:
    """Whether any of ``words`` occurs in the shared knowledge base (a question about what an organisation's own
    documents cover is not off-topic, whatever the corpus lacks)."""
    retriever = services.retriever()
    return retriever is not None and bool(retriever.index.keyword_search(words, 1, None))


DATA_ASKS = ("list", "count", "share", "yes_no", "compare", "trend", "ranking", "explain", "fix", "exception")
CLEAR_ASK = 0.85  # the frame reader's confidence in the ask above which a question with a target runs
CLEAR_ASK_NAMED = 0.5  # … when it names a device or rule and the checks it is about (its data answers any ask)
CLEAR_ASK_FLEET = 0.9  # … when it names nothing (the whole network is the scope)
OURS = re.compile(r"\b(?:we|our|us)\b", re.I)  # the organisation's own network, when nothing else is named
CLEAR_MARGIN = 0.45  # … or the ask leads the runner-up by this much
CLEAR_ASK_POPULATION = 0.6  # … of a list/count/share of devices of a named kind over the standards' view
POPULATION_ASKS = ("list", "count", "share", "ranking", "trend", "compare")  # asks about a population of devices


def self_contained(text: str, services: Services, entities: list[Entity]) -> bool:
    """A whole question whose "it" points inside itself ("what's the worst problem in my network and how do I fix
    it?"): the frame reads a clear data ask and the sentence is long enough to hold its own subject."""
    frame = frame_of(text, services, entities)
    return frame.ask in DATA_ASKS and frame.confidence >= 0.9 and len(re.findall(r"\w+", text)) >= 8


def _filtered(frame: QuestionFrame) -> bool:
    """The words name a part of the network or of the checks (any filter: site, kind of site, type, OS, version,
    environment, role, severity, topic)."""
    return any(frame.filters.model_dump().values())


# a rate of the checks: a figure of the warehouse, never a standard's sentence ("pass rate of the management plane")
RATE_WORDS = re.compile(r"\b(?:pass|fail|failure)[\s-]?rates?\b|\b(?:what|which)\s+(?:percent(?:age)?|%|share|proportion|"
                        r"fraction)\s+of\b|\bcompliance\s+(?:rate|score|%|percentage)\b|\bcompliance\s+(?:across|over)\s+"
                        r"(?:the\s+|our\s+)?(?:whole\s+|entire\s+)?(?:fleet|network|estate|sites|devices)\b", re.I)


# what findings mean for PCI (the expert's reading), not the PCI sites as a population
PCI_GROUPS = re.compile(r"\b(?:by|per|split by|broken down by)\s+pci\b", re.I)  # "failed checks by pci scope"
PCI_IMPACT = re.compile(r"\b(?:affect\w*|impact\w*|complian\w*|risk\w*|exposure|mean\w*|implications?|procedures?|"
                        r"process|report\w*|escalat\w*|polic\w*|requirements?|must|should|when\s+an?)\b|"
                        r"\bwhat\s+(?:do|should|must)\s+we\b", re.I)  # (and what is done about it)


_WHOLE_NETWORK = re.compile(r"\b(?:any|every)where\b|\bon (?:all|every|any) (?:of (?:our|the) )?(?:devices?|routers?|"
                            r"switch(?:es)?|firewalls?|boxes|box)\b", re.I)


def data_over_policy(frame: QuestionFrame, decision: RouteDecision, text: str = "",
                     logged: bool = False, grouped: bool = False) -> RouteDecision | None:
    """The router chose a view the frame says the question is not about: the standards, when the frame reads a clear
    ask of the data about a part of the network ("branch routers with the default snmp community?" lists devices, it
    does not quote the SNMP standard) or a verdict on the checks it names there ("is ntp authenticated at HQ?"); the
    SLIC findings, when it asks one device's verdict on the checks named ("is the tls finding on FW-1 covered by an
    exception?") or lists a signature's matches. The assessment skill of the same view answers."""
    skill = decision.skill or ""
    # devices of a named kind are a population the standards do not hold: a lower floor for them
    part = any(v for k, v in frame.filters.model_dump().items() if k not in ("severity", "topic"))
    # "ntp auth failures over time", "did critical findings get worse since september?": figures per run are the
    # warehouse's — neither a standard nor an expert's reading of SLIC matches (unless SLIC words were said)
    series = (frame.ask == "trend" or (frame.ask == "yes_no" and bool(frame.direction) and bool(
        frame.time.since or frame.time.last_n or frame.time.relative))) and frame.subject in ("findings", "runs") \
        and not frame.targets.signature and "slic" not in decision.signals and frame.confidence >= CLEAR_ASK
    if skill.endswith("_generic"):
        # "is the http server disabled on all routers?", "is SNMP-ACL on RTR-1 covered by an exception?": a verdict
        # (or of the whole network asked as such: "is ntp authentication enabled everywhere?")
        verdict = frame.ask in ("yes_no", "exception", "fix") and bool(frame.checks) \
            and bool(part or frame.targets.device or _WHOLE_NETWORK.search(text))
        population = frame.ask in POPULATION_ASKS and frame.subject in ("devices", "sites", "runs") and _filtered(frame)
        # "what does D2_IOSXE fail?": the standards hold no device; its failures are the data's
        device = bool(frame.targets.device) and frame.ask in ("list", "count", "explain", "summary")
        # "which exceptions are about snmp and when do they expire": the register's rows, ids and expiry dates are
        # the warehouse's; a document that also describes them is not the list
        exceptions = frame.subject == "exceptions" and frame.ask in ("list", "count") and _filtered(frame)
        # "how many of them fail OSPF-AUTH": the failures of a check named by its id are counted in the warehouse
        # ("which sites fail NTP-AUTH the most": the places ranked by those failures)
        failures = frame.ask in ("list", "count", "ranking") and bool(frame.targets.rule) and frame.subject in (
            "findings", "devices", "sites")
        # (a rate of a check named, whatever the ask read: "NTP-AUTH compliance across the network")
        rated = (frame.ask in ("share", "count", "ranking", "compare") or bool(frame.targets.rule)) and \
            bool(RATE_WORDS.search(text))
        # "interface flaps per site": events of a kind the log holds (``logged``), counted in the warehouse
        failures = failures or rated or (logged and frame.ask in ("count", "trend", "ranking", "list"))
        floor = CLEAR_ASK_POPULATION if verdict or device or exceptions or failures or (
            population and part and frame.subject == "devices") else CLEAR_ASK
        if (failures and grouped) or (rated and frame.targets.rule and frame.ask != "policy"):
            # "NTP-AUTH failures per region", "NTP-AUTH compliance across the network": a check's failures per group,
            # or its rate, are only the data's
            floor = 0.0
        if not series and ((frame.confidence < floor and frame.margin < CLEAR_MARGIN)
                           or not (verdict or population or device or exceptions or failures)):
            return None
    elif skill.endswith("_expert_insights"):
        # "does every switch have dhcp snooping?": the verdict of the checks named on a device or a part of the
        # network
        verdict = frame.ask in ("yes_no", "exception", "fix") and bool((frame.targets.device or part) and frame.checks) \
            and not (frame.targets.signature or frame.subject == "signatures")
        # "which asas are exposed to <a signature>?": the devices it matched, listed or counted
        matches = bool(frame.targets.signature) and frame.ask in ("list", "count", "yes_no")
        # "which exceptions cover DataCenter-2?": the approved exceptions are data, not an expert's reading
        exceptions = frame.subject == "exceptions" and frame.ask in ("list", "count", "exception") \
            and frame.confidence >= CLEAR_ASK_POPULATION
        # "prod vs lab critical findings": two groups of the network side by side, at one time — the data's, not
        # an expert's reading of SLIC matches (unless SLIC words were said)
        filters = frame.filters.model_dump()
        sides = frame.ask == "compare" and "slic" not in decision.signals and not frame.targets.signature \
            and not (frame.time.months or frame.time.relative or frame.time.runs) \
            and any(len(filters[k]) >= 2 for k in ("site", "site_type", "device_type", "platform", "os_version",
                                                   "environment", "role"))
        # "which rules do all firewalls pass?": the checks every device passes, counted in the warehouse — no SLIC
        # signature is a rule a device passes
        clean = frame.subject == "rules" and frame.polarity == "passes" and frame.ask in ("list", "count") \
            and not frame.targets.signature and "slic" not in decision.signals
        # "pass rate of pci sites vs non pci", "firewalls not in pci scope": the sites' PCI scope as a population
        # of the data, not the expert's reading of what the SLIC matches mean for PCI
        pci_population = bool(PCI_IN.search(text) or PCI_OUT.search(text) or PCI_GROUPS.search(text)) and "slic" not in decision.signals and \
            not frame.targets.signature and frame.ask in POPULATION_ASKS and \
            not PCI_IMPACT.search(text)
        if not (verdict or matches or exceptions or sides or series or clean or pci_population):
            return None
    else:
        return None
    chosen = "sec_assessment" if skill.startswith("sec_") else "cbp_assessment"
    return dataclasses.replace(decision, skill=chosen, intent_class=SKILL_TO_CLASS[chosen],
                               signals=[*decision.signals, f"the data answers: {frame.ask} {frame.subject}"])


def checks_over_insights(frame: QuestionFrame, decision: RouteDecision) -> RouteDecision | None:
    """The router chose the SLIC expert's view for findings of a severity listed or counted, and no word names a SLIC
    result, signature or known issue ("what are its high findings" after a site's summary): the failed checks of that
    severity, the assessment skill of the same view (with SLIC words the expert answers, as designed)."""
    if not (decision.skill or "").endswith("_expert_insights") or "slic" in decision.signals:
        return None
    if frame.ask not in ("list", "count", "ranking") or frame.subject != "findings" or not frame.filters.severity or \
            frame.targets.signature or frame.targets.cve:
        return None
    chosen = "sec_assessment" if (decision.skill or "").startswith("sec_") else "cbp_assessment"
    return dataclasses.replace(decision, skill=chosen, intent_class=SKILL_TO_CLASS[chosen],
                               signals=[*decision.signals, "the checks answer: findings of a severity, no SLIC words"])


def documents_over_insights(frame: QuestionFrame, decision: RouteDecision) -> RouteDecision | None:
    """The router chose the SLIC expert's view for a question whose words name no SLIC result, signature or known
    issue, and the frame reads a clear lookup in the documents ("is the escalation procedure documented?": the
    procedure, not the fleet's 216 signature matches): the standards' skill of the same view answers. With SLIC words
    ("what do the SLIC findings mean given our policies?") the expert answers, as designed."""
    if not (decision.skill or "").endswith("_expert_insights") or "slic" in decision.signals:
        return None
    if frame.ask != "policy" or frame.subject != "documents" or frame.confidence < CLEAR_ASK or (
            frame.targets.device or frame.targets.signature or _filtered(frame)):
        return None
    chosen = "sec_generic" if (decision.skill or "").startswith("sec_") else "cbp_generic"
    return dataclasses.replace(decision, skill=chosen, intent_class=SKILL_TO_CLASS[chosen],
                               signals=[*decision.signals, "the documents answer: a policy lookup without SLIC words"])


# words that only the documents answer: a deadline, a process, what a policy requires ("best practice" and
# "recommended" are not among them: "best practice deviations" and "recommended actions" are the data's)
DOCUMENT_WORDS = re.compile(r"\b(?:deadlines?|sla|polic(?:y|ies)|standards?|procedures?|process|runbook|guidelines?|owns|"
                            r"supposed to|mandat\w*|required|how (?:long|soon|quickly|fast)|how much time|by when|"
                            r"time limit|how many (?:days|hours|weeks|business days))\b", re.I)
# a deadline asked ("how many days do we have to fix …") is a strong cue on its own: the frame's policy reading needs
# less confidence beside it (other document words do not: "… and what does our SNMPv3 standard say?" asks the data too)
DEADLINE = re.compile(r"\b(?:deadlines?|sla|how (?:long|soon|quickly|fast)|how much time|by when|time limit|"
                      r"how many (?:days|hours|weeks|business days))\b", re.I)
DOCUMENT_LOOKUP = 0.45


# who is responsible for a part of the network is the documents' (the ownership of sites and devices), whatever
# part it names
OWNERSHIP = re.compile(r"\bwho (?:owns|is responsible for|manages|looks after|runs)\b|\bwhich team\b|\bowner of\b",
                       re.I)


def documents_over_data(frame: QuestionFrame, decision: RouteDecision, text: str) -> RouteDecision | None:
    """The router chose the assessment data (or the SLIC view, with no SLIC word) for a clear lookup in the documents
    that names no device or place and says what it looks up ("how long do we have to fix a critical finding": the
    remediation deadline of our policy, not today's critical findings): the standards' skill of the same view
    answers."""
    skill = decision.skill or ""
    part = any(v for k, v in frame.filters.model_dump().items() if k not in ("severity", "topic"))
    data_view = skill.endswith("_assessment") or (skill.endswith("_expert_insights") and "slic" not in decision.signals)
    if OWNERSHIP.search(text):
        part = False  # "who owns the store firewalls": the stores' owner, not their findings
    if not data_view or frame.ask != "policy" or frame.subject != "documents" \
            or frame.confidence < (DOCUMENT_LOOKUP if DEADLINE.search(text) else CLEAR_ASK) or part \
            or frame.targets.device or frame.time.runs \
            or frame.time.months or not DOCUMENT_WORDS.search(text):
        return None
    chosen = "sec_generic" if skill.startswith("sec_") else "cbp_generic"
    return dataclasses.replace(decision, skill=chosen, intent_class=SKILL_TO_CLASS[chosen],
                               signals=[*decision.signals, "the documents answer: a policy lookup about no device"])


def clear_ask_skill(frame: QuestionFrame, decision: RouteDecision, text: str = "",
                    measured: bool = False, part_named: bool = False, grouped: bool = False) -> RouteDecision | None:
    """When the router hesitates but the question frame is clear — an ask the data answers (or a policy lookup)
    about a named device, rule, site or filter — the skill that serves that ask, with the router's own ranking
    between the configuration and security views. None when the frame is not that clear. ``measured``: the words
    name a measure of the semantic model ("pass rate", "failed checks"), which says what is asked; ``part_named``: they
    name a part of the network the frame has no filter for ("us-west", "tier 1"); ``grouped``: they ask one figure per
    group of a dimension ("pass rate by region in october")."""
    named = bool(frame.targets.device or frame.targets.rule or frame.targets.exception or frame.targets.signature)
    filtered = _filtered(frame) or part_named
    targeted = named or filtered
    # a named device or rule with a topic or check, or a measure named about a target, is clear enough at a lower
    # confidence of the ask ("number of boxes at Branch-07 and their pass rate?")
    floor = CLEAR_ASK_NAMED if (named and (frame.checks or frame.targets.rule or frame.targets.signature)) or (
        measured and targeted and frame.ask in DATA_ASKS) else CLEAR_ASK
    if frame.subject == "exceptions" and targeted:  # "which exceptions cover DataCenter-2": the exception list answers
        # (one named by its id, "which devices does EXC-2026-021 cover", as clear as a device named with its checks)
        floor = min(floor, CLEAR_ASK_NAMED if frame.targets.exception else CLEAR_ASK_POPULATION)
    filters = frame.filters.model_dump()
    sides = frame.ask in ("compare", "share", "count") and any(len(v) >= 2 for k, v in filters.items()
                                                                if k not in ("severity", "topic"))
    if sides or (filtered and frame.ask in DATA_ASKS and (frame.checks or frame.subject in ("devices", "sites"))):
        # two named sides of the network ("stores vs branches pass rate"), or a data ask about a part of the network
        # and the checks asked ("which stores are clean on telnet") or its devices ("is there a wireless controller
        # at branch 3"): either view's data answers it the same
        floor = min(floor, CLEAR_ASK_POPULATION)
    if not targeted:  # about the whole network: only a very clear ask of the data ("pass rate since November")
        floor = CLEAR_ASK_FLEET if frame.ask in POPULATION_ASKS[1:] else 2.0
        if frame.ask in POPULATION_ASKS and grouped:  # "pass rate per environment": one figure per group
            # (a measure named and what it is per says the whole question: "login failures per month" needs nothing
            # of the ask — which of list, trend or count the reader leans to, the query is the same)
            floor = 0.0 if measured and frame.ask in DATA_ASKS else CLEAR_ASK_POPULATION
        if frame.subject == "exceptions" and frame.ask in ("list", "count", "exception", "yes_no"):
            floor = CLEAR_ASK_FLEET  # "any exceptions expiring before the end of the year?": the register answers
        if frame.ask == "summary" and OURS.search(text):  # "how are we doing?": our network, its latest summary
            floor = CLEAR_ASK_FLEET
        if frame.ask == "policy" and frame.subject == "documents":  # "emergency change procedure?": the documents
            floor = CLEAR_ASK
    elif measured and grouped and frame.ask in POPULATION_ASKS:
        floor = 0.0  # "ospf adjacency changes by device": a measure per group about a topic, as about the network
    # the data's whatever ask the frame read: "how do SW-1 and SW-2 differ" (what one fails and the other does not),
    # "anything new since last month?" (the findings new, or fixed, between two runs)
    t = frame.time
    the_datas = (len(frame.targets.device) >= 2 and DIFFER.search(text) is not None) or (
        bool(changes_asked(text)) and bool(t.since or t.relative or t.months or t.runs) and frame.ask != "policy")
    if the_datas:
        floor = 0.0
    if frame.confidence < floor:
        return None
    if frame.ask == "summary" and "vague_ask" in decision.signals:
        return None  # "tell me about Store-48" names a place and no view of it: the gate asks which one
    p = decision.skill_probabilities
    if frame.ask == "policy":
        skill = max(("cbp_generic", "sec_generic"), key=lambda s: p.get(s, 0.0))
    elif frame.ask in DATA_ASKS or frame.ask == "summary" or the_datas:
        skill = max(("cbp_assessment", "sec_assessment"), key=lambda s: p.get(s, 0.0))
    else:
        return None
    return dataclasses.replace(decision, skill=skill, intent_class=SKILL_TO_CLASS[skill],
                               signals=[*decision.signals, f"clear ask: {frame.ask} with a target"],
                               confidence=max(decision.confidence, CLEAR_ASK))


def _classify(prompt: str, history_available: bool, gazetteer: Gazetteer, services: Services,
              pasted: bool = False) -> Intent:
    """``pasted``: the prompt quotes configuration lines a check judges (``TurnInput.pasted_lines``)."""
    settings = services.settings
    text = prompt.strip()
    if not text:
        return _gate(Intent(), "Your message was empty. What would you like to know? "
                     "For example, a summary of your latest configuration assessment or the security posture of a site.", 0.0)
    too_long = overlong(text, settings.max_prompt_chars)
    if too_long:
        return _gate(Intent(), too_long, 0.0)
    if is_file_handoff(text):  # reached only without a file: the chat shows an upload's results instead of a turn
        return _gate(Intent(), "I don't see a file with this message. Attach documents (PDF, Word, Markdown, HTML, "
                     "text) or device configurations with the paperclip button: I add or assess each one and report "
                     "it, then you can ask about them.", 0.0)
    meta = detect_meta_intent(text)
    router = services.router()
    text = router.spelling.normalize(text)
    reading = read_entities(text, gazetteer, router.spelling.known_words)
    entities = reading.entities
    base = Intent(meta_intent=meta, entities=entities, name_resolutions=reading.resolutions)
    if meta in CONVERSATIONAL:
        return base.evolve(confidence=0.95)
    decision: RouteDecision = router.route(text)
    scores = {k: round(v, 4) for k, v in decision.skill_probabilities.items()}
    base = base.evolve(route_scores=scores, signals=decision.signals)
    if pasted:
        # configuration lines pasted to be judged ("is this ok: ip http server"): the checks that look at one line
        # answer, beside what our documents say — not the fleet's failures of the same checks
        skill = "sec_generic" if (decision.skill or "").startswith("sec_") else "cbp_generic"
        return base.evolve(intent_class=SKILL_TO_CLASS[skill], signals=[*decision.signals, PASTED_LINES],
                           confidence=0.9, domain_details=domain_details_for(skill, entities))
    named_devices = [e.value for e in entities if e.type == "device"]
    attribute = attribute_asked(text, services.catalog.semantic_model) if named_devices else None
    if attribute:  # "what model is RTR-CORE-2", "mgmt ip of SW-HQ-CORE-1": the inventory's value, looked up
        return base.evolve(intent_class=SKILL_TO_CLASS["cbp_assessment"], confidence=0.9,
                           signals=[*decision.signals, DEVICE_ATTRIBUTE + attribute],
                           domain_details=domain_details_for("cbp_assessment", entities))
    if asks_release_age(text):  # "the oldest ios version we run": the inventory's releases
        return base.evolve(intent_class=SKILL_TO_CLASS["cbp_assessment"], signals=[*decision.signals, RELEASE_AGE],
                           confidence=0.9, domain_details=domain_details_for("cbp_assessment", entities))
    if meta == "followup_question" and not history_available and (
            _is_bare_followup(text) or (refers_back(text) and not any(e.type in NAMED_SCOPE for e in entities)
                                        and not self_contained(text, services, entities))):
        # nothing in this thread for "it", "those" or "the same" to refer to
        return _gate(base, followup_without_history_question(prompt), decision.confidence * 0.5)
    decision = _llm_second_opinion(text, decision, settings.clarification_threshold, services)
    in_domain = decision.intent_class != "unknown_or_needs_clarification"
    if not in_domain or decision.confidence < settings.clarification_threshold:
        unknown = [r.mention.upper() for r in reading.resolutions if r.entity_type == "device" and r.status == "unknown"]
        measured = bool(measure_words(text, services.catalog.semantic_model))
        # a measure per month ("login failures per month") is one figure per run or month, as one per group is
        clear = clear_ask_skill(frame_of(text, services, entities, unknown_devices=unknown), decision, text,
                                measured=measured,
                                part_named=names_a_part_beyond_the_frame(text, services.catalog.semantic_model),
                                grouped=bool(group_key(text) or grouped_by(text, services.catalog.semantic_model)
                                             or ranks_rows(text, services.catalog.semantic_model)
                                             or (measured and OVER_TIME.search(text))))
        if clear is not None:  # a clear ask about a named target runs: no needless question
            decision = clear
            in_domain = True
    elif (decision.skill or "").endswith(("_generic", "_expert_insights", "_assessment")):
        frame = frame_of(text, services, entities)
        model = services.catalog.semantic_model
        logged = any(model.measures[m].fact == "events" for m in measure_words(text, model))
        grouped = bool(group_key(text) or grouped_by(text, model))
        decision = (data_over_policy(frame, decision, text, logged, grouped) or documents_over_insights(frame, decision)
                    or documents_over_data(frame, decision, text) or documents_prescribe(frame, decision, text, entities)
                    or checks_over_insights(frame, decision)
                    or decision)
    if not in_domain or decision.confidence < settings.clarification_threshold:
        best_in_domain = max((p for c, p in decision.class_probabilities.items()
                              if c != "unknown_or_needs_clarification"), default=0.0)
        return _gate(base.evolve(domain_details=domain_details_for(None, entities)),
                     clarification_question(decision, entities, text), best_in_domain)
    entities = _derived_assessment_type(decision.skill, entities)
    return base.evolve(
        intent_class=decision.intent_class,
        entities=entities,
        signals=decision.signals,  # with the frame's overrides of the router ("the data answers: …")
        confidence=round(decision.confidence, 3),
        domain_details=domain_details_for(decision.skill, entities),
        clarification_question=None,
    )


def _with_preferences(intent: Intent, prefs: dict[str, str]) -> Intent:
    """Apply the user's standing preferences where the prompt does not say otherwise (visible as entities)."""
    if intent.intent_class == "unknown_or_needs_clarification":
        return intent
    entities = list(intent.entities)
    if prefs.get("top_n") and not any(e.type == "output_format" and e.value.startswith("top_") for e in entities):
        entities.append(Entity(type="output_format", value=f"top_{prefs['top_n']}", confidence=0.9, source="derived"))
    skill = intent.domain_details.skill or ""
    if (prefs.get("default_site") and not skill.endswith("_generic")
            and not any(e.type in ("site", "device") for e in entities)):
        entities.append(Entity(type="site", value=prefs["default_site"], confidence=0.9, source="derived"))
    if entities == intent.entities:
        return intent
    return intent.evolve(entities=entities, domain_details=domain_details_for(skill, entities))


def _aliases(conversation: Conversation, names: Gazetteer) -> Gazetteer:
    """The inventory gazetteer plus this user's remembered self-corrections for names it does not know."""
    return names.with_aliases(
        (c["entity_type"], c["wrong"], c["right"]) for c in conversation.corrections
        if c["entity_type"] in ("site", "device"))


def _unresolved_gate(intent: Intent, names: Gazetteer) -> Intent:
    """Names that could not be read against the inventory stop a data request with a question: answering
    for a wider scope (or another assessment) instead would be a silent substitution."""
    named = {(e.type, e.value.lower()) for e in intent.entities if e.source == "unresolved"}
    open_names = [r for r in intent.name_resolutions
                  if r.status in ("ambiguous", "unknown") and (r.entity_type, r.mention.lower()) in named]
    if not open_names or (intent.domain_details.skill or "").endswith("_generic"):
        return intent
    return _gate(intent, names_question(open_names, names), intent.confidence)


def _name_clarification(prompt: str, own: Intent, conv: Conversation, gaz: Gazetteer,
                        services: Services) -> Resolution | None:
    """The user answered the question about names: re-run the request they asked, with the names as given."""
    reply = name_reply(prompt, own, conv.history)
    if reply is None:
        return None
    last, chosen = reply
    effective = last.question
    for mention, r in chosen.items():
        effective = re.sub(rf"(?<![\w-]){re.escape(mention)}(?![\w-])", r.value or mention, effective, flags=re.I)
    intent = _classify(effective, True, gaz, services)
    readings = [r for r in intent.name_resolutions if r.value not in {c.value for c in chosen.values()}]
    intent = intent.evolve(name_resolutions=[*chosen.values(), *readings],
                           meta_intent="followup_question")
    # a misspelling answered with one name is remembered as this user's alias; "the data center" -> "both" is not
    remembered = [{"entity_type": r.entity_type, "wrong": r.mention, "right": r.value or ""}
                  for r in chosen.values() if r.entity_type in ("site", "device") and r.value in r.candidates
                  and not r.mention.lower().startswith("the ")]
    return Resolution(intent, "name_clarification", effective, None, [last.turn_number], remembered)


def run(state: AssessmentState, services: Services) -> StateUpdate:
    """Node: classify the prompt, then read it against the thread's history and the user's preferences."""
    prompt = state.input.user_prompt
    cleared = after_reset(prompt)  # "clear the filters": no earlier answer is referred to or carried from here on
    conv = state.conversation.evolve(history=[] if cleared is not None else since_reset(state.conversation.history))
    updates: dict[str, Any] = {"resolution": "none", "effective_prompt": "", "referenced_finding": None,
                               "new_corrections": [], "new_preferences": {}}
    if cleared == "":
        intent = with_facets(Intent(meta_intent="confirmation", confidence=0.95), prompt, services)
        updates.update(resolution="scope_reset")
        return {"intent": intent.evolve(frame=QuestionFrame()), "conversation": conv.evolve(**updates)}
    if cleared:  # "start over - pass rate?": the question, asked afresh
        prompt = cleared
        updates.update(effective_prompt=prompt)
    prefs = preference_statement(prompt) if prompt.strip() else None
    if prefs is not None:
        intent = Intent(meta_intent="confirmation", confidence=0.95, entities=extract_entities(prompt, Gazetteer(rule_ids=services.catalog.rules.ids)))
        intent = with_facets(intent, prompt, services)
        updates.update(resolution="preference", new_preferences=prefs)
        return {"intent": intent, "conversation": conv.evolve(**updates)}
    names = services.names(state.input.user_id)
    gaz = _aliases(conv, names)
    visible = functools.cache(lambda: services.collections(state.input.user_id))  # at most one lookup per turn
    switch = read_switch(prompt, visible)
    if switch is not None:
        if switch.collection is None:  # never switch to a collection the user may not see, nor guess one
            collections = visible()
            question = (f"I don't know a collection '{switch.name}' you can see."
                        + (f" Yours are {', '.join(f'**{c}**' for c in collections[:6])} (newest first)." if collections else
                           " You have no uploaded collections yet.")
                        + " Which one do you mean? Or say \"back to the fleet\".")
            # the switch is the request: its words ("use the … configs") are no question to read a frame from
            intent = with_facets(_gate(Intent(), question, 0.0), prompt, services).evolve(frame=QuestionFrame())
            return {"intent": intent, "conversation": conv.evolve(**updates)}
        updates.update(collection=switch.collection, new_collection=switch.collection)
        if is_only_a_switch(switch):
            intent = with_facets(Intent(meta_intent="confirmation", confidence=0.95), prompt, services)
            updates.update(resolution="collection")
            return {"intent": intent, "conversation": conv.evolve(**updates)}
        prompt = switch.rest  # the question that came with the switch is answered for the new collection
        updates.update(effective_prompt=prompt)
    # something to refer back to: an earlier turn that was answered (a clarification question is not one)
    antecedent = any(t.intent_class not in (None, "unknown_or_needs_clarification") for t in conv.history)
    pasted = bool(state.input.pasted_lines) and switch is None
    # the last answer: its query a follow-up edits, its rows one picks ("the third one" is the row's name)
    last = next((t for t in reversed(conv.history) if t.intent_class not in (None, "unknown_or_needs_clarification")),
                None)
    if last is not None and _emptied(last) and THEY.search(prompt):
        # "what sites are they at" after "any of them in the lab? — No": they are the rows before the filter that
        # emptied them, not the none it left
        last = next((t for t in reversed(conv.history) if t.turn_number < last.turn_number and t.query is not None
                     and (t.answer_rows or t.answer_devices)), last)
    timed = None if pasted or not THEN.search(prompt) else then_named(
        prompt, last, _runs_of(conv.collection or "fleet", services))
    if timed is not None:  # "since then": since the run the last answer was of
        prompt = timed
        updates.update(effective_prompt=timed)
    # ("which one moved the most" after the same figures in two runs: between those two, said or not)
    between = None if pasted or not (THE_TWO_TIMES.search(prompt) or CHANGE_EXTREME.match(prompt)) or \
        sum(t.query is not None for t in conv.history) < 2 else the_two_named(
        prompt, conv.history, _runs_of(conv.collection or "fleet", services), services.catalog.semantic_model)
    if between is not None:  # "between the two": the runs of the last two answers
        prompt = between
        updates.update(effective_prompt=between)
    # (after a ranking of signatures or checks, "list those routers" is the lead row's routers: ``query_edits.THEM``)
    named_kind = None if pasted or last is None or last.query is None or last.query.group_by else \
        THOSE_KIND.search(prompt)
    if named_kind is not None and last is not None and last.query is not None and (
            KINDS_SAID[named_kind.group("kind").lower()] in getattr(last.query.condition("device_type"), "values", ())):
        # "which sites are those routers at" after how many wan routers a signature hits: those, not every router
        prompt = prompt[:named_kind.start()] + "them" + prompt[named_kind.end():]
        updates.update(effective_prompt=prompt)
    # ("and the third?": the third one; a list of devices keeps its own reading of the place, ``followups``)
    picked = None if pasted else _asked_of_another_row(BARE_NTH.sub(r"\1 one", prompt), last, conv.history) or \
        picked_prompt(prompt, _listed_before(prompt, last, conv.history), services.catalog.semantic_model) or \
        exception_meant(prompt, last) or \
        _its_place(prompt, last, services, conv.collection or "fleet") or _the_place_named(prompt, last) or \
        _the_value_led(prompt, last, services)
    # ("does it cover RTR-CORE-1?" after one exception: that exception; "and its site?" after one device: that site)
    if picked is not None:
        prompt = picked
        updates.update(effective_prompt=picked)
    if not pasted:  # "crits @ hq": the words the shorthand stands for, read by everything below
        prompt = expand_shorthand(prompt)
    own = _classify(prompt, antecedent, gaz, services, pasted)
    own = own.evolve(frame=frame_of(prompt, services, own.entities))  # what it asks, before reading it against history
    # pasted lines are the subject: "is this ok: …" refers to them, not to an earlier answer; a row picked by its place
    # ("the third one - what does it fail?") is named, and its question is its own
    resolution = Resolution(own) if pasted or picked is not None else \
        _name_clarification(prompt, own, conv, gaz, services) or resolve(prompt, own, conv, gaz)
    intent = _unresolved_gate(_with_preferences(resolution.intent, conv.preferences), names)
    intent = with_facets(intent, resolution.effective_prompt or prompt, services)
    if not pasted and resolution.kind == "none":
        intent = _documents_say(intent, prompt, services, state.input.user_id)
        intent = _no_such_check(intent, prompt, services)
    if resolution.kind == "refinement" and resolution.effective_prompt:
        # the question the words stood for, narrowed by them: "only the branches" after "failed checks by platform"
        narrowed = {k: v for k, v in own.frame.filters.model_dump().items() if v}
        intent = intent.evolve(frame=intent.frame.evolve(filters=intent.frame.filters.evolve(**narrowed)))
    previous = next((t for t in reversed(conv.history) if t.intent_class), None)
    intent = _changes_since_before(prompt, intent, previous)
    moved = _collection_of_named_devices(intent, conv.collection if switch is None else switch.collection, services)
    if moved:  # "what does D2_IOSXE fail?": the device is in one of the user's uploads, answered there
        updates.update(collection=moved, new_collection=moved)
    if resolution.kind in KEEPS_FILTERS and previous is not None and previous.frame is not None:
        intent = intent.evolve(frame=kept_filters(intent.frame, previous.frame, resolution.kind, prompt,
                                                  list(gaz.sites.values()), previous.left_out))
    subjectless = previous is not None and SUBJECTLESS.match(prompt) is not None and not any(
        e.type in ("device", "site") and e.source != "conversation" for e in intent.entities)  # "what does X fail"
    listed = list_in_play(conv.history)
    # "which of them …" picks among the devices listed last (``followups``), not within the last query's rows; among
    # rows of another kind ("which of those has the lowest pass rate" after stores) it edits the query that listed them
    # a drill into one device of a list: "them" is the list; with no list before, "those" are the one device's rows
    # ("whats failing on WLC-HQ-1" → "which of those are high": its checks)
    one_device = last is not None and last.query is not None and len(getattr(last.query.condition("device"), "values",
                                                                             ())) == 1 and len(listed) > 1
    # (or the places a figure was counted over: "which of them has the most" after how many devices twelve sites have)
    # (or the devices a figure counted and did not name: "which of them are firewalls" after on how many devices
    # critical SLIC signatures matched)
    among_rows = last is not None and last.query is not None and (
        last.query.group_by[:1] not in ([], ["device"]) or not last.query.group_by and any(
            not c.negated and len(c.values) > 1 and c.dimension in ("site", "region", "site_type", "tier")
            for c in last.query.conditions) or not last.query.group_by and not last.answer_devices and
        bool(last.query.measures) and last.query.measures[0] != "devices" and
        services.catalog.semantic_model.counted_things(last.query.measures[0]) in ("device", "site") or
        rows_added_up(last, [t for t in conv.history if t.turn_number < last.turn_number]) is not None or
        # ("which of them has the most" after the devices with new failures, each with its count: ranked by it)
        last.query.group_by == ["device"] and bool(last.query.measures) and last.query.measures[0] != "devices" and
        bool(GROUP_EXTREME.match(prompt) or BARE_EXTREME.match(prompt)) and
        not measure_words(prompt, services.catalog.semantic_model)) and not one_device
    attribute = attribute_asked(prompt, services.catalog.semantic_model) if listed and THEIR.search(prompt) and \
        picked is None and not pasted else None
    if attribute is not None:
        # "whats their software" after a list of devices: each listed device's value, from the inventory
        looked_up = attribute_query(attribute, listed)
        details = domain_details_for("cbp_assessment", intent.entities)
        intent = intent.evolve(intent_class=SKILL_TO_CLASS["cbp_assessment"], domain_details=details,
                               clarification_question=None, query=looked_up, asked_query=looked_up,
                               frame=intent.frame.evolve(ask="list", subject="devices", cannot=None),
                               signals=[*intent.signals, DEVICE_ATTRIBUTE + attribute])
    typed = services.router().spelling.normalize(prompt)  # "which devcies": the edits read the words as meant
    summarized = _summarized_findings(last)  # "which of those …" after a summary: its checks
    # (a row picked by its kind, "list the ones in that region", still edits: the things counted there)
    edit = None if pasted or (picked is not None and not ONES_LISTED.match(prompt)) or attribute is not None or (
        PICKS_AMONG.search(prompt) and not among_rows and not summarized) else \
        _edit_of(typed, own, last, services, conv.collection or "fleet", history=conv.history)
    if edit is None and (intent.clarification_question or resolution.kind == "none" or (
            resolution.kind == "carryover" and not resolution.effective_prompt and _beyond_the_tools(last))) and \
            not pasted and \
            picked is None and not PICKS_AMONG.search(prompt):
        # "at the stores" after an edited list, "how many at the stores" after a count of firewalls, "and in the
        # branches?" after how many stores fail a check: the history gave no question to ask there again, so the
        # place edits the last query (a question with words of its own besides the place is none: its own)
        edit = _edit_of(typed, own, last, services, conv.collection or "fleet", places=True, history=conv.history)
    if edit is not None:  # "and in september?", "sort those by pass rate": the last query, edited
        intent = _as_edit(_time_not_live(intent, prompt), last, edit)  # type: ignore[arg-type]  # an edit has a last turn
    elif attribute is not None:
        pass  # "whats their site": the lookup above is the question (read again, it had no devices: the whole fleet)
    elif picked is not None or (resolution.kind == "none" and intent.meta_intent in ("new_topic", "followup_question")
                                and not refers_back(prompt) and (not subjectless or listed)) or (
            resolution.kind == "same_devices" and WHICH_OF_THEM.search(prompt) is not None) or (
            resolution.kind in FOLLOWS_AS_QUERY and intent.asked_query is None) or (
            # "which devices there have fewer failures than last month": words of its own, asked of the place carried
            resolution.kind == "carryover" and not resolution.effective_prompt and intent.asked_query is None and
            intent.frame.direction is not None and not subjectless) or (
            # "how many failed checks does it have now" after whether us-east still leads: its own question, of the
            # row the last answer was about (``of_its_row`` below holds it to that row)
            resolution.kind == "none" and intent.asked_query is None and last is not None and last.query is not None
            and bool(last.query.group_by) and (last.query.leader is not None or last.query.limit == 1) and
            IT_OR_ITS.search(prompt) is not None):
        # (a follow-up with nothing of the last turn to carry, "and is Lab-1 the site with the most failed checks", is
        # read as a question of its own)
        # a follow-up keeps its own answers until it is read as an edit of the last query; a question with no subject
        # after a complete list of devices asks about those devices ("which have zero failures"); a row picked
        # ("the lowest one - what are its devices") is a question of its own about that row; "which sites are they
        # at" asks for other rows of the same devices (their scope carried, or the list itself)
        among = listed if (subjectless or resolution.kind == "same_devices") and picked is None else []
        # "which ones are covered by an exception" after the devices failing a check: a failing check is not an
        # excepted one, so those are the excepted devices of the same scope, not of the list
        beside_failing = bool(among) and EXCEPTED.search(prompt) is not None and last is not None and \
            last.query is not None and last.query.measures[:1] in (["failed_checks"], ["devices_failing"])
        # a refinement is the question its words stood for, read with the filters they add
        read = resolution.effective_prompt if resolution.kind == "refinement" and resolution.effective_prompt else prompt
        intent = with_query(intent, read, services, updates.get("collection", conv.collection) or "fleet", pasted,
                            among)
        if beside_failing and intent.asked_query is not None and intent.asked_query.measures[:1] == ["excepted_checks"]:
            wider = intent.asked_query.model_copy(update={"conditions": [
                c for c in intent.asked_query.conditions if c.dimension != "device"], "output": "list",
                "bounds": [Bound(measure="excepted_checks", op=">", value=0)]})
            intent = intent.evolve(asked_query=wider, query=wider)
        model = services.catalog.semantic_model
        asked_q = intent.asked_query
        # ("which device made the most" after the config changes in october: one device per device ranks nothing —
        # the rows are ranked by what the last answer counted, then)
        counts_itself = asked_q is not None and bool(asked_q.group_by) and bool(asked_q.measures) and \
            model.counted_things(asked_q.measures[0]) == asked_q.group_by[0] and (
                (model.measures[asked_q.measures[0]].count or "").upper().startswith("DISTINCT") or
                not model.facts[model.measures[asked_q.measures[0]].fact].run)  # (the inventory: one row a device)
        carried = carried_measure(prompt, asked_q, last.query, model,
                                  timed=bool(own.frame.time.model_dump(exclude_defaults=True)),
                                  months=intent.frame.time.months) if (
            (picked is not None or counts_itself) and asked_q is not None and last is not None and
            last.query is not None) else None
        if carried is not None:  # "which site there has the most": ranked by what the last answer counted
            intent = intent.evolve(asked_query=carried, query=carried)
        elif among and asked_q is not None and last is not None and last.query is not None and \
                keeps_ranking(asked_q, last.query):
            # "which of those are in us-west" after the top 5 by failed checks: the ones kept, with the same figure
            # (a list with a count is listed the most first) — "the first one" then is the first of them as ranked
            ranked = last.query
            kept = asked_q.model_copy(update={"measures": ranked.measures, "runs": asked_q.runs or ranked.runs})
            intent = intent.evolve(asked_query=kept, query=kept)
    # ("how many fail OSPF-AUTH" after how many leaf switches there are, "how many failed checks do they have" after
    # where the devices on a release are: no subject of its own, or "they" — of those devices)
    implied = OF_THEM.search(prompt) is None and (subjectless or THEY.search(prompt) is not None) and \
        of_a_population(last, services.catalog.semantic_model)
    # ("how many of them fail that" after what the devices in play fail most: the check picked, "them" still those)
    check_picked = picked is not None and last is not None and last.query is not None and \
        last.query.group_by[:1] in (["rule"], ["signature"]) and OF_THEM.search(prompt) is not None
    # ("how many of them does the top one hit" after the signatures on the wan routers: the wan routers it hits)
    if edit is None and not pasted and (picked is None or check_picked) and attribute is None and \
            resolution.kind in ("none", "carryover") and last is not None and (OF_THEM.search(prompt) or implied):
        # "how many of them fail OSPF-AUTH" after a count of the nexus switches: its own question, among those; "their
        # average pass rate" after a list of devices: a figure of the devices listed
        asked = intent if intent.asked_query is not None else with_query(
            intent, prompt, services, updates.get("collection", conv.collection) or "fleet")
        model = services.catalog.semantic_model
        narrowed_to = None if asked.asked_query is None else (among_listed(
            asked.asked_query, last, model, prompt) if resolution.kind == "none" or resolution.kind == "carryover" and
            asked.asked_query.measures and not asked.asked_query.group_by else None) if last.answer_devices else \
            within_last(prompt, asked.asked_query, last, model, implied)
        if narrowed_to is not None:
            intent = _as_edit(asked, last, narrowed_to)
        elif resolution.kind == "carryover" and asked.query is not None and asked.query.measures and \
                not asked.query.group_by and measure_words(prompt, model):
            # "and their pass rate" after how many devices at Site-B: its own figure, of the scope carried — not the
            # count asked again
            intent = _as_edit(asked, last, QueryEdit(asked.query, [], ["its own figure of the scope carried"]))
    if intent.asked_query is None and resolution.kind == "carryover" and not resolution.effective_prompt and \
            not pasted and edit is None and last is not None and last.query is not None and \
            not last.query.group_by:
        # "and at the datacenters?" after how many critical findings at HQ, answered by the tools there: what it asked
        # is the last figure at the new place, kept (not run) so that "which device there has the most" edits it (a
        # list moved is read again on its own: "what about switches?" then hears why a check does not apply to them)
        there = _edit_of(typed, own, last, services, conv.collection or "fleet", places=True, history=conv.history)
        if there is not None and there.query.conditions != last.query.conditions:
            intent = intent.evolve(asked_query=there.query)
    if intent.asked_query is None and resolution.kind == "carryover" and resolution.effective_prompt and not pasted:
        # "and Store-41?" asked again there: what it asked is kept as a query (not run as one: the answers of the
        # question it repeats stay), so that "which improved more" can set the two side by side
        repeated = with_query(intent, resolution.effective_prompt, services,
                              updates.get("collection", conv.collection) or "fleet")
        # a question the compiler answers (its query runs) is answered the same way there: "and at Branch-09?" after
        # what fails at Branch-07 lists Branch-09's failing checks, not its summary
        intent = repeated if repeated.query is not None else intent.evolve(asked_query=repeated.asked_query)
    model = services.catalog.semantic_model
    if resolution.kind in ("carryover", "same_devices") and intent.asked_query is not None:
        carried = carried_unframed(intent.asked_query, last)  # "which ones" after a count of the ASR 1000s
        intent = intent if carried is None else intent.evolve(asked_query=carried, query=carried)
    for rewritten in (of_its_row(intent.asked_query, prompt, last, model),
                      ones_of_the_last(intent.asked_query, resolution.effective_prompt or prompt, last, model)):
        if rewritten is not None:  # "how many devices does it have" after the worst tier; "critical ones" after SLIC
            intent = intent.evolve(asked_query=rewritten, query=rewritten)
    worst = worst_by_the_last_measure(intent.asked_query, prompt, last, model)  # (of the row held to, above)
    intent = intent if worst is None else intent.evolve(asked_query=worst, query=worst)
    shared = one_value_of_them(prompt, list_in_play(conv.history) or _devices_held(last), last.query, model) \
        if last is not None and not pasted else None
    if shared is not None and last is not None:  # "are they all in the same region": whether they share one
        intent = _as_edit(intent, last, shared)
    if intent.asked_query is not None and intent.asked_query.measures in (["devices"], ["failed_checks"]) and \
            last is not None and COUNT_UNNAMED.match(prompt):  # (the runs are read only for a count that names nothing)
        try:
            runs = _runs_of(conv.collection or "fleet", services)
        except Exception:  # noqa: BLE001 — no warehouse to read: no run to count in
            runs = []
        counted = count_of_the_last_figure(intent.asked_query, prompt, last, model, intent, runs)
        intent = intent if counted is None else intent.evolve(asked_query=counted, query=counted)
    if intent.asked_query is None and resolution.kind == "carryover" and not resolution.effective_prompt and \
            not pasted and last is not None and last.query is not None and last.query.output == "series":
        # "and the branches?" after the datacenters' series, answered by the tools there: what it asked is kept as the
        # last query edited (not run), so that "which of the two improved more" sets the two side by side (only a
        # series: a list's checks are the frame's to carry — "what about switches?" after the ASAs with telnet open
        # is the switches' telnet check, not the ASAs')
        placed = _edit_of(typed, own, last, services, conv.collection or "fleet", places=True, history=conv.history)
        intent = intent if placed is None else intent.evolve(asked_query=placed.query)
    if cannot_answer(intent) and intent.frame.cannot in (None, "off_topic") and last is not None and \
            last.intent_class in DATA_CLASSES and ROW_ASKED.search(prompt) and len(re.findall(r"\w+", prompt)) <= 10:
        # "which is highest" after an answer with no ranking to pick from: a follow-up it cannot place, asked back —
        # not refused as outside what the product knows
        asked_back = ("Which figure, over which rows? The last answer has no ranking to pick from: ask, for example, "
                      "\"which site has the most failed checks\" or \"which region has the lowest pass rate\".")
        intent = _gate(intent.evolve(frame=intent.frame.evolve(ask="ranking", cannot=None)), asked_back,
                       intent.confidence)
    # what the user's words ask for besides the answer, with the request they stood for ("how do I fix the telnet one")
    intent = _compilable(intent, model)
    besides = asked_besides(f"{state.input.user_prompt} {resolution.effective_prompt or updates['effective_prompt']}")
    intent = intent.evolve(facets=intent.facets.evolve(**besides))
    updates.update(
        resolution=resolution.kind, effective_prompt=resolution.effective_prompt or updates["effective_prompt"],
        referenced_finding=resolution.referenced_finding, new_corrections=resolution.new_corrections,
        referenced_turns=resolution.referenced_turns,
        carried_entities=[e for e in intent.entities if e.source == "conversation"],
        carried_scope=intent.domain_details.scope if resolution.kind != "none" else conv.carried_scope,
        previous_intent=previous.intent_class if previous else None,
    )
    return {"intent": intent, "conversation": conv.evolve(**updates)}


# the devices of the last answer as the subject: "do they", "are they", "them"
THEY = re.compile(r"\b(?:they|them)\b", re.I)
# a judgement between two things: "which one is worse", "which is better"
BETTER_OR_WORSE_OF_TWO = re.compile(r"^\s*(?:and\s+|so\s+)?which\b.*\b(?:better|worse)\b", re.I)
# a place in the last list said alone, with no noun: "and the third?", "what about the 2nd"
BARE_NTH = re.compile(r"^(\s*(?:and|so|ok|what about|how about)?[\s,]*the\s+(?:first|second|third|fourth|fifth|1st|2nd|3rd|"
                      r"4th|5th))(?=\s*[?.!]*\s*$)", re.I)
# the devices of the last list as owners of a value: "whats their software", "and their models"
# ("what are they running", "what type are they", "what release are those on": the value asked of each; not "which
# regions are they in", the regions counted — an edit of the last query)
THEIR = re.compile(r"\btheir\b|\bwhat\s+(?:are|is|'re)\s*(?:they|those|these)\s+running\b|^\s*(?:and\s+|so\s+)?what\s+"
                   r"(?!sites?\b)(?:[\w-]+\s+){1,3}(?:is|are)\s+(?:they|those|these)(?:\s+(?:on|at|in))?\s*\??\s*$", re.I)
# the things in play named by their kind: "those routers", "these boxes"
THOSE_KIND = re.compile(r"\b(?:those|these)\s+(?P<kind>routers|switches|firewalls|wlcs)\b", re.I)
KINDS_SAID = {"routers": "router", "switches": "switch", "firewalls": "firewall", "wlcs": "wireless_controller"}
# an approved exception named: "covered by an exception", "excepted", "waived"
EXCEPTED = re.compile(r"\bexcept(?:ed|ions?)\b|\bwaive[rd]s?\b|\bwaivers?\b", re.I)


def with_query(intent: Intent, prompt: str, services: Services, collection: str, pasted: bool = False,
               among: Sequence[str] = ()) -> Intent:
    """The question as a typed query when it asks for figures or lists of the warehouse (issue 52): read from the
    words and the frame, its months resolved against the collection's runs; ``among``: the devices of the last
    answer a question with no subject of its own is about."""
    targets = intent.frame.targets
    if intent.domain_details.skill not in QUERY_SKILLS and (targets.signature or targets.cve) and \
            intent.frame.ask in ("list", "count", "yes_no", "ranking") and not intent.clarification_question:
        # "ospf adjacency flaps - which devices": a signature named is a question about its matches, not the documents
        intent = intent.evolve(intent_class=SKILL_TO_CLASS["sec_assessment"],
                               domain_details=domain_details_for("sec_assessment", intent.entities))
    if intent.domain_details.skill not in QUERY_SKILLS or intent.clarification_question:
        return intent
    attribute = next((s.removeprefix(DEVICE_ATTRIBUTE) for s in intent.signals if s.startswith(DEVICE_ATTRIBUTE)), None)
    devices = [e.value for e in intent.entities if e.type == "device"]
    if attribute and devices:  # a lookup in the inventory, whatever the reader took the words for
        query = attribute_query(attribute, devices)
        return intent.evolve(query=query, asked_query=query,
                             frame=intent.frame.evolve(ask="list", subject="devices", cannot=None))
    try:
        runs = _runs_of(collection, services)
    except Exception:  # noqa: BLE001 — no warehouse to read: the Data Query Agent says so in the answer
        return intent
    scope = {**scope_for(intent)[0], **values_named(prompt, services.names().values)}
    if among:
        scope = {**{k: v for k, v in scope.items() if k not in ("device", "devices")}, "devices": list(among)}
    model = services.catalog.semantic_model
    sorted_asked = None if pasted else sorted_rows(prompt, model)
    if sorted_asked is not None:  # "checks failing at Lab-1 sorted by how many devices fail them": those rows, ordered
        head, measure = sorted_asked
        rows = read_query(head, intent.evolve(frame=frame_of(head, services, intent.entities)), scope, model, runs,
                          among=bool(among))
        if rows is not None and rows.query.group_by:
            query = ordered_by(rows.query, measure, model, runs)
            return _one_first(intent, query).evolve(query=query, asked_query=query, query_notes=rows.unsaid)
    reading = read_query(prompt, intent, scope, model, runs, pasted, among=bool(among))
    if reading is None:
        return intent
    if reading.every is not None:  # "at every store": how many stores there are, counted in the warehouse
        try:
            counted = compile_query(places_in_scope(reading.query, reading.every), services.catalog.semantic_model,
                                    collection)
            how_many = len(services.warehouse().query(counted.sql, counted.params).rows)
        except Exception:  # noqa: BLE001 — no warehouse to count in: the Data Query Agent says so in the answer
            how_many = 1
        reading = dataclasses.replace(reading, query=bound_to_every(reading.query, reading.every, how_many))
    if reading.kept and _answered_as_asked(intent, reading.query, scope, collection, services):
        frame = intent.frame
        if frame.ask == "list" and reading.query.order is not None and reading.query.group_by:
            frame = frame.evolve(ask="ranking")  # "what are the top failing checks there": the tools rank them
        if frame.ask == "list" and reading.query.group_by == ["device"] and frame.subject == "findings":
            frame = frame.evolve(subject="devices")  # "switches failing SSH-V2 at the branches": the tools list them
        return intent.evolve(asked_query=reading.query, frame=frame)
    if scope.get("device_type") and reading.query.condition("device_type") is None and \
            len(getattr(reading.query.condition("platform"), "values", ())) > 1:
        # "nx-os and asa": the reader took "asa" for one of the platforms, not for firewalls — nor does the scope line
        intent = intent.evolve(entities=[e for e in intent.entities if e.type != "device_type"],
                               frame=intent.frame.evolve(filters=intent.frame.filters.evolve(device_type=[])))
    details = intent.domain_details
    if details.skill in ("cbp_expert_insights", "sec_expert_insights"):  # SLIC figures: the data path counts them
        details = details.evolve(skill="sec_assessment" if details.skill.startswith("sec") else "cbp_assessment")
    return _one_first(intent, reading.query).evolve(query=reading.query, query_notes=reading.unsaid,
                                                     domain_details=details, asked_query=reading.query)


def _one_first(intent: Intent, query: DataQuery) -> Intent:
    """"which of them fails the most checks" after a list: the one first, as a ranking leads, not a list again."""
    if query.limit == 1 and query.order is not None and query.group_by and intent.frame.ask == "list":
        return intent.evolve(frame=intent.frame.evolve(ask="ranking"))
    return intent


def _answered_as_asked(intent: Intent, query: DataQuery, scope: dict[str, Any], collection: str,
                       services: Services) -> bool:
    """Whether what answers a question the assessment tools keep answers it in its shape: the tools do; a frame
    template only where its shape is the query's ("what are the lab devices failing" is their checks, not a list of
    the devices)."""
    if intent.domain_details.skill not in QUERY_SKILLS:
        return True
    if not query.group_by and query.measures[:1] == ["failed_checks"] and intent.frame.subject == "devices" and \
            intent.frame.ask == "count":
        return False  # "how many failed checks on the 9.3(10) boxes": the checks counted, not the devices failing
    plan = sql_plan_for(intent, scope, collection, services.catalog.ontology)
    if plan is None:
        return True
    if not holds(plan, query):
        return False  # a filter the template does not hold ("critical SLIC findings": its matches of every severity)
    if intent.domain_details.skill not in SQL_SKILLS or query.group_by in ([], ["device"]):
        return True  # a figure, a yes/no or devices: the templates' leads answer those in every shape
    if not query.measures:  # rows of the inventory ("which sites are they at"): a ranking of failures is another question
        return plan.template in INVENTORY_TEMPLATES
    if plan.group is not None and query.group_by and plan.group not in (
            query.group_by[0], SCOPE_KEYS.get(query.group_by[0])):
        return False  # rows of another kind ("the most common critical finding at the branches": checks, not branches)
    return plan.template not in DEVICE_ROWS  # rows of another kind than the template's devices


# the place of the one device the last answer was about: "and of its whole site", "what about its region"
ITS_PLACE = re.compile(r"\b(?:its|that (?:device|box)'s|the (?:device|box)'s)\s+(?:whole\s+|own\s+|entire\s+)?"
                       r"(?P<dim>site|region)\b", re.I)


def _its_place(prompt: str, last: PastTurn | None, services: Services, collection: str) -> str | None:
    """"and of its whole site" after an answer about one device: the question asked of that device's site (or
    region), by name, looked up in the inventory."""
    m = ITS_PLACE.search(prompt)
    devices = [e.value for e in last.entities if e.type == "device"] if last is not None else []
    there = PLACE_THERE.search(prompt)
    # "whats the pass rate there" after where one device is: the place the answer named
    looked_up = last.query.group_by[1:2] if last is not None and last.query is not None and \
        last.query.group_by[:1] == ["device"] and len(last.query.group_by) == 2 else []
    dim = m.group("dim").lower() if m is not None else looked_up[0] if there and looked_up in (["site"], ["region"]) \
        else None
    if dim is None or len(devices) != 1 or last is None:
        return None
    try:
        compiled = compile_query(attribute_query(dim, devices), services.catalog.semantic_model, collection)
        rows = services.warehouse().query(compiled.sql, compiled.params).dicts()
    except Exception:  # noqa: BLE001 — no inventory to read: the words are read as they are
        return None
    place = str(rows[0].get(dim) or "") if rows else ""
    if not place:
        return None
    if m is None:  # the words said "there" (``dim`` came from the lookup)
        return PLACE_THERE.sub(("at " if dim == "site" else "in ") + place, prompt, count=1)
    rest = prompt[:m.start()] + prompt[m.end():]
    if not re.sub(r"\b(?:and|of|for|at|in|the|what|about|how|same|now|then|so)\b|\W", "", rest, flags=re.I):
        # "and of its whole site" after a device's pass rate: the last question, asked of the place instead
        return re.sub(re.escape(devices[0]), place, last.question, flags=re.I)
    return prompt[:m.start()] + place + prompt[m.end():]


# "the store", "the branch", "that site": the one place the last answer was about, by its kind (not "the stores", not
# "the store firewalls")
THE_PLACE = re.compile(r"\b(?:the|that|this)\s+(?P<kind>store|branch|site|datacenter|data center|campus|office)\b"
                       r"(?![\s-]*\d)(?!\s+(?:routers?|switch(?:es)?|firewalls?|fws?|devices?|boxes|wlcs?|network|type|"
                       r"tier|region)\b)", re.I)


def _the_place_named(prompt: str, last: PastTurn | None) -> str | None:
    """"whats the pass rate of the store overall" after the riskiest devices at Store-45: that store, by name."""
    m = THE_PLACE.search(prompt)
    sites = [e.value for e in last.entities if e.type == "site" and e.source != "unresolved"] if last else []
    if m is None or len(sites) != 1 or re.search(r"\b[A-Z][\w]*-\d+\b", prompt):
        return None
    kind = m.group("kind").lower().replace(" ", "")
    if kind not in ("site", "office") and not sites[0].lower().replace("-", "").startswith(kind):
        return None  # ("the branch" after a question about Store-45 is no branch of it)
    return prompt[:m.start()] + sites[0] + prompt[m.end():]


# the one thing an answer's lead names in bold: "**ios-xe 16.9.4** (10 devices …) is the oldest release in scope"
BOLD = re.compile(r"\*\*([^*]+)\*\*")


def _the_value_led(prompt: str, last: PastTurn | None, services: Services) -> str | None:
    """"how many devices are on it" after an answer with no query whose lead named one release in bold (the oldest
    release run): that release, by name; None otherwise."""
    it = next((m for m in IT.finditer(prompt) if not m.group("its")), None)  # "it", not "its"
    if it is None or last is None or last.query is not None:
        return None
    lead = next((ln for ln in last.answer_excerpt.splitlines() if ln.strip() and not ln.startswith("**Scope")), "")
    bold = BOLD.findall(lead)
    if len(bold) != 1 or bold[0][:1].isdigit():
        return None
    releases = frame_of(bold[0], services).filters.os_version
    return prompt[:it.start()] + bold[0] + prompt[it.end():] if len(releases) == 1 else None


EMPTIED = re.compile(r"^\*\*(?:No|None)\*\*", re.M)


def _emptied(turn: PastTurn) -> bool:
    """Whether the turn's query left no rows ("**No** — no devices (release 17.3.4a, lab)")."""
    return turn.query is not None and not turn.answer_rows and not turn.answer_devices and \
        EMPTIED.search(turn.answer_excerpt) is not None


def _listed_before(prompt: str, last: PastTurn | None, history: Sequence[PastTurn]) -> PastTurn | None:
    """"the first one" after an answer of one row (which of the top five are high: one) is the first of the list
    before it, of the same rows: a place in a list needs a list."""
    m = ROW_REF.search(prompt)
    which = m.group("which").lower() if m else ""
    if last is None or last.query is None or which not in ORDINAL or which in ("top", "last", "bottom"):
        return last
    before = [t for t in history if t.turn_number < last.turn_number][-3:]
    # the list the last answer described ("which severities are they" after the top three checks: the three, held as
    # its condition) is still the list a place in it points at ("the second one": the second check)
    held = [set(c.values) for c in last.query.conditions if not c.negated and len(c.values) > ORDINAL[which]]
    described = next((t for t in reversed(before) if t.query is not None and
                      any(values == set(t.answer_rows[:len(values)]) for values in held)), None)
    if described is not None:
        return described
    if not (len(last.answer_rows) == 1 or ORDINAL[which] >= len(last.answer_rows)):
        return last
    lists = [t for t in reversed(before) if t.query is not None and len(t.answer_rows) > max(1, ORDINAL[which])]
    # of the same rows first; else the latest list ("how many routers fail the first one" after the top five checks,
    # then their severity: the first check)
    return next((t for t in lists if t.query is not None and t.query.group_by[:1] == last.query.group_by[:1]),
                lists[0] if lists else last)


def _asked_of_another_row(prompt: str, last: PastTurn | None, history: Sequence[PastTurn]) -> str | None:
    """"and the third one?" after "what's the pass rate of the first one": the last question, asked of the row now
    picked from the list it picked from (a list of the last three answers, one of whose rows it named)."""
    m = ROW_REF.search(prompt)
    index = ORDINAL.get(m.group("which").lower()) if m is not None and alone(prompt, m) else None
    if index is None or last is None:
        return None
    asked = last.question
    before = ROW_REF.search(asked)
    by_place = before is not None and not alone(asked, before) and before.group("which").lower() in ORDINAL
    for listed in [t for t in history if t.turn_number < last.turn_number][-3:][::-1]:
        if len(listed.answer_rows) <= max(index, 1):
            continue
        row = listed.answer_rows[index]
        if by_place and before is not None:
            # "how many medium findings does the first one have" → "and the second?": the same words, of that row
            return asked[:before.start()] + row + asked[before.end():]
        named = [r for r in listed.answer_rows if re.search(rf"(?<![\w-]){re.escape(r)}(?![\w-])", asked, re.I)]
        if len(named) == 1 and row != named[0]:
            return re.sub(rf"(?<![\w-]){re.escape(named[0])}(?![\w-])", row, asked, flags=re.I)
    return None


def _beyond_the_tools(last: PastTurn | None) -> bool:
    """Whether the last answer's figure is none the assessment tools state (how many stores fail a check): a new
    place alone is that figure there, not the tools' summary of the place."""
    return last is not None and last.query is not None and bool(last.query.measures) and \
        last.query.measures[0] not in SUMMARY_FIGURES


def _summarized_findings(last: PastTurn | None) -> bool:
    """Whether the last answer was the tools' summary of findings, which has no query of its own to edit."""
    return last is not None and last.query is None and last.frame is not None and \
        (last.frame.ask, last.frame.subject) == ("summary", "findings")


def _changes_since_before(prompt: str, intent: Intent, previous: PastTurn | None) -> Intent:
    """"how many got fixed" after "how many new findings since september": the changes between the same runs — a
    change asked with no time of its own keeps the time of the change asked just before."""
    t = intent.frame.time
    said = t.since or t.months or t.runs or t.last_n or (t.relative and (
        t.relative != "previous" or re.search(r"\b(?:previous|prior|last)\b", prompt, re.I)))
    if previous is None or previous.frame is None or not changes_asked(prompt) or said:
        return intent  # (a change with no time is read as since the run before: that is no time said)
    before = previous.frame.time
    if not (before.since or before.months or before.runs or before.relative) or not (
            changes_asked(previous.question) or previous.frame.direction or previous.frame.ask in ("trend", "compare")):
        return intent
    return intent.evolve(frame=intent.frame.evolve(time=before), facets=intent.facets.model_copy(update={"change": True}))


def _edit_of(prompt: str, own: Intent, last: PastTurn | None, services: Services, collection: str,
             places: bool = False, history: Sequence[PastTurn] = ()) -> QueryEdit | None:
    """The last answer's query as this follow-up edits it (``orchestration/nlu/query_edits.py``), or None; after an
    answer about one row of a ranking ("top one?"), the ranking's query ("and the second one?")."""
    if last is None:
        return None
    try:
        runs = _runs_of(collection, services)
    except Exception:  # noqa: BLE001 — no warehouse to read: the follow-up keeps its own answers
        return None
    # (with the inventory's values the words name: "and the 9300s" after the pass rate of the 9200s)
    model, scope = services.catalog.semantic_model, {**scope_for(own)[0], **values_named(prompt, services.names().values)}
    time = own.frame.time
    extreme = GROUP_EXTREME.match(prompt) or BARE_EXTREME.match(prompt)
    # "which devices have them" after the high findings of a site, summarized: those findings' devices
    them = any(p.match(prompt) for p in THEM) and last.frame is not None and last.frame.subject == "findings" and \
        last.frame.ask in ("summary", "list")
    counted = last.frame is not None and last.frame.ask == "count" and last.frame.subject == "devices" and \
        extreme is not None  # "how many nx-os devices fail something" → "which one fails the most checks"
    if last.query is None and (COMPARE_TO.search(prompt) or extreme or them) and last.frame is not None and \
            (last.frame.ask == "summary" or them or counted) and last.skill in SQL_SKILLS and \
            not (time.months or time.runs or time.relative or time.since):
        # "summarize Store-40" → "compare with Store-41": the summary's leading figures, there and here side by side;
        # "how are the branches doing" → "which one is worst": its rows ranked (any other follow-up of a summary asks
        # the summary again; "compare with last month" the comparison's)
        summarized = Intent(entities=last.entities, frame=last.frame,
                            domain_details=domain_details_for(last.skill, last.entities))
        last = last.model_copy(update={"query": summary_query(last.question, summarized, scope_for(summarized)[0],
                                                              model, runs, ranked=bool(extreme), checks=them)})
    among_findings = _summarized_findings(last) and last.skill in SQL_SKILLS and PICKS_AMONG.search(prompt) is not None
    if among_findings and last.frame is not None and (own.frame.filters.severity or own.frame.filters.topic):
        # "what's wrong at Store-33" → "just the firewall" → "which of those are critical": the checks it summarized
        summarized = Intent(entities=last.entities, frame=last.frame,
                            domain_details=domain_details_for(last.skill, last.entities))
        checks = summary_query(last.question, summarized, scope_for(summarized)[0], model, runs, checks=True)
        if checks is not None:
            asked = [Condition(dimension=d, values=v) for d, v in (("severity", own.frame.filters.severity),
                                                                  ("topic", own.frame.filters.topic))
                     if v and checks.condition(d) is None and d in model.dimensions]
            edited = checks.model_copy(update={"group_by": ["rule"], "output": "list", "conditions": [
                *checks.conditions, *asked], "bounds": [Bound(measure="failed_checks", op=">", value=0)]})
            return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], ["the checks it summarized"])
    if last.query is None:
        return None
    before = [t for t in history if t.turn_number < last.turn_number][-3:]
    earlier = next((t for t in reversed(before) if t.query is not None), None)
    if last.query.output == "yes_no" and not last.answer_rows and not last.answer_devices and earlier is not None \
            and earlier.query is not None and earlier.query.group_by == last.query.group_by and \
            GROUP_EXTREME.match(prompt):
        # "any of them in the lab?" → "No" → "which one has the most failed checks": of the list the No was about
        last = earlier
    looked_up = last.query is not None and len(last.query.group_by) == 2 and last.query.group_by[0] == "device" and \
        not last.query.measures
    if looked_up and earlier is not None and earlier.query is not None and (
            time.months or time.runs or time.relative or time.since):
        # "and in august?" after what type the devices with no failed checks are: the inventory has no august — the
        # question that chose those devices, re-timed
        last = earlier
    if last.query is None:
        return None
    changed = changed_between(prompt, last, earlier, model)
    if changed is not None:  # "which ones got fixed" after a figure in august, then now: those that fixed it
        return changed
    merged = for_both(prompt, last, earlier)
    if merged is not None:  # "and in october for both": each of the last two answers' values, then the rest edits
        rest, both = merged
        edit = edited_query(rest, own, scope, both, model, runs, places) if rest else None
        return edit or QueryEdit(both.query, [], ["both side by side"])  # type: ignore[arg-type]  # merged has one
    # "which is worse" after what fails at HQ, then at Lab-1: the two places the last two answers were about, not the
    # worst of the checks the last one listed
    two = both_sides(prompt, last, earlier, model, own.asked_query) if last.query.group_by and \
        BETTER_OR_WORSE_OF_TWO.search(prompt) else None
    figured = ranked_by_the_conversations_figure(last, before, prompt, model, runs)  # "which of them is worst": by what?
    edit = two or _edit_in_clauses(prompt, own, scope, figured, model, runs, places) or edited_query(
        prompt, own, scope, figured, model, runs, places)
    if edit is not None:
        return edit
    # "which improved more" after two answers about two sites; "how many fail both" after two checks; "which checks
    # fail at both" after what fails at two sites
    # ("which is worse" after what fails at two sites, one after the other: the two sites' totals)
    same_rows = earlier is not None and earlier.query is not None and earlier.query.group_by == last.query.group_by
    sides = both_places(prompt, last, earlier) or both_lists(prompt, last, earlier) or (
        both_sides(prompt, last, earlier, model, own.asked_query) if not last.query.group_by or same_rows else None) or (
        None if last.query.group_by else (both_checks(prompt, last, earlier) or between_runs(prompt, last, earlier)))
    if sides is not None or last.query.group_by:
        return sides
    ranked = next((t for t in reversed(before) if t.query is not None and t.query.group_by and t.answer_rows), None)
    row = last.query.condition(ranked.query.group_by[0]) if ranked is not None and ranked.query is not None else None
    if ranked is None or row is None or len(row.values) != 1 or row.values[0] not in ranked.answer_rows:
        return None
    return edited_query(prompt, own, scope, ranked, model, runs, places)


# where a follow-up of two edits divides: "only the critical ones, on which devices", "just the stores - by severity"
CLAUSES = re.compile(r"\s*(?:,|;|\s[-–]\s|\band then\b)\s*", re.I)


def _edit_in_clauses(prompt: str, own: Intent, scope: dict[str, Any], last: PastTurn, model: SemanticModel,
                     runs: Sequence[tuple[str, str]], places: bool) -> QueryEdit | None:
    """A follow-up made of two edits, each of which edits alone: the first applied to the last query, the second
    to what the first made of it — the edits compose as the engineer said them."""
    clauses = [c for c in CLAUSES.split(prompt) if c.strip()]
    if len(clauses) != 2:
        return None
    first = edited_query(clauses[0], own, scope, last, model, runs, places)
    if first is None:
        return None
    then = last.model_copy(update={"query": first.query, "answer_rows": [], "answer_devices": [],
                                   "prompt": clauses[0], "asked": ""})
    second = edited_query(clauses[1], own, scope, then, model, runs, places)
    if second is None:
        return None
    return QueryEdit(second.query, [*first.notes, *second.notes], [*first.said, *second.said])


def _compilable(intent: Intent, model: SemanticModel) -> Intent:
    """The turn's query as a statement the compiler can make (``query_edits.compilable``: what no statement holds left
    out and said); with none, no query — the tools answer, never an internal error."""
    if intent.query is None:
        return intent
    mended = compilable(QueryEdit(intent.query, list(intent.query_notes), []), model)
    if mended is None:
        return intent.evolve(query=None, asked_query=None)
    if mended.query == intent.query:
        return intent
    return intent.evolve(query=mended.query, asked_query=mended.query, query_notes=mended.notes)


def _time_not_live(intent: Intent, prompt: str) -> Intent:
    """A follow-up read alone as live state whose only words of it say the latest run ("which branch is lowest right
    now" after the branches' series): the edit read them as that run, every other word as an edit — no refusal."""
    if intent.frame.cannot != "live_state" or asks_live(prompt, LIVE_STATE):
        return intent
    return intent.evolve(frame=intent.frame.evolve(ask="list", cannot=None))


def _as_edit(intent: Intent, last: PastTurn, edit: QueryEdit) -> Intent:
    """The turn as the edited query: a data question of the last answer's kind, whatever the follow-up's few words
    were classified as alone ("and august" is no question by itself)."""
    if intent.intent_class in (None, "unknown_or_needs_clarification") or intent.clarification_question:
        intent = intent.evolve(intent_class=last.intent_class, clarification_question=None,
                               confidence=max(intent.confidence, 0.8))
    skill = intent.domain_details.skill if intent.domain_details.skill in SQL_SKILLS else (
        last.skill if last.skill in SQL_SKILLS else "cbp_assessment")
    # the devices and sites the edited query keeps are the turn's too: "fix the aaa ones" after "since when" (about
    # SW-HQ-CORE-2's checks) is about SW-HQ-CORE-2
    kept = [Entity(type="device" if c.dimension == "device" else "site", value=v, confidence=0.9,
                   source="conversation")
            for c in edit.query.conditions if c.dimension in ("device", "site") and not intent.entity(c.dimension)
            and not c.negated and len(c.values) <= 4 for v in c.values]
    # a value the edit replaced or dropped is no longer asked ("what about high" after critical: the scope line and
    # the reflector's check read high, not both)
    entities = [e for e in [*intent.entities, *kept] if not _edited_away(e, edit.query)]
    # (so are the frame's filters carried from the turn before: the scope line says what the query holds; and what the
    # query holds is the turn's filter, which the next turn carries: "what failed most on them" after the run the
    # firewalls' pass rate was lowest in is of the firewalls)
    filters = intent.frame.filters
    held: dict[str, list[str]] = {}
    for c in edit.query.conditions:
        if c.dimension in EDITED_TYPES.values() and c.dimension not in ("device", "site") and not c.negated and \
                not c.in_measure:
            held.setdefault("os_version" if c.dimension == "release" else c.dimension, []).extend(map(str, c.values))
    intent = intent.evolve(frame=intent.frame.evolve(filters=filters.evolve(**{
        key: list(dict.fromkeys([*(v for v in getattr(filters, key) if not _dropped(key, v, edit.query)),
                                 *held.get(key, [])]))
        for key in ("environment", "device_type", "platform", "os_version", "severity", "role")})))
    return _one_first(intent, edit.query).evolve(query=edit.query, asked_query=edit.query, query_notes=edit.notes, entities=entities,
                         meta_intent="followup_question", domain_details=domain_details_for(skill, entities),
                         signals=[*intent.signals, EDITED + "; ".join(edit.said)])


# the entity types a query's conditions state in full: what the query does not hold of them, it does not ask
EDITED_TYPES = {"severity": "severity", "device": "device", "site": "site", "environment": "environment",
                "device_type": "device_type", "platform": "platform", "os_version": "release", "role": "role"}


def _edited_away(entity: Entity, query: DataQuery) -> bool:
    return _dropped(entity.type, entity.value, query)


def _dropped(kind: str, value: str, query: DataQuery) -> bool:
    """Whether a value of ``kind`` (an entity type or a frame filter) is one the query no longer holds."""
    dimension = EDITED_TYPES.get(kind)
    if dimension is None:
        return False
    held = [c for c in query.conditions if c.dimension == dimension]
    return not any(value.lower() in (v.lower() for v in c.values) for c in held)


def _latest_day(services: Services) -> date | None:
    """The day of the fleet's latest run: what "three months ago" counts back from (the data's months, as "last
    month" is the run before the latest — not the calendar's, which moves the answer on the first of a month)."""
    try:
        runs = _runs_of("fleet", services)
    except Exception:  # noqa: BLE001 — no warehouse to read: counted from today
        return None
    return date.fromisoformat(runs[-1][1]) if runs else None


def _devices_held(last: PastTurn | None) -> list[str]:
    """The devices the last query was held to by name ("same release?" after whether they share a site)."""
    held = last.query.condition("device") if last is not None and last.query is not None else None
    return list(held.values) if held is not None and not held.negated else []


def _runs_of(collection: str, services: Services) -> list[tuple[str, str]]:
    """The collection's runs as (id, day), oldest first; read once per version of a DuckDB warehouse file (an upload
    or a rebuild changes it), every time from a remote warehouse."""
    path = services.settings.warehouse_path
    stamp = version_stamp(path) if services.settings.warehouse_backend == "duckdb" and path.exists() else None
    known: dict[str, tuple[Any, list[tuple[str, str]]]] = services.kept("query_runs", lambda _: {})
    if stamp is not None and collection in known and known[collection][0] == stamp:
        return known[collection][1]
    rows = services.warehouse().query("SELECT assessment_id, started_at FROM assessments WHERE collection = ? "
                                      "ORDER BY started_at", [collection]).rows
    runs = [(str(r[0]), str(r[1])[:10]) for r in rows]
    if stamp is not None:
        known[collection] = (stamp, runs)
    return runs


def _collection_of_named_devices(intent: Intent, current: str | None, services: Services) -> str | None:
    """The collection this turn's named devices are all in, when it is not the thread's: naming an uploaded device
    switches the thread to its upload, naming a fleet device in an upload's thread switches back."""
    named = [e.value for e in intent.entities if e.type == "device" and e.source == "inventory"]
    found = collections_of(named, services.warehouse) if named else set()
    return next(iter(found)) if len(found) == 1 and found != {current or "fleet"} else None


def summarize(update: StateUpdate) -> str:
    intent: Intent = update["intent"]
    resolution = update["conversation"].resolution
    ents = ", ".join(f"{e.type}={e.value}" for e in intent.entities) or "none"
    skill = intent.domain_details.skill or "-"
    return (f"{intent.intent_class} (skill {skill}, meta {intent.meta_intent}, confidence {intent.confidence:.2f}); "
            f"entities: {ents}; asks: {intent.frame.describe()}"
            + (f"; follow-up: {resolution}" if resolution != "none" else ""))
