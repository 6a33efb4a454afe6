"""Which questions the frame's own SQL templates answer as asked (``orchestration/tools/frame_sql.py``), by the typed
query's shape: where a template and the query read a question alike, the template answers it (its answer forms say
more: the devices judged out of those assessed, ties, each side named); where they differ, the query is what was asked
("the worst releases by pass rate" is no device ranking). Read by the Intent Classifier (a question the assessment
tools would keep, sent to a template of another shape, is compiled instead) and the Data Query Agent. Transitional:
docs/ARCHITECTURE.md "Questions as queries"."""

from __future__ import annotations

from collections.abc import Callable

from assessment_engine.query import Condition, DataQuery
from assessment_engine.semantic_model import SemanticModel
from orchestration.nlu.query_reader import KEPT_BY_NO_TOOL
from orchestration.tools.sql_plan import SqlPlan

# a query's dimension as the scope key the answer's scope line names it by
SCOPE_KEYS = {"site": "sites", "device": "devices", "site_type": "site_type", "device_type": "device_type",
              "platform": "platform", "release": "os_version", "environment": "environment", "role": "role"}


# the templates whose rows are devices, whatever the question's rows
DEVICE_ROWS = frozenset({"device_list", "devices_failing_topic"})


# each template's shape: the rows it groups by and the forms it answers
TEMPLATE_SHAPES: dict[str, Callable[[DataQuery], bool]] = {
    # the devices failing, or those clean on the checks named; not the devices passing every check
    # (its rows are the devices failing checks or the inventory's: devices counted by SLIC matches are the compiler's,
    # and so is each device's pass rate, a column it does not have: "the devices at Lab-1 with their pass rate")
    "device_list": lambda q: q.group_by == ["device"] and q.output in ("list", "table", "yes_no") and (
        not any(b.op == "=" for b in q.bounds) or q.condition("rule") is not None or q.condition("topic") is not None)
    and not set(q.measures) & {"devices_matched", "slic_matches", "pass_rate"},
    "device_rules": lambda q: q.group_by == ["rule"] and q.condition("device") is not None,
    "group_compare": lambda q: len(q.group_by) == 1 and q.output in ("table", "list") and len(q.runs) <= 1
    and all(b.op == "=" and b.value == 0 for b in q.bounds) and (q.group_by[0] not in ("device", "rule", "signature") or q.group_by == ["device"] and len(
        (q.condition("device") or Condition(dimension="device", values=[])).values) > 1),
    "run_series": lambda q: q.output in ("series", "change", "yes_no") and not q.group_by and len(q.runs) > 1,
    "group_series": lambda q: q.output in ("series", "change") and len(q.group_by) == 1,
    "site_changes": lambda q: q.output in ("series", "change") and q.group_by == ["site"],
    "rule_changes": lambda q: q.output in ("series", "change") and q.group_by == ["rule"],
    "signature_matches": lambda q: bool(q.measures) and q.measures[0] in ("devices_matched", "slic_matches")
    and q.group_by in ([], ["device"], ["signature"]),  # its rows are matches: "per site type" is the compiler's
    "inventory_share": lambda q: True, "exception_list": lambda q: True, "last_assessed": lambda q: True,
    "clean_rules": lambda q: True, "devices_failing_topic": lambda q: q.group_by == ["device"],
    "inventory_count": lambda q: bool(q.measures) and q.measures[0] == "devices",
    # every value with its devices; "which release is the most common" is a ranking, the compiler's
    "attribute_listing": lambda q: len(q.group_by) == 1 and q.group_by[0] in ("release", "model", "platform")
    and q.order is None and q.limit is None,
}


# what the templates count and rank by; none of them excludes a value ("outside DataCenter-1", "not on ios-xe"), keeps
# a figure's bound ("more than 20 failures") or reads calendar months of events
TEMPLATE_MEASURES = frozenset({"failed_checks", "devices_failing", "pass_rate", "critical_findings", "high_findings",
                               "checks", "devices_matched", "slic_matches"})
INVENTORY_TEMPLATES = frozenset({"inventory_count", "inventory_share", "attribute_listing", "exception_list",
                                 "last_assessed"})


def same_shape(plan: SqlPlan, query: DataQuery, model: SemanticModel) -> bool:
    """Whether a frame template answers the question the typed query reads (``TEMPLATE_SHAPES``): a per-group
    template's rows must be the query's groups ("rank the platforms by failed checks" is no ranking of sites), an
    inventory template counts the inventory only ("how many devices … and their pass rate" is more)."""
    template, group = plan.template, plan.group
    shape = TEMPLATE_SHAPES.get(template)
    if shape is None or not shape(query) or query.months:
        return False
    if group is not None and query.group_by and SCOPE_KEYS.get(query.group_by[0], query.group_by[0]) != group:
        return False
    if template in ("inventory_count", "inventory_share", "attribute_listing") and any(
            model.measures[m].fact != "devices" for m in query.measures):
        return False
    if template == "exception_list" and any(model.measures[m].fact == "results" for m in query.measures):
        return False  # the register lists exceptions; the checks they cover in a run are counted in its results
    if any(c.negated or c.in_measure for c in query.conditions) or query.condition("cve") is not None:
        return False  # no template excludes a value, counts a kind inside a group, or reads a CVE
    if any(d in KEPT_BY_NO_TOOL for d in query.group_by):
        return False  # nor groups by a region or tier ("which region has the worst pass rate")
    if query.asks_whether_some_pass:
        return False  # nor says whether some device passes ("is snmp v3 used anywhere at HQ")
    if template in INVENTORY_TEMPLATES:
        return True
    if not query.measures and query.group_by != ["device"]:
        return False  # rows of the inventory ("which sites are they at"), not a ranking of failures
    # (the templates rank by failed checks, or by critical then high then all: a ranking by pass rate is the compiler's)
    ranked = query.order is None or query.order.measure in ("failed_checks", "critical_findings")
    if query.limit == 1 and template == "group_compare":
        return False  # "which site is worst": the one (and those tied with it); the template lists every site
    if template == "group_compare" and query.measures[:1] == ["devices_failing"]:
        return False  # "how many devices per site type have critical findings": its lead counts failed checks
    if query.order is not None and not query.order.descending and model.measures[query.order.measure].unit == "count":
        # the templates rank the most failing first and drop groups with none: "the store with the fewest failures",
        # "the branch with the fewest critical findings" (one may have none) are the compiler's
        return False
    return ranked and all(m in TEMPLATE_MEASURES for m in query.measures) and all(
        b.op in (">", "=") and b.value == 0 for b in query.bounds)
