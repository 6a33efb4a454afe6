"""The statements that compare two assessment runs, and their results for each run and the one before it, written
with the run.

The comparison tool (DESIGN §6.2) answers "what changed since the last assessment?" from four statements over both
runs' failing results and assessed devices. Asked of a whole run and the run before it — no scope, severity or rule
filter, the question asked most — they depend on nothing but the two runs, yet at 10,000 devices they read 700,000
results on every ask (~180 ms). So they are run once more when a run is written (the demo build and every upload,
after the run summaries of ``run_summary.py``), against the run before it in its collection, and their rows stored
in ``comparison_summaries``; the tool reads them back in one query.

The stored rows come from the very statements the tool runs live (defined here), so they are equal by construction,
and ``tests/unit/test_run_summary.py`` checks it for every pair of runs. The trend rows stored are those of the
collection's runs up to the current one (results of a written run never change, and runs are never deleted); the
tool still keeps only the runs its viewer may see. An upload that changes devices already in the warehouse drops the
pairs those devices are in, as for run summaries.
"""

from __future__ import annotations

from typing import Any

import duckdb

from assessment_engine.warehouse.run_summary import payload, query, stored
from assessment_engine.warehouse.store import QueryResult, Warehouse

# The two runs' failing results and assessed devices in scope, compared by set operations in the engine: a
# turn fetches the counts and capped samples, never the failing rows themselves (~100k per run at 10k devices).
RUNS = """
WITH cur AS (SELECT r.asset_id, r.rule_id, r.severity, a.site FROM results r JOIN assets a ON a.asset_id = r.asset_id
             WHERE r.assessment_id = ? AND r.status = 'fail' AND {where} {severity}),
prev AS (SELECT r.asset_id, r.rule_id, r.severity, a.site FROM results r JOIN assets a ON a.asset_id = r.asset_id
         WHERE r.assessment_id = ? AND r.status = 'fail' AND {where} {severity}),
ca AS (SELECT DISTINCT c.asset_id FROM configs c JOIN assets a ON a.asset_id = c.asset_id
       WHERE c.assessment_id = ? AND {where}),
pa AS (SELECT DISTINCT c.asset_id FROM configs c JOIN assets a ON a.asset_id = c.asset_id
       WHERE c.assessment_id = ? AND {where}),
ok AS (SELECT r.asset_id, r.rule_id FROM results r JOIN assets a ON a.asset_id = r.asset_id
       WHERE r.assessment_id = ? AND r.status <> 'fail' AND {where} {severity}),
fixed AS (SELECT p.asset_id, COUNT(*) AS fixed_f FROM prev p JOIN ok o ON o.asset_id = p.asset_id AND o.rule_id = p.rule_id
          GROUP BY p.asset_id)
"""

# Up to the cap of rows per device kind (improved, worsened, new, removed, same), each carrying the totals.
ASSETS = """,
pairs AS (SELECT COALESCE(c.asset_id, p.asset_id) AS asset_id,
                 CASE WHEN c.asset_id IS NULL THEN 0 ELSE 1 END AS in_cur,
                 CASE WHEN p.asset_id IS NULL THEN 0 ELSE 1 END AS in_prev
          FROM cur c FULL OUTER JOIN prev p ON c.asset_id = p.asset_id AND c.rule_id = p.rule_id),
f AS (SELECT asset_id, SUM(in_cur) AS cur_f, SUM(in_prev) AS prev_f, SUM(in_cur * in_prev) AS both_f
      FROM pairs GROUP BY asset_id),
s AS (SELECT asset_id, MAX(in_ca) AS in_ca, MAX(in_pa) AS in_pa
      FROM (SELECT asset_id, 1 AS in_ca, 0 AS in_pa FROM ca UNION ALL SELECT asset_id, 0, 1 FROM pa) x GROUP BY asset_id),
per AS (SELECT COALESCE(s.asset_id, f.asset_id) AS asset_id, COALESCE(s.in_ca, 0) AS in_ca, COALESCE(s.in_pa, 0) AS in_pa,
               COALESCE(f.cur_f, 0) AS cur_f, COALESCE(f.prev_f, 0) AS prev_f, COALESCE(f.both_f, 0) AS both_f,
               COALESCE(x.fixed_f, 0) AS fixed_f
        FROM s FULL OUTER JOIN f ON s.asset_id = f.asset_id LEFT JOIN fixed x ON x.asset_id = COALESCE(s.asset_id, f.asset_id)),
kinds AS (SELECT per.*, CASE WHEN in_ca = 1 AND in_pa = 1 AND cur_f < prev_f THEN 'improved'
                             WHEN in_ca = 1 AND in_pa = 1 AND cur_f > prev_f THEN 'worsened'
                             WHEN in_ca = 1 AND in_pa = 1 THEN 'same'
                             WHEN in_ca = 1 THEN 'new' WHEN in_pa = 1 THEN 'removed' ELSE 'unassessed' END AS kind FROM per),
ranked AS (SELECT kinds.*,
           ROW_NUMBER() OVER (PARTITION BY kind ORDER BY CASE kind WHEN 'worsened' THEN prev_f - cur_f WHEN 'improved' THEN cur_f - prev_f
                                                              ELSE 0 END,
                                                         CASE WHEN kind = 'worsened' THEN asset_id END DESC, asset_id) AS rn,
           COUNT(*) OVER (PARTITION BY kind) AS n_kind,
           SUM(cur_f) OVER () AS cur_total, SUM(prev_f) OVER () AS prev_total,
           SUM(CASE WHEN in_ca = 1 THEN cur_f - both_f ELSE 0 END) OVER () AS new_total,
           SUM(fixed_f) OVER () AS resolved_total,
           SUM(both_f) OVER () AS persistent_total, SUM(in_ca) OVER () AS cur_assets, SUM(in_pa) OVER () AS prev_assets
           FROM kinds)
SELECT kind, asset_id, prev_f, cur_f, n_kind, cur_total, prev_total, new_total, resolved_total, persistent_total,
       cur_assets, prev_assets
FROM ranked WHERE rn <= {cap} ORDER BY kind, rn
"""

# The first issues of each kind by (device, rule). New: failing now and not in the previous run, a newly assessed
# device's failures included (they are new to whoever works the list). Resolved: failing then and checked again and
# not failing now (passing, or covered by an exception); a check no longer run, or a device no longer assessed, is
# not a fix.
ISSUES = """,
issues AS (
  SELECT 'new' AS kind, c.asset_id, c.rule_id, c.severity, c.site FROM cur c
  WHERE NOT EXISTS (SELECT 1 FROM prev p WHERE p.asset_id = c.asset_id AND p.rule_id = c.rule_id)
  UNION ALL
  SELECT 'resolved', p.asset_id, p.rule_id, p.severity, p.site FROM prev p
  WHERE EXISTS (SELECT 1 FROM ok o WHERE o.asset_id = p.asset_id AND o.rule_id = p.rule_id)
  UNION ALL
  SELECT 'persistent', c.asset_id, c.rule_id, c.severity, c.site FROM cur c
  WHERE EXISTS (SELECT 1 FROM prev p WHERE p.asset_id = c.asset_id AND p.rule_id = c.rule_id)),
ranked AS (SELECT issues.*, ROW_NUMBER() OVER (PARTITION BY kind ORDER BY asset_id, rule_id) AS rn FROM issues)
SELECT ranked.kind, ranked.asset_id, ranked.rule_id, ranked.severity, ranked.site, ru.title
FROM ranked JOIN rules ru ON ru.rule_id = ranked.rule_id WHERE rn <= {cap} ORDER BY ranked.kind, rn
"""


TABLE = "comparison_summaries"
ASSETS_V, ISSUES_V = "assets.v2", "issues.v2"  # v2: new findings on newly assessed devices, fixes only checked again
DDL = f"""CREATE TABLE IF NOT EXISTS {TABLE} (current_assessment_id VARCHAR NOT NULL,
          previous_assessment_id VARCHAR NOT NULL, statement VARCHAR NOT NULL, payload VARCHAR NOT NULL)"""


def statements(current_id: str, previous_id: str, where: str, scope_params: list[Any], filter_sql: str,
               filter_params: list[Any], cap: int) -> dict[str, tuple[str, list[Any]]]:
    """The comparison's statements: name → (SQL, parameters). ``where``: the scope's condition on the assets alias
    ``a``; ``filter_sql``: the results' severity and rule conditions (on ``r``), each with its parameters."""
    runs = RUNS.format(where=where, severity=filter_sql)
    params = [current_id, *scope_params, *filter_params, previous_id, *scope_params, *filter_params,
              current_id, *scope_params, previous_id, *scope_params, current_id, *scope_params, *filter_params]
    return {  # a name carries its definition's version: rows stored by an earlier definition are not read back
        ASSETS_V: (runs + ASSETS.format(cap=cap), params),
        ISSUES_V: (runs + ISSUES.format(cap=cap), params),
        "trend_fails": (f"SELECT r.assessment_id, COUNT(*) FROM results r JOIN assets a ON a.asset_id = r.asset_id "
                        f"WHERE r.status = 'fail' AND {where} {filter_sql} GROUP BY r.assessment_id ORDER BY 1",
                        [*scope_params, *filter_params]),
        "trend_assets": (f"SELECT c.assessment_id, COUNT(*) FROM configs c JOIN assets a ON a.asset_id = c.asset_id "
                         f"WHERE {where} GROUP BY c.assessment_id ORDER BY 1", scope_params),
    }


def write(con: duckdb.DuckDBPyConnection, assessment_id: str, cap: int) -> int:
    """Store the whole-run comparison of ``assessment_id`` with the run before it in its collection (none for a
    collection's first run); returns the statements stored."""
    con.execute(DDL)
    con.execute(f"DELETE FROM {TABLE} WHERE current_assessment_id = ?", [assessment_id])
    runs = con.execute("SELECT assessment_id, started_at FROM assessments WHERE collection = (SELECT collection FROM "
                       "assessments WHERE assessment_id = ?) AND started_at <= (SELECT started_at FROM assessments "
                       "WHERE assessment_id = ?) ORDER BY started_at, assessment_id",
                       [assessment_id, assessment_id]).fetchall()
    started = next(at for run, at in runs if run == assessment_id)
    earlier = [run for run, at in runs if at < started]  # a run of the same second is not "before" (the tool says so)
    if not earlier:
        return 0
    mine = {run for run, _ in runs}
    rows = []
    for name, (sql, params) in statements(assessment_id, earlier[-1], "1 = 1", [], "", [], cap).items():
        result = query(con, sql, params)
        if name.startswith("trend_"):  # the collection's runs up to this one: later runs never change these rows
            result = QueryResult(result.columns, [row for row in result.rows if row[0] in mine])
        rows.append((assessment_id, earlier[-1], name, payload(result)))
    con.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?)", rows)
    return len(rows)


def forget_runs_of(con: duckdb.DuckDBPyConnection, asset_ids: list[str]) -> None:
    """Drop the comparisons of every run that assessed one of ``asset_ids`` (their inventory rows are about to change,
    and the comparisons join them)."""
    if not asset_ids:
        return
    con.execute(DDL)
    marks = ", ".join("?" for _ in asset_ids)
    runs = f"(SELECT DISTINCT assessment_id FROM results WHERE asset_id IN ({marks}))"
    con.execute(f"DELETE FROM {TABLE} WHERE current_assessment_id IN {runs} OR previous_assessment_id IN {runs}",
                [*asset_ids, *asset_ids])


def read(w: Warehouse, current_id: str, previous_id: str) -> dict[str, QueryResult] | None:
    """The stored comparison of ``current_id`` with ``previous_id``, or None when it is not stored (another pair of
    runs, a run written before the table existed, a changed inventory, an engine other than the embedded one)."""
    return stored(w, TABLE, f"SELECT statement, payload FROM {TABLE} WHERE current_assessment_id = ? AND "
                            "previous_assessment_id = ?", [current_id, previous_id],
                  set(statements("", "", "", [], "", [], 0)))
