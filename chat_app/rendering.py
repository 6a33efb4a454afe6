"""Plain functions that turn STATE pieces into what the chat shows (testable without a browser)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from foundation.yaml_files import ContractError
from orchestration.contracts import ContractSet
from orchestration.outputs import EnterpriseContext
from orchestration.state import AssessmentState, Citation


def node_label(node: str, contracts: ContractSet) -> str:
    """A node's step name: its agent's name from the agent contracts (one list: the graph, the contracts and the
    chat agree); a node no agent owns (``dispatch``) by its own name."""
    try:
        return contracts.by_node(node).name
    except ContractError:
        return node


def final_notes(state: AssessmentState) -> str:
    final = state.final
    if not (final.partial or final.missing_inputs):
        return ""
    return f"\n\n> **Partial answer** — risk of error: {final.risk_of_error}."


PREVIEW_CHARS = 280  # of a cited chunk, shown when the pointer rests on its [n] marker


def linked_markers(answer: str, state: AssessmentState) -> str:
    """The answer with each inline ``[n]`` made a link to citation n that carries a preview of the chunk as its title:
    ``[[1]](#cite-1 "SNMPv1 and SNMPv2c communities are not allowed …")``. public/side-view.js opens the chunk on a
    click and shows the title as a preview on hover or focus. The labels under Sources (``[1] standard-snmpv3.md``)
    are left alone — Chainlit makes those the chips — and so is code."""
    cited = {c.number: c for c in state.final.citations}
    if not cited:
        return answer
    ctx = state.task_outputs("Knowledge Agent").enterprise_context
    out: list[str] = []
    fenced = False
    for line in answer.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.append(line if fenced or line.lstrip().startswith("```") else _link_line(line, cited, ctx))
    return "\n".join(out)


def _link_line(line: str, cited: dict[int, Citation], ctx: EnterpriseContext | None) -> str:
    said = [0]  # where the words a marker cites begin: after the marker before it, or the line's start

    def link(match: re.Match[str], offset: int) -> str:
        citation = cited.get(int(match.group(1)))
        start, said[0] = said[0], offset + match.end()
        if citation is None or line.startswith(citation.label, offset + match.start()):
            return match.group(0)
        chunk = ctx.chunk(citation.chunk_id) if ctx else None
        content = citation.content or (chunk.content if chunk else citation.excerpt)
        words = line[start:offset + match.start()]
        return f'[[{citation.number}]](#cite-{citation.number} "{_escaped(preview(content, words))}")'

    parts, out, offset = line.split("`"), [], 0  # inline code keeps its brackets: odd parts are code
    for i, part in enumerate(parts):
        out.append(part if i % 2 else MARKER.sub(functools.partial(_at, link, offset), part))
        offset += len(part) + 1
    return "`".join(out)


def _at(link: Callable[[re.Match[str], int], str], offset: int, match: re.Match[str]) -> str:
    return link(match, offset)


MARKER = re.compile(r"(?<![\[\w])\[(\d{1,3})\](?![\(\[])")


def _flat(text: str) -> str:
    """One line of a chunk's text as prose: no code fences, headings' hashes or pipes (a pipe would cut a table row)."""
    text = re.sub(r"```\w*", " ", text)
    text = re.sub(r"(?m)^\s*(?:[-*]|\d+\.)\s+", " ", text).replace("`", "")  # list markers and code quotes
    return " ".join(text.replace("#", " ").replace("|", "/").split())


def _escaped(text: str) -> str:
    """A Markdown link title: quotes and backslashes escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


HIGHLIGHT = ("«", "»")  # around the cited words in a preview (public/side-view.js marks them)


def located(content: str, words: str) -> list[tuple[int, int]]:
    """Where in ``content`` each sentence of ``words`` (the answer's quote) stands: the same words in the same order,
    whatever lies between them (line breaks, Markdown, a rule tag's brackets); a sentence not found is left out."""
    spans = []
    for sentence in re.split(r"(?<=[.!?])\s+", words):
        tokens = re.findall(r"[A-Za-z0-9]+", sentence)
        if len(tokens) < 3:
            continue
        found = re.search(r"[\W_]*".join(map(re.escape, tokens)) + r"[.!?:;)\]]{0,2}", content, re.I)
        if found:
            spans.append(found.span())
    return spans


def preview(content: str, words: str) -> str:
    """What a marker's hover shows: the chunk around the words it cites, each of its sentences marked («…»), about
    PREVIEW_CHARS long; the chunk's start when its words are not found in it (a table row's marker says which document
    applies to the row, it quotes nothing)."""
    spans = located(content, words)
    if not spans:
        flat = _flat(content)
        return flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS].rsplit(" ", 1)[0] + " …"
    spans = sorted(spans)
    cited = sum(end - start for start, end in spans)
    room = max(PREVIEW_CHARS - cited, 60)
    lo, hi = max(0, spans[0][0] - room // 3), min(len(content), spans[-1][1] + room // 2)
    pieces, at = [], lo
    for start, end in spans:
        if start < at:
            continue
        pieces += [_flat(content[at:start]), f"{HIGHLIGHT[0]}{_flat(content[start:end])}{HIGHLIGHT[1]}"]
        at = end
    pieces.append(_flat(content[at:hi]))
    text = " ".join(p for p in pieces if p)
    return ("… " if lo else "") + text + (" …" if hi < len(content) else "")


def highlighted(content: str, quoted: list[str]) -> str:
    """The chunk as the side view shows it when its citation is opened: the sentences the answer quotes from it in
    bold (bold inside them dropped, so that the emphasis holds)."""
    spans = sorted({span for words in quoted for span in located(content, words)})
    # (a quoted line of a configuration block stays as written: bold would show as asterisks inside the code)
    fences = [m.span() for m in re.finditer(r"```.*?```", content, re.S)]
    out, last = [], 0
    for start, end in spans:
        if start < last or any(a <= start < b for a, b in fences):
            continue  # overlapping quotes: the first one marks it
        out += [content[last:start], "**" + content[start:end].replace("**", "") + "**"]
        last = end
    return "".join(out) + content[last:]
