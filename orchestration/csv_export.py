"""CSV of an answer's tables (issue 29): every Markdown table the answer shows, and the complete rows of its SQL-path
query — the chat shows 100 rows of a long list, the query returned up to the row cap. Each table is a file of its own
(CSV holds one table). Read from a stored turn (``MemoryStore.thread_states``), so a resumed thread exports the same.

Cells that a spreadsheet would run as a formula (``=``, ``+``, ``@``, or ``-`` before a non-number) are written with a
leading apostrophe: an exported device description must not become a formula on someone's desk.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

from orchestration.interpretation.markdown import tables as markdown_tables

_FORMULA = re.compile(r"^(?:[=+@]|-(?![\d.]))")


@dataclass(frozen=True)
class CsvTable:
    name: str
    header: list[str]
    rows: list[list[str]]

    def text(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([_safe(c) for c in self.header])
        writer.writerows([_safe(c) for c in row] for row in self.rows)
        return out.getvalue()


def _safe(cell: Any) -> str:
    text = "" if cell is None else str(cell)
    return "'" + text if _FORMULA.match(text) else text


def _query_rows(state: dict[str, Any]) -> tuple[list[str], list[list[Any]]] | None:
    for task in state.get("plan", {}).get("tasks", []):
        context = (task.get("outputs") or {}).get("assessment_context") or {}
        result = (context.get("report_data") or {}).get("sql_path")
        if result and result.get("rows"):
            columns = list(result.get("columns") or result["rows"][0].keys())
            return columns, [[row.get(c) for c in columns] for row in result["rows"]]
    return None


# a table's delimiter row ("|---|:--:|"): without one there is no table, and the parse (milliseconds of the chat
# server's event loop per answer) is skipped
_DELIMITER_ROW = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*\|", re.M)


def has_tables(answer: str, sql_rows: int) -> bool:
    """Whether an answer has anything to export as CSV: a table in its text, or rows of its SQL-path query."""
    return sql_rows > 0 or bool(_DELIMITER_ROW.search(answer)) and bool(markdown_tables(answer))


def answer_tables(state: dict[str, Any], turn: int) -> list[CsvTable]:
    """The tables of one stored turn (``turn``: its number in the thread, for the file names)."""
    tables = [CsvTable(f"turn{turn}-table{n}.csv", header, rows)
              for n, (header, rows) in enumerate(markdown_tables(state.get("final", {}).get("answer", "")), start=1)]
    query = _query_rows(state)
    if query is not None:
        columns, rows = query
        tables.append(CsvTable(f"turn{turn}-query-rows.csv", columns, [[str(v) if v is not None else "" for v in r]
                                                                       for r in rows]))
    return tables
