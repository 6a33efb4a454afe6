"""The statements that summarise one assessment run, and their whole-run results written with the run.

The analysis tool (DESIGN §6.2) answers from seven statements over a run's results joined to its assets and
rules. A question about the whole run — no scope, product or topic filter — depends on nothing but the run, yet
at 10,000 devices those statements read 350,000 results on every ask (~250–400 ms). So the statements are run
once more when the run is written (the demo build and every upload, inside the same write), per severity
filter, and their rows stored in ``run_summaries``; the tool reads them back in one query.

The stored rows come from the very statements the tool runs live (defined once, here), so they are equal by
construction, and ``tests/unit/test_run_summary.py`` checks it. The tool runs the statements live for any narrower
question, for runs written before this table existed, and on Trino, whose loading pipeline does not write it.
An upload that changes devices already in the warehouse (their OS version) drops the summaries of the runs
those devices are in: they are computed live again from then on, never served stale.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb

from assessment_engine.warehouse.store import QueryResult, Warehouse
from foundation.vocabulary.severity import SEVERITIES, high_or_above_sql, rank_sql

SAMPLE_CAP = 50  # failing results shown as examples, in every tool
BREAKDOWN_CAP = 25  # keys kept per breakdown: at 10,000 devices there are thousands of sites
TOP = 15  # top assets
TOP_RULES = 100  # failing rules: every one of a catalog ("what do those fail?" is answered in full)
BREAKDOWNS = {
    "severity": "b.severity",
    "product_family": "b.product_family",
    "technology": "b.technology",
    "category": "b.category",
    "os": "b.platform || ' ' || b.os_version",
    "criticality": "b.criticality",
    "site": "b.site",
    "device_type": "b.device_type",
}
ROWS = """
  SELECT r.asset_id, r.rule_id, r.status, r.severity, r.evidence, r.evidence_lines, r.exception_id,
         a.site, a.environment, a.device_type, a.product_family, a.platform, a.os_version, a.criticality,
         ru.title, ru.category, ru.technology, ru.remediation, ru.rationale, ru.refs
  FROM results r
  JOIN assets a ON a.asset_id = r.asset_id
  JOIN rules ru ON ru.rule_id = r.rule_id
  WHERE r.assessment_id = ? AND {where}
"""
BASE = "\nWITH b AS (" + ROWS + ")\n"
TABLE = "run_summaries"
DDL = f"""CREATE TABLE IF NOT EXISTS {TABLE} (assessment_id VARCHAR NOT NULL, severity_filter VARCHAR NOT NULL,
          statement VARCHAR NOT NULL, payload VARCHAR NOT NULL)"""


def fail_filter(severity: str | None) -> tuple[str, list[Any]]:
    return ("b.status = 'fail' AND b.severity = ?", [severity]) if severity else ("b.status = 'fail'", [])


def statements(base: str, params: list[Any], severity: str | None) -> dict[str, tuple[str, list[Any]]]:
    """Each statement of the summary over the rows ``base`` selects (with ``params``), failures restricted to
    ``severity`` when given: name → (SQL, parameters)."""
    fail, fparams = fail_filter(severity)
    union = " UNION ALL ".join(
        f"SELECT '{name}' AS breakdown, CAST({expr} AS VARCHAR) AS k, COUNT(*) AS failures, "
        f"COUNT(DISTINCT b.asset_id) AS assets FROM b WHERE {fail} GROUP BY {expr}" for name, expr in BREAKDOWNS.items())
    return {
        "metrics": (base + f"""
            SELECT COUNT(DISTINCT b.asset_id), COUNT(*),
                   SUM(CASE WHEN b.status = 'fail' THEN 1 ELSE 0 END),
                   SUM(CASE WHEN b.status = 'pass' THEN 1 ELSE 0 END),
                   SUM(CASE WHEN b.status = 'exception' THEN 1 ELSE 0 END),
                   COUNT(DISTINCT b.rule_id),
                   COUNT(DISTINCT CASE WHEN b.status = 'fail' THEN b.asset_id END),
                   COUNT(DISTINCT CASE WHEN b.status = 'fail' AND {high_or_above_sql('b.severity')} THEN b.asset_id END),
                   SUM(CASE WHEN {fail} THEN 1 ELSE 0 END),
                   COUNT(DISTINCT CASE WHEN {fail} THEN b.asset_id END)
            FROM b""", params + fparams + fparams),
        # every breakdown in one statement, the largest BREAKDOWN_CAP keys of each and how many keys it has
        "breakdowns": (base + f""", grouped AS ({union}),
            ranked AS (SELECT grouped.*, ROW_NUMBER() OVER (PARTITION BY breakdown ORDER BY failures DESC, k) AS rn,
                              COUNT(*) OVER (PARTITION BY breakdown) AS n_keys FROM grouped)
            SELECT breakdown, k, failures, assets, n_keys FROM ranked WHERE rn <= {BREAKDOWN_CAP}
            ORDER BY breakdown, rn""", params + fparams * len(BREAKDOWNS)),
        "top_rules": (base + f"""
            SELECT b.rule_id, MIN(b.title) AS title, MIN(b.severity) AS severity, MIN(b.category) AS category,
                   MIN(b.technology) AS technology, MIN(b.remediation) AS remediation, MIN(b.rationale) AS rationale,
                   MIN(b.refs) AS refs,
                   COUNT(DISTINCT CASE WHEN b.criticality IN ('critical', 'high') THEN b.asset_id END) AS critical_assets,
                   COUNT(DISTINCT b.asset_id) AS failing_assets
            FROM b WHERE {fail} GROUP BY b.rule_id
            ORDER BY failing_assets DESC, MAX({rank_sql('b.severity')}) DESC, b.rule_id LIMIT {TOP_RULES}""",
                      params + fparams),
        "rule_platforms": (base + f"""
            SELECT b.rule_id, b.platform, COUNT(DISTINCT b.asset_id) AS n FROM b WHERE {fail}
            GROUP BY b.rule_id, b.platform ORDER BY n DESC, b.platform, b.rule_id""", params + fparams),
        "top_assets": (base + f"""
            SELECT b.asset_id, MIN(b.site) AS site, MIN(b.product_family) AS product_family,
                   MIN(b.criticality) AS criticality, COUNT(*) AS failures,
                   SUM(CASE WHEN b.severity = 'critical' THEN 1 ELSE 0 END) AS critical,
                   SUM(CASE WHEN b.severity = 'high' THEN 1 ELSE 0 END) AS high
            FROM b WHERE {fail} GROUP BY b.asset_id
            ORDER BY critical DESC, high DESC, failures DESC, b.asset_id LIMIT {TOP}""", params + fparams),
        # one example of every failing rule first (the findings of a fleet answer each show one device's lines),
        # then the rest by severity
        "sample": (base + f"""
            SELECT s.asset_id, s.site, s.criticality, s.rule_id, s.title, s.severity, s.evidence, s.evidence_lines
            FROM (SELECT b.*, ROW_NUMBER() OVER (PARTITION BY b.rule_id ORDER BY b.asset_id) AS nth
                  FROM b WHERE {fail}) AS s
            ORDER BY s.nth > 1, {rank_sql('s.severity')} DESC, s.asset_id, s.rule_id LIMIT {SAMPLE_CAP}""",
                   params + fparams),
    }


def whole_run(assessment_id: str) -> tuple[str, list[Any]]:
    """The base of the summary statements over every result of one run, and its parameters."""
    return BASE.format(where="1 = 1"), [assessment_id]


_SCRATCH = "run_summary_scratch"
_ROWS_TABLE = f"{_SCRATCH}.run_rows"
THREADS = 3  # cursors the statements are spread over: each is mostly DuckDB's planning, which runs without the GIL


def write(con: duckdb.DuckDBPyConnection, assessment_id: str) -> int:
    """Store the whole-run results of every statement for ``assessment_id``, unfiltered and per severity, through
    the writer's connection; returns the rows stored. Called outside a transaction, on a database no reader sees
    until it is whole (a staging version, a new build): the statements run on cursors of ``con`` in threads, and a
    cursor sees only what is committed."""
    con.execute(DDL)
    con.execute(f"DELETE FROM {TABLE} WHERE assessment_id = ?", [assessment_id])
    # the run's rows joined once into a table, and every statement over it: the same rows as the live base (the
    # statements are the tool's own), without the join repeated 36 times (a tenth of an upload). The table is in
    # an in-memory database attached to the connection: its cursors see it (a TEMP table is one connection's), it
    # is never written to the file, and it goes when detached.
    con.execute(f"ATTACH ':memory:' AS {_SCRATCH}")
    try:
        con.execute(f"CREATE TABLE {_ROWS_TABLE} AS {ROWS.format(where='1 = 1')}", [assessment_id])
        # the base takes the run's id as its one value, as the live base does: DuckDB names an unnamed column
        # after the positions of the values in it ($2), and the stored columns are the live ones
        base = f"\nWITH b AS (SELECT * FROM {_ROWS_TABLE} WHERE ? IS NOT NULL)\n"
        jobs = [(severity or "", name, sql, p) for severity in (None, *SEVERITIES)
                for name, (sql, p) in statements(base, [assessment_id], severity).items()]
        cursors = [con.cursor() for _ in range(THREADS)]

        def run(share: int) -> list[tuple[int, QueryResult]]:  # every THREADS-th statement, on a cursor of its own
            return [(j, query(cursors[share], jobs[j][2], jobs[j][3])) for j in range(share, len(jobs), THREADS)]

        try:
            with ThreadPoolExecutor(THREADS) as pool:
                done = dict(pair for part in pool.map(run, range(THREADS)) for pair in part)
        finally:
            for cursor in cursors:
                cursor.close()
    finally:
        con.execute(f"DETACH {_SCRATCH}")
    rows = [(assessment_id, severity, name, payload(done[j])) for j, (severity, name, _, _) in enumerate(jobs)]
    con.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)", rows)
    return len(rows)


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> QueryResult:
    """One statement on a writer's connection (or cursor), as the warehouse's query interface returns it."""
    cur = con.execute(sql, params)
    return QueryResult([d[0] for d in cur.description or []], cur.fetchall())


def payload(result: QueryResult) -> str:
    """A statement's result as stored with its run (``stored`` reads it back)."""
    return json.dumps({"columns": result.columns, "rows": result.rows}, default=str)


def stored(w: Warehouse, table: str, sql: str, params: list[Any], names: set[str]) -> dict[str, QueryResult] | None:
    """The stored results ``sql`` selects (statement, payload) from ``table``, or None unless every one of ``names``
    is there (a table written before, an engine other than the embedded one, rows dropped by an upload)."""
    if w.dialect != "duckdb" or not w.query(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = ?", [table]).rows[0][0]:
        return None
    found = {name: json.loads(text) for name, text in w.query(sql, params).rows}
    if set(found) != names:
        return None
    return {name: QueryResult(p["columns"], [tuple(row) for row in p["rows"]]) for name, p in found.items()}


class _Connection:
    """A writer's DuckDB connection behind the warehouse's query interface."""

    dialect = "duckdb"

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def query(self, sql: str, params: Any = ()) -> QueryResult:
        return query(self.con, sql, list(params))


def forget_runs_of(con: duckdb.DuckDBPyConnection, asset_ids: list[str]) -> None:
    """Drop the summaries of every run that assessed one of ``asset_ids`` (their inventory rows are about to
    change, and the summaries join them)."""
    if not asset_ids:
        return
    con.execute(DDL)
    marks = ", ".join("?" for _ in asset_ids)
    con.execute(f"DELETE FROM {TABLE} WHERE assessment_id IN "
                f"(SELECT DISTINCT assessment_id FROM results WHERE asset_id IN ({marks}))", asset_ids)


def read(w: Warehouse, assessment_id: str, severity: str | None) -> dict[str, QueryResult] | None:
    """The stored whole-run results of ``assessment_id``, or None when they are not stored (a run written before
    the table existed, a changed inventory, an engine other than the embedded one)."""
    return stored(w, TABLE, f"SELECT statement, payload FROM {TABLE} WHERE assessment_id = ? AND severity_filter = ?",
                  [assessment_id, severity or ""], set(statements("", [], severity)))
