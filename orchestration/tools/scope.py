"""Shared pieces of the warehouse tools: assessment resolution, scope filters, severity ordering.

Every filter becomes a bound parameter; names (sites, devices) are checked against the inventory so
that an unknown site is an explicit error with suggestions, never an empty answer that looks like
"no issues".
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from assessment_engine.warehouse.run_summary import (
    SAMPLE_CAP as SAMPLE_CAP,  # one cap for every tool's samples
)
from assessment_engine.warehouse.store import Warehouse
from foundation.vocabulary.scope import TRAIN_SUFFIX
from orchestration.state import Intent
from orchestration.tools.errors import ToolError

DEVICE_TYPES = ("router", "switch", "firewall", "wireless_controller")  # the inventory's device types
FLEET = "fleet"  # the managed network's collection (contracts/warehouse.yaml)


@dataclass(frozen=True)
class AssessmentRun:
    assessment_id: str
    started_at: str
    collection: str = FLEET


MONTH = re.compile(r"\d{4}-\d{2}")
VISIBLE = "(owner IS NULL OR owner = '' OR owner = ?)"  # the fleet is everyone's; an upload its owner's


def _runs(w: Warehouse, where: str, params: list[Any]) -> list[AssessmentRun]:
    rows = w.query(f"SELECT assessment_id, started_at, collection FROM assessments WHERE {where} "
                   "ORDER BY started_at, assessment_id", params).rows
    return [AssessmentRun(r[0], r[1].isoformat() if isinstance(r[1], datetime) else str(r[1]), r[2] or FLEET)
            for r in rows]


def assessment_runs(w: Warehouse, collection: str = FLEET, viewer: str | None = None) -> list[AssessmentRun]:
    """The runs of one collection, oldest first (another user's upload holds none for ``viewer``)."""
    return _runs(w, f"collection = ? AND {VISIBLE}", [collection, viewer or ""])


def resolve_assessment(w: Warehouse, ref: str, relative_to: str | None = None, collection: str = FLEET,
                       viewer: str | None = None) -> AssessmentRun:
    """'latest' or 'previous' (before ``relative_to``, else before the latest) inside ``collection``, or an
    explicit id of any collection ``viewer`` may see. Uploads never become the fleet's latest."""
    if MONTH.fullmatch(ref):  # "2026-10": the month's last run of the collection ("the October assessment")
        in_month = [r for r in assessment_runs(w, collection, viewer) if r.started_at.startswith(ref)]
        if not in_month:
            runs_known = assessment_runs(w, collection, viewer)[-6:]
            raise ToolError(f"no assessment of {_collection_label(collection)} ran in {ref}. Known assessments: "
                            + ", ".join(f"{r.assessment_id} ({r.started_at[:10]})" for r in runs_known))
        return in_month[-1]
    if ref not in ("latest", "previous"):
        visible = _runs(w, VISIBLE, [viewer or ""])
        ids = [r.assessment_id for r in visible]
        if ref in ids:
            return visible[ids.index(ref)]
        near = difflib.get_close_matches(ref, ids, n=3)
        known = [r.assessment_id for r in visible if r.collection == collection][-6:]
        raise ToolError(f"unknown assessment id '{ref}'. Known assessments: {', '.join(known)}"
                        + (f"; did you mean {', '.join(near)}?" if near else ""))
    if relative_to is not None:
        collection = resolve_assessment(w, relative_to, collection=collection, viewer=viewer).collection
    runs = assessment_runs(w, collection, viewer)
    if not runs:
        raise ToolError("the warehouse holds no assessments yet" if collection == FLEET
                        else f"there is no collection '{collection}' you can see")
    ids = [r.assessment_id for r in runs]
    if ref == "latest":
        return runs[-1]
    anchor = ids.index(relative_to) if relative_to in ids else len(runs) - 1
    if anchor == 0:
        raise ToolError(f"{ids[anchor]} is the first assessment of {_collection_label(collection)}; "
                        "there is no previous one to compare with")
    return runs[anchor - 1]


def _collection_label(collection: str) -> str:
    return "the fleet" if collection == FLEET else f"collection {collection}"


def _check_names(w: Warehouse, column: str, names: list[str], label: str) -> list[str]:
    known = [r[0] for r in w.query(f"SELECT DISTINCT {column} FROM assets").rows]
    by_lower = {k.lower(): k for k in known}
    out = []
    for name in names:
        if name.lower() in by_lower:
            out.append(by_lower[name.lower()])
            continue
        near = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(near)}?" if near else f". Known {label}s include {', '.join(sorted(known)[:8])}"
        raise ToolError(f"unknown {label} '{name}'{hint}")
    return out


LIST_FILTERS = ("environment", "device_type", "platform", "os_version", "role")  # assets columns; values OR-ed


def values_of(value: Any) -> list[str]:
    """A scope filter's values: one (a string) or several (a list), OR-ed."""
    if value is None or value == "":
        return []
    return [value] if isinstance(value, str) else [v for v in value if v]


def scope_conditions(scope: dict[str, Any], alias: str = "a") -> tuple[list[str], list[Any]]:
    """SQL conditions of a scope on the assets alias, and their bound parameters (names not checked). Several
    values of one filter are OR-ed; site kinds ("the stores") are read from the sites table."""
    parts: list[str] = []
    params: list[Any] = []
    for key, column in (("sites", "site"), ("devices", "asset_id")):
        names = list(scope.get(key) or []) + ([scope["device"]] if key == "devices" and scope.get("device") else [])
        if names:
            parts.append(f"{alias}.{column} IN ({', '.join('?' for _ in names)})")
            params += names
    kinds = values_of(scope.get("site_type"))
    if kinds:
        parts.append(f"{alias}.site IN (SELECT site FROM sites WHERE site_type IN ({', '.join('?' for _ in kinds)}))")
        params += kinds
    for key in LIST_FILTERS:
        wanted = values_of(scope.get(key))
        if key == "os_version" and any(v.endswith(TRAIN_SUFFIX) for v in wanted):  # "15.x": the train's releases
            either: list[str] = []
            for v in wanted:
                if v.endswith(TRAIN_SUFFIX):  # 17.9.4 and, on the ASA, 9.8(4)
                    either += [f"{alias}.os_version LIKE ?", f"{alias}.os_version LIKE ?"]
                    params += [v.removesuffix(TRAIN_SUFFIX) + ".%", v.removesuffix(TRAIN_SUFFIX) + "(%"]
                else:
                    either.append(f"{alias}.os_version = ?")
                    params.append(v)
            parts.append("(" + " OR ".join(either) + ")")
            continue
        if len(wanted) == 1:
            parts.append(f"{alias}.{key} = ?")
        elif wanted:
            parts.append(f"{alias}.{key} IN ({', '.join('?' for _ in wanted)})")
        params += wanted
    return parts, params


def scope_clause(w: Warehouse, scope: dict[str, Any] | None, alias: str = "a") -> tuple[str, list[Any], dict[str, Any]]:
    """SQL condition on the assets alias, its parameters, and the scope with canonical names;
    validates site and device names."""
    scope = dict(scope or {})
    if scope.get("sites"):
        scope["sites"] = _check_names(w, "site", list(scope["sites"]), "site")
    if scope.get("device"):
        (scope["device"],) = _check_names(w, "asset_id", [scope["device"]], "device")
    if scope.get("devices"):
        scope["devices"] = _check_names(w, "asset_id", list(scope["devices"]), "device")
    parts, params = scope_conditions(scope, alias)
    return (" AND ".join(parts) or "1 = 1"), params, scope


def _one_or_many(values: list[str]) -> str | list[str]:
    return values[0] if len(values) == 1 else values


def scope_for(intent: Intent) -> tuple[dict[str, Any], dict[str, str]]:
    """The tools' ``scope`` parameter from the intent's entities and the question frame's filters — the one place
    where words become filters — and which reading bound each key. Several values of one filter stay several
    ("store routers or switches"). Unresolved names never get here: the classifier asks first."""
    def values(etype: str) -> list[str]:
        return list(dict.fromkeys(e.value for e in intent.entities if e.type == etype and e.source != "unresolved"))

    filters = intent.frame.filters
    scope: dict[str, Any] = {}
    bindings: dict[str, str] = {}
    sites, devices = values("site"), values("device")
    carried = all(e.source == "conversation" for e in intent.entities if e.type == "site")
    if sites and carried and filters.site_type:  # "…at DataCenter-1" then "how many branch firewalls …": the kind of
        sites = []                                # site this prompt names replaces the site carried from the last
    if sites:
        scope["sites"], bindings["scope.sites"] = sites, "entity site"
    elif filters.site_type:  # "the stores", "our data centres": every site of those kinds
        scope["site_type"], bindings["scope.site_type"] = _one_or_many(filters.site_type), "frame site type"
    if len(devices) == 1:
        scope["device"], bindings["scope.device"] = devices[0], "entity device"
    elif devices:
        scope["devices"], bindings["scope.devices"] = devices, "entity device (several)"
    for key in ("environment", "platform", "os_version", "device_type", "role"):
        found = list(dict.fromkeys([*values(key), *getattr(filters, key)]))
        if key == "device_type":
            found = [t for t in found if t in DEVICE_TYPES]
        if found:
            scope[key] = _one_or_many(found)
            bindings[f"scope.{key}"] = "entity " + key if set(found) <= set(values(key)) else "frame filter " + key
    return scope, bindings


def unknown_device_types(intent: Intent) -> list[str]:
    """Device types the question names that the inventory does not have (e.g. access points, which the
    inventory knows only through their wireless controllers): the tools filter by product text instead,
    and the answer says so."""
    return [e.value for e in intent.entities if e.type == "device_type" and e.value not in DEVICE_TYPES]


def describe_scope(scope: dict[str, Any] | None) -> str:
    scope = scope or {}
    many = scope.get("devices") or []
    bits = [", ".join(scope.get("sites") or []), str(scope.get("device") or "")]
    bits += [" or ".join(values_of(scope.get(k))) for k in ("site_type", *LIST_FILTERS) if scope.get(k)]
    bits += [f"{len(many)} named devices"] if many else []
    return " / ".join(b for b in bits if b) or "all devices"
