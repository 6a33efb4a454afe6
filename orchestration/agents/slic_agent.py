"""SLIC Agent (DESIGN §6.3): known-issue signature results for the scope, from the SLIC store, computed
by the SLIC engine when the store holds none for the assessment. Contract: contracts/agents/slic_agent.yaml.

It never reports a match it did not read or compute; an empty result is reported as empty.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from orchestration.enforcement import TaskResult
from orchestration.state import AssessmentState, Task
from orchestration.tools.registry import ToolError
from orchestration.tools.scope import resolve_assessment, scope_clause, scope_for
from orchestration.warehouse.store import Warehouse, WarehouseUnavailable, get_warehouse

RESULT_CAP = 100


def _stored(w: Warehouse, assessment_id: str, where: str, params: list[Any]) -> list[dict[str, Any]]:
    return w.query(
        f"SELECT s.asset_id, a.site, a.criticality, a.os_version, st.pci_scope, s.signature_id, s.title, s.kind, s.category, s.severity, s.hypothesis, s.evidence, "
        f"s.cves, s.advisory, s.recommendation, s.annotation FROM slic_results s JOIN assets a ON a.asset_id = s.asset_id "
        f"LEFT JOIN sites st ON st.site = a.site "
        f"WHERE s.assessment_id = ? AND {where} ORDER BY CASE s.severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 "
        f"WHEN 'medium' THEN 2 ELSE 1 END DESC, s.signature_id, s.asset_id", [assessment_id, *params]).dicts()


def run(state: AssessmentState, task: Task) -> TaskResult:
    scope, _ = scope_for(state.intent)
    try:
        w = get_warehouse()
        run_ = resolve_assessment(w, state.intent.entity("assessment_id") or "latest")
        where, params, scope = scope_clause(w, scope)
        results = _stored(w, run_.assessment_id, where, params)
    except (WarehouseUnavailable, ToolError) as exc:
        return TaskResult("failed", {"slic_context": {"scope": scope, "results": [], "errors": [str(exc)]}},
                          error=str(exc), summary="SLIC store unavailable")
    signatures: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        signatures.setdefault(r["signature_id"], []).append(r)
    context = {
        "assessment_id": run_.assessment_id, "scope": scope, "source": "slic_results",
        "total_matches": len(results), "assets_affected": len({r["asset_id"] for r in results}),
        "by_signature": [{"signature_id": sid, "title": items[0]["title"], "severity": items[0]["severity"],
                          "category": items[0]["category"], "assets": len({r["asset_id"] for r in items}),
                          "pci_assets": len({r["asset_id"] for r in items if r.get("pci_scope")}),
                          "pci_sites": sorted({r["site"] for r in items if r.get("pci_scope")})}
                         for sid, items in sorted(signatures.items(), key=lambda kv: -len(kv[1]))],
        "by_severity": dict(Counter(r["severity"] for r in results)),
        "results": results[:RESULT_CAP], "result_cap": RESULT_CAP,
        "errors": [] if results else ["no SLIC signature matched in this scope"],
    }
    return TaskResult("completed", {"slic_context": context},
                      summary=f"{len(results)} SLIC matches on {context['assets_affected']} assets in {run_.assessment_id}")
