"""One compiler from a question (``assessment_engine/query.py``) to one read-only SQL statement over the warehouse,
its values bound (issue 52). Every measure and dimension is the semantic model's (``contracts/semantic_model.yaml``);
nothing here names a column of its own.

The statement reads one fact (the measures' table, joined to each row's device ``a`` and site ``s``) of one collection:

- conditions on the device or its site (site, role, release …) keep rows (``WHERE``); conditions on the fact's own
  rows (rule, topic, severity, signature …) are added to each measure's rows instead, so a group none of whose rows
  meets them still has its row, with 0 — "the stores with no critical finding" are those rows;
- the runs asked keep the fact's rows of those runs; several runs (or months, for facts with a clock) group the rows
  by run (or month) as well, as column ``run`` (a series, a change);
- bounds, the order and the limit apply to the grouped rows (an outer ``SELECT``), which also count how many rows there
  are in all (``total_rows``) before the limit cuts them; a limit on ordered rows keeps the rows tied at its cut (their
  ``place`` by ``RANK()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from assessment_engine.query import OTHERS, Condition, DataQuery
from assessment_engine.semantic_model import SemanticModel


class QueryError(ValueError):
    """A question the semantic model cannot put together (measures of different facts, a dimension a fact lacks)."""


@dataclass
class _Sql:
    """Text and its bound values, built in the order they appear."""

    parts: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, text: str, *params: Any) -> _Sql:
        self.parts.append(text)
        self.params.extend(params)
        return self

    @property
    def text(self) -> str:
        return "".join(self.parts)


@dataclass(frozen=True)
class CompiledQuery:
    sql: str
    params: list[Any]
    columns: list[str]  # the group columns, then ``run`` for several runs, then the measures
    fact: str


def fact_of(query: DataQuery, model: SemanticModel) -> str:
    """The fact the measures count; a question with none lists devices (or the rows its conditions on checks need)."""
    facts = {model.measures[m].fact for m in query.measures}
    if len(facts) > 1:
        raise QueryError(f"measures of different tables: {', '.join(query.measures)}")
    if facts:
        return facts.pop()
    row_level = [c.dimension for c in query.conditions if model.on_rows(c.dimension)]
    return next((f for f in model.facts if all(model.dimensions[d].sql_for(f) for d in row_level)), "devices") \
        if row_level else "devices"


def _condition(model: SemanticModel, fact: str, condition: Condition) -> tuple[str, list[Any]]:
    dim = model.dimensions[condition.dimension]
    column = dim.sql_for(fact)
    if column is None:
        raise QueryError(f"{condition.dimension} does not apply to {fact}")
    if dim.match == "contains":
        text = " OR ".join(f"{column} LIKE ?" for _ in condition.values)
        sql = f"NOT ({text})" if condition.negated else f"({text})"
        return sql, [f"%{v}%" for v in condition.values]
    if dim.match == "boolean":  # a yes or no of the row, bound as one (Trino compares no boolean with 'true')
        flags = list(dict.fromkeys(v.lower() in ("true", "yes", "1") for v in condition.values))
        sql = f"{column} IN ({', '.join('?' for _ in flags)})"
        return (f"NOT ({sql})" if condition.negated else f"({sql})"), flags
    trains = [v for v in condition.values if v.lower().endswith(".x")]
    exact = [v for v in condition.values if v not in trains]
    parts = [f"{column} IN ({', '.join('?' for _ in exact)})"] if exact else []
    parts += [f"{column} LIKE ?" for _ in trains]  # "16.x": every release of the train
    text = " OR ".join(parts)
    params = [*exact, *[v[:-1] + "%" for v in trains]]
    return (f"NOT ({text})" if condition.negated else f"({text})"), params


def _failing_devices(model: SemanticModel, fact: str, condition: Condition) -> tuple[str, list[Any]]:
    """The devices failing one of the condition's values in the same run (negated: failing none of them; ``passing``:
    passing one), over the fact's own rows: a condition on the devices read from the checks ("failing SNMP-RW but not
    SNMP-ACL", "… but pass SNMP-ACL")."""
    f = model.facts[fact]
    column = model.dimension_sql(condition.dimension, fact) or ""
    table, alias = (f.from_.split() + ["", ""])[:2]
    failing = model.measures["failed_checks"].where or ""
    if condition.passing:  # judged on the checks and passed them: a device the checks do not apply to is neither
        failing = model.measures["pass_rate"].rate or ""
    if not (f.run and column.startswith(f"{alias}.") and failing.startswith(f"{alias}.") and
            model.measures["failed_checks"].fact == fact):
        raise QueryError(f"devices failing {condition.dimension} cannot be read from {fact}")
    other = "x2"
    inner = (f"SELECT 1 FROM {table} {other} WHERE {other}.asset_id = {alias}.asset_id AND "
             f"{f.run.replace(alias + '.', other + '.')} = {f.run} AND {failing.replace(alias + '.', other + '.')} AND "
             f"{column.replace(alias + '.', other + '.')} IN ({', '.join('?' for _ in condition.values)})")
    return f"{'NOT ' if condition.negated else ''}EXISTS ({inner})", list(condition.values)


def _month_bounds(month: str) -> tuple[str, str]:
    year, number = (int(x) for x in month.split("-"))
    start = date(year, number, 1)
    end = date(year + (number == 12), number % 12 + 1, 1)
    return f"{start} 00:00:00", f"{end} 00:00:00"


def _baseline(runs: list[str], collection: str) -> tuple[str, list[Any]]:
    """A fact of changes is of the last run asked, set beside the first ("fixed since august": august's results beside
    the latest's), or beside the run before when one run is asked: the baseline's SQL and its values."""
    if not runs:
        raise QueryError("a change between runs needs the run it is of")
    if len(runs) > 1:
        return "?", [runs[0]]
    return ("(SELECT p.assessment_id FROM assessments p WHERE p.collection = ? AND p.started_at < (SELECT c.started_at "
            "FROM assessments c WHERE c.assessment_id = ?) ORDER BY p.started_at DESC LIMIT 1)", [collection, runs[0]])


def compile_query(query: DataQuery, model: SemanticModel, collection: str) -> CompiledQuery:
    """The statement that answers ``query`` over the rows of ``collection``."""
    unknown = [m for m in query.measures if m not in model.measures] + [
        d for d in [*query.group_by, *(c.dimension for c in query.conditions)] if d not in model.dimensions]
    if unknown:
        raise QueryError(f"not in the semantic model: {', '.join(unknown)}")
    fact_name = fact_of(query, model)
    fact = model.facts[fact_name]
    splits = {c.dimension: c for c in query.conditions if c.split and c.dimension in query.group_by}
    # a split condition not grouped by narrows the side the grouped one names ("the pci stores vs everything else":
    # the stores in PCI scope on one side, every other row on the other)
    joined = [c for c in query.conditions if c.split and c.dimension not in query.group_by] if splits else []
    filtering = [c for c in query.conditions if not (c.split and (c.dimension in splits or c in joined))]
    on_rows = [c for c in filtering if (model.on_rows(c.dimension) or c.in_measure) and not c.of_devices]
    on_devices = [c for c in filtering if c not in on_rows]
    joins = {model.dimensions[d].join.get(fact_name, "") for d in [*query.group_by, *(c.dimension for c in on_rows),
                                                                   *(c.dimension for c in joined)]}

    inner = _Sql().add("SELECT ")
    columns: list[str] = []
    selected: list[str] = []
    keys: list[str] = []  # what the rows are grouped by
    key_params: list[Any] = []  # the parameters a split's key binds in the select list
    for dim in query.group_by:
        column = model.dimension_sql(dim, fact_name)
        if column is None:
            raise QueryError(f"{dim} does not apply to {fact_name}")
        key = column
        if dim in splits:  # "the stores vs the rest": its values on one side, every other row on the other
            parts = [_condition(model, fact_name, c.model_copy(update={"negated": False})) for c in [splits[dim], *joined]]
            sql, params = " AND ".join(p for p, _ in parts), [v for _, ps in parts for v in ps]
            column = f"CASE WHEN {sql} THEN ? ELSE ? END"
            key_params += [*params, ", ".join(splits[dim].values), OTHERS]
            key = str(len(selected) + 1)  # grouped by its place: the same expression binds its values again
        selected.append(f"{column} AS {dim}")
        keys.append(key)
        columns.append(dim)
    # several runs are one row each where the answer sets them side by side; otherwise the rows of all of them count
    # together ("devices failing NTP-AUTH in every run": the runs each fails it in, counted)
    per_run = query.output in ("series", "change", "yes_no", "since")
    # (a fact of changes sets the last run asked beside the first: its runs are one pair, never one row each)
    period = fact.run if len(query.runs) > 1 and fact.run and per_run and not fact.baseline else None
    # a month as text, the same on DuckDB, Trino and PostgreSQL; a series with no months named: every month there is
    if fact.at and query.output in ("series", "change", "yes_no") and (len(query.months) > 1 or not query.months):
        period = f"SUBSTR(CAST({fact.at} AS VARCHAR), 1, 7)"
    if period:
        selected.append(f"{period} AS run")
        columns.append("run")
    # a bound on a figure the rows do not show ("sites with more than 3 failing", listed by name) is computed beside them
    figures = list(dict.fromkeys([*query.measures, *(b.measure for b in query.bounds if query.group_by)]))
    if any(b not in model.measures or model.measures[b].fact != fact_name for b in figures):
        raise QueryError(f"a bound on a figure of another table: {', '.join(figures)}")
    inner.add(", ".join(selected) + (", " if selected and figures else ""), *key_params)
    row_sql = [_condition(model, fact_name, c) for c in on_rows]
    for i, name in enumerate(figures):
        measure = model.measures[name]
        text = measure.sql([sql for sql, _ in row_sql])
        repeats = 2 if measure.rate is not None and row_sql else 1  # a rate reads its conditions twice
        inner.add(("" if i == 0 else ", ") + f"{text} AS {name}",
                  *[p for _ in range(repeats) for _, params in row_sql for p in params])
        columns.append(name)
    # a rate of several rows is also said of them all ("the pass rate of those three devices"): its parts per row,
    # added up over the rows kept (``<measure>__pooled``, beside ``total_rows``)
    pooled = [m for m in query.measures if model.measures[m].rate is not None] if query.group_by and not period else []
    for name in pooled:
        hits, of = model.measures[name].rate_parts([sql for sql, _ in row_sql])
        inner.add(f", {hits} AS {name}__hits, {of} AS {name}__of",
                  *[p for _ in range(2 if row_sql else 1) for _, params in row_sql for p in params])
    if not selected and not figures:
        raise QueryError("a question with nothing to count and nothing to list")
    source, source_params = fact.from_, list[Any]()
    if fact.baseline:
        baseline, source_params = _baseline(query.runs, collection)
        source = source.replace(fact.baseline, baseline)
    inner.add(f" FROM {source}" + "".join(f" {j}" for j in sorted(joins) if j), *source_params)
    where = _Sql()
    if fact.collection:
        where.add(f"{fact.collection} = ?", collection)
    if fact.baseline:
        where.add((" AND " if where.parts else "") + f"{fact.run} = ?", query.runs[-1])
    elif fact.run and query.runs:
        where.add((" AND " if where.parts else "") + f"{fact.run} IN ({', '.join('?' for _ in query.runs)})",
                  *query.runs)
    if fact.at and query.months:
        spans = [_month_bounds(m) for m in query.months]
        where.add((" AND " if where.parts else "") + "(" + " OR ".join(f"({fact.at} >= ? AND {fact.at} < ?)" for _ in spans)
                  + ")", *[b for span in spans for b in span])
    for condition in on_devices:
        sql, params = _failing_devices(model, fact_name, condition) if condition.of_devices else \
            _condition(model, fact_name, condition)
        where.add((" AND " if where.parts else "") + sql, *params)
    for dim in query.group_by:  # ("which exception covers the most": the rows no exception covers are no group of it)
        if model.dimensions[dim].optional and dim not in splits:
            where.add((" AND " if where.parts else "") + f"{model.dimension_sql(dim, fact_name)} IS NOT NULL")
    if where.parts:
        inner.add(" WHERE " + where.text, *where.params)
    if period:
        keys.append(period)
    if keys:
        inner.add(" GROUP BY " + ", ".join(keys))
        judged = [_condition(model, fact_name, c) for c in on_rows if not c.in_measure]
        if judged:  # a group none of whose rows is of the checks asked was not judged on them: no row, not a zero
            inner.add(" HAVING COUNT(*) FILTER (WHERE " + " AND ".join(sql for sql, _ in judged) + ") > 0",
                      *[p for _, params in judged for p in params])

    # a series is ordered and cut by its change, when the answer has both runs
    ranked = [query.order.measure, *query.order.then] if query.order and not period else []
    way = "DESC" if query.order and query.order.descending else "ASC"
    # (whether a row leads: every row ranked, the answer finds it among them)
    limit = int(query.limit or 0) if not period and not query.leader else 0  # an integer of the query, written as one
    # the rows tied at the limit's cut are kept: "the site with the most failures", when three have as many, is three
    place = (", RANK() OVER (ORDER BY " + ", ".join(f"{m} {way} NULLS LAST" for m in ranked) + ") AS place") \
        if ranked and limit else ""
    # a series of months of a timed fact says where its log starts and ends: a month it covers in part is not a trend
    span = ""
    if fact.at and period and not fact.run:
        table, alias = (fact.from_.split() + ["", ""])[:2]
        at = fact.at.replace(alias + ".", "l.")
        span = f", (SELECT MIN({at}) FROM {table} l) AS log_start, (SELECT MAX({at}) FROM {table} l) AS log_end"
    span += "".join(f", ROUND(100.0 * SUM({m}__hits) OVER () / NULLIF(SUM({m}__of) OVER (), 0), 1) AS {m}__pooled"
                    for m in pooled)
    outer = _Sql().add(f"SELECT *, COUNT(*) OVER () AS total_rows{place}{span} FROM (").add(inner.text, *inner.params) \
        .add(") q")
    bounds = query.bounds if query.group_by else []  # a yes/no's bound says when it is Yes: read by the answer
    kept = [f"COALESCE({b.measure}, 0) {b.op} ?" for b in bounds]
    rates = [m for m in query.measures if model.measures[m].rate is not None and query.group_by]
    kept += [f"{m} IS NOT NULL" for m in rates]  # a group none of whose rows were rated has no rate to list
    if kept:
        outer.add(" WHERE " + " AND ".join(kept), *[b.value for b in bounds])
    order = [f"{m} {way} NULLS LAST" for m in ranked] + [c for c in columns if c not in figures]
    skipped = int(query.offset or 0) if place else 0  # an integer of the query, written as one
    if place:  # the SQL guard caps the rows itself
        outer = _Sql().add("SELECT * FROM (").add(outer.text, *outer.params).add(
            f") r WHERE place > {skipped} AND place <= {skipped + limit}")
    if order:
        outer.add(" ORDER BY " + ", ".join(order))
    if limit and not place:
        outer.add(f" LIMIT {limit}")
    return CompiledQuery(outer.text, outer.params, columns, fact_name)
