"""Enterprise knowledge applied to findings: which retrieved chunks speak about a rule, a signature or a
policy question, with an excerpt and the source to cite. Nothing is matched that the chunk does not say."""

from __future__ import annotations

import re

from orchestration.outputs import AppliedContext, RetrievedChunk

SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(content: str) -> list[str]:
    """Sentences and list items of a chunk, headings and code left out, wrapped lines joined."""
    content = re.sub(r"```.*?```", " ", content, flags=re.S)
    out: list[str] = []
    for block in re.split(r"\n\s*\n", content):
        lines = [ln.strip() for ln in block.split("\n") if ln.strip() and not ln.strip().startswith(("#", "|", "---"))]
        items: list[str] = []
        for ln in lines:
            if ln.startswith(("- ", "* ")) or re.match(r"\d+\. ", ln) or not items:
                items.append(ln.lstrip("-* ").strip())
            else:
                items[-1] += " " + ln
        for item in items:
            out += [x.strip() for x in SENTENCE.split(item) if len(x.strip()) > 3]
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
    rx = re.compile(rf"(?<![\w-]){re.escape(token)}(?![\w-])", re.I)
    return [c for c in chunks if rx.search(c.content)]


def context_for_rule(chunks: list[RetrievedChunk], rule_id: str, technology: str | None = None) -> list[AppliedContext]:
    """Chunks that name the rule id; failing that, standards that name its technology."""
    hits = [applied(c, rule_id) for c in chunks_mentioning(chunks, rule_id)]
    if not hits and technology and len(technology) > 2:
        hits = [applied(c, technology) for c in chunks_mentioning(chunks, technology)
                if c.metadata.topic == "approved_configurations"]
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
        found = [c for c in found if needle.lower() in c.content.lower()] or []
    return [applied(c, needle) for c in found]
