"""Data Query Agent: tool choice, explicit entity -> parameter binding, and the allowlisted registry."""

from __future__ import annotations

import pytest

from orchestration.agents.data_query_agent import select_tool
from orchestration.agents.intent_classifier import classify
from orchestration.services import Services, build_services
from orchestration.tools.registry import ToolOutcome


def choose(prompt: str, services: Services):  # type: ignore[no-untyped-def]
    return select_tool(classify(prompt, services=services))


def call_tool(name: str, params: dict) -> ToolOutcome:  # type: ignore[type-arg]
    return build_services().tools.call(name, params)


@pytest.mark.parametrize(("prompt", "tool", "query_type"), [
    ("Give me statistics on the latest configuration assessment", "assessment_analysis_tool", "summary"),
    ("Show the critical configuration deviations on production routers", "assessment_analysis_tool", "filtering"),
    ("Which product families have the most best practice deviations?", "assessment_analysis_tool", "assets"),
    ("Break down the configuration deviations by technology", "assessment_analysis_tool", "technology"),
    ("Which approved exceptions were applied in the last assessment?", "assessment_analysis_tool", "exceptions"),
    ("Which assets got worse since the previous assessment?", "assessment_comparison_tool", None),
    ("What is the trend of configuration compliance?", "assessment_comparison_tool", None),
    ("Which high severity deviations are still unresolved?", "issue_tracking_tool", None),
    ("Which best practice violations keep failing assessment after assessment?", "issue_tracking_tool", None),
])
def test_tool_choice_follows_the_prompt(prompt: str, tool: str, query_type: str | None, services: Services) -> None:
    choice = choose(prompt, services=services)
    assert choice.tool == tool
    if query_type:
        assert choice.params["query_type"] == query_type


def test_entities_bind_to_parameters(services: Services) -> None:
    choice = choose("Show critical configuration deviations on production firewalls at DataCenter-1 in ASMT-2026-10-01", services=services)
    assert choice.params["severity_filter"] == "critical"
    assert choice.params["assessment_id"] == "ASMT-2026-10-01"
    assert choice.params["scope"] == {"sites": ["DataCenter-1"], "environment": "production", "device_type": "firewall"}
    assert choice.bindings["scope.sites"] == "entity site" and choice.bindings["severity"] == "entity severity"


def test_issue_tracking_binds_timeframe_and_priority(services: Services) -> None:
    choice = choose("Which critical best practice deviations remain open from the prior assessment?", services=services)
    assert choice.params == {"tracking_scope": "persistent", "assessment_scope": "since_prior",
                             "priority": "critical", "scope": {}}


def test_comparison_defaults_to_latest_against_previous(services: Services) -> None:
    choice = choose("Which devices at HQ improved compared with the previous audit?", services=services)
    assert (choice.params["current_assessment_id"], choice.params["previous_assessment_id"]) == ("latest", "previous")
    assert choice.params["comparison_focus"] == "assets"
    assert choice.params["scope"] == {"sites": ["HQ"]}


def test_registry_refuses_unknown_tools_and_invalid_parameters() -> None:
    unknown = call_tool("drop_tables_tool", {})
    assert unknown.call.status == "error" and "not an allowlisted tool" in (unknown.call.error or "")
    missing = call_tool("assessment_comparison_tool", {"current_assessment_id": "latest"})
    assert missing.call.status == "error" and "required" in (missing.call.error or "")
    bad_enum = call_tool("assessment_analysis_tool", {"query_type": "everything"})
    assert bad_enum.call.status == "error" and "query_type" in (bad_enum.call.error or "")
    extra = call_tool("issue_tracking_tool", {"tracking_scope": "unresolved", "assessment_scope": "latest",
                                              "sql": "DROP TABLE x"})
    assert extra.call.status == "error" and "sql" in (extra.call.error or "")
