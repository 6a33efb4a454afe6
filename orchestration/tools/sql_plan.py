"""Plans of the SQL path (DESIGN §6.2): bespoke questions the assessment tools do not cover, answered with
a read-only SELECT built from the ontology (``contracts/warehouse.yaml``); the ``sql_path`` tool guards
and runs it with bound parameters.

Deterministic templates, chosen from the request's facets (``orchestration/nlu/facets.py``): attribute
listings ("which IOS-XE versions run at Branch-05"), devices failing a topic ("devices without an NTP
server"; the topic's rules from the rule catalog), and inventory counts ("how many firewalls at HQ").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assessment_engine.ontology import Ontology
from orchestration.state import Facets
from orchestration.tools.scope import FLEET, scope_conditions


@dataclass(frozen=True)
class SqlPlan:
    template: str
    sql: str
    params: list[Any]
    description: str
    assessment_id: str | None = None  # bound before ``params`` by the sql_path tool ('latest' resolved there)
    # run when the statement returns no row: how many devices the scope holds ("none of the 4 ASAs fail it" is
    # not "no ASA there"); its parameters follow the assessment id as ``params`` do
    scope_sql: str | None = None
    scope_params: list[Any] | None = None
    group: str | None = None  # what a per-group template's rows are (its scope key: "sites", "site_type", "platform" …)


def _scope_text(params: list[Any]) -> str:
    """The scope's values in words, a long list cut in its middle ("RTR-1, RTR-2, RTR-3, …, router": the tool's
    description is short, and the answer names its rows anyway)."""
    said = [str(p) for p in params]
    return ", ".join(said if len(said) <= 6 else [*said[:3], "…", *said[-2:]]) or "all devices"


def plan_sql(facets: Facets, scope: dict[str, Any], ontology: Ontology, collection: str = FLEET) -> SqlPlan | None:
    """A SQL plan when the request (its facets) is one the tools do not answer, else None. Inventory templates
    read the assets of ``collection`` only (an upload's devices are not the fleet's); ``ontology`` names the column
    listed."""
    where, params = scope_conditions(scope)
    cond = " AND ".join(where) or "1 = 1"
    inventory_cond, inventory_params = f"{cond} AND a.collection = ?", [*params, collection]
    if facets.without_rules:
        rules = facets.without_rules
        sql = (f"SELECT a.asset_id, a.site, a.device_type, r.rule_id, ru.title, r.evidence "
               f"FROM results r JOIN assets a ON a.asset_id = r.asset_id JOIN rules ru ON ru.rule_id = r.rule_id "
               f"WHERE r.assessment_id = ? AND r.status = 'fail' AND r.rule_id IN ({', '.join('?' for _ in rules)}) "
               f"AND {cond} ORDER BY a.site, a.asset_id")
        return SqlPlan("devices_failing_topic", sql, [*rules, *params],
                       f"devices failing {', '.join(rules)} in {{assessment_id}}", assessment_id="latest")
    if facets.inventory_count:
        sql = (f"SELECT a.site, a.device_type, COUNT(*) AS devices FROM assets a WHERE {inventory_cond} "
               "GROUP BY a.site, a.device_type ORDER BY devices DESC")
        return SqlPlan("inventory_count", sql, inventory_params, f"devices per site and type ({_scope_text(params)})")
    column = facets.listing_column
    if column and column.startswith("assets."):
        col = column.split(".", 1)[1]
        extra = ", a.platform" if col == "os_version" else ""
        sql = (f"SELECT a.{col}{extra}, COUNT(*) AS devices, MIN(a.asset_id) AS example_device FROM assets a "
               f"WHERE {inventory_cond} GROUP BY a.{col}{extra} ORDER BY devices DESC")
        label = ontology.tables["assets"].columns[col].meaning.split(",")[0]
        return SqlPlan("attribute_listing", sql, inventory_params, f"{label} ({_scope_text(params)})")
    return None
