"""What the upstream tasks delivered to a domain agent, and what its plan said it required.

Domain agents read their inputs through here so that "is the required data present?" is decided
in one place, from the task's ``required_data[]`` (min_count included), not by each agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from orchestration.outputs import (
    AssessmentContext,
    DomainOutputs,
    EnterpriseContext,
    RetrievedChunk,
    SlicContext,
    TaskOutputs,
)
from orchestration.state import AssessmentState, Task


@dataclass(frozen=True)
class Evidence:
    assessment_context: AssessmentContext | None = None
    enterprise_context: EnterpriseContext | None = None
    slic_context: SlicContext | None = None
    missing_required: list[str] = field(default_factory=list)
    missing_optional: list[str] = field(default_factory=list)

    @property
    def chunks(self) -> list[RetrievedChunk]:
        return list(self.enterprise_context.retrieved_chunks) if self.enterprise_context else []

    @property
    def report_data(self) -> dict[str, dict[str, Any]]:
        return self.assessment_context.report_data if self.assessment_context else {}


def _resolve(value: Any, path: list[str]) -> Any:
    for part in path:
        if isinstance(value, BaseModel):
            value = getattr(value, part, None)
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def _count(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, list | dict):
        return len(value)
    return 1


def gather(state: AssessmentState, task: Task) -> Evidence:
    """Collect upstream outputs and check them against the task's required data."""
    missing_required: list[str] = []
    missing_optional: list[str] = []
    for need in task.required_data:
        head, *rest = need.data_path.split(".")
        upstream = state.plan.task_for(need.provider) if need.provider else next(
            (t for t in state.plan.tasks if head in t.outputs.model_fields_set), None)
        value = getattr(upstream.outputs, head, None) if upstream else None
        if _count(_resolve(value, rest)) >= max(need.min_count, 1):
            continue
        reason = (upstream.error or "failed") if upstream and upstream.status == "failed" else "no data returned"
        text = f"{need.data_path} (from {need.provider or (upstream.owner if upstream else '?')}): {reason}"
        (missing_required if need.required else missing_optional).append(text)
    outputs = {t.owner: t.outputs for t in state.plan.tasks}
    empty = TaskOutputs()
    return Evidence(outputs.get("Data Query Agent", empty).assessment_context,
                    outputs.get("Knowledge Agent", empty).enterprise_context,
                    outputs.get("SLIC Agent", empty).slic_context, missing_required, missing_optional)


def qualified_outputs(evidence: Evidence, goal: str, reason: str | None = None) -> DomainOutputs:
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
    return DomainOutputs(summary=summary, findings=[], data_gaps=gaps,
                         assumptions=[] if not gaps else ["No figures are stated because the underlying data was not available."])
