"""Severity: the five levels, their order, and the same order as SQL.

Rules, SLIC signatures, tool filters, findings and charts all rank by this one order, so "most severe
first" means the same in a table, a chart, a SQL ``ORDER BY`` and a summary sentence. An unknown level
(e.g. from a remote lake) ranks below ``info``.
"""

from __future__ import annotations

from typing import Literal

Severity = Literal["critical", "high", "medium", "low", "info"]
SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")  # most severe first
RANK: dict[str, int] = {level: len(SEVERITIES) - 1 - i for i, level in enumerate(SEVERITIES)}  # info 0 … critical 4
UNKNOWN_RANK = -1
HIGH_OR_ABOVE: tuple[Severity, ...] = ("critical", "high")


def rank(level: str | None) -> int:
    """Higher is more severe; an unknown level ranks below ``info``."""
    return RANK.get(level or "", UNKNOWN_RANK)


def rank_sql(column: str) -> str:
    """The same order as a SQL expression over ``column`` (literals only, no user input)."""
    whens = " ".join(f"WHEN '{level}' THEN {RANK[level]}" for level in SEVERITIES)
    return f"CASE {column} {whens} ELSE {UNKNOWN_RANK} END"


def high_or_above_sql(column: str) -> str:
    """``column`` is critical or high, as a SQL condition (literals only)."""
    return f"{column} IN ({', '.join(repr(level) for level in HIGH_OR_ABOVE)})"

