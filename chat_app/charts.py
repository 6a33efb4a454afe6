"""Plotly figures from the domain agents' ``chart_hints``, readable at a glance on the light and the dark theme.

- Severities always in the same order (critical → info) and the same colours, darkest red for critical down to
  grey for info, in pies and bars alike.
- Transparent backgrounds and a mid-grey text colour, so the figure sits on either theme.
- A per-device figure (failed checks per device) gets its own axis on the right instead of a flat line under the
  totals.
- Axes grow their margins for long labels (``automargin``); the legend sits above the plot, never over labels,
  and Plotly's mode bar stands upright on the right edge, never over the legend.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, ClassVar

from chainlit.element import Element, ElementSize, ElementType
from pydantic.dataclasses import dataclass

from foundation.vocabulary.severity import SEVERITIES, rank
from orchestration.outputs import ChartHint

SEVERITY_COLORS = {"critical": "#7f0000", "high": "#d7301f", "medium": "#fc8d59", "low": "#fdcc8a", "info": "#9e9e9e"}
SERIES_COLORS = ["#3b6ea8", "#8fb3d9"]  # totals, then devices: one hue family, so severity colours keep meaning
TEXT = "#8a8f98"
GRID = "rgba(138, 143, 152, 0.25)"


def _is_severity(labels: list[str]) -> bool:
    return bool(labels) and all(label in SEVERITIES for label in labels)


def _severity_order(hint: ChartHint) -> tuple[list[str], list[list[float]]]:
    order = sorted(range(len(hint.labels)), key=lambda i: -rank(hint.labels[i]))
    return [hint.labels[i] for i in order], [[s.data[i] for i in order] for s in hint.series]


def figure(hint: ChartHint) -> dict[str, Any]:
    """The chart as Plotly's JSON (``data`` and ``layout``), written directly: building ``go.Figure`` objects and
    validating them took a tenth of the chat server's CPU per answer (issue 32). ``tests/unit/test_charts.py`` loads
    every figure into ``go.Figure``, which refuses an attribute Plotly does not know."""
    labels, data = (_severity_order(hint) if _is_severity(hint.labels)
                    else (hint.labels, [s.data for s in hint.series]))
    severity = _is_severity(labels)
    series = list(zip(hint.series, data, strict=True))
    traces: list[dict[str, Any]] = []
    crowded = len(labels) > 8 or max((len(str(label)) for label in labels), default=0) > 12
    y_axis = {"automargin": True, "rangemode": "tozero", "gridcolor": GRID}
    layout: dict[str, Any] = {
        "title": {"text": hint.title, "x": 0, "xanchor": "left"}, "height": 380, "barmode": "group",
        "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        # the mode bar stands on the right edge, not over the legend above the plot
        "modebar": {"orientation": "v", "bgcolor": "rgba(0,0,0,0)", "color": TEXT},
        "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)", "font": {"color": TEXT},
        "xaxis": {"automargin": True, "tickangle": -30 if crowded else 0, "showgrid": False}, "yaxis": y_axis,
        "autosize": True, "template": _template(),
    }
    if hint.chart_type == "pie" and series:
        first, values = series[0]
        traces.append({"type": "pie", "labels": labels, "values": values, "name": first.name, "hole": 0.35,
                       "sort": False, "direction": "clockwise",
                       "marker": {"colors": [SEVERITY_COLORS.get(label, SERIES_COLORS[0]) for label in labels]}})
    else:
        for i, (s, values) in enumerate(series[:2]):
            per_device = "per device" in s.name.lower()
            axis: dict[str, Any] = {"yaxis": "y2"} if per_device else {}
            color = SERIES_COLORS[i % len(SERIES_COLORS)]
            if hint.chart_type == "line":
                traces.append({"type": "scatter", "x": labels, "y": values, "name": s.name, "mode": "lines+markers",
                               "line": {"color": color, "dash": "dot" if per_device else "solid"}, **axis})
            else:
                colors = [SEVERITY_COLORS[label] for label in labels] if severity and i == 0 else color
                traces.append({"type": "bar", "x": labels, "y": values, "name": s.name, "marker": {"color": colors},
                               "opacity": 1.0 if i == 0 else 0.55, **axis})
        if any("per device" in s.name.lower() for s, _ in series[:2]):
            layout["yaxis2"] = {**y_axis, "title": {"text": "per device"}, "overlaying": "y", "side": "right",
                                "showgrid": False}
    return {"data": traces, "layout": layout}


@lru_cache(maxsize=1)
def _template() -> dict[str, Any]:
    """Plotly's default template, as ``go.Figure`` would embed it (the figures look as they did)."""
    import plotly.io as pio

    template: dict[str, Any] = pio.templates[pio.templates.default].to_plotly_json()
    return template


@dataclass
class PlotlyChart(Element):
    """Chainlit's Plotly element from the figure's JSON (``content``: ``chart_json(figure(hint))``), without
    building a ``go.Figure`` (``cl.Plotly`` insists on one)."""

    type: ClassVar[ElementType] = "plotly"
    size: ElementSize = "medium"
    content: str = ""

    def __post_init__(self) -> None:
        self.mime = "application/json"
        super().__post_init__()


def chart_json(chart: dict[str, Any]) -> str:
    return json.dumps(chart, separators=(",", ":"))
