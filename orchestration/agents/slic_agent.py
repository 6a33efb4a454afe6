"""SLIC Agent (DESIGN §6.3): known-issue signature results for the scope.
Contract: contracts/agents/slic_agent.yaml.

The task fails and says so while no SLIC store exists; it never reports a match it did not read.
"""

from __future__ import annotations

from orchestration.config import get_settings
from orchestration.enforcement import TaskResult
from orchestration.state import AssessmentState, Task


def run(state: AssessmentState, task: Task) -> TaskResult:
    scope = state.intent.domain_details.scope
    return TaskResult(
        "failed",
        {"slic_context": {"scope": scope.model_dump(), "results": [], "errors": ["no SLIC store"]}},
        error=f"no SLIC store is available yet (expected in {get_settings().warehouse_path})",
        summary="no SLIC store",
    )
