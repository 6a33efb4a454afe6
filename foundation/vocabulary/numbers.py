"""Figures as the warehouse rounds them: a percentage to one decimal, half away from zero — DuckDB's and
PostgreSQL's ``ROUND`` — computed exactly (9 of 80 is 11.25 %, shown 11.3 %, as the SQL in the step shows it; a
float's ``round`` gives 11.2)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def percent(part: float, whole: float) -> float:
    """``part`` of ``whole`` in percent, one decimal, half away from zero; 0.0 for an empty whole."""
    if not whole:
        return 0.0
    exact = Decimal(100) * Decimal(str(part)) / Decimal(str(whole))
    return float(exact.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
