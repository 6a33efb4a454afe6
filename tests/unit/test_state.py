"""STATE models: JSON round-trip and the reducers that merge parallel updates."""

from __future__ import annotations

from orchestration.runtime import handle_turn
from orchestration.services import Services
from orchestration.state import (
    AssessmentState,
    Mcp,
    Plan,
    Task,
    ToolCall,
    Trace,
    append_mcp,
    append_trace,
    merge_plan,
)


def test_real_turn_state_round_trips_through_json(services: Services) -> None:
    state = handle_turn("Which SLIC findings at DataCenter-1 matter under our policies?", services=services)
    text = state.model_dump_json()
    again = AssessmentState.model_validate_json(text)
    assert again == state
    assert again.plan.tasks and again.trace.node_run_order and again.mcp.tool_calls


def test_every_design_section_is_present_in_json() -> None:
    data = AssessmentState().model_dump(mode="json")
    assert set(data) == {"input", "intent", "plan", "mcp", "trace", "conversation", "final"}
    assert {"user_prompt", "context_kv", "thread_id", "user_id"} <= set(data["input"])
    assert {"intent_class", "meta_intent", "domain_details", "entities", "confidence",
            "clarification_question"} <= set(data["intent"])
    assert {"assessment_goal", "scope", "urgency", "presentation_requirement"} <= set(data["intent"]["domain_details"])
    assert {"answer", "citations", "missing_inputs", "risk_of_error", "partial"} <= set(data["final"])


def test_merge_plan_merges_parallel_task_updates_by_id() -> None:
    plan = Plan(tasks=[Task(id="T1", description="a", owner="A", skill="s"),
                       Task(id="T2", description="b", owner="B", skill="s")], routing=["A", "B"], iteration=1)
    t1 = plan.tasks[0].model_copy(update={"status": "completed"})
    t2 = plan.tasks[1].model_copy(update={"status": "failed", "error": "x"})
    merged = merge_plan(merge_plan(plan, Plan(tasks=[t1], iteration=1)), Plan(tasks=[t2], iteration=1))
    assert [t.status for t in merged.tasks] == ["completed", "failed"]
    assert merged.routing == ["A", "B"]


def test_new_plan_iteration_replaces_the_old_plan() -> None:
    old = Plan(tasks=[Task(id="T1", description="a", owner="A", skill="s")], iteration=1)
    new = Plan(tasks=[Task(id="T9", description="z", owner="Z", skill="s")], iteration=2)
    assert [t.id for t in merge_plan(old, new).tasks] == ["T9"]


def test_tool_calls_and_trace_accumulate() -> None:
    a = Mcp(tool_calls=[ToolCall(tool_name="x")])
    b = Mcp(tool_calls=[ToolCall(tool_name="y")])
    assert [c.tool_name for c in append_mcp(a, b).tool_calls] == ["x", "y"]
    t = append_trace(Trace(node_run_order=["a"]), Trace(node_run_order=["b"]))
    assert t.node_run_order == ["a", "b"]
