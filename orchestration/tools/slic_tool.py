"""``slic_results_tool`` (DESIGN §6.3): the SLIC signature matches of one assessment in a scope, grouped by
signature, most severe first. The SLIC Agent's one read of the SLIC store.

A scope with few matches (a site, the demo network) is fetched whole and grouped here: one statement, the
cheapest way for a few hundred rows. A larger one (a 10,000-device fleet has tens of thousands of matches, each
with its evidence and advisory text) is counted and grouped in the engine, and only its first ``RESULT_CAP``
matches are fetched. Both give the same answer (``tests/unit/test_tool_sql.py``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from assessment_engine.warehouse.store import Warehouse, query_all
from foundation.vocabulary.severity import rank_sql
from orchestration.tools.scope import FLEET, resolve_assessment, scope_clause

RESULT_CAP = 100
GROUP_HERE_MAX = 500  # matches fetched whole and grouped in Python; above this the engine groups them
MATCHES = """
WITH m AS (
  SELECT s.asset_id, a.site, a.criticality, a.os_version, st.pci_scope, s.signature_id, s.title, s.kind,
         s.category, s.severity, s.hypothesis, s.evidence, s.cves, s.advisory, s.recommendation, s.annotation
  FROM slic_results s JOIN assets a ON a.asset_id = s.asset_id LEFT JOIN sites st ON st.site = a.site
  WHERE s.assessment_id = ? AND {where}
)
"""
ORDER = f"ORDER BY {rank_sql('m.severity')} DESC, m.signature_id, m.asset_id"


def _grouped_here(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_signature: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_signature.setdefault(r["signature_id"], []).append(r)
    return {
        "total_matches": len(rows), "assets_affected": len({r["asset_id"] for r in rows}),
        "by_signature": [{"signature_id": sid, "title": items[0]["title"], "severity": items[0]["severity"],
                          "category": items[0]["category"], "assets": len({r["asset_id"] for r in items}),
                          "pci_assets": len({r["asset_id"] for r in items if r.get("pci_scope")}),
                          "pci_sites": sorted({r["site"] for r in items if r.get("pci_scope")})}
                         for sid, items in sorted(by_signature.items(), key=lambda kv: -len(kv[1]))],
        "by_severity": dict(Counter(r["severity"] for r in rows)),
    }


def _grouped_in_engine(w: Warehouse, base: str, params: list[Any]) -> dict[str, Any]:
    rank = rank_sql("m.severity")
    found = query_all(w, {
        "totals": (base + "SELECT COUNT(*), COUNT(DISTINCT m.asset_id) FROM m", params),
        "signatures": (base + f"""
            SELECT m.signature_id, MIN(m.title) AS title, MIN(m.severity) AS severity, MIN(m.category) AS category,
                   COUNT(DISTINCT m.asset_id) AS assets,
                   COUNT(DISTINCT CASE WHEN m.pci_scope THEN m.asset_id END) AS pci_assets
            FROM m GROUP BY m.signature_id ORDER BY COUNT(*) DESC, MAX({rank}) DESC, m.signature_id""", params),
        "pci_sites": (base + "SELECT DISTINCT m.signature_id, m.site FROM m WHERE m.pci_scope ORDER BY m.site", params),
        "by_severity": (base + f"SELECT m.severity, COUNT(*) FROM m GROUP BY m.severity ORDER BY MAX({rank}) DESC, "
                               "m.severity", params),
    })
    total, assets = found["totals"].rows[0]
    pci_sites: dict[str, list[str]] = {}
    for signature_id, site in found["pci_sites"].rows:
        pci_sites.setdefault(signature_id, []).append(site)
    return {
        "total_matches": int(total), "assets_affected": int(assets),
        "by_signature": [{**s, "assets": int(s["assets"]), "pci_assets": int(s["pci_assets"]),
                          "pci_sites": pci_sites.get(s["signature_id"], [])} for s in found["signatures"].dicts()],
        "by_severity": {severity: int(n) for severity, n in found["by_severity"].rows},
    }


def slic_results_tool(w: Warehouse, assessment_id: str = "latest", scope: dict[str, Any] | None = None,
                      collection: str = FLEET, viewer: str | None = None,
                      signatures: list[str] | None = None) -> dict[str, Any]:
    run = resolve_assessment(w, assessment_id, collection=collection, viewer=viewer)
    where, params, applied = scope_clause(w, scope)
    if signatures:  # the ones a question names: filtered before the cap, or a low-severity one is cut off unseen
        where += f" AND upper(s.signature_id) IN ({', '.join('?' * len(signatures))})"
        params = [*params, *(s.upper() for s in signatures)]
    base, params = MATCHES.format(where=where), [run.assessment_id, *params]
    head = w.query(base + f"SELECT * FROM m {ORDER} LIMIT {max(GROUP_HERE_MAX, RESULT_CAP) + 1}", params).dicts()
    grouped = _grouped_here(head) if len(head) <= GROUP_HERE_MAX else _grouped_in_engine(w, base, params)
    return {
        "assessment_id": run.assessment_id, "collection": run.collection, "scope_applied": applied, **grouped,
        "results": head[:RESULT_CAP], "result_cap": RESULT_CAP, "row_count": grouped["total_matches"],
    }
