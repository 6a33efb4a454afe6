"""Config Best Practice Agent (DESIGN §7.1), skills cbp_assessment, cbp_expert_insights, cbp_generic.
Contract: contracts/agents/config_best_practice_agent.yaml.

Reads what the core agents delivered (``evidence.gather``), picks the interpretation that fits the
data it got — analysis, comparison (trend mode), issue tracking, SQL rows, SLIC matches or standards
only — and returns findings, summary, prioritized risks, asset trend, chart hints and statistics.
Missing required data gives a qualified answer with data gaps, never invented figures.
"""

from __future__ import annotations

from orchestration.agents.evidence import Evidence, gather, qualified_outputs
from orchestration.catalog import Catalog
from orchestration.enforcement import TaskResult
from orchestration.interpretation import (
    answer_forms,
    empty_scope,
    findings,
    generic_answers,
    query_answer,
    slic_insights,
    tool_rows,
)
from orchestration.interpretation.empty_scope import train_not_run
from orchestration.nlu.domain import GOALS
from orchestration.outputs import DomainOutputs, SlicContext, TaskOutputs
from orchestration.services import Services
from orchestration.state import AssessmentState, Task
from orchestration.tools.results import (
    RESULT_MODELS,
    AnalysisResult,
    ComparisonResult,
    IssueTrackingResult,
    SqlPathResult,
    result_of,
)


def _led(outputs: DomainOutputs, lead: str | None) -> DomainOutputs:
    """The answer in the question's form first, the tool's summary after it."""
    return outputs.evolve(summary=f"{lead}\n\n{outputs.summary}") if lead else outputs


def interpret_assessment(state: AssessmentState, evidence: Evidence, prefix: str,
                         catalog: Catalog) -> DomainOutputs | None:
    """Findings from whichever tool answered (an extension's tool: its rows as it returned them), or None when the
    context holds no usable result."""
    report = evidence.report_data
    intent = state.intent
    presentation = intent.domain_details.presentation_requirement
    if intent.frame.ask == "list" and intent.frame.subject in ("findings", "rules") and "top_" not in presentation:
        presentation = "top_100"  # "what do those fail?": every failing rule, not the top ones
    limit = findings.top_n(presentation, 5)
    chunks = evidence.chunks
    rules, tools = catalog.rules.by_id, catalog.contracts.tools
    nothing_there = empty_scope.no_device_outputs(intent.frame, evidence.assessment_context)
    if nothing_there is not None:  # "aaa accounting on hq core switches": HQ has none
        return nothing_there
    analysis = result_of(report, AnalysisResult)
    if analysis is not None:
        if analysis.metrics.checks_performed == 0:
            return None
        # device-level reading only when the scope is exactly one device (not "the same 16 devices")
        device = analysis.scope_applied.get("device")
        outputs = findings.from_analysis(analysis, intent.facets.chart_dimensions, presentation, chunks, device, rules, prefix)
        # one device's summary is its own answer, except to a yes/no ("is RTR-CORE-1 ok?": No, first)
        asked = not device or intent.frame.ask == "yes_no"
        return _led(outputs, answer_forms.analysis_lead(analysis, intent.frame) if asked else None)
    comparison = result_of(report, ComparisonResult)
    if comparison is not None:
        outputs = findings.from_comparison(comparison, chunks, limit, rules, prefix)
        lead, listed = answer_forms.comparison_lead(comparison, intent.frame, rules, intent.facets.changes_asked)
        if listed:
            outputs = outputs.evolve(statistics={**outputs.statistics, "devices_listed": listed})
        return _led(outputs, lead)
    tracking = result_of(report, IssueTrackingResult)
    if tracking is not None:
        return findings.from_tracking(tracking, chunks, limit, rules, prefix)
    rows = result_of(report, SqlPathResult)
    if rows is not None and rows.template == "query" and intent.query is not None:
        return query_answer.answer(intent.query, rows.rows, catalog.semantic_model, intent.query_notes,
                                   intent.frame.polarity, intent.query.direction or intent.frame.direction,
                                   intent.frame.polar)
    if rows is not None:
        formed = answer_forms.answer(rows, intent.frame, chunks, prefix, rules)
        return formed if formed is not None else findings.from_sql(rows, rules, prefix, intent.facets.release_age)
    extension = next((name for name in report if name not in RESULT_MODELS and name in tools), None)
    return tool_rows.tabulated(tools[extension], report[extension]) if extension else None


def with_gaps(outputs: DomainOutputs, evidence: Evidence) -> DomainOutputs:
    gaps = list(outputs.data_gaps) + evidence.missing_optional
    errors = evidence.assessment_context.errors if evidence.assessment_context else []
    gaps += [e.message for e in errors if e.message and e.message not in gaps]
    return outputs.evolve(data_gaps=gaps)


def focused(outputs: DomainOutputs, state: AssessmentState, evidence: Evidence) -> DomainOutputs:
    """About one earlier finding when the user referred to it ("explain the second one"), or the one check a question
    asks to explain ("why is ASA-MGMT-ANY a risk")."""
    ref = state.conversation.referenced_finding
    if evidence.missing_required or "findings" not in outputs.model_fields_set:
        return outputs
    if ref is not None:
        return findings.focus_on(outputs, ref)
    frame = state.intent.frame
    named = frame.targets.rule or frame.checks
    if frame.ask == "explain" and len(named) == 1 and state.intent.query is None and not state.intent.entity("device"):
        return findings.explain_rule(outputs, named[0])  # "what's the risk of ASA-MGMT-ANY": that check, explained
    return outputs


def run(state: AssessmentState, task: Task, services: Services) -> TaskResult:
    evidence = gather(state, task)
    goal = GOALS[task.skill]
    outputs: DomainOutputs | None
    if task.skill == "cbp_generic":
        outputs = generic_answers.answer(state.prompt, evidence.chunks, task.skill, services.catalog.rules.rules,
                                         state.input.pasted_lines, services.sentence_vectors().similarities,
                                         generic_answers.carried_words(state))
    elif evidence.missing_required:
        outputs = qualified_outputs(evidence, goal)
    elif task.skill == "cbp_expert_insights":
        limit = findings.top_n(state.intent.domain_details.presentation_requirement, 6)
        outputs = slic_insights.insights(evidence.slic_context or SlicContext(), evidence.chunks,
                                         state.intent.facets.mentions_pci, limit,
                                         signatures=state.intent.frame.targets.signature)
    elif (outputs := train_not_run(state.intent)) is not None:
        pass  # "anything still on 15.x?": No, with the releases the inventory runs
    else:
        outputs = interpret_assessment(state, evidence, "CFG", services.catalog)
        if outputs is None:
            outputs = qualified_outputs(evidence, goal, "the assessment holds no results for this scope")
    outputs = with_gaps(focused(outputs, state, evidence), evidence)
    return TaskResult("completed", TaskOutputs.of(outputs), summary=outputs.summary[:200])
