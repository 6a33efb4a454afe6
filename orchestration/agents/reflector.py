"""Reflector (DESIGN §7.3): checks the composed answer before the turn ends. Contract:
contracts/agents/reflector.yaml.

Every number in ``final.answer`` must occur in the task outputs, the intent or the prompt; every
citation marker [n] must name a citation whose chunk the Knowledge Agent retrieved; the scope the data
covered (``final.scope``) must be the scope the resolved intent asked for. On failure the
answer is qualified (partial, high risk, the unverified items listed) and the decision is recorded in
the trace. Turns without a plan (gate, acknowledgements) are finalized as they are.

It also checks the answer against the question's frame (DESIGN §4a). When the reader doubted the ask, the
Data Query Agent answered with an assessment tool's summary; if the frame's own plan would deliver the part the
question asked for (the devices listed, the series over the runs, both sides side by side), the Reflector
replans once: the Data Query task and the tasks that consume it run again with the directive to answer in the
question's form (``Plan.iteration`` 2, bounded by ``MAX_PLAN_ITERATIONS``), then the answer is composed and
checked again. What is still not covered is said in the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from assessment_engine.ontology import Ontology
from orchestration.interpretation.scope_statement import scope_gaps
from orchestration.outputs import TaskOutputs
from orchestration.services import Services
from orchestration.state import MAX_PLAN_ITERATIONS, AssessmentState, Final, Plan, StateUpdate
from orchestration.tools.frame_sql import compared_key
from orchestration.tools.question_plan import SQL_SKILLS, sql_plan_for
from orchestration.tools.results import SqlPathResult, result_of
from orchestration.tools.rows import GroupRow
from orchestration.tools.scope import scope_for, values_of

NUMBER = re.compile(r"(?<![\w.\-/:#$])[-+]?\d[\d,]*(?:\.\d+)?(?!\.\d|[\w\-/:])")
CITE = re.compile(r"\[(\d+)\]")
ORDINAL_MAX = 25  # list positions, ranks and table row numbers
# the parts of a question's form only the frame's own SQL plan delivers, by its template
FORM_PARTS = {
    "device_list": "the devices asked for, listed",
    "run_series": "the series over the runs asked for",
    "group_compare": "the groups asked for, side by side",
    "exception_list": "the approved exceptions asked for, listed",
}
REPLAN = "reflector replan: "


def _norm(token: str) -> str:
    value = float(token.replace(",", "").lstrip("+"))
    return f"{value:g}"


def _numbers(text: str) -> set[str]:
    return {_norm(m.group(0)) for m in NUMBER.finditer(text)}


def _known_numbers(state: AssessmentState) -> set[str]:
    known: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int | float):
            known.add(f"{float(value):g}")
        elif isinstance(value, str):
            known.update(_numbers(value))
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for task in state.plan.tasks:
        walk(task.outputs.model_dump())
    walk(json.loads(state.intent.model_dump_json()))
    known.update(_numbers(state.input.user_prompt) | _numbers(state.prompt))
    known.update(_numbers(state.conversation.model_dump_json()))
    return known


def check(state: AssessmentState, final: Final) -> tuple[list[str], list[str]]:
    """(unverified numbers, invalid citations) of the answer."""
    text = CITE.sub(" ", final.answer)
    text = re.sub(r"`[^`]*`|```.*?```", " ", text, flags=re.S)  # commands and config lines quote data verbatim
    text = re.sub(r"\band [\d,]+ more\b", " ", text)  # the rest of a list of names: shown ones subtracted, not a figure
    known = _known_numbers(state)
    unverified = sorted(n for n in _numbers(text) if n not in known and not (
        float(n).is_integer() and 0 <= float(n) <= ORDINAL_MAX))
    retrieved = {c.metadata.chunk_id for t in state.plan.tasks if t.outputs.enterprise_context
                 for c in t.outputs.enterprise_context.retrieved_chunks}
    numbers = {c.number: c for c in final.citations}
    bad = [f"[{n}]" for n in sorted({int(x) for x in CITE.findall(final.answer)})
           if n not in numbers or numbers[n].chunk_id not in retrieved]
    bad += [f"citation {c.number} ({c.source})" for c in final.citations if c.chunk_id not in retrieved]
    return unverified, list(dict.fromkeys(bad))


def frame_gaps(state: AssessmentState, lacking: str | None) -> list[str]:
    """Where the data does not cover the question's form: a side of a comparison without results, a trend over
    fewer than two runs, a list the row cap cut (the answer says so itself; recorded here for the trace), and
    ``lacking``, the form part still missing after the one replan."""
    context = state.task_outputs("Data Query Agent").assessment_context
    report = result_of(context.report_data, SqlPathResult) if context else None
    frame = state.intent.frame
    gaps = []
    if report is not None and report.template == "group_compare" and frame.ask == "compare":
        scope, _ = scope_for(state.intent)
        key = compared_key(scope)
        asked = {str(v).lower() for v in values_of(scope.get(key))} if key else set()
        got = {str(r.group_key).lower() for r in report.rows_as(GroupRow)}
        missing = sorted(asked - got)
        if missing:
            gaps.append(f"no results for {', '.join(missing)}: that side of the comparison is missing")
    if report is not None and report.template == "run_series" and len(report.rows) < 2:
        gaps.append("fewer than two runs fall in the time asked for: there is no trend to show")
    if report is not None and report.row_cap_reached:
        gaps.append(f"the query's rows were cut at {report.row_count}: the list is not complete")
    if lacking:
        gaps.append(f"{lacking}: the data answered with a summary instead")
    return gaps


def missing_form(state: AssessmentState, ontology: Ontology) -> str | None:
    """The part of the question's form the first answer lacks and a run in the frame's form would give, or None.
    Only when the data came from somewhere else than that plan (an assessment tool, another SQL template)."""
    intent = state.intent
    task = state.plan.task_for("Data Query Agent")
    context = task.outputs.assessment_context if task is not None and task.status == "completed" else None
    if intent.domain_details.skill not in SQL_SKILLS or context is None or not context.report_data:
        return None
    answered = (context.report_data.get("sql_path") or {}).get("template") or next(iter(context.report_data))
    scope, _ = scope_for(intent)
    plan = sql_plan_for(intent, scope, state.conversation.collection, ontology, form_required=True)
    if answered == "query":
        return None  # the typed query's own form is what was asked (its output: a value, rows, a series)
    if plan is None or plan.template == answered or plan.template not in FORM_PARTS:
        return None
    if plan.template == "device_list" and intent.frame.ask not in ("list", "ranking"):
        return None  # a count or yes/no over devices is the analysis' own form
    return FORM_PARTS[plan.template]


def replan(state: AssessmentState, missing: str | None) -> Plan | None:
    """The plan of the second run (the Data Query task with the form directive, and every task that consumes
    it, pending again), or None when the answer covers the form (``missing`` is None) or the one replan was used."""
    data = state.plan.task_for("Data Query Agent")
    if state.plan.iteration >= MAX_PLAN_ITERATIONS or data is None or missing is None:
        return None
    rerun = {data.id}
    for task in state.plan.tasks:  # dependents in plan order (the Planner orders providers first)
        if rerun & set(task.depends_on):
            rerun.add(task.id)
    tasks = [t.evolve(status="pending", outputs=TaskOutputs(), started_at=None, finished_at=None, error=None,
                      directive="question_form" if t.id == data.id else None) if t.id in rerun else t
             for t in state.plan.tasks]
    return Plan(tasks=tasks, routing=state.plan.routing, iteration=state.plan.iteration + 1)


def reflect(state: AssessmentState, lacking: str | None = None) -> tuple[Final, str]:
    """The answer checked (numbers, citations, scope) and qualified where it fails; ``lacking`` is the form part
    the data still does not give (said under Not covered)."""
    final = state.final
    if not state.plan.tasks:
        return final, "finalize: no planned data to check"
    uncovered = frame_gaps(state, lacking)
    if uncovered:  # said in the answer, not an error in it: the answer stays, the gap is named
        final = final.evolve(answer=final.answer + "\n\n**Not covered:** " + "; ".join(uncovered) + ".",
                             partial=True, missing_inputs=final.missing_inputs + [f"frame: {g}" for g in uncovered])
    unverified, bad = check(state, final)
    gaps = scope_gaps(state.intent, final.scope) if final.scope is not None else []
    if not unverified and not bad and not gaps:
        covered = "; the question's form is covered" if not uncovered else f"; not covered: {'; '.join(uncovered)}"
        return final, "finalize: every number and citation traces back to task outputs; the scope is the one asked for" \
            + covered
    problems = [f"the scope differs from the question: {'; '.join(gaps)}"] if gaps else []
    if unverified:
        problems.append("numbers not found in the task outputs: " + ", ".join(unverified[:10]))
    if bad:
        problems.append("citations that do not point at a retrieved chunk: " + ", ".join(bad[:10]))
    note = ("\n\n> **Unverified** — the reflector found " + "; ".join(problems)
            + ". Treat those parts with care.")
    qualified = final.evolve(
        answer=final.answer + note, partial=True, risk_of_error="high",
        missing_inputs=final.missing_inputs + [f"reflector: {p}" for p in problems])
    return qualified, "qualify: " + "; ".join(problems)


def run(state: AssessmentState, services: Services) -> StateUpdate:
    missing = missing_form(state, services.catalog.ontology)  # once per check: it plans the frame's SQL, which is not free
    plan = replan(state, missing)
    if plan is not None:  # the draft is not the answer: the tasks run again and the composer writes a new one
        rerun = ", ".join(f"{t.id} {t.owner}" for t in plan.tasks if t.status == "pending")
        note = (f"{REPLAN}the answer lacks {missing}; {rerun} run again in the question's form "
                f"(iteration {plan.iteration} of {MAX_PLAN_ITERATIONS})")
        return {"plan": plan, "final": state.final.evolve(missing_inputs=[*state.final.missing_inputs, note])}
    final, _ = reflect(state, missing)
    return {"final": final}


def summarize(update: StateUpdate) -> str:
    final: Final = update["final"]
    if "plan" in update:
        return next(m for m in final.missing_inputs if m.startswith(REPLAN)).removeprefix("reflector ")
    problems = [m.removeprefix("reflector: ") for m in final.missing_inputs if m.startswith("reflector: ")]
    return ("qualify: " + "; ".join(problems)) if problems else "finalize: numbers and citations trace back to the data"
