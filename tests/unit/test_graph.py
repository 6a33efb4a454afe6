"""End-to-end turns through the real LangGraph graph via the same entry point the UI uses."""

from __future__ import annotations

from orchestration.runtime import TurnEvent, handle_turn, iter_turn
from orchestration.services import Services
from orchestration.state import AssessmentState


def test_gate_short_circuits_without_planning(services: Services) -> None:
    state = handle_turn("Tell me about my network.", services=services)
    assert state.trace.node_run_order == ["context_pruner", "intent_classifier", "answer_composer", "reflector"]
    assert state.plan.tasks == []
    assert state.final.answer == state.intent.clarification_question


def test_acknowledgement_is_answered_without_planning(services: Services) -> None:
    state = handle_turn("thanks!", services=services)
    assert state.trace.node_run_order == ["context_pruner", "intent_classifier", "answer_composer", "reflector"]
    assert "welcome" in state.final.answer.lower()


def test_tasks_run_in_dependency_order_with_parallel_fan_out(services: Services) -> None:
    state = handle_turn("What do the SLIC findings for DataCenter-1 mean given our internal policies?", services=services)
    order = state.trace.node_run_order
    assert order[:3] == ["context_pruner", "intent_classifier", "planner"]
    assert set(order[3:5]) == {"knowledge_agent", "slic_agent"}  # same superstep: no dependency between them
    assert order[5:] == ["data_query_agent", "config_best_practice_agent", "answer_composer", "reflector"]
    dispatches = [d.summary for d in state.trace.state_deltas if d.node == "dispatch" and d.summary.startswith("start")]
    assert "Knowledge Agent" in dispatches[0] and "SLIC Agent" in dispatches[0]


def test_tasks_are_marked_truthfully_and_tool_calls_recorded(services: Services) -> None:
    state = handle_turn("Summarize my latest configuration best practice assessment", services=services)
    dq = state.plan.task_for("Data Query Agent")
    assert dq is not None and dq.status == "failed" and dq.error
    assert dq.started_at and dq.finished_at
    (call,) = state.mcp.tool_calls
    assert call.tool_name == "assessment_analysis_tool" and call.status == "error" and call.task_id == dq.id
    context = dq.outputs.model_dump()["assessment_context"]
    assert context["source_path"] == "mcp" and context["errors"]
    domain = state.plan.task_for("Config Best Practice Agent")
    assert domain is not None and domain.status == "completed"
    assert state.final.partial and state.final.risk_of_error == "high" and state.final.missing_inputs


def test_trace_records_every_node_with_fields_written(services: Services) -> None:
    state = handle_turn("How should I configure SNMPv3 according to our company standards?", services=services)
    written = {d.node: d.fields_written for d in state.trace.state_deltas if d.node != "dispatch"}
    assert written["intent_classifier"] == ["conversation", "intent"]
    assert written["planner"] == ["plan"]
    assert "task.outputs.retrieval_query" in written["knowledge_agent"]
    assert written["answer_composer"] == ["final"]


def test_iter_turn_streams_node_events_before_the_final_state(services: Services) -> None:
    items = list(iter_turn("Which assets got worse since the previous assessment?", services=services))
    events = [i for i in items if isinstance(i, TurnEvent)]
    assert isinstance(items[-1], AssessmentState)
    assert events[0].node == "context_pruner"
    assert [e.node for e in events if e.node != "dispatch"] == items[-1].trace.node_run_order


def test_knowledge_query_is_formulated_from_state(services: Services) -> None:
    state = handle_turn("What do the SLIC findings for DataCenter-1 mean given our internal policies?", services=services)
    ka = state.plan.task_for("Knowledge Agent")
    assert ka is not None
    query = ka.outputs.model_dump()["retrieval_query"]
    assert "DataCenter-1" in query["formulated_query"]
    assert query["query_metadata"]["intent_class"] == "cbp_expert_insights"
    assert query["query_metadata"]["is_followup"] is False
