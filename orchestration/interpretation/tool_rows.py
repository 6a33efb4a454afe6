"""An extension tool's result in the answer: what a query tool returned that no built-in interpretation knows (its
contract had the Data Query Agent pick it by its own condition), shown as it came — its figures, then its rows as a
table under the tool's own description. Nothing is inferred from it: no findings, no severities."""

from __future__ import annotations

from typing import Any

from foundation.vocabulary.text import plural
from orchestration.contracts import ToolContract
from orchestration.interpretation import markdown
from orchestration.outputs import DomainOutputs

SHOWN = 50  # rows shown in the chat; the exported trace holds the whole result
COLUMNS = 8


def _rows(result: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The first field that holds rows (a list of objects), by the order of the result."""
    for name, value in result.items():
        if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
            return name, value
    return "", []


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def tabulated(contract: ToolContract, result: dict[str, Any]) -> DomainOutputs:
    """The answer of ``contract``'s tool: a line with what it is and its figures, then its rows."""
    name, rows = _rows(result)
    figures = {k: v for k, v in result.items() if _scalar(v) and not (k == "row_count" and v == len(rows))}
    what = contract.description.strip().split(". ")[0].rstrip(".")
    lines = [f"`{contract.name}` returned {len(rows)} {plural('row', len(rows))}" + (f" of {name.replace('_', ' ')}" if name else "")
             + f" — {what}."]
    if figures:
        lines.append("; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in figures.items()) + ".")
    if rows:
        columns = list(dict.fromkeys(k for r in rows[:SHOWN] for k, v in r.items() if _scalar(v) or v is None))
        columns = columns[:COLUMNS]
        lines += ["", markdown.table(columns, [[r.get(c) for c in columns] for r in rows[:SHOWN]])]
        if len(rows) > SHOWN:
            lines.append(f"\nThe first {SHOWN} of {len(rows)} rows; the exported trace holds every row.")
    return DomainOutputs(summary="\n".join(lines), statistics={"rows": len(rows), **figures},
                         assumptions=[f"`{contract.name}` is an extension tool: its rows are shown as it returned them, "
                                      "without findings or severities drawn from them."])
