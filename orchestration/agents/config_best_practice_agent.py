"""Config Best Practice Agent (DESIGN §7.1), skills cbp_assessment, cbp_expert_insights, cbp_generic.
Contract: contracts/agents/config_best_practice_agent.yaml.

Reads what the core agents delivered (``evidence.gather``), picks the interpretation that fits the
data it got — analysis, comparison (trend mode), issue tracking, SQL rows, SLIC matches or standards
only — and returns findings, summary, prioritized risks, asset trend, chart hints and statistics.
Missing required data gives a qualified answer with data gaps, never invented figures.
"""

from __future__ import annotations

from orchestration.agents.evidence import Evidence, gather, qualified_outputs
from orchestration.enforcement import TaskResult
from orchestration.interpretation import answer_forms, empty_scope, findings, generic_answers, slic_insights
from orchestration.nlu.domain import GOALS
from orchestration.outputs import DomainOutputs, SlicContext, TaskOutputs
from orchestration.services import Services
from orchestration.state import AssessmentState, Task


def _led(outputs: DomainOutputs, lead: str | None) -> DomainOutputs:
    """The answer in the question's form first, the tool's summary after it."""
    return outputs.evolve(summary=f"{lead}\n\n{outputs.summary}") if lead else outputs


def interpret_assessment(state: AssessmentState, evidence: Evidence, prefix: str) -> DomainOutputs | None:
    """Findings from whichever tool answered, or None when the context holds no usable result."""
    report = evidence.report_data
    intent = state.intent
    presentation = intent.domain_details.presentation_requirement
    if intent.frame.ask == "list" and intent.frame.subject in ("findings", "rules") and "top_" not in presentation:
        presentation = "top_100"  # "what do those fail?": every failing rule, not the top ones
    limit = findings.top_n(presentation, 5)
    chunks = evidence.chunks
    nothing_there = empty_scope.no_device_outputs(intent.frame, evidence.assessment_context)
    if nothing_there is not None:  # "aaa accounting on hq core switches": HQ has none
        return nothing_there
    if report.get("assessment_analysis_tool"):
        result = report["assessment_analysis_tool"]
        if result["metrics"]["checks_performed"] == 0:
            return None
        # device-level reading only when the scope is exactly one device (not "the same 16 devices")
        device = (result.get("scope_applied") or {}).get("device")
        outputs = findings.from_analysis(result, intent.facets.chart_dimensions, presentation, chunks, device, prefix)
        return _led(outputs, answer_forms.analysis_lead(result, intent.frame) if not device else None)
    if report.get("assessment_comparison_tool"):
        result = report["assessment_comparison_tool"]
        outputs = findings.from_comparison(result, chunks, limit, prefix)
        lead, listed = answer_forms.comparison_lead(result, intent.frame)
        if listed:
            outputs = outputs.evolve(statistics={**outputs.statistics, "devices_listed": listed})
        return _led(outputs, lead)
    if report.get("issue_tracking_tool"):
        return findings.from_tracking(report["issue_tracking_tool"], chunks, limit, prefix)
    if report.get("sql_path"):
        formed = answer_forms.answer(report["sql_path"], intent.frame, chunks, prefix)
        return formed if formed is not None else findings.from_sql(report["sql_path"], prefix)
    return None


def with_gaps(outputs: DomainOutputs, evidence: Evidence) -> DomainOutputs:
    gaps = list(outputs.data_gaps) + evidence.missing_optional
    errors = evidence.assessment_context.errors if evidence.assessment_context else []
    gaps += [e.message for e in errors if e.message and e.message not in gaps]
    return outputs.evolve(data_gaps=gaps)


def focused(outputs: DomainOutputs, state: AssessmentState, evidence: Evidence) -> DomainOutputs:
    """About one earlier finding when the user referred to it ("explain the second one")."""
    ref = state.conversation.referenced_finding
    if ref is None or evidence.missing_required or "findings" not in outputs.model_fields_set:
        return outputs
    return findings.focus_on(outputs, ref)


def run(state: AssessmentState, task: Task, services: Services) -> TaskResult:
    evidence = gather(state, task)
    goal = GOALS[task.skill]
    outputs: DomainOutputs | None
    if task.skill == "cbp_generic":
        outputs = generic_answers.answer(state.prompt, evidence.chunks, task.skill)
    elif evidence.missing_required:
        outputs = qualified_outputs(evidence, goal)
    elif task.skill == "cbp_expert_insights":
        limit = findings.top_n(state.intent.domain_details.presentation_requirement, 6)
        outputs = slic_insights.insights(evidence.slic_context or SlicContext(), evidence.chunks,
                                         state.intent.facets.mentions_pci, limit)
    else:
        outputs = interpret_assessment(state, evidence, "CFG")
        if outputs is None:
            outputs = qualified_outputs(evidence, goal, "the assessment holds no results for this scope")
    outputs = with_gaps(focused(outputs, state, evidence), evidence)
    return TaskResult("completed", TaskOutputs.of(outputs), summary=outputs.summary[:200])
