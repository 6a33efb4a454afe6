"""``slic_results_tool`` (DESIGN §6.3): the SLIC signature matches of one assessment in a scope, grouped by
signature, most severe first. The SLIC Agent's one read of the SLIC store.

Counts and groups are computed in the engine and only the first ``RESULT_CAP`` matches are fetched: at 10,000
devices a run has tens of thousands of matches, each with its evidence and advisory text.
"""

from __future__ import annotations

from typing import Any

from orchestration.tools.scope import FLEET, resolve_assessment, scope_clause
from orchestration.vocabulary.severity import rank_sql
from orchestration.warehouse.store import Warehouse

RESULT_CAP = 100
MATCHES = """
WITH m AS (
  SELECT s.asset_id, a.site, a.criticality, a.os_version, st.pci_scope, s.signature_id, s.title, s.kind,
         s.category, s.severity, s.hypothesis, s.evidence, s.cves, s.advisory, s.recommendation, s.annotation
  FROM slic_results s JOIN assets a ON a.asset_id = s.asset_id LEFT JOIN sites st ON st.site = a.site
  WHERE s.assessment_id = ? AND {where}
)
"""


def slic_results_tool(w: Warehouse, assessment_id: str = "latest", scope: dict[str, Any] | None = None,
                      collection: str = FLEET, viewer: str | None = None) -> dict[str, Any]:
    run = resolve_assessment(w, assessment_id, collection=collection, viewer=viewer)
    where, params, applied = scope_clause(w, scope)
    base, params = MATCHES.format(where=where), [run.assessment_id, *params]
    rank = rank_sql("m.severity")
    total, assets = w.query(base + "SELECT COUNT(*), COUNT(DISTINCT m.asset_id) FROM m", params).rows[0]
    signatures = w.query(base + f"""
        SELECT m.signature_id, MIN(m.title) AS title, MIN(m.severity) AS severity, MIN(m.category) AS category,
               COUNT(DISTINCT m.asset_id) AS assets,
               COUNT(DISTINCT CASE WHEN m.pci_scope THEN m.asset_id END) AS pci_assets
        FROM m GROUP BY m.signature_id ORDER BY COUNT(*) DESC, MAX({rank}) DESC, m.signature_id""", params).dicts()
    pci_sites: dict[str, list[str]] = {}
    for signature_id, site in w.query(base + "SELECT DISTINCT m.signature_id, m.site FROM m WHERE m.pci_scope "
                                             "ORDER BY m.site", params).rows:
        pci_sites.setdefault(signature_id, []).append(site)
    by_severity = w.query(base + f"SELECT m.severity, COUNT(*) FROM m GROUP BY m.severity ORDER BY MAX({rank}) DESC, "
                                 "m.severity", params).rows
    results = w.query(base + f"SELECT * FROM m ORDER BY {rank} DESC, m.signature_id, m.asset_id LIMIT {RESULT_CAP}",
                      params).dicts()
    return {
        "assessment_id": run.assessment_id, "collection": run.collection, "scope_applied": applied,
        "total_matches": int(total), "assets_affected": int(assets),
        "by_signature": [{**s, "assets": int(s["assets"]), "pci_assets": int(s["pci_assets"]),
                          "pci_sites": pci_sites.get(s["signature_id"], [])} for s in signatures],
        "by_severity": {severity: int(n) for severity, n in by_severity},
        "results": results, "result_cap": RESULT_CAP, "row_count": int(total),
    }
