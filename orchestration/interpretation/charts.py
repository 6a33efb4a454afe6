"""Chart hints (DESIGN §7.1) from computed breakdowns and trends: the UI renders them with Plotly."""

from __future__ import annotations

import re
from typing import Any

DIMENSIONS: list[tuple[str, str, str]] = [
    # (breakdown key, prompt pattern, axis title)
    ("severity", r"\bseverit", "severity"),
    ("technology", r"\btechnolog|\bcategor|\barea\b", "technology"),
    ("os", r"\bos\b|operating system|\bsoftware\b|\bversions?\b|\brelease", "OS and version"),
    ("product_family", r"product famil|\bplatforms?\b|\bmodels?\b|product line", "product family"),
    ("criticality", r"criticality|\btiers?\b", "asset criticality"),
    ("site", r"\bby site\b|\bper site\b|\bsites\b", "site"),
    ("device_type", r"device type|\bby (device|type)\b", "device type"),
]
WANTS_CHART = re.compile(r"\bbreak ?down\b|\bchart|\bgraph|\bplot|\bvisuali[sz]|\bdistribution\b|\bby (severity|"
                         r"technology|os|platform|product|criticality|site|device)\b|\bwhich \w+ famil", re.I)


def wanted_dimensions(prompt: str, presentation: str) -> list[str]:
    dims = [key for key, pattern, _ in DIMENSIONS if re.search(pattern, prompt, re.I)]
    if not dims and (presentation == "chart" or WANTS_CHART.search(prompt)):
        dims = ["severity"]
    return dims


def breakdown_charts(breakdowns: dict[str, list[dict[str, Any]]], dims: list[str], source: str,
                     qualifier: str = "") -> list[dict[str, Any]]:
    charts = []
    titles = {key: title for key, _, title in DIMENSIONS}
    for dim in dims:
        rows = breakdowns.get(dim) or []
        if not rows:
            continue
        rows = rows[:15]
        charts.append({
            "chart_type": "pie" if dim == "severity" and len(rows) <= 5 and not qualifier else "bar",
            "title": f"Failed checks{qualifier} by {titles[dim]}",
            "labels": [str(r["key"]) for r in rows],
            "series": [{"name": "Failed checks", "data": [r["failures"] for r in rows]},
                       {"name": "Devices affected", "data": [r["assets"] for r in rows]}],
            "source_path": f"{source}.breakdowns.{dim}",
        })
    return charts


def trend_chart(trend: list[dict[str, Any]], source: str) -> dict[str, Any]:
    return {
        "chart_type": "line",
        "title": "Failed checks per assessment",
        "labels": [t["date"] for t in trend],
        "series": [{"name": "Failed checks", "data": [t["failures"] for t in trend]},
                   {"name": "Failed checks per device", "data": [t["failures_per_asset"] for t in trend]}],
        "source_path": f"{source}.trend_analysis",
    }
