"""Assess user-supplied device configurations into a new assessment in the warehouse.

Each file is checked before anything is written: too large, not text, or not a device configuration
is reported per file and the rest of the batch is still assessed. Known hostnames keep their
inventory record; new ones are added with the platform and version read from the config.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

from orchestration.config import get_settings
from orchestration.engines.config_parser import ParsedConfig, looks_like_config, parse_config
from orchestration.engines.rule_engine import get_rules
from orchestration.engines.slic_engine import get_signatures
from orchestration.warehouse.build import Rows, assess_device, load_exceptions
from orchestration.warehouse.config_templates import DeviceSpec
from orchestration.warehouse.store import WarehouseUnavailable, close_warehouses

MAX_CONFIG_BYTES = 2 * 1024 * 1024


@dataclass
class FileOutcome:
    name: str
    ok: bool
    message: str
    hostname: str | None = None
    failures: int = 0


@dataclass
class UploadReport:
    assessment_id: str | None
    files: list[FileOutcome] = field(default_factory=list)

    @property
    def assessed(self) -> int:
        return sum(f.ok for f in self.files)


def _version(text: str, platform: str) -> str:
    patterns = {"asa": r"^ASA Version (\S+)", "nx-os": r"^version (\S+)", "ios-xe": r"^version (\S+)"}
    m = re.search(patterns[platform], text, re.M)
    return m.group(1) if m else "unknown"


def _device_type(cfg: ParsedConfig) -> str:
    if cfg.platform == "asa":
        return "firewall"
    texts = " ".join(line.text for line in cfg.lines[:4000])
    if "wireless" in texts or "wlan " in texts:
        return "wireless_controller"
    if re.search(r"\brouter (ospf|bgp|eigrp)\b", texts) and "switchport mode access" not in texts:
        return "router"
    return "switch" if "switchport" in texts or cfg.platform == "nx-os" else "router"


def check_config_text(name: str, data: bytes) -> tuple[str | None, str]:
    """Decoded text, or None and the reason the file cannot be assessed."""
    if len(data) > MAX_CONFIG_BYTES:
        return None, f"{name}: {len(data):,} bytes is over the {MAX_CONFIG_BYTES // 1024 // 1024} MB limit for a configuration"
    if not data.strip():
        return None, f"{name}: the file is empty"
    if b"\x00" in data[:4096]:
        return None, f"{name}: binary file, not a device configuration"
    text = data.decode("utf-8", errors="replace")
    if not looks_like_config(text):
        return None, f"{name}: not a network device configuration (no hostname/interface/line/service commands found)"
    return text, ""


def assess_files(files: list[tuple[str, bytes]], site: str = "Uploaded", label: str | None = None,
                 now: datetime | None = None) -> UploadReport:
    """Assess the files that are device configurations into one new assessment."""
    settings = get_settings()
    path = settings.warehouse_path
    if not path.exists():
        raise WarehouseUnavailable(f"no assessment warehouse at {path}; run 'assess demo build' first")
    now = now or datetime.now().replace(microsecond=0)
    assessment_id = f"ASMT-{now:%Y-%m-%d}-U{now:%H%M%S}"
    report = UploadReport(assessment_id)
    rules, signatures, exceptions = get_rules(), get_signatures(), load_exceptions()
    rows = Rows()
    assets: list[tuple[str, str, str, str]] = []
    for name, data in files:
        text, problem = check_config_text(name, data)
        if text is None:
            report.files.append(FileOutcome(name, False, problem))
            continue
        cfg = parse_config(text)
        platform: str = cfg.platform
        hostname = (cfg.hostname or Path(name).stem).upper()
        spec = DeviceSpec(hostname, site, "uploaded", "production", _device_type(cfg), "unknown", "unknown", "unknown",
                          platform, "medium", "", 0)
        version = _version(text, platform)
        part = assess_device(spec, version, text, assessment_id, now, rules, signatures, exceptions)
        rows.extend(part)
        assets.append((hostname, platform, version, spec.device_type))
        failures = sum(1 for r in part.results if r[3] == "fail")
        report.files.append(FileOutcome(name, True, f"{name}: {hostname} ({platform} {version}) assessed, "
                                                     f"{failures} failed checks", hostname, failures))
    if not assets:
        report.assessment_id = None
        return report
    close_warehouses()  # DuckDB allows one writer and no reader connection of another kind in-process
    con = duckdb.connect(str(path))
    try:
        con.execute("BEGIN TRANSACTION")
        con.execute("INSERT INTO assessments VALUES (?, 'configuration_best_practice', ?, ?, ?, ?, ?)",
                    [assessment_id, now, label or f"Uploaded configs {now:%Y-%m-%d %H:%M}",
                     f"uploaded configurations ({len(assets)} devices)", len(assets), len(rules)])
        for hostname, platform, version, device_type in assets:
            exists = con.execute("SELECT 1 FROM assets WHERE asset_id = ?", [hostname]).fetchone()
            if exists:
                con.execute("UPDATE assets SET os_version = ?, last_seen = ? WHERE asset_id = ?",
                            [version, assessment_id, hostname])
            else:
                con.execute("INSERT INTO assets VALUES (?, ?, 'production', ?, 'unknown', 'unknown', 'unknown', ?, ?, "
                            "'medium', '', ?, ?)", [hostname, site, device_type, platform, version, assessment_id,
                                                    assessment_id])
        if not con.execute("SELECT 1 FROM sites WHERE site = ?", [site]).fetchone():
            con.execute("INSERT INTO sites VALUES (?, 'uploaded', 'tier3', 'unknown', false)", [site])
        con.executemany("INSERT INTO configs VALUES (?, ?, ?, ?, ?, ?)", rows.configs)
        con.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows.results)
        if rows.slic:
            con.executemany("INSERT INTO slic_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows.slic)
        con.execute("COMMIT")
    except duckdb.Error:
        con.execute("ROLLBACK")
        raise
    finally:
        con.close()
    return report


def assess_folder(folder: Path, site: str = "Uploaded", label: str | None = None) -> UploadReport:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return assess_files([(p.name, p.read_bytes()) for p in files], site, label)
