"""Build the assessment warehouse: demo network -> configs -> rule engine -> SLIC engine -> DuckDB.

The build writes into a temporary file and renames it into place, so a reader never sees a half
built warehouse. ``assess_device`` is the unit of work (also used for user-supplied configs).
"""

from __future__ import annotations

import csv
import os
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import partial
from pathlib import Path
from typing import Any

import duckdb

from assessment_engine.catalog import EngineCatalog
from assessment_engine.checks.config_parser import ParsedConfig, parse_config
from assessment_engine.checks.rule_engine import Rule, RuleResult, evaluate_config
from assessment_engine.checks.slic_engine import DeviceFacts, Signature, evaluate_device
from assessment_engine.ontology import Ontology
from assessment_engine.warehouse import comparison_summary, run_summary
from assessment_engine.warehouse import demo_network as demo
from assessment_engine.warehouse.config_templates import DeviceSpec, render
from assessment_engine.warehouse.versions import discard_versions
from foundation.secrets import mask_config, mask_evidence
from foundation.yaml_files import read_yaml

FLEET = "fleet"  # the collection of the managed network; uploads get collections of their own
ANNOTATIONS = [
    "Acknowledged by NetOps; upgrade planned in the next maintenance window.",
    "Under investigation by the SOC (ticket SEC-{n}).",
    "Risk accepted until the hardware refresh; see approved exceptions.",
    "",
    "",
]


@dataclass(frozen=True)
class ApprovedException:
    exception_id: str
    rule_id: str
    sites: list[str]
    device_type: str
    reason: str
    approved_by: str
    expires_on: date
    source_document: str

    def covers(self, rule_id: str, site: str, device_type: str, on: date) -> bool:
        return (rule_id == self.rule_id and (site in self.sites or "*" in self.sites)
                and self.device_type in ("any", device_type) and on <= self.expires_on)


def load_exceptions(path: Path) -> list[ApprovedException]:
    data = read_yaml(path)
    return [ApprovedException(**e) for e in data["exceptions"]]


@dataclass
class Rows:
    configs: list[tuple[Any, ...]] = field(default_factory=list)
    results: list[tuple[Any, ...]] = field(default_factory=list)
    slic: list[tuple[Any, ...]] = field(default_factory=list)
    events: list[tuple[Any, ...]] = field(default_factory=list)

    def extend(self, other: Rows) -> None:
        self.configs += other.configs
        self.results += other.results
        self.slic += other.slic
        self.events += other.events


def assess_device(spec: DeviceSpec, os_version: str, text: str, assessment_id: str, at: datetime,
                  rules: Sequence[Rule], signatures: Sequence[Signature], exceptions: Sequence[ApprovedException],
                  events: Sequence[tuple[datetime, int, str, str]] = (), cfg: ParsedConfig | None = None,
                  judged: Sequence[RuleResult] | None = None) -> Rows:
    """Run the rule and SLIC engines on one configuration snapshot (``cfg``: already parsed, with the user's
    interface-role overrides; ``judged``: the rules' results when the caller already ran them on ``cfg``)."""
    cfg = cfg or parse_config(text, spec.platform)  # type: ignore[arg-type]
    rows = Rows()
    # the rules judge the original in memory; only the masked text and masked evidence are stored
    masked = mask_config(text.replace("\r\n", "\n").replace("\r", "\n"))
    masked_lines = masked.split("\n")
    rows.configs.append((assessment_id, spec.hostname, at, os_version, len(masked_lines), masked))
    for result in judged if judged is not None else evaluate_config(rules, cfg, spec.device_type):
        if result.status == "not_applicable":
            continue
        status: str = result.status
        exc_id = None
        if status == "fail":
            exc = next((e for e in exceptions if e.covers(result.rule_id, spec.site, spec.device_type, at.date())), None)
            if exc:
                status, exc_id = "exception", exc.exception_id
        rows.results.append((assessment_id, spec.hostname, result.rule_id, status, result.severity,
                             mask_evidence(result.evidence, masked_lines),
                             ",".join(map(str, result.evidence_lines)), exc_id))
    facts = DeviceFacts(spec.platform, spec.device_type, os_version, cfg, [(e[0], e[2], e[3]) for e in events], at)
    for i, match in enumerate(evaluate_device(list(signatures), facts)):
        sig = match.signature
        note = ANNOTATIONS[(hash(spec.hostname) + i) % len(ANNOTATIONS)].format(n=4000 + len(spec.hostname) * 7 + i)
        rows.slic.append((f"{assessment_id}:{spec.hostname}:{sig.id}", assessment_id, spec.hostname, sig.id, sig.title,
                          sig.kind, sig.category, sig.severity, sig.hypothesis, mask_evidence(match.evidence, masked_lines), ",".join(sig.cves),
                          sig.advisory, sig.recommendation, note))
    return rows


def _assess_demo_device(judged_with: tuple[list[Rule], list[Signature], list[ApprovedException]],
                        args: tuple[demo.DemoDevice, int, list[tuple[str, datetime]]]) -> Rows:
    device, seed, runs = args
    rules, signatures, exceptions = judged_with
    hygiene = demo.hygiene_runs(device, seed, len(runs))
    rows = Rows()
    for i, (assessment_id, at) in enumerate(runs):
        if not device.present[i]:
            continue
        text = render(device.spec, device.versions[i], hygiene[i], at.strftime("%H:%M:%S UTC %a %b %d %Y"))
        events = list(demo.events_for(device, hygiene[i], seed, at))
        rows.events += [(device.spec.hostname, ts, sev, mnem, msg) for ts, sev, mnem, msg in events]
        rows.extend(assess_device(device.spec, device.versions[i], text, assessment_id, at, rules, signatures,
                                  exceptions, events))
    return rows


@dataclass(frozen=True)
class BuildReport:
    path: Path
    devices: int
    sites: int
    assessments: int
    results: int
    slic_results: int
    events: int
    seconds: float


def _write_csv(path: Path, rows: Iterable[Sequence[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        for row in rows:
            writer.writerow(["" if v is None else v for v in row])


def _load(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple[Any, ...]], tmp: Path) -> None:
    if not rows:
        return
    csv_path = tmp / f"{table}.csv"
    _write_csv(csv_path, rows)
    con.execute(f"COPY {table} FROM '{csv_path}' (FORMAT csv, DELIMITER ',', HEADER false, QUOTE '\"', ESCAPE '\"', NULLSTR '', AUTO_DETECT false, NEW_LINE '\\n')")


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Append rows in one statement, a list parameter per column unnested side by side: 0.13 s for 28,706 result
    rows where ``executemany`` took 15.6 s (it runs the INSERT once per row). Values and NULLs stay as given, and it
    runs inside the caller's transaction, unlike a COPY from a file."""
    if not rows:
        return
    columns = [list(column) for column in zip(*rows, strict=True)]
    con.execute(f"INSERT INTO {table} SELECT {', '.join('unnest(?)' for _ in columns)}", columns)


def build_demo_warehouse(path: Path, catalog: EngineCatalog, devices: int = 150, seed: int = 7, runs: int = 4,
                         workers: int | None = None) -> BuildReport:
    """Generate the demo network and its assessments into a DuckDB file (atomic replace), judged with the rules,
    signatures and approved exceptions of ``catalog`` and laid out by its ontology."""
    started = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)
    sites = demo.sites_for(devices)
    fleet = list(demo.devices_for(sites, seed, runs))
    run_ids = demo.assessment_ids(runs)
    work = [(d, seed, run_ids) for d in fleet]
    workers = workers or (min(os.cpu_count() or 1, 4) if len(fleet) > 400 else 1)
    rules, exceptions = list(catalog.rules.rules), load_exceptions(catalog.exceptions_file)
    assess = partial(_assess_demo_device, (rules, list(catalog.signatures), exceptions))
    rows = Rows()
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part in pool.map(assess, work, chunksize=64):
                rows.extend(part)
    else:
        for item in work:
            rows.extend(assess(item))

    asset_rows = []
    for d in fleet:
        seen = [run_ids[i][0] for i, p in enumerate(d.present) if p]
        s = d.spec
        asset_rows.append((s.hostname, s.site, s.environment, s.device_type, s.role, s.product_family, s.model,
                           s.platform, d.versions[max(i for i, p in enumerate(d.present) if p)], s.criticality,
                           s.mgmt_ip, seen[0], seen[-1], FLEET, None))
    counts: dict[str, int] = {}
    for c in rows.configs:
        counts[c[0]] = counts.get(c[0], 0) + 1
    tables: dict[str, list[tuple[Any, ...]]] = {
        "sites": [(s.name, s.site_type, s.tier, s.region, s.pci_scope) for s in sites],
        "assets": asset_rows,
        "assessments": [(aid, "configuration_best_practice", at, f"Monthly CBP run {at:%B %Y}", "all managed devices",
                         counts.get(aid, 0), len(rules), FLEET, None) for aid, at in run_ids],
        "rules": [(r.id, r.title, r.category, r.technology, r.severity, ",".join(r.platforms), r.rationale,
                   "\n".join(r.default_fix), r.refs) for r in rules],
        # rows of one run stored together: a turn reads one run, and DuckDB skips the row groups of the others
        "configs": sorted(rows.configs, key=lambda r: (r[0], r[1])),
        "results": sorted(rows.results, key=lambda r: (r[0], r[1], r[2])),
        "exceptions": [(e.exception_id, e.rule_id, ",".join(e.sites), e.device_type, e.reason, e.approved_by,
                        e.expires_on, e.source_document) for e in exceptions],
        "slic_results": sorted(rows.slic, key=lambda r: (r[1], r[2], r[0])),
        "events": [(i + 1, *e) for i, e in enumerate(sorted(rows.events, key=lambda e: (e[1], e[0])))],
    }
    _write_database(path, tables, catalog.ontology)
    return BuildReport(path, len(fleet), len(sites), runs, len(rows.results), len(rows.slic), len(rows.events),
                       round(time.perf_counter() - started, 2))


def _write_database(path: Path, tables: dict[str, list[tuple[Any, ...]]], ontology: Ontology) -> None:
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp_dir:
        tmp = Path(tmp_dir)
        target = tmp / "warehouse.duckdb"
        con = duckdb.connect(str(target))
        try:
            for ddl in ontology.ddl():
                con.execute(ddl)
            for table, rows in tables.items():
                _load(con, table, rows, tmp)
            for (assessment_id,) in con.execute("SELECT assessment_id FROM assessments").fetchall():
                run_summary.write(con, assessment_id)
                comparison_summary.write(con, assessment_id, run_summary.SAMPLE_CAP)
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.replace(target, path)  # an open reader sees the new stamp and reopens (``DuckDBWarehouse._open``)
        discard_versions(path)  # versions published over the previous file are gone with it


def ensure_demo_warehouse(path: Path, catalog: EngineCatalog) -> BuildReport | None:
    """Build the demo warehouse on first run; leave an existing one alone."""
    if path.exists():
        return None
    return build_demo_warehouse(path, catalog)
