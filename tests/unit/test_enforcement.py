"""The runtime refuses STATE writes outside a node's contract, outputs that do not validate against their
models, and tool results that do not match their contract's ``returns``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from orchestration.enforcement import ContractViolation, TaskResult, check_task_result
from orchestration.graph import control_node, task_node
from orchestration.outputs import TaskOutputs
from orchestration.services import Services, build_services
from orchestration.state import AssessmentState, Final, Intent, Plan, Task, ToolCall
from orchestration.tools.builtin import BUILTIN_TOOLS
from orchestration.tools.registry import ToolRegistry
from orchestration.tools.results import RESULT_MODELS, SqlPathResult
from orchestration.tools.rows import SQL_ROWS
from tests.catalog import BUNDLED, CONTRACTS

QUERY = {"formulated_query": "snmp", "query_metadata": {"intent_class": "cbp_generic", "skill": "cbp_generic",
                                                        "scope": {}, "is_followup": False, "query_kind": "generic"}}


def _state_with_task(owner: str) -> tuple[AssessmentState, Task]:
    task = Task(id="T1", description="d", owner=owner, skill="s", status="in_progress")
    return AssessmentState(plan=Plan(tasks=[task], routing=[owner], iteration=1)), task


def test_task_agent_writing_another_agents_output_is_refused() -> None:
    rogue = SimpleNamespace(run=lambda state, task, services: TaskResult("completed", {"findings": []}))
    node = task_node("knowledge_agent", rogue, build_services())  # type: ignore[arg-type]
    state, _ = _state_with_task("Knowledge Agent")
    with pytest.raises(ContractViolation, match=r"Knowledge Agent.*task\.outputs\.findings.*knowledge_agent\.yaml"):
        node(state)


def test_task_agent_writing_an_output_that_does_not_validate_is_refused() -> None:
    finding = {"id": "CFG-001", "rule_id": "SSH-V2", "title": "SSH v1 allowed", "severity": "catastrophic",
               "confidence": 0.9}
    rogue = SimpleNamespace(run=lambda state, task, services: TaskResult("completed", {"findings": [finding]}))
    node = task_node("config_best_practice_agent", rogue, build_services())  # type: ignore[arg-type]
    state, _ = _state_with_task("Config Best Practice Agent")
    with pytest.raises(ContractViolation, match=r"task\.outputs\.findings\.0\.severity.*does not validate"):
        node(state)


def test_a_model_changed_after_construction_is_validated_again_at_the_wrapper() -> None:
    contract = CONTRACTS.agent("Knowledge Agent")
    _, task = _state_with_task("Knowledge Agent")
    outputs = TaskOutputs.model_validate({"retrieval_query": QUERY})
    assert outputs.retrieval_query is not None
    outputs.retrieval_query.query_metadata.__dict__["query_kind"] = "whatever"  # bypasses assignment validation
    with pytest.raises(ContractViolation, match="query_kind"):
        check_task_result(contract, task, TaskResult("completed", outputs))


def test_evolve_validates_what_model_copy_would_accept() -> None:
    assert Intent().model_copy(update={"intent_class": "not_a_class"}).intent_class == "not_a_class"
    with pytest.raises(ValidationError):
        Intent().evolve(intent_class="not_a_class")
    assert Intent().evolve(intent_class="cbp_generic").intent_class == "cbp_generic"


def test_agent_without_tool_permission_cannot_record_tool_calls() -> None:
    contract = CONTRACTS.agent("Knowledge Agent")
    _, task = _state_with_task("Knowledge Agent")
    result = TaskResult("completed", {"retrieval_query": QUERY}, tool_calls=(ToolCall(tool_name="issue_tracking_tool"),))
    with pytest.raises(ContractViolation, match="mcp.tool_calls"):
        check_task_result(contract, task, result)


def test_agent_calling_a_tool_another_agent_owns_is_refused() -> None:
    contracts = CONTRACTS
    _, task = _state_with_task("Data Query Agent")
    result = TaskResult("completed", {}, tool_calls=(ToolCall(tool_name="slic_results_tool"),))
    with pytest.raises(ContractViolation, match="slic_results_tool.yaml gives to SLIC Agent"):
        check_task_result(contracts.agent("Data Query Agent"), task, result, contracts.tools)
    ok = TaskResult("completed", {}, tool_calls=(ToolCall(tool_name="inventory_tool"),))
    assert "mcp.tool_calls" in check_task_result(contracts.agent("Data Query Agent"), task, ok, contracts.tools)[0]


def test_control_node_writing_outside_its_contract_is_refused() -> None:
    def run(state: AssessmentState, services: Any) -> dict[str, Any]:
        return {"final": Final(answer="made up")}

    rogue = SimpleNamespace(run=run, summarize=lambda update: "")
    node = control_node("intent_classifier", rogue, build_services())  # type: ignore[arg-type]
    with pytest.raises(ContractViolation, match="'final'"):
        node(AssessmentState())


def test_failed_task_must_say_why() -> None:
    contract = CONTRACTS.agent("Data Query Agent")
    _, task = _state_with_task("Data Query Agent")
    with pytest.raises(ContractViolation, match="without saying why"):
        check_task_result(contract, task, TaskResult("failed"))


def test_agent_cannot_finish_a_task_it_does_not_own() -> None:
    contract = CONTRACTS.agent("Data Query Agent")
    _, task = _state_with_task("Knowledge Agent")
    with pytest.raises(ContractViolation, match="owned by"):
        check_task_result(contract, task, TaskResult("completed"))


def test_allowed_writes_pass_and_are_listed_for_the_trace() -> None:
    contract = CONTRACTS.agent("Knowledge Agent")
    _, task = _state_with_task("Knowledge Agent")
    fields, outputs = check_task_result(contract, task, TaskResult("failed", {"retrieval_query": QUERY}, error="no index"))
    assert fields == ["task.status", "task.outputs.retrieval_query", "task.error"]
    assert outputs.retrieval_query is not None and outputs.retrieval_query.formulated_query == "snmp"


def test_agent_exception_fails_its_task_instead_of_the_turn() -> None:
    def boom(state: AssessmentState, task: Task, services: Any) -> TaskResult:
        raise RuntimeError("disk on fire")

    node = task_node("slic_agent", SimpleNamespace(run=boom), build_services())  # type: ignore[arg-type]
    state, _ = _state_with_task("SLIC Agent")
    update = node(state)
    (task,) = update["plan"].tasks
    assert task.status == "failed" and "disk on fire" in (task.error or "")


@pytest.mark.parametrize(("changed", "error"), [
    ({"enable_secret": "cisco"}, "undeclared ['enable_secret']"),  # a field its contract does not declare
    ({"row_count": "many"}, "wrong type at row_count"),  # a declared field of the wrong type (the typed model)
])
def test_a_tool_result_its_contract_does_not_describe_fails_the_call(demo_warehouse: Any, services: Services,
                                                                     changed: dict[str, Any], error: str) -> None:
    def broken(w: Any, **params: Any) -> dict[str, Any]:
        return {**BUILTIN_TOOLS["inventory_tool"](w, **params), **changed}

    registry = ToolRegistry(BUNDLED, {**BUILTIN_TOOLS, "inventory_tool": broken}, services.warehouse)
    outcome = registry.call("inventory_tool", {"scope": {"sites": ["HQ"]}})
    assert outcome.call.status == "error" and outcome.result is None
    assert error in (outcome.call.error or "")


def test_a_tool_missing_a_required_field_fails_the_call(demo_warehouse: Any, services: Services) -> None:
    def short(w: Any, **params: Any) -> dict[str, Any]:
        return {"assets": []}

    registry = ToolRegistry(BUNDLED, {**BUILTIN_TOOLS, "inventory_tool": short}, services.warehouse)
    outcome = registry.call("inventory_tool", {"scope": {"sites": ["HQ"]}})
    assert outcome.call.status == "error" and "missing ['limit', 'row_count']" in (outcome.call.error or "")


@pytest.mark.parametrize(("tool", "params"), [
    ("assessment_analysis_tool", {"query_type": "summary"}),
    ("assessment_analysis_tool", {"query_type": "exceptions"}),
    ("assessment_analysis_tool", {"query_type": "assets", "scope": {"sites": ["HQ"]}}),
    ("assessment_comparison_tool", {"current_assessment_id": "latest", "previous_assessment_id": "previous",
                                    "comparison_focus": "changes"}),
    ("issue_tracking_tool", {"tracking_scope": "persistent", "assessment_scope": "since_prior"}),
    ("slic_results_tool", {"scope": {"sites": ["DataCenter-1"]}}),
    ("inventory_tool", {"scope": {"device": "FW-HQ-1"}}),
    ("sql_path", {"template": "inventory_count", "description": "devices per site and type",
                  "sql": "SELECT a.site, a.device_type, COUNT(*) AS devices FROM assets a GROUP BY a.site, a.device_type"}),
    ("sql_path", {"template": "attribute_listing", "description": "OS versions",  # its column is the attribute's
                  "sql": "SELECT a.os_version, COUNT(*) AS devices FROM assets a GROUP BY a.os_version"}),
])
def test_every_built_in_tool_returns_what_its_contract_declares(demo_warehouse: Any, tool: str,
                                                                 params: dict[str, Any]) -> None:
    outcome = build_services().tools.call(tool, params)
    assert outcome.call.status == "ok", outcome.call.error
    assert outcome.result is not None and set(outcome.result) <= set(CONTRACTS.tools[tool].returns)
    RESULT_MODELS[tool].model_validate(outcome.result)  # what the agents get reads back through the typed model


@pytest.mark.parametrize(("sql", "error"), [
    ("SELECT a.site, COUNT(*) AS devices FROM assets a GROUP BY a.site", "rows[0] does not fit the inventory_count template "
     "(device_type: Field required)"),  # a column the template's rows have dropped
    ("SELECT a.site, a.device_type, COUNT(*) AS devices, MIN(a.asset_id) AS example FROM assets a "
     "GROUP BY a.site, a.device_type", "(example: Extra inputs are not permitted)"),  # one they never had
    ("SELECT a.site, a.device_type, MIN(a.asset_id) AS devices FROM assets a GROUP BY a.site, a.device_type",
     "(devices: Input should be a valid integer"),  # a count that is not a number
])
def test_sql_rows_that_drifted_from_their_template_fail_the_call(demo_warehouse: Any, sql: str, error: str) -> None:
    """The answer forms read each template's rows through its row model: a statement whose columns drifted is the
    tool's defect, caught at the call (recorded as failed), not a KeyError in an answer."""
    outcome = build_services().tools.call("sql_path", {"template": "inventory_count", "description": "per site",
                                                       "sql": sql})
    assert outcome.call.status == "error" and outcome.result is None
    assert error in (outcome.call.error or ""), outcome.call.error


def test_every_sql_template_has_a_row_model_but_the_attribute_listing_and_the_query() -> None:
    templates = CONTRACTS.tools["sql_path"].parameters["properties"]["template"]["enum"]
    # their columns are what was asked: an attribute's values, or the typed query's groups and measures
    assert set(SQL_ROWS) == set(templates) - {"attribute_listing", "query"}
    typed = SqlPathResult(template="device_rules", description="", sql="", params=[], assessment_id=None,
                       collection="fleet", columns=[], rows=[], row_count=0, row_cap_reached=False)
    with pytest.raises(TypeError):  # a reader of another template's rows fails at once
        typed.rows_as(SQL_ROWS["device_list"])


def test_every_tool_contract_has_a_typed_result_with_exactly_its_fields() -> None:
    contracts = CONTRACTS.tools
    assert set(RESULT_MODELS) == set(contracts)
    for name, model in RESULT_MODELS.items():
        fields = model.model_fields
        assert set(fields) == set(contracts[name].returns), name
        assert {f for f, info in fields.items() if info.is_required()} == contracts[name].required_returns(), name



def test_malformed_tool_calls_are_failed_calls_with_short_errors(demo_warehouse: Path, services: Services) -> None:
    registry = ToolRegistry(BUNDLED, BUILTIN_TOOLS, services.warehouse)
    none_params = registry.call("assessment_analysis_tool", None)  # type: ignore[arg-type]
    assert none_params.call.status == "error" and "must be an object" in (none_params.call.error or "")
    huge = registry.call("assessment_analysis_tool", {"query_type": "x" * 1_000_000})
    assert huge.call.status == "error" and len(huge.call.error or "") < 600
    blank = registry.call("assessment_analysis_tool", {"query_type": "summary", "focus_area": " "})
    assert blank.call.status == "ok", blank.call.error
