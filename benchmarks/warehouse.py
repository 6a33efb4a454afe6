"""``assess bench data``: build a large warehouse and time every tool call and SQL-path query on
DuckDB and on SQLite (same tables, same SQL transpiled by sqlglot) in the same run."""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from assessment_engine.ontology import Ontology
from assessment_engine.warehouse.build import build_demo_warehouse
from assessment_engine.warehouse.sql_path import GuardedStatements, run_sql
from assessment_engine.warehouse.store import DuckDBWarehouse, SQLiteWarehouse, Warehouse
from orchestration.catalog import Catalog
from orchestration.nlu.facets import read_facets
from orchestration.services import build_services
from orchestration.state import Intent
from orchestration.tools.analysis_tool import analyse
from orchestration.tools.comparison_tool import compare
from orchestration.tools.issue_tracking_tool import track
from orchestration.tools.scope import scope_for
from orchestration.tools.sql_plan import plan_sql

SQLITE_INDEXES = [
    "CREATE INDEX ix_results_run ON results(assessment_id, status)", "CREATE INDEX ix_results_asset ON results(asset_id)",
    "CREATE INDEX ix_assets_site ON assets(site)", "CREATE INDEX ix_configs_run ON configs(assessment_id)",
    "CREATE INDEX ix_slic_run ON slic_results(assessment_id)",
]


def export_sqlite(duck_path: Path, sqlite_path: Path, ontology: Ontology) -> None:
    """Copy every table to SQLite (config text left out: no query reads it and it would dominate the copy)."""
    sqlite_path.unlink(missing_ok=True)
    src = duckdb.connect(str(duck_path), read_only=True)
    dst = sqlite3.connect(sqlite_path)
    try:
        for ddl in ontology.ddl("sqlite"):
            dst.execute(ddl)
        for table in ontology.tables:
            cols = ontology.columns(table)
            select = ", ".join("NULL" if (table, c) == ("configs", "config_text") else c for c in cols)
            cur = src.execute(f"SELECT {select} FROM {table}")
            marks = ", ".join("?" for _ in cols)
            while batch := cur.fetchmany(50_000):
                dst.executemany(f"INSERT INTO {table} VALUES ({marks})",
                                [tuple(str(v) if hasattr(v, "isoformat") else v for v in row) for row in batch])
        for ddl in SQLITE_INDEXES:
            dst.execute(ddl)
        for table, spec in ontology.tables.items():  # key columns, as a SQLite user would index them
            for col, cspec in spec.columns.items():
                if cspec.key:
                    dst.execute(f"CREATE INDEX ix_{table}_{col} ON {table}({col})")
        dst.commit()
    finally:
        src.close()
        dst.close()


def _time(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm-up
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _workload(w: Warehouse, catalog: Catalog) -> dict[str, Callable[[], Any]]:
    statements = GuardedStatements(catalog.ontology)

    def sql(prompt: str, entities: list[dict[str, Any]]) -> Callable[[], Any]:
        plan = plan_sql(read_facets(prompt, catalog), scope_for(Intent.model_validate({"entities": entities}))[0],
                        catalog.ontology)
        assert plan is not None, prompt
        latest = w.query("SELECT assessment_id FROM assessments ORDER BY started_at DESC LIMIT 1").rows[0][0]
        params = [latest, *plan.params] if plan.assessment_id else plan.params
        return lambda: run_sql(w, plan.sql, params, statements)

    return {
        "analysis(summary)": lambda: analyse(w, "summary", catalog=catalog),
        "analysis(filtering critical, production routers)": lambda: analyse(
            w, "filtering", severity_filter="critical", scope={"environment": "production", "device_type": "router"},
            catalog=catalog),
        "analysis(assets) site HQ": lambda: analyse(w, "assets", scope={"sites": ["HQ"]}, catalog=catalog),
        "comparison(latest vs previous)": lambda: compare(w, "latest", "previous", "assets"),
        "issue_tracking(persistent, critical)": lambda: track(w, "persistent", "since_prior", priority="critical"),
        "sql: IOS-XE versions at Branch-05": sql("Which IOS-XE versions run at Branch-05?",
                                                 [{"type": "site", "value": "Branch-05", "confidence": 1},
                                                  {"type": "platform", "value": "ios-xe", "confidence": 1}]),
        "sql: devices without an NTP server": sql("List devices without an NTP server", []),
    }


def run_benchmark(devices: int = 10_000, runs: int = 3, repeat: int = 5, workdir: Path | None = None,
                  report: Callable[[str], None] = print) -> dict[str, Any]:
    workdir = workdir or Path(tempfile.mkdtemp(prefix="assess-bench-"))
    duck_path, sqlite_path = workdir / "warehouse.duckdb", workdir / "warehouse.sqlite"
    report(f"building a {devices:,}-device warehouse with {runs} assessment runs in {workdir} …")
    catalog = build_services().catalog
    build = build_demo_warehouse(duck_path, catalog, devices=devices, runs=runs)
    report(f"  built in {build.seconds:.1f} s: {build.devices:,} devices, {build.sites:,} sites, "
           f"{build.results:,} results, {build.slic_results:,} SLIC results, {build.events:,} events "
           f"({build.devices * runs / build.seconds:,.0f} configs assessed per second)")
    started = time.perf_counter()
    export_sqlite(duck_path, sqlite_path, catalog.ontology)
    report(f"  SQLite copy in {time.perf_counter() - started:.1f} s (with indexes on the filtered columns)")
    duck, lite = DuckDBWarehouse(duck_path), SQLiteWarehouse(sqlite_path)
    rows = []
    report(f"\n{'query':<52} {'DuckDB ms':>10} {'SQLite ms':>10} {'ratio':>7}")
    for name, fn in _workload(duck, catalog).items():
        d = _time(fn, repeat)
        s = _time(_workload(lite, catalog)[name], repeat)
        rows.append({"query": name, "duckdb_ms": round(d, 1), "sqlite_ms": round(s, 1), "sqlite_over_duckdb": round(s / d, 1)})
        report(f"{name:<52} {d:>10.1f} {s:>10.1f} {s / d:>6.1f}x")
    duck.close()
    lite.close()
    return {"devices": build.devices, "runs": runs, "build_seconds": build.seconds, "queries": rows}
