"""The runtime refuses STATE writes outside a node's contract."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from orchestration.contracts import get_contracts
from orchestration.enforcement import ContractViolation, TaskResult, check_task_result
from orchestration.graph import control_node, task_node
from orchestration.state import AssessmentState, Final, Plan, Task


def _state_with_task(owner: str) -> tuple[AssessmentState, Task]:
    task = Task(id="T1", description="d", owner=owner, skill="s", status="in_progress")
    return AssessmentState(plan=Plan(tasks=[task], routing=[owner], iteration=1)), task


def test_task_agent_writing_another_agents_output_is_refused() -> None:
    rogue = SimpleNamespace(run=lambda state, task: TaskResult("completed", {"findings": []}))
    node = task_node("knowledge_agent", rogue, get_contracts())  # type: ignore[arg-type]
    state, _ = _state_with_task("Knowledge Agent")
    with pytest.raises(ContractViolation, match=r"Knowledge Agent.*task\.outputs\.findings.*knowledge_agent\.yaml"):
        node(state)


def test_agent_without_tool_permission_cannot_record_tool_calls() -> None:
    from orchestration.state import ToolCall

    contract = get_contracts().agent("SLIC Agent")
    _, task = _state_with_task("SLIC Agent")
    result = TaskResult("completed", {"slic_context": {}}, tool_calls=(ToolCall(tool_name="issue_tracking_tool"),))
    with pytest.raises(ContractViolation, match="mcp.tool_calls"):
        check_task_result(contract, task, result)


def test_control_node_writing_outside_its_contract_is_refused() -> None:
    def run(state: AssessmentState) -> dict[str, Any]:
        return {"final": Final(answer="made up")}

    rogue = SimpleNamespace(run=run, summarize=lambda update: "")
    node = control_node("intent_classifier", rogue, get_contracts())  # type: ignore[arg-type]
    with pytest.raises(ContractViolation, match="'final'"):
        node(AssessmentState())


def test_failed_task_must_say_why() -> None:
    contract = get_contracts().agent("Data Query Agent")
    _, task = _state_with_task("Data Query Agent")
    with pytest.raises(ContractViolation, match="without saying why"):
        check_task_result(contract, task, TaskResult("failed"))


def test_agent_cannot_finish_a_task_it_does_not_own() -> None:
    contract = get_contracts().agent("Data Query Agent")
    _, task = _state_with_task("Knowledge Agent")
    with pytest.raises(ContractViolation, match="owned by"):
        check_task_result(contract, task, TaskResult("completed"))


def test_allowed_writes_pass_and_are_listed_for_the_trace() -> None:
    contract = get_contracts().agent("Knowledge Agent")
    _, task = _state_with_task("Knowledge Agent")
    fields = check_task_result(contract, task, TaskResult("failed", {"retrieval_query": {}}, error="no index"))
    assert fields == ["task.status", "task.outputs.retrieval_query", "task.error"]


def test_agent_exception_fails_its_task_instead_of_the_turn() -> None:
    def boom(state: AssessmentState, task: Task) -> TaskResult:
        raise RuntimeError("disk on fire")

    node = task_node("slic_agent", SimpleNamespace(run=boom), get_contracts())  # type: ignore[arg-type]
    state, _ = _state_with_task("SLIC Agent")
    update = node(state)
    (task,) = update["plan"].tasks
    assert task.status == "failed" and "disk on fire" in (task.error or "")
