"""Runtime contract enforcement: a node may write only the STATE fields its contract lists.

Control nodes return ``{top-level field: value}``; task agents return a ``TaskResult`` for their
own task. Anything outside the contract's ``writes`` raises ``ContractViolation`` naming the node,
the field and the contract file, so a mis-wired agent fails loudly in tests instead of silently
overwriting another agent's output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from orchestration.contracts import AgentContract
from orchestration.state import Task, ToolCall


class ContractViolation(RuntimeError):
    """A node wrote a STATE field its contract does not allow."""


@dataclass(frozen=True)
class TaskResult:
    """What a task agent returns for its own task."""

    status: Literal["completed", "failed", "skipped"]
    outputs: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    summary: str = ""


def _violation(contract: AgentContract, what: str) -> ContractViolation:
    return ContractViolation(
        f"{contract.name} ({contract.node}) wrote {what}, which contracts/agents/{contract.node}.yaml "
        f"does not list in 'writes' {contract.writes}"
    )


def check_control_update(contract: AgentContract, update: Mapping[str, Any]) -> list[str]:
    """Validate a control node's update; returns the fields written (for the trace)."""
    for key in update:
        if key not in contract.writes:
            raise _violation(contract, f"'{key}'")
    return sorted(update)


def check_task_result(contract: AgentContract, task: Task, result: TaskResult) -> list[str]:
    """Validate a task agent's result for ``task``; returns the fields written (for the trace)."""
    if task.owner != contract.name:
        raise _violation(contract, f"task {task.id} owned by {task.owner!r}")
    written = ["task.status"]
    if "task.status" not in contract.writes:
        raise _violation(contract, "'task.status'")
    for key in result.outputs:
        if not contract.may_write_output(key):
            raise _violation(contract, f"'task.outputs.{key}'")
        written.append(f"task.outputs.{key}")
    if result.error is not None:
        if "task.error" not in contract.writes:
            raise _violation(contract, "'task.error'")
        written.append("task.error")
    if result.tool_calls:
        if "mcp.tool_calls" not in contract.writes:
            raise _violation(contract, "'mcp.tool_calls'")
        written.append("mcp.tool_calls")
    if result.status == "failed" and not result.error:
        raise ContractViolation(f"{contract.name} marked task {task.id} failed without saying why")
    return written
