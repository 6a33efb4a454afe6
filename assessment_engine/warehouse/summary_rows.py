"""The summary statements of ``run_summary.py`` computed in Python over the rows of a small scope.

A question about one site or one device of the demo network selects a few hundred results, yet each of the
seven summary statements costs DuckDB 5–30 ms on rows that few (its per-operator overhead: the breakdowns
statement alone runs eight grouped distinct counts). Fetching the scope's rows once (~5–10 ms) and grouping
them here (~1 ms) answers the same. ``summarise`` returns what ``statements`` would — the same names, columns,
row order, caps and NULL semantics (an empty SUM is NULL, NULL keys sort last) — and
``tests/unit/test_summary_rows.py`` checks both ways equal over every site, severity and topic of the demo network.
Above ``IN_PROCESS_MAX`` rows the analysis tool leaves the grouping to the engine.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from assessment_engine.warehouse.run_summary import BREAKDOWN_CAP, SAMPLE_CAP, TOP, TOP_RULES
from assessment_engine.warehouse.store import QueryResult
from foundation.vocabulary.severity import HIGH_OR_ABOVE, rank

IN_PROCESS_MAX = 3000  # results fetched whole and grouped here; above this the engine groups them

Row = dict[str, Any]


def _concat(*parts: Any) -> str | None:
    """SQL ``||``: NULL when any part is NULL."""
    return None if any(p is None for p in parts) else "".join(str(p) for p in parts)


KEYS: dict[str, Callable[[Row], Any]] = {  # the Python form of each run_summary.BREAKDOWNS expression
    "severity": lambda r: r["severity"],
    "product_family": lambda r: r["product_family"],
    "technology": lambda r: r["technology"],
    "category": lambda r: r["category"],
    "os": lambda r: _concat(r["platform"], " ", r["os_version"]),
    "criticality": lambda r: r["criticality"],
    "site": lambda r: r["site"],
    "device_type": lambda r: r["device_type"],
}

def _last_if_null(value: Any) -> tuple[bool, Any]:
    """Sort key for an ascending column whose NULLs go last (DuckDB's default order)."""
    return (value is None, "" if value is None else value)


def _sum(rows: list[Row], condition: Callable[[Row], bool]) -> int | None:
    """SQL ``SUM(CASE WHEN condition THEN 1 ELSE 0 END)``: NULL over no rows."""
    return sum(1 for r in rows if condition(r)) if rows else None


def _distinct_assets(rows: Iterable[Row]) -> int:
    return len({r["asset_id"] for r in rows})


def _least(values: Iterable[Any]) -> Any:
    """SQL ``MIN``: NULLs ignored, NULL when nothing is left."""
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _grouped(rows: Iterable[Row], key: Callable[[Row], Any]) -> dict[Any, list[Row]]:
    groups: dict[Any, list[Row]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    return groups


def _metrics(rows: list[Row], failing: list[Row]) -> QueryResult:
    fails = [r for r in rows if r["status"] == "fail"]
    row = (_distinct_assets(rows), len(rows),
           _sum(rows, lambda r: r["status"] == "fail"), _sum(rows, lambda r: r["status"] == "pass"),
           _sum(rows, lambda r: r["status"] == "exception"), len({r["rule_id"] for r in rows}),
           _distinct_assets(fails), _distinct_assets(r for r in fails if r["severity"] in HIGH_OR_ABOVE),
           len(failing) if rows else None, _distinct_assets(failing))
    return QueryResult([f"m{i}" for i in range(len(row))], [row])


def _breakdowns(failing: list[Row]) -> QueryResult:
    rows = []
    for name in sorted(KEYS):
        groups = _grouped(failing, KEYS[name])
        ranked = sorted(((k, len(items), _distinct_assets(items)) for k, items in groups.items()),
                        key=lambda g: (-g[1], _last_if_null(g[0])))
        rows += [(name, k, n, a, len(ranked)) for k, n, a in ranked[:BREAKDOWN_CAP]]
    return QueryResult(["breakdown", "k", "failures", "assets", "n_keys"], rows)


def _top_rules(failing: list[Row]) -> QueryResult:
    columns = ["rule_id", "title", "severity", "category", "technology", "remediation", "rationale", "refs",
               "critical_assets", "failing_assets"]
    rows = []
    for rule_id, items in _grouped(failing, lambda r: r["rule_id"]).items():
        rows.append((rule_id, *(_least(r[c] for r in items) for c in columns[1:8]),
                     _distinct_assets(r for r in items if r["criticality"] in ("critical", "high")),
                     _distinct_assets(items), max(rank(r["severity"]) for r in items)))
    rows.sort(key=lambda r: (-r[9], -r[10], _last_if_null(r[0])))
    return QueryResult(columns, [r[:10] for r in rows[:TOP_RULES]])


def _rule_platforms(failing: list[Row]) -> QueryResult:
    groups = _grouped(failing, lambda r: (r["rule_id"], r["platform"]))
    rows = sorted(((rule_id, platform, _distinct_assets(items)) for (rule_id, platform), items in groups.items()),
                  key=lambda r: (-r[2], _last_if_null(r[1]), _last_if_null(r[0])))
    return QueryResult(["rule_id", "platform", "n"], rows)


def _top_assets(failing: list[Row]) -> QueryResult:
    rows = [(asset_id, _least(r["site"] for r in items), _least(r["product_family"] for r in items),
             _least(r["criticality"] for r in items), len(items),
             sum(1 for r in items if r["severity"] == "critical"), sum(1 for r in items if r["severity"] == "high"))
            for asset_id, items in _grouped(failing, lambda r: r["asset_id"]).items()]
    rows.sort(key=lambda r: (-r[5], -r[6], -r[4], _last_if_null(r[0])))
    return QueryResult(["asset_id", "site", "product_family", "criticality", "failures", "critical", "high"],
                       rows[:TOP])


def _sample(failing: list[Row]) -> QueryResult:
    columns = ["asset_id", "site", "criticality", "rule_id", "title", "severity", "evidence", "evidence_lines"]
    firsts: dict[Any, int] = {}  # the first row of each rule by device: ROW_NUMBER() OVER (PARTITION BY rule_id ORDER BY asset_id)
    for r in sorted(failing, key=lambda r: _last_if_null(r["asset_id"])):
        firsts.setdefault(r["rule_id"], id(r))
    ordered = sorted(failing, key=lambda r: (firsts[r["rule_id"]] != id(r), -rank(r["severity"]),
                                             _last_if_null(r["asset_id"]), _last_if_null(r["rule_id"])))
    return QueryResult(columns, [tuple(r[c] for c in columns) for r in ordered[:SAMPLE_CAP]])


def summarise(rows: list[Row], severity: str | None) -> dict[str, QueryResult]:
    """What ``run_summary.statements`` gives over ``rows`` (every column of the statements' ``b``), failures
    restricted to ``severity`` when given."""
    failing = [r for r in rows if r["status"] == "fail" and (severity is None or r["severity"] == severity)]
    return {"metrics": _metrics(rows, failing), "breakdowns": _breakdowns(failing), "top_rules": _top_rules(failing),
            "rule_platforms": _rule_platforms(failing), "top_assets": _top_assets(failing),
            "sample": _sample(failing)}
