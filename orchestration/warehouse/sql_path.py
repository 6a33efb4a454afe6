"""The SQL path's execution (DESIGN §6.2): a statement is checked by the SQL guard against the ontology and
run with bound parameters on the (read-only) warehouse."""

from __future__ import annotations

from typing import Any

from orchestration.warehouse.schema import get_ontology
from orchestration.warehouse.sql_guard import validate
from orchestration.warehouse.store import QueryResult, Warehouse


def run_sql(warehouse: Warehouse, sql: str, params: list[Any]) -> tuple[str, QueryResult]:
    """Guard, then execute with bound parameters on the (read-only) warehouse."""
    safe = validate(sql, get_ontology(), dialect="duckdb")
    return safe, warehouse.query(safe, params)
