"""The LangGraph wiring of a turn — the one place where nodes and edges are declared.

    context_pruner ──▶ intent_classifier ──(gate / acknowledgement / preference)──▶ answer_composer ──▶ reflector ──▶ END
            │                                                                             ▲              │
            ▼                                                                             │       (replan, once)
         planner ──▶ dispatch ──▶ [ready tasks in parallel] ──▶ dispatch ──▶ … ───────────┘              │
                        ▲                                                                                │
                        └────────────────────────────────────────────────────────────────────────────────┘

``dispatch`` is the Planner's execute half: after every superstep it marks the tasks whose
dependencies are finished ``in_progress`` and fans out to their agents (LangGraph runs the nodes a
conditional edge returns in parallel). Every node goes through the contract wrapper, which
enforces the node's ``writes`` (and validates task outputs) and appends the trace. When the Reflector finds
the answer not in the question's form, it leaves the Data Query task and its consumers pending again (plan
iteration 2) and the turn goes back to ``dispatch`` once. ``build_graph`` gets
the ``Services`` of the composition root and hands them to every node.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from foundation.yaml_files import ContractError
from orchestration.agents import (
    TASK_AGENTS,
    answer_composer,
    context_pruner,
    intent_classifier,
    planner,
    reflector,
)
from orchestration.contracts import ContractSet
from orchestration.enforcement import ContractViolation, TaskResult, check_control_update, check_task_result
from orchestration.services import Services
from orchestration.state import (
    TERMINAL_STATUSES,
    AssessmentState,
    Mcp,
    Plan,
    StateDelta,
    Task,
    Trace,
    utc_now,
)

log = logging.getLogger(__name__)
NodeFn = Callable[[AssessmentState], dict[str, Any]]


def _trace(node: str, fields: list[str], summary: str, started: float, task_id: str | None = None) -> Trace:
    delta = StateDelta(node=node, task_id=task_id, fields_written=fields, summary=summary,
                       duration_ms=round((time.perf_counter() - started) * 1000, 2))
    return Trace(node_run_order=[node], state_deltas=[delta])


def control_node(node: str, module: ModuleType, services: Services) -> NodeFn:
    """Wrap a control agent: contract-checked top-level update plus a trace entry."""
    contract = services.contracts.by_node(node)

    def run(state: AssessmentState) -> dict[str, Any]:
        started = time.perf_counter()
        update = module.run(state, services)
        fields = check_control_update(contract, update)
        return {**update, "trace": _trace(node, fields, module.summarize(update), started)}

    run.__name__ = node
    return run


def task_node(node: str, module: ModuleType, services: Services) -> NodeFn:
    """Wrap a task agent: it runs its own in-progress task; the result is contract-checked."""
    contract = services.contracts.by_node(node)

    def run(state: AssessmentState) -> dict[str, Any]:
        started = time.perf_counter()
        task = next(t for t in state.plan.tasks if t.owner == contract.name and t.status == "in_progress")
        try:
            result: TaskResult = module.run(state, task, services)
        except ContractViolation:
            raise
        except Exception as exc:  # an agent bug must not take the turn down: the task fails and says why
            log.exception("%s failed on task %s", node, task.id)
            result = TaskResult("failed", error=f"internal error in {contract.name}: {type(exc).__name__}: {exc}")
        fields, outputs = check_task_result(contract, task, result, services.contracts.tools)
        done = task.evolve(
            status=result.status,
            outputs=outputs,
            error=result.error,
            finished_at=utc_now(),
        )
        summary = f"{result.status}: {result.summary or result.error or ''}".strip()
        return {
            "plan": Plan(tasks=[done], routing=state.plan.routing, iteration=state.plan.iteration),
            "mcp": Mcp(tool_calls=list(result.tool_calls)),
            "trace": _trace(node, fields, summary, started, task.id),
        }

    run.__name__ = node
    return run


def ready_tasks(plan: Plan) -> list[Task]:
    """Pending tasks whose dependencies have all finished (completed, failed or skipped)."""
    status = {t.id: t.status for t in plan.tasks}
    return [t for t in plan.tasks
            if t.status == "pending" and all(status.get(d) in TERMINAL_STATUSES for d in t.depends_on)]


def dispatch(state: AssessmentState) -> dict[str, Any]:
    """Planner's execute half: start every ready task (their agents then run in parallel)."""
    started = time.perf_counter()
    ready = ready_tasks(state.plan)
    if not ready:
        return {"trace": Trace(state_deltas=[StateDelta(node="dispatch", summary="all tasks finished")])}
    now = utc_now()
    begun = [t.evolve(status="in_progress", started_at=now) for t in ready]
    delta = StateDelta(node="dispatch", fields_written=["plan"], summary="start " + ", ".join(
        f"{t.id} ({t.owner})" for t in begun), duration_ms=round((time.perf_counter() - started) * 1000, 2))
    return {"plan": Plan(tasks=begun, routing=state.plan.routing, iteration=state.plan.iteration),
            "trace": Trace(state_deltas=[delta])}


def route_after_classifier(state: AssessmentState) -> Literal["planner", "answer_composer"]:
    if state.intent.meta_intent in intent_classifier.CONVERSATIONAL or state.conversation.resolution in (
            "preference", "collection"):
        return "answer_composer"
    if state.intent.intent_class == "unknown_or_needs_clarification" or intent_classifier.cannot_answer(state.intent):
        return "answer_composer"
    return "planner"


def route_after_dispatch(contracts: ContractSet) -> Callable[[AssessmentState], list[str]]:
    """The agents of the tasks dispatch just started, or the composer once every task is finished."""

    def route(state: AssessmentState) -> list[str]:
        running = [contracts.agent(t.owner).node for t in state.plan.tasks if t.status == "in_progress"]
        return running or ["answer_composer"]

    return route


def route_after_reflector(state: AssessmentState) -> str:
    """The Reflector's replan left tasks pending: they run again; otherwise the turn ends."""
    return "dispatch" if any(t.status == "pending" for t in state.plan.tasks) else END


def task_agents(services: Services) -> dict[str, ModuleType]:
    """The task agents the graph wires, by node: the built-in ones and those the services were built with. Every
    task agent's contract needs a module and every module a contract."""
    agents = {**TASK_AGENTS, **services.agents}
    for contract in services.contracts.agents.values():
        if contract.kind in ("core", "domain") and contract.node not in agents:
            raise ContractError(f"contracts/agents/{contract.node}.yaml: no module is registered for node "
                                f"{contract.node!r} (orchestration.agents.TASK_AGENTS or build_services(agents=))")
    for node in agents:
        services.contracts.by_node(node)  # ContractError naming the node
    return agents


def build_graph(services: Services) -> Any:
    """Compile the turn graph over ``services``."""
    agents = task_agents(services)
    # LangGraph's add_node overloads cannot infer the input type of our wrapped callables; typed as Any.
    graph: Any = StateGraph(AssessmentState)
    graph.add_node("context_pruner", control_node("context_pruner", context_pruner, services))
    graph.add_node("intent_classifier", control_node("intent_classifier", intent_classifier, services))
    graph.add_node("planner", control_node("planner", planner, services))
    graph.add_node("dispatch", dispatch)
    for node, module in agents.items():
        graph.add_node(node, task_node(node, module, services))
        graph.add_edge(node, "dispatch")
    graph.add_node("answer_composer", control_node("answer_composer", answer_composer, services))
    graph.add_node("reflector", control_node("reflector", reflector, services))

    graph.add_edge(START, "context_pruner")
    graph.add_edge("context_pruner", "intent_classifier")
    graph.add_conditional_edges("intent_classifier", route_after_classifier, ["planner", "answer_composer"])
    graph.add_edge("planner", "dispatch")
    graph.add_conditional_edges("dispatch", route_after_dispatch(services.contracts), [*agents, "answer_composer"])
    graph.add_edge("answer_composer", "reflector")
    graph.add_conditional_edges("reflector", route_after_reflector, ["dispatch", END])
    return graph.compile()
