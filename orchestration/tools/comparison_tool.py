"""``assessment_comparison_tool`` (DESIGN §6.2): two assessments compared — metrics, asset-level
changes (improved, worsened, new, removed), trend over every run up to the current one, and the
new / resolved / persistent issues. Counts are over all rows; issue lists are capped samples."""

from __future__ import annotations

from typing import Any

from orchestration.tools.errors import ToolError
from orchestration.tools.scope import (
    FLEET,
    SAMPLE_CAP,
    assessment_runs,
    describe_scope,
    resolve_assessment,
    scope_clause,
)
from orchestration.warehouse.store import Warehouse

FAILS = """
SELECT r.asset_id, r.rule_id, r.severity, a.site, ru.title
FROM results r JOIN assets a ON a.asset_id = r.asset_id JOIN rules ru ON ru.rule_id = r.rule_id
WHERE r.assessment_id = ? AND r.status = 'fail' AND {where} {severity}
"""
ASSESSED = "SELECT c.asset_id FROM configs c JOIN assets a ON a.asset_id = c.asset_id WHERE c.assessment_id = ? AND {where}"


def _issue(row: tuple[Any, ...]) -> dict[str, Any]:
    asset_id, rule_id, severity, site, title = row
    return {"asset_id": asset_id, "rule_id": rule_id, "severity": severity, "site": site, "title": title}


def compare(w: Warehouse, current_assessment_id: str, previous_assessment_id: str, comparison_focus: str,
            severity_filter: str | None = None, scope: dict[str, Any] | None = None, collection: str = FLEET,
            viewer: str | None = None) -> dict[str, Any]:
    current = resolve_assessment(w, current_assessment_id, collection=collection, viewer=viewer)
    previous = resolve_assessment(w, previous_assessment_id, relative_to=current.assessment_id,
                                  collection=current.collection, viewer=viewer)
    if previous.started_at > current.started_at:  # two named runs in either order: compare older → newer
        current, previous = previous, current
    if previous.started_at == current.started_at:
        raise ToolError(f"{previous.assessment_id} and {current.assessment_id} are the same assessment run")
    where, sparams, scope = scope_clause(w, scope)
    sev_sql, sev_params = ("AND r.severity = ?", [severity_filter]) if severity_filter else ("", [])
    fails_sql = FAILS.format(where=where, severity=sev_sql)

    def fails(run_id: str) -> dict[tuple[str, str], tuple[Any, ...]]:
        return {(r[0], r[1]): r for r in w.query(fails_sql, [run_id, *sparams, *sev_params]).rows}

    def assessed(run_id: str) -> set[str]:
        return {r[0] for r in w.query(ASSESSED.format(where=where), [run_id, *sparams]).rows}

    cur, prev = fails(current.assessment_id), fails(previous.assessment_id)
    cur_assets, prev_assets = assessed(current.assessment_id), assessed(previous.assessment_id)
    common = cur_assets & prev_assets
    new_issues = [cur[k] for k in sorted(cur.keys() - prev.keys()) if k[0] in common]
    resolved = [prev[k] for k in sorted(prev.keys() - cur.keys()) if k[0] in common]
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

    trend_fails = dict(w.query(
        f"SELECT r.assessment_id, COUNT(*) FROM results r JOIN assets a ON a.asset_id = r.asset_id "
        f"WHERE r.status = 'fail' AND {where} {sev_sql} GROUP BY r.assessment_id", [*sparams, *sev_params]).rows)
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
        "scope": describe_scope(scope), "scope_applied": scope,
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

