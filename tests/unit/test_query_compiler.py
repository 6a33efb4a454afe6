"""The compiler's statement gives what a hand-written one gives, on the demo warehouse: values, groups, bounds (zero
included), negations, conditions on checks that keep empty groups, several runs, months of events, SLIC matches by
CVE, orders and limits (the rows tied at the cut kept), two devices' verdicts per check — and the semantic model refuses
what it does not declare."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assessment_engine.query import Bound, Condition, DataQuery, Order
from assessment_engine.warehouse.query_compiler import QueryError, compile_query
from orchestration.answer_checks import warehouse_query
from orchestration.services import Services


def _runs(query: Any) -> list[str]:
    return [r[0] for r in query("SELECT assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at")]


def _compiled_rows(services: Services, query: DataQuery) -> list[tuple[Any, ...]]:
    compiled = compile_query(query, services.catalog.semantic_model, "fleet")
    rows = services.warehouse().query(compiled.sql, compiled.params).rows
    return [tuple(r[:len(compiled.columns)]) for r in rows]


def test_compiled_statements_give_what_hand_written_ones_give(demo_warehouse: Path, services: Services) -> None:
    oracle = warehouse_query(demo_warehouse)
    runs = _runs(oracle)
    latest = runs[-1]
    cases: list[tuple[DataQuery, str]] = [
        (DataQuery(measures=["failed_checks"], conditions=[Condition(dimension="site", values=["Store-50"])],
                   runs=[latest]),
         "SELECT COUNT(*) FROM {R} WHERE r.assessment_id = {LATEST} AND a.site = 'Store-50' AND r.status = 'fail'"),
        (DataQuery(measures=["pass_rate"], group_by=["site_type"], runs=[latest]),
         "SELECT s.site_type, {PASS} FROM {R} WHERE r.assessment_id = {LATEST} GROUP BY 1 ORDER BY 1"),
        (DataQuery(measures=["failed_checks"], group_by=["device"], runs=[latest], bounds=[Bound(
            measure="failed_checks", op=">", value=0)], conditions=[
            Condition(dimension="site_type", values=["branch"]), Condition(dimension="rule", values=["NTP-AUTH"])]),
         "SELECT r.asset_id, COUNT(*) FROM {R} WHERE r.assessment_id = {LATEST} AND s.site_type = 'branch' AND "
         "r.rule_id = 'NTP-AUTH' AND r.status = 'fail' GROUP BY 1 ORDER BY 1"),
        # the stores with no critical failure: a condition on checks keeps every store's row, the bound picks zeros
        (DataQuery(measures=["failed_checks"], group_by=["site"], runs=[latest], bounds=[Bound(
            measure="failed_checks", op="=", value=0)], conditions=[
            Condition(dimension="site_type", values=["store"]), Condition(dimension="severity", values=["critical"])]),
         "SELECT st.site, 0 FROM sites st WHERE st.site_type = 'store' AND NOT EXISTS (SELECT 1 FROM {R} WHERE "
         "r.assessment_id = {LATEST} AND a.site = st.site AND r.status = 'fail' AND r.severity = 'critical') ORDER BY 1"),
        (DataQuery(measures=["pass_rate"], group_by=["release"], runs=[latest], order=Order(
            measure="pass_rate", descending=False), limit=3),
         "SELECT a.os_version, {PASS} p FROM {R} WHERE r.assessment_id = {LATEST} GROUP BY 1 ORDER BY p, 1 LIMIT 3"),
        (DataQuery(measures=[], group_by=["device"], conditions=[Condition(dimension="site", values=["HQ"]),
                                                                Condition(dimension="release", values=["17.9.4"],
                                                                          negated=True)]),
         "SELECT asset_id FROM assets WHERE collection = 'fleet' AND site = 'HQ' AND os_version <> '17.9.4' ORDER BY 1"),
        (DataQuery(measures=["failed_checks"], conditions=[Condition(dimension="site", values=["HQ"])],
                   runs=runs, output="series"),
         "SELECT r.assessment_id, COUNT(*) FILTER (WHERE r.status = 'fail') FROM {R} WHERE a.site = 'HQ' "
         "GROUP BY 1 ORDER BY 1"),
        (DataQuery(measures=["failed_logins"], group_by=["site"], months=["2026-10"], order=Order(
            measure="failed_logins"), limit=1),
         "SELECT a.site, COUNT(*) n FROM events e JOIN assets a ON a.asset_id = e.asset_id AND a.collection = 'fleet' "
         "WHERE e.mnemonic = 'SEC_LOGIN-4-LOGIN_FAILED' AND strftime(e.ts, '%Y-%m') = '2026-10' GROUP BY 1 "
         "ORDER BY n DESC, 1 LIMIT 1"),
        (DataQuery(measures=["devices_matched"], conditions=[Condition(dimension="cve", values=["CVE-2023-20198"])],
                   runs=[latest]),
         "SELECT COUNT(DISTINCT x.asset_id) FROM {SL} WHERE x.assessment_id = {LATEST} AND x.cves LIKE "
         "'%CVE-2023-20198%'"),
        (DataQuery(measures=["pass_rate"], conditions=[Condition(dimension="topic", values=["ssh"]),
                                                      Condition(dimension="device_type", values=["router"])],
                   runs=[latest]),
         "SELECT {PASS} FROM {R} JOIN rules u ON u.rule_id = r.rule_id WHERE r.assessment_id = {LATEST} AND "
         "u.technology = 'ssh' AND a.device_type = 'router'"),
        (DataQuery(measures=["failed_checks"], conditions=[Condition(dimension="site", values=["HQ"]), Condition(
            dimension="severity", values=["critical"], negated=True)], runs=[latest]),
         "SELECT COUNT(*) FROM {R} WHERE r.assessment_id = {LATEST} AND a.site = 'HQ' AND r.status = 'fail' AND "
         "r.severity <> 'critical'"),
        # the rows tied at the limit's cut are kept: two models have as many devices as the second
        (DataQuery(measures=["devices"], group_by=["model"], order=Order(measure="devices"), limit=2),
         "SELECT model, n FROM (SELECT model, COUNT(*) n, RANK() OVER (ORDER BY COUNT(*) DESC) place FROM assets WHERE "
         "collection = 'fleet' GROUP BY model) WHERE place <= 2 ORDER BY n DESC, model"),
        # a place in the ranking: the second and third by devices, the rows tied there kept
        (DataQuery(measures=["devices"], group_by=["platform"], order=Order(measure="devices"), limit=2, offset=1),
         "SELECT platform, n FROM (SELECT platform, COUNT(*) n, RANK() OVER (ORDER BY COUNT(*) DESC) place FROM "
         "assets WHERE collection = 'fleet' GROUP BY platform) WHERE place > 1 AND place <= 3 ORDER BY n DESC, platform"),
        # a condition on the devices read from the checks: failing NTP-AUTH but none of LOG-HOST, NTP-SERVER
        (DataQuery(measures=["failed_checks"], group_by=["device"], runs=[latest], conditions=[
            Condition(dimension="rule", values=["NTP-AUTH"]),
            Condition(dimension="rule", values=["LOG-HOST", "NTP-SERVER"], negated=True, of_devices=True)],
            bounds=[Bound(measure="failed_checks", op=">", value=0)]),
         "SELECT asset_id, COUNT(*) FROM results WHERE assessment_id = {LATEST} AND status = 'fail' AND rule_id = "
         "'NTP-AUTH' AND asset_id IN (SELECT asset_id FROM assets WHERE collection = 'fleet') AND asset_id NOT IN ("
         "SELECT asset_id FROM results WHERE assessment_id = {LATEST} AND status = 'fail' AND rule_id IN "
         "('LOG-HOST', 'NTP-SERVER')) GROUP BY 1 ORDER BY 1"),
        # the checks two devices differ on are read from each one's verdict per check
        (DataQuery(measures=["failed_checks"], group_by=["rule", "device"], runs=[latest], output="difference",
                   conditions=[Condition(dimension="device", values=["SW-HQ-CORE-1", "SW-HQ-CORE-2"])]),
         "SELECT rule_id, asset_id, COUNT(*) FILTER (WHERE status = 'fail') FROM results WHERE assessment_id = "
         "{LATEST} AND asset_id IN ('SW-HQ-CORE-1', 'SW-HQ-CORE-2') GROUP BY 1, 2 ORDER BY 1, 2"),
        # the changes between two runs: a result beside the same check's result on the same device then — fixed
        # since the first run asked, per site; new against the run before, per check
        (DataQuery(measures=["fixed_checks"], group_by=["site"], runs=[runs[0], latest],
                   bounds=[Bound(measure="fixed_checks", op=">", value=0)]),
         f"SELECT a.site, COUNT(*) FROM results r JOIN results o ON o.asset_id = r.asset_id AND o.rule_id = r.rule_id "
         f"JOIN assets a ON a.asset_id = r.asset_id AND a.collection = 'fleet' WHERE r.assessment_id = '{latest}' AND "
         f"o.assessment_id = '{runs[0]}' AND o.status = 'fail' AND r.status <> 'fail' GROUP BY 1 ORDER BY 1"),
        (DataQuery(measures=["new_failures"], group_by=["rule"], runs=[latest],
                   bounds=[Bound(measure="new_failures", op=">", value=0)]),
         f"SELECT r.rule_id, COUNT(*) FROM results r JOIN assets a ON a.asset_id = r.asset_id AND a.collection = "
         f"'fleet' LEFT JOIN results o ON o.asset_id = r.asset_id AND o.rule_id = r.rule_id AND o.assessment_id = "
         f"'{runs[-2]}' WHERE r.assessment_id = '{latest}' AND r.status = 'fail' AND o.status IS DISTINCT FROM 'fail' "
         "GROUP BY 1 ORDER BY 1"),
    ]
    for query, sql in cases:
        want = [tuple(float(v) if isinstance(v, float) else v for v in row) for row in oracle(sql)]
        got = _compiled_rows(services, query)
        assert got == want, (query.describe(), got[:5], want[:5])


def test_the_total_is_counted_before_the_limit_and_values_are_bound(demo_warehouse: Path, services: Services) -> None:
    latest = _runs(warehouse_query(demo_warehouse))[-1]
    query = DataQuery(measures=["failed_checks"], group_by=["site"], runs=[latest], order=Order(measure="failed_checks"),
                      limit=2, conditions=[Condition(dimension="site", values=["x' OR '1'='1"], negated=True)])
    compiled = compile_query(query, services.catalog.semantic_model, "fleet")
    assert "x' OR" not in compiled.sql and "x' OR '1'='1" in compiled.params  # bound, never spliced
    rows = services.warehouse().query(compiled.sql, compiled.params).dicts()
    assert len(rows) == 2 and rows[0]["total_rows"] == 36 and rows[0]["failed_checks"] >= rows[1]["failed_checks"]


def test_a_ranking_held_to_its_own_row_asks_whether_that_row_leads(demo_warehouse: Path, services: Services) -> None:
    """"is Store-41 the site with the most failed checks": the condition on the grouped rows becomes the row asked
    about, and every row is ranked (no limit, no condition), so that where it stands can be said."""
    latest = _runs(warehouse_query(demo_warehouse))[-1]
    held = DataQuery(measures=["failed_checks"], group_by=["site"], runs=[latest], order=Order(measure="failed_checks"),
                     conditions=[Condition(dimension="site", values=["Store-41"])])
    query = held.asked_of_its_row()
    assert (query.leader, query.condition("site"), query.limit, query.output) == ("Store-41", None, 1, "yes_no")
    compiled = compile_query(query, services.catalog.semantic_model, "fleet")
    assert "LIMIT" not in compiled.sql and "place" not in compiled.sql
    assert len(services.warehouse().query(compiled.sql, compiled.params).rows) == 36
    two = held.model_copy(update={"conditions": [Condition(dimension="site", values=["Store-41", "HQ"])]})
    assert two.asked_of_its_row() == two  # "which of Store-41 and HQ has more": the two ranked, no row asked about


def test_a_yes_or_no_of_the_row_is_bound_as_a_boolean(demo_warehouse: Path, services: Services) -> None:
    """The sites' PCI scope is compared with booleans, never the text 'true' (which Trino refuses to compare)."""
    oracle = warehouse_query(demo_warehouse)
    for values, negated, sql in ((["true"], False, "pci_scope"), (["false"], False, "NOT pci_scope"),
                                 (["true"], True, "NOT pci_scope")):
        query = DataQuery(measures=["sites"], conditions=[Condition(dimension="pci_scope", values=values,
                                                                    negated=negated)])
        compiled = compile_query(query, services.catalog.semantic_model, "fleet")
        assert all(not isinstance(p, str) for p in compiled.params[1:]), compiled.params
        (n,), = oracle(f"SELECT COUNT(DISTINCT a.site) FROM assets a JOIN sites s ON s.site = a.site WHERE "
                       f"a.collection = 'fleet' AND {sql}")
        assert _compiled_rows(services, query) == [(n,)], (values, negated)


@pytest.mark.parametrize(("query", "why"), [
    (DataQuery(measures=["failed_checks", "slic_matches"]), "different tables"),
    (DataQuery(measures=["no_such_measure"]), "not in the semantic model"),
    (DataQuery(measures=["devices"], group_by=["rule"]), "does not apply"),
    (DataQuery(), "nothing to count"),
])
def test_what_the_model_does_not_declare_is_refused_with_the_reason(query: DataQuery, why: str,
                                                                    services: Services) -> None:
    with pytest.raises(QueryError, match=why):
        compile_query(query, services.catalog.semantic_model, "fleet")


def test_a_rate_per_row_is_also_pooled_over_the_rows_kept(demo_warehouse: Path, services: Services) -> None:
    # "whats the pass rate of those" of three devices: theirs together, not the mean of their three rates
    oracle = warehouse_query(demo_warehouse)
    latest = _runs(oracle)[-1]
    devices = [d for d, in oracle("SELECT asset_id FROM assets WHERE collection = 'fleet' AND os_version = '16.12.4' "
                                  "ORDER BY asset_id LIMIT 4")]
    (together,), = oracle("SELECT ROUND(100.0 * COUNT(*) FILTER (WHERE status = 'pass') / COUNT(*), 1) FROM results "
                          f"WHERE assessment_id = ? AND asset_id IN ({', '.join('?' for _ in devices)}) AND "
                          "severity IN ('high', 'critical')".replace("?", "'{}'").format(latest, *devices))
    query = DataQuery(measures=["pass_rate"], group_by=["device"], runs=[latest], output="list", conditions=[
        Condition(dimension="device", values=devices), Condition(dimension="severity", values=["high", "critical"])])
    compiled = compile_query(query, services.catalog.semantic_model, "fleet")
    rows = services.warehouse().query(compiled.sql, compiled.params).dicts()
    assert len(rows) == len(devices) and {r["pass_rate__pooled"] for r in rows} == {together}, (together, rows)
    assert "pass_rate__pooled" not in compiled.columns  # (a figure of the answer's, not a column of its table)
