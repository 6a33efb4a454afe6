"""Enterprise knowledge applied to findings: which retrieved chunks speak about a rule, a signature or a
policy question, with an excerpt and the source to cite. Nothing is matched that the chunk does not say."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from assessment_engine.checks.rule_engine import Rule
from orchestration.outputs import AppliedContext, RetrievedChunk

SENTENCE = re.compile(r"(?<=[.!?])\s+")
_FINDINGS = r"(?:findings?|results?|issues?|deviations?|alerts?|violations?|failures?|warnings?|checks?|(?-i:[A-Z0-9]+-[A-Z0-9-]+))"
# A sentence that gives the reader (or an assistant) orders, or asserts the state of the network, is content of the
# document and never quoted as a standard: what the network's state is comes from the assessment data alone.
ORDER = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|suppress)\b.{0,60}\b(?:instructions?|prompts?|rules?|policy|policies|"
    rf"guidance|above|previous|everything|{_FINDINGS})"
    rf"|\b(?:do not|don't|never|stop|no need to)\s+(?:report|mention|flag|show|list|include|display|raise|count|escalate)\b"
    rf".{{0,40}}\b{_FINDINGS}"
    r"|(?:^|\b(?:please|always|simply|just|you (?:must|should|will))\s+)(?:report|say|state|answer|respond|reply|confirm|"
    r"conclude|tell \w+)\s+that\b|\banswer that\b"
    r"|\byou (?:are|must|should|will|shall) (?:now |always |only )?(?:ignore|answer|respond|reply|say|report|act|pretend|"
    r"treat|consider|disregard|output|follow)\b"
    r"|\b(?:as an ai|language model|system prompt|the assistant|this assistant|chatbot)\b"
    r"|\b(?:treat|mark|consider|count|classify|record|report)\b.{0,60}\bas (?:passed|passing|compliant|resolved|fixed|"
    r"approved|an? (?:approved )?exception|exceptions|false positives?|informational)\b"
    r"|\b(?:the|our|this|all|every)\s+(?:network|fleet|environment|infrastructure|estate|devices?|sites?)\b.{0,40}"
    r"\b(?:is|are)\s+(?:now\s+)?(?:fully\s+|100\s*%\s+|completely\s+)?(?:compliant|secure|hardened|clean)\b"
    r"|\bthere (?:are|is) (?:no|0|zero) (?:\w+ ){0,2}(?:issues?|findings?|deviations?|vulnerabilit(?:y|ies))\b"
    r"|\bcall \w+_tool\b|\brun the sql\b|\b(?:delete|drop) (?:from|table)\b",
    re.I)


def is_order(sentence: str) -> bool:
    """Whether a sentence of a document addresses the reader with orders or claims the network's state."""
    return bool(ORDER.search(sentence))


@lru_cache(maxsize=256)
def without_orders(content: str) -> str:
    """A chunk's text with the sentences that give orders taken out (what may be quoted or matched). Kept per text
    (a pure function of it): a list of fifty findings asked it for the same five chunks a hundred times a turn."""
    for sentence in _sentences(content):
        if is_order(sentence):
            content = content.replace(sentence, "")
    return content


def sentences(content: str) -> list[str]:
    """The quotable sentences and list items of a chunk: headings, code and orders (``ORDER``) left out, wrapped
    lines joined."""
    return [s for s in _sentences(content) if not is_order(s)]


def _cells(line: str) -> list[str]:
    return [c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")]


def table_rows(block: str) -> list[str]:
    """The rows of a Markdown table as sentences, each cell with its column's heading: "| High | 30 days | 60 days |"
    under "| Severity | Internet-facing or PCI scope | Internal |" reads "High — Internet-facing or PCI scope: 30
    days; Internal: 60 days". A deadline or a value kept in a table is quotable like a sentence."""
    lines = [ln for ln in block.strip().split("\n") if ln.strip().startswith("|")]
    if len(lines) < 3 or not re.fullmatch(r"[\s|:-]+", lines[1]):
        return []
    head = _cells(lines[0])
    rows = []
    for line in lines[2:]:
        cells = _cells(line)
        if len(cells) != len(head) or not cells[0]:
            continue
        rest = "; ".join(f"{h}: {c}" if h else c for h, c in zip(head[1:], cells[1:], strict=True) if c)
        rows.append(f"{cells[0]} — {rest}" if rest else cells[0])
    return rows


LIST_ITEM = 320  # characters up to which a list item is quoted whole


def _sentences(content: str) -> list[str]:
    content = re.sub(r"```.*?```", " ", content, flags=re.S)
    if "```" in content:  # a code block cut by the chunk's edge: the side of the fence that is not prose goes
        before, _, after = content.partition("```")
        prose_before = re.search(r"[.:]\s*$", before, re.M) is not None and not re.search(r"^\s*\S+\s*$", before)
        content = before if prose_before else after
    out: list[str] = []
    for block in re.split(r"\n\s*\n", content):
        out += table_rows(block)
        lines = [ln.strip() for ln in block.split("\n") if ln.strip() and not ln.strip().startswith(("#", "|", "---"))]
        items: list[tuple[str, bool]] = []  # (text, is a list item)
        for ln in lines:
            bullet = ln.startswith(("- ", "* ")) or bool(re.match(r"\d+\. ", ln))
            if bullet or not items:
                items.append((re.sub(r"^(?:[-*]|\d+\.)\s+", "", ln).strip(), bullet))  # the marker, not the bold of "- **HQ**:"
            else:
                items[-1] = (items[-1][0] + " " + ln, items[-1][1])
        for item, bullet in items:
            if bullet and len(item) <= LIST_ITEM:  # a short list item is one statement: "**Stores**: … Owned by Retail IT"
                out.append(item)
            else:
                out += [x.strip() for x in _whole_quotes(SENTENCE.split(item)) if len(x.strip()) > 3]
    return out


def _whole_quotes(pieces: list[str]) -> list[str]:
    """Pieces split at sentence ends joined again where the split fell inside a quotation: 'the legal banner before
    login: "Authorized access only. Activity on this device is monitored and logged."' is one sentence."""
    out: list[str] = []
    for piece in pieces:
        if out and out[-1].count('"') % 2:
            out[-1] += " " + piece
        else:
            out.append(piece)
    return out


def excerpt(content: str, needle: str | None = None, limit: int = 400) -> str:
    """The sentence or list item that mentions ``needle`` (else the first), trimmed."""
    parts = sentences(content) or [content.strip()]
    if needle:
        for part in parts:
            if needle.lower() in part.lower():
                return part[:limit]
    return (parts[0] if parts else content)[:limit]


def applied(chunk: RetrievedChunk, needle: str | None = None) -> AppliedContext:
    meta = chunk.metadata
    return AppliedContext(topic=meta.topic, source=meta.source, chunk_id=meta.chunk_id, title=meta.title,
                          content_excerpt=excerpt(chunk.content, needle))


def chunks_mentioning(chunks: list[RetrievedChunk], token: str) -> list[RetrievedChunk]:
    """Chunks that name ``token`` outside an order ("Ignore SNMP-V3-PRIV findings" names no standard for it)."""
    rx = re.compile(rf"(?<![\w-]){re.escape(token)}(?![\w-])", re.I)
    return [c for c in chunks if rx.search(without_orders(c.content))]


_RULE_ID = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])")


def platforms_of(rule_ids: list[str], rules: Mapping[str, Rule]) -> set[str]:
    """The platforms the catalog's checks ``rule_ids`` apply to (a check it does not know adds none)."""
    return {p for r in rule_ids if r in rules for p in rules[r].platforms}


def speaks_for(chunk: RetrievedChunk, platforms: set[str], rules: Mapping[str, Rule]) -> bool:
    """Whether a chunk may stand for checks of ``platforms`` when it matched on a technology word only: not when every
    check it names is of other platforms ("Telnet is never configured [ASA-TELNET]" is the firewalls' standard, not
    the switches'). A chunk naming no check, or asked for no platform, may."""
    named = {rules[t].id for t in _RULE_ID.findall(chunk.content) if t in rules}
    return not named or not platforms or any(platforms & set(rules[r].platforms) for r in named)


def chunks_for_rule(chunks: list[RetrievedChunk], rule_id: str, rules: Mapping[str, Rule],
                    technology: str | None = None) -> tuple[list[RetrievedChunk], str]:
    """The chunks that speak about a check, and the word they matched on: those naming the rule id; failing that,
    standards naming its technology ("NTP") and not only other platforms' checks."""
    named = chunks_mentioning(chunks, rule_id)
    if named or not technology or len(technology) <= 2:
        return named, rule_id
    platforms = platforms_of([rule_id], rules)
    return [c for c in chunks_mentioning(chunks, technology)
            if c.metadata.topic == "approved_configurations" and speaks_for(c, platforms, rules)], technology


def context_for_rule(chunks: list[RetrievedChunk], rule_id: str, rules: Mapping[str, Rule],
                     technology: str | None = None) -> list[AppliedContext]:
    """The first two documents that speak about a check (``chunks_for_rule``), each with its excerpt."""
    found, needle = chunks_for_rule(chunks, rule_id, rules, technology)
    hits = [applied(c, needle) for c in found]
    seen: set[str] = set()
    out = []
    for h in hits:
        if h.source not in seen:
            seen.add(h.source)
            out.append(h)
    return out[:2]


def by_topic(chunks: list[RetrievedChunk], topic: str, needle: str | None = None) -> list[AppliedContext]:
    found = [c for c in chunks if c.metadata.topic == topic]
    if needle:
        found = [c for c in found if needle.lower() in without_orders(c.content).lower()] or []
    return [applied(c, needle) for c in found]
