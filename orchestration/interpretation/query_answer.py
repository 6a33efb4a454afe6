"""The answer to a typed query (issue 52): its first line answers in the question's form — the figure, Yes or No with
the figure behind it, how many there are and which, the first of a ranking, the change between two runs — and the
body is what the statement returned (the list, the table, the series) and nothing else. Every figure is a value of
the rows or computed here and put in ``statistics`` (the Reflector traces each one).

Values are written as the semantic model names them (``Measure.named``); conditions as the words of their values
("store · firewall · high severity"); the run as its id.
"""

from __future__ import annotations

import calendar
import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from assessment_engine.query import Condition, DataQuery
from assessment_engine.semantic_model import SemanticModel
from foundation.vocabulary.text import plural
from orchestration.interpretation import markdown
from orchestration.outputs import DomainOutputs

SHOWN = 100  # rows of a list or table shown in the chat; the export keeps every row the statement returned
INLINE = 12  # a list of up to this many names stands in the first line
Row = Mapping[str, Any]


def _value(value: Any, unit: str = "") -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and unit == "count" and value.is_integer():
        return f"{int(value):,}"
    if isinstance(value, float):
        return f"{value:.1f}" + ("%" if unit == "percent" else "")
    return f"{value:,}" if isinstance(value, int) else str(value)


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def month_name(month: str) -> str:
    """"2025-12" as "December 2025"."""
    year, number = month.split("-")
    return f"{MONTHS[int(number) - 1]} {year}"


MANY = {"device": "devices", "site": "sites", "os_version": "releases", "model": "models", "rule": "checks"}


def _words(condition: Condition) -> str:
    values = ", ".join(v.replace("_", " ") for v in condition.values)
    if condition.of_devices:
        return f"{'not ' if condition.negated else ''}{'passing' if condition.passing else 'failing'} {values}"
    if len(condition.values) > 4 and condition.dimension in MANY:  # the names are in the rows and the scope line
        values = f"{len(condition.values)} {MANY[condition.dimension]}"
    said = {"severity": f"{values} severity", "release": f"release {values}", "topic": f"{values} checks",
            "environment": values, "tier": values.replace("tier", "tier "), "cve": values, "rule": values,
            "criticality": f"business criticality {values}", "category": values.replace("layer2", "layer 2")}.get(
        condition.dimension, values)
    if condition.dimension == "pci_scope":  # a yes or no of the site, said as what it is
        said = " or ".join(PCI_SAID.get(v.lower(), v) for v in condition.values)
    return f"not {said}" if condition.negated else said


def where(query: DataQuery, runs: Sequence[str] | None = None, months: bool = True) -> str:
    """The scope of a figure in a few words: its conditions and its run(s) (``runs``: those said, where the answer
    says its runs apart; ``months``: False where it says its months apart)."""
    # (a split condition is of one side, said by the rows: "store" beside "everything else")
    parts = [_words(c) for c in query.conditions if not c.in_measure and not c.split and (
        c.dimension not in query.group_by or (c.dimension == "device" and len(c.values) > 4) or c.negated)]
    # (the devices of an earlier list are said as their number: "of the 7 devices"; other rows name themselves)
    runs = list(runs if runs is not None else query.runs)
    parts += [" → ".join(runs)] if runs else []
    parts += [", ".join(query.months)] if query.months and months else []
    return ", ".join(parts) or "all devices"


PCI_SAID = {"true": "in PCI scope", "false": "not in PCI scope"}


def _shown(key: Any, dim: str) -> str:
    """A group's value as a reader says it: "wireless controller", "management plane", "in PCI scope" (names and ids
    as stored)."""
    if dim == "pci_scope":
        return PCI_SAID.get(str(key).lower(), str(key))
    return str(key).replace("_", " ") if dim in ("device_type", "category", "topic") else str(key)


def _label(dimension: str, model: SemanticModel, n: int = 2) -> str:
    return plural(model.dimensions[dimension].noun, n)


def _names(values: Sequence[Any]) -> str:
    bold = [f"**{v}**" for v in values]
    return ", ".join(bold[:-1]) + " and " + bold[-1] if len(bold) > 1 else "".join(bold)


def answer(query: DataQuery, rows: Sequence[Row], model: SemanticModel, notes: Sequence[str] = (),
           polarity: str | None = None, direction: str | None = None, polar: bool = False) -> DomainOutputs:
    """The answer to ``query`` from its ``rows`` (``total_rows``: how many in all, past the limit); ``notes``: what
    the words asked that the query could not hold, said beside the answer (never dropped silently); ``polar``: put
    as a yes/no ("did it improve?"), answered Yes or No first."""
    if not query.runs and query.measures and model.facts[model.measures[query.measures[0]].fact].run:
        return _no_such_run(rows, notes)
    unheld = [n for n in notes if not n.startswith("no run in ")]
    outputs = _answer(query, rows, model, polarity, direction, polar)
    return outputs.model_copy(update={"data_gaps": [*outputs.data_gaps, *unheld]}) if unheld else outputs


def _answer(query: DataQuery, rows: Sequence[Row], model: SemanticModel, polarity: str | None,
            direction: str | None, polar: bool = False) -> DomainOutputs:
    if query.leader and query.group_by and query.order and query.measures:
        return _leads(query, rows, model)
    if query.output == "yes_no":
        return _yes_no(query, rows, model, polarity, direction)
    if query.output in ("series", "change"):
        return _over_time(query, rows, model, direction, polar)
    if query.output in ("difference", "one_side"):
        return _difference(query, rows, model)
    if query.output == "since":
        return _since(query, rows, model)
    if query.output == "same" and query.group_by:
        return _same(query, rows, model)
    if query.group_by[:1] == ["device"] and len(query.group_by) == 2 and not query.measures:
        return _looked_up(query, rows, model)
    if query.group_by:
        return _grouped(query, rows, model)
    return _value_answer(query, rows, model)


def _stretch(per_run: Mapping[str, Any], runs: Sequence[str]) -> list[str]:
    """The runs, up to the latest, in each of which the figure was above zero without a break."""
    stretch: list[str] = []
    for run in reversed(runs):
        if not per_run.get(run):
            break
        stretch.insert(0, run)
    return stretch


def _since(query: DataQuery, rows: Sequence[Row], model: SemanticModel) -> DomainOutputs:
    """From which run the measure has been above zero in every run up to the latest — for each group when grouped
    ("since when", after what SW-1 fails: each check's); a run the scope was not assessed in breaks the stretch
    (nothing was judged there)."""
    measure = query.measures[0]
    noun = model.measures[measure].noun[1]
    runs = list(query.runs)
    if query.group_by:
        dim = query.group_by[0]
        per_key: dict[str, dict[str, Any]] = {}
        for r in rows:
            per_key.setdefault(str(r.get(dim)), {})[str(r.get("run"))] = r.get(measure)
        since = {k: s for k, v in per_key.items() if (s := _stretch(v, runs))}
        order = sorted(since, key=lambda k: (runs.index(since[k][0]), k))
        if not order:
            return DomainOutputs(summary=f"**None** in the latest run ({runs[-1]}, {where(query, [], months=False)}).",
                                 statistics={"rows": 0})
        items = [f"**{k}** since {since[k][0]}" + (" (every run on record)" if len(since[k]) == len(runs) else "")
                 for k in order]
        has = "failing" if measure == "failed_checks" else f"with {noun}"
        lead = (f"**{len(order)} {_label(dim, model, len(order))}** {has} in the latest run "
                f"({where(query, [], months=False)}), each since: " + "; ".join(items[:SHOWN]) + ".")
        return DomainOutputs(summary=lead, statistics={"rows": len(order), **_listed(dim, order, len(order)),
                                                       **{f"{k} since": since[k][0] for k in order}})
    per_run = {str(r.get("run")): r.get(measure) for r in rows}
    stretch = _stretch(per_run, runs)
    series = " · ".join(f"{run} {_value(per_run.get(run), 'count') if run in per_run else 'not assessed'}"
                        for run in runs)
    stats = {"runs": len(runs), "failing_runs": len(stretch), **({"since": stretch[0]} if stretch else {})}
    if not stretch:
        failed = [r for r in runs if per_run.get(r)]
        lead = (f"**Not in the latest run** ({runs[-1]}): no {noun} there ({where(query, [], months=False)})" +
                (f"; the last run with some was {failed[-1]}." if failed else "; none in any run on record."))
    elif len(stretch) == len(runs):
        lead = (f"**Since {stretch[0]}**, the first run on record: {noun} in every one of the {len(runs)} runs "
                f"({where(query, [], months=False)}).")
    else:
        before = runs[len(runs) - len(stretch) - 1]
        latest = "in the latest run only" if len(stretch) == 1 else f"in each of the last {len(stretch)} runs"
        lead = f"**Since {stretch[0]}**: {noun} {latest}; none in {before} ({where(query, [], months=False)})."
    return DomainOutputs(summary=f"{lead}\n\nPer run: {series}.", statistics=stats)


def _difference(query: DataQuery, rows: Sequence[Row], model: SemanticModel) -> DomainOutputs:
    """The checks two devices (or sites) differ on: failing on one side and passing on the other; a check the other
    side was not judged on is said as such, not counted as a difference."""
    thing, side = query.group_by[:2]
    sides = (query.condition(side) or Condition(dimension=side, values=[])).values
    judged: dict[str, dict[str, bool]] = {}
    for r in rows:
        judged.setdefault(str(r.get(thing)), {})[str(r.get(side))] = bool(r.get(query.measures[0]))
    only = {s: sorted(k for k, v in judged.items() if v.get(s) and all(s2 in v and not v[s2] for s2 in sides
                                                                        if s2 != s)) for s in sides}
    unjudged = sorted(k for k, v in judged.items() if any(v.values()) and len(v) < len(sides))
    both = sorted(k for k, v in judged.items() if len(v) == len(sides) and all(v.values()))
    differing = sorted({k for ks in only.values() for k in ks})
    if query.output == "one_side" and sides:  # what the first fails and the others pass
        return _one_side(query, sides, only[sides[0]], both, unjudged, model)
    stats: dict[str, Any] = {"rows": len(differing), **_listed(thing, differing, len(differing)),
                             **{f"failing on {s} only": len(only[s]) for s in sides}}
    if not differing:
        lead = (f"**No difference** — {' and '.join(sides)} fail the same {len(both)} {plural(model.dimensions[thing].noun, len(both))}"
                f"{': ' + ', '.join(both) if both and len(both) <= INLINE else ''} ({where(query)}).")
    else:
        parts = [f"on {s} only: {', '.join(only[s])}" for s in sides if only[s]]
        lead = (f"**{' and '.join(sides)} differ on {len(differing)} {plural(model.dimensions[thing].noun, len(differing))}** "
                f"({where(query)}) — failing {'; '.join(parts)}.")
        if both:
            lead += f" Both fail {len(both)} more: {', '.join(both[:INLINE])}{' …' if len(both) > INLINE else ''}."
    lead += _unjudged(unjudged)
    if not differing:
        return DomainOutputs(summary=lead, statistics=stats)
    body = [[k, *("fail" if judged[k].get(s) else "pass" if s in judged[k] else "—" for s in sides)] for k in differing]
    table = markdown.table([model.dimensions[thing].noun.capitalize(), *sides], body)
    return DomainOutputs(summary=f"{lead}\n\n{table}", statistics=stats)


def _one_side(query: DataQuery, sides: Sequence[str], only: list[str], both: list[str], unjudged: list[str],
              model: SemanticModel) -> DomainOutputs:
    """What the first side fails and the others pass ("checks failing at Store-41 but not Store-40"), then how many
    they share."""
    thing = query.group_by[0]
    noun = model.dimensions[thing].noun
    first, others = sides[0], " or ".join(sides[1:])
    stats: dict[str, Any] = {"rows": len(only), **_listed(thing, only, len(only)), "failing on both": len(both)}
    if not only:
        lead = f"**None** — every {noun} failing on {first} fails on {others} too ({where(query)})."
    else:
        lead = (f"**{len(only)} {plural(noun, len(only))}** fail on {first} but not on {others} ({where(query)}): "
                f"{', '.join(only)}.")
    if both:
        lead += f" Both fail {len(both)} more."
    return DomainOutputs(summary=lead + _unjudged(unjudged), statistics=stats)


def _unjudged(unjudged: Sequence[str]) -> str:
    """The checks one side has no verdict on, said apart from the difference (not counted as one)."""
    if not unjudged:
        return ""
    return (f" Not judged on both (the check does not apply to one of them): {', '.join(unjudged[:INLINE])}"
            f"{' …' if len(unjudged) > INLINE else ''}.")


def _looked_up(query: DataQuery, rows: Sequence[Row], model: SemanticModel) -> DomainOutputs:
    """One attribute of the devices named, from the inventory ("RTR-CORE-2: model **ASR1001-HX**"); a device the
    inventory does not hold is said."""
    dimension = query.group_by[1]
    noun = model.dimensions[dimension].noun
    found = {str(r.get("device")): r.get(dimension) for r in rows}
    named = query.condition("device")
    # the devices named, each said (one the inventory lacks too); else every device of the scope, in order
    asked = named.values if named is not None and not named.negated else list(found)
    if len(query.conditions) > 1:
        # ("just us-west" after their regions: the named devices there — one outside it is no device missing from the
        # inventory)
        asked = [d for d in asked if d in found]
    if not asked:
        return DomainOutputs(summary=f"**None** — no device in this scope ({where(query)}).",
                             statistics={"rows": 0})
    if named is None or named.negated or len(asked) > INLINE:  # the devices of a scope: counted, then each
        head = [model.dimensions["device"].noun.capitalize(), noun.capitalize()]
        body = [[d, found.get(d) if found.get(d) not in (None, "") else "—"] for d in asked[:SHOWN]]
        more = f"\n\n… and {len(asked) - SHOWN} more (every row is in the export)." if len(asked) > SHOWN else ""
        # ("what type are they" of 20 devices: how many of each, first — the table then says which)
        tally = Counter(str(found[d]) for d in asked if found.get(d) not in (None, ""))
        kinds = f" — {' · '.join(f'{v} **{n}**' for v, n in tally.most_common())}" if \
            1 < len(tally) <= INLINE and len(tally) < len(asked) else ""
        return DomainOutputs(summary=f"**{len(asked)} {plural('device', len(asked))}** with their {noun}{kinds} "
                             f"({where(query)}):\n\n"
                             f"{markdown.table(head, body)}{more}", statistics={"rows": len(rows)})
    lines = [f"**{d}**: {noun} **{found[d]}**" if found.get(d) not in (None, "") else
             (f"**{d}**: no {noun} on record" if d in found else f"**{d}**: not in this inventory") for d in asked]
    return DomainOutputs(summary="\n".join(f"- {line}" for line in lines) if len(lines) > 1 else lines[0] + ".",
                         statistics={"rows": len(rows), **{f"{d} {noun}": v for d, v in found.items()}})


def _no_such_run(rows: Sequence[Row], notes: Sequence[str]) -> DomainOutputs:
    runs = [f"{r.get('assessment_id')} ({str(r.get('started_at'))[:10]})" for r in rows]
    asked = " or ".join(month_name(m.strip()) for n in notes for m in n.replace("no run in ", "").split(",")) or \
        "that time"
    return DomainOutputs(summary=f"There is no assessment run in {asked}: the runs on record are {', '.join(runs)}. "
                                 "Ask about one of them (\"… in the " + (runs[-1].split(" ")[0] if runs else "latest")
                                 + " run\").", statistics={"runs": len(runs)})


def _value_answer(query: DataQuery, rows: Sequence[Row], model: SemanticModel) -> DomainOutputs:
    row = rows[0] if rows else {}
    if query.measures[:2] == ["devices_failing", "devices_assessed"]:
        failing, assessed = (int(row.get(m) or 0) for m in query.measures[:2])
        checks = [c for c in query.conditions if c.dimension in ("severity", "rule", "topic") and not c.negated
                  and not c.of_devices]  # (what else keeps the devices is said in the scope)
        what = " or ".join(_words(c) if c.dimension != "severity" else f"{' or '.join(c.values)} checks"
                           for c in checks) or "at least one check"
        if len(checks) == 1 and checks[0].dimension == "rule" and len(checks[0].values) > 4:
            what = f"at least one of {what}"  # "fail at least one of 7 checks", not all seven
        if not assessed:  # nothing judged is nothing compliant either
            return DomainOutputs(summary=f"**None.** No device assessed is in this scope ({where(query)}).",
                                 statistics={"devices_failing": 0, "devices_assessed": 0})
        return DomainOutputs(summary=f"**{failing:,}** of the {assessed:,} devices assessed in this scope fail {what} "
                                     f"({where(query)}).", statistics={"devices_failing": failing,
                                                                       "devices_assessed": assessed})
    among = query.condition("device")
    if query.measures == ["devices"] and among is not None and not among.negated and len(among.values) > 1:
        # "how many of them are in us-east" after three devices listed: a part of those, said as one
        rest = query.model_copy(update={"conditions": [c for c in query.conditions if c is not among]})
        return DomainOutputs(summary=f"**{_value(row.get('devices'))}** of the {len(among.values)} devices "
                                     f"({where(rest)}).", statistics={"devices": row.get("devices")})
    figures = [model.measures[m].named(row.get(m)) for m in query.measures]
    lead = " · ".join(f"**{f.split(' ', 1)[0]}** {f.split(' ', 1)[1]}" if " " in f else f"**{f}**" for f in figures)
    return DomainOutputs(summary=f"{lead} ({where(query)}).", statistics={m: row.get(m) for m in query.measures})


def _same(query: DataQuery, rows: Sequence[Row], model: SemanticModel) -> DomainOutputs:
    """"are they all at the same site": Yes and which, when the rows are one value; No and each value otherwise."""
    dim = query.group_by[0]
    measure = query.measures[0] if query.measures else None
    keys = [r.get(dim) for r in rows if r.get(dim) is not None]
    each = ", ".join(f"{_shown(r.get(dim), dim)}" + (f" ({_value(r.get(measure), 'count')})" if measure else "")
                     for r in rows[:SHOWN] if r.get(dim) is not None)
    scope = where(query.model_copy(update={"group_by": []}))
    if len(keys) == 1:
        lead = f"**Yes** — all of them: {_label(dim, model, 1)} **{_shown(keys[0], dim)}** ({scope})."
    elif not keys:
        lead = f"**No** — none of them has a {_label(dim, model, 1)} ({scope})."
    else:
        lead = f"**No** — {len(keys)} {_label(dim, model, len(keys))} ({scope}): {each}."
    return DomainOutputs(summary=lead, statistics={"rows": len(keys), **_listed(dim, keys, len(keys))})


def _yes_no(query: DataQuery, rows: Sequence[Row], model: SemanticModel, polarity: str | None,
            direction: str | None) -> DomainOutputs:
    measure = query.measures[0] if query.measures else None
    if measure is None and not query.group_by:
        return _grouped(query, rows, model)
    if query.group_by:  # "any … flagged?", "any of them in the lab?": Yes, and which
        dim = query.group_by[0]
        total = int(rows[0].get("total_rows") or len(rows)) if rows else 0
        if polarity == "passes" and measure and model.measures[measure].better == "lower" and any(
                b.measure == measure and b.op == ">" and b.value == 0 for b in query.bounds):
            # "are they compliant": No when any of them fails, and which; Yes when none does
            if not rows:
                return DomainOutputs(summary=f"**Yes** — none of them has {model.measures[measure].noun[1]} "
                                             f"({where(query)}).", statistics={"rows": 0})
            named = ", ".join(f"{r.get(dim)} ({_value(r.get(measure), 'count')})" for r in rows[:SHOWN])
            return DomainOutputs(summary=f"**No** — {total} {_label(dim, model, total)} "
                                         f"{'has' if total == 1 else 'have'} {model.measures[measure].noun[1]} "
                                         f"({where(query)}): {named}.", statistics={"rows": total})
        if not rows:
            said = bound_words(query, model).removeprefix("with ")  # "No — no device with failed checks (…)"
            return DomainOutputs(summary=f"**No** — no {_label(dim, model)}{' with ' + said if said else ''} "
                                         f"({where(query)}).", statistics={"rows": 0})
        names = [str(r.get(dim)) for r in rows]  # every one: a yes is proved by the complete list
        listed = ", ".join(names[:SHOWN]) + (f" and {total - SHOWN} more (every one is in the export)"
                                             if total > SHOWN else "")
        # "… with no failed checks": the devices that pass, said so ("is snmp v3 used anywhere")
        clean = " " + bound_words(query, model) if any(b.op == "=" for b in query.bounds) else ""
        return DomainOutputs(summary=f"**Yes** — {total} {_label(dim, model, total)}{clean} ({where(query)}): {listed}.",
                             statistics={"rows": total, **_listed(dim, names, total)})
    if measure is None:  # no figure and no rows asked of: what the rows are
        return _grouped(query, rows, model)
    by_period = {str(r.get("run") or ""): r.get(measure) for r in rows}
    periods = query.runs or query.months
    unit = model.measures[measure].unit
    if len(periods) == 2 and len(rows) >= 2:  # "did the lab get worse since last run?", "more in october or september?"
        before, after = (float(by_period.get(r) or 0) for r in periods)
        change = after - before
        stats = {measure: after, "before": before, "change": change}
        if direction is None:  # not a way of getting better or worse: which period has more
            higher = periods[1] if after > before else periods[0]
            text = (f"**{'Higher' if unit == 'percent' else 'More'} in {higher}**: {model.measures[measure].named(max(after, before))} against "
                    f"{_value(min(after, before), unit)} ({', '.join(periods)}; {where(query, [], months=False)}).")
            return DomainOutputs(summary=text, statistics=stats)
        worse = after > before if model.measures[measure].better != "higher" else after < before
        yes = (not worse and after != before) if direction == "better" else worse
        text = (f"**{'Yes' if yes else 'No'}** — {model.measures[measure].named(after)} in {periods[1]} against "
                f"{_value(before, unit)} in {periods[0]} ({change:+g}; {where(query, [], months=False)}).")
        return DomainOutputs(summary=text, statistics=stats)
    value = float(rows[0].get(measure) or 0) if rows else 0.0
    bound = next((b for b in query.bounds if b.measure == measure), None)
    yes = bound.holds(value) if bound else (value == 0 if polarity == "passes" else value > 0)
    text = f"**{'Yes' if yes else 'No'}** — {model.measures[measure].named(rows[0].get(measure) if rows else 0)} " \
           f"({where(query)})."
    return DomainOutputs(summary=text, statistics={measure: rows[0].get(measure) if rows else 0})


def _leads(query: DataQuery, rows: Sequence[Row], model: SemanticModel) -> DomainOutputs:
    """Whether the row asked about is among the first of every row ranked ("is HQ the site with the most failed
    checks?"): Yes or No, the rows that lead with their figure, and where the one asked about stands."""
    assert query.order is not None and query.leader is not None
    dim, first, order = query.group_by[0], query.measures[0], query.order
    ranked_by = [order.measure, *order.then]
    measure = model.measures[first]
    by_severity = ranked_by == ["critical_findings", "high_findings", "failed_checks"]

    def figure(row: Row) -> str:
        if by_severity:  # "the worst site": its critical, high and all failures, each said
            return (f"{_value(row.get('critical_findings'))} critical, {_value(row.get('high_findings'))} high, "
                    f"{_value(row.get('failed_checks'))} failed checks")
        return f"{_value(row.get(first))}{'%' if measure.unit == 'percent' else ''}"

    def key(row: Row) -> list[Any]:
        return [row.get(k) for k in ranked_by]

    # each row's place: 1 + the rows ahead of it, rows tied sharing one — one sort, not every row against every row
    # (a device asked about among 10,000)
    def before(a: Row, b: Row) -> int:
        return -1 if _ahead(key(a), key(b), order.descending) else 1 if _ahead(key(b), key(a), order.descending) else 0

    ranked = sorted(rows, key=functools.cmp_to_key(before))
    placed: list[tuple[int, Row]] = []
    for i, row in enumerate(ranked):
        placed.append((placed[-1][0] if placed and key(placed[-1][1]) == key(row) else i + 1, row))
    skipped, cut = query.offset or 0, (query.offset or 0) + (query.limit or 1)
    leading = [r for p, r in placed if skipped < p <= cut]
    asked = next(((p, r) for p, r in placed if str(r.get(dim)).lower() == query.leader.lower()), None)
    yes = asked is not None and skipped < asked[0] <= cut
    if by_severity:
        end, noun = ("worst" if order.descending else "best"), ""
    else:
        end = ("highest" if order.descending else "lowest") if measure.unit == "percent" else (
            "most" if order.descending else "fewest")
        noun = " " + (measure.noun[1] if measure.unit == "count" else measure.noun[0])
    total = int(rows[0].get("total_rows") or len(rows)) if rows else 0  # (counted before the guard's row cap)
    of_all = f"of {total:,} {_label(dim, model, total)}"
    rank = "" if asked is None else \
        f"{'tied ' if sum(1 for p, _ in placed if p == asked[0]) > 1 else ''}{_ordinal(asked[0])}"
    stands = (f"{query.leader} is not among the first {len(rows)} {of_all}" if total > len(rows) else
              f"{query.leader} has none here") if asked is None else \
        f"{asked[1].get(dim)} has {figure(asked[1])}, {rank} {of_all}"
    if asked is not None and yes:
        others = [f"**{r.get(dim)}**" for r in leading if r is not asked[1]]
        lead = (f"**Yes** — {asked[1].get(dim)} has the {end}{noun} {of_all}: {figure(asked[1])}"
                f"{', tied with ' + ', '.join(others[:INLINE]) if others else ''}" if cut == 1 else
                f"**Yes** — {asked[1].get(dim)} is in the top {cut} {of_all}{' by' + noun if noun else ''}: "
                f"{figure(asked[1])}, {rank}")
        if len(ranked) == total <= 3:  # two or three set side by side: the others' figures too ("; HQ 89.4%")
            lead += "".join(f"; {r.get(dim)} {figure(r)}" for r in ranked if r is not asked[1])
    else:
        shown = ", ".join(f"**{r.get(dim)}** ({figure(r)})" for r in leading[:INLINE])
        which = f"the {end}{noun}" if cut == 1 else f"the top {cut} places{' by' + noun if noun else ''}"
        lead = f"**No** — {shown} {'has' if len(leading) == 1 else 'have'} {which}; {stands}"
    return DomainOutputs(summary=f"{lead} ({where(query)}).", statistics={
        "rows": len(rows), "leads": yes, **_listed(dim, [r.get(dim) for r in leading], len(leading))})


def _ahead(a: Sequence[Any], b: Sequence[Any], descending: bool) -> bool:
    """Whether figures ``a`` rank before ``b`` (missing figures last)."""
    for x, y in zip(a, b, strict=True):
        if x == y:
            continue
        if x is None or y is None:
            return y is None
        return bool(x > y) == descending
    return False


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def all_of_the_checks(query: DataQuery) -> bool:
    """Devices bound to fail as many of the checks named as were named: each fails every one of them."""
    rules = query.condition("rule")
    return rules is not None and not rules.negated and query.group_by == ["device"] and len(query.bounds) == 1 and \
        query.bounds[0].measure == "failed_checks" and query.bounds[0].op == ">=" and \
        query.bounds[0].value == len(rules.values) > 1


def bound_words(query: DataQuery, model: SemanticModel) -> str:
    """The query's bounds as a reader says them: "with more than 20 failed checks", "with no failed checks", "failing
    both NTP-AUTH and NTP-SERVER"."""
    if all_of_the_checks(query):
        rules = query.condition("rule").values  # type: ignore[union-attr]  # all_of_the_checks holds
        return f"failing {'both' if len(rules) == 2 else 'all of'} {', '.join(rules[:-1])} and {rules[-1]}"
    said = []
    for b in query.bounds:
        value = int(b.value) if float(b.value).is_integer() else b.value
        thing = model.counted_things(b.measure)
        if query.group_by == ["rule"] and thing in ("site", "device") and b.op == ">=" and value > 1 and \
                model.measures[b.measure].better == "lower":
            # "which checks fail at both", "at every store": each of the sites (devices) fails them
            said.append(f"failing at {'both' if value == 2 else f'all {value:,}'} {_label(thing, model, int(value))}")
            continue
        noun = model.measures[b.measure].noun[0 if value == 1 else 1]
        if model.measures[b.measure].unit == "count":  # "sites with no firewall devices": the kind counted, named
            kinds = [c.values[0].replace("_", " ") for c in query.conditions if c.in_measure and len(c.values) == 1
                     and not c.negated and c.dimension in ("device_type", "role", "platform")]
            noun = " ".join([*kinds, noun])
        if b.measure == "runs_failing" and b.op == ">=" and value == len(query.runs) > 1:
            said.append(f"failing in all {value} runs")  # "never passed", "in every run"
            continue
        if model.measures[b.measure].unit == "percent":  # "with a pass rate under 80%"
            op = {">": "over", ">=": "of at least", "<": "under", "<=": "of at most", "=": "of exactly"}[b.op]
            said.append(f"a {model.measures[b.measure].noun[0]} {op} {value:g}%")
            continue
        if b.value == 0 and b.op in ("=", "<=", "<"):
            said.append(f"no {noun}")
        elif b.value == 0 and b.op == ">" and query.group_by == ["device"] and _one_per_row(model, b.measure, "device"):
            return "matched" if b.measure == "devices_matched" else "failing"  # "6 devices matched (SLIC-EVT-002)"
        elif b.value == 0 and b.op == ">":
            said.append(noun)
        else:
            op = {">": "more than", ">=": "at least", "<": "fewer than", "<=": "at most", "=": "exactly"}[b.op]
            said.append(f"{op} {value:,} {noun}")
    return ("with " + " and ".join(said)).replace("with failing", "failing") if said else ""


def _listed(dim: str, names: Sequence[Any], total: int) -> dict[str, Any]:
    """The rows an answer listed, in its order: "the second one", "the worst one" refer to them; the devices when it
    listed them completely ("which of them …")."""
    shown = {"rows_listed": [str(n) for n in names if n is not None][:SHOWN]}
    return {**shown, "devices_listed": [str(n) for n in names]} if dim == "device" and total == len(names) else shown


def _one_per_row(model: SemanticModel, measure: str, dim: str) -> bool:
    """Whether ``measure`` counts the rows themselves (devices failing, per device): 1 or 0 on each, a yes, not a
    figure to rank by."""
    return (model.measures[measure].count or "").upper().startswith("DISTINCT") and model.counted_things(measure) == dim


def _grouped(query: DataQuery, rows: Sequence[Row], model: SemanticModel) -> DomainOutputs:
    dim = query.group_by[0]
    total = int(rows[0].get("total_rows") or len(rows)) if rows else 0
    measures = query.measures
    first = measures[0] if measures else None
    if first and query.order is not None and query.order.measure == first and _one_per_row(model, first, dim):
        query = query.model_copy(update={"order": None})  # "which are they" after devices counted: a list, no ties
    name = _label(dim, model, total)
    keys = [r.get(dim) for r in rows]
    stats: dict[str, Any] = {"rows": total, **_listed(dim, keys, total)}
    if first and query.order and rows:
        best = rows[0].get(first)
        ranked_by = [query.order.measure, *query.order.then]  # a tie is a tie on every key of the order
        tied = [r.get(dim) for r in rows if [r.get(k) for k in ranked_by] == [rows[0].get(k) for k in ranked_by]]
        end = "most" if query.order.descending else "fewest"
        if model.measures[first].unit == "percent":
            end = "highest" if query.order.descending else "lowest"
        if query.offset:  # "the second worst store": its place said
            end = f"{('second', 'third', 'fourth', 'fifth')[min(query.offset, 4) - 1]} {end}"
        noun = model.measures[first].noun[1] if model.measures[first].unit == "count" else model.measures[first].noun[0]
        figure = f"{_value(best)}{'%' if model.measures[first].unit == 'percent' else ''} ({where(query)})"
        by_severity = dim == "rule" and query.order.measure == "critical_findings" and query.order.then[:1] == [
            "high_findings"] and query.order.descending
        if by_severity:  # one device's checks ranked by severity: the most severe, said as a severity
            worst = "critical" if best else "high" if rows[0].get("high_findings") else "medium or low"
            tied = [r.get(dim) for r in rows if (r.get(first), r.get("high_findings")) == (best, rows[0].get(
                "high_findings"))]
            figure = f"{worst} ({where(query)})"
            end, noun = "most", "severe"
        worst_first = dim != "rule" and ranked_by == ["critical_findings", "high_findings", "failed_checks"]
        if worst_first:  # "the worst site": the most critical failures, then high, then all — each said
            top = rows[0]
            end = "worst" if query.order.descending else "best"
            figure = (f"{_value(top.get('failed_checks'))} failed checks ({_value(top.get('critical_findings'))} "
                      f"critical, {_value(top.get('high_findings'))} high; {where(query)})")
        lead = (f"{_names(tied)} {('is' if len(tied) == 1 else 'are')} the most severe: {figure}." if by_severity else
                f"{_names(tied)} {'is' if len(tied) == 1 else 'are'} the {end}: {figure}." if worst_first and len(tied)
                <= INLINE else
                f"{_names(tied)} {'has' if len(tied) == 1 else 'tie with'} the {end} {noun}: {figure}." if len(tied)
                <= INLINE else f"**{len(tied)} {_label(dim, model)}** tie with the {end} {noun}: {figure} — "
                f"{', '.join(str(t) for t in tied)}.")
        if query.limit and query.limit > 1:
            by = model.measures[first].noun[1 if model.measures[first].unit == "count" else 0]
            if len(rows) > query.limit:  # the compiler keeps the rows tied at the cut
                lead += (f" The top {query.limit} of {total} {_label(dim, model)} by {by}, {len(rows)} with the tie "
                         "at the cut:")
            else:
                lead += f" The {len(rows)} of {total} {_label(dim, model)} by {by}:"
        elif query.limit == 1 or len(rows) == 1:  # "which site has the most devices": the first line is the answer
            return DomainOutputs(summary=lead, statistics=stats)
    elif not rows:
        return DomainOutputs(summary=f"**None** — no {_label(dim, model, 2)} {bound_words(query, model)} "
                                     f"({where(query)}).".replace("  ", " "), statistics=stats)
    else:
        lead = f"**{total} {name}** {bound_words(query, model)} ({where(query)})".replace("  ", " ")
        failures_listed = dim == "rule" and bool(query.bounds) and all(b.op == ">" and b.value == 0 for b in query.bounds)
        counted = first is not None and model.adds_up(first, dim) and total == len(rows) and (
            (query.output == "table" and not query.bounds) or failures_listed)  # "critical findings at HQ": how many
        if first and not query.order and model.measures[first].unit == "count" and total == len(rows):
            rows = sorted(rows, key=lambda r: -float(r.get(first) or 0))  # a list with a figure: the most first
            keys = [r.get(dim) for r in rows]
            stats.update(_listed(dim, keys, total))
        some = bool(query.bounds) and all(b.op == ">" and b.value == 0 for b in query.bounds)
        if first and not counted and some and dim == "device" and len(measures) == 1 and total == len(rows) and \
                len(rows) > 1 and model.adds_up(first, dim) and not _one_per_row(model, first, dim):
            # "the high ones, how many" after the devices with critical SLIC matches: the devices and what they add
            # up to, both counted in the first line
            lead = (f"**{total} {name}** with {model.measures[first].named(sum(int(r.get(first) or 0) for r in rows))}"
                    f" ({where(query)})")
        if first and counted:  # "how many failed checks per role": the total first, then each group's share
            value = sum(int(r.get(first) or 0) for r in rows)
            stats[f"total_{first}"] = value
            figure = model.measures[first].named(value)
            split = (c := query.condition(dim)) is not None and c.split  # "the stores vs the rest": two sides, no kinds
            # ("what changed": the new failures and the fixed checks, each added up, in the first line)
            figures = [figure] + [model.measures[m].named(sum(int(r.get(m) or 0) for r in rows)) for m in measures[1:]
                                  if model.measures[m].unit == "count" and model.adds_up(m, dim)]
            lead = " · ".join(f"**{f.split(' ', 1)[0]}** {f.split(' ', 1)[1]}" for f in figures) + \
                f" ({where(query)})" + ("" if split else f" across {total} {name}")
        if first and not counted and not query.bounds and not query.order and query.output == "table" and \
                len(rows) > INLINE and total == len(rows) and model.measures[first].unit == "percent":
            # "what was their pass rate in august" of 18 sites: the figure named, from the lowest to the highest
            ranked = sorted((r for r in rows if r.get(first) is not None), key=lambda r: float(r[first]))
            if ranked:
                # (of devices, their rate together first: "and their pass rate" after how many there are)
                low, high = ranked[0], ranked[-1]
                lead = (_together(query, rows, model, stats) or
                        f"**{total} {name}** by {model.measures[first].noun[0]} ({where(query)})") + (
                    f", from {_value(low[first], 'percent')} at **{low.get(dim)}** to {_value(high[first], 'percent')} "
                    f"at **{high.get(dim)}**")
        if first and len(measures) == 1 and query.output == "table" and 1 < len(rows) <= INLINE and total == len(rows):
            # a figure per group, every group in the first line (side by side)
            unit = model.measures[first].unit
            inline = " · ".join(f"**{_shown(k, dim)}** {_value(r.get(first), unit)}" for k, r in zip(keys, rows, strict=True))
            opening = lead if counted or (some and dim == "device") else _together(query, rows, model, stats) or \
                f"{model.measures[first].noun[1 if unit == 'count' else 0].capitalize()} ({where(query)})"
            return DomainOutputs(summary=f"{opening}: {inline}.", statistics=stats)
        if first and len(measures) > 1 and query.output == "table" and 1 < len(rows) <= 3 and total == len(rows):
            # a few groups side by side with several figures ("compare with Store-41"): the first figure of each
            # leads, the table has them all
            unit = model.measures[first].unit
            lead = (f"{model.measures[first].noun[1 if unit == 'count' else 0].capitalize()} ({where(query)}): "
                    + " · ".join(f"**{k}** {_value(r.get(first), unit)}" for k, r in zip(keys, rows, strict=True)))
        none_of = query.bound_to_none
        if none_of and total <= SHOWN:  # "which have zero failures": their names; the figure is 0 for each
            return DomainOutputs(summary=lead + ": " + ", ".join(str(k) for k in keys) + ".", statistics=stats)
        if dim == "device" and first is not None and measures == [first] and (_one_per_row(
                model, first, dim) or all_of_the_checks(query)) and query.output != "table":
            names = ", ".join(str(k) for k in keys[:SHOWN])  # the devices are the answer; their 1s are not
            more = f" … and {total - SHOWN} more (every row is in the export)" if total > SHOWN else ""
            return DomainOutputs(summary=f"{lead}: {names}{more}.", statistics=stats)
        if not measures and len(query.group_by) == 1:  # names and nothing counted: one line, not a table of one column
            more = f" … and {total - SHOWN} more (every row is in the export)" if total > SHOWN else ""
            return DomainOutputs(summary=f"{lead}: {', '.join(str(k) for k in keys[:SHOWN])}{more}.", statistics=stats)
        if total <= INLINE and not (measures and len(rows) > 1 and query.output == "table"):
            # each row's figure where the rows differ by it ("devices with SLIC matches": 3, 2, 1) or a bound chose
            # them ("more than 20 failed checks"); no "(1)" after each device failing the one check named
            # (one row: its figure is the answer — "pass rate per platform" at the branches, where only ios-xe runs)
            differ = first is not None and (len({r.get(first) for r in rows}) > 1 or len(rows) == 1)
            figured = first and (differ or any(b.op != "=" and b.value > 0 for b in query.bounds)) and not (
                query.bounds and query.bounds[0].op == "=") and not (first is not None and _one_per_row(
                    model, first, dim)) and not all_of_the_checks(query)
            shown = [(f"{k} ({_value(r.get(first), model.measures[first].unit)})" if query.bounds else
                      f"{k} ({model.measures[first].named(r.get(first) or 0)})") if figured and first else str(k)
                     for k, r in zip(keys, rows, strict=True)]
            lead = _together(query, rows, model, stats) or lead
            return DomainOutputs(summary=lead + ": " + ", ".join(shown) + ".", statistics=stats)
        # the most first, where the figures are counts (summed in the lead only where they add up: devices per check do
        # not)
        if first and not query.order and len(rows) > 1 and len({r.get(first) for r in rows}) > 1 and (counted or (
                total == len(rows) and model.measures[first].unit == "count")):
            lead += "; the most: " + ", ".join(f"**{k}** ({_value(r.get(first), 'count')})"
                                                for k, r in zip(keys[:3], rows[:3], strict=True))
        lead += ":"
    head = [model.dimensions[dim].noun.capitalize(), *(model.measures[m].noun[1 if model.measures[m].unit == "count"
                                                                           else 0].capitalize() for m in measures)]
    body = [[r.get(dim), *(_value(r.get(m), model.measures[m].unit) for m in measures)] for r in rows[:SHOWN]]
    answered = len(rows) if query.limit else total  # (a top 4 of 148 answers with its 4 rows: no more to show)
    more = f"\n\n… and {answered - SHOWN} more (every row is in the export)." if answered > SHOWN else ""
    return DomainOutputs(summary=f"{lead}\n\n{markdown.table(head, body)}{more}", statistics=stats)


def _together(query: DataQuery, rows: Sequence[Row], model: SemanticModel, stats: dict[str, Any]) -> str | None:
    """"whats the pass rate of those" of a few devices: their rate together (pooled over their checks, not the mean
    of their rates), to lead before each one's; None for other rows, or when the rows are a cut of more."""
    first = query.measures[0] if query.measures else None
    pooled = rows[0].get(f"{first}__pooled") if first and rows else None
    total = int(rows[0].get("total_rows") or len(rows)) if rows else 0
    if first is None or pooled is None or query.group_by != ["device"] or not 1 < len(rows) == total or query.limit or \
            query.order:
        return None
    stats[f"{first}_together"] = pooled
    return f"**{model.measures[first].named(pooled)}** over the {total} devices ({where(query)})"


def _periods(query: DataQuery, rows: Sequence[Row]) -> list[str]:
    """The runs or months of a series: those asked, or (events over time with no months named) the months the rows
    have."""
    return list(query.runs or query.months) or sorted({str(r.get("run")) for r in rows})


def _over_time(query: DataQuery, rows: Sequence[Row], model: SemanticModel, direction: str | None,
               polar: bool = False) -> DomainOutputs:
    measure = query.measures[0]
    m = model.measures[measure]
    periods = _periods(query, rows)
    if query.group_by:
        return _groups_over_time(query, rows, model, direction)
    by_period = {str(r.get("run")): r for r in rows}
    values = [by_period.get(p, {}).get(measure) for p in periods]
    stats: dict[str, Any] = {f"{name}_{p}": by_period.get(p, {}).get(name) for p in periods for name in query.measures}
    if len(periods) == 2:
        before, after = (float(v or 0) for v in values)
        change = after - before
        stats["change"] = change
        worse = (change > 0) if m.better != "higher" else (change < 0)
        verdict = "No change" if change == 0 else ("Worse" if worse else "Better") if m.better else "Changed"
        went = (f"{m.noun[1] if m.unit == 'count' else m.noun[0]} went from {_value(values[0], m.unit)} "
                f"in {periods[0]} to {_value(values[1], m.unit)} in {periods[1]} ({_signed(change, m.unit)}; "
                f"{where(query, [], months=False)}).")
        lead = f"**{verdict}**: {went}"
        if polar and direction in ("better", "worse") and m.better:  # "did it improve?": Yes or No, then how
            moved = change != 0 and (worse == (direction == "worse"))
            lead = f"**{'Yes' if moved else 'No'}** — {verdict.lower()}: {went}"
        return DomainOutputs(summary=lead, statistics=stats)
    units = {name: model.measures[name].unit for name in query.measures}
    table = markdown.table(["Run" if query.runs else "Month",
                            *(model.measures[n].noun[1 if units[n] == "count" else 0].capitalize() for n in units)],
                           [[p, *(_value(by_period.get(p, {}).get(n), units[n]) for n in units)] for p in periods])
    ends = "; ".join(f"{model.measures[n].noun[1 if units[n] == 'count' else 0]} {_value(by_period.get(periods[0], {}).get(n), units[n])} "
                     f"→ {_value(by_period.get(periods[-1], {}).get(n), units[n])}" for n in units)
    lead = f"From {periods[0]} to {periods[-1]} ({where(query, [], months=False)}): {ends}." + _partial(rows, periods)
    judged = next((n for n in ("pass_rate", *query.measures) if n in units and model.measures[n].better), None)
    if polar and judged is not None:
        # "did Branch-02 get better or worse since august": which way, first — by the pass rate where it is shown
        first_value, last_value = (float(by_period.get(p, {}).get(judged) or 0) for p in (periods[0], periods[-1]))
        worse = (last_value < first_value) if model.measures[judged].better == "higher" else last_value > first_value
        verdict = "Unchanged" if last_value == first_value else "Worse" if worse else "Better"
        if direction in ("better", "worse"):
            moved = last_value != first_value and worse == (direction == "worse")
            verdict = f"{'Yes' if moved else 'No'}** — **{verdict.lower()}"
        lead = f"**{verdict}** by {model.measures[judged].noun[0]}: " + lead[0].lower() + lead[1:]
    if all(not float(by_period.get(p, {}).get(n) or 0) for p in periods for n in units):
        # "failed logins on the core routers per month": none in any of them, said first
        lead = (f"**None**: no {model.measures[measure].noun[1]} in any {'run' if query.runs else 'month'} from "
                f"{periods[0]} to {periods[-1]} ({where(query, [], months=False)}).")
    return DomainOutputs(summary=f"{lead}\n\n{table}", statistics=stats)


def _partial(rows: Sequence[Row], periods: Sequence[str]) -> str:
    """Where a series of months starts or ends in a month the log covers only in part: said, so that "970 → 26"
    is not read as a fall (the log ends on 2026-11-02)."""
    first, last = (str(rows[0].get(k) or "")[:10] if rows else "" for k in ("log_start", "log_end"))
    if not (first and last) or not periods or not re.fullmatch(r"\d{4}-\d{2}", periods[0]):
        return ""
    said = []
    if first[:7] == periods[0] and first[8:10] != "01":
        said.append(f"{periods[0]} from {first} only")
    if last[:7] == periods[-1] and int(last[8:10]) < calendar.monthrange(int(last[:4]), int(last[5:7]))[1]:
        said.append(f"{periods[-1]} up to {last} only")
    which = "those months are" if len(said) > 1 else "that month is"
    return f" The log covers {' and '.join(said)}: {which} partial." if said else ""


def _groups_over_time(query: DataQuery, rows: Sequence[Row], model: SemanticModel,
                      direction: str | None) -> DomainOutputs:
    """Each group's figure in each run; for two runs — or more, when the question asks which got better or worse —
    the groups that changed most from the first to the last first (worse first, or better first when the question
    asks which improved)."""
    dim, measure = query.group_by[0], query.measures[0]
    m = model.measures[measure]
    periods = _periods(query, rows)
    table: dict[Any, dict[str, Any]] = {}
    for r in rows:
        table.setdefault(r.get(dim), {})[str(r.get("run"))] = r.get(measure)
    stats: dict[str, Any] = {"groups": len(table)}
    absent: list[Any] = []
    # (a change asked over more runs, "which dropped the most since september": from the first to the last)
    if len(periods) == 2 or (len(periods) > 2 and (direction or query.output == "change")):
        ends = (periods[0], periods[-1])
        if direction and model.facts[m.fact].run and not query.bounds:
            # a row of a run's results missing from either end was not assessed then (a new device): it did not get
            # better or worse, and is said apart
            absent = [k for k in table if any(p not in table[k] for p in ends)]
            table = {k: v for k, v in table.items() if k not in absent}
            if not table:
                return DomainOutputs(summary=f"**None** — no {_label(dim, model, 2)} was assessed in both "
                                             f"{ends[0]} and {ends[1]} ({where(query, [], months=False)}).",
                                     statistics=stats)

        def change(key: Any) -> float:
            before, after = (float(table[key].get(p) or 0) for p in ends)
            delta = after - before
            return delta if m.better != "higher" else -delta  # how much worse
        better = direction == "better" or (query.order is not None and query.order.descending is False
                                             and m.better == "lower")
        either = direction == "either"  # "which one moved the most": by how far, whichever way

        def moved(key: Any) -> bool:
            return change(key) != 0 if either else change(key) < 0 if better else change(key) > 0
        order = sorted(table, key=lambda k: (-abs(change(k)) if either else -change(k) if not better else change(k), str(k)))
        if direction and not (query.limit and query.limit >= 1):
            # "which stores saw failures increase": those that moved the way asked, not every group
            order = [k for k in order if moved(k)] or order[:1]
        order = order[:query.limit] if query.limit and query.limit > 1 else order
        top = order[0] if order else None
        if top is None:
            return DomainOutputs(summary=f"**None** — nothing to compare ({where(query, [], months=False)}).", statistics=stats)
        zero = 0 if m.unit == "count" else None  # a group with none of what is counted in a run has 0 of it there
        before, after = (table[top].get(p, zero) for p in ends)
        delta = float(after or 0) - float(before or 0)
        stats.update(change=delta)
        moved_as_asked = moved(top)
        went = "changed" if either else f"got {'better' if better else 'worse'}"
        what = f"{went} the most" if moved_as_asked else "none changed" if either else (
            f"none {'improved' if better else 'got worse'}; **{top}** {'got worse' if better else 'improved'} the least"
            if change(top) else f"none {'improved' if better else 'got worse'}; **{top}** stayed level")
        lead = (f"{f'**{top}** {what}' if moved_as_asked else what[0].upper() + what[1:]}: "
                f"{m.noun[1 if m.unit == 'count' else 0]} "
                f"{_value(before, m.unit)} → {_value(after, m.unit)} ({_signed(delta, m.unit)}) between {ends[0]} and {ends[1]} "
                f"({where(query, [], months=False)}).")
        if direction and moved_as_asked and len(order) > 1 and not query.limit:
            # "which sites have fewer failed checks than in september": how many did, the most first
            lead = (f"**{len(order)} {_label(dim, model, len(order))}** {went} between "
                    f"{ends[0]} and {ends[1]} ({where(query, [], months=False)}); **{top}** the most: "
                    f"{m.noun[1 if m.unit == 'count' else 0]} {_value(before, m.unit)} → {_value(after, m.unit)} "
                    f"({_signed(delta, m.unit)}).")
        if absent:
            stats.update(not_in_both=len(absent))
            lead += (f" {len(absent)} {_label(dim, model, len(absent))} not assessed in both runs "
                     f"{'is' if len(absent) == 1 else 'are'} left out ({', '.join(map(str, absent[:3]))}"
                     f"{' …' if len(absent) > 3 else ''}).")
        # the one it led with first ("its worst site" is of that one); not the devices as a list of them: those that
        # moved are the query's, which "how many of them" edits
        stats.update(rows_listed=_listed(dim, order, len(order))["rows_listed"])
        body = [[k, *(_value(table[k].get(p, zero)) for p in periods),
                 _signed(float(table[k].get(ends[1]) or 0) - float(table[k].get(ends[0]) or 0))] for k in order[:20]]
        head = [model.dimensions[dim].noun.capitalize(), *periods, "Change"]
        return DomainOutputs(summary=f"{lead}\n\n{markdown.table(head, body)}", statistics=stats)
    head = [model.dimensions[dim].noun.capitalize(), *periods]
    body = [[k, *(_value(v.get(p)) for p in periods)] for k, v in list(table.items())[:SHOWN]]
    lead = f"{m.noun[1 if m.unit == 'count' else 0].capitalize()} per {model.dimensions[dim].noun} and run ({where(query, [], months=False)}):"
    return DomainOutputs(summary=f"{lead}\n\n{markdown.table(head, body)}", statistics=stats)


def _signed(delta: float, unit: str = "count") -> str:
    """A change as people write it: +8, -4.6 (not -4.600000000000001); a rate's in points, to one decimal (-1.0
    points, not -1)."""
    return f"{round(delta, 1):+.1f} points" if unit == "percent" else f"{round(delta, 1):+g}"
