"""The SQL guard (DESIGN §6.2, issue 3): only a bounded, read-only, single SELECT over allowlisted
tables, columns and functions reaches the warehouse.

The whole parse tree is walked, not just its root, so DML hidden in a CTE, ``SELECT … INTO``, file
reading table functions, system catalogs and side-effect functions are all refused. LIMIT is forced
to the smaller of the query's own and the cap. Values are never spliced into SQL: they arrive as
``?`` placeholders and are bound by the driver. This is the first wall; the second is the
read-only, no-external-access DuckDB connection in ``store.py``.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from assessment_engine.ontology import Ontology

MAX_SQL_CHARS = 4000
MAX_NESTING = 40  # parentheses deep; the parser recurses per level
ROW_CAP = 500

FORBIDDEN = tuple(
    getattr(exp, name) for name in (
        "Insert", "Update", "Delete", "Create", "Drop", "Alter", "Command", "Merge", "Into", "Pragma", "Set", "Use",
        "Transaction", "Commit", "Rollback", "Copy", "Attach", "Detach", "Describe", "Show", "LoadData", "Lock",
        "Summarize", "Export", "Install", "Union", "Intersect", "Except", "Grant", "Revoke", "TruncateTable",
        "Analyze", "Refresh", "Cache", "Uncache", "Kill",
    ) if hasattr(exp, name)
)
ALLOWED_FUNCTIONS = frozenset({
    "count", "sum", "avg", "min", "max", "lower", "upper", "coalesce", "round", "length", "abs", "substring",
    "trim", "cast", "trycast", "case", "if", "nullif", "concat", "dpipe", "countif", "distinct", "greatest", "least",
    "groupconcat",  # LISTAGG / STRING_AGG: a device's failing rules in one cell
    "rank",  # the rows tied at a limit's cut ("the site with the most failures" when three have as many)
})


# sqlglot models AND, OR, IN, LIKE … as Func subclasses too; they are operators, not function calls.
OPERATORS = tuple(getattr(exp, n) for n in ("Connector", "Binary", "Predicate", "Unary", "Not") if hasattr(exp, n))


class UnsafeSQL(ValueError):
    """The statement is not a bounded read-only SELECT over allowlisted objects; the message says why."""


def _function_name(node: exp.Func) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    return node.key.lower()


def validate(sql: str, ontology: Ontology, dialect: str = "duckdb", row_cap: int = ROW_CAP) -> str:
    """Return the safe, LIMIT-bounded SQL in ``dialect``, or raise ``UnsafeSQL``."""
    if len(sql) > MAX_SQL_CHARS:
        raise UnsafeSQL(f"statement longer than {MAX_SQL_CHARS} characters")
    depth = deepest = 0
    for ch in sql:
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        raise UnsafeSQL(f"nested deeper than {MAX_NESTING} parentheses")
    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except SqlglotError as exc:
        raise UnsafeSQL(f"not parseable as {dialect} SQL: {str(exc).splitlines()[0][:200]}") from None
    except RecursionError:
        raise UnsafeSQL("nested too deeply to be checked") from None
    if len(statements) != 1:
        raise UnsafeSQL(f"exactly one statement is allowed, got {len(statements)}")
    root = statements[0]
    if not isinstance(root, exp.Select):
        raise UnsafeSQL(f"only SELECT is allowed, got {root.key.upper()}")
    tables = {name: set(spec.columns) for name, spec in ontology.tables.items()}
    allowed_columns = set().union(*tables.values())
    cte_names = {cte.alias_or_name.lower() for cte in root.find_all(exp.CTE)}
    aliases = {a.alias.lower() for a in root.find_all(exp.Alias) if a.alias}
    table_aliases = {s.alias.lower() for s in root.find_all(exp.Subquery) if s.alias}  # FROM (SELECT …) c
    for node in root.walk():
        if isinstance(node, FORBIDDEN):
            raise UnsafeSQL(f"{node.key.upper()} is not allowed")
        if isinstance(node, exp.Table):
            if not isinstance(node.this, exp.Identifier):
                raise UnsafeSQL("table functions and file paths are not allowed")
            if node.args.get("db") or node.args.get("catalog"):
                raise UnsafeSQL(f"qualified table names are not allowed: {node.sql()}")
            name = node.name.lower()
            if name not in tables and name not in cte_names:
                raise UnsafeSQL(f"table '{node.name}' is not allowlisted")
            if node.alias:
                table_aliases.add(node.alias.lower())
        elif isinstance(node, exp.Func) and not isinstance(node, OPERATORS):
            name = _function_name(node)
            if name not in ALLOWED_FUNCTIONS:
                raise UnsafeSQL(f"function '{name}' is not allowlisted")
    for col in root.find_all(exp.Column):
        name = col.name.lower()
        if name and name not in allowed_columns and name not in aliases:
            raise UnsafeSQL(f"column '{col.name}' is not allowlisted")
        qualifier = col.table.lower()
        if qualifier and qualifier not in tables and qualifier not in table_aliases and qualifier not in cte_names:
            raise UnsafeSQL(f"unknown table qualifier '{col.table}'")
    limit = root.args.get("limit")
    existing = None
    if isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal) and limit.expression.is_int:
        existing = int(limit.expression.name)
    bounded = root.limit(min(existing, row_cap) if existing is not None else row_cap, copy=True)
    return bounded.sql(dialect=dialect)
