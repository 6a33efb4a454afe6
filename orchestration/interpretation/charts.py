"""Chart hints (DESIGN §7.1) from computed breakdowns and trends: the UI renders them with Plotly.
Which breakdowns a question asks for is a facet of the request (``orchestration/nlu/facets.py``)."""

from __future__ import annotations

from typing import Any

from orchestration.outputs import ChartHint, ChartSeries
from orchestration.tools.rows import BreakdownRow

AXIS_TITLES = {
    "severity": "severity",
    "technology": "technology",
    "os": "OS and version",
    "product_family": "product family",
    "criticality": "asset criticality",
    "site": "site",
    "device_type": "device type",
}


def breakdown_charts(breakdowns: dict[str, list[BreakdownRow]], dims: list[str], source: str,
                     qualifier: str = "") -> list[ChartHint]:
    charts = []
    for dim in dims:
        rows = breakdowns.get(dim) or []
        if len(rows) < 2:  # one category is a sentence (the table says it), not a chart
            continue
        rows = rows[:15]
        charts.append(ChartHint(
            chart_type="pie" if dim == "severity" and len(rows) <= 5 and not qualifier else "bar",
            title=f"Failed checks{qualifier} by {AXIS_TITLES[dim]}",
            labels=[str(r.key) for r in rows],
            series=[ChartSeries(name="Failed checks", data=[r.failures for r in rows]),
                    ChartSeries(name="Devices affected", data=[r.assets for r in rows])],
            source_path=f"{source}.breakdowns.{dim}",
        ))
    return charts


def trend_chart(trend: list[dict[str, Any]], source: str) -> ChartHint:
    return ChartHint(
        chart_type="line",
        title="Failed checks per assessment",
        labels=[t["date"] for t in trend],
        series=[ChartSeries(name="Failed checks", data=[t["failures"] for t in trend]),
                ChartSeries(name="Failed checks per device", data=[t["failures_per_asset"] for t in trend])],
        source_path=f"{source}.trend_analysis",
    )
