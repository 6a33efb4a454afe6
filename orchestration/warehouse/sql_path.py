"""The SQL path (DESIGN §6.2): bespoke questions the three tools do not cover, answered with a
read-only SELECT built from the ontology (``contracts/warehouse.yaml``), checked by the SQL guard
and executed with bound parameters.

Deterministic templates: attribute listings ("which IOS-XE versions run at Branch-05"), devices
failing a topic ("devices without an NTP server"), and inventory counts ("how many firewalls at HQ").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from orchestration.tools.scope import scope_conditions
from orchestration.warehouse.schema import Ontology, get_ontology
from orchestration.warehouse.sql_guard import validate
from orchestration.warehouse.store import QueryResult, Warehouse

_I = re.IGNORECASE
# phrase -> rule ids, for "devices without <topic>" (most specific first)
TOPIC_RULES: list[tuple[str, list[str]]] = [
    (r"ntp auth", ["NTP-AUTH"]), (r"\bntp\b|time server|time sync", ["NTP-SERVER"]),
    (r"syslog|log(ging)? (server|host)|central log", ["LOG-HOST"]), (r"snmp ?v3", ["SNMP-V3-PRIV"]),
    (r"\baaa\b|tacacs|radius", ["AAA-NEW-MODEL", "AAA-LOGIN-DEFAULT"]), (r"banner", ["BANNER"]),
    (r"\bssh\b", ["SSH-V2", "VTY-SSH-ONLY"]), (r"copp|control[- ]plane polic", ["COPP"]),
    (r"bpdu ?guard", ["L2-BPDUGUARD"]), (r"dhcp snooping", ["L2-DHCP-SNOOPING"]), (r"urpf|unicast rpf", ["IF-URPF-EDGE"]),
    (r"(vty|management) acl|access-class", ["VTY-ACL"]), (r"archive|change log", ["CFG-ARCHIVE-LOG"]),
    (r"enable secret", ["PWD-ENABLE-SECRET"]), (r"password encryption", ["PWD-SERVICE-ENC"]),
]
LISTING = re.compile(r"\b(which|what|list|show)\b.*\b(versions?|releases?|software|models?|hardware|platforms?|"
                     r"operating systems?|product famil\w+|ip addresses|roles?)\b", _I)
WITHOUT = re.compile(r"\b(without|missing|lacking|(?:do|does) not have|don'?t have|doesn'?t have|with no|ha(?:ve|s) no)\b", _I)
COUNT = re.compile(r"\bhow many\b.*\b(devices|routers|switches|firewalls|wireless controllers|assets)\b", _I)
ISSUE_WORDS = re.compile(r"\b(fail\w*|deviations?|issues?|violations?|findings?|checks?|compliance|critical|severity|"
                         r"signatures?|slic|vulnerab\w*|cves?|advisor\w*|risk\w*|assess\w*|audit\w*|complian\w*|"
                         r"pass\w*|secur\w*)\b", _I)


@dataclass(frozen=True)
class SqlPlan:
    template: str
    sql: str
    params: list[Any]
    description: str


def _column_for(prompt: str, ontology: Ontology) -> str | None:
    best = None
    for column, words in ontology.synonyms.items():
        for word in words:
            if re.search(rf"\b{re.escape(word)}\b", prompt, _I) and (best is None or len(word) > best[1]):
                best = (column, len(word))
    return best[0] if best else None


def _scope_text(params: list[Any]) -> str:
    return ", ".join(str(p) for p in params) or "all devices"


def plan_sql(prompt: str, scope: dict[str, Any], latest_assessment: str | None = None) -> SqlPlan | None:
    """A SQL plan when the question is one the tools do not answer, else None."""
    ontology = get_ontology()
    where, params = scope_conditions(scope)
    cond = " AND ".join(where) or "1 = 1"
    if WITHOUT.search(prompt) and latest_assessment:
        rules = next((ids for pattern, ids in TOPIC_RULES if re.search(pattern, prompt, _I)), None)
        if rules:
            sql = (f"SELECT a.asset_id, a.site, a.device_type, r.rule_id, ru.title, r.evidence "
                   f"FROM results r JOIN assets a ON a.asset_id = r.asset_id JOIN rules ru ON ru.rule_id = r.rule_id "
                   f"WHERE r.assessment_id = ? AND r.status = 'fail' AND r.rule_id IN ({', '.join('?' for _ in rules)}) "
                   f"AND {cond} ORDER BY a.site, a.asset_id")
            return SqlPlan("devices_failing_topic", sql, [latest_assessment, *rules, *params],
                           f"devices failing {', '.join(rules)} in {latest_assessment}")
    if COUNT.search(prompt) and not ISSUE_WORDS.search(prompt):
        sql = f"SELECT a.site, a.device_type, COUNT(*) AS devices FROM assets a WHERE {cond} GROUP BY a.site, a.device_type ORDER BY devices DESC"
        return SqlPlan("inventory_count", sql, params, f"devices per site and type ({_scope_text(params)})")
    if LISTING.search(prompt) and not ISSUE_WORDS.search(prompt):
        column = _column_for(prompt, ontology)
        if column and column.startswith("assets."):
            col = column.split(".", 1)[1]
            extra = ", a.platform" if col == "os_version" else ""
            sql = (f"SELECT a.{col}{extra}, COUNT(*) AS devices, MIN(a.asset_id) AS example_device FROM assets a "
                   f"WHERE {cond} GROUP BY a.{col}{extra} ORDER BY devices DESC")
            label = ontology.tables["assets"].columns[col].meaning.split(",")[0]
            return SqlPlan("attribute_listing", sql, params, f"{label} ({_scope_text(params)})")
    return None


def run_sql(warehouse: Warehouse, sql: str, params: list[Any]) -> tuple[str, QueryResult]:
    """Guard, then execute with bound parameters on the (read-only) warehouse."""
    safe = validate(sql, get_ontology(), dialect="duckdb")
    return safe, warehouse.query(safe, params)
