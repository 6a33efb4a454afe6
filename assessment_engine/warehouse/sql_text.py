"""A recorded statement made readable: laid out one clause per line, and its parameter values put where the engine
received ``?`` marks (the trace keeps the statement and its values apart, as the engine got them; people read them
together)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=256)  # a pure function of its text: the tools run a few dozen statement shapes
def pretty_sql(statement: str, dialect: str = "duckdb") -> str:
    """A statement laid out one clause per line; kept as it ran when the parser does not know it. 2–20 ms of
    parsing each (the turn workers lay out their statements, not the chat server's event loop: ``layouts``)."""
    import sqlglot  # the layout's only user: the upload command and the embedded engine never parse SQL

    try:
        return sqlglot.transpile(statement, read=dialect, write=dialect, pretty=True)[0]
    except Exception:  # noqa: BLE001 — shown as it ran rather than not at all
        return statement


def layouts(statements: Iterable[str], dialect: str) -> dict[str, str]:
    """Each statement laid out (``pretty_sql``), by its text as it ran."""
    return {statement: pretty_sql(statement, dialect) for statement in statements}


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
