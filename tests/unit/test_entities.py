"""Deterministic entity extraction: canonical values, nothing invented."""

from __future__ import annotations

import pytest

from orchestration.nlu.entities import Gazetteer, extract_entities


def pairs(text: str, gazetteer: Gazetteer | None = None) -> set[tuple[str, str]]:
    return {(e.type, e.value) for e in extract_entities(text, gazetteer)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("issues at data center 1", {("site", "DataCenter-1")}),
        ("issues at DC1", {("site", "DataCenter-1")}),
        ("branch 5 routers", {("site", "Branch-05"), ("device_type", "router")}),
        ("what about site-a", {("site", "Site-A")}),
        ("the headquarters switches", {("site", "HQ"), ("device_type", "switch")}),
        ("fix rtr-core-1 please", {("device", "RTR-CORE-1")}),
        ("our production firewalls", {("environment", "production"), ("device_type", "firewall")}),
        ("critical configuration deviations", {("severity", "critical")}),
        ("which issues pose the highest risk", {("severity", "high")}),
        ("changes since my last assessment", {("timeframe", "since_last_assessment")}),
        ("still open from the prior assessment", {("timeframe", "since_prior_assessment")}),
        ("during the last 30 days", {("timeframe", "last_30_days")}),
        ("top 5 issues", {("output_format", "top_5")}),
        ("vlan 120 on 10.20.30.40", {("vlan", "120"), ("ip_address", "10.20.30.40")}),
        ("results of ASMT-2026-09-01", {("assessment_id", "ASMT-2026-09-01")}),
        ("this is urgent", {("priority", "urgent")}),
    ],
)
def test_extracts_canonical_entities(text: str, expected: set[tuple[str, str]]) -> None:
    assert expected <= pairs(text)


def test_store_range_expands_to_every_store() -> None:
    sites = {v for t, v in pairs("POS terminals at Store-45…Store-52") if t == "site"}
    assert sites == {f"Store-{n}" for n in range(45, 53)}


@pytest.mark.parametrize("text", [
    "high availability design", "critical assets by criticality tier", "PCI-DSS scope", "how do I fix CFG-003",
    "what is the weather", "invalid ip 999.1.1.1", "vlan 5000",
])
def test_does_not_invent_entities(text: str) -> None:
    found = pairs(text)
    assert not {t for t, _ in found} & {"severity", "device", "ip_address", "vlan", "site"}, found


def test_hostname_prefix_is_not_a_device_type() -> None:
    assert ("device_type", "router") not in pairs("critical deviations on RTR-CORE-1")


def test_gazetteer_names_match_exactly_and_canonicalize() -> None:
    gaz = Gazetteer.of(sites=["Campus-North"], devices=["CORE-SW-A"])
    found = pairs("is campus-north ok? check core-sw-a", gaz)
    assert ("site", "Campus-North") in found and ("device", "CORE-SW-A") in found
