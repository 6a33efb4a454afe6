"""What the upstream tasks delivered to a domain agent, and what its plan said it required.

Domain agents read their inputs through here so that "is the required data present?" is decided
in one place, from the task's ``required_data[]`` (min_count included), not by each agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orchestration.state import AssessmentState, Task

OUTPUT_OWNERS = {
    "assessment_context": "Data Query Agent",
    "enterprise_context": "Knowledge Agent",
    "slic_context": "SLIC Agent",
}


@dataclass(frozen=True)
class Evidence:
    outputs: dict[str, dict[str, Any]]
    missing_required: list[str] = field(default_factory=list)
    missing_optional: list[str] = field(default_factory=list)

    @property
    def assessment_context(self) -> dict[str, Any]:
        return self.outputs.get("assessment_context", {})

    @property
    def chunks(self) -> list[dict[str, Any]]:
        return list(self.outputs.get("enterprise_context", {}).get("retrieved_chunks", []))

    @property
    def slic_context(self) -> dict[str, Any]:
        return self.outputs.get("slic_context", {})


def _resolve(outputs: dict[str, dict[str, Any]], data_path: str) -> Any:
    head, *rest = data_path.split(".")
    value: Any = outputs.get(head)
    for part in rest:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _count(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, list | dict):
        return len(value)
    return 1


def gather(state: AssessmentState, task: Task) -> Evidence:
    """Collect upstream outputs and check them against the task's required data."""
    outputs: dict[str, dict[str, Any]] = {}
    failures: dict[str, str] = {}
    for key, owner in OUTPUT_OWNERS.items():
        upstream = state.plan.task_for(owner)
        if upstream is None:
            continue
        if key in upstream.outputs:
            outputs[key] = upstream.outputs[key]
        if upstream.status == "failed":
            failures[key] = upstream.error or "failed"
    missing_required: list[str] = []
    missing_optional: list[str] = []
    for need in task.required_data:
        if _count(_resolve(outputs, need.data_path)) >= max(need.min_count, 1):
            continue
        head = need.data_path.split(".")[0]
        reason = failures.get(head, "no data returned")
        text = f"{need.data_path} (from {OUTPUT_OWNERS.get(head, '?')}): {reason}"
        (missing_required if need.required else missing_optional).append(text)
    return Evidence(outputs, missing_required, missing_optional)


def qualified_outputs(evidence: Evidence, goal: str, reason: str | None = None) -> dict[str, Any]:
    """Outputs of a domain agent that could not get its required data: say what is missing, invent nothing."""
    gaps = evidence.missing_required + evidence.missing_optional + ([reason] if reason else [])
    if reason and not evidence.missing_required:
        summary = f"I could not complete this ({goal.lower()}): {reason}. No figures are stated."
    elif evidence.missing_required:
        sources = sorted({m.split("(from ")[1].split(")")[0] for m in evidence.missing_required if "(from " in m})
        summary = (f"I could not complete this ({goal.lower()}) because required data is missing from "
                   f"{', '.join(sources) or 'upstream tasks'}; details below. No figures are stated.")
    else:
        summary = f"{goal}: the required data was retrieved."
    return {"summary": summary, "findings": [], "data_gaps": gaps,
            "assumptions": [] if not gaps else ["No figures are stated because the underlying data was not available."]}
