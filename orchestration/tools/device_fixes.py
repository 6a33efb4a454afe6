"""The device's own fixes for the checks a ``device_rules`` answer shows failing, proven on its stored configuration.

The warehouse keeps each device's configuration as assessed (secrets masked, ``configs``). For a question about
one device ("how do I fix VTY-SSH-ONLY on RTR-BR-03-1"), the catalog's pattern is not the answer: the fix is
written from the device's evidence and names (``assessment_engine.checks.remediation``), applied to that
configuration in memory and re-judged with every rule. Masked values stay masked in the commands (the user fills
them in, as the placeholders); a device whose configuration is not stored gets no entry, and the answer says that
the catalog's fix is not verified on it.
"""

from __future__ import annotations

import re
from typing import Any

from assessment_engine.checks.config_parser import SUPPORTED, parse_config
from assessment_engine.checks.remediation import verify_fix
from assessment_engine.checks.rule_engine import evaluate_config
from assessment_engine.warehouse.sql_guard import UnsafeSQL
from assessment_engine.warehouse.sql_path import GuardedStatements, run_sql
from assessment_engine.warehouse.store import Warehouse
from orchestration.catalog import Catalog

_CONFIG = ("SELECT c.config_text, a.platform, a.device_type FROM configs c JOIN assets a ON a.asset_id = c.asset_id "
           "WHERE c.assessment_id = ? AND c.asset_id = ?")


def _one_token_markers(text: str) -> str:
    """'<community masked>' → '<community-masked-1>': a masked value stays one word, as the value was (so the rules
    count a line's words as on the device: 'snmp-server community X RO' has no ACL, masked or not), and two masked
    values stay two values (numbered in order), so a fix for one community does not replace another."""
    seen: dict[str, int] = {}

    def numbered(m: re.Match[str]) -> str:
        kind = m.group(1).replace(" ", "-")
        seen[kind] = seen.get(kind, 0) + 1
        return f"<{kind}-masked-{seen[kind]}>"

    return re.sub(r"<([^<>\n]*?) masked>", numbered, text)


def device_fixes(w: Warehouse, assessment_id: str | None, rows: list[dict[str, Any]],
                 viewer: str | None, catalog: Catalog, statements: GuardedStatements) -> dict[str, dict[str, Any]]:
    """rule id → {commands, verified, note} for the failing rows of one device's verdicts."""
    failing = [r for r in rows if r.get("status") == "fail"]
    if not failing or not assessment_id:
        return {}
    try:
        _, result = run_sql(w, _CONFIG, [assessment_id, failing[0]["asset_id"]], statements, viewer)
    except UnsafeSQL:
        return {}
    found = result.dicts()
    if not found or found[0]["platform"] not in SUPPORTED:
        return {}
    text, platform, device_type = found[0]["config_text"], found[0]["platform"], found[0]["device_type"]
    cfg = parse_config(_one_token_markers(text), platform)
    rules = catalog.rules.by_id
    verdicts = {r.rule_id: r for r in evaluate_config(catalog.rules.rules, cfg, device_type)}  # once per device
    before = {rule_id: r.status for rule_id, r in verdicts.items()}
    out: dict[str, dict[str, Any]] = {}
    for row in failing:
        rule = rules.get(row["rule_id"])
        if rule is None:
            continue
        judged = verdicts[rule.id]
        if judged.status != "fail":  # the value it fails on is masked ('public'), or a rule changed since the run
            out[rule.id] = {"commands": [], "verified": False, "note": (
                "the value it fails on is masked in the stored configuration, so the fix cannot be re-judged there"
                if "masked>" in (row.get("evidence") or "") else
                "the stored configuration no longer fails it under today's rules")}
            continue
        fix = verify_fix(rule, cfg, judged, catalog.rules.rules, device_type, before)
        out[rule.id] = {"commands": fix.shown, "verified": fix.verified, "note": fix.note}
    return out
