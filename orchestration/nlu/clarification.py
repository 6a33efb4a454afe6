"""Targeted clarification questions for the gate (DESIGN §4): say what was understood, offer the
closest things the assistant can do, never a bare "please rephrase"."""

from __future__ import annotations

import re

from foundation.vocabulary.text import plural
from orchestration.nlu.names import Gazetteer, entity_type_label
from orchestration.nlu.router import OUT_OF_SCOPE, VAGUE, RouteDecision
from orchestration.state import Entity, NameResolution

SKILL_OFFERS = {
    "cbp_assessment": "a summary of the latest configuration best-practice assessment (top issues, statistics, trends)",
    "cbp_expert_insights": "what the SLIC known-issue findings mean under our internal policies",
    "cbp_generic": "how a feature should be configured according to our standards",
    "sec_assessment": "a security posture review (insecure services, weak AAA, missing hardening)",
    "sec_expert_insights": "which security signatures or vulnerable versions matter and who to escalate to",
    "sec_generic": "how to harden a device or service",
}
EXAMPLES = (
    "For example: \"Summarize my latest configuration best practice assessment, top 5 issues\", "
    "\"Which assets got worse since the previous assessment?\", "
    "\"Assess the security posture of DataCenter-1\" or "
    "\"How should I configure SNMPv3 according to our standards?\""
)


def _scope_phrase(entities: list[Entity]) -> str:
    names = [e.value for e in entities if e.type in ("site", "device")]
    types = [plural(e.value.replace("_", " ")) for e in entities if e.type == "device_type"]
    parts = names[:3] + types[:2]
    return " / ".join(parts)


HELP = re.compile(r"^\s*(?:help|\?+|what can you do|how does this work|what do you do|menu|options)\W*$", re.I)
GUIDANCE = (
    "Here is what I can do. Which would you like?\n"
    "- **Configuration best practice**: summaries, statistics, top issues, breakdowns by severity, platform, "
    "technology or criticality, and remediation commands — e.g. \"Summarize my latest configuration assessment, top 5 issues\".\n"
    "- **Trends**: what changed, which assets improved or got worse, what is still open — e.g. "
    "\"What has changed since my last assessment?\".\n"
    "- **Security posture**: insecure management services, weak AAA, missing hardening — e.g. "
    "\"Assess the security posture of DataCenter-1\".\n"
    "- **Expert insights**: what SLIC known-issue findings mean under our policies and exceptions.\n"
    "- **Standards**: how to configure something according to our standards — e.g. \"How should I configure SNMPv3?\""
)


def clarification_question(decision: RouteDecision, entities: list[Entity], prompt: str = "") -> str:
    """One question that names what was understood and offers the nearest options."""
    if HELP.match(prompt):
        return GUIDANCE
    scope = _scope_phrase(entities)
    ranked = sorted(
        (s for s in decision.skill_probabilities if s in SKILL_OFFERS),
        key=lambda s: -decision.skill_probabilities[s],
    )
    if decision.skill == OUT_OF_SCOPE and not scope:
        return (
            "I can only help with the configuration best-practice and security assessments of your network "
            f"devices, and with our network standards and policies. What would you like to know? {EXAMPLES}."
        )
    if decision.skill == VAGUE or decision.skill == OUT_OF_SCOPE:
        target = f" about {scope}" if scope else " about your network"
        return (
            f"What would you like to know{target}? I can give you "
            f"{SKILL_OFFERS['cbp_assessment']}; {SKILL_OFFERS['sec_assessment']}; "
            f"{SKILL_OFFERS['cbp_expert_insights']}; or {SKILL_OFFERS['cbp_generic']}."
        )
    first, second = ranked[0], ranked[1]
    target = f" for {scope}" if scope else ""
    return f"Do you want {SKILL_OFFERS[first]}{target}, or {SKILL_OFFERS[second]}{target}?"


def followup_without_history_question(prompt: str) -> str:
    return (
        f"\"{prompt.strip()[:80]}\" sounds like a follow-up, but this conversation has no earlier question to "
        "build on. Which site, devices or assessment do you mean, and what would you like to know about them?"
    )


def _or_list(items: list[str], word: str = "or") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def _known_examples(etype: str, gaz: Gazetteer, like: str = "", limit: int = 8) -> list[str]:
    """Known names to offer: the latest assessments, else names sharing the typed name's first part first."""
    names = list(gaz.pool(etype).values())
    if etype == "assessment_id":
        return names[-limit:][::-1]
    head = re.split(r"[-_ ]", like.lower(), maxsplit=1)[0]
    return sorted(names, key=lambda n: (not n.lower().startswith(head), n))[:limit]


def names_question(unresolved: list[NameResolution], gaz: Gazetteer) -> str:
    """One question about every name that could not be read: the closest names, or what exists."""
    groups: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
    lines = [r.reason for r in unresolved if r.status == "unknown" and r.reason]  # said why already (a huge range)
    for r in unresolved:
        if not (r.status == "unknown" and r.reason):
            groups.setdefault((r.entity_type, r.status, tuple(r.candidates)), []).append(f"'{r.mention}'")
    for (etype, status, candidates), mentions in groups.items():
        label = entity_type_label(etype)
        named = _or_list(mentions)
        shown = [f"**{c}**" for c in candidates]
        if status == "ambiguous":
            lines.append(f"{named} could be several {label}s: which one do you mean — {_or_list(shown)}?")
        elif etype == "platform":
            lines.append(f"No device in the inventory runs {named}; the platforms present are "
                         f"{_or_list(shown or ['none'], 'and')}. Which did you mean?")
        elif etype == "assessment_id":
            known = [f"**{n}**" for n in _known_examples(etype, gaz)]
            lines.append(f"I could not find the assessment {named}. The assessments on record are "
                         f"{_or_list(known or ['none'], 'and')} (latest first). Which one do you mean?")
        elif shown:
            lines.append(f"I could not find the {label} {named} in the inventory. Did you mean {_or_list(shown)}?")
        else:
            known = [f"**{n}**" for n in _known_examples(etype, gaz, mentions[0].strip("'"))]
            total = len(gaz.pool(etype))
            lines.append(f"I could not find the {label} {named} in the inventory"
                         + (f" ({total} {label}s, e.g. {', '.join(known)})" if known else "") + f". Which {label} do you mean?")
    lines.append("I have not run anything yet, so that the answer does not silently cover a different scope.")
    return "\n\n".join(lines)
