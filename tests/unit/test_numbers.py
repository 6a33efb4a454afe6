"""Percentages rounded as the warehouse rounds them (``foundation/vocabulary/numbers.py``)."""

from __future__ import annotations

import duckdb
import pytest

from foundation.vocabulary.numbers import percent


@pytest.mark.parametrize(("part", "whole"), [(9, 80), (1, 8), (3, 8), (5, 6), (2, 3), (0, 7), (7, 7), (113, 148)])
def test_a_percentage_is_the_one_duckdb_rounds(part: int, whole: int) -> None:
    (expected,), = duckdb.sql(f"SELECT ROUND(100.0 * {part} / {whole}, 1)").fetchall()
    assert percent(part, whole) == float(expected)


def test_an_empty_whole_is_no_percentage() -> None:
    assert percent(0, 0) == 0.0
