"""Runtime contract enforcement: a node may write only the STATE fields its contract lists.

Control nodes return ``{top-level field: value}``; task agents return a ``TaskResult`` for their
own task, whose outputs are re-validated here against their models (``orchestration.outputs``).
Anything outside the contract's ``writes``, or an output that does not validate, raises
``ContractViolation`` naming the node, the field and the contract file, so a mis-wired agent fails
loudly in tests instead of handing the next agent something it cannot read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from orchestration.contracts import AgentContract, ToolContract
from orchestration.outputs import TaskOutputs
from orchestration.state import Task, ToolCall


class ContractViolation(RuntimeError):
    """A node wrote a STATE field its contract does not allow."""


@dataclass(frozen=True)
class TaskResult:
    """What a task agent returns for its own task."""

    status: Literal["completed", "failed", "skipped"]
    outputs: TaskOutputs | Mapping[str, Any] = field(default_factory=TaskOutputs)
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


def validated_outputs(contract: AgentContract, outputs: TaskOutputs | Mapping[str, Any]) -> TaskOutputs:
    """The outputs re-validated against their models (an instance is checked again, not trusted)."""
    try:
        return TaskOutputs.model_validate(outputs)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ContractViolation(f"{contract.name} ({contract.node}) wrote task.outputs.{where}, which does not "
                                f"validate: {err['msg']} (models in orchestration/outputs.py, named in "
                                f"contracts/agents/{contract.node}.yaml 'outputs')") from None


def check_task_result(contract: AgentContract, task: Task, result: TaskResult,
                      tools: Mapping[str, ToolContract] | None = None) -> tuple[list[str], TaskOutputs]:
    """Validate a task agent's result for ``task``: the fields written (for the trace) and the validated outputs.
    With ``tools``, every recorded call must be of a tool this agent owns (``owner`` in contracts/tools/)."""
    if task.owner != contract.name:
        raise _violation(contract, f"task {task.id} owned by {task.owner!r}")
    written = ["task.status"]
    if "task.status" not in contract.writes:
        raise _violation(contract, "'task.status'")
    outputs = validated_outputs(contract, result.outputs)
    for key in outputs.written():
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
        for call in result.tool_calls:
            owner = tools[call.tool_name].owner if tools and call.tool_name in tools else contract.name
            if owner != contract.name:
                raise ContractViolation(f"{contract.name} called {call.tool_name}, which contracts/tools/"
                                        f"{call.tool_name}.yaml gives to {owner}")
        written.append("mcp.tool_calls")
    if result.status == "failed" and not result.error:
        raise ContractViolation(f"{contract.name} marked task {task.id} failed without saying why")
    return written, outputs
