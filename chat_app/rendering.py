"""Plain functions that turn STATE pieces into what the chat shows (testable without a browser)."""

from __future__ import annotations

import re

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
    def link(match: re.Match[str]) -> str:
        citation = cited.get(int(match.group(1)))
        if citation is None or line.startswith(citation.label, match.start()):
            return match.group(0)
        chunk = ctx.chunk(citation.chunk_id) if ctx else None
        return f'[[{citation.number}]](#cite-{citation.number} "{_title(chunk.content if chunk else citation.excerpt)}")'

    parts = line.split("`")  # inline code keeps its brackets: odd parts are code
    return "`".join(part if i % 2 else MARKER.sub(link, part) for i, part in enumerate(parts))


MARKER = re.compile(r"(?<![\[\w])\[(\d{1,3})\](?![\(\[])")


def _title(text: str) -> str:
    """A Markdown link title: one line without pipes, cut at a word, quotes and backslashes escaped."""
    flat = " ".join(text.replace("#", " ").replace("|", "/").split())  # a pipe would cut a table row
    if len(flat) > PREVIEW_CHARS:
        flat = flat[:PREVIEW_CHARS].rsplit(" ", 1)[0] + " …"
    return flat.replace("\\", "\\\\").replace('"', '\\"')
