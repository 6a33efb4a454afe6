"""The comparison, issue-tracking and SLIC tools as first written: every row fetched and compared in Python.
Kept as oracles: the SQL set operations that replaced them must return exactly what these return."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from assessment_engine.warehouse.store import Warehouse
from foundation.vocabulary.severity import SEVERITIES, rank_sql
from orchestration.tools.errors import ToolError
from orchestration.tools.scope import (
    FLEET,
    SAMPLE_CAP,
    assessment_runs,
    describe_scope,
    resolve_assessment,
    scope_clause,
)
from orchestration.tools.slic_tool import RESULT_CAP, _grouped_here

COMPARE_FAILS = """
SELECT r.asset_id, r.rule_id, r.severity, a.site, ru.title
FROM results r JOIN assets a ON a.asset_id = r.asset_id JOIN rules ru ON ru.rule_id = r.rule_id
WHERE r.assessment_id = ? AND r.status = 'fail' AND {where} {severity}
"""
COMPARE_CHECKED_OK = """
SELECT r.asset_id, r.rule_id FROM results r JOIN assets a ON a.asset_id = r.asset_id
WHERE r.assessment_id = ? AND r.status <> 'fail' AND {where} {severity}
"""
COMPARE_ASSESSED = "SELECT c.asset_id FROM configs c JOIN assets a ON a.asset_id = c.asset_id WHERE c.assessment_id = ? AND {where}"


def _issue(row: tuple[Any, ...]) -> dict[str, Any]:
    asset_id, rule_id, severity, site, title = row
    return {"asset_id": asset_id, "rule_id": rule_id, "severity": severity, "site": site, "title": title}


def compare_in_python(w: Warehouse, current_assessment_id: str, previous_assessment_id: str, comparison_focus: str,
            severity_filter: str | None = None, scope: dict[str, Any] | None = None, collection: str = FLEET,
            viewer: str | None = None, rules: list[str] | None = None) -> dict[str, Any]:
    current = resolve_assessment(w, current_assessment_id, collection=collection, viewer=viewer)
    previous = resolve_assessment(w, previous_assessment_id, relative_to=current.assessment_id,
                                  collection=current.collection, viewer=viewer)
    if previous.started_at > current.started_at:  # two named runs in either order: compare older → newer
        current, previous = previous, current
    if previous.started_at == current.started_at:
        raise ToolError(f"{previous.assessment_id} and {current.assessment_id} are the same assessment run")
    where, sparams, scope = scope_clause(w, scope)
    sev_sql, sev_params = ("AND r.severity = ?", [severity_filter]) if severity_filter else ("", [])
    fails_sql = COMPARE_FAILS.format(where=where, severity=sev_sql)

    def asked(rule_id: str) -> bool:  # the checks compared: every one, or those named (filtered here, not in SQL)
        return not rules or rule_id in rules

    def fails(run_id: str) -> dict[tuple[str, str], tuple[Any, ...]]:
        return {(r[0], r[1]): r for r in w.query(fails_sql, [run_id, *sparams, *sev_params]).rows if asked(r[1])}

    def assessed(run_id: str) -> set[str]:
        return {r[0] for r in w.query(COMPARE_ASSESSED.format(where=where), [run_id, *sparams]).rows}

    cur, prev = fails(current.assessment_id), fails(previous.assessment_id)
    cur_assets, prev_assets = assessed(current.assessment_id), assessed(previous.assessment_id)
    common = cur_assets & prev_assets
    # new: failing now, not before (a newly assessed device's too); resolved: failing before, checked and not failing now
    checked_ok = {(r[0], r[1]) for r in w.query(COMPARE_CHECKED_OK.format(where=where, severity=sev_sql),
                                                [current.assessment_id, *sparams, *sev_params]).rows}
    new_issues = [cur[k] for k in sorted(cur.keys() - prev.keys())]
    resolved = [prev[k] for k in sorted(prev.keys() & checked_ok)]
    persistent = [cur[k] for k in sorted(cur.keys() & prev.keys())]

    per_asset: dict[str, list[int]] = {a: [0, 0] for a in common}
    for (asset, _), _row in prev.items():
        if asset in per_asset:
            per_asset[asset][0] += 1
    for (asset, _), _row in cur.items():
        if asset in per_asset:
            per_asset[asset][1] += 1
    def change(asset: str) -> dict[str, Any]:
        p, c = per_asset[asset]
        return {"asset_id": asset, "previous_failures": p, "current_failures": c, "issues_delta": c - p}

    by_delta = sorted(per_asset, key=lambda a: (per_asset[a][1] - per_asset[a][0], a))
    improved = [change(a) for a in by_delta if per_asset[a][1] < per_asset[a][0]]
    worsened = [change(a) for a in reversed(by_delta) if per_asset[a][1] > per_asset[a][0]]

    trend_fails: dict[str, int] = {}
    for run_id, rule_id in w.query(
            f"SELECT r.assessment_id, r.rule_id FROM results r JOIN assets a ON a.asset_id = r.asset_id "
            f"WHERE r.status = 'fail' AND {where} {sev_sql}", [*sparams, *sev_params]).rows:
        if asked(rule_id):
            trend_fails[run_id] = trend_fails.get(run_id, 0) + 1
    trend_assets = dict(w.query(
        f"SELECT c.assessment_id, COUNT(*) FROM configs c JOIN assets a ON a.asset_id = c.asset_id "
        f"WHERE {where} GROUP BY c.assessment_id", sparams).rows)
    trend = []
    for run in assessment_runs(w, current.collection, viewer):
        if run.started_at > current.started_at:
            break
        n_fail, n_assets = int(trend_fails.get(run.assessment_id, 0)), int(trend_assets.get(run.assessment_id, 0))
        trend.append({"assessment_id": run.assessment_id, "date": run.started_at[:10], "failures": n_fail,
                      "assets_assessed": n_assets,
                      "failures_per_asset": round(n_fail / n_assets, 2) if n_assets else 0.0})
    delta = len(cur) - len(prev)
    return {
        "comparison_focus": comparison_focus, "collection": current.collection,
        "current_assessment_id": current.assessment_id, "previous_assessment_id": previous.assessment_id,
        "scope": describe_scope(scope), "scope_applied": scope, "rules_compared": list(rules or []),
        "current_assessment_date": current.started_at, "previous_assessment_date": previous.started_at,
        "metrics": {"previous_failures": len(prev), "current_failures": len(cur), "failures_delta": delta,
                    "previous_assets": len(prev_assets), "current_assets": len(cur_assets),
                    "new_issues": len(new_issues), "resolved_issues": len(resolved),
                    "persistent_issues": len(persistent), "improved_assets": len(improved),
                    "worsened_assets": len(worsened), "new_assets": len(cur_assets - prev_assets),
                    "removed_assets": len(prev_assets - cur_assets),
                    "direction": "improved" if delta < 0 else ("worsened" if delta > 0 else "unchanged")},
        "asset_level_changes": {"improved": improved[:SAMPLE_CAP], "worsened": worsened[:SAMPLE_CAP],
                                "new": sorted(cur_assets - prev_assets)[:SAMPLE_CAP],
                                "removed": sorted(prev_assets - cur_assets)[:SAMPLE_CAP]},
        "trend_analysis": trend,
        "detailed_findings": {"new_issues": [_issue(r) for r in new_issues[:SAMPLE_CAP]],
                              "resolved_issues": [_issue(r) for r in resolved[:SAMPLE_CAP]],
                              "persistent_issues": [_issue(r) for r in persistent[:SAMPLE_CAP]]},
        "sample_cap": SAMPLE_CAP,
        "row_count": len(cur_assets | prev_assets),  # devices compared; zero means nothing in scope
    }



TRACK_FAILS = """
SELECT r.assessment_id, r.asset_id, r.rule_id, r.severity, a.site, ru.title, r.evidence
FROM results r JOIN assets a ON a.asset_id = r.asset_id JOIN rules ru ON ru.rule_id = r.rule_id
WHERE r.status = 'fail' AND {where} {priority} {rule}
ORDER BY {rank} DESC, r.asset_id, r.rule_id
"""


def track_in_python(w: Warehouse, tracking_scope: str, assessment_scope: str, rule_filter: str | None = None,
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
    rows = w.query(TRACK_FAILS.format(where=where, priority=pri, rule=rule, rank=rank_sql("r.severity")),
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


def slic_in_python(w: Warehouse, assessment_id: str = "latest", scope: dict[str, Any] | None = None,
                   collection: str = FLEET, viewer: str | None = None) -> dict[str, Any]:
    run = resolve_assessment(w, assessment_id, collection=collection, viewer=viewer)
    where, params, applied = scope_clause(w, scope)
    rows = w.query(
        "SELECT s.asset_id, a.site, a.criticality, a.os_version, st.pci_scope, s.signature_id, s.title, s.kind, "
        "s.category, s.severity, s.hypothesis, s.evidence, s.cves, s.advisory, s.recommendation, s.annotation "
        "FROM slic_results s JOIN assets a ON a.asset_id = s.asset_id LEFT JOIN sites st ON st.site = a.site "
        f"WHERE s.assessment_id = ? AND {where} ORDER BY {rank_sql('s.severity')} DESC, s.signature_id, s.asset_id",
        [run.assessment_id, *params]).dicts()
    # the Python grouping is the tool's own for small scopes (``_grouped_here``): the oracle is every row fetched
    # and grouped by it, which the engine's grouping (large scopes) must equal
    return {
        "assessment_id": run.assessment_id, "collection": run.collection, "scope_applied": applied,
        **_grouped_here(rows), "results": rows[:RESULT_CAP], "result_cap": RESULT_CAP, "row_count": len(rows),
    }
