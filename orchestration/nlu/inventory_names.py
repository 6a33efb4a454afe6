"""The inventory's names for entity extraction (DESIGN §4): sites, hostnames, assessment ids, platforms
and software versions of the configured warehouse, reloaded when the warehouse file changes."""

from __future__ import annotations

import threading

from orchestration.config import Settings, get_settings
from orchestration.nlu.names import Gazetteer
from orchestration.warehouse.store import WarehouseUnavailable, get_warehouse

_lock = threading.Lock()
_cache: dict[tuple[str, float], Gazetteer] = {}


def inventory_gazetteer(settings: Settings | None = None) -> Gazetteer:
    """Names of the configured warehouse; empty if there is none."""
    settings = settings or get_settings()
    path = settings.warehouse_path
    if settings.warehouse_backend == "duckdb" and not path.exists():
        return Gazetteer()
    key = (str(path), path.stat().st_mtime if path.exists() else 0.0)
    with _lock:
        if key in _cache:
            return _cache[key]
    try:
        w = get_warehouse(settings)
        sites = [r[0] for r in w.query("SELECT site FROM sites").rows]
        assets = w.query("SELECT asset_id, platform, os_version FROM assets").rows
        assessments = [r[0] for r in w.query("SELECT assessment_id FROM assessments ORDER BY started_at").rows]
    except WarehouseUnavailable:
        return Gazetteer()
    gaz = Gazetteer.of(sites=sites, devices=[a[0] for a in assets], assessments=assessments,
                       platforms={a[1] for a in assets if a[1]}, os_versions={a[2] for a in assets if a[2]})
    with _lock:
        _cache.clear()
        _cache[key] = gaz
    return gaz
