"""Planner: deterministic plans from the contracts' data dependencies (DESIGN §5 table)."""

from __future__ import annotations

import pytest

from orchestration.agents.intent_classifier import classify
from orchestration.agents.planner import build_plan
from orchestration.services import Services
from tests.catalog import CONTRACTS

KA, DQ, SLIC = "Knowledge Agent", "Data Query Agent", "SLIC Agent"
CBP, SEC = "Config Best Practice Agent", "Security Assessment Agent"


def plan_for(prompt: str, services: Services):  # type: ignore[no-untyped-def]
    return build_plan(classify(prompt, services=services), CONTRACTS)


@pytest.mark.parametrize(("prompt", "routing"), [
    ("Summarize my latest configuration best practice assessment", [DQ, CBP]),
    ("Summarize the latest assessment against our approved exceptions", [KA, DQ, CBP]),
    ("What do the SLIC findings at HQ mean under our internal policies?", [KA, DQ, SLIC, CBP]),
    ("How should I configure NTP authentication according to our standard?", [KA, CBP]),
    ("Which devices allow telnet management?", [DQ, SEC]),
    ("Assess the security posture of Branch-05", [KA, DQ, SEC]),
    ("How do I harden SSH on a Cisco router?", [KA, SEC]),
    ("Which SLIC signatures point to vulnerable software on our firewalls?", [KA, DQ, SLIC, SEC]),
])
def test_routing_follows_the_design_table(prompt: str, routing: list[str], services: Services) -> None:
    assert plan_for(prompt, services=services).routing == routing


def test_dependencies_and_required_data_come_from_contracts(services: Services) -> None:
    plan = plan_for("What do the SLIC findings at HQ mean under our internal policies?", services=services)
    by_owner = {t.owner: t for t in plan.tasks}
    assert by_owner[KA].depends_on == []
    assert by_owner[SLIC].depends_on == []  # independent of the others: runs in parallel with the Knowledge Agent
    assert by_owner[DQ].depends_on == [by_owner[KA].id]
    assert set(by_owner[CBP].depends_on) == {by_owner[KA].id, by_owner[DQ].id, by_owner[SLIC].id}
    paths = {r.data_path for r in by_owner[CBP].required_data}
    assert paths == {"enterprise_context.retrieved_chunks", "assessment_context.report_data", "slic_context.results"}
    assert all(r.required and r.min_count >= 1 for r in by_owner[CBP].required_data)
    assert by_owner[CBP].skill == "cbp_expert_insights"
    assert [t.id for t in plan.tasks] == ["T1", "T2", "T3", "T4"]
    assert all(t.status == "pending" for t in plan.tasks)


def test_optional_enrichment_is_declared_optional(services: Services) -> None:
    plan = plan_for("Summarize the latest assessment against our approved exceptions", services=services)
    optional = [r for r in plan.tasks[-1].required_data if not r.required]
    assert [r.data_path for r in optional] == ["enterprise_context.retrieved_chunks"]


def test_same_intent_same_plan(services: Services) -> None:
    prompt = "Which critical deviations remain open at DataCenter-1 per our policy?"
    assert plan_for(prompt, services=services) == plan_for(prompt, services=services)


def test_planner_refuses_an_unclassified_intent(services: Services) -> None:
    with pytest.raises(ValueError, match="clarification gate"):
        build_plan(classify("what's the weather", services=services), CONTRACTS)
