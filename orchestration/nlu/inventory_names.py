"""The inventory's names for entity extraction (DESIGN §4): the fleet's sites, hostnames, assessment ids,
platforms and software versions, reloaded when the warehouse file changes — plus the assessment ids of the
asking user's own uploads (never another user's: a clarification question may list known names)."""

from __future__ import annotations

import threading

from orchestration.config import Settings, get_settings
from orchestration.nlu.names import Gazetteer
from orchestration.warehouse.store import WarehouseUnavailable, get_warehouse
from orchestration.warehouse.versions import version_stamp

_lock = threading.Lock()
_cache: dict[tuple[str, str], Gazetteer] = {}


def _fleet(settings: Settings) -> Gazetteer:
    path = settings.warehouse_path
    key = (str(path), version_stamp(path))
    with _lock:
        if key in _cache:
            return _cache[key]
    w = get_warehouse(settings)
    sites = [r[0] for r in w.query("SELECT site FROM sites WHERE site_type <> 'uploaded'").rows]
    assets = w.query("SELECT asset_id, platform, os_version FROM assets WHERE collection = 'fleet'").rows
    assessments = [r[0] for r in w.query(
        "SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at").rows]
    gaz = Gazetteer.of(sites=sites, devices=[a[0] for a in assets], assessments=assessments,
                       platforms={a[1] for a in assets if a[1]}, os_versions={a[2] for a in assets if a[2]})
    with _lock:
        _cache.clear()
        _cache[key] = gaz
    return gaz


def inventory_gazetteer(settings: Settings | None = None, viewer: str | None = None) -> Gazetteer:
    """Names of the configured warehouse as ``viewer`` may see them; empty if there is none."""
    settings = settings or get_settings()
    if settings.warehouse_backend == "duckdb" and not settings.warehouse_path.exists():
        return Gazetteer()
    try:
        fleet = _fleet(settings)
        if not viewer:
            return fleet
        own = [r[0] for r in get_warehouse(settings).query(
            "SELECT assessment_id FROM assessments WHERE collection <> 'fleet' AND owner = ?", [viewer]).rows]
    except WarehouseUnavailable:
        return Gazetteer()
    return fleet.with_assessments(own) if own else fleet


def visible_collections(settings: Settings | None = None, viewer: str | None = None) -> list[str]:
    """The upload collections ``viewer`` may switch a thread to (their own, and uploads shared with everyone)."""
    settings = settings or get_settings()
    if settings.warehouse_backend == "duckdb" and not settings.warehouse_path.exists():
        return []
    try:
        rows = get_warehouse(settings).query(
            "SELECT collection, MAX(started_at) FROM assessments WHERE collection <> 'fleet' "
            "AND (owner IS NULL OR owner = '' OR owner = ?) GROUP BY collection ORDER BY 2 DESC", [viewer or ""]).rows
    except WarehouseUnavailable:
        return []
    return [str(r[0]) for r in rows]
