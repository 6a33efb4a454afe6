"""``issue_tracking_tool`` (DESIGN §6.2): issues still failing in the latest assessment, how long each
has been open (consecutive runs), severity breakdown, the most persistent rules and a risk verdict."""

from __future__ import annotations

from collections import Counter
from typing import Any

from assessment_engine.warehouse.store import Warehouse, query_all
from foundation.vocabulary.severity import RANK, SEVERITIES, rank_sql
from orchestration.tools.errors import ToolError
from orchestration.tools.scope import (
    FLEET,
    SAMPLE_CAP,
    assessment_runs,
    describe_scope,
    scope_clause,
)

# How long each failing (device, rule) of the latest run has been open, computed in the engine in one grouping:
# per run a 0/1 "failed in it", and the streak is 1 + (failed in the run before: 1 + (…)) counted back from the
# latest run. A turn fetches aggregates and a capped sample, never the failing rows of every run.
OPEN = """
WITH runs(assessment_id, idx) AS (VALUES {runs}),
f AS (SELECT r.asset_id, r.rule_id, r.severity, runs.idx FROM results r
      JOIN runs ON runs.assessment_id = r.assessment_id
      JOIN assets a ON a.asset_id = r.asset_id JOIN rules ru ON ru.rule_id = r.rule_id
      WHERE r.status = 'fail' AND {where} {priority} {rule}),
k AS (SELECT asset_id, rule_id, MAX(CASE WHEN idx = {n} THEN severity END) AS severity, COUNT(*) AS total,
             {streak} AS streak
      FROM f GROUP BY asset_id, rule_id HAVING MAX(idx) = {n}),
sel AS (SELECT k.*, CASE WHEN total > streak THEN 1 ELSE 0 END AS recurring, {rank} AS rank FROM k WHERE {selected})
"""


def _streak(n: int) -> str:
    """Consecutive failing runs ending at run ``n`` (which the grouping guarantees failed)."""
    expr = "1"
    for i in range(1, n):
        expr = f"1 + MAX(CASE WHEN idx = {i} THEN 1 ELSE 0 END) * ({expr})"
    return expr


BY_SEVERITY = "SELECT severity, COUNT(*), SUM(CASE WHEN streak >= {n} THEN 1 ELSE 0 END) FROM sel GROUP BY severity"
BY_RULE = """SELECT sel.rule_id, MIN(ru.title), MAX(sel.rank), MIN(sel.severity), COUNT(*), MAX(sel.streak)
FROM sel JOIN rules ru ON ru.rule_id = sel.rule_id GROUP BY sel.rule_id ORDER BY 6 DESC, 5 DESC, 1 LIMIT 15"""
SAMPLE = """SELECT sel.asset_id, sel.rule_id, sel.severity, a.site, ru.title, sel.streak, sel.recurring, r.evidence
FROM sel JOIN results r ON r.assessment_id = ? AND r.asset_id = sel.asset_id AND r.rule_id = sel.rule_id
JOIN assets a ON a.asset_id = sel.asset_id JOIN rules ru ON ru.rule_id = sel.rule_id
ORDER BY sel.streak DESC, sel.asset_id, sel.rank DESC, sel.rule_id LIMIT {cap}"""


def track(w: Warehouse, tracking_scope: str, assessment_scope: str, rule_filter: str | None = None,
          priority: str | None = None, lookback_assessments: int = 2,
          scope: dict[str, Any] | None = None, collection: str = FLEET, viewer: str | None = None) -> dict[str, Any]:
    dated = assessment_runs(w, collection, viewer)
    runs = [r.assessment_id for r in dated]
    if not runs:
        raise ToolError("the warehouse holds no assessments yet")
    where, params, scope = scope_clause(w, scope)
    pri, pri_params = ("AND r.severity = ?", [priority]) if priority else ("", [])
    rule, rule_params = ("AND r.rule_id = ?", [rule_filter.upper()]) if rule_filter else ("", [])
    min_streak = max(2, lookback_assessments) if (tracking_scope == "persistent" or assessment_scope == "since_prior") else 1
    selected = "total > streak" if tracking_scope == "recurring" else f"streak >= {int(min_streak)}"
    n = len(runs)
    base = OPEN.format(runs=", ".join(f"(?, {i})" for i in range(1, n + 1)), where=where, priority=pri, rule=rule,
                       n=n, streak=_streak(n), rank=rank_sql("k.severity"), selected=selected)
    params = [*runs, *params, *pri_params, *rule_params]
    found = query_all(w, {"by_severity": (base + BY_SEVERITY.format(n=n), params), "by_rule": (base + BY_RULE, params),
                          "sample": (base + SAMPLE.format(cap=SAMPLE_CAP), [*params, runs[-1]])})
    breakdown: Counter[str] = Counter()
    long_open = 0
    for severity, count, in_every_run in found["by_severity"].rows:
        breakdown[severity] += int(count)
        long_open += int(in_every_run or 0)
    names = {number: name for name, number in RANK.items()}  # rank_sql's numbers back to levels
    persistent_rules = [{"rule_id": r[0], "title": r[1], "severity": names.get(int(r[2]), r[3]), "assets": int(r[4]),
                         "max_open_for_assessments": int(r[5])} for r in found["by_rule"].rows]
    unresolved = [{"asset_id": asset, "rule_id": rule_id, "severity": severity, "site": site, "title": title,
                   "open_for_assessments": int(streak), "first_seen": runs[n - int(streak)], "recurring": bool(recurring),
                   "evidence": evidence}
                  for asset, rule_id, severity, site, title, streak, recurring, evidence
                  in found["sample"].rows]
    total = sum(breakdown.values())
    critical = breakdown.get("critical", 0)
    high = breakdown.get("high", 0)
    level = "critical" if critical else ("high" if high >= 5 else ("medium" if total else "low"))
    reasons = []
    if critical:
        reasons.append(f"{critical} critical issue(s) still open")
    if high:
        reasons.append(f"{high} high-severity issue(s) still open")
    if long_open:
        reasons.append(f"{long_open} issue(s) open in every assessment on record")
    return {
        "tracking_scope": tracking_scope, "assessment_scope": assessment_scope, "collection": collection,
        "latest_assessment_id": runs[-1],
        "assessments_considered": runs, "scope": describe_scope(scope), "scope_applied": scope,
        "latest_assessment_date": dated[-1].started_at,
        "total_unresolved": total,
        "unresolved_issues": unresolved,
        "severity_breakdown": {s: breakdown.get(s, 0) for s in SEVERITIES},
        "most_persistent_rules": persistent_rules,
        "risk_assessment": {"level": level, "reasons": reasons or ["no open issues in scope"]},
        "sample_cap": SAMPLE_CAP,
        "row_count": total,
    }

