"""``assessment_comparison_tool`` (DESIGN §6.2): two assessments compared — metrics, asset-level
changes (improved, worsened, new, removed), trend over every run up to the current one, and the
new / resolved / persistent issues. Counts are over all rows; issue lists are capped samples."""

from __future__ import annotations

from typing import Any

from assessment_engine.warehouse import comparison_summary
from assessment_engine.warehouse.store import Warehouse, query_all
from orchestration.tools.errors import ToolError
from orchestration.tools.scope import (
    FLEET,
    SAMPLE_CAP,
    assessment_runs,
    describe_scope,
    resolve_assessment,
    scope_clause,
)


def _issue(row: tuple[Any, ...]) -> dict[str, Any]:
    _, asset_id, rule_id, severity, site, title = row
    return {"asset_id": asset_id, "rule_id": rule_id, "severity": severity, "site": site, "title": title}


def _change(row: tuple[Any, ...]) -> dict[str, Any]:
    _, asset, previous, current = row[:4]
    return {"asset_id": asset, "previous_failures": int(previous), "current_failures": int(current),
            "issues_delta": int(current) - int(previous)}


def compare(w: Warehouse, current_assessment_id: str, previous_assessment_id: str, comparison_focus: str,
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
    if rules:  # "did telnet get better at the stores": the checks the question names, not every failure
        sev_sql += f" AND r.rule_id IN ({', '.join('?' * len(rules))})"
        sev_params = [*sev_params, *rules]
    whole = where == "1 = 1" and not sev_sql  # the two whole runs: stored when the newer was written, if the pair is
    stored = comparison_summary.read(w, current.assessment_id, previous.assessment_id) if whole else None
    found = stored or query_all(w, comparison_summary.statements(current.assessment_id, previous.assessment_id, where,
                                                                 sparams, sev_sql, sev_params, SAMPLE_CAP))
    assets = found[comparison_summary.ASSETS_V].rows
    by_kind: dict[str, list[tuple[Any, ...]]] = {}
    for row in assets:
        by_kind.setdefault(row[0], []).append(row)
    totals = [int(x or 0) for x in assets[0][5:]] if assets else [0] * 7
    cur_total, prev_total, new_total, resolved_total, persistent_total, cur_assets, prev_assets = totals

    def count(kind: str) -> int:
        return int(by_kind[kind][0][4]) if kind in by_kind else 0

    issues: dict[str, list[dict[str, Any]]] = {"new": [], "resolved": [], "persistent": []}
    for row in found[comparison_summary.ISSUES_V].rows:
        issues[row[0]].append(_issue(row))
    trend_fails = dict(found["trend_fails"].rows)
    trend_assets = dict(found["trend_assets"].rows)
    trend = []
    for run in assessment_runs(w, current.collection, viewer):
        if run.started_at > current.started_at:
            break
        n_fail, n_assets = int(trend_fails.get(run.assessment_id, 0)), int(trend_assets.get(run.assessment_id, 0))
        trend.append({"assessment_id": run.assessment_id, "date": run.started_at[:10], "failures": n_fail,
                      "assets_assessed": n_assets,
                      "failures_per_asset": round(n_fail / n_assets, 2) if n_assets else 0.0})
    delta = cur_total - prev_total
    return {
        "comparison_focus": comparison_focus, "collection": current.collection,
        "current_assessment_id": current.assessment_id, "previous_assessment_id": previous.assessment_id,
        "scope": describe_scope(scope), "scope_applied": scope, "rules_compared": list(rules or []),
        "current_assessment_date": current.started_at, "previous_assessment_date": previous.started_at,
        "metrics": {"previous_failures": prev_total, "current_failures": cur_total, "failures_delta": delta,
                    "previous_assets": prev_assets, "current_assets": cur_assets,
                    "new_issues": new_total, "resolved_issues": resolved_total,
                    "persistent_issues": persistent_total, "improved_assets": count("improved"),
                    "worsened_assets": count("worsened"), "new_assets": count("new"),
                    "removed_assets": count("removed"),
                    "direction": "improved" if delta < 0 else ("worsened" if delta > 0 else "unchanged")},
        "asset_level_changes": {"improved": [_change(r) for r in by_kind.get("improved", [])],
                                "worsened": [_change(r) for r in by_kind.get("worsened", [])],
                                "new": [r[1] for r in by_kind.get("new", [])],
                                "removed": [r[1] for r in by_kind.get("removed", [])]},
        "trend_analysis": trend,
        "detailed_findings": {"new_issues": issues["new"], "resolved_issues": issues["resolved"],
                              "persistent_issues": issues["persistent"]},
        "sample_cap": SAMPLE_CAP,
        "row_count": sum(count(k) for k in ("improved", "worsened", "new", "removed", "same")),  # devices compared
        "computed_from": "comparison stored with the run" if stored else "results",
    }
