"""Plain functions that turn STATE pieces into what the chat shows (testable without a browser)."""

from __future__ import annotations

import json
from typing import Any

from orchestration.state import AssessmentState, Plan

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


def plan_table(plan: Plan) -> str:
    rows = ["| Task | Owner | Skill | Depends on | Required data |", "|---|---|---|---|---|"]
    for t in plan.tasks:
        needs = ", ".join(f"{r.data_path}{'' if r.required else ' (optional)'}" for r in t.required_data) or "—"
        rows.append(f"| {t.id} | {t.owner} | {t.skill} | {', '.join(t.depends_on) or '—'} | {needs} |")
    return "\n".join(rows)


def json_block(data: Any, limit: int = 20000) -> str:
    text = json.dumps(data, indent=2, default=str)
    if len(text) > limit:
        text = text[:limit] + "\n… (truncated; export the trace for everything)"
    return f"```json\n{text}\n```"


def final_notes(state: AssessmentState) -> str:
    final = state.final
    if not (final.partial or final.missing_inputs):
        return ""
    return f"\n\n> **Partial answer** — risk of error: {final.risk_of_error}."
