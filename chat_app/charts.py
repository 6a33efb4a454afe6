"""Plotly figures from the domain agents' ``chart_hints``."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go


def figure(hint: dict[str, Any]) -> go.Figure:
    kind = hint.get("chart_type", "bar")
    fig = go.Figure()
    series = hint.get("series", [])
    if kind == "pie" and series:
        fig.add_trace(go.Pie(labels=hint["labels"], values=series[0]["data"], name=series[0]["name"], hole=0.35))
    else:
        for s in series[:2]:
            if kind == "line":
                fig.add_trace(go.Scatter(x=hint["labels"], y=s["data"], name=s["name"], mode="lines+markers"))
            else:
                fig.add_trace(go.Bar(x=hint["labels"], y=s["data"], name=s["name"]))
    fig.update_layout(title=hint.get("title", ""), margin={"l": 40, "r": 20, "t": 50, "b": 40}, height=360,
                      barmode="group", legend={"orientation": "h"})
    return fig
