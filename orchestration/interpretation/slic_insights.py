"""Expert insights (DESIGN §7, skills *_expert_insights): SLIC signature matches interpreted against the
organization's policies, approved exceptions and escalation procedures, with the source cited.

CVEs are named only from the signature catalog's mapping carried in the SLIC results, never inferred.
"""

from __future__ import annotations

from collections.abc import Sequence

from foundation.vocabulary import severity
from orchestration.interpretation.enterprise import applied, by_topic, chunks_mentioning
from orchestration.interpretation.findings import devices
from orchestration.outputs import (
    AppliedContext,
    DomainOutputs,
    Finding,
    PrioritizedRisk,
    RetrievedChunk,
    SignatureTotal,
    SlicContext,
    SlicMatch,
)

SRC = "plan.tasks[SLIC Agent].outputs.slic_context.results"


def _policy_mapping(sig: SlicMatch, results: list[SlicMatch], chunks: list[RetrievedChunk]) -> list[AppliedContext]:
    mapped = [applied(c, sig.signature_id) for c in chunks_mentioning(chunks, sig.signature_id)]
    pci_assets = [r for r in results if r.pci_scope]
    if pci_assets and sig.category == "security":
        mapped += by_topic(chunks, "policies", "PCI")[:1]
    if sig.severity in severity.HIGH_OR_ABOVE and sig.category == "security":
        mapped += by_topic(chunks, "escalation_procedures", "P1" if sig.severity == "critical" else "P2")[:1]
    if sig.category in ("reliability", "lifecycle"):
        mapped += [applied(c, "SLIC") for c in chunks if c.metadata.source == "procedure-slic-findings-review.md"][:1]
    if any(r.cves for r in results):
        mapped += by_topic(chunks, "policies", "vulnerab")[:1]
    seen: set[str] = set()
    out = []
    for m in mapped:
        if m.chunk_id not in seen:
            seen.add(m.chunk_id)
            out.append(m)
    return out


def insights(slic: SlicContext, chunks: list[RetrievedChunk], mentions_pci: bool, limit: int,
             prefix: str = "SLIC", security_only: bool = False, signatures: Sequence[str] = ()) -> DomainOutputs:
    """The matches read as findings, most severe first; ``signatures``: the ones the question names ("what does
    SLIC-SW-001 mean for us"), the only ones it is about."""
    named = {s.upper() for s in signatures}
    results = [r for r in slic.results if (not security_only or r.category == "security") and
               (not named or r.signature_id.upper() in named)]
    totals: dict[str, SignatureTotal] = {s.signature_id: s for s in slic.by_signature
                                         if (not security_only or s.category == "security") and
                                         (not named or s.signature_id.upper() in named)}
    by_sig: dict[str, list[SlicMatch]] = {}
    for r in results:  # a capped sample: counts come from ``totals`` (computed over every match)
        by_sig.setdefault(r.signature_id, []).append(r)
    ordered = sorted(((sid, by_sig[sid]) for sid in totals if sid in by_sig),
                     key=lambda kv: (-severity.rank(kv[1][0].severity), -totals[kv[0]].assets, kv[0]))
    findings = []
    for i, (sid, items) in enumerate(ordered[:limit], start=1):
        first = items[0]
        total = totals[sid]
        mapping = _policy_mapping(first, items, chunks)
        exception = next((m for m in mapping if m.topic == "approved_exceptions"), None)
        pci = total.pci_sites
        cves = sorted({c for r in items for c in (r.cves or "").split(",") if c})
        impact = first.hypothesis or ""
        if pci:
            impact += (f" {total.pci_assets} of the affected devices are in PCI scope at {len(pci)} site(s) "
                       f"({', '.join(pci[:8])}{' …' if len(pci) > 8 else ''}).")
        if cves:
            impact += f" Vulnerability mapping in the data: {', '.join(cves)} (advisory {first.advisory})."
        elif first.kind == "software":
            impact += " No CVE is mapped for this signature in the catalog."
        findings.append(Finding(
            id=f"{prefix}-{i:03d}", rule_id=sid, signature_id=sid, title=first.title,
            severity="low" if exception else first.severity, original_severity=first.severity,
            confidence=0.9 if first.kind != "event" else 0.8,
            evidence_refs=[f"{SRC}[signature_id={sid}]"], evidence=f"{first.asset_id}: {first.evidence}",
            impact=impact, recommendation=first.recommendation or "",
            assumptions=["Signature matches are hypotheses; confirm on the device before acting."]
                        + ([f"Downgraded: covered by an approved exception ({exception.source})."] if exception else []),
            data_gaps=[], enterprise_context_applied=mapping,
            entities_referenced=sorted({r.asset_id for r in items})[:10], applied_standards=[],
            delta_status=None, data_provenance=f"SLIC results of {slic.assessment_id}",
            assets_affected=total.assets, pci_assets=total.pci_assets, cves=cves, pci_sites=pci,
            annotations=sorted({r.annotation for r in items if r.annotation})[:3],
        ))
    ranked = sorted(findings, key=lambda f: -severity.rank(f.severity))[:5]
    summary = _one_signature(findings[0], slic) if named and len(findings) == 1 else \
        _summary(slic, results, findings, chunks, mentions_pci)
    if named and not findings:
        scope = ", ".join(slic.scope.get("sites") or []) or "the network"
        summary = f"**{', '.join(sorted(named))}** matched no device in {scope} ({slic.assessment_id})."
    return DomainOutputs(
        findings=findings, summary=summary,
        prioritized_risks=[PrioritizedRisk(rank=i + 1, finding_id=f.id, rule_id=f.rule_id, title=f.title,
                                           severity=f.severity, assets_affected=f.assets_affected, why=f.impact,
                                           action=f.recommendation) for i, f in enumerate(ranked)],
        statistics={"total_matches": slic.total_matches, "assets_affected": slic.assets_affected,
                    "by_signature": [s.model_dump() for s in slic.by_signature], "by_severity": slic.by_severity},
        chart_hints=[])


def _one_signature(f: Finding, slic: SlicContext) -> str:
    """What one signature named in the question means here: what it is, where it matched, its CVEs, what our
    documents say to do."""
    scope = ", ".join(slic.scope.get("sites") or []) or "the network"
    named = f": {', '.join(f.entities_referenced)}" if f.entities_referenced and len(f.entities_referenced) == \
        f.assets_affected else ""  # "which devices have the first one": those, when all are in hand
    parts = [f"**{f.signature_id}** — {f.title} ({f.original_severity}): matched on {devices(f.assets_affected or 0)} "
             f"in {scope} ({slic.assessment_id}){named}. {f.impact.strip()}".rstrip()]
    if f.recommendation:
        parts.append(f"Recommended: {f.recommendation.rstrip('.')}.")
    for m in f.enterprise_context_applied[:2]:
        parts.append(f"Per our {m.title}: {m.content_excerpt.rstrip('.')}.")
    return " ".join(parts)


def _summary(slic: SlicContext, results: list[SlicMatch], findings: list[Finding],
             chunks: list[RetrievedChunk], mentions_pci: bool) -> str:
    scope = ", ".join(slic.scope.get("sites") or []) or "the network"
    if not results:
        return f"No SLIC signature matched in {scope} for {slic.assessment_id}."
    sev = slic.by_severity
    counts = ", ".join(f"{sev[k]} {k}" for k in severity.SEVERITIES if sev.get(k))
    parts = [f"{slic.total_matches} SLIC signature match{'' if slic.total_matches == 1 else 'es'} on {devices(slic.assets_affected)} in {scope} "
             f"({slic.assessment_id}): {counts}."]
    pci = [f for f in findings if f.pci_sites and f.severity in ("critical", "high", "medium")]
    if mentions_pci:
        if pci:
            names = "; ".join(f"{f.title} ({devices(f.pci_assets or 0)} in PCI scope)" for f in pci[:4])
            parts.append(f"Yes — {len(pci)} signature(s) affect PCI-scoped store devices and therefore PCI-DSS "
                         f"compliance: {names}. Under our PCI-DSS Segmentation Policy these must be reported to the "
                         "Compliance Office within 5 business days unless an approved exception covers them.")
        else:
            parts.append("None of the matches affects a PCI-scoped site, so PCI-DSS compliance is not impacted by them.")
    top = "; ".join(f"{f.title} ({f.original_severity}, {devices(f.assets_affected)})" for f in findings[:3])
    parts.append(f"Most important: {top}.")
    cited: set[str] = set()
    for f in findings:
        for m in f.enterprise_context_applied:
            if m.topic in ("policies", "escalation_procedures", "approved_exceptions") and m.source not in cited:
                cited.add(m.source)
                parts.append(f"Per our {m.title}: {m.content_excerpt.rstrip('.')}.")
        if len(cited) >= 3:
            break
    if not chunks:
        parts.append("No enterprise policy was retrieved, so the matches are interpreted with industry practice only.")
    return " ".join(parts)
