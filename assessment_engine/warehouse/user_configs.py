"""Assess user-supplied device configurations into a new assessment, in a collection of its own.

Each file is checked before anything is written: too large, not text, or not a device configuration
is reported per file and the rest of the batch is still assessed. Devices are identified by (collection,
hostname) — stored as ``<collection>/<hostname>`` — so an upload never touches the fleet's inventory or its
latest assessment, and the same hostname from two labs stays two devices.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path

import duckdb

from assessment_engine.catalog import EngineCatalog
from assessment_engine.checks.config_parser import PlatformVerdict, identify_platform
from assessment_engine.checks.judgement import ROLE_FILE, Judgement, judge, load_role_overrides
from assessment_engine.checks.rule_engine import Rule
from assessment_engine.checks.slic_engine import Signature
from assessment_engine.ontology import Ontology
from assessment_engine.warehouse import comparison_summary, run_summary
from assessment_engine.warehouse.build import (
    FLEET,
    ApprovedException,
    Rows,
    assess_device,
    insert_rows,
    load_exceptions,
)
from assessment_engine.warehouse.config_templates import DeviceSpec
from assessment_engine.warehouse.store import WarehouseUnavailable
from assessment_engine.warehouse.versions import WarehouseBusy, new_version
from foundation.config import Settings
from foundation.vocabulary.text import plural

MAX_CONFIG_BYTES = 2 * 1024 * 1024
PARALLEL_FROM = 100  # files: below this a process pool's start costs more than the second core gives


@dataclass
class FileOutcome:
    name: str
    ok: bool
    message: str
    hostname: str | None = None
    failures: int = 0
    platform: str | None = None  # what the file is ("ios-xr", "Arista EOS"), when it was recognised
    judgement: Judgement | None = None


@dataclass
class UploadReport:
    assessment_id: str | None
    files: list[FileOutcome] = field(default_factory=list)
    collection: str | None = None
    warnings: list[str] = field(default_factory=list)  # e.g. a hostname repeated in the batch

    @property
    def assessed(self) -> int:
        return sum(f.ok and f.hostname is not None for f in self.files)

    def platform_summary(self) -> list[str]:
        """'ios-xe: 39 assessed', 'Arista EOS: 0 assessed, 2 refused (why)' — per platform, in the order first seen."""
        seen: dict[str, list[FileOutcome]] = {}
        for f in self.files:
            if f.platform:
                seen.setdefault(f.platform, []).append(f)
        out = []
        for platform, outcomes in seen.items():
            line = f"{platform}: {sum(o.ok for o in outcomes)} assessed"
            refused = [o for o in outcomes if not o.ok]
            if refused:
                line += f", {len(refused)} refused ({refused[0].message.split(': ', 1)[-1]})"
            out.append(line)
        return out


def check_config_text(name: str, data: bytes) -> tuple[str | None, str, PlatformVerdict | None]:
    """Decoded text and what it is, or None and the reason the file cannot be assessed."""
    if len(data) > MAX_CONFIG_BYTES:
        return (None, f"{name}: {len(data):,} bytes is over the {MAX_CONFIG_BYTES // 1024 // 1024} MB limit for a "
                      "configuration", None)
    if not data.strip():
        return None, f"{name}: the file is empty", None
    if b"\x00" in data[:4096]:
        return None, f"{name}: binary file, not a device configuration", None
    text = data.decode("utf-8", errors="replace")
    verdict = identify_platform(text)
    if verdict.platform in ("unknown", "fragment"):
        return None, f"{name}: {verdict.reason}", verdict
    return text, "", verdict


class CollectionTaken(RuntimeError):
    """A new upload's collection name is already in the warehouse."""


# files a folder of configurations often holds beside them, never named after (a collection "upload-license-…")
_NOT_CONFIGS = re.compile(r"^(readme|licen[cs]e|notice|changelog|copying|authors)\b", re.I)


def collection_name(files: list[tuple[str, bytes]], now: datetime) -> str:
    """A new upload's collection: named after its first file (not a README or LICENSE beside the configurations) and
    the time, with a random suffix (32 bits) so that two uploads in the same second do not pick the same one;
    ``_write`` refuses a name that is taken all the same."""
    names = [Path(name).stem for name, _ in files]
    first = next((n for n in names if not _NOT_CONFIGS.match(n)), names[0] if names else "")
    stem = re.sub(r"[^a-z0-9]+", "-", first.lower()).strip("-")[:24]
    return f"upload-{stem or 'configs'}-{now:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:8]}"


def assess_files(files: list[tuple[str, bytes]], catalog: EngineCatalog, settings: Settings, site: str = "Uploaded",
                 label: str | None = None,
                 now: datetime | None = None, collection: str | None = None, owner: str | None = None,
                 cancelled: Callable[[str], bool] | None = None, workers: int = 1,
                 judgements: bool = True) -> UploadReport:
    """Assess the files that are device configurations into one new assessment of their own collection
    (``collection``, else a new one): uploads never change what the fleet's latest assessment is. Device
    identity is (collection, hostname); a hostname repeated in the batch stays a distinct device (the file
    name tells them apart) and is reported as a warning. A file ``cancelled`` says so before it is judged is left
    out (its uploader cancelled it in the chat). ``workers`` > 1 assesses a batch of ``PARALLEL_FROM`` files or more
    in as many forked processes — for a single-threaded caller only (the command line; never the chat server's
    threads), and without the parsed configuration on each judgement (no fixes). ``judgements=False`` keeps no
    per-rule judgement on the files' outcomes (only ``--json`` prints them; from worker processes they are most of
    what is sent back). Judged with ``catalog``'s rules, signatures and exceptions, into ``settings``' warehouse."""
    if settings.warehouse_backend != "duckdb":  # written into a local file, the upload would never be read back
        raise WarehouseUnavailable("uploaded configurations are assessed into the embedded warehouse, and this "
                                   f"installation reads its assessments from {settings.warehouse_backend}: load them "
                                   "through the lake's own pipeline (docs/DATA.md, Trino)")
    path = settings.warehouse_path
    if not path.exists():
        raise WarehouseUnavailable(f"no assessment warehouse at {path}; run 'assess demo build' first")
    now = now or datetime.now().replace(microsecond=0)
    new_collection = collection is None
    collection = collection or collection_name(files, now)
    if collection == FLEET:
        raise ValueError("uploads cannot be added to the fleet collection; name another collection")
    assessment_id = f"ASMT-{now:%Y-%m-%d}-U{now:%H%M%S}-{uuid.uuid4().hex[:6]}"
    report = UploadReport(assessment_id, collection=collection)
    rows = Rows()
    assets: list[tuple[str, str, str, str, str]] = []
    seen: dict[str, str] = {}
    overrides: dict[str, dict[str, str]] = {}
    for name, data in files:  # interface-roles.yaml: the user's roles win over what the engine infers
        if ROLE_FILE.search(name.replace("\\", "/")):
            try:
                overrides.update(load_role_overrides(data.decode("utf-8", errors="replace"), name))
                report.files.append(FileOutcome(name, True, f"{name}: interface roles for "
                                                            f"{len(overrides)} device(s) applied"))
            except ValueError as exc:
                report.files.append(FileOutcome(name, False, str(exc)))
    batch = _Batch(collection, site, assessment_id, now, overrides, list(catalog.rules.rules), list(catalog.signatures),
                   load_exceptions(catalog.exceptions_file), keep_config=workers <= 1, keep_judgement=judgements)
    configs = [(name, data) for name, data in files if not ROLE_FILE.search(name.replace("\\", "/"))]
    for (name, data), done in zip(configs, _assessed(batch, configs, workers, cancelled), strict=True):
        if done.asset is None or done.rows is None:
            report.files.append(done.outcome)
            continue
        hostname = done.hostname
        if hostname in seen:  # a hostname repeated in the batch: a device of its own, assessed again under its id
            n = 2
            while f"{collection}/{hostname}#{n}" in {a[0] for a in assets}:
                n += 1
            done = _assess_one(batch, name, data, asset_id=f"{collection}/{hostname}#{n}")
            report.warnings.append(f"{name}: hostname {hostname} is also in {seen[hostname]}; kept as a separate "
                                   f"device {collection}/{hostname}#{n}")
        seen.setdefault(hostname, name)
        if done.rows is not None and done.asset is not None:  # assessed again: as the first time
            rows.extend(done.rows)
            assets.append(done.asset)
        report.files.append(done.outcome)
    if not assets:
        report.assessment_id = None
        return report
    _write(path, assessment_id, collection, owner, now, label, site, assets, rows, len(batch.rules), new_collection,
           catalog.ontology)
    return report


@dataclass
class _Batch:
    """What every file of one upload is assessed with (a worker process receives it once per chunk of files)."""

    collection: str
    site: str
    assessment_id: str
    now: datetime
    overrides: dict[str, dict[str, str]]
    rules: list[Rule]
    signatures: list[Signature]
    exceptions: list[ApprovedException]
    keep_config: bool = True  # the parsed configuration stays on the judgement (fixes need it)
    keep_judgement: bool = True  # the judgement stays on the file's outcome


@dataclass
class _Assessed:
    outcome: FileOutcome
    hostname: str = ""
    rows: Rows | None = None
    asset: tuple[str, str, str, str, str] | None = None  # asset id, platform, version, device type, file name


def _assessed(batch: _Batch, configs: list[tuple[str, bytes]], workers: int,
              cancelled: Callable[[str], bool] | None) -> Iterator[_Assessed]:
    """Each file's assessment, in the order given: in ``workers`` processes when asked (the command line: a batch
    of hundreds takes both cores), else here, one file after the other, each checked for cancellation first."""
    if workers > 1 and len(configs) >= PARALLEL_FROM:
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            yield from pool.map(partial(_assess_pair, batch), configs, chunksize=max(8, len(configs) // (workers * 12)))
        return
    for name, data in configs:
        if cancelled and cancelled(name):
            yield _Assessed(FileOutcome(name, False, f"{name}: cancelled — not assessed"))
        else:
            yield _assess_one(batch, name, data)


def _assess_pair(batch: _Batch, config: tuple[str, bytes]) -> _Assessed:
    return _assess_one(batch, *config)


def _assess_one(batch: _Batch, name: str, data: bytes, asset_id: str | None = None) -> _Assessed:
    """One file checked, judged (the rules run once), SLIC-matched and masked into its rows."""
    text, problem, verdict = check_config_text(name, data)
    if text is None:
        return _Assessed(FileOutcome(name, False, problem))
    judgement = judge(name, text, batch.rules, batch.overrides, verdict)
    if not judgement.accepted or judgement.config is None:
        return _Assessed(FileOutcome(name, False, judgement.reason, platform=judgement.platform,
                                     judgement=judgement if batch.keep_judgement else None))
    cfg = judgement.config
    platform: str = cfg.platform
    hostname = judgement.hostname or Path(name).stem.upper()
    asset_id = asset_id or f"{batch.collection}/{hostname}"
    spec = DeviceSpec(asset_id, batch.site, "uploaded", "production", judgement.device_type, "unknown", "unknown",
                      "unknown", platform, "medium", "", 0)
    part = assess_device(spec, judgement.version, text, batch.assessment_id, batch.now, batch.rules, batch.signatures,
                         batch.exceptions, cfg=cfg, judged=judgement.results)  # the rules ran once, in judge()
    failures = sum(1 for r in part.results if r[3] == "fail")
    if not batch.keep_config:
        judgement = replace(judgement, config=None)  # not sent back from a worker process: the parsed tree is large
    return _Assessed(FileOutcome(name, True, f"{name}: {asset_id} ({platform} {judgement.version}) assessed, "
                                             f"{failures} failed {plural('check', failures)}", asset_id, failures,
                                 platform, judgement if batch.keep_judgement else None),
                     hostname, part, (asset_id, platform, judgement.version, spec.device_type, name))


def _write(path: Path, assessment_id: str, collection: str, owner: str | None, now: datetime, label: str | None,
           site: str, assets: list[tuple[str, str, str, str, str]], rows: Rows, rule_count: int,
           new_collection: bool, ontology: Ontology) -> None:
    """One transaction into a new published version of the warehouse (``versions.py``): turns that are reading
    it meanwhile are not disturbed, and the CLI and a running server can both upload. A new collection whose
    name another upload took meanwhile is refused (checked under the writers' lock): its devices would otherwise
    join that upload's collection, which may be another user's."""
    try:
        with new_version(path, ontology) as con:
            con.execute("BEGIN TRANSACTION")
            if new_collection and con.execute("SELECT 1 FROM assessments WHERE collection = ? UNION ALL "
                                              "SELECT 1 FROM assets WHERE collection = ? LIMIT 1",
                                              [collection, collection]).fetchone():
                raise CollectionTaken(f"another upload took the collection name {collection} at the same moment; "
                                      "nothing was written — upload the files again")
            con.execute("INSERT INTO assessments VALUES (?, 'configuration_best_practice', ?, ?, ?, ?, ?, ?, ?)",
                        [assessment_id, now, label or f"Uploaded configs {now:%Y-%m-%d %H:%M}",
                         f"uploaded configurations ({len(assets)} devices)", len(assets), rule_count, collection,
                         owner])
            run_summary.forget_runs_of(con, [a[0] for a in assets])  # their inventory rows change below
            comparison_summary.forget_runs_of(con, [a[0] for a in assets])
            known = {row[0] for row in con.execute("SELECT asset_id FROM assets WHERE collection = ?",
                                                    [collection]).fetchall()}
            for asset_id, _, version, _, file_name in (a for a in assets if a[0] in known):  # a collection re-assessed
                con.execute("UPDATE assets SET os_version = ?, last_seen = ?, source_file = ? WHERE asset_id = ?",
                            [version, assessment_id, file_name, asset_id])
            insert_rows(con, "assets", [(asset_id, site, "production", device_type, "unknown", "unknown", "unknown",
                                         platform, version, "medium", "", assessment_id, assessment_id, collection,
                                         file_name)
                                        for asset_id, platform, version, device_type, file_name in assets
                                        if asset_id not in known])
            if not con.execute("SELECT 1 FROM sites WHERE site = ?", [site]).fetchone():
                con.execute("INSERT INTO sites VALUES (?, 'uploaded', 'tier3', 'unknown', false)", [site])
            insert_rows(con, "configs", rows.configs)
            insert_rows(con, "results", rows.results)
            insert_rows(con, "slic_results", rows.slic)
            con.execute("COMMIT")
            run_summary.write(con, assessment_id)  # after the commit: it reads the rows on cursors of its own
            comparison_summary.write(con, assessment_id, run_summary.SAMPLE_CAP)
    except (WarehouseBusy, CollectionTaken) as exc:
        raise WarehouseUnavailable(str(exc)) from None
    except (duckdb.Error, OSError) as exc:
        raise WarehouseUnavailable(f"the upload could not be written to the assessment warehouse "
                                   f"({str(exc)[:200]}); nothing was written") from None


def assess_folder(folder: Path, catalog: EngineCatalog, settings: Settings, site: str = "Uploaded", label: str | None = None,
                  collection: str | None = None, owner: str | None = None, workers: int = 1,
                  judgements: bool = True) -> UploadReport:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return assess_files([(str(p.relative_to(folder)), p.read_bytes()) for p in files], catalog, settings, site, label,
                        collection=collection, owner=owner, workers=workers, judgements=judgements)


def command_line_workers() -> int:
    """Processes for a batch assessed from the command line: one per core, up to four."""
    return min(os.cpu_count() or 1, 4)
