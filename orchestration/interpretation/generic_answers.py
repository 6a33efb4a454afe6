"""Answers to how-to and why questions (skills *_generic) from the organization's standards, plus the
rule catalog's rationale where a rule is about the same thing. Extractive: the answer quotes what the
retrieved chunks say and names them; no chunk → industry practice from the catalog, stated as such."""

from __future__ import annotations

import re
from typing import Any

from orchestration.interpretation.enterprise import applied, sentences
from orchestration.outputs import DomainOutputs, RetrievedChunk

_CODE = re.compile(r"```\w*\n(.*?)```", re.S)
_WORD = re.compile(r"[a-z0-9][a-z0-9+.-]{2,}")
NORMATIVE = re.compile(r"\b(?:must|shall|required|requires|never|only|all (?:network )?devices)\b", re.I)
_STOP = frozenset(["the", "and", "for", "our", "what", "how", "why", "should", "with", "does", "are", "this", "that", "from", "into", "when", "which", "best", "practice", "configure", "configuring", "configuration", "according", "company", "standards", "standard", "flagged", "deviation"])


def _terms(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _catalog_rules(prompt: str) -> list[dict[str, Any]]:
    from orchestration.engines.rule_engine import get_rules

    terms = _terms(prompt)
    scored = []
    for r in get_rules():
        overlap = len(terms & (_terms(r.title) | {r.technology}))
        if overlap:
            scored.append((overlap, r))
    scored.sort(key=lambda x: -x[0])
    best = scored[0][0] if scored else 0
    return [{"rule_id": r.id, "title": r.title, "severity": r.severity, "rationale": r.rationale,
             "remediation": "\n".join(r.remediation), "refs": r.refs} for n, r in scored if n == best][:3]


def answer(prompt: str, chunks: list[RetrievedChunk], skill: str) -> DomainOutputs:
    rules = _catalog_rules(prompt)
    terms = _terms(prompt)
    used = chunks[:3]
    config = ""
    scored: list[tuple[int, int, str]] = []
    for rank, c in enumerate(used):
        for block in _CODE.findall(c.content):
            config = config or block.strip()
        for sentence in sentences(c.content):
            overlap = len(_terms(sentence) & terms)
            if overlap:  # what the standard requires comes before its side notes
                scored.append((overlap + int(bool(NORMATIVE.search(sentence))), -rank, sentence))
    picked = [s for _, _, s in sorted(scored, key=lambda x: (-x[0], -x[1]))[:5]]
    lines = [s if s.endswith((".", ":", ")")) else s + "." for s in dict.fromkeys(picked)]
    applied_ctx = [applied(c) for c in used]
    if used:
        top = used[0].metadata
        summary = f"According to our {top.title or top.source}: " + (
            " ".join(lines) if lines else used[0].content[:400])
        if config:
            summary += f"\n\nReference configuration:\n```\n{config}\n```"
        assumptions: list[str] = []
    else:
        summary = "No enterprise standard in the knowledge base covers this question. Industry practice (CIS benchmarks):"
        assumptions = ["No enterprise context was retrieved; the answer is generic industry practice from the rule catalog."]
    if rules:
        why = " ".join(f"{r['rule_id']} checks that {r['title'][0].lower() + r['title'][1:]}: {r['rationale']}"
                       for r in rules[:2])
        summary += f"\n\nWhy the assessment checks this: {why}"
        if not used:
            summary += "\n\nFix:\n```\n" + rules[0]["remediation"] + "\n```"
    return DomainOutputs(summary=summary, findings=[], assumptions=assumptions,
                         statistics={"chunks_used": len(used), "rules_referenced": [r["rule_id"] for r in rules]},
                         enterprise_context_applied=applied_ctx, prioritized_risks=[], chart_hints=[])
