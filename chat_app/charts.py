"""Plotly figures from the domain agents' ``chart_hints``."""

from __future__ import annotations

import plotly.graph_objects as go

from orchestration.outputs import ChartHint


def figure(hint: ChartHint) -> go.Figure:
    fig = go.Figure()
    series = hint.series
    if hint.chart_type == "pie" and series:
        fig.add_trace(go.Pie(labels=hint.labels, values=series[0].data, name=series[0].name, hole=0.35))
    else:
        for s in series[:2]:
            if hint.chart_type == "line":
                fig.add_trace(go.Scatter(x=hint.labels, y=s.data, name=s.name, mode="lines+markers"))
            else:
                fig.add_trace(go.Bar(x=hint.labels, y=s.data, name=s.name))
    fig.update_layout(title=hint.title, margin={"l": 40, "r": 20, "t": 50, "b": 40}, height=360,
                      barmode="group", legend={"orientation": "h"})
    return fig
