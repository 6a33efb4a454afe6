"""The scope a data answer covered, said where the user reads first (DESIGN §10): taken from what the tools
returned — assessment, date, sites, devices, filters, device count — never from the question. The same
module says how each typed name was read, and what differs between the scope asked for and the scope
covered (the Reflector qualifies an answer whose scope is not the one asked for).
"""

from __future__ import annotations

from typing import Any

from foundation.vocabulary.scope import AnswerScope
from orchestration.nlu.names import entity_type_label
from orchestration.outputs import SlicContext
from orchestration.state import Intent
from orchestration.tools.results import AnalysisResult, ComparisonResult, IssueTrackingResult
from orchestration.tools.rows import day
from orchestration.tools.scope import DEVICE_TYPES

SITE_KINDS = {"store": "every store", "branch": "every branch", "datacenter": "every data centre",
              "campus": "every campus", "hq": "headquarters", "lab": "every lab"}

LIST_LIMIT = 6
EXCLUDED_LABELS = {"sites": "site", "devices": "device", "site_type": "site type", "device_type": "device type",
                   "os_version": "software version"}


def covered_scope(tool: str, params: dict[str, Any], result: dict[str, Any] | None) -> AnswerScope | None:
    """What one Data Query Agent call covered (``tool`` may be ``sql_path``: ``params`` are then its scope, and
    the result names the assessment its query read, if any)."""
    if result is None:
        return None
    applied: dict[str, Any] = result.get("scope_applied") or (params.get("scope") if tool != "sql_path" else params) or {}
    base = {"collection": result.get("collection") or "fleet", "sites": list(applied.get("sites") or []),
            "devices": [applied["device"]] if applied.get("device") else list(applied.get("devices") or []),
            "site_types": applied.get("site_type"),
            **{k: applied.get(k) for k in ("environment", "device_type", "platform", "os_version", "role")}}
    if tool == "assessment_analysis_tool":
        m = AnalysisResult.model_validate(result).metrics
        return AnswerScope.model_validate({
            **base, "device_type": base["device_type"] or params.get("product_filter"),
            "assessment_id": m.assessment_id, "assessment_date": day(m.assessment_date),
            "severity": params.get("severity_filter"), "focus": params.get("focus_area"), "assets": m.assets_assessed})
    if tool == "assessment_comparison_tool":
        compared = ComparisonResult.model_validate(result)
        return AnswerScope.model_validate({
            **base, "assessment_id": compared.current_assessment_id,
            "assessment_date": day(compared.current_assessment_date) or None,
            "previous_assessment_id": compared.previous_assessment_id, "severity": params.get("severity_filter"),
            "focus": ", ".join(compared.rules_compared) or None, "assets": compared.metrics.current_assets})
    if tool == "issue_tracking_tool":
        tracked = IssueTrackingResult.model_validate(result)
        return AnswerScope.model_validate({
            **base, "assessment_id": tracked.latest_assessment_id,
            "assessment_date": day(tracked.latest_assessment_date) or None,
            "severity": params.get("priority"), "focus": f"{tracked.tracking_scope} issues"})
    # SQL rows (any template: the runs they name) and the other tools' results
    rows = result.get("rows") or []
    runs = [result["assessment_id"]] if result.get("assessment_id") else sorted(
        {str(r["assessment_id"]) for r in rows if r.get("assessment_id")}
        | {str(r[k]) for r in rows[:1] for k in ("first_run", "last_run") if r.get(k)})  # a change per check
    return AnswerScope.model_validate({  # a series or matches over several runs: the first → the last
        **base, "assessment_id": runs[-1] if runs else None, "previous_assessment_id": runs[0] if len(runs) > 1 else None,
        "severity": params.get("severity_filter"), "focus": params.get("focus_area")})


def slic_scope(context: SlicContext | None) -> AnswerScope | None:
    """What the SLIC Agent covered, when no Data Query Agent call states it."""
    if context is None or not context.assessment_id:
        return None
    applied = context.scope
    return AnswerScope.model_validate({
        "collection": context.collection, "assessment_id": context.assessment_id, "sites": list(applied.get("sites") or []),
        "devices": [applied["device"]] if applied.get("device") else list(applied.get("devices") or []),
        "site_types": applied.get("site_type"),
        **{k: applied.get(k) for k in ("environment", "device_type", "platform", "os_version", "role")},
        "focus": "SLIC known-issue signatures"})


def asked_scope(intent: Intent) -> AnswerScope:
    """The scope the question asked for (shown when no data came back to say what was covered)."""
    return AnswerScope(assessment_id=next(iter(_asked(intent, "assessment_id")), None) or "latest",
                       sites=_asked(intent, "site"), devices=_asked(intent, "device"),
                       site_types=[] if _asked(intent, "site") else intent.frame.filters.site_type,
                       environment=_asked(intent, "environment"), device_type=_asked(intent, "device_type"),
                       platform=_asked(intent, "platform"), os_version=_asked(intent, "os_version"),
                       role=intent.frame.filters.role, severity=next(iter(_asked(intent, "severity")), None))


def _names(label: str, names: list[str]) -> str:
    if len(names) == 1:
        return f"{label} {names[0]}"
    shown = ", ".join(names[:LIST_LIMIT]) + (f" and {len(names) - LIST_LIMIT} more" if len(names) > LIST_LIMIT else "")
    return f"{len(names)} {label}s ({shown})"


def scope_line(scope: AnswerScope) -> str:
    """One line: assessment, where, which filters, how many devices — the same place in every data answer."""
    if scope.previous_assessment_id:
        parts = [f"assessments {scope.previous_assessment_id} → {scope.assessment_id}"
                 + (f" ({scope.assessment_date})" if scope.assessment_date else "")]
    elif scope.assessment_id == "latest":
        parts = ["the latest assessment"]
    elif scope.assessment_id:
        parts = [f"assessment {scope.assessment_id}" + (f" ({scope.assessment_date})" if scope.assessment_date else "")]
    elif scope.logged_months:  # events counted by month: the log, not the inventory
        parts = [f"events logged in {' and '.join(scope.logged_months)}"]
    else:
        parts = ["current inventory"]
    if scope.collection != "fleet":  # an upload's collection: said first, so no one reads it as the fleet
        parts.insert(0, f"collection {scope.collection}")
    if scope.devices and scope.devices_listed_before:
        parts.append(f"the {len(scope.devices)} devices of an earlier answer")
    elif scope.devices:
        parts.append(_names("device", scope.devices))
    if scope.sites:
        parts.append(_names("site", scope.sites))
    if scope.site_types and not scope.sites and not scope.devices:
        parts.append(" or ".join(SITE_KINDS.get(k, k) for k in scope.site_types))
    elif not scope.sites and not scope.devices:
        parts.append("all sites")
    parts += [f"{label} {' or '.join(v)}" for label, v in (("environment", scope.environment),
                                                          ("device type", scope.device_type),
                                                          ("role", scope.role),
                                                          ("platform", scope.platform),
                                                          ("software version", scope.os_version)) if v]
    # "tier tier1" reads "tier1", "PCI scope in PCI scope" "in PCI scope": a value that names its dimension needs no
    # noun before it
    parts += [' or '.join(v) if all(noun.lower() in x.lower() for x in v) else f"{noun} {' or '.join(v)}"
              for noun, v in scope.more.items()]
    parts += [f"not {EXCLUDED_LABELS.get(key, key)} {' or '.join(v)}" for key, v in scope.excluded.items()]
    parts += [f"severity {scope.severity}"] if scope.severity else []
    if scope.focus:
        parts.append(f"{scope.focus} checks" if "issues" not in scope.focus and "SLIC" not in scope.focus else scope.focus)
    if scope.assets is not None:
        parts.append(f"{scope.assets} device{'s' if scope.assets != 1 else ''} in scope")
    return "**Scope:** " + " · ".join(parts)


def name_notes(intent: Intent) -> list[str]:
    """How typed names were read: corrected ones and range members left out (never silently)."""
    notes = []
    for r in intent.name_resolutions:
        if r.status == "corrected" and r.value and r.mention.lower() != r.value.lower():
            reason = r.reason or f"the {entity_type_label(r.entity_type)} in the inventory closest to what you typed"
            notes.append(f"I read '{r.mention}' as **{r.value}** ({reason}).")
    dropped = [r.mention for r in intent.name_resolutions if r.status == "dropped"]
    if dropped:
        notes.append(f"{', '.join(dropped)} {'is' if len(dropped) == 1 else 'are'} not in the inventory and "
                     f"{'was' if len(dropped) == 1 else 'were'} left out.")
    return notes


def _asked(intent: Intent, etype: str) -> list[str]:
    """What the question named for one entity type: its entities, and the frame's filter of that name."""
    named = [e.value for e in intent.entities if e.type == etype and e.source != "unresolved"]
    framed = getattr(intent.frame.filters, etype, []) if etype not in ("site", "severity") else []
    if etype == "device_type":
        framed = [t for t in framed if t in DEVICE_TYPES]
    return list(dict.fromkeys([*named, *framed]))


def scope_gaps(intent: Intent, covered: AnswerScope) -> list[str]:
    """Where the covered scope is not the scope asked for (names, filters, assessment)."""
    gaps = []
    excluded = {k.rstrip("s") for k in covered.excluded}  # asked for, and excluded as asked ("outside HQ")
    query = intent.query or intent.asked_query  # a side set against the rest ("prod vs the rest") covers both
    excluded |= {{"release": "os_version"}.get(c.dimension, c.dimension) for c in (query.conditions if query else [])
                 if c.split}
    for etype, names in (("site", covered.sites), ("device", covered.devices)):
        asked = _asked(intent, etype) if etype not in excluded else []
        held = query.condition(etype) if query is not None else None
        if asked and held is not None and not held.negated and \
                {a.lower() for a in asked} <= {v.lower() for v in held.values}:
            asked = list(held.values)  # "compared with Store-46" after Store-45: the query asks both, side by side
        if asked and {a.lower() for a in asked} != {n.lower() for n in names}:
            gaps.append(f"asked for {etype}s {', '.join(asked)}, the data covers "
                        f"{', '.join(names) if names else 'all ' + etype + 's'}")
    for etype, values in (("environment", covered.environment), ("platform", covered.platform),
                          ("os_version", covered.os_version), ("severity", [covered.severity] if covered.severity else [])):
        asked = _asked(intent, etype) if etype not in excluded else []
        if asked and {a.lower() for a in asked} != {v.lower() for v in values}:
            gaps.append(f"asked for {entity_type_label(etype)} {' or '.join(asked)}, the data covers "
                        f"{' or '.join(values) or 'every ' + entity_type_label(etype)}")
    asked_type = _asked(intent, "device_type") if "device_type" not in excluded else []
    if asked_type and set(asked_type) != set(covered.device_type):
        missing = [t for t in asked_type if t not in DEVICE_TYPES]
        covers = " or ".join(t.replace("_", " ") + "s" for t in covered.device_type)
        gaps.append(f"asked for {' or '.join(t.replace('_', ' ') + 's' for t in asked_type)}, the data covers "
                    f"{covers or 'every device type'}"
                    + (f" ({', '.join(missing)} is not a device type of the inventory)" if missing else ""))
    asked_id = _asked(intent, "assessment_id")
    covered_ids = [i for i in (covered.previous_assessment_id, covered.assessment_id) if i]
    if asked_id and covered_ids and not set(asked_id) <= set(covered_ids):
        gaps.append(f"asked for assessment {', '.join(asked_id)}, the data covers {' → '.join(covered_ids)}")
    return gaps
