"""Charts read at a glance: one severity palette in a fixed order, per-device figures on their own axis,
theme-neutral backgrounds, no chart for a single category."""

from __future__ import annotations

import plotly.graph_objects as go

from chat_app.charts import SEVERITY_COLORS, PlotlyChart, chart_json, figure
from orchestration.interpretation.charts import breakdown_charts, trend_chart
from orchestration.tools.rows import BreakdownRow

SEVERITY_ROWS = [BreakdownRow(key="medium", failures=40, assets=20), BreakdownRow(key="critical", failures=3, assets=2),
                 BreakdownRow(key="low", failures=12, assets=9), BreakdownRow(key="high", failures=8, assets=5)]


def test_severity_charts_use_one_palette_in_severity_order() -> None:
    pie = breakdown_charts({"severity": SEVERITY_ROWS}, ["severity"], "src")[0]
    trace = go.Figure(figure(pie)).data[0]  # go.Figure refuses what Plotly does not know
    assert list(trace.labels) == ["critical", "high", "medium", "low"]
    assert list(trace.values) == [3, 8, 40, 12]  # values follow their labels
    assert list(trace.marker.colors) == [SEVERITY_COLORS[s] for s in ("critical", "high", "medium", "low")]
    bars = breakdown_charts({"severity": SEVERITY_ROWS}, ["severity"], "src", qualifier=" (production)")[0]
    bar = go.Figure(figure(bars)).data[0]
    assert list(bar.x) == ["critical", "high", "medium", "low"]
    assert list(bar.marker.color) == [SEVERITY_COLORS[s] for s in ("critical", "high", "medium", "low")]


def test_per_device_figures_get_their_own_axis_and_backgrounds_are_transparent() -> None:
    trend = [{"date": "2026-08-03", "failures": 900, "failures_per_asset": 6.1},
             {"date": "2026-09-07", "failures": 880, "failures_per_asset": 5.9}]
    fig = go.Figure(figure(trend_chart(trend, "src")))
    totals, per_device = fig.data
    assert totals.yaxis in (None, "y") and per_device.yaxis == "y2"
    assert fig.layout.yaxis2.overlaying == "y" and fig.layout.yaxis2.side == "right"
    assert fig.layout.paper_bgcolor == "rgba(0,0,0,0)" and fig.layout.plot_bgcolor == "rgba(0,0,0,0)"
    assert fig.layout.xaxis.automargin and fig.layout.legend.y > 1  # legend above the plot, not over the labels


def test_a_single_category_gets_no_chart() -> None:
    one = {"product_family": [BreakdownRow(key="Catalyst 9300", failures=30, assets=10)]}
    assert breakdown_charts(one, ["product_family"], "src") == []


def test_the_chart_element_carries_the_figure_as_plotly_would_send_it() -> None:
    import asyncio
    import json

    import plotly.io as pio
    from chainlit.context import init_http_context

    hint = breakdown_charts({"severity": SEVERITY_ROWS}, ["severity"], "src")[0]

    async def made() -> PlotlyChart:
        init_http_context()  # an element belongs to a thread: a request's context gives it one
        return PlotlyChart(name=hint.title, content=chart_json(figure(hint)), display="inline")

    element = asyncio.run(made())
    assert element.type == "plotly" and element.to_dict()["type"] == "plotly"
    sent, built = json.loads(element.content), json.loads(pio.to_json(go.Figure(figure(hint)), validate=True))
    assert element.mime == "application/json" and sent == built  # the same JSON as through go.Figure
    assert sent["layout"]["template"]["layout"]["colorway"]  # Plotly's own template: the look is unchanged
