"""Which SQL plan answers a question: the facet templates of inventory questions, the frame's form (a list, a
ranking, a series, groups side by side, exceptions, one device's verdicts) or the topic listing.

Shared by the Data Query Agent, which runs the plan, and the Reflector, which asks whether a second run in the
question's form would answer what the first one did not (DESIGN §4a: the bounded replan).
"""

from __future__ import annotations

from typing import Any

from assessment_engine.ontology import Ontology
from assessment_engine.query import DataQuery
from orchestration.state import Intent, QuestionFrame
from orchestration.tools.frame_sql import Condition, compared_key, last_assessed, plan_frame
from orchestration.tools.sql_plan import SqlPlan, plan_sql

SQL_SKILLS = ("cbp_assessment", "sec_assessment")  # the skills whose data questions the SQL path may answer
FRAME_CONFIDENCE = 0.6  # below it the reader is unsure of the ask: the assessment tools' summary answers instead …
FRAME_MARGIN = 0.4  # … unless the ask leads every other by this much (a list at 0.6 with a summary at 0.12 is a list)


def condition_of(intent: Intent) -> Condition:
    """Which failed checks the question counts: its severities and its checks (read by the classifier)."""
    frame = intent.frame
    severities = tuple(frame.filters.severity or [e.value for e in intent.entities if e.type == "severity"])
    return Condition(severities, tuple(frame.checks), intent.facets.failing)


def structural(frame: QuestionFrame) -> bool:
    """A date bound on exceptions, the sites that got worse or better, one device's verdict on the rules named,
    figures over several runs, whether it got worse or better since a month: a form whatever the reader's doubt."""
    return bool((frame.subject == "exceptions" and (frame.time.before or frame.time.after)) or (
        frame.subject == "sites" and frame.direction and not frame.targets.device) or (
        frame.ask == "yes_no" and frame.direction and frame.time.since) or (
        frame.ask in ("exception", "yes_no", "fix", "explain") and frame.targets.device and frame.checks) or (
        frame.time.several_runs and frame.subject in ("findings", "runs")
        and frame.ask in ("trend", "count", "summary", "list")))


def sure_of_form(frame: QuestionFrame) -> bool:
    """The reader is sure enough of the ask to answer in its form on the first run."""
    return frame.confidence >= FRAME_CONFIDENCE or frame.margin >= FRAME_MARGIN or structural(frame)


def frame_plan(intent: Intent, scope: dict[str, Any], collection: str, sure: bool) -> SqlPlan | None:
    """The plan in the frame's form when the question is the frame's (not a change or tracking question, except
    a trend), else None. ``sure``: answer in the form even though the reader doubts the ask (the replan)."""
    facets, frame = intent.facets, intent.frame
    timed = frame.time.months or frame.time.runs or frame.time.relative
    # "prod vs staging" with no time named compares two groups, not two runs: the change words do not make it one
    sides = not timed and (frame.ask == "compare" or (frame.ask == "count" and compared_key(scope) is not None))
    # "which checks got worse since october": the change per check is a frame plan, not the comparison tool's totals
    per_check = frame.subject in ("rules", "sites") and frame.direction is not None
    # "what changed since october", "new issues since the august run": that run against the latest, check by check —
    # the comparison's new and fixed checks, not the series of runs between them
    between = bool(facets.changes_asked and frame.time.since and not frame.time.last_n and not per_check)
    if sure and not facets.tracking and (not facets.change or (frame.ask == "trend" and not between) or sides
                                         or per_check):
        return plan_frame(frame, scope, condition_of(intent), collection, group_by=facets.group_by,
                          by_rate=facets.rate)
    return None


def holds(plan: SqlPlan, query: DataQuery) -> bool:
    """Whether a template's statement keeps every value the query filters on (by its text and parameters): one that
    does not ("critical SLIC findings at the datacenters" → the matches of every severity) answers another question."""
    if query.direction and plan.template not in ("site_changes", "rule_changes"):
        return False  # "which devices there have fewer failures than last month": a change, not one run's rows
    held = f"{plan.sql} {plan.params}".lower()
    # (a whole train, "17.9.x", is held as its prefix: LIKE '17.9.%')
    return all(str(v).lower().removesuffix(".x") in held for c in query.conditions if not c.in_measure
               for v in c.values)


def sql_plan_for(intent: Intent, scope: dict[str, Any], collection: str, ontology: Ontology,
                 form_required: bool = False) -> SqlPlan | None:
    """The SQL path's plan: the facet templates of inventory questions, else the frame's form, else the topic
    listing. Change and tracking questions stay with their tools, except a trend over a time range (the series).
    ``form_required``: the Reflector found the first answer not in the question's form."""
    facets = intent.facets
    frame = intent.frame
    if facets.when_assessed and not frame.time.months and not frame.time.runs:
        return last_assessed(scope, collection)  # a date is asked, not the run's findings
    # "how many devices run software past end of maintenance" counts a signature's matches, "how many store firewalls
    # still have telnet open" a check's failures: neither is a count of the inventory
    if frame.targets.signature or frame.checks or frame.targets.exception:
        # ("how many devices does EXC-2026-014 cover": the exception's devices, not the inventory)
        facets = facets.evolve(inventory_count=False, listing_column=None)
    elif facets.inventory_count or facets.listing_column:
        return plan_sql(facets, scope, ontology, collection)
    plan = frame_plan(intent.evolve(facets=facets), scope, collection, form_required or sure_of_form(frame))
    return plan if plan is not None else plan_sql(facets, scope, ontology, collection)
