"""Answer-level checks of ``assess eval`` (issue 29): does the answer answer the question, in its own form?

A case's ``expected.answer`` is a list of checks. Every expected figure and name comes from a SQL query run here
against the warehouse when the case is scored — never from the product's output — so a case stays true when the
demo data changes. ``{LATEST}``, ``{PREVIOUS}`` and ``{FIRST}`` in a query stand for the fleet's latest, previous and
first assessment, ``{RUN_2026_08}`` for its run of a month, ``{R}`` / ``{A}`` / ``{SL}`` for its results / devices /
SLIC matches joined with their device (``a``) and site (``s``), ``{PASS}`` for the pass rate of the results in hand.

The *lead* is the answer's first line after the scope line: the line that must answer the question.

| check | passes when |
|---|---|
| ``lead_count: SQL`` | the number of rows the query returns is a figure of the lead (none: the lead says none) |
| ``has_number: SQL`` | the query's single value is a figure somewhere in the answer (a series, a comparison) |
| ``has_any: SQL`` | at least one value is named somewhere in the answer |
| ``has_names: SQL`` | every value is named somewhere in the answer (as ``lists``) |
| ``lead_number: SQL`` | the query's single value is a figure of the lead (integers as written, ratios to 0.1) |
| ``lead_names: SQL`` | every value of the query's first column is named in the lead |
| ``lead_any: SQL`` | at least one value is named in the lead (a ranking's ties), and no crowd of other rows beside it |
| ``lists: SQL`` | every value is named somewhere in the answer (the complete list) |
| ``absent: SQL`` | no value is named anywhere in the answer (what the scope leaves out) |
| ``lead_yes: SQL`` | the lead starts with **Yes** when the query's value is true, with **No** otherwise |
| ``lead_has`` / ``has`` / ``lacks``: [text] | the lead / the answer contains / lacks each text (any case; ``a|b``: either) |
| ``no_tools: true`` | no tool ran (a question the product has no data for, answered by saying so) |
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orchestration.state import AssessmentState

Query = Callable[[str], list[tuple[Any, ...]]]

MACROS = {
    "LATEST": "(SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at DESC LIMIT 1)",
    "PREVIOUS": ("(SELECT assessment_id FROM assessments WHERE collection = 'fleet' "
                 "ORDER BY started_at DESC LIMIT 1 OFFSET 1)"),
    "FIRST": "(SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at LIMIT 1)",
    # the fleet's results, devices and SLIC matches with their device and site; the pass rate of the rows in hand
    "R": ("results r JOIN assets a ON a.asset_id = r.asset_id AND a.collection = 'fleet' "
          "JOIN sites s ON s.site = a.site"),
    "A": "assets a JOIN sites s ON s.site = a.site",
    "SL": ("slic_results x JOIN assets a ON a.asset_id = x.asset_id AND a.collection = 'fleet' "
           "JOIN sites s ON s.site = a.site"),
    "PASS": "ROUND(100.0 * SUM(CASE WHEN r.status = 'pass' THEN 1 ELSE 0 END) / COUNT(*), 1)",
    # the fleet's run of a month: {RUN_2026_08}
    **{f"RUN_{year}_{month:02d}": ("(SELECT assessment_id FROM assessments WHERE collection = 'fleet' AND "
                                   f"strftime(started_at, '%Y-%m') = '{year}-{month:02d}' ORDER BY started_at DESC "
                                   "LIMIT 1)") for year in (2025, 2026, 2027) for month in range(1, 13)},
}
CHECKS = ("lead_count", "lead_number", "lead_names", "lead_any", "lists", "absent", "lead_yes", "lead_has", "has",
          "lacks", "no_tools", "has_number", "has_any", "has_names")
# (not the parts of a release, "9.3(10)", "17.6.5", "9.8(4)": a figure is a number of its own)
_NUMBER = re.compile(r"(?<![\w.-])(?<!\d\()\d[\d,]*(?:\.\d+)?(?!\d|\.\d|\()")
_ID = re.compile(r"(?<![\w-])[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9()]+)+(?![\w-])")  # a device, site or check as named
CROWD = 20  # more rows than any ranking's lead names beside the one asked for


def warehouse_query(path: Path) -> Query:
    """Read-only queries on the DuckDB warehouse the product answers from (its current version)."""
    from assessment_engine.warehouse.store import connect_reader
    from assessment_engine.warehouse.versions import current_file

    def run(sql: str) -> list[tuple[Any, ...]]:
        con = connect_reader(current_file(path))
        try:
            return con.execute(sql.format(**MACROS)).fetchall()
        finally:
            con.close()
    return run


def lead_of(answer: str) -> str:
    lines = [ln for ln in answer.splitlines() if ln.strip() and not ln.startswith("**Scope")]
    return lines[0] if lines else ""


def named(name: str, text: str) -> bool:
    """``name`` appears as a whole name (SW-HQ-ACC-1 is not named by SW-HQ-ACC-10), as stored or as people write
    it: ``wireless_controller`` as "wireless controller", ``tier1`` as "Tier 1"."""
    pattern = re.escape(str(name)).replace("_", "[_ ]")
    pattern = re.sub(r"(?<=[a-zA-Z])(?=\d)", "[ -]?", pattern)  # a letter before a digit: "tier1" as "tier 1"
    return re.search(rf"(?<![\w-]){pattern}(?![\w-])", text, re.I) is not None


def figures(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def _figure(value: Any) -> set[str]:
    """How a value may be written in an answer: an integer as is, a ratio to one decimal (89.0 also as 89)."""
    if isinstance(value, bool):
        return {str(int(value))}
    number = float(value)
    if isinstance(value, int):
        return {str(value)}
    forms = {f"{number:.1f}"}
    return forms | {str(int(number))} if number.is_integer() else forms


def score_answer(spec: list[dict[str, Any]], state: AssessmentState, query: Query) -> dict[str, Any]:
    """Every check of ``spec``; ``passed`` only when all pass. Each failure says what was expected and seen."""
    answer = state.final.answer
    lead = lead_of(answer)
    failures: list[str] = []
    for check in spec:
        (kind, arg), = check.items()
        if kind not in CHECKS:
            raise ValueError(f"unknown answer check {kind!r}; known: {', '.join(CHECKS)}")
        failure = _one(kind, arg, answer, lead, state, query)
        if failure:
            failures.append(f"{kind}: {failure}")
    return {"passed": not failures, "expected": spec, "actual": {"lead": lead[:300], "failures": failures}}


def _one(kind: str, arg: Any, answer: str, lead: str, state: AssessmentState, query: Query) -> str | None:
    if kind == "no_tools":
        return f"tools ran: {[c.tool_name for c in state.mcp.tool_calls]}" if state.mcp.tool_calls else None
    if kind in ("lead_has", "has", "lacks"):
        text = (lead if kind == "lead_has" else answer).lower()
        texts = [arg] if isinstance(arg, str) else arg
        if kind == "lacks":
            found = [t for t in texts if t.lower() in text]
            return f"contains {found}" if found else None
        missing = [t for t in texts if not any(one.lower() in text for one in str(t).split("|"))]
        return f"missing {missing}" if missing else None
    rows = query(arg)
    values = [r[0] for r in rows]
    if kind == "lead_count":
        none = not rows and re.match(r"\W*(none|no |nothing)", lead, re.I)  # "**None.** No device …" is a zero
        return None if none or str(len(rows)) in figures(lead) else f"{len(rows)} not a figure of the lead"
    if kind in ("lead_number", "lead_yes", "has_number"):
        if len(rows) != 1 or len(rows[0]) != 1:
            raise ValueError(f"{kind} needs a query of one value, got {len(rows)} rows: {arg}")
        if kind == "lead_yes":
            want = "**Yes" if rows[0][0] else "**No"
            return None if lead.startswith(want) else f"lead should start with {want}"
        part, where = ("lead", lead) if kind == "lead_number" else ("answer", answer)
        if kind == "lead_number" and values[0] == 0 and re.match(r"\W*(none|no |nothing)", lead, re.I):
            return None  # "**None** — no sites with no firewall devices" is a zero, as for ``lead_count``
        return None if _figure(values[0]) & figures(where) else f"{values[0]} not a figure of the {part}"
    if kind == "has_any":
        return None if any(named(v, answer) for v in values) else f"none of {values[:10]} in the answer"
    if not values and kind == "lead_any":
        return "the query returned nothing: the case checks nothing"
    if kind == "lead_names":
        missing = [v for v in values if not named(v, lead)]
        return f"not in the lead: {missing}" if missing else None
    if kind == "lead_any":
        if not any(named(v, lead) for v in values):
            return f"none of {values[:10]} in the lead"
        # a lead naming a crowd besides ("150 devices tie with the most devices: 1 — FW-…, …") answers no "which"
        others = {i for i in _ID.findall(lead) if not i.startswith("ASMT-") and not any(named(v, i) for v in values)}
        return f"the lead names {len(others)} other rows besides" if len(others) > CROWD else None
    if kind in ("lists", "has_names"):
        missing = [v for v in values if not named(v, answer)]
        return f"{len(missing)} of {len(values)} not named: {missing[:10]}" if missing else None
    present = [v for v in values if named(v, answer)]  # absent
    return f"named though out of scope: {present[:10]}" if present else None
