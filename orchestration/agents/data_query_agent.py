"""Data Query Agent (DESIGN §6.2): picks one allowlisted tool, binds its parameters from entities,
calls it, and writes the canonical ``assessment_context``. Contract: contracts/agents/data_query_agent.yaml.

Selection is deterministic and ordered: open/persistent issues -> issue tracking; change, trend or
delta -> comparison; otherwise analysis, whose ``query_type`` follows the prompt (exceptions,
per-asset breakdowns, technology breakdowns, severity/product filters, else summary).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from orchestration.config import get_settings
from orchestration.enforcement import TaskResult
from orchestration.interpretation.scope_statement import covered_scope
from orchestration.memory.store import MemoryStore
from orchestration.state import AnswerScope, AssessmentState, Intent, Task, ToolCall, utc_now
from orchestration.tools.registry import ToolOutcome, call_tool
from orchestration.tools.scope import scope_for
from orchestration.warehouse.sql_guard import ROW_CAP, UnsafeSQL
from orchestration.warehouse.sql_path import SqlPlan, plan_sql, run_sql
from orchestration.warehouse.store import WarehouseUnavailable, get_warehouse

_I = re.IGNORECASE
TRACKING = re.compile(
    r"\bremain(?:s|ed|ing)? open\b|\bstill (?:open|failing|present|unresolved|there)\b|\bunresolved\b|\bpersist\w*|"
    r"\brecurring\b|\bkeeps? (?:failing|coming back)\b|\bopen (?:issues|findings|deviations|items)\b|"
    r"\bnot (?:yet |been )?(?:fixed|resolved|remediated)\b|\boutstanding\b",
    _I,
)
CHANGE = re.compile(
    r"\bchang(?:e|ed|es)\b.*\bsince\b|\bwhat(?:'s| has| have)? changed\b|\bsince (?:my|the|our) (?:last|previous|prior)\b|"
    r"\bcompar\w*|\bversus\b|\bvs\.?\s|\btrend\w*|\bdelta\b|\bdrift\b|\bimprov(?:ed|ement)\b|\bgot (?:worse|better)\b|"
    r"\bworsen\w*|\bregress\w*|\bnew (?:issues|findings|deviations)\b|\bresolved\b|\bfixed since\b",
    _I,
)
EXCEPTIONS = re.compile(r"\bexceptions?\b|\bwaivers?\b|\bexempt\w*", _I)
ASSET_BREAKDOWN = re.compile(
    r"\bproduct famil\w*|\bplatforms?\b|\b(?:by|per) (?:device|asset|site|os|operating system|version|model|criticality|tier)\b|"
    r"\bcriticality\b|\b(?:which|worst|top \d+) (?:devices|assets|routers|switches|firewalls|hosts)\b|\bmost (?:affected|deviations)\b",
    _I,
)
TECH_BREAKDOWN = re.compile(r"\btechnolog\w*|\b(?:by|per) (?:category|area|feature|rule)\b|\bmost common\b|\bcategor\w*", _I)
FOCUS_AREAS = ("aaa", "snmp", "ntp", "ssh", "logging", "bgp", "ospf", "eigrp", "vty", "telnet", "http", "banner",
               "spanning", "interfaces", "services", "management")
SQL_TOOL_NAME = "sql_path"
TOOL_MEMORY_SECONDS = 300
SQL_SKILLS = ("cbp_assessment", "sec_assessment")
INVENTORY_CAP = 50


@dataclass(frozen=True)
class ToolChoice:
    tool: str
    params: dict[str, Any]
    reason: str
    bindings: dict[str, str] = field(default_factory=dict)


def select_tool(prompt: str, intent: Intent) -> ToolChoice:
    """Which tool and which parameters, from the prompt's wording and the extracted entities."""
    scope, bindings = scope_for(intent)
    severity = intent.entity("severity")
    named_runs = [e.value for e in intent.entities if e.type == "assessment_id" and e.source != "unresolved"]
    assessment_id = named_runs[0] if named_runs else None
    timeframe = intent.entity("timeframe")
    skill = intent.domain_details.skill or ""
    if severity:
        bindings["severity"] = "entity severity"

    if TRACKING.search(prompt):
        tracking = "recurring" if re.search(r"\brecurring\b", prompt, _I) else (
            "persistent" if (timeframe == "since_prior_assessment" or re.search(r"persist|remain|still", prompt, _I))
            else "unresolved")
        params: dict[str, Any] = {
            "tracking_scope": tracking,
            "assessment_scope": "since_prior" if timeframe in ("since_prior_assessment", "since_last_assessment") else "latest",
            "priority": severity,
            "scope": scope,
        }
        if timeframe:
            bindings["assessment_scope"] = "entity timeframe"
        return ToolChoice("issue_tracking_tool", params, "open/unresolved/persistent issues", bindings)

    if CHANGE.search(prompt) or timeframe == "since_last_assessment":
        focus = "assets" if re.search(r"\b(assets?|devices?|hosts?|routers?|switches|firewalls?)\b", prompt, _I) else (
            "changes" if re.search(r"\bnew\b|\bresolved\b|\bfixed\b|\bchang", prompt, _I) else "overall")
        params = {
            "current_assessment_id": assessment_id or "latest",
            # two named runs are compared with each other (the tool orders them by date)
            "previous_assessment_id": named_runs[1] if len(named_runs) > 1 else "previous",
            "comparison_focus": focus,
            "severity_filter": severity,
            "scope": scope,
        }
        if assessment_id:
            bindings["current_assessment_id"] = "entity assessment_id"
        if len(named_runs) > 1:
            bindings["previous_assessment_id"] = "entity assessment_id (second)"
        return ToolChoice("assessment_comparison_tool", params, "change/trend/delta between assessments", bindings)

    if EXCEPTIONS.search(prompt):
        query_type, reason = "exceptions", "approved exceptions"
    elif ASSET_BREAKDOWN.search(prompt):
        query_type, reason = "assets", "per-asset / product family / OS / criticality breakdown"
    elif TECH_BREAKDOWN.search(prompt):
        query_type, reason = "technology", "technology/category breakdown"
    elif severity or intent.entity("device_type") or scope.get("device"):
        query_type, reason = "filtering", "severity / product / device filter"
    else:
        query_type, reason = "summary", "summary and statistics"
    focus_area = ",".join(f for f in FOCUS_AREAS if re.search(rf"\b{f}", prompt, _I)) or None
    if focus_area is None and skill.startswith("sec_"):
        focus_area = "security"
    if focus_area:
        bindings["focus_area"] = "prompt keyword" if focus_area != "security" else "security skill"
    params = {
        "query_type": query_type,
        "assessment_id": assessment_id or "latest",
        "severity_filter": severity,
        "product_filter": intent.entity("device_type"),
        "focus_area": focus_area,
        "scope": scope,
    }
    if assessment_id:
        bindings["assessment_id"] = "entity assessment_id"
    return ToolChoice("assessment_analysis_tool", params, reason, bindings)


def _context(choice: ToolChoice, report: dict[str, Any] | None, errors: list[dict[str, str]],
             intent: Intent, source_path: str = "mcp", inventory: list[dict[str, Any]] | None = None,
             covered: AnswerScope | None = None) -> dict[str, Any]:
    scope = intent.domain_details.scope
    return {
        "context_id": f"ctx-{uuid.uuid4().hex[:12]}",
        "source_path": source_path,
        "timestamp_utc": utc_now(),
        "scope": {"targets": scope.targets, "site": scope.site, "time_range": scope.time_range},
        "assets": {"inventory": inventory or [], "topology": [], "configs": [], "telemetry": [], "events": []},
        "report_data": {choice.tool: report} if report is not None else {},
        "tool_selection": {"tool": choice.tool, "reason": choice.reason, "parameter_bindings": choice.bindings},
        "covered_scope": covered.model_dump() if covered else None,
        "provenance": [{"tool": choice.tool, "input": choice.params}],
        "errors": errors,
    }


def _inventory(scope: dict[str, Any]) -> list[dict[str, Any]]:
    """Inventory rows of the named devices or sites (capped), so domain agents see criticality and roles."""
    devices = [scope["device"]] if scope.get("device") else list(scope.get("devices") or [])
    column, names = ("asset_id", devices) if devices else ("site", list(scope.get("sites") or []))
    if not names:
        return []
    try:
        return get_warehouse().query(
            f"SELECT asset_id, site, environment, device_type, role, product_family, platform, os_version, criticality "
            f"FROM assets WHERE {column} IN ({', '.join('?' for _ in names)}) ORDER BY asset_id LIMIT {INVENTORY_CAP}",
            names).dicts()
    except WarehouseUnavailable:
        return []


def _memory_key(choice: ToolChoice) -> str | None:
    """Agent-memory key of a tool call: same tool, same parameters, same warehouse file (an upload or a
    rebuild changes the file, so nothing stale is served). Remote (Trino) results are not cached."""
    settings = get_settings()
    if settings.warehouse_backend != "duckdb" or not settings.warehouse_path.exists():
        return None
    stamp = settings.warehouse_path.stat().st_mtime_ns
    body = json.dumps([choice.tool, choice.params, str(settings.warehouse_path), stamp], sort_keys=True, default=str)
    return "tool:" + hashlib.sha256(body.encode()).hexdigest()


def _call_with_memory(choice: ToolChoice, task: Task) -> ToolOutcome:
    """Follow-ups often repeat the previous call ("explain the second finding"): serve it from agent memory."""
    store = MemoryStore()
    key = _memory_key(choice)
    hit = store.recall(key) if key else None
    if hit is not None:
        call = ToolCall(tool_name=choice.tool, input=hit["input"], status=hit["status"], row_count=hit["row_count"],
                        task_id=task.id, cached=True)
        return ToolOutcome(call, hit["result"])
    outcome = call_tool(choice.tool, choice.params, task_id=task.id)
    if key and outcome.call.status != "error":
        store.remember(key, {"input": outcome.call.input, "status": outcome.call.status,
                             "row_count": outcome.call.row_count, "result": outcome.result}, TOOL_MEMORY_SECONDS)
    return outcome


def _latest_assessment() -> str | None:
    try:
        rows = get_warehouse().query("SELECT assessment_id FROM assessments ORDER BY started_at DESC LIMIT 1").rows
    except WarehouseUnavailable:
        return None
    return rows[0][0] if rows else None


def _run_sql_path(plan: SqlPlan, task: Task) -> tuple[ToolCall, dict[str, Any] | None, str | None]:
    started = time.perf_counter()
    try:
        safe_sql, result = run_sql(get_warehouse(), plan.sql, plan.params)
    except (UnsafeSQL, WarehouseUnavailable) as exc:
        call = ToolCall(tool_name=SQL_TOOL_NAME, input={"template": plan.template, "sql": plan.sql, "params": plan.params},
                        status="error", duration_ms=round((time.perf_counter() - started) * 1000, 2), error=str(exc),
                        task_id=task.id)
        return call, None, str(exc)
    rows = result.dicts()
    call = ToolCall(tool_name=SQL_TOOL_NAME, input={"template": plan.template, "sql": safe_sql, "params": plan.params},
                    status="ok" if rows else "empty", row_count=len(rows),
                    duration_ms=round((time.perf_counter() - started) * 1000, 2), task_id=task.id)
    report = {"description": plan.description, "sql": safe_sql, "columns": result.columns, "rows": rows,
              "row_count": len(rows), "row_cap_reached": len(rows) >= ROW_CAP}
    return call, report, None


def run(state: AssessmentState, task: Task) -> TaskResult:
    prompt, intent = state.prompt, state.intent
    scope, _ = scope_for(intent)
    # the SQL path serves bespoke data questions; expert-insight skills always go through the tools
    latest = _latest_assessment() if intent.domain_details.skill in SQL_SKILLS else None
    sql_plan = plan_sql(prompt, scope, latest) if intent.domain_details.skill in SQL_SKILLS else None
    if sql_plan is not None:
        call, report, error = _run_sql_path(sql_plan, task)
        choice = ToolChoice(SQL_TOOL_NAME, call.input, f"bespoke question: {sql_plan.template}")
        errors = [{"tool": SQL_TOOL_NAME, "message": error}] if error else (
            [{"tool": SQL_TOOL_NAME, "message": "no rows matched this scope"}] if call.status == "empty" else [])
        covered = covered_scope(SQL_TOOL_NAME, scope, report, latest if latest in sql_plan.params else None)
        context = _context(choice, report, errors, intent, "sql", _inventory(scope), covered)
        summary = f"SQL path ({sql_plan.template}) → {call.status}, {call.row_count} rows"
        if error:
            return TaskResult("failed", {"assessment_context": context}, error=error, tool_calls=(call,), summary=summary)
        return TaskResult("completed", {"assessment_context": context}, tool_calls=(call,), summary=summary)
    choice = select_tool(prompt, intent)
    outcome = _call_with_memory(choice, task)
    errors = [{"tool": choice.tool, "message": outcome.call.error}] if outcome.call.error else []
    if outcome.call.status == "empty":
        errors.append({"tool": choice.tool, "message": "no rows matched this scope"})
    covered = covered_scope(choice.tool, choice.params, outcome.result)
    context = _context(choice, outcome.result, errors, intent, "mcp", _inventory(scope), covered)
    summary = f"{choice.tool}({', '.join(f'{k}={v}' for k, v in choice.params.items() if v)}) → {outcome.call.status}"
    if outcome.call.status == "error":
        return TaskResult("failed", {"assessment_context": context}, error=outcome.call.error,
                          tool_calls=(outcome.call,), summary=summary)
    return TaskResult("completed", {"assessment_context": context}, tool_calls=(outcome.call,), summary=summary)
