"""``sql_path`` (DESIGN §6.2): one read-only SELECT planned by ``assessment_engine.warehouse.sql_path`` from the
ontology, checked by the SQL guard and run with bound parameters. With ``assessment_id`` the statement's
first parameter is that assessment, resolved here ('latest' → its id) so the answer can name it (a
description's ``{assessment_id}`` is replaced by it). A ``device_rules`` result also carries the device's own
fixes for what it fails, proven on its stored configuration (``device_fixes``). A plan's ``scope_sql`` runs when
the statement selects no row, so that an empty answer can say out of how many devices."""

from __future__ import annotations

from typing import Any

from assessment_engine.warehouse.sql_guard import ROW_CAP, UnsafeSQL
from assessment_engine.warehouse.sql_path import GuardedStatements, run_sql
from assessment_engine.warehouse.store import Warehouse
from orchestration.catalog import Catalog
from orchestration.tools.device_fixes import device_fixes
from orchestration.tools.errors import ToolError
from orchestration.tools.scope import FLEET, resolve_assessment


def sql_path_tool(w: Warehouse, template: str, sql: str, description: str, params: list[Any] | None = None,
                  assessment_id: str | None = None, collection: str = FLEET, viewer: str | None = None,
                  scope_sql: str | None = None, scope_params: list[Any] | None = None, *,
                  catalog: Catalog, statements: GuardedStatements) -> dict[str, Any]:
    run = resolve_assessment(w, assessment_id, collection=collection, viewer=viewer) if assessment_id else None
    resolved = run.assessment_id if run else None
    bound = [resolved, *(params or [])] if resolved else list(params or [])
    try:
        safe_sql, result = run_sql(w, sql, bound, statements, viewer)
    except UnsafeSQL as exc:
        raise ToolError(str(exc)) from None
    rows = result.dicts()
    fixes = device_fixes(w, resolved, rows, viewer, catalog, statements) if template == "device_rules" else {}
    scope = None
    if not rows and scope_sql:  # nothing selected: out of how many devices (none there, or none of them fails)
        try:
            scope_sql, totals = run_sql(w, scope_sql, [resolved, *(scope_params or [])] if resolved else
                                        list(scope_params or []), statements, viewer)
        except UnsafeSQL as exc:
            raise ToolError(str(exc)) from None
        scope = totals.dicts()[0]
    return {"template": template, "description": description.replace("{assessment_id}", resolved or "the assessment"), "sql": safe_sql, "params": bound,
            "assessment_id": resolved, "collection": run.collection if run else collection, "columns": result.columns, "rows": rows, "row_count": len(rows),
            "row_cap_reached": len(rows) >= ROW_CAP, "fixes": fixes,
            **({"scope": scope, "scope_sql": scope_sql} if scope is not None else {})}
