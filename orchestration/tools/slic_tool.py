"""``slic_results_tool`` (DESIGN §6.3): the SLIC signature matches of one assessment in a scope, grouped by
signature, most severe first. The SLIC Agent's one read of the SLIC store."""

from __future__ import annotations

from collections import Counter
from typing import Any

from orchestration.tools.scope import FLEET, resolve_assessment, scope_clause
from orchestration.vocabulary.severity import rank_sql
from orchestration.warehouse.store import Warehouse

RESULT_CAP = 100


def slic_results_tool(w: Warehouse, assessment_id: str = "latest", scope: dict[str, Any] | None = None,
                      collection: str = FLEET, viewer: str | None = None) -> dict[str, Any]:
    run = resolve_assessment(w, assessment_id, collection=collection, viewer=viewer)
    where, params, applied = scope_clause(w, scope)
    rows = w.query(
        "SELECT s.asset_id, a.site, a.criticality, a.os_version, st.pci_scope, s.signature_id, s.title, s.kind, "
        "s.category, s.severity, s.hypothesis, s.evidence, s.cves, s.advisory, s.recommendation, s.annotation "
        "FROM slic_results s JOIN assets a ON a.asset_id = s.asset_id LEFT JOIN sites st ON st.site = a.site "
        f"WHERE s.assessment_id = ? AND {where} ORDER BY {rank_sql('s.severity')} DESC, s.signature_id, s.asset_id",
        [run.assessment_id, *params]).dicts()
    by_signature: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_signature.setdefault(r["signature_id"], []).append(r)
    return {
        "assessment_id": run.assessment_id, "collection": run.collection, "scope_applied": applied,
        "total_matches": len(rows), "assets_affected": len({r["asset_id"] for r in rows}),
        "by_signature": [{"signature_id": sid, "title": items[0]["title"], "severity": items[0]["severity"],
                          "category": items[0]["category"], "assets": len({r["asset_id"] for r in items}),
                          "pci_assets": len({r["asset_id"] for r in items if r.get("pci_scope")}),
                          "pci_sites": sorted({r["site"] for r in items if r.get("pci_scope")})}
                         for sid, items in sorted(by_signature.items(), key=lambda kv: -len(kv[1]))],
        "by_severity": dict(Counter(r["severity"] for r in rows)),
        "results": rows[:RESULT_CAP], "result_cap": RESULT_CAP, "row_count": len(rows),
    }
