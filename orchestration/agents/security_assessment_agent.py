"""Security Assessment Agent (DESIGN §7.2), skills sec_assessment, sec_expert_insights, sec_generic.
Contract: contracts/agents/security_assessment_agent.yaml."""

from __future__ import annotations

from orchestration.agents.evidence import gather, qualified_outputs
from orchestration.agents.intent_classifier import GOALS
from orchestration.enforcement import TaskResult
from orchestration.state import AssessmentState, Task


def run(state: AssessmentState, task: Task) -> TaskResult:
    evidence = gather(state, task)
    outputs = qualified_outputs(evidence, GOALS[task.skill])
    outputs["exposure_assumptions"] = []
    return TaskResult("completed", outputs, summary=outputs["summary"][:160])
