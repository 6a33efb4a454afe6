"""Config Best Practice Agent (DESIGN §7.1), skills cbp_assessment, cbp_expert_insights, cbp_generic.
Contract: contracts/agents/config_best_practice_agent.yaml."""

from __future__ import annotations

from orchestration.agents.evidence import gather, qualified_outputs
from orchestration.agents.intent_classifier import GOALS
from orchestration.enforcement import TaskResult
from orchestration.state import AssessmentState, Task


def run(state: AssessmentState, task: Task) -> TaskResult:
    evidence = gather(state, task)
    outputs = qualified_outputs(evidence, GOALS[task.skill])
    return TaskResult("completed", outputs, summary=outputs["summary"][:160])
