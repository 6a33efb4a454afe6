"""The inventory's names for entity extraction (DESIGN §4): the fleet's sites, hostnames, assessment ids,
platforms and software versions, reloaded when the warehouse file changes — plus the assessment ids of the
asking user's own uploads and the devices of the uploads they may see (never another user's: a clarification
question may list known names)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from assessment_engine.warehouse.store import Warehouse, WarehouseUnavailable
from assessment_engine.warehouse.versions import version_stamp
from foundation.config import Settings
from orchestration.nlu.names import Gazetteer

_VIEWERS = 512  # gazetteers kept per version: a viewer's costs two queries a turn otherwise


class NameCache:
    """Name lists read from one warehouse, kept until the warehouse changes (a ``Services`` owns one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str, str], Gazetteer] = {}  # (warehouse, its version, viewer or "" for the fleet's)

    def get(self, key: tuple[str, str, str]) -> Gazetteer | None:
        with self._lock:
            return self._kept.get(key)

    def keep(self, key: tuple[str, str, str], gaz: Gazetteer) -> Gazetteer:
        with self._lock:
            if any(k[:2] != key[:2] for k in self._kept) or len(self._kept) > _VIEWERS:
                self._kept.clear()  # a new version of the warehouse: every name list is read again
            self._kept[key] = gaz
        return gaz


def _fleet(w: Warehouse, key: tuple[str, str, str], cache: NameCache) -> Gazetteer:
    if (kept := cache.get(key)) is not None:
        return kept
    sites = [r[0] for r in w.query("SELECT site FROM sites WHERE site_type <> 'uploaded'").rows]
    assets = w.query("SELECT asset_id, platform, os_version, product_family, model FROM assets "
                     "WHERE collection = 'fleet'").rows
    assessments = [r[0] for r in w.query(
        "SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at").rows]
    return cache.keep(key, Gazetteer.of(sites=sites, devices=[a[0] for a in assets], assessments=assessments,
                                   platforms={a[1] for a in assets if a[1]}, os_versions={a[2] for a in assets if a[2]},
                                   values={"product_family": [a[3] for a in assets if a[3]],
                                           "model": [a[4] for a in assets if a[4]]}))


# the upload collections a viewer may see: their own and those shared with everyone
_VISIBLE = "collection <> 'fleet' AND (owner IS NULL OR owner = '' OR owner = ?)"


def inventory_gazetteer(settings: Settings, warehouse: Callable[[], Warehouse], viewer: str | None = None,
                        cache: NameCache | None = None) -> Gazetteer:
    """Names of the configured warehouse (read through ``warehouse``) as ``viewer`` may see them; empty if there is
    none. ``cache``: where the lists are kept between turns (without one, each call reads them)."""
    cache = cache or NameCache()
    if settings.warehouse_backend == "duckdb" and not settings.warehouse_path.exists():
        return Gazetteer()
    path = settings.warehouse_path
    stamp = version_stamp(path)
    key = (str(path), stamp, viewer or "")
    try:
        fleet = _fleet(warehouse(), (str(path), stamp, ""), cache)
        if not viewer:
            return fleet
        if (kept := cache.get(key)) is not None:
            return kept
        w = warehouse()
        own = [r[0] for r in w.query(
            "SELECT assessment_id FROM assessments WHERE collection <> 'fleet' AND owner = ?", [viewer]).rows]
        # the devices of the uploads the viewer may see, by id ("lab-east/D2_IOSXE") and by hostname ("D2_IOSXE")
        uploaded = [str(r[0]) for r in w.query(
            f"SELECT DISTINCT asset_id FROM assets WHERE collection IN (SELECT collection FROM assessments WHERE "
            f"{_VISIBLE})", [viewer]).rows]
    except WarehouseUnavailable:
        return Gazetteer()
    gaz = fleet.with_assessments(own) if own else fleet
    gaz = gaz.with_devices([(d, d) for d in uploaded] + [(d.rsplit("/", 1)[-1], d) for d in uploaded])
    return cache.keep(key, gaz) if stamp else gaz  # a warehouse without a version stamp (a server) is asked every time


def collections_of(devices: list[str], warehouse: Callable[[], Warehouse]) -> set[str]:
    """The collections the devices are in (an upload's devices are named "<collection>/<hostname>")."""
    if not devices:
        return set()
    try:
        rows = warehouse().query(
            f"SELECT DISTINCT collection FROM assets WHERE asset_id IN ({', '.join('?' for _ in devices)})", devices).rows
    except WarehouseUnavailable:
        return set()
    return {str(r[0]) for r in rows}


def visible_collections(settings: Settings, warehouse: Callable[[], Warehouse], viewer: str | None = None) -> list[str]:
    """The upload collections ``viewer`` may switch a thread to (their own, and uploads shared with everyone)."""
    if settings.warehouse_backend == "duckdb" and not settings.warehouse_path.exists():
        return []
    try:
        rows = warehouse().query(
            f"SELECT collection, MAX(started_at) FROM assessments WHERE {_VISIBLE} GROUP BY collection ORDER BY 2 DESC",
            [viewer or ""]).rows
    except WarehouseUnavailable:
        return []
    return [str(r[0]) for r in rows]
