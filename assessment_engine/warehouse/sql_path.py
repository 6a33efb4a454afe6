"""The SQL path's execution (DESIGN §6.2): a statement is checked by the SQL guard against the ontology, limited to
what the asking user may see, and run with bound parameters on the (read-only) warehouse.

The SQL path takes statements the planner wrote, but a tool is called with parameters, so it checks who asks itself:
every table that holds a collection's data is read through a subquery of the rows the viewer may see (the fleet's
and their own uploads'), whatever the statement's WHERE says.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import sqlglot
from sqlglot import exp

from assessment_engine.ontology import Ontology
from assessment_engine.warehouse.sql_guard import UnsafeSQL, validate
from assessment_engine.warehouse.store import QueryResult, Warehouse

_RUNS = "SELECT assessment_id FROM assessments WHERE {mine}"
_COLLECTIONS = "SELECT collection FROM assessments WHERE {mine}"
# the rows of each table a viewer may see (tables not named here hold no collection's data: sites, rules, exceptions)
VISIBLE_ROWS = {
    "assessments": "{mine}",
    "assets": f"collection IN ({_COLLECTIONS})",
    "configs": f"assessment_id IN ({_RUNS})",
    "results": f"assessment_id IN ({_RUNS})",
    "slic_results": f"assessment_id IN ({_RUNS})",
    "events": f"asset_id IN (SELECT asset_id FROM assets WHERE collection IN ({_COLLECTIONS}))",
}


def for_viewer(sql: str, viewer: str | None, dialect: str = "duckdb") -> str:
    """``sql`` with every table of ``VISIBLE_ROWS`` read through the rows ``viewer`` may see."""
    return _viewer_tree(sql, viewer, dialect).sql(dialect=dialect)


def _viewer_tree(sql: str, viewer: str | None, dialect: str) -> exp.Expr:
    root = sqlglot.parse_one(sql, read=dialect)
    mine = f"(owner IS NULL OR owner = '' OR owner = {exp.Literal.string(viewer or '').sql(dialect=dialect)})"
    ctes = {cte.alias_or_name.lower() for cte in root.find_all(exp.CTE)}
    for table in list(root.find_all(exp.Table)):
        name = table.name.lower()
        if name in ctes or name not in VISIBLE_ROWS:
            continue
        condition = sqlglot.parse_one(VISIBLE_ROWS[name].format(mine=mine), read=dialect)
        table.replace(exp.select("*").from_(name).where(condition).subquery(table.alias or name))
    return root


class GuardedStatements:
    """Statements as they run for a viewer, validated against one ontology and kept (at most ``size``): the values are
    bound apart, so a question asked again, by anyone with the same rights, reuses it — parsing it three times was a
    fifth of a list question's turn. One per catalog (``orchestration.catalog``), so an ontology never sees another's."""

    def __init__(self, ontology: Ontology, size: int = 256) -> None:
        self.ontology, self._size = ontology, size
        self._kept: OrderedDict[tuple[str, str | None], tuple[str, int]] = OrderedDict()
        self._lock = threading.Lock()

    def guarded(self, sql: str, viewer: str | None) -> tuple[str, int]:
        """The statement as it runs for ``viewer`` (validated, bounded, limited to their rows) and the number of
        values it takes."""
        key = (sql, viewer)
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        tree = _viewer_tree(validate(sql, self.ontology, dialect="duckdb"), viewer, "duckdb")
        made = tree.sql(dialect="duckdb"), sum(1 for _ in tree.find_all(exp.Placeholder))
        with self._lock:
            self._kept[key] = made
            if len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return made


def run_sql(warehouse: Warehouse, sql: str, params: list[Any], statements: GuardedStatements,
            viewer: str | None = None) -> tuple[str, QueryResult]:
    """Guard (against ``statements``' ontology), limit to ``viewer``'s rows, then execute with bound parameters on the
    (read-only) warehouse."""
    safe, wanted = statements.guarded(sql, viewer)
    if wanted != len(params):
        raise UnsafeSQL(f"the statement takes {wanted} value(s) but {len(params)} were given")
    return safe, warehouse.query(safe, params)
