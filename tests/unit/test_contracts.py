"""Contracts load from files, are cross-checked, and fail fast naming the file and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from foundation.config import PROJECT_ROOT
from foundation.yaml_files import ContractError
from orchestration.contracts import load_contracts

AGENTS = {"Intent Classifier", "Planner", "Knowledge Agent", "Data Query Agent", "SLIC Agent",
          "Config Best Practice Agent", "Security Assessment Agent"}


@pytest.fixture()
def contracts_copy(tmp_path: Path) -> Path:
    target = tmp_path / "contracts"
    shutil.copytree(PROJECT_ROOT / "contracts", target)
    return target


def edit(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


def test_all_contracts_load_with_every_required_agent_and_tool() -> None:
    contracts = load_contracts(PROJECT_ROOT / "contracts")
    assert set(contracts.agents) >= AGENTS
    assert {n for n, t in contracts.tools.items() if t.kind == "query"} == {
        "assessment_analysis_tool", "assessment_comparison_tool", "issue_tracking_tool", "sql_path"}
    assert {n for n, t in contracts.tools.items() if t.kind == "lookup"} == {"inventory_tool", "slic_results_tool"}
    for contract in contracts.agents.values():
        assert contract.persona and contract.skills and contract.reads and contract.writes
    cbp = contracts.agent("Config Best Practice Agent")
    deps = cbp.skills["cbp_expert_insights"].data_dependencies
    assert {d.provider for d in deps} == {"Knowledge Agent", "Data Query Agent", "SLIC Agent"}
    assert all(d.min_count >= 1 and d.priority >= 1 for d in deps)


@pytest.mark.parametrize(
    ("file", "change", "field"),
    [
        ("agents/knowledge_agent.yaml", lambda d: d.pop("persona"), "persona"),
        ("agents/config_best_practice_agent.yaml",
         lambda d: d["skills"]["cbp_assessment"]["data_dependencies"][0].update(min_count=-1),
         "skills.cbp_assessment.data_dependencies.0.min_count"),
        ("agents/config_best_practice_agent.yaml",
         lambda d: d["skills"]["cbp_generic"]["data_dependencies"][0].update(provider="Oracle Agent"),
         "skills.cbp_generic.data_dependencies.0.provider"),
        ("agents/slic_agent.yaml", lambda d: d["writes"].append("plan.tasks[0]"), "writes"),
        ("agents/data_query_agent.yaml", lambda d: d.update(node="dqa"), "node"),
        ("tools/issue_tracking_tool.yaml", lambda d: d["parameters"].update(type="nonsense"), "parameters"),
        ("agents/planner.yaml", lambda d: d["planner_rules"]["skill_owners"].update(cbp_generic="SLIC Agent"),
         "planner_rules.skill_owners.cbp_generic"),
        ("agents/data_query_agent.yaml", lambda d: d["outputs"].update(assessment_context="dict"), "outputs"),
        ("agents/slic_agent.yaml", lambda d: d["outputs"].pop("slic_context"), "outputs"),
        ("tools/inventory_tool.yaml", lambda d: d.pop("returns"), "returns"),
    ],
)
def test_malformed_contract_names_file_and_field(contracts_copy: Path, file: str, change, field: str) -> None:  # type: ignore[no-untyped-def]
    edit(contracts_copy / file, change)
    with pytest.raises(ContractError) as err:
        load_contracts(contracts_copy)
    assert file.split("/")[-1] in str(err.value)
    assert f"'{field}'" in str(err.value)


def test_unparseable_yaml_names_the_file(contracts_copy: Path) -> None:
    (contracts_copy / "agents" / "slic_agent.yaml").write_text("name: [unclosed\n")
    with pytest.raises(ContractError, match="slic_agent.yaml"):
        load_contracts(contracts_copy)


STATE_READS = {"input": "input", "intent": "intent", "plan": "plan", "mcp": "mcp.tool_calls",
               "conversation": "conversation", "final": "final", "prompt": "conversation", "task_outputs": "plan"}


@pytest.mark.parametrize("node", sorted(c.node for c in load_contracts(PROJECT_ROOT / "contracts").agents.values()))
def test_agents_read_only_the_state_their_contract_lists(node: str) -> None:
    """``reads`` is enforced by reading the agent's code: every ``state.<field>`` it touches is listed."""
    import ast

    contract = load_contracts(PROJECT_ROOT / "contracts").by_node(node)
    tree = ast.parse((PROJECT_ROOT / "orchestration" / "agents" / f"{node}.py").read_text())
    touched = {STATE_READS[n.attr] for n in ast.walk(tree) if isinstance(n, ast.Attribute)
               and isinstance(n.value, ast.Name) and n.value.id == "state" and n.attr in STATE_READS}
    if "prompt" in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}:
        touched.add("input")  # state.prompt is the user's words or the conversation's effective prompt
    assert touched, f"{node} reads nothing from STATE?"
    assert touched <= set(contract.reads), f"{node} reads {sorted(touched - set(contract.reads))} not in its contract"


@pytest.mark.parametrize("node", ["data_query_agent", "planner", "slic_agent", "config_best_practice_agent",
                                  "security_assessment_agent", "answer_composer"])
def test_no_agent_reads_the_prompt_to_decide_what_to_do(node: str) -> None:
    """Routing decisions come from the intent's facets, read once by the classifier; a regex over the prompt in
    these agents would be a second reading that can disagree with the first."""
    source = (PROJECT_ROOT / "orchestration" / "agents" / f"{node}.py").read_text()
    assert "import re\n" not in source and "re.search(" not in source and "re.compile(" not in source


def test_tool_severity_enums_are_the_severity_vocabulary() -> None:
    from foundation.vocabulary.severity import SEVERITIES

    tools = load_contracts(PROJECT_ROOT / "contracts").tools
    enums = [spec["enum"] for tool in tools.values() for name, spec in tool.parameters["properties"].items()
             if name in ("severity_filter", "priority")]
    assert len(enums) == 3 and all(e == [*SEVERITIES, None] for e in enums)
