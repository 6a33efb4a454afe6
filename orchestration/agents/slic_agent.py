"""SLIC Agent (DESIGN §6.3): known-issue signature results for the scope, read from the SLIC store through
``slic_results_tool``. Contract: contracts/agents/slic_agent.yaml.

It never reports a match it did not read; an empty result is reported as empty, a failed read as failed.
"""

from __future__ import annotations

from orchestration.enforcement import TaskResult
from orchestration.outputs import SlicContext, TaskOutputs
from orchestration.services import Services
from orchestration.state import AssessmentState, Task
from orchestration.tools.results import SlicResult
from orchestration.tools.scope import scope_for


def run(state: AssessmentState, task: Task, services: Services) -> TaskResult:
    scope, _ = scope_for(state.intent)
    named = state.intent.entity("assessment_id")
    params = {"assessment_id": named or "latest", "scope": scope, "viewer": state.input.user_id,
              "collection": state.conversation.collection}
    if state.intent.frame.targets.signature:  # the signatures asked about, whatever their rank among the matches
        params["signatures"] = list(state.intent.frame.targets.signature)
    outcome = services.tools.call("slic_results_tool", params, task_id=task.id)
    if outcome.result is None:
        error = outcome.call.error or "the SLIC store could not be read"
        context = SlicContext(scope=scope, errors=[error])
        return TaskResult("failed", TaskOutputs(slic_context=context), error=error, tool_calls=(outcome.call,),
                          summary="SLIC store unavailable")
    result = outcome.typed
    assert isinstance(result, SlicResult)  # the registry validated it with the tool's model
    context = SlicContext(
        assessment_id=result.assessment_id, collection=result.collection, scope=result.scope_applied,
        total_matches=result.total_matches, assets_affected=result.assets_affected, by_signature=result.by_signature,
        by_severity=result.by_severity, results=result.results, result_cap=result.result_cap,
        errors=[] if result.total_matches else ["no SLIC signature matched in this scope"])
    return TaskResult("completed", TaskOutputs(slic_context=context), tool_calls=(outcome.call,),
                      summary=f"{context.total_matches} SLIC matches on {context.assets_affected} assets in "
                              f"{context.assessment_id}")
