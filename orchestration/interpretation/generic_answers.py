"""Answers to how-to and why questions (skills *_generic) from the organization's standards, plus the
rule catalog's rationale where a rule is about the same thing. Extractive: the answer quotes what the
retrieved chunks say and names them; no chunk → industry practice from the catalog, stated as such."""

from __future__ import annotations

import re
from typing import Any

from orchestration.interpretation.enterprise import applied, sentences, without_orders
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
             "remediation": "\n".join(r.default_fix), "refs": r.refs} for n, r in scored if n == best][:3]


def _lower_first(title: str) -> str:
    """'NTP authentication…' stays, 'Telnet is disabled' → 'telnet is disabled' (acronyms keep their case)."""
    return title if title[1:2].isupper() else title[:1].lower() + title[1:]


def _heading(chunk: RetrievedChunk) -> str:
    """The chunk's own heading (the last part of its section path), '' when it is the document title."""
    tail = chunk.metadata.section.split(" › ")[-1].strip()
    return "" if tail in ("", chunk.metadata.title) else tail


def answer(prompt: str, chunks: list[RetrievedChunk], skill: str) -> DomainOutputs:
    rules = _catalog_rules(prompt)
    terms = _terms(prompt)
    used = chunks[:3]
    config, config_from = "", ""
    scored: list[tuple[int, int, int, str]] = []
    for rank, c in enumerate(used):
        blocks = _CODE.findall(c.content)
        heading = _heading(c)
        # a code block under the heading the question names (a platform) beats the first one found
        if blocks and (not config or (heading and _terms(heading) & terms and not _terms(config_from) & terms)):
            config, config_from = blocks[0].strip(), heading
        # the section path says what a chunk is about even where its sentences word it differently
        # ("SNMP version 3" under "SNMPv3 …"), so the better-ranked chunk's requirement leads
        about = _terms(c.metadata.section or c.metadata.title)
        for position, sentence in enumerate(sentences(c.content)):
            overlap = len((_terms(sentence) | about) & terms)
            if overlap:  # what the standard requires comes before its side notes (orders are never among them)
                scored.append((overlap + int(bool(NORMATIVE.search(sentence))), rank, position, sentence))
    best = sorted(scored, key=lambda x: (-x[0], x[1], x[2]))[:5]
    picked = [s for _, _, _, s in sorted(best, key=lambda x: (x[1], x[2]))]  # read in document order
    lines = [s if s.endswith((".", ":", ")")) else s + "." for s in dict.fromkeys(picked)]
    applied_ctx = [applied(c) for c in used]
    if used:
        top = used[0].metadata
        summary = f"According to our {top.title or top.source}: " + (
            " ".join(lines) if lines else without_orders(used[0].content)[:400])
        if config:
            label = f" (section \"{config_from}\")" if config_from else ""
            summary += f"\n\nReference configuration{label}:\n```\n{config}\n```"
        assumptions: list[str] = []
    else:
        summary = "No enterprise standard in the knowledge base covers this question. Industry practice (CIS benchmarks):"
        assumptions = ["No enterprise context was retrieved; the answer is generic industry practice from the rule catalog."]
    if rules:
        why = " ".join(f"{r['rule_id']} checks that {_lower_first(r['title'])}: {r['rationale']}" for r in rules[:2])
        summary += f"\n\nWhy the assessment checks this: {why}"
        if not used:
            summary += "\n\nFix:\n```\n" + rules[0]["remediation"] + "\n```"
    return DomainOutputs(summary=summary, findings=[], assumptions=assumptions,
                         statistics={"chunks_used": len(used), "rules_referenced": [r["rule_id"] for r in rules]},
                         enterprise_context_applied=applied_ctx, prioritized_risks=[], chart_hints=[])
