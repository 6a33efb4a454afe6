"""Multi-turn resolution (DESIGN §9): a turn read against the thread's recent history.

Given the classification of the prompt on its own and the bounded history, decide how the turn uses
it: self-correction (re-run the previous request with the fixed entity, remember the alias),
reference to an earlier finding ("explain the second one", "how do I fix CFG-003?"), refinement
("focus only on firewalls": previous request plus a filter), "the same devices", scope carryover
("what about security?") — or nothing. Personalization statements ("always show me the top 10",
"my site is HQ") are recognised here too. Pure functions: the runtime persists what they return.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from assessment_engine.checks.judgement import all_fit
from orchestration.nlu.domain import domain_details_for
from orchestration.nlu.entities import Gazetteer, read_entities
from orchestration.nlu.frame import MONTHS, read_expiring
from orchestration.nlu.meta_intent import PLACE_THERE
from orchestration.nlu.prescribed import LIVE_STATE, asks_live
from orchestration.nlu.router import SKILL_TO_CLASS
from orchestration.state import (
    Conversation,
    Entity,
    FindingDigest,
    Intent,
    NameResolution,
    PastTurn,
    QuestionFrame,
)

_I = re.IGNORECASE
# Every filter a scope is made of: a follow-up keeps each one it does not change ("the same devices",
# "what about security?", "focus on firewalls"), and a correction changes only what it names.
SCOPE_TYPES = ("site", "device", "device_type", "environment", "severity", "platform", "os_version", "assessment_id")
CORRECTION = re.compile(r"^\s*(?:(?:sorry|oops|no|nope|actually|my bad)[,.!\s]+)*(?:i meant|i mean|i meant to say|meant)\s+"
                        r"(?P<right>.+?)(?:,?\s+not\s+(?P<wrong>.+?))?\s*[.!?]*$", _I)
REFINE = re.compile(r"^\s*(?:ok(?:ay)?,?\s+|and\s+|now\s+)?(?:focus|only|just|limit|restrict|narrow|filter)\b", _I)
SAME = re.compile(r"\b(?:the )?same (?:devices|assets|ones|routers|switches|firewalls|hosts|sites|scope)\b|"
                  r"\b(?:those|these) (?:devices|assets|routers|switches|firewalls|hosts|sites|ones)\b|"
                  r"\b(?:check|scan|assess|audit|review|fix|show|list|harden|secure)\s+(?:them|those|these)\b|"
                  r"\b(?:about|for|on) (?:them|those|these)\b|"
                  # "which devices are those?", "what are they?": the devices the previous answer counted, named
                  r"\b(?:which|what)(?: \w+)? (?:are|were) (?:those|these|they|them)\b", _I)
REQUEST = re.compile(r"^\s*(?:please\s+)?(?:show|list|give|summari[sz]e|display|assess|audit|review)\b(?!\s+(?:me\s+)?"
                     r"(?:them|those|these|it)\b)", _I)
# "what do those fail?", "which of them are in production?": the devices the previous answer listed
COUNT_AMONG = re.compile(r"\bhow many of (?:them|those|these)\b", _I)  # "how many of them fail ASA-TLS": counted among
PICKS_AMONG = re.compile(r"\bwhich (?:ones )?of (?:those|these|them)\b|\bwhich ones\b", _I)  # among those listed
IT = re.compile(r"\b(?:it|its|that one|this one)\b", _I)
# "those", "them"; "are any covered by an exception", "is any in the lab": "any" with no noun of its own is of them
LISTED = re.compile(r"\b(?:those|these|them|they)\b|^\s*(?:and\s+|so\s+)?(?:are|is|were|was)\s+any(?:\s+ones?)?\s+"
                    r"(?!of\b)(?:covered|excepted|exempt\w*|waived|fixed|compliant|failing|passing|affected|critical|"
                    r"high|in|at|on|running|still)\b", _I)
BARE_SEVERITY = re.compile(r"\b(critical|high|medium|low)\b", _I)
YES = re.compile(r"^\s*(?:yes|yep|yeah|yup|sure|correct|right|exactly|that one|that'?s (?:it|the one|right))\b", _I)
BOTH = re.compile(r"^\s*(?:both|all(?: of them| \d+)?|each of them|every one)\b", _I)
PICK = re.compile(r"\b(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\b", _I)
ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
            "5th": 5, "last": -1, "top": 1}  # "the top one" of a list sorted by a figure: its first
ORDINAL_REF = re.compile(r"\b(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+(?:finding|issue|one|item|"
                         r"deviation|risk|result)\b|\b(?:finding|issue|item)\s+(?:number\s+)?#?(\d{1,2})\b", _I)
DEVICES_ASKED = re.compile(r"\b(?:which|what|list|show|name)\b[^?]*?\b(?:devices|boxes|routers|switches|firewalls)\b",
                           _I)
NAMED_ONE = re.compile(r"\bthe ([a-z][a-z0-9]{2,}) (?:one|finding|issue|deviation|problem)\b", _I)
DEVICE_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|last|top|1st|2nd|3rd|4th|5th)\s+(?:device|switch|router|"
                            r"firewall|box|host|asset|node|wlc|one (?:on|in) (?:that|the) (?:list|table))\b", _I)
# "the first one" after a list of devices is a device of it (after findings, a finding: ``ORDINAL_REF``)
BARE_ORDINAL = re.compile(r"\b(first|second|third|fourth|fifth|last|top|1st|2nd|3rd|4th|5th) one\b(?! (?:on|in) )", _I)
# "and the third?" after a drill into one device of a list: the next drill, the same question
ORDINAL_ALONE = re.compile(r"^\s*(?:and|so|ok(?:ay)?|now|then|what about|how about|same for)?[\s,]*(?:the\s+)?"
                           r"(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)(?:\s+one)?\s*[?.!]*\s*$", _I)
PREF_TOP = re.compile(r"\b(?:always|by default|from now on)\b.*\btop[\s-]?(\d{1,2})\b|\btop[\s-]?(\d{1,2})\b.*\b(?:always|by "
                      r"default|from now on)\b", _I)
PREF_SITE = re.compile(r"\bmy (?:default |home )?site is ([A-Za-z0-9-]+)", _I)
FORGET = re.compile(r"\b(?:forget|clear|reset|remove|delete)\s+(?:all\s+)?my\s+(preferences|site|default site|top[\s-]?n|top)\b", _I)


@dataclass
class Resolution:
    intent: Intent
    kind: str = "none"
    effective_prompt: str = ""
    referenced_finding: FindingDigest | None = None
    referenced_turns: list[int] = field(default_factory=list)
    new_corrections: list[dict[str, str]] = field(default_factory=list)
    new_preferences: dict[str, str] = field(default_factory=dict)


# "clear the filters", "reset scope", "start over - pass rate?": nothing earlier carries into what follows
SCOPE_RESET = re.compile(r"^\s*(?:(?:ok(?:ay)?|so|now|please)[\s,]+)?(?:(?:clear|reset|drop|remove|forget)\s+(?:the\s+|all\s+"
                         r"(?:the\s+)?|my\s+|those\s+|these\s+|any\s+)?(?:filters?|scope|conditions?)|start (?:over|again|"
                         r"fresh)|from scratch)\b[\s,.:;!-]*", _I)


CLEAR_FILTERS = "Clear the filters"  # what the chat's button says, as a turn


def after_reset(prompt: str) -> str | None:
    """The question asked after the words that clear the scope ("" when nothing follows them); None when the prompt
    clears nothing."""
    m = SCOPE_RESET.match(prompt)
    return None if m is None else prompt[m.end():].strip()


def since_reset(history: list[PastTurn]) -> list[PastTurn]:
    """The turns after the latest that cleared the scope: nothing before it is referred to or carried."""
    cut = max((i + 1 for i, t in enumerate(history) if SCOPE_RESET.match(t.prompt)), default=0)
    return history[cut:]


def preference_statement(prompt: str) -> dict[str, str] | None:
    """Preferences the prompt sets ({key: value}) or removes ({key: ""}); None when it is no such statement."""
    forget = FORGET.search(prompt)
    if forget:
        what = forget.group(1).lower()
        keys = ["top_n", "default_site"] if what == "preferences" else (["default_site"] if "site" in what else ["top_n"])
        return dict.fromkeys(keys, "")
    prefs: dict[str, str] = {}
    m = PREF_TOP.search(prompt)
    if m:
        prefs["top_n"] = m.group(1) or m.group(2)
    m = PREF_SITE.search(prompt)
    if m:
        prefs["default_site"] = m.group(1)
    return prefs or None


def list_in_play(history: Sequence[PastTurn], complete: bool = False) -> list[str]:
    """The devices "them" names: those the latest of the last three answers that listed devices named (``complete``:
    only a complete list, not a ranking's rows) — unless a later answer counted devices without naming them ("16
    devices fail it now" after September's list): its devices are the rows of its own query, not the list above."""
    for turn in [t for t in history if _answered(t)][-3:][::-1]:
        listed = turn.answer_devices if complete else turn.devices_shown
        if len(listed) > (1 if complete else 0):  # (a complete list of one device is a drill, not a list)
            return list(listed)
        if turn.query is not None and turn.frame is not None and (turn.frame.ask, turn.frame.subject) == (
                "count", "devices"):
            return []
    return []


def _answered(turn: PastTurn) -> bool:
    """A turn that ran (not a clarification question): what follow-ups refer back to."""
    return bool(turn.intent_class and turn.intent_class != "unknown_or_needs_clarification" and turn.skill)


def _previous(history: list[PastTurn]) -> PastTurn | None:
    return next((t for t in reversed(history) if _answered(t)), None)


def _replace(entities: list[Entity], new: list[Entity], types: tuple[str, ...] | None = None) -> list[Entity]:
    """Previous entities with each type the new ones name replaced (all of that type)."""
    replaced = {e.type for e in new if types is None or e.type in types} | _unfit(entities, new)
    kept = [e.evolve(source="conversation") for e in entities
            if e.type not in replaced and e.source != "unresolved"]
    return kept + [e for e in new if types is None or e.type in types]


def _unfit(before: list[Entity], new: list[Entity], sites: Sequence[str] = ()) -> set[str]:
    """The earlier platform and software a newly named device type cannot run ("what about switches?" after the
    store ASAs asks about the switches' platforms, not the ASA's); an environment a site is named after ("the lab":
    Lab-1's) once another site is named — it was said as a place, and a new place replaces it."""
    types = [e.value for e in new if e.type == "device_type"]
    unfit = set() if all_fit((e.value for e in before if e.type == "platform"), types) else {"platform", "os_version"}
    environments = [e.value.lower() for e in before if e.type == "environment"]
    if environments and any(e.type == "site" for e in new) and all(
            any(s.lower().startswith(env) for s in sites) for env in environments):
        unfit.add("environment")
    return unfit


def _sites_moved(entities: list[Entity], own: Intent) -> list[Entity]:
    """The earlier entities without the site a kind of site now named replaces ("how many critical findings at HQ" →
    "and at the datacenters?": every data centre, not HQ's data centre devices)."""
    return [e for e in entities if not (e.type == "site" and own.frame.filters.site_type)]


def _carried(prev: PastTurn, own: list[Entity], sites: Sequence[str] = ()) -> list[Entity]:
    """The previous turn's filters this prompt does not set itself."""
    mine = {e.type for e in own} | _unfit(prev.entities, own, sites)
    # (a value the last question left out, "which are not on 10.2(5)", is no filter to keep)
    return [e.evolve(source="conversation") for e in prev.entities
            if e.type in SCOPE_TYPES and e.type not in mine and e.source != "unresolved" and
            e.value.lower() not in prev.left_out]


def _correction_entities(text: str, gaz: Gazetteer | None) -> list[Entity]:
    """What "I meant X" names — with bare severities too ("I meant critical")."""
    found = [e for e in read_entities(text, gaz).entities if e.source != "derived"]
    m = BARE_SEVERITY.search(text)
    if m and not any(e.type == "severity" for e in found):
        found.append(Entity(type="severity", value=m.group(1).lower(), confidence=0.9))
    return found


def name_reply(prompt: str, own: Intent, history: list[PastTurn]) -> tuple[PastTurn, dict[str, NameResolution]] | None:
    """A reply to the question about names the last turn asked ("Branch-05", "the second one", "yes"): that
    turn, and how each name it asked about reads now (mention -> resolution). None for any other prompt."""
    last = history[-1] if history else None
    if last is None or last.intent_class != "unknown_or_needs_clarification":
        return None
    asked = [r for r in last.name_resolutions if r.status in ("ambiguous", "unknown")]
    if not asked:
        return None
    given = [r for r in own.name_resolutions if r.status in ("exact", "corrected") and r.value]
    rest = prompt
    for r in own.name_resolutions:
        rest = re.sub(re.escape(r.mention), " ", rest, flags=_I)
    words = [w for w in re.findall(r"[a-z]+", rest.lower()) if w not in FILLER | REPLY_FILLER]
    if len(words) > 2:
        return None
    pick = PICK.search(prompt)
    chosen: dict[str, NameResolution] = {}
    for r in asked:
        value = next((g.value for g in given if g.entity_type == r.entity_type and g.value not in
                      {c.value for c in chosen.values()}), None)
        if value is None and pick and len(asked) == 1:
            index = ORDINALS[pick.group(1).lower()] - 1
            value = r.candidates[index] if 0 <= index < len(r.candidates) else None
        if value is None and YES.match(prompt) and len(r.candidates) == 1:
            value = r.candidates[0]
        if value is None and BOTH.match(prompt) and r.status == "ambiguous" and r.entity_type in ("site", "device"):
            value = " and ".join(r.candidates)  # "both": every candidate, said as such
        if value is None:
            return None
        chosen[r.mention] = NameResolution(entity_type=r.entity_type, mention=r.mention, status="corrected",
                                           value=value, candidates=r.candidates, score=100.0, reason="as you chose")
    return last, chosen


def _inherit(own: Intent, prev: PastTurn, entities: list[Entity]) -> Intent:
    return own.evolve(
        intent_class=prev.intent_class, entities=entities, clarification_question=None,
        confidence=max(own.confidence, 0.8),
        domain_details=domain_details_for(prev.skill, entities),
    )


# "which expire this year", "what covers RTR-CORE-1": a question with a verb where its noun should be
WHICH_VERB = re.compile(r"^\s*(?:and\s+|so\s+)?(?P<which>which|what)\s+(?P<verb>expire[sd]?|cover(?:s|ed)?|run[s]?|"
                        r"ha(?:ve|s|d)|fail(?:s|ed)?|pass(?:es|ed)?|appl(?:y|ies)|affect(?:s|ed)?|match(?:es|ed)?|"
                        r"belong[s]?|need[s]?|end[s]?|lapse[sd]?)\b(?P<rest>.*)$", _I)
LISTED_THINGS = {"exceptions": "exceptions", "devices": "devices", "sites": "sites", "rules": "checks",
                 "signatures": "signatures"}


def _subject_of_list(prompt: str, own: Intent, prev: PastTurn) -> str | None:
    """The follow-up with the previous list's things named where its noun should be ("which exceptions expire this
    year"), when its own words are no clear question; None otherwise."""
    m = WHICH_VERB.match(prompt)
    if m is None or own.intent_class != "unknown_or_needs_clarification" or prev.frame is None:
        return None
    things = LISTED_THINGS.get(prev.frame.subject)
    return f"{m.group('which')} {things} {m.group('verb')}{m.group('rest')}" if things else None


# "does it cover RTR-CORE-1?": an exception asked about by a pronoun
COVER_IT = re.compile(r"\b(?:does|do|would|will|is|can)\s+(?P<it>it|that|this|that one|this one)\s+"
                      r"(?:cover|apply to|exempt|include|expire|run out|end|lapse)\b|"
                      # "who approved it", "why was it granted", "when is it up for renewal"
                      r"\b(?:approved|granted|signed off|owns|requested)\s+(?P<it2>it|that one|this one)\b|"
                      r"\bsigned\s+(?P<it5>it|that one|this one)\s+off\b|"
                      r"\b(?:was|is)\s+(?P<it3>it|that one|this one)\s+(?:approved|granted|up for renewal|due|for)\b|"
                      # "what rule is it for", "which check does it cover"
                      r"\b(?:what|which)\s+(?:rule|check|control)\s+(?:is|does)\s+(?P<it4>it|that one|this one)\b", _I)
# the one exception an answer led with, in bold: "**EXC-2026-019** expires last"
LED_WITH = re.compile(r"^\W*\*\*(EXC-\d{4}-\d{3})\*\*")
EXCEPTION_ID = re.compile(r"\bEXC-\d{4}-\d{3}\b")
# "which rules do they cover" after a list of exceptions: those exceptions, by their ids
EXCEPTION_WORD = re.compile(r"\bexceptions?\b|\bwaivers?\b|\bEXC-\d", _I)
COVER_THEY = re.compile(r"\b(?:do|would|will|can|did)\s+(?P<they>they|those|these|those ones)\s+(?:cover|apply to|"
                        r"exempt|include|expire|run out|lapse)\b|\b(?:approved|granted|signed\s+off(?:\s+on)?|owns?)\s+"
                        r"(?P<they2>them|those|these)\b|\bsigned\s+(?P<they3>them|those|these)\s+off\b",
                        _I)


# "the SNMP-ACL one", "the exception for ASA-TLS": one of the exceptions listed, by the check it is for
RULES_ONE = re.compile(r"\bthe\s+(?P<rule>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\s+(?:one|exception|waiver)\b|"
                       r"\bthe\s+(?:one|exception|waiver)\s+for\s+(?P<rule2>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\b", _I)


# a deadline said alone: "what about before april 2027", "and by the end of the year?"
DEADLINE = re.compile(r"\b(?:before|by|until|till)\s+(?:the\s+end\s+of\s+)?(?:(?:" + "|".join(
    sorted(MONTHS, key=len, reverse=True)) + r")(?:\s+20\d\d)?|20\d\d(?:-\d\d-\d\d)?|q[1-4]\s+20\d\d|(?:the|this)\s+year)\b",
                      re.I)


def _deadline_moved(prompt: str, previous: PastTurn) -> str | None:
    """"what about before april 2027" after the exceptions expiring before 2027: the same question with the new
    deadline in place of the old one (or added, when the last asked for none)."""
    m = DEADLINE.search(prompt)
    if m is None or EXCEPTION_WORD.search(prompt) or len(re.findall(r"\w+", prompt)) > 8:
        return None
    asked = previous.question.rstrip(" ?.!")
    old = DEADLINE.search(asked)
    if old is not None:
        return asked[:old.start()] + m.group(0) + asked[old.end():]
    return f"{asked} expiring {m.group(0)}"


def exception_meant(prompt: str, previous: PastTurn | None) -> str | None:
    """The prompt with "it" in "does it cover …" replaced by the one exception the last answer named ("does
    EXC-2026-014 cover RTR-CORE-1?"), or "they" by the several it named ("which rules do they cover"); None when the
    words ask no such thing or the answer named none (or several, for "it")."""
    they = COVER_THEY.search(prompt)
    listed: list[str] = list(dict.fromkeys(EXCEPTION_ID.findall(previous.answer_excerpt))) if previous else []
    of_rule = RULES_ONE.search(prompt) if previous is not None and listed else None
    if of_rule is not None and previous is not None:
        # "when does the SNMP-ACL one lapse" after the exceptions listed: the one listed for that check
        rule = of_rule.group("rule") or of_rule.group("rule2")
        for_rule: set[str] = set(re.findall(rf"\b(EXC-\d{{4}}-\d{{3}})\s*\({re.escape(rule)}\b",
                                            previous.answer_excerpt, _I))
        if len(for_rule) == 1:
            return prompt[:of_rule.start()] + for_rule.pop() + prompt[of_rule.end():]
    moved = _deadline_moved(prompt, previous) if previous is not None and listed else None
    if moved is not None:
        return moved
    if previous is not None and listed and read_expiring(prompt) and not EXCEPTION_WORD.search(prompt):
        # "which one expires first" (or last) after a list of exceptions: asked of that list's question (or of the
        # exceptions it named, when its words did not say them: "who signed them off")
        if EXCEPTION_WORD.search(previous.question):
            return f"{previous.question.rstrip(' ?.!')}, {prompt}"
        return f"{prompt.rstrip(' ?.!')} of the exceptions {', '.join(listed)}"
    if they is not None and len(listed) > 1:
        group = next(g for g in ("they", "they2", "they3") if they.group(g) is not None)
        ids = ", ".join(listed[:-1]) + " and " + listed[-1]
        return prompt[:they.start(group)] + ids + prompt[they.end(group):]
    m = COVER_IT.search(prompt)
    if m is None or previous is None:
        return None
    named: set[str] = set(listed)
    paragraphs = previous.answer_excerpt.split("\n\n")
    led = LED_WITH.match(paragraphs[1] if paragraphs[0].startswith("**Scope:**") and len(paragraphs) > 1
                         else paragraphs[0])
    if len(named) != 1 and led is not None:  # the one it led with, before the others it named
        named = {led.group(1)}
    if len(named) != 1:
        return None
    group = next(g for g in ("it", "it2", "it3", "it4", "it5") if m.group(g) is not None)
    return prompt[:m.start(group)] + named.pop() + prompt[m.end(group):]


# a pronoun for one thing ("does it have", "its pass rate"); a place's is ``meta_intent.PLACE_THERE``
IT_OR_ITS = re.compile(r"\b(?:it|its)\b(?!['’])", _I)
KIND_ONES = re.compile(r"\bthe\s+[\w-]+(?:\s+[\w-]+)?\s+ones\b", _I)  # "the aaa ones", "the snmp related ones"


def _bare_fix(own: Intent) -> bool:
    """A request for fixes that names nothing to fix — no place, device, rule or topic ("what corrective actions
    are recommended?"): said after an answer with findings, it asks for the fixes of that answer's scope."""
    frame = own.frame
    return (frame.ask == "fix" and not any(e.type in SCOPE_TYPES for e in own.entities) and not frame.checks
            and not frame.targets.rule and not frame.targets.device and not frame.filters.topic)


def _device_reference(prompt: str, history: list[PastTurn]) -> tuple[str, PastTurn] | None:
    """The device of the latest list of devices that "the first device", "the third switch", "the last one on that
    list" names, with the turn that listed it — the previous answer's, or the list before it when the previous answer
    was about one of them ("drill into the second device on that list" after the first was drilled into); None when
    no answer listed devices or the prompt names none of them this way."""
    answered = [t for t in history if _answered(t)]
    if not answered:
        return None
    prev = answered[-1]
    m = DEVICE_ORDINAL.search(prompt)
    if m is None and (prev.frame is not None and prev.frame.subject == "devices" or
                      prev.query is not None and prev.query.group_by == ["device"]):
        m = BARE_ORDINAL.search(prompt)  # (a list of devices sorted by their failed checks is still devices)
    if m is None and sum(e.type == "device" for e in prev.entities) == 1 and len(answered) > 1:
        m = ORDINAL_ALONE.search(prompt)
    if m is None:
        return None
    index = ORDINALS.get(m.group(1).lower(), 0)
    lists = [t for t in reversed(answered[-3:]) if t.devices_shown]
    for turn in [t for t in lists if len(t.devices_shown) > 1] + lists:  # a list of several before a drill into one
        listed = turn.devices_shown
        if index == -1:
            return listed[-1], turn
        if 1 <= index <= len(listed):
            return listed[index - 1], turn
    return None


def _run_of_list(listed: PastTurn, own: Intent) -> list[Entity]:
    """The run a list was of, when it asked for one ("lowest pass rate in october") and the follow-up that picks a
    row of it asks no time of its own: "the second one - what fails on it" is about that device in that run."""
    time = own.frame.time
    asked = listed.frame.time if listed.frame is not None else None
    if time.runs or time.months or time.relative or own.entity("assessment_id") or asked is None or \
            not (asked.runs or asked.months or asked.relative) or listed.query is None or len(listed.query.runs) != 1:
        return []
    return [Entity(type="assessment_id", value=listed.query.runs[0], confidence=0.9, source="conversation")]


def _about_the_data(own: Intent, prev: PastTurn) -> bool:
    """A follow-up read alone as a question for the documents, about what a data answer listed: the data's."""
    return (own.domain_details.skill or "").endswith("_generic") and own.frame.ask != "policy" \
        and not (prev.skill or "").endswith("_generic")


def _finding_reference(prompt: str, prev: PastTurn) -> FindingDigest | None:
    m = ORDINAL_REF.search(prompt)
    if m and prev.findings:
        index = ORDINALS.get((m.group(1) or "").lower()) or int(m.group(2) or 0)
        if index == -1:
            return prev.findings[-1]
        if 1 <= index <= len(prev.findings):
            return prev.findings[index - 1]
    for f in prev.findings:
        for key in ("id", "rule_id"):
            value = str(getattr(f, key) or "")
            if value and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", prompt, _I):
                return f
    m = NAMED_ONE.search(prompt)  # "the telnet one": the one finding whose rule or title holds that word
    if m and prev.findings:
        word = m.group(1).lower()
        named = [f for f in prev.findings if word in f"{f.rule_id} {f.title}".lower()]
        if len(named) == 1:
            return named[0]
    return None


REPLY_FILLER = frozenset(["i", "meant", "mean", "yes", "yeah", "yep", "one", "option", "that", "it", "is", "was", "the",
                          "first", "second", "third", "fourth", "fifth", "please", "sorry", "no", "use", "take", "both",
                          "all", "of", "them", "each", "every"])
LEAD = re.compile(r"^\s*(?:and\s+|ok(?:ay)?,?\s+|now\s+)?(?:what about|how about|same (?:thing |again |but |question )?"
                  r"(?:for|with|in)|same but|and for|also for|"
                  r"and(?= the\b| at\b| in\b| on\b| for\b))\b", _I)  # "and the switches?" = the last question for them
FILLER = frozenset(["and", "also", "the", "a", "at", "for", "in", "on", "of", "with", "site", "sites", "devices", "device", "please", "then", "now", "too"])


FRAME_SCOPE = ("site_type", "role")  # scopes read into the question frame only, never entities
# words that name what is assessed: "what about security?" changes what, not where
WHAT_WORDS = re.compile(r"\b(?:security|best[- ]practices?|cbp|complian\w*|hardening|vulnerab\w*|posture)\b", _I)


def names_what(frame: QuestionFrame | None, text: str) -> bool:
    """Whether a question says what is counted or assessed: a topic, a severity, checks, a rule or an assessment."""
    return frame is not None and bool(frame.filters.topic or frame.filters.severity or frame.checks
                                      or frame.targets.rule or WHAT_WORDS.search(text))


def _frame_scope(frame: QuestionFrame | None) -> bool:
    return frame is not None and any(getattr(frame.filters, k) for k in FRAME_SCOPE)


def _only_scope(prompt: str, own: Intent) -> bool:
    """True when, besides a follow-up lead and the names of a scope, the prompt asks nothing new ("and at the stores?",
    "and Branch-03?")."""
    named = re.fullmatch(r"\s*(?:and|what about|how about)\s+(?P<name>[\w-]+)\s*[?.!]*\s*", prompt, _I)
    if named and any(e.type in SCOPE_TYPES and e.value.lower() == named.group("name").lower() for e in own.entities):
        return True
    rest = LEAD.sub(" ", prompt)
    for e in own.entities:
        if e.type in SCOPE_TYPES:
            rest = re.sub(re.escape(e.value), " ", rest, flags=_I)
    words = [w for w in re.findall(r"[a-z][a-z0-9-]*", rest.lower()) if w not in FILLER]
    for e in own.entities:  # words that produced an entity (e.g. "firewalls", "production") are scope, not a request
        if e.type in SCOPE_TYPES:
            words = [w for w in words if not (w.rstrip("s") in e.value.lower() or e.value.lower() in w)]
    return bool(LEAD.search(prompt)) and len(words) <= 1


def _named_before(prompt: str, own: Intent, history: list[PastTurn]) -> Resolution | None:
    """"is FW-1 reachable?" (no data for it) → "ok - then what does it fail?": "it" is the device the turn before
    named, though that turn ran nothing."""
    last = history[-1] if history else None
    if last is None or last.intent_class not in (None, "unknown_or_needs_clarification") or not IT.search(prompt) \
            or own.intent_class == "unknown_or_needs_clarification" \
            or any(e.type in ("device", "site") for e in own.entities):
        return None
    named = [e.evolve(source="conversation") for e in last.entities if e.type in ("device", "site")]
    if not named:
        return None
    entities = own.entities + named
    intent = own.evolve(entities=entities, meta_intent="followup_question",
                        domain_details=domain_details_for(own.domain_details.skill, entities))
    return Resolution(intent, "carryover", "", None, [last.turn_number])


def resolve(prompt: str, own: Intent, conversation: Conversation, gaz: Gazetteer | None = None) -> Resolution:
    before = _named_before(prompt, own, conversation.history)
    if before is not None:
        return before
    prev = _previous(conversation.history)
    if prev is None or own.meta_intent in ("acknowledgement", "cancellation"):
        return Resolution(own)
    if own.frame.cannot == "live_state" and asks_live(prompt, LIVE_STATE):
        return Resolution(own)  # "is HQ reachable right now" after a figure: running state, never that figure there
    sites = list(gaz.sites.values()) if gaz is not None else []
    correction = CORRECTION.match(prompt)
    if correction:
        right = _correction_entities(correction.group("right"), gaz)
        if right:
            corrections = []
            for e in right:
                old = next((p for p in prev.entities if p.type == e.type and p.value != e.value), None)
                if old:
                    corrections.append({"entity_type": e.type, "wrong": old.value, "right": e.value})
            entities = _replace(prev.entities, right)
            effective = prev.question
            for c in corrections:
                effective = re.sub(re.escape(c["wrong"]), c["right"], effective, flags=_I)
            return Resolution(_inherit(own.evolve(meta_intent="followup_question"), prev, entities),
                              "self_correction", effective, None, [prev.turn_number], corrections)
    picked = _device_reference(prompt, conversation.history)
    if picked is not None:  # "drill into the first device on that list": that device, the previous request's filters
        device = Entity(type="device", value=picked[0], confidence=0.9, source="conversation")
        entities = [e for e in own.entities if e.type not in ("device", "site")] + [device] + \
            _run_of_list(picked[1], own)
        # "why does the first one fail it?" read alone is a question for the documents: about a device of the list,
        # it is the data's, as the list was
        keep_own = own.intent_class != "unknown_or_needs_clarification" and not _about_the_data(own, prev)
        asked = own if keep_own else _inherit(own, prev, entities)
        asked = asked.evolve(entities=entities, meta_intent="followup_question", clarification_question=None,
                             domain_details=domain_details_for(asked.domain_details.skill, entities))
        return Resolution(asked, "device_reference", "", None, [prev.turn_number])
    time = own.frame.time
    # a finding of the earlier answer is of its run: "devices failing SNMP-RW in the august run" asks the data again
    finding = None if time.runs or time.months or time.relative else _finding_reference(prompt, prev)
    if finding is not None and (DEVICES_ASKED.search(prompt) or (PICKS_AMONG.search(prompt) or COUNT_AMONG.search(
            prompt)) and prev.answer_devices) \
            and finding.rule_id in own.frame.targets.rule:
        # "which firewalls aren't failing ASA-TELNET" names its rule: the question as asked; "which of them fail
        # NTP-AUTH" after a list of devices: those devices, failing it
        finding = None
    if finding is not None and DEVICES_ASKED.search(prompt):
        # "which devices fail the first one?": the devices failing that rule, in the previous scope
        return Resolution(_inherit(own.evolve(meta_intent="followup_question"), prev, prev.entities),
                          "finding_reference", f"which devices fail {finding.rule_id}", None, [prev.turn_number])
    if finding is not None:
        return Resolution(_inherit(own.evolve(meta_intent="followup_question"), prev, prev.entities),
                          "finding_reference", prev.question, finding, [prev.turn_number])
    if REFINE.search(prompt):
        entities = _replace(prev.entities, [e for e in own.entities if e.type in SCOPE_TYPES])
        return Resolution(_inherit(own.evolve(meta_intent="followup_question"), prev, entities),
                          "refinement", prev.question, None, [prev.turn_number])
    if not prev.answer_devices or len(prev.answer_devices) == 1:  # one of a list drilled into: "them" is the list
        several = list_in_play(conversation.history, complete=True)
        if len(several) > 1 and (LISTED.search(prompt) or PICKS_AMONG.search(prompt)):
            prev = prev.model_copy(update={"answer_devices": several})
    if SAME.search(prompt) or (prev.answer_devices and LISTED.search(prompt)) or PICKS_AMONG.search(prompt):
        # "which ones?" after "how many store switches fail bpdu guard": the devices counted, listed
        # "the same devices": the previous scope with every filter, or the exact devices it listed
        listed = [Entity(type="device", value=a, confidence=0.9, source="conversation")
                  for a in prev.answer_devices if not any(e.type == "device" for e in own.entities)]
        base = [e for e in own.entities if e.source != "unresolved"] + _carried(prev, own.entities, sites) + listed
        # "which of those fail OSPF-AUTH?" read alone may be a question for the documents: of devices, it is the data's
        keep_own = own.intent_class != "unknown_or_needs_clarification" and not _about_the_data(own, prev)
        intent = own if keep_own else _inherit(own, prev, base)
        frame = own.frame
        if not keep_own and frame.ask == "policy" and frame.subject == "documents" and frame.confidence >= 0.6:
            # "how long do we have to upgrade them" after a list: what the documents say about those devices
            skill = "sec_generic" if (intent.domain_details.skill or "").startswith("sec") else "cbp_generic"
            intent = intent.evolve(intent_class=SKILL_TO_CLASS[skill], domain_details=domain_details_for(skill, base))
        intent = intent.evolve(entities=base, meta_intent="followup_question", clarification_question=None,
                                           domain_details=domain_details_for(intent.domain_details.skill, base))
        return Resolution(intent, "same_devices", "", None, [prev.turn_number])
    has_scope = any(e.type in SCOPE_TYPES for e in own.entities)
    carried = _carried(prev, own.entities, sites)
    checks_listed = prev.query is not None and prev.query.group_by[:1] == ["rule"] and bool(prev.answer_rows)
    # "fix the aaa ones" after what SW-HQ-CORE-2 fails: those of its checks, there
    kind_of_them = KIND_ONES.search(prompt) is not None and (prev.findings or checks_listed) and not has_scope and \
        own.intent_class != "unknown_or_needs_clarification"
    # "how many critical findings does it have" after a question about HQ: "it" is that one place or device
    its = bool(IT_OR_ITS.search(prompt) or PLACE_THERE.search(prompt)) and not any(e.type in ("site", "device") for e in own.entities) and \
        own.intent_class != "unknown_or_needs_clarification" and \
        len([e for e in prev.entities if e.type in ("site", "device")]) == 1
    if (_bare_fix(own) and (prev.findings or checks_listed) or kind_of_them or its) and carried:
        # "what corrective actions are recommended?" after Branch-03's critical findings: the fixes of that scope
        entities = own.entities + carried
        intent = own.evolve(entities=entities, meta_intent="followup_question", clarification_question=None,
                            domain_details=domain_details_for(own.domain_details.skill, entities))
        return Resolution(intent, "carryover", "", None, [prev.turn_number])
    # a short question naming a scope is a follow-up ("and in production?"), unless it names what it asks about
    # as well and leads with no "and"/"what about" ("are any leaf switches failing copp?" is a question of its own)
    # "show configuration issues at DataCenter-1" is a request of its own, whatever the turn before narrowed to
    short = has_scope and len(re.findall(r"\w+", prompt)) <= 6 and (LEAD.search(prompt) or not names_what(
        own.frame, prompt)) and not (REQUEST.match(prompt) and not LEAD.search(prompt))
    subject = _subject_of_list(prompt, own, prev)
    if subject is not None:  # "which expire this year" after the exceptions: which of those things
        return Resolution(_inherit(own.evolve(meta_intent="followup_question"), prev, own.entities + carried),
                          "carryover", subject, None, [prev.turn_number])
    followup = own.meta_intent == "followup_question" or short
    if not followup:
        return Resolution(own)
    if own.intent_class == "unknown_or_needs_clarification" or (has_scope and _only_scope(prompt, own)):
        # "what about HQ?" — the previous request, with the new scope; "same but for last month" — at that time
        entities = _replace(_sites_moved(prev.entities, own), [e for e in own.entities if e.type in SCOPE_TYPES])
        t = own.frame.time
        timed = not has_scope and bool(t.months or t.runs or t.relative or t.since or t.last_n)
        again = f"{prev.question.rstrip(' ?.!')} {LEAD.sub('', prompt).strip(' ?.!,')}" if timed else \
            prev.question if has_scope else ""
        return Resolution(_inherit(own.evolve(meta_intent="followup_question"), prev, entities),
                          "carryover", again, None, [prev.turn_number])
    if LEAD.search(prompt) and _frame_scope(own.frame) and not names_what(own.frame, prompt) and \
            not any(e.type not in SCOPE_TYPES + ("assessment_type",) for e in own.entities):
        # "and at the data centers?": a kind of site (read into the frame, not an entity) — the previous request there,
        # in place of the site it named ("how many critical findings at HQ" → "and at the datacenters?")
        entities = _replace(_sites_moved(prev.entities, own), [e for e in own.entities if e.type in SCOPE_TYPES])
        return Resolution(_inherit(own.evolve(meta_intent="followup_question"), prev, entities),
                          "carryover", "", None, [prev.turn_number])
    if carried or _frame_scope(prev.frame):  # "what about security?" — this request, the previous scope
        entities = own.entities + carried
        intent = own.evolve(entities=entities, meta_intent="followup_question",
                                        domain_details=domain_details_for(own.domain_details.skill, entities))
        return Resolution(intent, "carryover", "", None, [prev.turn_number])
    return Resolution(own)
