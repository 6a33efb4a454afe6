"""A recorded statement made readable: its parameter values put where the engine received ``?`` marks (the trace
keeps the statement and its values apart, as the engine got them; people read them together)."""

from __future__ import annotations

from typing import Any


def literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"


def bind(statement: str, params: list[Any]) -> str:
    """The statement with its parameter values in place of the ``?`` marks, for reading (quoted text and quoted
    names are left alone; the engine received the marks and the values apart)."""
    if not params:
        return statement
    out, values, quote = [], iter(params), ""
    for ch in statement:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            out.append(literal(next(values, None)))
            continue
        out.append(ch)
    return "".join(out)
