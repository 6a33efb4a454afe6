"""Findings, summaries and prioritized risks from the Data Query Agent's tool results (DESIGN §7.1).

Every number stated comes from the tool result (kept in ``statistics``); every finding points at the
part of ``assessment_context`` it stands on (``evidence_refs``) and carries the rule catalog's
remediation commands. Trend mode: new and persistent issues become findings with ``delta_status``;
resolved issues go to the summary only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from assessment_engine.checks.rule_engine import Rule
from foundation.vocabulary import severity
from foundation.vocabulary.text import plural
from orchestration.interpretation.charts import breakdown_charts, trend_chart
from orchestration.interpretation.enterprise import context_for_rule
from orchestration.outputs import (
    AssetTrend,
    DeltaStatus,
    DomainOutputs,
    Finding,
    PrioritizedRisk,
    RetrievedChunk,
)
from orchestration.state import FindingDigest
from orchestration.tools.results import (
    AnalysisResult,
    ChangedIssue,
    ComparisonResult,
    IssueTrackingResult,
    SqlPathResult,
)
from orchestration.tools.rows import BreakdownRow, TopicFailureRow, TopRule

RP = "assessment_context.report_data"
NO_CONTEXT_ASSUMPTION = ("No enterprise standard was retrieved for this question; recommendations follow the industry "
                         "standards named in applied_standards (CIS benchmarks, Cisco hardening guides).")


def devices(n: int) -> str:
    return f"{n} device" if n == 1 else f"{n} devices"


def top_n(output_format: str | None, default: int = 5) -> int:
    m = re.match(r"top_(\d+)", output_format or "")
    return max(1, min(int(m.group(1)), 100)) if m else default


def _remediation(text: str | None) -> str:
    lines = [ln for ln in (text or "").split("\n") if ln.strip()]
    return "\n".join(lines)


def _finding(prefix: str, i: int, rule: TopRule, chunks: list[RetrievedChunk], ref: str, provenance: str,
             assets: list[str], rules: Mapping[str, Rule], delta: DeltaStatus | None = None) -> Finding:
    enterprise = context_for_rule(chunks, rule.rule_id, rules, rule.technology)
    refs = [r for r in (rule.refs or "").split(";") if r.strip()]
    n_assets, crit = rule.failing_assets, rule.critical_assets
    impact = (rule.rationale or rule.title or "").rstrip(".") + "."
    impact += f" Affects {n_assets} device{'s' if n_assets != 1 else ''}"
    impact += f" ({crit} of them critical or high criticality)." if crit else "."
    return Finding(
        id=f"{prefix}-{i:03d}", rule_id=rule.rule_id, title=deviation_title(rules, rule.rule_id, rule.title),
        control=rule.title or rule.rule_id,
        severity=rule.severity or "medium", confidence=0.95,
        evidence_refs=[ref], impact=impact,
        recommendation=_remediation(rule.remediation),
        assumptions=[] if enterprise else [NO_CONTEXT_ASSUMPTION],
        data_gaps=[], enterprise_context_applied=enterprise,
        entities_referenced=assets[:10], applied_standards=[r.strip() for r in refs] + [
            f"{e.title} ({e.source})" for e in enterprise if e.topic == "approved_configurations"],
        delta_status=delta, data_provenance=provenance, assets_affected=n_assets,
    )


def rule_facts(rules: Mapping[str, Rule], rule_id: str, title: str | None = None, **figures: Any) -> TopRule:
    """A rule's words and default fix from the rule catalog, with the figures given (``failing_assets``,
    ``severity`` …); a rule the catalog does not know (e.g. from a remote lake) keeps its id and ``title``."""
    r = rules.get(rule_id)
    words = ({"title": r.title, "severity": r.severity, "category": r.category, "technology": r.technology,
              "remediation": "\n".join(r.default_fix), "rationale": r.rationale, "refs": r.refs} if r else
             {"title": title, "severity": None, "category": None, "technology": None, "remediation": None,
              "rationale": None, "refs": None})
    return TopRule.model_validate({"rule_id": rule_id, **words, "critical_assets": 0, "failing_assets": 0, **figures})


def deviation_title(rules: Mapping[str, Rule], rule_id: str, title: str | None = None) -> str:
    """What a failing device does wrong ("HTTP server enabled"), from the rule catalog; a rule the catalog
    does not know (e.g. from a remote lake) is titled with its control, marked as not met."""
    known = rules.get(rule_id)
    if known is not None and known.deviation:
        return known.deviation
    return f"Not met: {title or rule_id}"


def severity_counts(rows: list[BreakdownRow]) -> str:
    """"2 critical, 5 high, 11 medium" in severity order, every severity present (none left out)."""
    counts = {str(r.key): r.failures for r in rows}
    return ", ".join(f"{counts[k]} {k}" for k in sorted(counts, key=lambda k: -severity.rank(k)) if counts[k])


def _first_command(fix: str) -> str:
    """The first command of a fix, past the '! platform' comment lines that head per-platform fixes."""
    return next((ln for ln in fix.split("\n") if ln.strip() and not ln.startswith("!")), fix.split("\n")[0])


def risks(findings: list[Finding], limit: int, first_line: bool = True) -> list[PrioritizedRisk]:
    """The findings ranked most severe first, then by devices affected; the action is the first command
    (``first_line``) or the whole remediation."""
    ranked = sorted(findings, key=lambda f: (-severity.rank(f.severity), -f.assets_affected))
    return [PrioritizedRisk(rank=i + 1, finding_id=f.id, rule_id=f.rule_id, title=f.title, severity=f.severity,
                            assets_affected=f.assets_affected, why=f.impact,
                            action=_first_command(f.recommendation) if first_line else f.recommendation)
            for i, f in enumerate(ranked[:limit])]


def from_analysis(result: AnalysisResult, dims: list[str], presentation: str, chunks: list[RetrievedChunk],
                  device: str | None, rules: Mapping[str, Rule], prefix: str = "CFG") -> DomainOutputs:
    m = result.metrics
    src = f"{RP}.assessment_analysis_tool"
    prov = f"assessment_analysis_tool({result.query_type}) on {m.assessment_id}, {m.checks_performed} checks"
    limit = top_n(presentation, 10)
    if device:
        findings = []
        for i, row in enumerate(result.results_sample, start=1):
            rule = rule_facts(rules, row.rule_id, row.title, severity=row.severity, failing_assets=1)
            f = _finding(prefix, i, rule, chunks, f"{src}.results_sample[{i - 1}]", prov, [row.asset_id], rules)
            f.evidence, f.evidence_device = row.evidence, row.asset_id
            f.impact = (rule.rationale or row.title or "").rstrip(".") + "."
            findings.append(f)
    else:
        # the most common deviations, and the most severe ones beside them: what to do first ranks by severity, and a
        # critical on one device must not be left out because ten mediums are on more (a number asked is kept)
        shown = result.top_rules[:limit]
        severe = [] if "top_" in (presentation or "") else sorted(
            result.top_rules, key=lambda r: (-severity.rank(r.severity), -r.failing_assets))[:5]
        listed = shown + [r for r in severe if all(r.rule_id != s.rule_id for s in shown)]
        findings = [_finding(prefix, i, rule, chunks, f"{src}.top_rules[{result.top_rules.index(rule)}]", prov, [], rules)
                    for i, rule in enumerate(listed, start=1)]
        for f in findings:  # name a few affected devices from the sample, with their evidence lines
            sample = [r for r in result.results_sample if r.rule_id == f.rule_id]
            f.entities_referenced = [r.asset_id for r in sample][:10]
            if sample:
                f.evidence, f.evidence_device = sample[0].evidence, sample[0].asset_id
    qualifier = f" ({m.severity_filter})" if m.severity_filter else ""
    charts = breakdown_charts(result.breakdowns, dims, src, qualifier)
    dumped = {d: [r.model_dump() for r in rows] for d, rows in result.breakdowns.items()}
    stats = {"metrics": m.model_dump(exclude_none=True),
             "breakdowns": {d: dumped.get(d, []) for d in dims or ["severity"]}, "severity": dumped.get("severity", [])}
    return DomainOutputs(findings=findings, summary=_analysis_summary(result, dims, device, findings),
                         prioritized_risks=risks(findings, min(limit, 10)), chart_hints=charts, statistics=stats,
                         assumptions=[] if chunks else [NO_CONTEXT_ASSUMPTION])


BREAKDOWN_ROWS = 8


def breakdown_table(dim: str, rows: list[BreakdownRow], keys: int | None = None) -> str:
    """A breakdown as a compact table (severity: every level, most severe first; others: the largest rows).
    ``keys``: how many rows the breakdown has in full, when the tool sent only the largest."""
    if not rows:
        return ""
    if dim == "severity":  # every severity, in severity order: none may be left out
        rows = sorted(rows, key=lambda r: -severity.rank(str(r.key)))
    label = "OS" if dim == "os" else dim.replace("_", " ").capitalize()
    shown = rows if dim == "severity" else rows[:BREAKDOWN_ROWS]
    lines = [f"| {label} | Failed checks | Devices |", "|---|---:|---:|"]
    lines += [f"| {r.key} | {r.failures:,} | {r.assets:,} |" for r in shown]
    more = max(keys or 0, len(rows)) - len(shown)
    if more > 0:
        lines.append(f"| … and {more:,} more (see the chart) | | |")
    return "\n".join(lines)


def _analysis_summary(result: AnalysisResult, dims: list[str], device: str | None, findings: list[Finding]) -> str:
    m = result.metrics
    date = m.assessment_date[:10]
    if m.checks_performed == 0:
        return f"No checks match this scope ({m.scope}) in assessment {m.assessment_id} ({date})."
    parts = []
    if device:
        crit = severity_counts(result.breakdowns.get("severity") or [])
        what = f"{m.matching_failures} {m.severity_filter} {plural('deviation', m.matching_failures or 0)}" \
            if m.severity_filter else f"{m.checks_failed} failed {plural('check', m.checks_failed)}" + \
            (f" ({crit})" if crit else "")
        focus = result.focus_area
        out_of = (f"out of the {m.checks_performed} checks on {focus}" if focus and focus != "security" else
                  f"out of its {m.checks_performed} {'security ' if focus == 'security' else ''}checks")
        parts.append(f"{device} has {what} in assessment {m.assessment_id} ({date}), {out_of}"
                     + (f" ({m.checks_in_scope} checks on this device in all)" if (m.checks_in_scope or 0)
                        > m.checks_performed else "") + f": a {m.pass_rate_pct}% pass rate.")  # "pass rate of RTR-1?"
        if findings:
            parts.append("The fixes below are the configuration commands from the rule catalog, in priority order — "
                         f"not re-judged on {device}: ask how to fix one check on {device} for its own fix, proven "
                         "on its configuration.")
    else:
        named = f": {', '.join(m.assets_named)}" if m.assets_named and len(m.assets_named) == m.assets_assessed else ""
        parts.append(f"Assessment {m.assessment_id} ({date}) covered {devices(m.assets_assessed)} ({m.scope}{named}): "
                     f"{m.checks_performed:,} checks performed, {m.checks_failed:,} failed, "
                     f"{m.checks_passed:,} passed ({m.pass_rate_pct}% pass rate); "
                     + (f"{m.exceptions_applied} failed {plural('check', m.exceptions_applied)} "
                        f"{'is' if m.exceptions_applied == 1 else 'are'} covered by approved exceptions."))
        if m.severity_filter:
            parts.append(f"{m.assets_with_matching_failures} of {devices(m.assets_assessed)} "
                         f"({m.pct_assets_with_matching_failures}%) have {m.severity_filter} deviations "
                         f"({m.matching_failures} failed {m.severity_filter} "
                         f"{plural('check', m.matching_failures or 0)}).")
        else:
            parts.append(f"{devices(m.assets_at_risk)} ({m.pct_assets_at_risk}%) "
                         f"{'has' if m.assets_at_risk == 1 else 'have'} at least one critical or high-severity failure.")
        keys = result.breakdown_keys
        tables = [breakdown_table(dim, result.breakdowns.get(dim) or [], keys.get(dim)) for dim in dims]
        # the lead stays two sentences; breakdowns are tables, and the deviations are the findings table below
        return " ".join(p for p in parts if p) + "".join(f"\n\n{t}" for t in tables if t)
    return " ".join(p for p in parts if p)


def from_comparison(result: ComparisonResult, chunks: list[RetrievedChunk], limit: int, rules: Mapping[str, Rule],
                    prefix: str = "CFG") -> DomainOutputs:
    m = result.metrics
    changes, detail = result.asset_level_changes, result.detailed_findings
    src = f"{RP}.assessment_comparison_tool"
    prov = (f"assessment_comparison_tool: {result.previous_assessment_id} → {result.current_assessment_id}, "
            f"{result.row_count} failing results compared")
    findings: list[Finding] = []
    deltas: tuple[tuple[DeltaStatus, str, list[ChangedIssue]], ...] = (
        ("new", "new_issues", detail.new_issues), ("persistent", "persistent_issues", detail.persistent_issues))
    for delta, key, changed in deltas:
        grouped: dict[str, list[ChangedIssue]] = {}
        for issue in changed:
            grouped.setdefault(issue.rule_id, []).append(issue)
        ranked = sorted(grouped.items(), key=lambda kv: (-severity.rank(kv[1][0].severity), -len(kv[1])))
        for rule_id, issues in ranked[: limit if delta == "new" else max(3, limit // 2)]:
            rule = rule_facts(rules, rule_id, issues[0].title, severity=issues[0].severity, failing_assets=len(issues))
            f = _finding(prefix, len(findings) + 1, rule, chunks, f"{src}.detailed_findings.{key}", prov,
                         [i.asset_id for i in issues], rules, delta)
            f.impact += " (counted in the capped sample of the comparison)"
            findings.append(f)
    trend = [*(AssetTrend(asset_id=a.asset_id, direction="worsened", issues_delta=a.issues_delta)
               for a in changes.worsened[:limit]),
             *(AssetTrend(asset_id=a.asset_id, direction="improved", issues_delta=a.issues_delta)
               for a in changes.improved[:limit])]
    resolved_rules: dict[str, int] = {}
    for r in detail.resolved_issues:
        resolved_rules[r.rule_id] = resolved_rules.get(r.rule_id, 0) + 1
    resolved_text = ", ".join(f"{rid} ({n})" for rid, n in sorted(resolved_rules.items(), key=lambda kv: -kv[1])[:5])
    worst = ", ".join(f"{a.asset_id} ({a.issues_delta:+d})" for a in changes.worsened[:3])
    best = ", ".join(f"{a.asset_id} ({a.issues_delta:+d})" for a in changes.improved[:3])
    series = [t.model_dump() for t in result.trend_analysis]
    if m.previous_failures == 0 and m.current_failures == 0:
        summary = (f"No failed checks in {result.previous_assessment_id} or {result.current_assessment_id} for "
                   f"{result.scope} ({devices(m.current_assets)}): nothing improved or got worse.")
        return DomainOutputs(findings=[], summary=summary, asset_trend=[], prioritized_risks=[],
                             chart_hints=[trend_chart(series, src)],
                             statistics={"metrics": m.model_dump(), "trend_analysis": series}, assumptions=[])
    summary = (f"Since {result.previous_assessment_id}, failed checks went from {m.previous_failures:,} to "
               f"{m.current_failures:,} ({m.failures_delta:+,}; {m.direction}) in {result.current_assessment_id} "
               f"for {result.scope}. {m.new_issues} new {plural('issue', m.new_issues)} "
               f"appeared, {m.resolved_issues} "
               f"{'was' if m.resolved_issues == 1 else 'were'} resolved and {m.persistent_issues:,} "
               f"{'persists' if m.persistent_issues == 1 else 'persist'}. {devices(m.worsened_assets)} got worse"
               + (f" (most: {worst})" if worst else "") + f" and {m.improved_assets} improved"
               + (f" (most: {best})" if best else "") + "."
               + (f" {devices(m.new_assets)} {'is' if m.new_assets == 1 else 'are'} new and {m.removed_assets} "
                  f"{'was' if m.removed_assets == 1 else 'were'} removed." if m.new_assets or
                  m.removed_assets else "")
               + (f" Resolved: {resolved_text}." if resolved_text else ""))
    return DomainOutputs(
        findings=findings, summary=summary, asset_trend=trend,
        prioritized_risks=risks([f for f in findings if f.delta_status == "new"] or findings, 5),
        chart_hints=[trend_chart(series, src)],
        statistics={"metrics": m.model_dump(), "trend_analysis": series, "resolved_by_rule": resolved_rules},
        assumptions=["New and resolved issues are counted on devices assessed in both runs; devices added or "
                     "removed between the runs are listed separately."])


def from_tracking(result: IssueTrackingResult, chunks: list[RetrievedChunk], limit: int, rules: Mapping[str, Rule],
                  prefix: str = "CFG") -> DomainOutputs:
    src = f"{RP}.issue_tracking_tool"
    runs = result.assessments_considered
    prov = f"issue_tracking_tool over {len(runs)} assessments up to {result.latest_assessment_id}"
    findings = []
    for i, rule in enumerate(result.most_persistent_rules[:limit], start=1):
        issues = [u for u in result.unresolved_issues if u.rule_id == rule.rule_id]
        full = rule_facts(rules, rule.rule_id, rule.title, severity=rule.severity, failing_assets=rule.assets)
        delta: DeltaStatus = "persistent" if rule.max_open_for_assessments >= 2 else "new"
        f = _finding(prefix, i, full, chunks, f"{src}.most_persistent_rules[{i - 1}]", prov,
                     [u.asset_id for u in issues], rules, delta)
        f.impact += f" Open for up to {rule.max_open_for_assessments} consecutive assessments."
        if issues:
            f.evidence, f.evidence_device = issues[0].evidence, issues[0].asset_id
        findings.append(f)
    sev = result.severity_breakdown
    risk = result.risk_assessment
    counts = ", ".join(f"{n} {k}" for k, n in sev.items() if n)
    top = "; ".join(f"{r.rule_id} on {r.assets} devices (open up to {r.max_open_for_assessments} runs)"
                    for r in result.most_persistent_rules[:3])
    summary = (f"{result.total_unresolved} issues ({counts or 'none'}) are still open in "
               f"{result.latest_assessment_id} for {result.scope}"
               + (" and were already open in the prior assessment" if result.assessment_scope == "since_prior" else "")
               + f". Risk: {risk.level} — {'; '.join(risk.reasons)}."
               + (f" Most persistent: {top}." if top else ""))
    return DomainOutputs(findings=findings, summary=summary, prioritized_risks=risks(findings, 5),
                         statistics={"total_unresolved": result.total_unresolved, "severity_breakdown": sev,
                                     "risk_assessment": risk.model_dump()}, chart_hints=[],
                         assumptions=[] if chunks else [NO_CONTEXT_ASSUMPTION])


def _release_key(version: object) -> tuple[int, ...]:
    """17.3.4a → (17, 3, 4); the ASA's 9.8(4) → (9, 8, 4)."""
    return tuple(int(n) for n in re.findall(r"\d+", str(version)))


def _release_ends(rows: list[dict[str, Any]], age: str) -> str:
    """"the oldest ios version we run": that end of each platform's releases (releases of two platforms are not
    older or newer than each other)."""
    by_platform: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_platform.setdefault(str(r.get("platform") or "unknown platform"), []).append(r)
    pick = min if age == "oldest" else max
    ends = [(platform, pick(found, key=lambda r: _release_key(r["os_version"])))
            for platform, found in sorted(by_platform.items())]
    said = [f"**{platform} {r['os_version']}** ({devices(int(r['devices']))}, e.g. {r['example_device']})"
            for platform, r in ends]
    if len(ends) == 1:
        return f"{said[0]} is the {age} release in scope."
    return (f"The {age} release of each platform: {', '.join(said)} (releases of different platforms are not "
            "compared with each other).")


def from_sql(result: SqlPathResult, rules: Mapping[str, Rule], prefix: str = "CFG",
             release_age: str | None = None) -> DomainOutputs:
    """The rows of the SQL path's own templates (a topic's failing devices; inventory counts and listings).
    ``release_age``: the oldest or newest release asked for (an os_version listing leads with it)."""
    rows, cols, description = result.rows, result.columns, result.description
    if not rows:
        return DomainOutputs(findings=[], summary=f"No rows matched ({description}).", statistics=result.model_dump(),
                             prioritized_risks=[], chart_hints=[])
    if result.template == "devices_failing_topic":
        failing = result.rows_as(TopicFailureRow)
        by_rule: dict[str, list[TopicFailureRow]] = {}
        for r in failing:
            by_rule.setdefault(r.rule_id, []).append(r)
        findings = [_finding(prefix, i, rule_facts(rules, rid, items[0].title, failing_assets=len(items)), [],
                             f"{RP}.sql_path.rows", f"SQL path: {description}", [x.asset_id for x in items], rules)
                    for i, (rid, items) in enumerate(by_rule.items(), start=1)]
        listed = ", ".join(f"{r.asset_id} ({r.site})" for r in failing[:15])
        more = f" and {len(rows) - 15} more" if len(rows) > 15 else ""
        summary = f"{devices(len(rows))} match ({description}): {listed}{more}."
        return DomainOutputs(findings=findings, summary=summary, statistics={"row_count": len(rows)},
                             prioritized_risks=risks(findings, 5), chart_hints=[])
    # inventory counts and attribute listings: the listing's first column is the attribute asked about
    keys = [c for c in cols if c not in ("devices", "example_device")]
    parts = ", ".join(" on ".join(str(r[k]) for k in keys) + (f" ({devices(r['devices'])})" if "devices" in r else "")
                      for r in rows[:20])
    more = f" and {len(rows) - 20} more" if len(rows) > 20 else ""
    summary = f"{description[0].upper()}{description[1:]}: {parts}{more}."
    if release_age and "os_version" in cols:  # "the oldest ios version we run": that end first, then every release
        ordered = sorted(rows, key=lambda r: (str(r.get("platform")), _release_key(r["os_version"])))
        listed = ", ".join(f"{r.get('platform')} {r['os_version']} ({devices(int(r['devices']))})" for r in ordered[:20])
        summary = f"{_release_ends(rows, release_age)}\n\nEvery release in scope, oldest first: {listed}{more}."
    elif "devices" in cols and result.template != "inventory_count":  # "which versions run at …": each, its devices
        summary = f"**{devices(sum(int(r['devices']) for r in rows))}** — {description}: {parts}{more}."
    elif "devices" in cols:  # "how many firewalls do we have": the number first, then how they are spread
        total = sum(int(r["devices"]) for r in rows)
        same = [k for k in keys if len({r[k] for r in rows}) == 1]  # a column every row shares says nothing per row
        varied = [k for k in keys if k not in same] or keys
        kind = str(rows[0]["device_type"]).replace("_", " ") if "device_type" in same else "device"
        spread = ", ".join(f"{' · '.join(str(r[k]).replace('_', ' ') for k in varied)} ({r['devices']})"
                           for r in rows[:20])
        per = " and ".join(k.replace("_", " ") for k in varied)
        summary = f"**{total} {plural(kind, total)}** in the inventory — per {per}: {spread}{more}."
    return DomainOutputs(findings=[], summary=summary, statistics={"rows": rows[:50], "row_count": len(rows)},
                         prioritized_risks=[], chart_hints=[])




def focus_on(outputs: DomainOutputs, ref: FindingDigest) -> DomainOutputs:
    """Answer about one earlier finding ("explain the second one", "how do I fix CFG-003?")."""
    key = ref.rule_id
    match = next((f for f in outputs.findings if f.rule_id == key), None)
    if match is None:
        summary = (f"{ref.id} ({key} — {ref.title}) from the earlier answer no longer appears in "
                   "the current results for this scope: it may have been resolved or covered by an exception.")
        return outputs.evolve(summary=summary, findings=[])
    return _about(outputs, match, f"{ref.id} in the earlier answer is {key} — {match.title} ({match.severity}, "
                                  f"{devices(match.assets_affected)}).")


def explain_rule(outputs: DomainOutputs, rule_id: str) -> DomainOutputs:
    """Answer about one check named ("what's the risk of ASA-MGMT-ANY?", "explain SNMP-RW"): what it is, why it
    matters, where it fails in scope and its fix; unchanged when no finding of it is in the outputs."""
    match = next((f for f in outputs.findings if f.rule_id == rule_id), None)
    if match is None:
        return outputs
    return _about(outputs, match, f"**{rule_id}** — {match.title} ({match.severity}; failing on "
                                  f"{devices(match.assets_affected)} in this scope).")


def _about(outputs: DomainOutputs, match: Finding, opening: str) -> DomainOutputs:
    lines = [f"{opening} {match.impact}"]
    if match.evidence:
        lines.append(f"Evidence: {match.evidence.split(chr(10))[0]}.")
    if match.recommendation:
        lines.append("To fix it, apply:\n```\n" + match.recommendation + "\n```")
    for e in match.enterprise_context_applied[:2]:
        lines.append(f"Our {e.title or e.source} says: {e.content_excerpt}")
    return outputs.evolve(summary="\n\n".join(lines), findings=[match], prioritized_risks=[])
