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
from dataclasses import dataclass, field

from orchestration.nlu.domain import domain_details_for
from orchestration.nlu.entities import extract_entities
from orchestration.state import Conversation, Entity, Intent, PastTurn

_I = re.IGNORECASE
SCOPE_TYPES = ("site", "device", "device_type", "environment")
CORRECTION = re.compile(r"^\s*(?:(?:sorry|oops|no|nope|actually|my bad)[,.!\s]+)*(?:i meant|i mean|i meant to say|meant)\s+"
                        r"(?P<right>.+?)(?:,?\s+not\s+(?P<wrong>.+?))?\s*[.!?]*$", _I)
REFINE = re.compile(r"^\s*(?:ok(?:ay)?,?\s+|and\s+|now\s+)?(?:focus|only|just|limit|restrict|narrow|filter)\b", _I)
SAME = re.compile(r"\b(?:the )?same (?:devices|assets|ones|routers|switches|firewalls|hosts)\b|\bthose (?:devices|assets|"
                  r"routers|switches|firewalls)\b|\bthese (?:devices|assets)\b", _I)
ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
            "5th": 5, "last": -1}
ORDINAL_REF = re.compile(r"\b(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+(?:finding|issue|one|item|"
                         r"deviation|risk|result)\b|\b(?:finding|issue|item)\s+(?:number\s+)?#?(\d{1,2})\b", _I)
PREF_TOP = re.compile(r"\b(?:always|by default|from now on)\b.*\btop[\s-]?(\d{1,2})\b|\btop[\s-]?(\d{1,2})\b.*\b(?:always|by "
                      r"default|from now on)\b", _I)
PREF_SITE = re.compile(r"\bmy (?:default |home )?site is ([A-Za-z0-9-]+)", _I)
FORGET = re.compile(r"\b(?:forget|clear|reset|remove|delete)\s+(?:all\s+)?my\s+(preferences|site|default site|top[\s-]?n|top)\b", _I)


@dataclass
class Resolution:
    intent: Intent
    kind: str = "none"
    effective_prompt: str = ""
    referenced_finding: dict[str, object] | None = None
    referenced_turns: list[int] = field(default_factory=list)
    new_corrections: list[dict[str, str]] = field(default_factory=list)
    new_preferences: dict[str, str] = field(default_factory=dict)


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


def _previous(history: list[PastTurn]) -> PastTurn | None:
    return next((t for t in reversed(history) if t.intent_class and t.intent_class != "unknown_or_needs_clarification"
                 and t.skill), None)


def _replace(entities: list[Entity], new: list[Entity], types: tuple[str, ...] | None = None) -> list[Entity]:
    """Previous entities with each type the new ones name replaced (all of that type)."""
    replaced = {e.type for e in new if types is None or e.type in types}
    kept = [e.model_copy(update={"source": "conversation"}) for e in entities if e.type not in replaced]
    return kept + [e for e in new if types is None or e.type in types]


def _inherit(own: Intent, prev: PastTurn, entities: list[Entity]) -> Intent:
    return own.model_copy(update={
        "intent_class": prev.intent_class, "entities": entities, "clarification_question": None,
        "confidence": max(own.confidence, 0.8),
        "domain_details": domain_details_for(prev.skill, entities),
    })


def _finding_reference(prompt: str, prev: PastTurn) -> dict[str, object] | None:
    m = ORDINAL_REF.search(prompt)
    if m and prev.findings:
        index = ORDINALS.get((m.group(1) or "").lower()) or int(m.group(2) or 0)
        if index == -1:
            return prev.findings[-1]
        if 1 <= index <= len(prev.findings):
            return prev.findings[index - 1]
    for f in prev.findings:
        for key in ("id", "rule_id"):
            value = str(f.get(key) or "")
            if value and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", prompt, _I):
                return f
    return None


LEAD = re.compile(r"^\s*(?:and\s+|ok(?:ay)?,?\s+|now\s+)?(?:what about|how about|same for|same with|and for|also for)\b", _I)
FILLER = frozenset(["and", "also", "the", "a", "at", "for", "in", "on", "of", "with", "site", "sites", "devices", "device", "please", "then", "now", "too"])


def _only_scope(prompt: str, own: Intent) -> bool:
    """True when, besides a follow-up lead and the names of a scope, the prompt asks nothing new."""
    rest = LEAD.sub(" ", prompt)
    for e in own.entities:
        if e.type in SCOPE_TYPES:
            rest = re.sub(re.escape(e.value), " ", rest, flags=_I)
    words = [w for w in re.findall(r"[a-z][a-z0-9-]*", rest.lower()) if w not in FILLER]
    for e in own.entities:  # words that produced an entity (e.g. "firewalls", "production") are scope, not a request
        if e.type in SCOPE_TYPES:
            words = [w for w in words if not (w.rstrip("s") in e.value.lower() or e.value.lower() in w)]
    return bool(LEAD.search(prompt)) and len(words) <= 1


def resolve(prompt: str, own: Intent, conversation: Conversation) -> Resolution:
    prev = _previous(conversation.history)
    if prev is None or own.meta_intent in ("acknowledgement", "cancellation"):
        return Resolution(own)
    prev_scope = [e for e in prev.entities if e.type in SCOPE_TYPES]
    correction = CORRECTION.match(prompt)
    if correction:
        right = extract_entities(correction.group("right"))
        if right:
            corrections = []
            for e in right:
                old = next((p for p in prev.entities if p.type == e.type and p.value != e.value), None)
                if old:
                    corrections.append({"entity_type": e.type, "wrong": old.value, "right": e.value})
            entities = _replace(prev.entities, right)
            effective = prev.prompt
            for c in corrections:
                effective = re.sub(re.escape(c["wrong"]), c["right"], effective, flags=_I)
            return Resolution(_inherit(own.model_copy(update={"meta_intent": "followup_question"}), prev, entities),
                              "self_correction", effective, None, [prev.turn_number], corrections)
    finding = _finding_reference(prompt, prev)
    if finding is not None:
        return Resolution(_inherit(own.model_copy(update={"meta_intent": "followup_question"}), prev, prev.entities),
                          "finding_reference", prev.prompt, finding, [prev.turn_number])
    if REFINE.search(prompt):
        entities = _replace(prev.entities, [e for e in own.entities if e.type in (*SCOPE_TYPES, "severity")])
        return Resolution(_inherit(own.model_copy(update={"meta_intent": "followup_question"}), prev, entities),
                          "refinement", prev.prompt, None, [prev.turn_number])
    if SAME.search(prompt):
        assets = sorted({str(a) for f in prev.findings for a in f.get("entities_referenced", []) or []})
        assets = assets or [e.value for e in prev.entities if e.type == "device"]
        devices = [Entity(type="device", value=a, confidence=0.9, source="conversation") for a in assets[:50]]
        base = [e for e in own.entities if e.type != "device"] + devices
        intent = own if own.intent_class != "unknown_or_needs_clarification" else _inherit(own, prev, base)
        intent = intent.model_copy(update={"entities": base, "meta_intent": "followup_question"})
        if intent.intent_class != "unknown_or_needs_clarification":
            intent = intent.model_copy(update={"domain_details": domain_details_for(intent.domain_details.skill, base)})
        return Resolution(intent, "same_devices", "", None, [prev.turn_number])
    has_scope = any(e.type in SCOPE_TYPES for e in own.entities)
    followup = own.meta_intent == "followup_question" or (has_scope and len(re.findall(r"\w+", prompt)) <= 6)
    if not followup:
        return Resolution(own)
    if own.intent_class == "unknown_or_needs_clarification" or (has_scope and _only_scope(prompt, own)):
        # "what about HQ?" — the previous request, with the new scope
        entities = _replace(prev.entities, [e for e in own.entities if e.type in SCOPE_TYPES])
        return Resolution(_inherit(own.model_copy(update={"meta_intent": "followup_question"}), prev, entities),
                          "carryover", prev.prompt if has_scope else "", None, [prev.turn_number])
    if not has_scope and prev_scope:  # "what about security?" — this request, previous scope
        entities = own.entities + [e.model_copy(update={"source": "conversation"}) for e in prev_scope]
        intent = own.model_copy(update={"entities": entities, "meta_intent": "followup_question",
                                        "domain_details": domain_details_for(own.domain_details.skill, entities)})
        return Resolution(intent, "carryover", "", None, [prev.turn_number])
    return Resolution(own)
