"""Targeted clarification questions for the gate (DESIGN §4): say what was understood, offer the
closest things the assistant can do, never a bare "please rephrase"."""

from __future__ import annotations

import re

from orchestration.nlu.router import OUT_OF_SCOPE, VAGUE, RouteDecision
from orchestration.state import Entity

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
    types = [e.value.replace("_", " ") + "s" for e in entities if e.type == "device_type"]
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
