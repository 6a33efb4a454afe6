"""Plain functions that turn STATE pieces into what the chat shows (testable without a browser)."""

from __future__ import annotations

from orchestration.state import AssessmentState

NODE_LABELS = {
    "context_pruner": "Context Pruner",
    "intent_classifier": "Intent Classifier",
    "planner": "Planner",
    "knowledge_agent": "Knowledge Agent",
    "data_query_agent": "Data Query Agent",
    "slic_agent": "SLIC Agent",
    "config_best_practice_agent": "Config Best Practice Agent",
    "security_assessment_agent": "Security Assessment Agent",
    "answer_composer": "Answer Composer",
    "reflector": "Reflector",
}


def final_notes(state: AssessmentState) -> str:
    final = state.final
    if not (final.partial or final.missing_inputs):
        return ""
    return f"\n\n> **Partial answer** — risk of error: {final.risk_of_error}."
