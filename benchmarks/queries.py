"""``assess bench queries``: what a turn costs a remote engine — the SQL statements each evaluation prompt's turn
runs (every tool call lists them in the trace), per turn and per tool, and whether every one of them has a Trino
form: sqlglot transpiles it from DuckDB's dialect to Trino's refusing anything it cannot express, and the result
parses as Trino SQL."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot.errors import ErrorLevel, SqlglotError

from benchmarks.turns import p95, prompts


@dataclass
class QueryCensus:
    per_turn: list[int] = field(default_factory=list)
    per_tool: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    statements: set[str] = field(default_factory=set)
    untranslatable: dict[str, str] = field(default_factory=dict)  # statement -> sqlglot's reason
    errors: list[str] = field(default_factory=list)  # tool calls that failed: "tool: error"


def to_trino(sql: str) -> str:
    """``sql`` (DuckDB dialect) in Trino's; raises ``SqlglotError`` for what Trino cannot express."""
    out = sqlglot.transpile(sql, read="duckdb", write="trino", unsupported_level=ErrorLevel.RAISE)[0]
    sqlglot.parse_one(out, read="trino")
    return out


def census(questions: list[str] | None = None) -> QueryCensus:
    """Run each question as a new conversation on the configured warehouse and count its statements. On Trino
    the statements are recorded as Trino received them (they must parse as Trino SQL); on DuckDB they are
    transpiled here. The stored whole-run summaries exist on DuckDB only: on Trino those turns compute them live,
    so their counts are higher there."""
    from foundation.config import get_settings
    from orchestration.runtime import handle_turn
    from orchestration.services import build_services

    check = to_trino if get_settings().warehouse_backend == "duckdb" else (lambda sql: sqlglot.parse_one(sql, read="trino"))
    found, services = QueryCensus(), build_services()
    for question in questions if questions is not None else prompts():
        calls = handle_turn(question, services=services).mcp.tool_calls
        found.per_turn.append(sum(len(c.queries) for c in calls))
        for call in calls:
            if not call.cached:
                found.per_tool[call.tool_name].append(len(call.queries))
            if call.status == "error":
                found.errors.append(f"{call.tool_name}: {call.error}")
            found.statements.update(call.queries)
    for sql in sorted(found.statements):
        try:
            check(sql)
        except SqlglotError as exc:
            found.untranslatable[sql] = str(exc).splitlines()[0][:200]
    return found


def queries(report: Callable[[str], None] = print) -> dict[str, Any]:
    found = census()
    turns = found.per_turn
    figures = {"turns": len(turns), "statements_per_turn_p50": statistics.median(turns),
               "statements_per_turn_p95": p95([float(n) for n in turns]), "statements_per_turn_max": max(turns),
               "distinct_statements": len(found.statements), "untranslatable_to_trino": len(found.untranslatable),
               "per_tool_max": {tool: max(ns) for tool, ns in sorted(found.per_tool.items())}}
    report(f"{figures['turns']} turns: SQL statements per turn p50 {figures['statements_per_turn_p50']}, p95 "
           f"{figures['statements_per_turn_p95']}, max {figures['statements_per_turn_max']}; "
           f"{figures['distinct_statements']} distinct statements, {figures['untranslatable_to_trino']} without a Trino form")
    for tool, ns in sorted(found.per_tool.items()):
        report(f"  {tool:<32} {len(ns):>3} calls, statements per call {min(ns)}–{max(ns)}")
    for sql, reason in found.untranslatable.items():
        report(f"  no Trino form: {reason}: {' '.join(sql.split())[:160]}")
    return figures
