"""Known site and device names from the warehouse inventory, for entity extraction (DESIGN §4)."""

from __future__ import annotations

import threading

from orchestration.config import get_settings
from orchestration.nlu.entities import Gazetteer
from orchestration.warehouse.store import WarehouseUnavailable, get_warehouse

_lock = threading.Lock()
_cache: dict[tuple[str, float], Gazetteer] = {}


def inventory_gazetteer() -> Gazetteer:
    """Sites and hostnames of the configured warehouse (reloaded when the file changes); empty if none."""
    settings = get_settings()
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
        devices = [r[0] for r in w.query("SELECT asset_id FROM assets").rows]
    except WarehouseUnavailable:
        return Gazetteer()
    gaz = Gazetteer(sites={s.lower(): s for s in sites}, devices={d.lower(): d for d in devices})
    with _lock:
        _cache.clear()
        _cache[key] = gaz
    return gaz
