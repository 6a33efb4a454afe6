"""Knowledge Agent (DESIGN §6.1): formulates the retrieval query and retrieves enterprise knowledge.
Contract: contracts/agents/knowledge_agent.yaml.

The query is built only from what STATE holds: the prompt, the intent's entities and skill, and
for follow-ups the carried-over scope. While no knowledge index exists the task fails and says so;
it never fabricates a chunk.
"""

from __future__ import annotations

from typing import Any

from orchestration.config import get_settings
from orchestration.enforcement import TaskResult
from orchestration.state import AssessmentState, Task

SKILL_TOPICS = {
    "cbp_assessment": ["approved_configurations", "approved_exceptions", "policies", "organizational_context"],
    "cbp_expert_insights": ["policies", "approved_exceptions", "escalation_procedures", "organizational_context"],
    "cbp_generic": ["approved_configurations", "policies"],
    "sec_assessment": ["policies", "approved_exceptions", "approved_configurations", "organizational_context"],
    "sec_expert_insights": ["policies", "escalation_procedures", "approved_exceptions", "organizational_context"],
    "sec_generic": ["approved_configurations", "policies"],
}
SKILL_CUES = {
    "cbp_assessment": "configuration standard approved exceptions",
    "cbp_expert_insights": "policy approved exceptions escalation procedure",
    "cbp_generic": "configuration standard",
    "sec_assessment": "security policy hardening standard approved exceptions",
    "sec_expert_insights": "security policy escalation procedure vulnerability",
    "sec_generic": "hardening standard",
}


def formulate_query(state: AssessmentState) -> dict[str, Any]:
    """``retrieval_query`` per DESIGN §6.1: initial, generic or follow-up augmented."""
    intent, conv = state.intent, state.conversation
    skill = intent.domain_details.skill or ""
    scope = intent.domain_details.scope
    terms = [state.input.user_prompt.strip()]
    terms += [e.value for e in intent.entities if e.type in ("site", "device_type", "device") and e.value not in terms[0]]
    is_followup = intent.meta_intent == "followup_question" and conv.previous_intent is not None
    augmented_from: list[str] = []
    if is_followup:
        for entity in conv.carried_entities:
            if entity.value not in " ".join(terms):
                terms.append(entity.value)
                augmented_from.append(f"{entity.type}={entity.value}")
    if not skill.endswith("_generic"):
        terms.append(SKILL_CUES.get(skill, ""))
    return {
        "formulated_query": " ".join(t for t in terms if t).strip(),
        "query_metadata": {
            "intent_class": intent.intent_class,
            "skill": skill,
            "scope": scope.model_dump(),
            "is_followup": is_followup,
            "augmented_from": augmented_from,
            "query_kind": "followup" if is_followup else ("generic" if skill.endswith("_generic") else "initial"),
        },
        "filters": {"topics": SKILL_TOPICS.get(skill, [])},
    }


def run(state: AssessmentState, task: Task) -> TaskResult:
    query = formulate_query(state)
    return TaskResult(
        "failed",
        {"retrieval_query": query},
        error=f"no knowledge index is available yet (expected under {get_settings().index_dir})",
        summary="query formulated; no knowledge index to search",
    )
