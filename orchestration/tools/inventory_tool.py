"""``inventory_tool``: inventory rows (site, role, platform, criticality …) of the devices or sites a question
names, so domain agents see what the devices are. The Data Query Agent's read of the inventory."""

from __future__ import annotations

from typing import Any

from assessment_engine.warehouse.store import Warehouse
from orchestration.tools.errors import ToolError
from orchestration.tools.scope import FLEET, assessment_runs

INVENTORY_LIMIT = 50  # rows per call unless the caller asks for another limit
COLUMNS = "asset_id, site, environment, device_type, role, product_family, platform, os_version, criticality"


def inventory_tool(w: Warehouse, scope: dict[str, Any], limit: int = INVENTORY_LIMIT, collection: str = FLEET,
                   viewer: str | None = None) -> dict[str, Any]:
    """The tool checks who asks itself: another user's uploaded collection is not there for ``viewer``."""
    if collection != FLEET and not assessment_runs(w, collection, viewer):
        raise ToolError(f"there is no collection '{collection}' you can see")
    devices = [scope["device"]] if scope.get("device") else list(scope.get("devices") or [])
    column, names = ("asset_id", devices) if devices else ("site", list(scope.get("sites") or []))
    rows = w.query(f"SELECT {COLUMNS} FROM assets WHERE {column} IN ({', '.join('?' for _ in names)}) "
                   f"AND collection = ? ORDER BY asset_id LIMIT {int(limit)}", [*names, collection]).dicts() \
        if names else []
    return {"assets": rows, "row_count": len(rows), "limit": limit}
