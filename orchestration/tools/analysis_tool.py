"""``assessment_analysis_tool`` (DESIGN §6.2): one assessment's statistics, breakdowns, top rules and
assets, a capped sample of failing results with evidence, and the approved exceptions applied.

Aggregates are computed over every row in scope; only ``results_sample`` is capped.
"""

from __future__ import annotations

from typing import Any

from assessment_engine.warehouse import run_summary, summary_rows
from assessment_engine.warehouse.run_summary import BASE, BREAKDOWNS, SAMPLE_CAP, statements
from assessment_engine.warehouse.store import QueryResult, Warehouse, query_all
from foundation.vocabulary.numbers import percent
from orchestration.catalog import Catalog
from orchestration.tools.scope import FLEET, describe_scope, resolve_assessment, scope_clause

NAMED_UP_TO = 5  # a summary of this many devices or fewer names them


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


def _platform_fixes(top_rules: list[dict[str, Any]], failing: list[tuple[Any, ...]], catalog: Catalog) -> None:
    """Each top rule's fix in the syntax of the platforms that fail it (the catalog keeps one per platform): one
    platform → its commands; several → each platform's commands under a '! platform' comment line."""
    platforms: dict[str, list[str]] = {}
    for rule_id, platform, _ in failing:
        platforms.setdefault(rule_id, []).append(platform)
    for rule in top_rules:
        known = catalog.rules.by_id.get(rule["rule_id"])
        if known is None or not platforms.get(rule["rule_id"]):
            continue
        fixes = {p: "\n".join(known.fix_for(p)) for p in platforms[rule["rule_id"]]}
        texts = list(dict.fromkeys(fixes.values()))
        rule["platforms"] = list(fixes)
        rule["remediation"] = texts[0] if len(texts) == 1 else "\n".join(
            f"! {', '.join(p for p, t in fixes.items() if t == text)}\n{text}" for text in texts)


def _breakdowns(result: QueryResult) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    """Failures and devices per key of every breakdown (its largest keys), and how many keys each has in full."""
    breakdowns: dict[str, list[dict[str, Any]]] = {name: [] for name in BREAKDOWNS}
    keys = dict.fromkeys(BREAKDOWNS, 0)
    for name, k, n, a, n_keys in result.rows:
        breakdowns[name].append({"key": k, "failures": int(n), "assets": int(a)})
        keys[name] = int(n_keys)
    return breakdowns, keys


def _results(w: Warehouse, assessment_id: str, base: str, params: list[Any], severity: str | None,
             whole_run: bool) -> tuple[dict[str, QueryResult], str]:
    """Each summary statement's result, and where it came from: for the whole run the summary written with the
    run when it is stored, otherwise (or for a narrower question) the statements over the results now — grouped
    in Python when the scope is small (``summary_rows``), by the engine otherwise."""
    stored = run_summary.read(w, assessment_id, severity) if whole_run else None
    if stored is not None:
        return stored, "summary stored with the run"
    head = w.query(base + f"SELECT * FROM b LIMIT {summary_rows.IN_PROCESS_MAX + 1}", params).dicts()
    if len(head) <= summary_rows.IN_PROCESS_MAX:  # a small scope: grouped here, faster than seven statements
        return summary_rows.summarise(head, severity), "results"
    return query_all(w, statements(base, params, severity)), "results"


def analyse(w: Warehouse, query_type: str, assessment_id: str = "latest", severity_filter: str | None = None,
            product_filter: str | None = None, focus_area: str | None = None,
            scope: dict[str, Any] | None = None, collection: str = FLEET, viewer: str | None = None, *,
            catalog: Catalog) -> dict[str, Any]:
    focus_area = ",".join(t.strip() for t in (focus_area or "").split(",") if t.strip()) or None  # " " is no topic
    product_filter = (product_filter or "").strip() or None
    run = resolve_assessment(w, assessment_id, collection=collection, viewer=viewer)
    base, params, scope = _filters(w, run.assessment_id, scope, product_filter, focus_area)
    whole_run = base == run_summary.whole_run(run.assessment_id)[0]  # no scope, product or topic condition
    found, computed_from = _results(w, run.assessment_id, base, params, severity_filter, whole_run)
    assets, checks, failed, passed, excepted, rules, assets_failing, at_risk, matching, assets_matching = (
        int(x or 0) for x in found["metrics"].rows[0])
    metrics = {
        "assessment_id": run.assessment_id, "assessment_date": run.started_at, "scope": describe_scope(scope),
        "assets_assessed": assets, "rules_evaluated": rules, "checks_performed": checks, "checks_failed": failed,
        "checks_passed": passed, "exceptions_applied": excepted,
        "pass_rate_pct": percent(passed, checks),
        "assets_with_failures": assets_failing, "assets_at_risk": at_risk,
        "pct_assets_at_risk": percent(at_risk, assets),
    }
    if 0 < assets <= NAMED_UP_TO and not whole_run:  # "summarize the DataCenter-2 firewalls": which two
        metrics["assets_named"] = [str(r[0]) for r in w.query(base + "SELECT DISTINCT asset_id FROM b ORDER BY 1",
                                                              params).rows]
    if focus_area or product_filter:  # how many checks the scope has without the topic filter, for context
        plain, plain_params, _ = _filters(w, run.assessment_id, scope, None, None)
        metrics["checks_in_scope"] = int(w.query(plain + "SELECT COUNT(*) FROM b", plain_params).rows[0][0] or 0)
    if severity_filter:
        metrics.update({"severity_filter": severity_filter, "matching_failures": matching,
                        "assets_with_matching_failures": assets_matching,
                        "pct_assets_with_matching_failures": percent(assets_matching, assets)})
    breakdowns, breakdown_keys = _breakdowns(found["breakdowns"])
    top_rules = found["top_rules"].dicts()
    _platform_fixes(top_rules, found["rule_platforms"].rows, catalog)
    top_assets = found["top_assets"].dicts()
    sample = found["sample"].dicts()
    result: dict[str, Any] = {
        "query_type": query_type, "collection": run.collection, "metrics": metrics, "breakdowns": breakdowns,
        "breakdown_keys": breakdown_keys,
        "top_rules": top_rules,
        "top_assets": top_assets, "results_sample": sample, "sample_cap": SAMPLE_CAP,
        "row_count": checks, "scope_applied": scope, "focus_area": focus_area, "computed_from": computed_from,
    }
    if query_type == "exceptions":
        result["exceptions_applied"] = w.query(base + """
            SELECT b.exception_id, b.rule_id, COUNT(DISTINCT b.asset_id) AS assets, MIN(e.reason) AS reason,
                   MIN(e.expires_on) AS expires_on, MIN(e.source_document) AS source_document
            FROM b JOIN exceptions e ON e.exception_id = b.exception_id
            WHERE b.status = 'exception' GROUP BY b.exception_id, b.rule_id ORDER BY b.exception_id""", params).dicts()
    return result

