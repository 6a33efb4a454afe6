"""Answers in the form of the question (DESIGN §4a): the first line answers what was asked — the number, the
complete list (a table with its count), the ranked devices, both sides of a comparison, the series over the runs,
Yes/No with its evidence — from the rows of the frame's SQL plan (``orchestration/tools/frame_sql.py``).

Every figure comes from the rows; figures computed here (pass rates, changes) are put in ``statistics`` so the
Reflector can trace them. Long lists are shown up to ``SHOWN`` rows in the chat; the export has every row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from assessment_engine.checks.judgement import PLATFORMS_OF_TYPE
from assessment_engine.checks.rule_engine import Rule
from assessment_engine.warehouse.sql_guard import ROW_CAP
from foundation.vocabulary.numbers import percent
from foundation.vocabulary.text import plural
from orchestration.interpretation import markdown
from orchestration.interpretation.enterprise import applied, chunks_for_rule
from orchestration.interpretation.findings import (
    _finding,
    deviation_title,
    devices,
    risks,
    rule_facts,
)
from orchestration.outputs import DomainOutputs, Finding, RetrievedChunk
from orchestration.state import QuestionFrame
from orchestration.tools.frame_sql import NOT_PASSED, expiring
from orchestration.tools.results import AnalysisResult, ComparisonResult, SqlPathResult
from orchestration.tools.rows import (
    CleanRuleRow,
    DeviceRow,
    DeviceRuleRow,
    ExceptionRow,
    GroupRow,
    GroupRunRow,
    LastAssessedRow,
    RuleChangeRow,
    RunRow,
    ShareRow,
    SignatureMatchRow,
    SiteChangeRow,
    TopRule,
    day,
)

SHOWN = 100  # rows of a list shown in the chat; the exported trace holds every row the query returned
RP = "assessment_context.report_data.sql_path.rows"


def _pct(part: int, whole: int) -> float:
    return percent(part, whole)


def _total(rows: list[DeviceRow] | list[GroupRow] | list[RuleChangeRow] | list[SiteChangeRow] | list[SignatureMatchRow]) -> int:
    """How many rows the statement has in all (its window count), past a LIMIT or the row cap."""
    return rows[0].total or len(rows) if rows else 0


def _names(ids: list[str], shown: int = 8) -> str:
    """Ids in bold, the first ``shown`` of them, and how many more."""
    bold = [f"**{i}**" for i in ids[:shown]]
    if len(ids) > shown:
        return ", ".join(bold) + f" and {len(ids) - shown} more"
    return ", ".join(bold[:-1]) + " and " + bold[-1] if len(bold) > 1 else "".join(bold)


def rule_ranking(rules: list[TopRule], limit: int | None, where: str) -> str:
    """The rules ranked by failing devices, in the question's size (the top one, or the top N), saying where a tie
    makes the order or the cut arbitrary (the tool orders a tie by severity, then rule id)."""
    n = max(limit or 1, 1)
    shown = rules[:n]
    if n == 1:
        top = shown[0]
        tied = [r.rule_id for r in rules if r.failing_assets == top.failing_assets]
        if len(tied) == 1:
            return f"**{top.rule_id}** ({top.title}) fails on the most devices: {top.failing_assets} ({where})."
        return (f"No single rule leads: {len(tied)} rules fail on {devices(top.failing_assets)} each ({where}): "
                f"{_names(tied)}.")
    items = "; ".join(f"{i}. **{r.rule_id}** ({r.title}) — {devices(r.failing_assets)}"
                      for i, r in enumerate(shown, 1))
    head = f"**Top {len(shown)} rules** by failing devices ({where}): {items}."
    if len(shown) < n:
        head += f" Only {len(shown)} {'rule fails' if len(shown) == 1 else 'rules fail'} in this scope."
    last = shown[-1].failing_assets
    beyond = [r.rule_id for r in rules[n:] if r.failing_assets == last]
    if beyond:
        head += (f" {len(beyond)} more {'rule ties' if len(beyond) == 1 else 'rules tie'} with the last at "
                 f"{devices(last)}: {', '.join(beyond[:8])}{' …' if len(beyond) > 8 else ''} (a tie is ordered by "
                 "severity, then rule id).")
    return head


def _more(shown: int, total: int, noun: str) -> str:
    if total <= shown:
        return ""
    return (f"\n\nShowing the first {shown} of {total} {noun}; the exported trace (JSON) holds every row the query "
            f"returned (at most {ROW_CAP}).")


def _rule_findings(counts: dict[str, list[str]], chunks: list[RetrievedChunk], prefix: str,
                   platforms: dict[str, str], rules: Mapping[str, Rule]) -> list[Finding]:
    """One finding per failing rule of the rows, most devices first, with the fix for their platform."""
    ordered = sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    out = []
    for i, (rule_id, assets) in enumerate(ordered, start=1):
        if rule_id not in rules:
            continue
        platform = platforms.get(assets[0])
        fix = {"remediation": "\n".join(rules[rule_id].fix_for(platform))} if platform else {}
        rule = rule_facts(rules, rule_id, failing_assets=len(assets), **fix)
        out.append(_finding(prefix, i, rule, chunks, RP, "SQL path: frame rows", assets, rules))
    return out


def _not_judged(frame: QuestionFrame, catalog: Mapping[str, Rule]) -> str:
    """The checks asked that the catalog never applies to the device types or platforms the question names
    ("COPP applies to ios-xe routers only"), as one sentence; empty when every check applies."""
    types, platforms = set(frame.filters.device_type), set(frame.filters.platform)
    if not platforms and types and types <= set(PLATFORMS_OF_TYPE):  # "firewalls": ASAs, whatever is not named
        platforms = {p for t in types for p in PLATFORMS_OF_TYPE[t]}
    rules = [r for r in catalog.values() if r.id in (frame.checks or frame.targets.rule)]
    out = [f"{r.id} applies to {'/'.join(r.platforms)} {'/'.join(f'{t}s' for t in r.device_types) or 'devices'} only"
           for r in rules if (types and r.device_types and not types & set(r.device_types))
           or (platforms and not platforms & set(r.platforms))]
    return "; ".join(out) if out and len(out) == len(rules) else ""


def _none_of(assessed: int, judged: int, checks: str, run: str) -> str:
    """The first line of an empty device list with the scope's size: no device there, none judged on the checks,
    or none of the N judged failing them."""
    if not assessed:
        return f"**None.** No device assessed in {run} is in this scope."
    if not judged:  # "which DC2 routers fail BGP-NEIGHBOR-AUTH": none runs BGP, so none is judged on it
        return (f"**None.** {'Neither' if assessed == 2 else 'None'} of the {devices(assessed)} assessed in this "
                f"scope is judged on {checks}: they do not apply to their platform or configuration (no verdict in "
                f"{run}).")
    of = f"judged on {checks} in this scope" if judged < assessed else "assessed in this scope"
    fails = checks if judged == assessed else "it"
    if judged == 1:
        return f"**None.** The only device {of} does not fail {fails} ({run})."
    return f"**None.** {'Neither' if judged == 2 else 'None'} of the {judged} devices {of} fails {fails} ({run})."


def _device_share(judged: int, failing: int, checks: str, polarity: str | None, run: str, some_unjudged: bool) -> str:
    """The share of devices failing (or passing) the checks asked, out of those judged on them."""
    part = judged - failing if polarity == "passes" else failing
    of = f"judged on {checks}" if some_unjudged else "assessed in this scope"
    return (f"**{percent(part, judged):.1f}%** of the {devices(judged)} {of} {'pass' if polarity == 'passes' else 'fail'} "
            f"{checks} ({part} of {judged}, {run}).")


def _device_list(result: SqlPathResult, frame: QuestionFrame, chunks: list[RetrievedChunk],
                 prefix: str, rules: Mapping[str, Rule]) -> DomainOutputs:
    rows = result.rows_as(DeviceRow)
    total = _total(rows)
    what = result.description.split(" in ")[0]
    run = result.assessment_id or "the latest assessment"
    clean = what.startswith("devices failing no ")  # the devices that fail none of the checks asked
    condition = what.startswith("devices failing") and not clean
    passes = frame.ask == "yes_no" and frame.polarity == "passes"
    if not rows:
        named = what.removeprefix("devices failing ")
        scope = result.scope
        first = (f"**None.** No device in scope fails {named} in {run}."
                 if condition else f"**None.** Every device in scope judged on those checks fails at least one "
                 f"({run})." if clean else "No device of the inventory is in this scope.")
        if condition and scope is not None:  # out of how many: none there is not none of them failing
            first = _none_of(scope.assessed, scope.judged, named, run)
        verdicts = scope is None or bool(scope.judged)  # a yes or no needs a device judged on the checks
        if frame.ask == "yes_no" and condition and verdicts:
            first = f"**{'Yes' if passes else 'No'}** — {first.removeprefix('**None.** ')}"
        elif frame.ask == "yes_no" and not condition:  # "is there a firewall at branch-04?"
            first = f"**No** — {first}"
        if frame.ask == "share" and condition and scope is not None and scope.judged:
            first = _device_share(scope.judged, 0, named, frame.polarity, run, scope.judged < scope.assessed)
        unjudged = _not_judged(frame, rules) if scope is None or scope.assessed else ""
        if condition and unjudged:  # "which leaf switches fail copp": none fails because none is judged on it
            first = f"**Not judged.** {unjudged}: no device in this scope has a verdict on it in {run}."
        return DomainOutputs(summary=first, statistics={"row_count": 0, "total": 0})
    names = [r.asset_id for r in rows]
    # "the nx-os boxes failing the most checks": 2 fail any, and the 15 others fail none — said, not hidden
    assessed = rows[0].judged or rows[0].assessed  # out of those the checks asked apply to
    no_verdict = rows[0].assessed - assessed
    others = assessed - total if condition else 0
    rest = (f" (the other {others} of the {assessed} {'judged' if no_verdict > 0 else 'assessed'} in this scope fail "
            f"{'none' if what == 'devices failing any checks' else 'none of them'})" if others > 0 else "")
    if frame.ask == "ranking":
        top = rows[0]
        order = "failed checks" if condition else "critical, then high, then all failed checks"

        def rank_key(r: DeviceRow) -> tuple[int, ...]:
            return (r.failed,) if condition else (r.critical, r.high, r.failed)

        tied = [r.asset_id for r in rows[1:] if rank_key(r) == rank_key(top)]
        figures = f"{top.failed} failed checks ({top.critical} critical, {top.high} high)"
        if tied:  # equal on every figure the order uses: which one is "first" is the tie-break, not the data
            equal = f"{top.failed} failed checks" if condition else figures
            first = f"No single device leads: {_names([top.asset_id, *tied])} tie at {equal} each."
        else:
            first = f"**{top.asset_id}** ({top.site}) comes first: {figures}."
            most = max(rows, key=lambda r: r.failed)
            if not condition and most.failed > top.failed:
                # ranked by severity, the device with the most failures is another: both are "worst", said so
                first += (f" **{most.asset_id}** has the most failed checks: {most.failed} ({most.critical} critical, "
                          f"{most.high} high).")
        if condition and len(rows) == total:  # every device that fails is ranked: "top 2 of 2" says too little
            failing = what.removeprefix("devices failing ")
            first += (f" {'The only device' if total == 1 else f'All {total} devices'} failing {failing}, by "
                      f"{order}{rest}:")
        else:
            first += f" The top {len(rows)} of {total} devices by {order}{rest}:"
    elif frame.ask == "count":
        listed = ", ".join(names[:20]) + (f" and {total - 20} more" if total > 20 else "")
        checks = sum(r.failed for r in rows)  # "how many critical failures": devices, and failed checks
        of = f", {checks:,} failed {plural('check', checks)}" if condition and total == len(rows) else ""
        first = f"**{total}** {'device' if total == 1 else 'devices'} ({what}{of}, {run}): {listed}."
        if others > 0:  # "how many store firewalls fail telnet": out of how many — those the checks apply to
            judged = (f"judged on {what.removeprefix('devices failing ')} in this scope" if no_verdict > 0
                      else "assessed in this scope")
            first = (f"**{total}** of the {assessed} devices {judged} {'fails' if total == 1 else 'fail'} "
                     f"{'it' if no_verdict > 0 else what.removeprefix('devices failing ')} ({run}{of}): {listed}.")
            if no_verdict > 0:
                first += (f" {devices(no_verdict).capitalize()} assessed here {'has' if no_verdict == 1 else 'have'} "
                          "no verdict on it: it does not apply to their platform or configuration.")
    elif frame.ask == "fix" and condition:
        first = f"**{devices(total)}** {'fail' if total > 1 else 'fails'} {what.removeprefix('devices failing ')} ({run})."
    elif frame.ask == "share" and condition:  # "what % of routers fail aaa accounting": of those judged on it
        listed = ", ".join(names[:10]) + (f" and {total - 10} more" if total > 10 else "")
        first = _device_share(assessed, total, what.removeprefix("devices failing "), frame.polarity, run,
                              no_verdict > 0) + f" Failing: {listed}."
    elif frame.ask == "yes_no" and not condition:  # whether such devices exist, and which
        first = f"**Yes** — {devices(total)} in this scope: {', '.join(names[:10])}{' …' if total > 10 else ''}."
    elif frame.ask == "yes_no":
        first = (f"**{'No' if passes else 'Yes'}** — {devices(total)} {'fail' if total > 1 else 'fails'}: "
                 f"{', '.join(names[:10])}{' …' if total > 10 else ''} ({what}, {run}).")
    else:
        first = f"**{total} {'device' if total == 1 else 'devices'}** — {what}, {run}{rest}:"
    unassessed = [r.asset_id for r in rows if not r.was_assessed]
    if unassessed and frame.ask != "ranking":  # the inventory's devices the run did not assess are listed, and said
        first = (f"{first.rstrip(':.')}; {len(rows) - len(unassessed)} assessed in {run}, not assessed: "
                 f"{', '.join(unassessed[:10])}{' …' if len(unassessed) > 10 else ''}.")
    shown = rows[:SHOWN]
    if clean:  # their failure counts are zero by definition: the checks each was judged on say more
        table = markdown.table(["#", "Device", "Site", "Type", "Software", "Checks judged in the run"],
                       [[i, r.asset_id, r.site, r.device_type, r.software, r.checks] for i, r in enumerate(shown, 1)])
    else:
        table = markdown.table(["#", "Device", "Site", "Type", "Software", "Failed", "Critical", "High", "Failing rules"],
                       [[i, r.asset_id, r.site, r.device_type, r.software,
                         *((r.failed, r.critical, r.high, r.failing_rules or "none")
                           if r.was_assessed else ("not assessed", "", "", ""))] for i, r in enumerate(shown, 1)])
    counts: dict[str, list[str]] = {}
    for r in rows:
        for rule in r.rule_ids:
            counts.setdefault(rule, []).append(r.asset_id)
    findings = _rule_findings(counts, chunks, prefix, {r.asset_id: r.platform or "" for r in rows}, rules)
    spread = sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    failing = ("\n\n**What they fail:** " + ", ".join(f"{rule} ({devices(len(on))})" for rule, on in spread) + "."
               if len(spread) > 1 else "")  # every rule, where the table's cells are cut
    if frame.ask == "fix" and findings:
        first += " To fix it, apply:\n\n" + _fixes(findings[:5])
    summary = f"{first}\n\n{table}{_more(len(shown), total, 'devices')}{failing}"
    return DomainOutputs(summary=summary, findings=findings[:15], prioritized_risks=risks(findings, 5),
                         statistics={"row_count": len(rows), "total": total, "rows_listed": names[:SHOWN],  # in order
                                     "devices_listed": names if total == len(rows) else []})


def _group_compare(result: SqlPathResult, frame: QuestionFrame) -> DomainOutputs:
    rows = result.rows_as(GroupRow)
    label, _, order = result.description.split(" in ")[0].removeprefix("per ").partition(" by ")
    run = result.assessment_id or "the latest assessment"
    if not rows and " without failed " in label:
        noun, _, checks = label.partition(" without failed ")
        return DomainOutputs(summary=f"**None.** Every {noun} judged on {checks} fails at least one of them ({run}).",
                             statistics={"row_count": 0})
    if not rows:
        return DomainOutputs(summary=f"No results in this scope in {run}.", statistics={"row_count": 0})
    if frame.ask == "compare" and len(rows) >= 2:
        a, b = rows[0], rows[1]
        sides = " · ".join(f"**{r.group_key}**: {r.failed:,} failed of {r.checks:,} "
                           f"({r.pass_rate}% pass), {r.critical} critical"
                           + ("" if label == "device" else f", {devices(r.devices)}") for r in rows)
        worse = max(rows, key=lambda r: (100 - r.pass_rate, r.failed))
        first = f"{sides} ({run}). {worse.group_key} is worse by pass rate."
        missing = ""
        if len(rows) == 1 or (a is b):
            missing = " Only one side has results in this scope."
        first += missing
    elif frame.ask == "compare":
        first = (f"Only **{rows[0].group_key}** has results in this scope in {run}: the other side of the "
                 "comparison has no assessed devices.")
    elif " without failed " in label:  # "the sites with no critical findings"
        noun, _, checks = label.partition(" without failed ")
        first = (f"**{_total(rows)} {noun}{'' if _total(rows) == 1 else 's'}** fail no {checks.removesuffix(' checks')} "
                 f"check ({run}): {_names([str(r.group_key) for r in rows], 20)}.")
        label = noun
    elif frame.ask == "share":  # "pass rate per site type": each group's rate, lowest first
        fails = frame.polarity == "fails"
        ordered = sorted(rows, key=lambda r: (r.pass_rate, str(r.group_key)))
        rates = " · ".join(f"**{r.group_key}** {round(100 - r.pass_rate, 1) if fails else r.pass_rate}%"
                           for r in ordered[:10])
        more = f" and {len(ordered) - 10} more in the table" if len(ordered) > 10 else ""
        low, high = ordered[0], ordered[-1]
        first = (f"**{low.group_key}** has the lowest pass rate ({low.pass_rate}%), **{high.group_key}** the highest "
                 f"({high.pass_rate}%). {'Share of checks failing' if fails else 'Pass rate'} per {label} ({run}), "
                 f"lowest pass rate first: {rates}{more}.")
    elif frame.ask == "count":  # "how many critical findings in prod vs staging": each side, and the sum
        failed = sum(r.failed for r in rows)
        sides = " · ".join(f"**{r.group_key}** {r.failed:,}" for r in rows)
        first = f"**{failed:,}** failed checks in this scope ({run}): {sides}."
    elif order.endswith("pass rate"):  # "which role has the worst pass rate": ranked by the rate
        end = order.split()[0]  # lowest or highest
        low = rows[0]
        most = max(rows, key=lambda r: (r.failed, str(r.group_key)))
        first = f"**{low.group_key}** has the {end} pass rate: {low.pass_rate}% ({low.failed:,} failed of {low.checks:,})."
        if most.group_key != low.group_key and end == "lowest":  # a bigger group can fail more at a better rate
            first += f" **{most.group_key}** fails the most checks: {most.failed:,} ({most.pass_rate}% pass)."
        shown = (f"The {len(rows)} {end} of {_total(rows)} {label}s" if len(rows) < _total(rows)
                 else f"Every {label}")
        first += f" {shown} by pass rate, {end} first ({run}):"
    else:
        top = rows[0]
        shown = (f"The {len(rows)} with the most failed checks of {_total(rows)} {label}s" if len(rows) < _total(rows)
                 else f"Every {label} by failed checks")
        tied = [r for r in rows[1:] if r.failed == top.failed]
        if tied:  # equal on the figure the order uses: which one is "first" is the tie-break, not the data
            first = (f"No single {label} leads: {_names([str(r.group_key) for r in [top, *tied]])} tie at "
                     f"{top.failed} failed checks each.")
        else:
            first = (f"**{top.group_key}** has the most failed checks: {top.failed} ({top.pass_rate}% pass, "
                     f"{top.critical} critical).")
        lowest = min(rows, key=lambda r: (r.pass_rate, -r.failed))
        if lowest.group_key != top.group_key and lowest.pass_rate < top.pass_rate:
            # "which branch has the worst pass rate": a smaller site can fail fewer checks at a lower rate
            first += (f" The lowest pass rate is **{lowest.group_key}**'s: {lowest.pass_rate}% ({lowest.failed} failed of "
                      f"{lowest.checks:,}).")
        first += f" {shown} ({run}):"
    table = markdown.table([label.capitalize(), "Devices", "Checks", "Failed", "Pass rate", "Critical", "Devices failing"],
                   [[r.group_key, r.devices, r.checks, r.failed, f"{r.pass_rate}%", r.critical, r.devices_failing]
                    for r in rows[:SHOWN]])
    return DomainOutputs(summary=f"{first}\n\n{table}{_more(min(len(rows), SHOWN), _total(rows), label + 's')}",
                         statistics={"row_count": len(rows), "rows": [r.model_dump() for r in rows[:SHOWN]]})


def _run_series(result: SqlPathResult, frame: QuestionFrame) -> DomainOutputs:
    rows = list(reversed(result.rows_as(RunRow)))  # read newest first (for "the last N"); shown oldest first
    if not rows:
        return DomainOutputs(summary="No assessment run falls in the time asked for.", statistics={"row_count": 0})
    first, last = rows[0], rows[-1]
    delta = round(last.pass_rate - first.pass_rate, 1)
    if len(rows) == 1:
        head = (f"Only one run falls in the time asked for: {first.assessment_id} ({first.run_date}), "
                f"{first.pass_rate}% pass, {first.failed:,} failed checks.")
    else:
        # "how many critical findings each month": the failed checks of that kind per run are the figures asked
        narrow = bool(frame.filters.severity or frame.checks)
        change = last.failed - first.failed
        direction = ("improved" if change < 0 else "worsened" if change > 0 else "held steady") if narrow else \
            "improved" if delta > 0 else "worsened" if delta < 0 else "held steady"
        said = f"**{direction.capitalize()}**"
        if frame.polar and frame.direction:  # "did it get worse since september?": Yes/No, then how
            said = f"**{'Yes' if direction == {'worse': 'worsened', 'better': 'improved'}[frame.direction] else 'No'}** — {direction}"
        if narrow:
            kind = " or ".join(frame.filters.severity) + " " if frame.filters.severity else ""
            checks = f" ({', '.join(frame.checks[:4])}{' …' if len(frame.checks) > 4 else ''})" if frame.checks else ""
            head = (f"{said}: failed {kind}checks{checks} per run " + " → ".join(f"**{r.failed:,}**" for r in rows)
                    + f" ({first.run_date} → {last.run_date}), {change:+,} over {len(rows)} runs; the pass rate of "
                    f"those checks {first.pass_rate}% → {last.pass_rate}%.")
        else:
            head = (f"{said}: the pass rate went from {first.pass_rate}% ({first.run_date}) to "
                    f"{last.pass_rate}% ({last.run_date}), {delta:+.1f} points; failed checks {first.failed:,} → "
                    f"{last.failed:,} over {len(rows)} runs.")
    table = markdown.table(["Run", "Date", "Devices", "Checks", "Failed", "Pass rate", "Critical", "High"],
                   [[r.assessment_id, r.run_date, r.devices, r.checks, r.failed, f"{r.pass_rate}%", r.critical, r.high]
                    for r in rows])
    return DomainOutputs(summary=f"{head}\n\n{table}", statistics={
        "row_count": len(rows), "series": [r.model_dump() for r in rows], "deltas": [delta]})


def _group_series(result: SqlPathResult, frame: QuestionFrame) -> DomainOutputs:
    """Each group's series side by side: the groups as rows, the runs as columns (failed checks, pass rate); the
    groups that moved most first — worse first for "got worse", better first for "improved"."""
    rows = result.rows_as(GroupRunRow)
    if not rows:
        return DomainOutputs(summary="No assessment run falls in the time asked for.", statistics={"row_count": 0})
    runs = sorted({(r.started_at, r.assessment_id, r.run_date) for r in rows}, key=lambda x: str(x[0]))
    per: dict[str, dict[str, GroupRunRow]] = {}
    for r in rows:
        per.setdefault(r.group_key or "(none)", {})[r.assessment_id] = r
    first_id, last_id = runs[0][1], runs[-1][1]
    both = {g: (s[first_id], s[last_id]) for g, s in per.items() if first_id in s and last_id in s}

    def change(g: str) -> float:
        return round(both[g][1].pass_rate - both[g][0].pass_rate, 1)

    order = sorted(both, key=lambda g: (change(g), g) if frame.direction != "better" else (-change(g), g))
    label = result.description.removeprefix("failed checks per ").split(" and ")[0]
    if frame.direction and len(runs) > 1:
        # "which sites had their pass rate drop": only those that moved the way asked (the rest are not the answer)
        order = [g for g in order if (change(g) < 0 if frame.direction == "worse" else change(g) > 0)]
        per = {g: per[g] for g in order}
        if not order:
            return DomainOutputs(summary=f"**None** — no {label} {'got worse' if frame.direction == 'worse' else 'improved'}"
                                         f" between {runs[0][1]} and {runs[-1][1]} (pass rate).",
                                 statistics={"row_count": len(rows), "groups": 0})
    if len(runs) == 1:
        head = f"Only one run falls in the time asked for: {runs[0][1]} ({runs[0][2]}), per {label} below."
    else:
        moved = ", ".join(f"**{g}** {both[g][0].pass_rate}% → {both[g][1].pass_rate}% ({change(g):+.1f} points; "
                          f"failed {both[g][0].failed:,} → {both[g][1].failed:,})" for g in order[:6])
        opening = (f"**{len(order)} {plural(label, len(order))}** {'got worse' if frame.direction == 'worse' else 'improved'}"
                   if frame.direction else f"Per {label}")
        head = (f"{opening}, {runs[0][1]} ({runs[0][2]}) → {runs[-1][1]} ({runs[-1][2]}), {len(runs)} runs, "
                f"{'worst change' if frame.direction != 'better' else 'best change'} first: {moved}"
                f"{f' and {len(order) - 6} more' if len(order) > 6 else ''}.")
    groups = sorted(per, key=lambda g: order.index(g) if g in order else len(order))
    table = markdown.table([label.capitalize(), *(f"{d} failed (pass rate)" for _, _, d in runs)],
                           [[g, *(f"{per[g][a].failed:,} ({per[g][a].pass_rate}%)" if a in per[g] else "—"
                                  for _, a, _ in runs)] for g in groups[:SHOWN]])
    return DomainOutputs(summary=f"{head}\n\n{table}", statistics={
        "row_count": len(rows), "series": [r.model_dump() for r in rows], "groups": len(per)})


def _exception_list(result: SqlPathResult, frame: QuestionFrame) -> DomainOutputs:
    rows = result.rows_as(ExceptionRow)
    when = expiring(frame.time)
    if not rows:
        checks = frame.targets.rule or frame.checks
        if (frame.polar or frame.ask == "exception") and checks:  # "is ASA-MGMT-ANY excepted anywhere?"
            return DomainOutputs(summary=f"**No** — no approved exception{when} covers {', '.join(checks)}: every "
                                         f"failure of it counts.", statistics={"row_count": 0})
        return DomainOutputs(summary=f"**None.** No approved exception{when} matches this question.",
                             statistics={"row_count": 0})
    n = len(rows)
    ids = ", ".join(f"{r.exception_id} ({r.rule_id}, expires {day(r.expires_on)})" for r in rows[:10])
    first = f"**{n} approved exception{'s' if n != 1 else ''}**{when}: {ids}{' …' if n > 10 else ''}."
    about = bool(frame.targets.device or frame.targets.rule or frame.checks or any(frame.filters.model_dump().values()))
    last = frame.expiring == "last"
    soonest = sorted(rows, key=lambda r: str(r.expires_on), reverse=last)
    # "which one expires first" (or last), of all of them or of those named
    if frame.limit == 1 and n > 1 and (not frame.targets.exception or frame.expiring):
        tied = [r for r in soonest if str(r.expires_on) == str(soonest[0].expires_on)]
        first = (f"{_names([r.exception_id for r in tied])} {'expires' if len(tied) == 1 else 'expire'} "
                 f"{'last' if last else 'first'}, on **{day(tied[0].expires_on)}** "
                 f"({', '.join(f'{r.rule_id}, {r.sites}' for r in tied)}); {'before it' if last else 'then'} "
                 + ", ".join(f"{r.exception_id} ({day(r.expires_on)})" for r in soonest[len(tied):len(tied) + 4])
                 + f" — of {n} approved exceptions{when}.")
    elif frame.polar and not about:  # "any exceptions expiring before the end of the year?": whether there are, which
        first = f"**Yes** — {n} approved exception{'s' if n != 1 else ''}{when}: {ids}{' …' if n > 10 else ''}."
    elif frame.polar:  # "is that covered by the POS exception?": Yes or No first, by the devices it covers there
        covering = [r for r in rows if r.devices_covered > 0]
        first = (f"**Yes** — covered by {', '.join(f'{r.exception_id} ({r.rule_id}, expires {day(r.expires_on)})' for r in covering)}"
                 f" for {sum(r.devices_covered for r in covering)} of the devices asked about."
                 if covering else f"**No** — no approved exception covers the devices and checks asked about "
                                  f"({ids}{' …' if n > 10 else ''} cover none of them).")
    elif frame.targets.exception:  # "which devices does the lab exception cover": a named one's devices, by name
        covered = sorted({d for r in rows for d in _names_of(r.covered_devices)})
        devices_said = (f"{len(covered)} device{'s' if len(covered) != 1 else ''}" + (f": {', '.join(covered)}"
                        if covered else "")) if covered else "no device"
        if n == 1 and frame.ask not in ("list", "count"):
            # "what rule is it for", "which sites does it cover", "who approved it", "when does it expire": the one
            # exception's rule, sites, date and approver, then the devices it covers
            r = rows[0]
            kind = "every device type" if r.device_type in ("any", None) else plural(r.device_type.replace("_", " "))
            first = (f"**{r.exception_id}** covers **{r.rule_id}** ({r.title}) on {kind} at "
                     f"{', '.join(_names_of(r.sites))}; it expires **{day(r.expires_on)}** and was approved by "
                     f"{r.approved_by}. In this run it covers {devices_said}.")
        elif n > 1:
            # "which devices do EXC-2026-021 and EXC-2026-007 cover", "who approved them": each one's devices, beside
            # its check, approver and date (the reader reads "who" or "which devices" alike: both are said)
            each = "; ".join(
                f"**{r.exception_id}** ({r.rule_id}, approved by {r.approved_by}, expires {day(r.expires_on)}): "
                + (_few(_names_of(r.covered_devices)) or "no device") for r in rows[:10])
            first = f"**{len(covered)} device{'s' if len(covered) != 1 else ''}** covered — {each}" + \
                (" …" if n > 10 else ".")
        else:
            if n == 1:  # "which devices does the lab exception cover": its devices, beside its when and who
                r = rows[0]
                ids = f"{r.exception_id} ({r.rule_id}, expires **{day(r.expires_on)}**, approved by {r.approved_by})"
            first = (f"**{len(covered)} device{'s' if len(covered) != 1 else ''}** covered by {ids}: "
                     f"{', '.join(covered)}." if covered else f"**No device** is covered in this run by {ids}.")
    table = markdown.table(["Exception", "Rule", "Sites", "Device type", "Expires", "Devices covered", "Approved by", "Source"],
                   [[r.exception_id, f"{r.rule_id} — {r.title}", r.sites, r.device_type, day(r.expires_on),
                     _covered_cell(r), r.approved_by, r.source_document] for r in rows[:SHOWN]])
    reasons = "\n".join(f"- {r.exception_id}: {markdown.cell(r.reason, 240)}" for r in rows[:10])
    return DomainOutputs(summary=f"{first}\n\n{table}\n\nWhy each was approved:\n\n{reasons}",
                         statistics={"row_count": n})


def _few(names: Sequence[str], shown: int = 6) -> str:
    """Names in a sentence: the first few, then how many more."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _names_of(listed: str | None) -> list[str]:
    return sorted(n.strip() for n in (listed or "").split(",") if n.strip())


def _covered_cell(row: ExceptionRow) -> str:
    """The devices an exception covers: named when few, counted when many."""
    names = _names_of(row.covered_devices)
    return ", ".join(names) if 0 < len(names) <= 6 else str(row.devices_covered)


def _device_rules(result: SqlPathResult, frame: QuestionFrame, chunks: list[RetrievedChunk], rules: Mapping[str, Rule],
                  prefix: str) -> DomainOutputs:
    rows = result.rows_as(DeviceRuleRow)
    run = result.assessment_id or "the latest assessment"
    every = NOT_PASSED in result.description  # no rule named: the device's checks it does not pass
    if not rows:
        if every:
            device = result.description.split(f"{NOT_PASSED} of ")[1].split(" in ")[0]
            return DomainOutputs(summary=f"**No exception is needed** — {device} fails no check in {run}.",
                                 statistics={"row_count": 0})
        return DomainOutputs(summary=f"None of the rules asked about apply to this device in {run}: it was not "
                                     "judged on them.", statistics={"row_count": 0})
    failing = [r for r in rows if r.status == "fail"]
    excepted = [r for r in rows if r.status == "exception"]
    device = rows[0].asset_id
    named = frame.targets.exception
    by_named = [e for e in excepted if e.exception_id in named]
    if frame.ask == "exception" and named and not by_named:
        # "does the POS exception also cover the public community on RTR-CORE-1?": about that exception — it covers
        # none of the checks asked there; what does (another exception) or fails is said after the No
        asked = ", ".join(dict.fromkeys(r.rule_id for r in rows))
        first = f"**No** — {', '.join(named)} does not cover {asked} on {device}."
        if failing:
            first += (f" {', '.join(r.rule_id for r in failing)} {'fails' if len(failing) == 1 else 'fail'} there with "
                      "no approved exception: the fix is below.")
        others = [e for e in excepted if e.exception_id not in named]
        if others:
            first += " " + "; ".join(f"{e.rule_id} is covered by another exception, {e.exception_id} (expires "
                                     f"{day(e.expires_on)})" for e in others) + "."
    elif frame.ask == "exception":
        covered = "; ".join(f"{e.rule_id} is covered by approved exception {e.exception_id} (expires "
                            f"{day(e.expires_on)})" for e in excepted)
        if excepted and failing:  # some of what it fails is covered, the rest is not
            one = len(failing) == 1
            first = (f"**Partly** — on {device}, {covered}; {', '.join(r.rule_id for r in failing)} "
                     f"{'fails' if one else 'fail'} and no approved exception covers {'it' if one else 'them'}: "
                     f"{'it needs' if one else 'they need'} the fixes below.")
        elif excepted:
            e = excepted[0]
            first = (f"**Yes** — {e.rule_id} on {device} is covered by approved exception {e.exception_id} "
                     f"(expires {day(e.expires_on)}): nothing to fix until then.") if len(excepted) == 1 else (
                f"**Yes** — on {device}, {covered}: nothing to fix until then.")
        elif failing:
            first = (f"**No** — {device} fails {', '.join(r.rule_id for r in failing)} and no approved exception "
                     "covers it: it needs the fix below.")
        else:
            first = f"**No exception is needed** — {device} passes {', '.join(r.rule_id for r in rows)}."
    else:
        bad = failing + excepted
        verdict = "fails" if bad else "passes"
        subject = ", ".join(r.rule_id for r in (bad or rows))
        yes = not bad if frame.polarity == "passes" else bool(bad)
        first = f"**{'Yes' if yes else 'No'}** — {device} {verdict} {subject} in {run}."
        if excepted:
            first += " " + "; ".join(f"{r.rule_id} is covered by approved exception {r.exception_id} (expires "
                                     f"{day(r.expires_on)})" for r in excepted) + "."
    unjudged = [c for c in frame.checks if c not in {r.rule_id for r in rows}]
    if unjudged:  # a check of the topic that does not apply to this platform: the verdict above does not cover it
        first += (f" {', '.join(unjudged)} {'is' if len(unjudged) == 1 else 'are'} not judged on {device} "
                  f"({rows[0].platform}): {'that check does' if len(unjudged) == 1 else 'those checks do'} not "
                  "apply to its platform.")
    table = markdown.table(["Rule", "Check", "Verdict", "Severity", "Exception"],
                   [[r.rule_id, r.title, r.status, r.severity,
                     f"{r.exception_id} (expires {day(r.expires_on)})" if r.exception_id else "—"] for r in rows])
    counts = {r.rule_id: [device] for r in failing}
    findings = _rule_findings(counts, chunks, prefix, {}, rules)
    fixed = []
    proofs: dict[str, str] = {}
    for f in findings:
        row = next(r for r in failing if r.rule_id == f.rule_id)
        own = result.fixes.get(f.rule_id)
        if own is not None and own.commands:  # written from the device's evidence, re-judged on its configuration
            fix = "\n".join(own.commands)
            proofs[f.rule_id] = (f"Verified on {device}'s patched configuration: {f.rule_id} passes, no other check "
                                 "is worse and a way in for an administrator is kept"
                                 + (f" — {own.note}." if own.note else ".") if own.verified
                                 else f"Not verified on {device}: {own.note}.")
        else:
            fix = "\n".join(rules[f.rule_id].fix_for(row.platform or "")) if f.rule_id in rules else f.recommendation
            proofs[f.rule_id] = (f"This is the catalog's fix for {row.platform}, not verified on {device}: "
                                 + (own.note if own is not None else "its configuration is not in the warehouse") + ".")
        fixed.append(f.evolve(evidence=row.evidence or None, evidence_device=device, recommendation=fix))
    findings = fixed
    if frame.ask == "explain":  # "why does FW-ST30-1 fail ASA-TELNET": the lines that fail it, and why that matters
        first = _why(device, run, failing + excepted, rows, rules) + ("\n\n**Fix**\n\n" + _fixes(findings, proofs)
                                                                    if findings else "")
    if frame.ask == "fix":  # "how do I fix SNMP-DEFAULT-COMM on SW-1": the commands first
        first = (f"**To fix {', '.join(f.rule_id for f in findings)} on {device}** ({run}), apply:\n\n"
                 + _fixes(findings, proofs) if findings else
                 f"**Nothing to fix** — {device} passes {', '.join(r.rule_id for r in rows)} in {run}.")
    return DomainOutputs(summary=f"{first}\n\n{table}", findings=findings, prioritized_risks=risks(findings, 5),
                         statistics={"row_count": len(rows)})


def _why(device: str, run: str, bad: list[DeviceRuleRow], rows: list[DeviceRuleRow], rules: Mapping[str, Rule]) -> str:
    """Why a device fails the checks asked: per check, its own configuration lines (the evidence) and the catalog's
    reason the check exists; "it does not fail" when it passes them all."""
    if not bad:
        return f"**{device} does not fail {', '.join(r.rule_id for r in rows)}** — it passes in {run}."
    parts = []
    for r in bad:
        rule = rules.get(r.rule_id)
        reason = (rule.rationale if rule is not None else "") or ""
        covered = f"; covered by approved exception {r.exception_id}" if r.status == "exception" else ""
        deviation = deviation_title(rules, r.rule_id, r.title)
        evidence = f"\n\n```\n{r.evidence}\n```" if r.evidence else ""
        parts.append(f"**{r.rule_id}** fails on {device} ({r.severity}{covered}) — {deviation}. What the check found "
                     f"in its configuration ({run}):{evidence}" + (f"\n\nWhy it matters: {reason}" if reason else ""))
    return "\n\n".join(parts)


def _fixes(findings: list[Finding], proofs: dict[str, str] | None = None) -> str:
    """Each rule's commands in a code block, under its rule id when there are several, with what proves them."""
    blocks = [(f"{f.rule_id} — {f.title}:\n\n" if len(findings) > 1 else "") + f"```\n{f.recommendation}\n```"
              + (f"\n{(proofs or {})[f.rule_id]}" if f.rule_id in (proofs or {}) else "")
              for f in findings if f.recommendation]
    return "\n\n".join(blocks)


def _signature_matches(result: SqlPathResult, frame: QuestionFrame) -> DomainOutputs:
    rows = result.rows_as(SignatureMatchRow)
    when = result.description.removeprefix("SLIC matches in ")
    named = ", ".join(frame.targets.signature) or "any SLIC signature"
    if not rows:
        return DomainOutputs(summary=f"**No** — {named} matched no device in {when}.", statistics={"row_count": 0})
    boxes = list(dict.fromkeys(r.asset_id for r in rows))
    titles = "; ".join(dict.fromkeys(f"{r.signature_id} ({r.title})" for r in rows))
    total = _total(rows)
    matches = f"{total} SLIC match{'es' if total != 1 else ''}"
    # "how many boxes show brute force logins": the devices, the matches beside ("slic matches on nx-os"); "any …?": yes
    lead = "Yes" if frame.ask not in ("count", "list") else devices(len(boxes))
    first = (f"**{lead}** — {titles}: {matches} on {devices(len(boxes))} in {when}: "
             f"{', '.join(boxes[:20])}{' …' if len(boxes) > 20 else ''}.")
    statistics = {"row_count": len(rows), "devices_listed": boxes}
    if frame.ask == "count":  # "how many boxes show brute force logins": the number and the names, each match on ask
        ids = " or ".join(dict.fromkeys(r.signature_id for r in rows))
        return DomainOutputs(summary=f"{first}\n\nAsk \"which devices match {ids}?\" for each one's evidence.",
                             statistics=statistics)
    table = markdown.table(["Signature", "Device", "Site", "Severity", "Run", "Evidence"],
                   [[r.signature_id, r.asset_id, r.site, r.severity, r.assessment_id, r.evidence] for r in rows[:SHOWN]])
    return DomainOutputs(summary=f"{first}\n\n{table}{_more(min(len(rows), SHOWN), _total(rows), 'matches')}",
                         statistics=statistics)


def _inventory_share(result: SqlPathResult) -> DomainOutputs:
    (row,) = result.rows_as(ShareRow)
    part, population = row.part, row.population
    pct = _pct(part, population)
    first = (f"**{pct}%** — {part} of the {devices(population)} in scope are on {result.description} "
             "(current inventory)." if population else "No device of the inventory is in this scope.")
    return DomainOutputs(summary=first, statistics={"row_count": 1, "part": part, "population": population})


def _rule_changes(result: SqlPathResult, frame: QuestionFrame) -> DomainOutputs:
    rows = result.rows_as(RuleChangeRow)
    said = result.description.split(", by ")[0]  # "checks that got worse"
    if not rows:
        return DomainOutputs(summary=f"**None.** No {said.removeprefix('checks ')} check: the failing devices per "
                                     "check are the same in the first and the last run of the time asked (or "
                                     "fewer than two runs fall in it).", statistics={"row_count": 0})
    top = rows[0]
    total = _total(rows)
    span = f"{top.first_run} ({day(top.first_date)}) → {top.last_run} ({day(top.last_date)})"
    items = ", ".join(f"**{r.rule_id}** ({r.before_devices} → {r.after_devices} devices)" for r in rows[:8])
    first = (f"**{total} {'check' if total == 1 else 'checks'}** {said.removeprefix('checks ')}, {span}: {items}"
             f"{f' and {total - 8} more' if total > 8 else ''}.")
    table = markdown.table(["Rule", "Check", "Severity", "Failing devices before", "Failing devices after", "Change"],
                   [[r.rule_id, r.title, r.severity, r.before_devices, r.after_devices, f"{r.change:+d}"]
                    for r in rows[:SHOWN]])
    return DomainOutputs(summary=f"{first}\n\n{table}{_more(min(len(rows), SHOWN), total, 'checks')}",
                         statistics={"row_count": len(rows), "total": total})


def _site_changes(result: SqlPathResult, frame: QuestionFrame) -> DomainOutputs:
    rows = result.rows_as(SiteChangeRow)
    said = result.description.split(", by ")[0].removeprefix("sites ")  # "that got worse"
    by_failed = result.description.endswith("failed checks")
    if not rows:
        return DomainOutputs(summary=f"**None.** No site {said.removeprefix('that ')}: each site's "
                                     f"{'failed checks are' if by_failed else 'pass rate is'} the same in the first "
                                     "and the last run of the time asked (or fewer than two runs fall in it).",
                             statistics={"row_count": 0})

    def moved(r: SiteChangeRow) -> str:
        rate = f"{r.before_rate}% → {r.after_rate}% ({r.after_rate - r.before_rate:+.1f} points)"
        failed = f"{r.before_failed:,} → {r.after_failed:,} failed checks ({r.change:+,})"
        return f"{failed}, pass rate {rate}" if by_failed else f"pass rate {rate}, {failed}"

    top, total = rows[0], _total(rows)
    span = f"{top.first_run} ({day(top.first_date)}) → {top.last_run} ({day(top.last_date)})"
    count = f"**{total} {plural('site', total)}** {said.removeprefix('that ').replace('got better', 'improved')}, {span}"
    if frame.ask == "ranking":  # "which branch improved the most": the one first, then how many and the next ones
        nxt = ", ".join(f"{r.site} ({r.after_rate - r.before_rate:+.1f} points)" if not by_failed
                        else f"{r.site} ({r.change:+,})" for r in rows[1:4])
        first = f"{count}: **{top.site}** the most — {moved(top)}" + (f"; then {nxt}" if nxt else "") + "."
    else:
        items = ", ".join(f"**{r.site}** ({r.before_rate}% → {r.after_rate}%)" if not by_failed
                          else f"**{r.site}** ({r.before_failed:,} → {r.after_failed:,})" for r in rows[:8])
        first = f"{count}: {items}{f' and {total - 8} more' if total > 8 else ''}."
    table = markdown.table(["Site", "Failed checks before", "Failed checks after", "Change", "Pass rate before",
                            "Pass rate after"],
                           [[r.site, r.before_failed, r.after_failed, f"{r.change:+d}", f"{r.before_rate}%",
                             f"{r.after_rate}%"] for r in rows[:SHOWN]])
    return DomainOutputs(summary=f"{first}\n\n{table}{_more(min(len(rows), SHOWN), total, 'sites')}",
                         statistics={"row_count": len(rows), "total": total})


def _judged_by_standard(out: DomainOutputs, checks: list[str], chunks: list[RetrievedChunk],
                        rules: Mapping[str, Rule]) -> DomainOutputs:
    """"is RTR-CORE-1 compliant with our aaa standard": the verdict on the checks asked, and the company standard
    among the retrieved documents that names them, cited beside the verdict — with what that verdict cannot
    cover (a requirement of the standard that no check reads)."""
    kept = [c for c in chunks if c.metadata.topic == "approved_configurations"]
    standards: dict[str, RetrievedChunk] = {}
    for rule_id in checks:
        for c in chunks_for_rule(kept, rule_id, rules, rules[rule_id].technology if rule_id in rules else None)[0]:
            standards.setdefault(c.metadata.source, c)
    if not standards:
        return out
    named = " and ".join(f"*{c.metadata.title or c.metadata.source}* ⟦{c.metadata.chunk_id}⟧"
                         for c in list(standards.values())[:2])
    lead, _, rest = out.summary.partition("\n\n")
    through = ", ".join(checks[:-1]) + (" and " if len(checks) > 1 else "") + checks[-1]
    said = (f"{lead}\n\nJudged against {named} through the assessment's {through} "
            f"{plural('check', len(checks))}; a requirement of the standard that no check reads (a server address, a "
            "key) is not judged here." + (f"\n\n{rest}" if rest else ""))
    return out.model_copy(update={"summary": said, "enterprise_context_applied": [
        *out.enterprise_context_applied, *(applied(c) for c in list(standards.values())[:2])]})


def _clean_rules(result: SqlPathResult) -> DomainOutputs:
    """"which checks does every device pass?": the checks no device in scope fails, most severe first, each with the
    devices judged on it (a check judged on one device passes "everywhere" on little)."""
    rows = result.rows_as(CleanRuleRow)
    run = result.assessment_id or "the latest assessment"
    if not rows:
        return DomainOutputs(summary=f"**None.** Every check judged in this scope fails on at least one device ({run}).",
                             statistics={"row_count": 0, "total": 0})
    total, judged = rows[0].total, rows[0].rules_judged
    few = [r.rule_id for r in rows if r.judged == 1]
    first = (f"**{total} of the {judged} checks** judged in this scope pass on every device judged on them ({run}): "
             + _names([r.rule_id for r in rows], 12) + "."
             + (f" {_names(few, 6)} {'is' if len(few) == 1 else 'are'} judged on one device only." if few else ""))
    table = markdown.table(["#", "Check", "Title", "Severity", "Devices judged"],
                   [[i, r.rule_id, r.title or "", r.severity or "", r.judged] for i, r in enumerate(rows[:SHOWN], 1)])
    return DomainOutputs(summary=f"{first}\n\n{table}{_more(min(len(rows), SHOWN), total, 'checks')}",
                         statistics={"row_count": len(rows), "total": total})


def _last_assessed(result: SqlPathResult) -> DomainOutputs:
    """"when was RTR-CORE-1 last assessed?": the date first; devices grouped by the run that last assessed them."""
    rows = result.rows_as(LastAssessedRow)
    if not rows:
        return DomainOutputs(summary="No device of the inventory is in this scope.", statistics={"row_count": 0})
    latest = day(rows[0].latest_run_at)
    runs: dict[str | None, list[LastAssessedRow]] = {}
    for r in rows:
        runs.setdefault(r.assessment_id, []).append(r)
    assessed = [(run, group) for run, group in runs.items() if run is not None]
    if len(runs) == 1 and assessed:
        run, group = assessed[0]
        when = day(group[0].started_at)
        who = group[0].asset_id if len(group) == 1 else f"all {len(group)} devices in scope"
        first = (f"**{when}** — {who} {'was' if len(group) == 1 else 'were'} last assessed in {run} ({when})"
                 + (", the latest run." if when == latest else f"; the latest run started {latest}."))
    else:  # "when was the last assessment?": the latest run, then the devices it did not assess
        current = next(((run, group) for run, group in assessed if day(group[0].started_at) == latest), None)
        earlier = [(run, group) for run, group in assessed if current is None or run != current[0]]
        first = (f"**{latest}** — the latest run, {current[0]}, assessed {len(current[1])} of the {len(rows)} devices "
                 "in scope" if current else f"**{latest}** is the latest run; none of the {len(rows)} devices in scope "
                 "was in it")
        parts = [f"{_names([r.asset_id for r in group], 6)} in {run} ({day(group[0].started_at)})"
                 for run, group in earlier]
        never = runs.get(None, [])
        if never:
            parts.append(f"never: {_names([r.asset_id for r in never], 6)}")
        first += ("; last assessed earlier: " + "; ".join(parts) if parts else "") + "."
    table = markdown.table(["Device", "Site", "Last assessed in", "Date"],
                   [[r.asset_id, r.site, r.assessment_id or "never", day(r.started_at) or "—"] for r in rows[:SHOWN]])
    return DomainOutputs(summary=f"{first}\n\n{table}{_more(min(len(rows), SHOWN), len(rows), 'devices')}",
                         statistics={"row_count": len(rows)})


def answer(result: SqlPathResult, frame: QuestionFrame, chunks: list[RetrievedChunk], prefix: str,
           rules: Mapping[str, Rule]) -> DomainOutputs | None:
    """The answer of a frame template's rows, or None for other SQL-path templates (``rules``: the rule catalog by id,
    for the checks' words and fixes)."""
    template = result.template
    if template == "device_list" and frame.checks:
        return _judged_by_standard(_device_list(result, frame, chunks, prefix, rules), frame.checks, chunks, rules)
    if template == "device_rules" and frame.checks:
        return _judged_by_standard(_device_rules(result, frame, chunks, rules, prefix), frame.checks, chunks, rules)
    if template == "group_compare":
        return _group_compare(result, frame)
    if template == "run_series":
        return _run_series(result, frame)
    if template == "group_series":
        return _group_series(result, frame)
    if template == "exception_list":
        return _exception_list(result, frame)
    if template == "device_list":
        return _device_list(result, frame, chunks, prefix, rules)
    if template == "device_rules":
        return _device_rules(result, frame, chunks, rules, prefix)
    if template == "signature_matches":
        return _signature_matches(result, frame)
    if template == "inventory_share":
        return _inventory_share(result)
    if template == "rule_changes":
        return _rule_changes(result, frame)
    if template == "site_changes":
        return _site_changes(result, frame)
    if template == "last_assessed":
        return _last_assessed(result)
    if template == "clean_rules":
        return _clean_rules(result)
    return None


def _changed_issues(result: ComparisonResult, asked: Sequence[str], rules: Mapping[str, Rule]) -> str:
    """"what got fixed on RTR-CORE-1 since the previous run", "new issues at the stores": the failed checks that
    appeared or were resolved between the two runs, counted and listed (device, check), before the totals."""
    m, d = result.metrics, result.detailed_findings
    prev, cur = result.previous_assessment_id, result.current_assessment_id
    kinds = {"new": (m.new_issues, d.new_issues, "new failed", "appeared"),
             "resolved": (m.resolved_issues, d.resolved_issues, "fixed", "were resolved")}
    heads, tables = [], []
    for kind in asked:
        n, rows, name, verb = kinds[kind]
        if kind == "resolved" and not n:
            heads.append(f"**Nothing was fixed** (none of the {m.previous_failures:,} failed checks of {prev} passes "
                         "now)")
            continue
        by_rule = Counter(r.rule_id for r in rows)
        named = ", ".join(f"{rule} ({k})" for rule, k in sorted(by_rule.items(), key=lambda x: (-x[1], x[0]))[:6])
        heads.append(f"**{n:,} {name} {plural('check', n)}**" + (f" ({named}{' …' if len(by_rule) > 6 else ''}"
                                                                   f"{', from a sample' if n > len(rows) else ''})"
                                                                   if rows else ""))
        if rows:
            cut = f" (the first {len(rows)} of {n:,})" if n > len(rows) else ""
            tables.append(f"{name.capitalize()} checks{cut}:\n\n" + markdown.table(
                ["#", "Device", "Check", "Severity"],
                [[i, r.asset_id, f"{r.rule_id} — {deviation_title(rules, r.rule_id, r.title)}", r.severity]
                 for i, r in enumerate(rows[:SHOWN], 1)]))
    lead = (" · ".join(heads) + f" between {prev} and {cur} ({result.scope}; {m.previous_failures:,} → "
            f"{m.current_failures:,} failed checks in all).")
    return "\n\n".join([lead, *tables])


def comparison_lead(result: ComparisonResult, frame: QuestionFrame, rules: Mapping[str, Rule],
                    changes: Sequence[str] = ()) -> tuple[str, list[str]]:
    """The first line of a comparison between two runs, in the question's form: the failed checks that appeared or
    were fixed when those are asked (``changes``), the devices that changed (all of them, as a table) when devices are asked,
    else the direction with its figures; and the devices it listed."""
    m = result.metrics
    prev, cur = result.previous_assessment_id, result.current_assessment_id
    if changes and frame.subject != "devices":
        return _changed_issues(result, changes, rules), []
    if frame.subject == "devices" and frame.ask in ("list", "count", "ranking", "yes_no"):
        moved = {"worsened": (result.asset_level_changes.worsened, m.worsened_assets, "got worse"),
                 "improved": (result.asset_level_changes.improved, m.improved_assets, "improved")}
        wanted = {"worse": ["worsened"], "better": ["improved"]}.get(frame.direction or "", ["worsened", "improved"])
        parts = []
        listed: list[str] = []
        for direction in wanted:
            rows, n, verb = moved[direction]
            listed += [a.asset_id for a in rows] if len(rows) == n else []
            head = f"**{n} {'device' if n == 1 else 'devices'} {verb}** between {prev} and {cur} ({result.scope})"
            if not rows:
                parts.append(head + ".")
                continue
            table = markdown.table(["#", "Device", "Change in failed checks"],
                           [[i, a.asset_id, f"{a.issues_delta:+d}"] for i, a in enumerate(rows, 1)])
            cut = (f"\n\nThe comparison keeps the {len(rows)} largest changes of {n}; the export of the trace has "
                   "the tool's full result." if n > len(rows) else "")
            parts.append(f"{head}:\n\n{table}{cut}")
        return "\n\n".join(parts), listed
    word = {"improved": "Better", "worsened": "Worse", "unchanged": "Unchanged"}[m.direction]
    lead = f"**{word}**"
    if frame.ask == "yes_no" and frame.direction:  # "is hq more compliant than last time?": Yes/No, then the figures
        asked = "improved" if frame.direction == "better" else "worsened"
        lead = f"**{'Yes' if m.direction == asked else 'No'}** — {word.lower()}"
    compared = result.rules_compared
    kind = f"{', '.join(compared)} " if compared else ""  # the checks asked, when the question named some
    return (f"{lead}: {result.scope} went from {m.previous_failures:,} to {m.current_failures:,} failed "
            f"{kind}checks ({m.failures_delta:+,}) between {prev} and {cur}."), []


def analysis_lead(result: AnalysisResult, frame: QuestionFrame) -> str | None:
    """The first line of an analysis result when the question asked for a number, a share, a yes/no or the top
    rule, rather than a summary (None: the summary is the answer)."""
    m = result.metrics
    run, where = m.assessment_id, m.scope
    severity = m.severity_filter
    failures = m.matching_failures or 0 if severity else m.checks_failed
    failing_devices = m.assets_with_matching_failures or 0 if severity else m.assets_with_failures
    kind = f"{severity} " if severity else ""
    if frame.ask == "count" and frame.subject in ("findings", "rules"):
        return (f"**{failures:,}** failed {kind}{plural('check', failures)} on {devices(failing_devices)} ({where}, {run}, "
                f"{devices(m.assets_assessed)} assessed).")
    if frame.ask == "count" and frame.subject == "devices":
        at_risk = "" if severity else (f"; {m.assets_at_risk} ({m.pct_assets_at_risk}%) have a critical or "
                                       "high-severity failure (at risk)")
        return (f"**{failing_devices}** of {devices(m.assets_assessed)} fail at least one {kind}check{at_risk} "
                f"({where}, {run}).")
    if frame.ask == "share" and frame.subject == "findings" and not severity:
        # "what's our pass rate for the dc2 spines": a share of the checks, not of the devices; "what % of checks
        # fail": the failing share
        fails = frame.polarity == "fails"
        part = m.checks_failed if fails else m.checks_passed
        return (f"**{_pct(part, m.checks_performed)}%** of the checks {'fail' if fails else 'pass'} — {part:,} of "
                f"{m.checks_performed:,} ({where}, {run}); {failing_devices} of {devices(m.assets_assessed)} have at "
                "least one failed check.")
    if frame.ask == "share" and frame.polarity == "passes" and m.assets_assessed:
        # "what share of devices at HQ pass every check": the passing share first, the failing one beside it
        clean = m.assets_assessed - (failing_devices or 0)
        return (f"**{_pct(clean, m.assets_assessed)}%** — {clean} of {devices(m.assets_assessed)} pass every "
                f"{kind}check ({where}, {run}); {failing_devices} fail at least one; the check pass rate is "
                f"{m.pass_rate_pct}%.")
    if frame.ask == "share":
        pct = m.pct_assets_with_matching_failures if severity else _pct(m.assets_with_failures, m.assets_assessed)
        return (f"**{pct}%** — {failing_devices} of {devices(m.assets_assessed)} have at least one failed {kind}check "
                f"({where}, {run}); the check pass rate is {m.pass_rate_pct}%.")
    if frame.ask == "yes_no" and frame.subject in ("findings", "devices", "rules"):
        passes = frame.polarity == "passes"  # "is ntp authenticated at HQ?" asks whether the checks pass
        if failures:
            return (f"**{'No' if passes else 'Yes'}** — {failures:,} failed {kind}{plural('check', failures)} on "
                    f"{devices(failing_devices)} ({where}, {run}).")
        return (f"**{'Yes' if passes else 'No'}** — no failed {kind}check in {where} ({run}, "
                f"{devices(m.assets_assessed)} assessed).")
    areas = result.breakdowns.get("technology") or []
    if frame.ask == "ranking" and frame.subject == "rules" and result.query_type == "technology" and areas:
        top = areas[0]
        tied = [a for a in areas if a.failures == top.failures]
        rest = ", ".join(f"{a.key} ({a.failures:,})" for a in areas[len(tied):len(tied) + 3])
        if len(tied) > 1:
            return (f"No single area leads: {_names([str(a.key) for a in tied])} tie at {top.failures:,} failed checks "
                    f"each ({where}, {run})" + (f"; then {rest}." if rest else "."))
        return (f"**{top.key}** has the most failed checks: {top.failures:,} on {devices(top.assets)} "
                f"({where}, {run})" + (f"; then {rest}." if rest else "."))
    if frame.ask == "ranking" and frame.subject in ("findings", "rules") and result.top_rules:
        return rule_ranking(result.top_rules, frame.limit, f"{where}, {run}")
    if frame.ask == "list" and frame.subject in ("findings", "rules") and result.top_rules and failures and not (
            frame.checks or frame.targets.rule or frame.filters.topic):
        # "whats failing at HQ": how much, and the checks failing on the most devices first
        most = result.top_rules[0].failing_assets
        widest = [r for r in result.top_rules if r.failing_assets == most][:5]
        return (f"**{failures:,}** failed {kind}{plural('check', failures)} on {devices(failing_devices)} ({where}, "
                f"{run}); on the most devices: {', '.join(f'**{r.rule_id}**' for r in widest)} ({devices(most)}"
                f"{' each' if len(widest) > 1 else ''}). Every failing check is in the table below.")
    return None
