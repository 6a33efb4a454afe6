"""Config Best Practice Agent (DESIGN §7.1), skills cbp_assessment, cbp_expert_insights, cbp_generic.
Contract: contracts/agents/config_best_practice_agent.yaml.

Reads what the core agents delivered (``evidence.gather``), picks the interpretation that fits the
data it got — analysis, comparison (trend mode), issue tracking, SQL rows, SLIC matches or standards
only — and returns findings, summary, prioritized risks, asset trend, chart hints and statistics.
Missing required data gives a qualified answer with data gaps, never invented figures.
"""

from __future__ import annotations

from typing import Any

from orchestration.agents.evidence import Evidence, gather, qualified_outputs
from orchestration.enforcement import TaskResult
from orchestration.interpretation import findings, generic_answers, slic_insights
from orchestration.nlu.domain import GOALS
from orchestration.state import AssessmentState, Task


def interpret_assessment(state: AssessmentState, evidence: Evidence, prefix: str) -> dict[str, Any] | None:
    """Findings from whichever tool answered, or None when the context holds no usable result."""
    report = evidence.assessment_context.get("report_data", {})
    intent = state.intent
    presentation = intent.domain_details.presentation_requirement
    limit = findings.top_n(presentation, 5)
    chunks = evidence.chunks
    if report.get("assessment_analysis_tool"):
        result = report["assessment_analysis_tool"]
        if result["metrics"]["checks_performed"] == 0:
            return None
        # device-level reading only when the scope is exactly one device (not "the same 16 devices")
        device = (result.get("scope_applied") or {}).get("device")
        return findings.from_analysis(result, state.prompt, presentation, chunks, device, prefix)
    if report.get("assessment_comparison_tool"):
        return findings.from_comparison(report["assessment_comparison_tool"], chunks, limit, prefix)
    if report.get("issue_tracking_tool"):
        return findings.from_tracking(report["issue_tracking_tool"], chunks, limit, prefix)
    if report.get("sql_path"):
        return findings.from_sql(report["sql_path"], prefix)
    return None


def with_gaps(outputs: dict[str, Any], evidence: Evidence) -> dict[str, Any]:
    gaps = list(outputs.get("data_gaps", [])) + evidence.missing_optional
    errors = evidence.assessment_context.get("errors") or []
    gaps += [e["message"] for e in errors if e.get("message") and e["message"] not in gaps]
    outputs["data_gaps"] = gaps
    return outputs


def run(state: AssessmentState, task: Task) -> TaskResult:
    evidence = gather(state, task)
    goal = GOALS[task.skill]
    outputs: dict[str, Any] | None
    if task.skill == "cbp_generic":
        outputs = generic_answers.answer(state.prompt, evidence.chunks, task.skill)
    elif evidence.missing_required:
        outputs = qualified_outputs(evidence, goal)
    elif task.skill == "cbp_expert_insights":
        limit = findings.top_n(state.intent.domain_details.presentation_requirement, 6)
        outputs = slic_insights.insights(evidence.slic_context, evidence.chunks, state.prompt, limit)
    else:
        outputs = interpret_assessment(state, evidence, "CFG")
        if outputs is None:
            outputs = qualified_outputs(evidence, goal, "the assessment holds no results for this scope")
    if state.conversation.referenced_finding and outputs.get("findings") is not None and not evidence.missing_required:
        outputs = findings.focus_on(outputs, state.conversation.referenced_finding)
    outputs = with_gaps(outputs, evidence)
    return TaskResult("completed", outputs, summary=str(outputs["summary"])[:200])
