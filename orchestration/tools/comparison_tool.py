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
from orchestration.warehouse.store import Warehouse, query_all

# The two runs' failing results and assessed devices in scope, compared by set operations in the engine: a
# turn fetches the counts and capped samples, never the failing rows themselves (~100k per run at 10k devices).
RUNS = """
WITH cur AS (SELECT r.asset_id, r.rule_id, r.severity, a.site FROM results r JOIN assets a ON a.asset_id = r.asset_id
             WHERE r.assessment_id = ? AND r.status = 'fail' AND {where} {severity}),
prev AS (SELECT r.asset_id, r.rule_id, r.severity, a.site FROM results r JOIN assets a ON a.asset_id = r.asset_id
         WHERE r.assessment_id = ? AND r.status = 'fail' AND {where} {severity}),
ca AS (SELECT DISTINCT c.asset_id FROM configs c JOIN assets a ON a.asset_id = c.asset_id
       WHERE c.assessment_id = ? AND {where}),
pa AS (SELECT DISTINCT c.asset_id FROM configs c JOIN assets a ON a.asset_id = c.asset_id
       WHERE c.assessment_id = ? AND {where})
"""

# Up to the cap of rows per device kind (improved, worsened, new, removed, same), each carrying the totals.
ASSETS = """,
pairs AS (SELECT COALESCE(c.asset_id, p.asset_id) AS asset_id,
                 CASE WHEN c.asset_id IS NULL THEN 0 ELSE 1 END AS in_cur,
                 CASE WHEN p.asset_id IS NULL THEN 0 ELSE 1 END AS in_prev
          FROM cur c FULL OUTER JOIN prev p ON c.asset_id = p.asset_id AND c.rule_id = p.rule_id),
f AS (SELECT asset_id, SUM(in_cur) AS cur_f, SUM(in_prev) AS prev_f, SUM(in_cur * in_prev) AS both_f
      FROM pairs GROUP BY asset_id),
s AS (SELECT asset_id, MAX(in_ca) AS in_ca, MAX(in_pa) AS in_pa
      FROM (SELECT asset_id, 1 AS in_ca, 0 AS in_pa FROM ca UNION ALL SELECT asset_id, 0, 1 FROM pa) x GROUP BY asset_id),
per AS (SELECT COALESCE(s.asset_id, f.asset_id) AS asset_id, COALESCE(s.in_ca, 0) AS in_ca, COALESCE(s.in_pa, 0) AS in_pa,
               COALESCE(f.cur_f, 0) AS cur_f, COALESCE(f.prev_f, 0) AS prev_f, COALESCE(f.both_f, 0) AS both_f
        FROM s FULL OUTER JOIN f ON s.asset_id = f.asset_id),
kinds AS (SELECT per.*, CASE WHEN in_ca = 1 AND in_pa = 1 AND cur_f < prev_f THEN 'improved'
                             WHEN in_ca = 1 AND in_pa = 1 AND cur_f > prev_f THEN 'worsened'
                             WHEN in_ca = 1 AND in_pa = 1 THEN 'same'
                             WHEN in_ca = 1 THEN 'new' WHEN in_pa = 1 THEN 'removed' ELSE 'unassessed' END AS kind FROM per),
ranked AS (SELECT kinds.*,
           ROW_NUMBER() OVER (PARTITION BY kind ORDER BY CASE kind WHEN 'worsened' THEN prev_f - cur_f WHEN 'improved' THEN cur_f - prev_f
                                                              ELSE 0 END,
                                                         CASE WHEN kind = 'worsened' THEN asset_id END DESC, asset_id) AS rn,
           COUNT(*) OVER (PARTITION BY kind) AS n_kind,
           SUM(cur_f) OVER () AS cur_total, SUM(prev_f) OVER () AS prev_total,
           SUM(CASE WHEN in_ca = 1 AND in_pa = 1 THEN cur_f - both_f ELSE 0 END) OVER () AS new_total,
           SUM(CASE WHEN in_ca = 1 AND in_pa = 1 THEN prev_f - both_f ELSE 0 END) OVER () AS resolved_total,
           SUM(both_f) OVER () AS persistent_total, SUM(in_ca) OVER () AS cur_assets, SUM(in_pa) OVER () AS prev_assets
           FROM kinds)
SELECT kind, asset_id, prev_f, cur_f, n_kind, cur_total, prev_total, new_total, resolved_total, persistent_total,
       cur_assets, prev_assets
FROM ranked WHERE rn <= {cap} ORDER BY kind, rn
"""

# The first issues of each kind by (device, rule): new and resolved only on devices assessed in both runs.
ISSUES = """,
common AS (SELECT asset_id FROM ca INTERSECT SELECT asset_id FROM pa),
issues AS (
  SELECT 'new' AS kind, c.asset_id, c.rule_id, c.severity, c.site FROM cur c
  WHERE c.asset_id IN (SELECT asset_id FROM common)
    AND NOT EXISTS (SELECT 1 FROM prev p WHERE p.asset_id = c.asset_id AND p.rule_id = c.rule_id)
  UNION ALL
  SELECT 'resolved', p.asset_id, p.rule_id, p.severity, p.site FROM prev p
  WHERE p.asset_id IN (SELECT asset_id FROM common)
    AND NOT EXISTS (SELECT 1 FROM cur c WHERE c.asset_id = p.asset_id AND c.rule_id = p.rule_id)
  UNION ALL
  SELECT 'persistent', c.asset_id, c.rule_id, c.severity, c.site FROM cur c
  WHERE EXISTS (SELECT 1 FROM prev p WHERE p.asset_id = c.asset_id AND p.rule_id = c.rule_id)),
ranked AS (SELECT issues.*, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY asset_id, rule_id) AS rn FROM issues)
SELECT ranked.kind, ranked.asset_id, ranked.rule_id, ranked.severity, ranked.site, ru.title
FROM ranked JOIN rules ru ON ru.rule_id = ranked.rule_id WHERE rn <= {cap} ORDER BY ranked.kind, rn
"""


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
    runs = RUNS.format(where=where, severity=sev_sql)
    params = [current.assessment_id, *sparams, *sev_params, previous.assessment_id, *sparams, *sev_params,
              current.assessment_id, *sparams, previous.assessment_id, *sparams]
    found = query_all(w, {
        "assets": (runs + ASSETS.format(cap=SAMPLE_CAP), params),
        "issues": (runs + ISSUES.format(cap=SAMPLE_CAP), params),
        "trend_fails": (f"SELECT r.assessment_id, COUNT(*) FROM results r JOIN assets a ON a.asset_id = r.asset_id "
                        f"WHERE r.status = 'fail' AND {where} {sev_sql} GROUP BY r.assessment_id", [*sparams, *sev_params]),
        "trend_assets": (f"SELECT c.assessment_id, COUNT(*) FROM configs c JOIN assets a ON a.asset_id = c.asset_id "
                         f"WHERE {where} GROUP BY c.assessment_id", sparams),
    })
    assets = found["assets"].rows
    by_kind: dict[str, list[tuple[Any, ...]]] = {}
    for row in assets:
        by_kind.setdefault(row[0], []).append(row)
    totals = [int(x or 0) for x in assets[0][5:]] if assets else [0] * 7
    cur_total, prev_total, new_total, resolved_total, persistent_total, cur_assets, prev_assets = totals

    def count(kind: str) -> int:
        return int(by_kind[kind][0][4]) if kind in by_kind else 0

    issues: dict[str, list[dict[str, Any]]] = {"new": [], "resolved": [], "persistent": []}
    for row in found["issues"].rows:
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
    }
