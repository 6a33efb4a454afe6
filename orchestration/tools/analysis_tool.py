"""``assessment_analysis_tool`` (DESIGN §6.2): one assessment's statistics, breakdowns, top rules and
assets, a capped sample of failing results with evidence, and the approved exceptions applied.

Aggregates are computed over every row in scope; only ``results_sample`` is capped.
"""

from __future__ import annotations

from typing import Any

from orchestration.engines.rule_engine import get_rules
from orchestration.tools.scope import (
    FLEET,
    SAMPLE_CAP,
    describe_scope,
    resolve_assessment,
    scope_clause,
)
from orchestration.vocabulary.severity import high_or_above_sql, rank_sql
from orchestration.warehouse.store import Warehouse

BREAKDOWNS = {
    "severity": "b.severity",
    "product_family": "b.product_family",
    "technology": "b.technology",
    "category": "b.category",
    "os": "b.platform || ' ' || b.os_version",
    "criticality": "b.criticality",
    "site": "b.site",
    "device_type": "b.device_type",
}

BREAKDOWN_CAP = 25
BASE = """
WITH b AS (
  SELECT r.asset_id, r.rule_id, r.status, r.severity, r.evidence, r.evidence_lines, r.exception_id,
         a.site, a.environment, a.device_type, a.product_family, a.platform, a.os_version, a.criticality,
         ru.title, ru.category, ru.technology, ru.remediation, ru.rationale, ru.refs
  FROM results r
  JOIN assets a ON a.asset_id = r.asset_id
  JOIN rules ru ON ru.rule_id = r.rule_id
  WHERE r.assessment_id = ? AND {where}
)
"""


def _filters(w: Warehouse, assessment_id: str, scope: dict[str, Any] | None, product_filter: str | None,
             focus_area: str | None) -> tuple[str, list[Any], dict[str, Any]]:
    where, params, canonical = scope_clause(w, scope)
    if product_filter:
        where += " AND (LOWER(a.product_family) LIKE ? OR a.device_type = ?)"
        params += [f"%{product_filter.lower()}%", product_filter.lower()]
    if focus_area and focus_area != "security":  # comma-separated terms; a rule matches on any of them
        terms = [t.strip().lower() for t in focus_area.split(",") if t.strip()]
        where += " AND (" + " OR ".join(
            "(ru.technology = ? OR ru.category = ? OR LOWER(ru.title || ' ' || ru.rationale) LIKE ?)" for _ in terms) + ")"
        for term in terms:
            params += [term, term, f"%{term}%"]
    if focus_area == "security":  # security lens: management/control plane and services rules
        where += " AND ru.category IN ('management_plane', 'control_plane', 'services')"
    return BASE.format(where=where), [assessment_id, *params], canonical


def _platform_fixes(top_rules: list[dict[str, Any]], failing: list[tuple[Any, ...]]) -> None:
    """Each top rule's fix in the syntax of the platforms that fail it (the catalog keeps one per platform): one
    platform → its commands; several → each platform's commands under a '! platform' comment line."""
    catalog = {r.id: r for r in get_rules()}
    platforms: dict[str, list[str]] = {}
    for rule_id, platform, _ in failing:
        platforms.setdefault(rule_id, []).append(platform)
    for rule in top_rules:
        known = catalog.get(rule["rule_id"])
        if known is None or not platforms.get(rule["rule_id"]):
            continue
        fixes = {p: "\n".join(known.fix_for(p)) for p in platforms[rule["rule_id"]]}
        texts = list(dict.fromkeys(fixes.values()))
        rule["platforms"] = list(fixes)
        rule["remediation"] = texts[0] if len(texts) == 1 else "\n".join(
            f"! {', '.join(p for p, t in fixes.items() if t == text)}\n{text}" for text in texts)


def _breakdowns(w: Warehouse, base: str, params: list[Any], fail: str,
                fparams: list[Any]) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    """Failures and devices per key of every breakdown in one statement, the largest ``BREAKDOWN_CAP`` keys of each
    (at 10,000 devices there are thousands of sites: no answer, table or chart shows them all), and how many keys
    each breakdown has in full."""
    union = " UNION ALL ".join(
        f"SELECT '{name}' AS breakdown, CAST({expr} AS VARCHAR) AS k, COUNT(*) AS failures, "
        f"COUNT(DISTINCT b.asset_id) AS assets FROM b WHERE {fail} GROUP BY {expr}" for name, expr in BREAKDOWNS.items())
    rows = w.query(base + f""", grouped AS ({union}),
        ranked AS (SELECT grouped.*, ROW_NUMBER() OVER (PARTITION BY breakdown ORDER BY failures DESC, k) AS rn,
                          COUNT(*) OVER (PARTITION BY breakdown) AS n_keys FROM grouped)
        SELECT breakdown, k, failures, assets, n_keys FROM ranked WHERE rn <= {BREAKDOWN_CAP} ORDER BY breakdown, rn""",
                   params + fparams * len(BREAKDOWNS)).rows
    breakdowns: dict[str, list[dict[str, Any]]] = {name: [] for name in BREAKDOWNS}
    keys = dict.fromkeys(BREAKDOWNS, 0)
    for name, k, n, a, n_keys in rows:
        breakdowns[name].append({"key": k, "failures": int(n), "assets": int(a)})
        keys[name] = int(n_keys)
    return breakdowns, keys


def _fail_filter(severity: str | None) -> tuple[str, list[Any]]:
    return ("b.status = 'fail' AND b.severity = ?", [severity]) if severity else ("b.status = 'fail'", [])


def analyse(w: Warehouse, query_type: str, assessment_id: str = "latest", severity_filter: str | None = None,
            product_filter: str | None = None, focus_area: str | None = None,
            scope: dict[str, Any] | None = None, collection: str = FLEET, viewer: str | None = None) -> dict[str, Any]:
    focus_area = ",".join(t.strip() for t in (focus_area or "").split(",") if t.strip()) or None  # " " is no topic
    product_filter = (product_filter or "").strip() or None
    run = resolve_assessment(w, assessment_id, collection=collection, viewer=viewer)
    base, params, scope = _filters(w, run.assessment_id, scope, product_filter, focus_area)
    fail, fparams = _fail_filter(severity_filter)
    m = w.query(base + f"""
        SELECT COUNT(DISTINCT b.asset_id), COUNT(*),
               SUM(CASE WHEN b.status = 'fail' THEN 1 ELSE 0 END),
               SUM(CASE WHEN b.status = 'pass' THEN 1 ELSE 0 END),
               SUM(CASE WHEN b.status = 'exception' THEN 1 ELSE 0 END),
               COUNT(DISTINCT b.rule_id),
               COUNT(DISTINCT CASE WHEN b.status = 'fail' THEN b.asset_id END),
               COUNT(DISTINCT CASE WHEN b.status = 'fail' AND {high_or_above_sql('b.severity')} THEN b.asset_id END),
               SUM(CASE WHEN {fail} THEN 1 ELSE 0 END),
               COUNT(DISTINCT CASE WHEN {fail} THEN b.asset_id END)
        FROM b""", params + fparams + fparams).rows[0]
    assets, checks, failed, passed, excepted, rules, assets_failing, at_risk, matching, assets_matching = (
        int(x or 0) for x in m)
    metrics = {
        "assessment_id": run.assessment_id, "assessment_date": run.started_at, "scope": describe_scope(scope),
        "assets_assessed": assets, "rules_evaluated": rules, "checks_performed": checks, "checks_failed": failed,
        "checks_passed": passed, "exceptions_applied": excepted,
        "pass_rate_pct": round(100 * passed / checks, 1) if checks else 0.0,
        "assets_with_failures": assets_failing, "assets_at_risk": at_risk,
        "pct_assets_at_risk": round(100 * at_risk / assets, 1) if assets else 0.0,
    }
    if focus_area or product_filter:  # how many checks the scope has without the topic filter, for context
        plain, plain_params, _ = _filters(w, run.assessment_id, scope, None, None)
        metrics["checks_in_scope"] = int(w.query(plain + "SELECT COUNT(*) FROM b", plain_params).rows[0][0] or 0)
    if severity_filter:
        metrics.update({"severity_filter": severity_filter, "matching_failures": matching,
                        "assets_with_matching_failures": assets_matching,
                        "pct_assets_with_matching_failures": round(100 * assets_matching / assets, 1) if assets else 0.0})
    breakdowns, breakdown_keys = _breakdowns(w, base, params, fail, fparams)
    top_rules = w.query(base + f"""
        SELECT b.rule_id, MIN(b.title) AS title, MIN(b.severity) AS severity, MIN(b.category) AS category,
               MIN(b.technology) AS technology, MIN(b.remediation) AS remediation, MIN(b.rationale) AS rationale,
               MIN(b.refs) AS refs, COUNT(DISTINCT CASE WHEN b.criticality IN ('critical', 'high') THEN b.asset_id END)
               AS critical_assets,
               COUNT(DISTINCT b.asset_id) AS failing_assets
        FROM b WHERE {fail} GROUP BY b.rule_id
        ORDER BY failing_assets DESC, MAX({rank_sql('b.severity')}) DESC, b.rule_id LIMIT 15""",
                        params + fparams).dicts()
    _platform_fixes(top_rules, w.query(base + f"""
        SELECT b.rule_id, b.platform, COUNT(DISTINCT b.asset_id) AS n FROM b WHERE {fail}
        GROUP BY b.rule_id, b.platform ORDER BY n DESC, b.platform""", params + fparams).rows)
    top_assets = w.query(base + f"""
        SELECT b.asset_id, MIN(b.site) AS site, MIN(b.product_family) AS product_family, MIN(b.criticality) AS criticality,
               COUNT(*) AS failures,
               SUM(CASE WHEN b.severity = 'critical' THEN 1 ELSE 0 END) AS critical,
               SUM(CASE WHEN b.severity = 'high' THEN 1 ELSE 0 END) AS high
        FROM b WHERE {fail} GROUP BY b.asset_id
        ORDER BY critical DESC, high DESC, failures DESC, b.asset_id LIMIT 15""", params + fparams).dicts()
    sample = w.query(base + f"""
        SELECT b.asset_id, b.site, b.criticality, b.rule_id, b.title, b.severity, b.evidence, b.evidence_lines
        FROM b WHERE {fail}
        ORDER BY {rank_sql('b.severity')} DESC, b.asset_id, b.rule_id LIMIT {SAMPLE_CAP}""",
                     params + fparams).dicts()
    result: dict[str, Any] = {
        "query_type": query_type, "collection": run.collection, "metrics": metrics, "breakdowns": breakdowns,
        "breakdown_keys": breakdown_keys,
        "top_rules": top_rules,
        "top_assets": top_assets, "results_sample": sample, "sample_cap": SAMPLE_CAP,
        "row_count": checks, "scope_applied": scope, "focus_area": focus_area,
    }
    if query_type == "exceptions":
        result["exceptions_applied"] = w.query(base + """
            SELECT b.exception_id, b.rule_id, COUNT(DISTINCT b.asset_id) AS assets, MIN(e.reason) AS reason,
                   MIN(e.expires_on) AS expires_on, MIN(e.source_document) AS source_document
            FROM b JOIN exceptions e ON e.exception_id = b.exception_id
            WHERE b.status = 'exception' GROUP BY b.exception_id, b.rule_id ORDER BY b.exception_id""", params).dicts()
    return result

