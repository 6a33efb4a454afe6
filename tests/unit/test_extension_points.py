"""Adding a tool or an agent is one contract file, one module and one registration line: a throwaway tool and agent
(tests/fixtures/extension) are planned, run, rendered and exported without an edit of the product.

The tool (``software_train_tool``) is a query tool the Data Query Agent picks by the condition its contract
declares; the agent (Upgrade Wave Agent) declares in its contract the skills it provides data for, so the
Planner plans it, after the Data Query Agent it consumes. Figures are checked by SQL on the warehouse.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from chat_app import step_views
from chat_app.rendering import node_label
from foundation.config import PROJECT_ROOT, get_settings
from foundation.yaml_files import ContractError
from orchestration.contracts import load_contracts
from orchestration.csv_export import answer_tables
from orchestration.graph import build_graph
from orchestration.interpretation.markdown import markdown_problems, tables
from orchestration.runtime import handle_turn
from orchestration.services import Services, build_services
from orchestration.trace_export import thread_states, to_json, to_markdown
from tests.fixtures.extension import software_train_tool, upgrade_wave_agent

EXTENSION = Path(__file__).parents[1] / "fixtures" / "extension"


def _contracts_with_extension(tmp_path: Path) -> Path:
    contracts = tmp_path / "contracts"
    shutil.copytree(PROJECT_ROOT / "contracts", contracts)
    for kind in ("agents", "tools"):
        for contract in (EXTENSION / "contracts" / kind).glob("*.yaml"):
            shutil.copy(contract, contracts / kind / contract.name)  # the one contract file of each
    return contracts


@pytest.fixture()
def extended(demo_warehouse: Path, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Services:
    monkeypatch.setenv("ASSESS_CONTRACTS_DIR", str(_contracts_with_extension(tmp_path)))
    # the one registration line of each
    return build_services(get_settings(), reuse=services, agents={"upgrade_wave_agent": upgrade_wave_agent},
                          tools={"software_train_tool": software_train_tool.software_trains})


def test_a_throwaway_tool_and_agent_are_planned_run_rendered_and_exported(extended: Services,
                                                                          demo_warehouse: Path) -> None:
    with duckdb.connect(str(demo_warehouse), read_only=True) as con:
        trains = con.execute("SELECT platform, os_version, count(*) FROM assets WHERE collection = 'fleet' "
                             "GROUP BY 1, 2").fetchall()
        per_platform = dict(con.execute("SELECT platform, count(*) FROM assets WHERE collection = 'fleet' "
                                        "GROUP BY 1").fetchall())

    state = handle_turn("which software trains do we run? plan the upgrade waves", thread_id="ext-1",
                        services=extended)

    # planned: the agent after the Data Query Agent it consumes, the domain agent after both
    plan = {t.owner: t for t in state.plan.tasks}
    wave, query = plan["Upgrade Wave Agent"], plan["Data Query Agent"]
    assert wave.depends_on == [query.id] and wave.id in state.plan.domain_task().depends_on
    # run: the Data Query Agent chose the extension tool by its contract's condition
    context = query.outputs.assessment_context
    assert context is not None and context.tool_selection.tool == "software_train_tool"
    call = next(c for c in state.mcp.tool_calls if c.tool_name == "software_train_tool")
    assert call.status == "ok" and call.row_count == len(trains)
    assert wave.status == "completed" and wave.outputs.data_table is not None
    assert {r[1]: r[2] for r in wave.outputs.data_table.rows} == per_platform

    # rendered: the tool's rows and the agent's table in the answer, well-formed, every figure traced to data
    answer = state.final.answer
    assert f"`software_train_tool` returned {len(trains)} rows of trains" in answer
    assert "**Upgrade waves** (Upgrade Wave Agent)" in answer
    assert not markdown_problems(answer, {c.number for c in state.final.citations})
    shown = {tuple(head): body for head, body in tables(answer)}
    assert len(shown[("platform", "os_version", "devices")]) == len(trains)
    assert {r[1]: int(r[2]) for r in shown[("Wave", "Platform", "Devices", "Trains")]} == per_platform
    assert not state.final.partial, state.final.missing_inputs
    # the chat layer: the step is labelled from the agent's contract and shows its task
    assert node_label("upgrade_wave_agent", extended.contracts) == "Upgrade Wave Agent"
    step = step_views.task_view(wave, [], "completed: 3 waves", 1.0, "T4 outputs (JSON)")
    assert step.startswith("**completed**") and f"Upgrade waves: {len(per_platform)} rows of Wave, Platform" in step

    # exported: the Markdown report, the JSON trace and the CSV tables of the stored turn
    stored = thread_states("ext-1", None, extended.memory())
    report, trace = to_markdown("ext-1", stored), to_json("ext-1", stored)
    assert "Upgrade waves" in report and "software_train_tool" in report
    assert '"Upgrade Wave Agent"' in trace and '"software_train_tool"' in trace
    csv_heads = [t.header for t in answer_tables(stored[-1], 1)]
    assert ["Wave", "Platform", "Devices", "Trains"] in csv_heads


def test_the_extension_is_planned_only_where_its_conditions_hold(extended: Services) -> None:
    state = handle_turn("how many devices fail the ssh v2 check?", thread_id="ext-2", services=extended)
    assert "Upgrade Wave Agent" not in state.plan.routing
    context = state.task_outputs("Data Query Agent").assessment_context
    assert context is not None and context.tool_selection.tool != "software_train_tool"


def test_an_agent_contract_without_a_module_or_a_misdeclared_tool_fails_naming_the_file(
        tmp_path: Path, services: Services) -> None:
    contracts = _contracts_with_extension(tmp_path)
    unregistered = build_services(services.settings.model_copy(update={"contracts_dir": contracts}), reuse=services)
    with pytest.raises(ContractError, match="upgrade_wave_agent.yaml: no module is registered"):
        build_graph(unregistered)
    tool = contracts / "tools" / "software_train_tool.yaml"
    tool.write_text(tool.read_text(encoding="utf-8").replace("kind: query", "kind: lookup"), encoding="utf-8")
    with pytest.raises(ContractError, match="software_train_tool.yaml: field 'selected_when'"):
        load_contracts(contracts)
    agent = contracts / "agents" / "upgrade_wave_agent.yaml"  # a condition may not shadow the planner's
    tool.write_text(tool.read_text(encoding="utf-8").replace("kind: lookup", "kind: query"), encoding="utf-8")
    agent.write_text(agent.read_text(encoding="utf-8").replace("conditions:\n  upgrade_waves:",
                                                              "conditions:\n  enterprise_enrichment:"),
                     encoding="utf-8")
    with pytest.raises(ContractError, match="upgrade_wave_agent.yaml: field 'conditions.enterprise_enrichment'"):
        load_contracts(contracts)
