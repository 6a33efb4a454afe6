"""Answer Markdown that renders as meant: citation markers placed outside code, and a check of the rendered
structure with a real Markdown parser (markdown-it-py, CommonMark + tables) — fences closed, no citation
marker inside code, every marker backed by a listed source, no table row left outside its table.

``assess eval`` runs the check over every answer it produces; the tests run it over answers of every kind.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
MARKER = re.compile(r"\[(\d+)\]")
SOURCE_LINE = re.compile(r"^\[(\d+)\] \S")


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each table of a Markdown text as the parser reads it: its header cells and body rows (bold and code marks
    removed from the cell text)."""
    out: list[tuple[list[str], list[list[str]]]] = []
    row: list[str] = []
    in_cell = False
    for t in _parser().parse(text):
        if t.type == "table_open":
            out.append(([], []))
        elif t.type == "tr_open":
            row = []
        elif t.type in ("th_open", "td_open"):
            in_cell = True
        elif t.type == "inline" and in_cell:
            row.append(re.sub(r"\*\*|`", "", t.content).strip())
            in_cell = False
        elif t.type in ("th_close", "td_close") and in_cell:  # an empty cell has no inline token
            row.append("")
            in_cell = False
        elif t.type == "tr_close":
            header, body = out[-1]
            (body.append(row) if header else header.extend(row))
    return out


def cell(value: object, limit: int = 80) -> str:
    """A value as one table cell: never a ``|`` or line break that would end the cell or the row."""
    text = "—" if value is None or value == "" else str(value)
    text = text.replace("|", "/").replace("\n", "; ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table (a header row, then the rows as they are: nothing is sorted or cut here)."""
    lines = ["| " + " | ".join(cell(h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def code_block(text: str, indent: int = 0) -> str:
    """A fenced block, indented to sit inside a list item; the fence is longer than any backtick run inside."""
    fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " * indent
    return "\n".join([pad + fence, *(pad + line for line in text.split("\n")), pad + fence])


def place_markers(text: str, marks: str) -> str:
    """Citation markers at the end of the text's first paragraph of prose — never inside or right after a
    code fence, where they would break it."""
    if not marks:
        return text
    lines = text.split("\n")
    in_fence, end = False, None
    for i, line in enumerate(lines):
        if FENCE.match(line):
            if end is not None:
                break
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if line.strip() and not line.lstrip().startswith("|"):
            end = i
        elif end is not None:
            break
    if end is None:
        return f"{marks}\n\n{text}"
    lines[end] = f"{lines[end].rstrip()} {marks}"
    return "\n".join(lines)


def markdown_problems(answer: str, cited: set[int] | None = None) -> list[str]:
    """What is wrong with an answer's Markdown as a renderer sees it; empty when it renders as meant.

    ``cited``: the citation numbers the answer carries (``final.citations``); every marker in prose must be
    one of them and listed under **Sources**."""
    tokens = _parser().parse(answer)
    lines = answer.split("\n")
    problems: list[str] = []
    prose_markers: set[int] = set()
    table_lines: set[int] = set()
    code_lines: set[int] = set()
    for t in tokens:
        if t.type == "fence" and t.map:
            start, end = t.map
            code_lines.update(range(start, end))
            closing = lines[end - 1].strip() if end - 1 > start else ""
            if not (closing and set(closing) == {t.markup[0]} and len(closing) >= len(t.markup)):
                problems.append(f"code fence opened on line {start + 1} is never closed")
        marker = MARKER.search(t.content) if t.type in ("fence", "code_block") else None
        if marker:
            problems.append(f"citation marker inside a code block: {marker.group(0)}")
        if t.type == "code_block" and t.map:
            code_lines.update(range(*t.map))
        if t.type == "table_open" and t.map:
            table_lines.update(range(*t.map))
        if t.type == "inline":
            for child in t.children or []:
                if child.type == "code_inline" and MARKER.search(child.content):
                    problems.append(f"citation marker inside inline code: `{child.content[:60]}`")
                elif child.type == "text":
                    prose_markers.update(int(n) for n in MARKER.findall(child.content))
    for i, line in enumerate(lines):
        if line.lstrip().startswith("|") and line.rstrip().endswith("|") and i not in table_lines | code_lines:
            problems.append(f"table row outside a table on line {i + 1}")
    listed = {int(m.group(1)) for i, line in enumerate(lines) if i not in code_lines
              for m in [SOURCE_LINE.match(line.strip())] if m}
    if cited is not None:
        problems += [f"marker [{n}] has no citation" for n in sorted(prose_markers - cited)]
        problems += [f"citation [{n}] is not listed under Sources" for n in sorted(cited - listed)]
    return problems


_MARKER = re.compile(r"\[(\d{1,3})\]")
_SOURCE_LABEL = re.compile(r"^\s*(?:[-*]\s*)?\[\d{1,3}\]\s")  # "[1] standard-snmpv3.md …" under Sources


def cited_words(answer: str) -> dict[int, list[str]]:
    """Citation number → the words of the answer that carry its marker: on each line, the text before the marker back
    to the previous marker or the line's start (list markers and a leading bold label aside). Code and the Sources
    list cite nothing."""
    out: dict[int, list[str]] = {}
    prose = re.sub(r"```.*?```", "\n", answer, flags=re.S)
    for line in prose.split("\n"):
        if _SOURCE_LABEL.match(line):
            continue
        start, words = 0, ""
        for m in _MARKER.finditer(line):
            text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+|^\s*\*\*[^*]{1,60}\*\*:?\s*", "", line[start:m.start()]).strip()
            words = text or words  # "… [1][2]": the same words cite both
            start = m.end()
            if words and re.search(r"\w", words):
                out.setdefault(int(m.group(1)), []).append(words)
    return out
