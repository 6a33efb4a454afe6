"""``issue_tracking_tool`` (DESIGN §6.2): issues still failing in the latest assessment, how long each
has been open (consecutive runs), severity breakdown, the most persistent rules and a risk verdict."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from orchestration.tools.errors import ToolError
from orchestration.tools.scope import (
    FLEET,
    SAMPLE_CAP,
    assessment_runs,
    describe_scope,
    scope_clause,
)
from orchestration.vocabulary.severity import SEVERITIES, rank_sql
from orchestration.warehouse.store import Warehouse

FAILS = """
SELECT r.assessment_id, r.asset_id, r.rule_id, r.severity, a.site, ru.title, r.evidence
FROM results r JOIN assets a ON a.asset_id = r.asset_id JOIN rules ru ON ru.rule_id = r.rule_id
WHERE r.status = 'fail' AND {where} {priority} {rule}
ORDER BY {rank} DESC, r.asset_id, r.rule_id
"""


def track(w: Warehouse, tracking_scope: str, assessment_scope: str, rule_filter: str | None = None,
          priority: str | None = None, lookback_assessments: int = 2,
          scope: dict[str, Any] | None = None, collection: str = FLEET, viewer: str | None = None) -> dict[str, Any]:
    dated = assessment_runs(w, collection, viewer)
    runs = [r.assessment_id for r in dated]
    if not runs:
        raise ToolError("the warehouse holds no assessments yet")
    where, params, scope = scope_clause(w, scope)
    where += " AND r.assessment_id IN (SELECT assessment_id FROM assessments WHERE collection = ?)"
    params = [*params, collection]
    pri, pri_params = ("AND r.severity = ?", [priority]) if priority else ("", [])
    rule, rule_params = ("AND r.rule_id = ?", [rule_filter.upper()]) if rule_filter else ("", [])
    rows = w.query(FAILS.format(where=where, priority=pri, rule=rule, rank=rank_sql("r.severity")),
                   params + pri_params + rule_params).rows
    failing: dict[tuple[str, str], set[str]] = defaultdict(set)
    latest_rows = []
    for assessment_id, asset, rule_id, severity, site, title, evidence in rows:
        failing[(asset, rule_id)].add(assessment_id)
        if assessment_id == runs[-1]:
            latest_rows.append((asset, rule_id, severity, site, title, evidence))

    def streak(key: tuple[str, str]) -> int:
        n = 0
        for run in reversed(runs):
            if run not in failing[key]:
                break
            n += 1
        return n

    issues = []
    for asset, rule_id, severity, site, title, evidence in latest_rows:
        key = (asset, rule_id)
        s = streak(key)
        recurring = len(failing[key]) > s  # failed before, was fixed, failed again
        issues.append({"asset_id": asset, "rule_id": rule_id, "severity": severity, "site": site, "title": title,
                       "open_for_assessments": s, "first_seen": runs[len(runs) - s], "recurring": recurring,
                       "evidence": evidence})
    min_streak = max(2, lookback_assessments) if (tracking_scope == "persistent" or assessment_scope == "since_prior") else 1
    if tracking_scope == "recurring":
        selected = [i for i in issues if i["recurring"]]
    else:
        selected = [i for i in issues if i["open_for_assessments"] >= min_streak]
    by_rule: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i in selected:
        by_rule[i["rule_id"]].append(i)
    persistent_rules = sorted(
        ({"rule_id": r, "title": items[0]["title"], "severity": items[0]["severity"], "assets": len(items),
          "max_open_for_assessments": max(i["open_for_assessments"] for i in items)} for r, items in by_rule.items()),
        key=lambda x: (-x["max_open_for_assessments"], -x["assets"], x["rule_id"]))
    breakdown = Counter(i["severity"] for i in selected)
    critical = breakdown.get("critical", 0)
    high = breakdown.get("high", 0)
    level = "critical" if critical else ("high" if high >= 5 else ("medium" if selected else "low"))
    reasons = []
    if critical:
        reasons.append(f"{critical} critical issue(s) still open")
    if high:
        reasons.append(f"{high} high-severity issue(s) still open")
    long_open = sum(1 for i in selected if i["open_for_assessments"] >= len(runs))
    if long_open:
        reasons.append(f"{long_open} issue(s) open in every assessment on record")
    return {
        "tracking_scope": tracking_scope, "assessment_scope": assessment_scope, "collection": collection,
        "latest_assessment_id": runs[-1],
        "assessments_considered": runs, "scope": describe_scope(scope), "scope_applied": scope,
        "latest_assessment_date": dated[-1].started_at,
        "total_unresolved": len(selected),
        "unresolved_issues": sorted(selected, key=lambda i: (-i["open_for_assessments"], i["asset_id"]))[:SAMPLE_CAP],
        "severity_breakdown": {s: breakdown.get(s, 0) for s in SEVERITIES},
        "most_persistent_rules": persistent_rules[:15],
        "risk_assessment": {"level": level, "reasons": reasons or ["no open issues in scope"]},
        "sample_cap": SAMPLE_CAP,
        "row_count": len(selected),
    }

