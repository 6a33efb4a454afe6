"""Prompt facets: read once by the classifier, consumed by agents as data (no agent re-parses the prompt)."""

from __future__ import annotations

import pytest

from orchestration.agents.data_query_agent import select_tool
from orchestration.agents.intent_classifier import classify
from orchestration.agents.security_assessment_agent import category_of
from orchestration.nlu.facets import asked_besides, read_facets, topic_rules
from orchestration.services import Services
from tests.catalog import BUNDLED, BY_ID, CONTRACTS, RULES


@pytest.mark.parametrize(("prompt", "tracking", "change"), [
    ("Which critical deviations remain open?", "persistent", False),
    ("Which issues are unresolved at HQ?", "unresolved", False),
    ("Which violations are recurring?", "recurring", False),
    ("What changed since the last assessment?", None, True),
    ("Which assets got worse?", None, True),
    ("Summarize the latest assessment", None, False),
])
def test_over_time_questions_are_told_apart_once(prompt: str, tracking: str | None, change: bool) -> None:
    facets = read_facets(prompt, BUNDLED)
    assert (facets.tracking, facets.change) == (tracking, change)


def test_the_tool_follows_the_facets_not_the_prompt(services: Services) -> None:
    intent = classify("Summarize the latest configuration assessment", services=services)
    assert select_tool(intent).tool == "assessment_analysis_tool"
    # the same intent carrying a tracking facet goes to issue tracking: the agent reads facets, not words
    tracked = intent.evolve(facets=intent.facets.evolve(tracking="unresolved"))
    assert select_tool(tracked).tool == "issue_tracking_tool"


@pytest.mark.parametrize(("text", "rules"), [
    ("devices without NTP authentication", ["NTP-AUTH"]),
    ("devices without an NTP server", ["NTP-SERVER"]),
    ("routers that don't have ssh", ["VTY-SSH-ONLY", "SSH-V2"]),  # catalog order
    ("switches with no tacacs", ["AAA-NEW-MODEL", "AAA-LOGIN-DEFAULT"]),
    ("devices without a fresh coat of paint", []),
])
def test_rule_topics_come_from_the_rule_catalog_longest_phrase_first(text: str, rules: list[str]) -> None:
    assert topic_rules(text, RULES) == rules
    assert read_facets(text, BUNDLED).without_rules == rules


def test_sql_templates_are_chosen_from_facets() -> None:
    assert read_facets("Which IOS-XE versions run at Branch-05?", BUNDLED).listing_column == "assets.os_version"
    assert read_facets("How many firewalls are at HQ?", BUNDLED).inventory_count
    assert not read_facets("How many firewalls failed the SSH check?", BUNDLED).inventory_count


def test_planner_conditions_are_read_with_the_contract_patterns() -> None:
    assert "enterprise_enrichment" in CONTRACTS.planner_rules.conditions
    assert "enterprise_enrichment" in read_facets("Summarize against our standards", BUNDLED).planner_conditions
    assert read_facets("Summarize the latest assessment", BUNDLED).planner_conditions == []


def test_security_categories_live_in_the_rule_catalog() -> None:
    categories = {r.id: r.security_category for r in RULES}
    assert category_of("HTTP-SERVER", BY_ID) == "insecure management services"
    assert category_of("AAA-NEW-MODEL", BY_ID) == "weak AAA" and category_of("IF-URPF-EDGE", BY_ID) == "exposure"
    assert category_of("NO-SUCH-RULE", BY_ID) == "missing hardening"
    assert set(categories.values()) == {"insecure management services", "weak AAA", "exposure", "missing hardening"}


@pytest.mark.parametrize(("prompt", "actions"), [
    ("what does the first one fail", False),  # an ordinal: the row, no order of fixes
    ("the first 3 devices - what do they fail", False),
    ("what should we fix first", True),
    ("which comes first in the plan", True),
])
def test_first_as_an_ordinal_asks_for_no_fixes(prompt: str, actions: bool) -> None:
    assert asked_besides(prompt)["actions_asked"] is actions
