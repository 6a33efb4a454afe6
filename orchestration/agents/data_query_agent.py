"""Data Query Agent (DESIGN §6.2): picks one allowlisted tool, binds its parameters from entities,
calls it, and writes the canonical ``assessment_context``. Contract: contracts/agents/data_query_agent.yaml.

Selection is deterministic and ordered. An extension's query tool comes first when the condition its contract names
(``selected_when``) holds; then, from the facets the Intent Classifier read off the request: open/persistent issues
-> issue tracking; change, trend or delta -> comparison; otherwise analysis, whose ``query_type`` follows the facets
(exceptions, per-asset breakdowns, technology breakdowns, severity/product filters, else summary). Questions the tools do not cover go to the guarded SQL path,
itself a registered tool; the inventory rows of named devices or sites come from ``inventory_tool``.
Every read is a tool call in ``mcp.tool_calls``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from assessment_engine.query import OTHERS, DataQuery
from assessment_engine.semantic_model import SemanticModel
from assessment_engine.warehouse.query_compiler import compile_query
from assessment_engine.warehouse.versions import version_stamp
from foundation.database import DatabaseUnavailable
from foundation.vocabulary.scope import AnswerScope
from foundation.vocabulary.text import plural
from orchestration.catalog import Catalog
from orchestration.contracts import ContractSet
from orchestration.enforcement import TaskResult
from orchestration.interpretation.query_answer import PCI_SAID
from orchestration.interpretation.scope_statement import covered_scope
from orchestration.interpretation.template_shapes import SCOPE_KEYS, same_shape
from orchestration.memory.store import MemoryStore, MemoryUnavailable
from orchestration.nlu.facets import condition_holds
from orchestration.nlu.query_edits import is_edit
from orchestration.nlu.query_reader import KEPT_BY_NO_TOOL, time_named
from orchestration.outputs import (
    AssessmentContext,
    ContextAssets,
    InventoryRow,
    Provenance,
    TaskOutputs,
    ToolNote,
    ToolSelection,
)
from orchestration.services import Services
from orchestration.state import AssessmentState, Intent, Task, ToolCall, utc_now
from orchestration.tools.question_plan import SQL_SKILLS, condition_of, holds, sql_plan_for
from orchestration.tools.registry import ToolOutcome
from orchestration.tools.results import InventoryResult, SqlPathResult
from orchestration.tools.scope import DEVICE_TYPES, scope_for, unknown_device_types
from orchestration.tools.sql_plan import SqlPlan

SQL_TOOL_NAME = "sql_path"
TOOL_MEMORY_SECONDS = 300
INVENTORY_CAP = 50


@dataclass(frozen=True)
class ToolChoice:
    tool: str
    params: dict[str, Any]
    reason: str
    bindings: dict[str, str] = field(default_factory=dict)


def select_tool(intent: Intent) -> ToolChoice:
    """Which tool and which parameters, from the request's facets and the extracted entities."""
    scope, bindings = scope_for(intent)
    facets = intent.facets
    # the frame reads "crits" and "findings are critical" too; the tools take one severity
    severities = intent.frame.filters.severity
    severity = intent.entity("severity") or (severities[0] if len(severities) == 1 else None)
    named_runs = [e.value for e in intent.entities if e.type == "assessment_id" and e.source != "unresolved"]
    assessment_id = named_runs[0] if named_runs else None
    timeframe = intent.entity("timeframe")
    skill = intent.domain_details.skill or ""
    if severity:
        bindings["severity"] = "entity severity"

    if facets.tracking:
        tracking = "persistent" if facets.tracking == "unresolved" and timeframe == "since_prior_assessment" \
            else facets.tracking
        params: dict[str, Any] = {
            "tracking_scope": tracking,
            "assessment_scope": "since_prior" if timeframe in ("since_prior_assessment", "since_last_assessment") else "latest",
            "priority": severity,
            "scope": scope,
        }
        if intent.frame.time.last_n and tracking == "persistent":  # "open for three assessments or more"
            params["lookback_assessments"] = intent.frame.time.last_n
            bindings["lookback_assessments"] = "frame time last_n"
        if timeframe:
            bindings["assessment_scope"] = "entity timeframe"
        return ToolChoice("issue_tracking_tool", params, "open/unresolved/persistent issues", bindings)

    months = intent.frame.time.months
    asked = intent.asked_query
    timed = bool(months or intent.frame.time.relative or intent.frame.time.runs)
    if not named_runs and asked is not None and len(asked.runs) == 1 and timed:
        # "failed checks at HQ last month", "… in october": the run the question's query reads, whichever tool answers
        named_runs = list(asked.runs)
        assessment_id = asked.runs[0]
        bindings["assessment_id"] = "query runs"
    elif not named_runs and len(months) == 1:
        # "summary of the august assessment": that month's run (a month with none is said by the tool, with the runs)
        assessment_id = months[0]
        bindings["assessment_id"] = "frame time months"
    if not named_runs and asked is not None and len(asked.runs) == 2:
        # "how many failed checks in september vs november": the two runs the question's query reads, newest current
        named_runs = [asked.runs[1], asked.runs[0]]
        assessment_id = named_runs[0]
        bindings["current_assessment_id"] = bindings["previous_assessment_id"] = "query runs"
    elif not named_runs and len(months) >= 2 and intent.frame.ask in ("compare", "trend", "summary", "yes_no"):
        named_runs = sorted(months, reverse=True)[:2]  # "October vs November": each month's run, newest current
        assessment_id = named_runs[0]
        bindings["current_assessment_id"] = bindings["previous_assessment_id"] = "frame time months"
    # "is hq more compliant than last time?": a yes/no on a direction against an earlier run is the comparison's
    than_before = intent.frame.ask == "yes_no" and bool(intent.frame.direction) and \
        intent.frame.time.relative in ("previous", "last_month")
    if facets.change or timeframe == "since_last_assessment" or len(named_runs) > 1 or than_before or (
            intent.frame.ask in ("compare", "trend") and intent.frame.time.relative in ("previous", "last_month")):
        # "is RTR-BR05-1 better or worse than last month?": the previous run against the latest
        since = intent.frame.time.since if not named_runs and not intent.frame.time.last_n else None
        params = {
            "current_assessment_id": assessment_id or "latest",
            # two named runs are compared with each other (the tool orders them by date); "since october": the
            # October run against the latest
            "previous_assessment_id": named_runs[1] if len(named_runs) > 1 else since or "previous",
            "comparison_focus": facets.comparison_focus,
            "severity_filter": severity,
            "scope": scope,
        }
        if intent.frame.checks:  # the checks the question names are the ones compared
            params["rules"] = list(intent.frame.checks)
            bindings["rules"] = "frame checks"
        if assessment_id:
            bindings["current_assessment_id"] = "entity assessment_id"
        if len(named_runs) > 1:
            bindings["previous_assessment_id"] = "entity assessment_id (second)"
        elif since:
            bindings["previous_assessment_id"] = "frame time since"
        return ToolChoice("assessment_comparison_tool", params, "change/trend/delta between assessments", bindings)

    if facets.exceptions:
        query_type, reason = "exceptions", "approved exceptions"
    elif facets.technology_breakdown and intent.frame.subject == "rules":  # "which areas have the most deviations"
        query_type, reason = "technology", "technology/category breakdown (the question ranks areas)"
    elif facets.asset_breakdown:
        query_type, reason = "assets", "per-asset / product family / OS / criticality breakdown"
    elif facets.technology_breakdown:
        query_type, reason = "technology", "technology/category breakdown"
    elif severity or intent.entity("device_type") or scope.get("device"):
        query_type, reason = "filtering", "severity / product / device filter"
    else:
        query_type, reason = "summary", "summary and statistics"
    focus_area = ",".join(facets.focus_areas) or None
    if focus_area is None and skill.startswith("sec_"):
        focus_area = "security"
    if focus_area:
        bindings["focus_area"] = "prompt keyword" if focus_area != "security" else "security skill"
    params = {
        "query_type": query_type,
        "assessment_id": assessment_id or "latest",
        "severity_filter": severity,
        # the scope already carries every device type named (OR'ed); a product filter of the first would cut the rest
        "product_filter": None if scope.get("device_type") else intent.entity("device_type"),
        "focus_area": focus_area,
        "scope": scope,
    }
    if assessment_id:
        bindings.setdefault("assessment_id", "entity assessment_id")
    return ToolChoice("assessment_analysis_tool", params, reason, bindings)


def contract_choice(intent: Intent, contracts: ContractSet, scope: dict[str, Any], viewer: str,
                    collection: str) -> ToolChoice | None:
    """An extension's query tool whose own condition holds (``selected_when`` in its contract), with the parameters its
    schema declares bound from the request: the built-in choice below knows nothing of it."""
    conditions = contracts.conditions()
    for tool in contracts.selectable_tools():
        when = str(tool.selected_when)
        if not condition_holds(when, conditions[when], intent):
            continue
        named = [e.value for e in intent.entities if e.type == "assessment_id" and e.source != "unresolved"]
        offered = {"scope": (scope, "entities"), "assessment_id": (named[0] if named else "latest", "entity assessment_id"
                                                                   if named else "the latest run"),
                   "viewer": (viewer, "the user asking"), "collection": (collection, "the conversation's collection")}
        declared = tool.parameters.get("properties", {})
        return ToolChoice(tool.name, {k: v for k, (v, _) in offered.items() if k in declared},
                          f"{when}: {conditions[when].description.strip()}",
                          {k: why for k, (_, why) in offered.items() if k in declared})
    return None


def _context(choice: ToolChoice, report: dict[str, Any] | None, errors: list[ToolNote], intent: Intent,
             source_path: str, inventory: list[InventoryRow], covered: AnswerScope | None) -> AssessmentContext:
    return AssessmentContext(
        context_id=f"ctx-{uuid.uuid4().hex[:12]}",
        source_path="sql" if source_path == "sql" else "mcp",
        timestamp_utc=utc_now(),
        scope=intent.domain_details.scope,
        assets=ContextAssets(inventory=inventory),
        report_data={choice.tool: report} if report is not None else {},
        tool_selection=ToolSelection(tool=choice.tool, reason=choice.reason, parameter_bindings=choice.bindings),
        covered_scope=covered,
        provenance=[Provenance(tool=choice.tool, input=choice.params)],
        errors=errors,
    )


def _inventory(scope: dict[str, Any], task: Task, services: Services, collection: str,
               viewer: str | None) -> tuple[list[InventoryRow], list[ToolCall]]:
    """Inventory rows of the named devices or sites (capped), so domain agents see criticality and roles."""
    if not (scope.get("device") or scope.get("devices") or scope.get("sites")):
        return [], []
    wanted = {k: scope[k] for k in ("device", "devices", "sites") if scope.get(k)}
    outcome = services.tools.call("inventory_tool", {"scope": wanted, "limit": INVENTORY_CAP, "collection": collection,
                                                     "viewer": viewer}, task_id=task.id)
    rows = outcome.typed.assets if isinstance(outcome.typed, InventoryResult) else []  # validated by the registry
    return rows, [outcome.call]


def _memory_key(choice: ToolChoice, services: Services) -> str | None:
    """Agent-memory key of a tool call: same tool, same parameters, same warehouse file (an upload or a
    rebuild changes the file, so nothing stale is served). Remote (Trino) results are not cached."""
    settings = services.settings
    if settings.warehouse_backend != "duckdb" or not settings.warehouse_path.exists():
        return None
    stamp = version_stamp(settings.warehouse_path)
    body = json.dumps([choice.tool, choice.params, str(settings.warehouse_path), stamp], sort_keys=True, default=str)
    return "tool:" + hashlib.sha256(body.encode()).hexdigest()


def _call_with_memory(choice: ToolChoice, task: Task, services: Services) -> ToolOutcome:
    """Follow-ups often repeat the previous call ("explain the second finding"): serve it from agent memory."""
    key = _memory_key(choice, services)
    store: MemoryStore | None = None
    hit = None
    if key:
        try:
            store = services.memory()
            hit = store.recall(key)
        except (MemoryUnavailable, DatabaseUnavailable):  # agent memory is a cache: without it the tool runs
            store = None
    if hit is not None:
        call = ToolCall(tool_name=choice.tool, input=hit["input"], status=hit["status"], row_count=hit["row_count"],
                        task_id=task.id, cached=True)
        return ToolOutcome(call, hit["result"])
    outcome = services.tools.call(choice.tool, choice.params, task_id=task.id)
    if store is not None and key and outcome.call.status != "error":
        with contextlib.suppress(DatabaseUnavailable):
            store.remember(key, {"input": outcome.call.input, "status": outcome.call.status,
                                 "row_count": outcome.call.row_count, "result": outcome.result}, TOOL_MEMORY_SECONDS)
    return outcome


def _choose(intent: Intent, scope: dict[str, Any], viewer: str, collection: str, catalog: Catalog,
            form_required: bool = False) -> tuple[ToolChoice, str]:
    """The tool call for this request, and its source path (the SQL path serves bespoke data questions;
    expert-insight skills always go through the assessment tools). ``viewer``: the asking user, whose own
    uploads are the only ones a named assessment id may reach; ``form_required``: the Reflector's replan."""
    extension = contract_choice(intent, catalog.contracts, scope, viewer, collection)
    if extension is not None:
        return extension, "mcp"
    plan = sql_plan_for(intent, scope, collection, catalog.ontology, form_required) \
        if intent.domain_details.skill in SQL_SKILLS else None
    if intent.query is not None and (plan is None or not same_shape(plan, intent.query, catalog.semantic_model)
                                     or not holds(plan, intent.query)
                                     or _narrower(intent.query, scope, intent.frame.checks or intent.frame.targets.rule)
                                     or is_edit(intent) or bool(intent.query_notes) or _since_one_month(intent)):
        # (what the words asked that the query cannot hold is said with the query's answer, not a template's)
        plan = query_plan(intent.query, catalog.semantic_model, collection)
    elif plan is not None and intent.asked_query is not None and len(intent.asked_query.runs) == 1 \
            and plan.assessment_id == "latest" and _timed(intent):
        # a template reads the run asked ("the stores with the most critical findings in september", "devices
        # failing SNMP-RW in august"), not the latest (a question that names no time keeps "latest": the warehouse
        # keeps the latest run's rows at hand)
        plan = replace(plan, assessment_id=intent.asked_query.runs[0])
    if plan is None:
        choice = select_tool(intent)
        params = {**choice.params, "viewer": viewer, "collection": collection}
        return ToolChoice(choice.tool, params, choice.reason, choice.bindings), "mcp"
    params = {"template": plan.template, "sql": plan.sql, "params": plan.params, "description": plan.description,
              "assessment_id": plan.assessment_id, "viewer": viewer, "collection": collection}
    if plan.scope_sql:
        params.update(scope_sql=plan.scope_sql, scope_params=plan.scope_params)
    return ToolChoice(SQL_TOOL_NAME, params, f"bespoke question: {plan.template}"), "sql"


# dimensions the scope line says elsewhere (the checks and severities counted) or not at all
SAID_APART = frozenset({"rule", "topic", "severity"})


def _since_one_month(intent: Intent) -> bool:
    """A change from the one month named to the latest run ("fewer failed checks than in september"): the templates
    read that month alone."""
    query, time = intent.query, intent.frame.time
    return query is not None and query.output in ("series", "change") and len(query.runs) == 2 and \
        len(time.months) == 1 and not (time.since or time.last_n)


def _timed(intent: Intent) -> bool:
    """Whether the question (or the edit it made of the last one) names a run or month."""
    return time_named(intent) or is_edit(intent)


def _as_queried(covered: AnswerScope, query: DataQuery, model: SemanticModel) -> AnswerScope:
    """The scope a query covered: its run(s), the devices it kept, its excluded values said as such ("not site
    DataCenter-1"), not as the scope; a condition on a dimension the scope has no key for ("region us-west", "tier
    tier1") by the dimension's noun."""
    # (a split not grouped by qualifies the side: "store, with PCI scope true, vs everything else")
    joined = [c for c in query.conditions if c.split and c.dimension not in query.group_by]
    qualified = "".join(f", with {model.dimensions[c.dimension].noun} {' or '.join(c.values)}," for c in joined)
    for c in [c for c in query.conditions if c.split]:  # "the stores vs the rest": both sides covered, the split said
        field = {"site_type": "site_types"}.get(SCOPE_KEYS.get(c.dimension, ""), SCOPE_KEYS.get(c.dimension))
        covered = covered.model_copy(update={**({field: []} if field and hasattr(covered, field) else {})})
        if c in joined:
            continue
        noun = model.dimensions[c.dimension].noun
        covered = covered.model_copy(update={
            "more": {**covered.more, noun: [f"{' or '.join(c.values)}{qualified} vs {OTHERS}"]}})
    query = query.model_copy(update={"conditions": [c for c in query.conditions if not c.split]})
    negated = {SCOPE_KEYS[c.dimension]: c.values for c in query.conditions if c.negated and c.dimension in SCOPE_KEYS}
    for c in query.conditions:
        if c.dimension not in SCOPE_KEYS and c.dimension not in SAID_APART and c.dimension in model.dimensions:
            noun = model.dimensions[c.dimension].noun
            if c.negated:
                negated[noun] = c.values
            else:
                said = [PCI_SAID.get(v.lower(), v) for v in c.values] if c.dimension == "pci_scope" else c.values
                covered = covered.model_copy(update={"more": {**covered.more, noun: said}})
    for c in query.conditions:  # the devices of the last answer, the sites of its rows ("what are they")
        field = {"site_type": "site_types"}.get(SCOPE_KEYS.get(c.dimension, ""), SCOPE_KEYS.get(c.dimension))
        # (or more of them: "compare with Store-41" after Store-40 covers both)
        if field is not None and not c.negated and set(getattr(covered, field) or []) < set(c.values):
            covered = covered.model_copy(update={field: c.values})
    rules = query.condition("rule")  # the checks it counted are the query's, not the words' guesses
    covered = covered.model_copy(update={"focus": ", ".join(rules.values) if rules and not rules.negated else None})
    severities = query.condition("severity")
    if severities is not None and not severities.negated and not covered.severity:  # "only critical", an edit
        covered = covered.model_copy(update={"severity": " or ".join(severities.values)})
    if severities is None and covered.severity and not {"critical_findings", "high_findings"} & set(query.measures):
        # a severity the words named that does not apply to what is counted ("failed logins for critical checks"):
        # said beside the answer, not as its scope
        covered = covered.model_copy(update={"severity": None})
    if query.runs and not covered.assessment_id:  # one run's figures: the run they are of
        covered = covered.model_copy(update={"assessment_id": query.runs[-1],
                                             "previous_assessment_id": query.runs[0] if len(query.runs) > 1 else None})
    elif query.measures and model.facts[model.measures[query.measures[0]].fact].at and not covered.assessment_id:
        # logged events of the months counted (or of every month logged), not the inventory
        covered = covered.model_copy(update={"logged_months": list(query.months) or ["every month"]})
    if not negated:
        return covered
    cleared: dict[str, Any] = {k: [] for k in negated if k != "devices"}
    if "devices" in negated:
        cleared["devices"] = []
    if "site_type" in negated:
        cleared["site_types"] = cleared.pop("site_type")
    return covered.model_copy(update={**cleared, "excluded": negated})


def _narrower(query: DataQuery, scope: dict[str, Any], rules: list[str]) -> bool:
    """Whether the query keeps only values the templates' scope and checks do not name (the devices of the last
    answer; "snmp rw": one check of the topic; a region or tier, which no template's scope has)."""
    checks = query.condition("rule")
    if checks is not None and set(checks.values) != set(rules):
        return True
    for condition in query.conditions:
        key = SCOPE_KEYS.get(condition.dimension)
        if key is None and condition.dimension in KEPT_BY_NO_TOOL:
            return True
        if key is None or condition.negated:
            continue
        named = scope.get(key) if key != "devices" else scope.get("devices") or scope.get("device")
        if {str(v).lower() for v in ([named] if isinstance(named, str) else named or [])} != \
                {v.lower() for v in condition.values}:
            return True
    return False


def query_plan(query: DataQuery, model: SemanticModel, collection: str) -> SqlPlan:
    """The typed query's one statement (``assessment_engine/warehouse/query_compiler.py``); a question about a month
    with no run reads the runs there are, so that the answer can name them."""
    fact = model.facts[model.measures[query.measures[0]].fact] if query.measures else None
    if fact is not None and fact.run and not query.runs:
        return SqlPlan("query", "SELECT assessment_id, started_at FROM assessments WHERE collection = ? "
                                "ORDER BY started_at", [collection], "the runs on record")
    compiled = compile_query(query, model, collection)
    return SqlPlan("query", compiled.sql, compiled.params, query.describe())


def run(state: AssessmentState, task: Task, services: Services) -> TaskResult:
    intent = state.intent
    scope, _ = scope_for(intent)
    choice, source_path = _choose(intent, scope, state.input.user_id, state.conversation.collection,
                                  services.catalog, task.directive == "question_form")
    outcome = services.tools.call(choice.tool, choice.params, task_id=task.id) if source_path == "sql" \
        else _call_with_memory(choice, task, services)
    call = outcome.call
    errors = [ToolNote(tool=choice.tool, message=call.error)] if call.error else []
    # an empty list that says out of how many devices is an answer ("none of the 4 fails it"), not a gap
    sized = isinstance(outcome.typed, SqlPathResult) and (outcome.typed.scope is not None
                                                          or outcome.typed.template == "query")  # "None — no …"
    if call.status == "empty" and not sized:
        errors.append(ToolNote(tool=choice.tool, message="no rows matched this scope"))
    known = ", ".join(plural(t.replace("_", " ")) for t in DEVICE_TYPES)
    errors += [ToolNote(tool=choice.tool, message=f"the inventory has no {kind.replace('_', ' ')}s (its device types: "
                        f"{known}); '{kind}' was matched against product names instead")
               for kind in unknown_device_types(intent)]
    if source_path == "sql":  # what the statement counted beside where: its severities and checks
        condition = condition_of(intent)
        severities = condition.severities
        if choice.params.get("template") == "query" and intent.query is not None:  # what ran, not the words carried
            held = intent.query.condition("severity")
            severities = tuple(held.values) if held is not None and not held.negated else ()
        counted = {**scope, "severity_filter": " or ".join(severities) or None,
                   "focus_area": ", ".join(condition.rules) or None}
        covered = covered_scope(choice.tool, counted, outcome.result)
        if covered is not None and choice.params.get("template") == "query" and intent.query is not None:
            covered = _as_queried(covered, intent.query, services.catalog.semantic_model)
    else:
        covered = covered_scope(choice.tool, choice.params, outcome.result)
    inventory, inventory_calls = _inventory(scope, task, services, state.conversation.collection, state.input.user_id)
    context = _context(choice, outcome.result, errors, intent, source_path, inventory, covered)
    if source_path == "sql":
        summary = f"SQL path ({choice.params['template']}) → {call.status}, {call.row_count} rows"
    else:
        summary = f"{choice.tool}({', '.join(f'{k}={v}' for k, v in choice.params.items() if v)}) → {call.status}"
    calls = (call, *inventory_calls)
    statements = sum(len(c.queries) for c in calls)
    summary += f"; {statements} SQL statement{'s' if statements != 1 else ''}" if statements else ""
    if task.directive == "question_form":
        summary = "rerun in the question's form (the Reflector's replan): " + summary
    if call.status == "error":
        return TaskResult("failed", TaskOutputs(assessment_context=context), error=call.error, tool_calls=calls,
                          summary=summary)
    return TaskResult("completed", TaskOutputs(assessment_context=context), tool_calls=calls, summary=summary)
