"""``Services`` own what they build: two of them over two settings in one process see nothing of each other's, and
what answers read from the rule catalog follows the settings (a view kept apart from its catalog went stale)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from foundation.config import PROJECT_ROOT, get_settings
from orchestration.agents.security_assessment_agent import category_of
from orchestration.runtime import handle_turn, turn_graph
from orchestration.services import Services, build_services


def test_two_services_over_two_data_directories_read_their_own_names(
        demo_warehouse: Path, isolated_data_dir: Path, services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = services
    assert "HQ" in demo.names().sites.values()
    monkeypatch.setenv("ASSESS_DATA_DIR", str(isolated_data_dir))  # an empty data directory: no warehouse
    empty = build_services(get_settings(), reuse=demo)
    assert empty.names().sites == {} and "HQ" in demo.names().sites.values()
    assert empty.name_cache is not demo.name_cache
    # the router and frame reader are shared (built from the bundled contracts and model), the graph is not
    assert empty.router() is demo.router() and empty.reader() is demo.reader()
    assert turn_graph(empty) is not turn_graph(demo) and turn_graph(demo) is turn_graph(demo)


def test_services_of_other_contracts_share_no_router(services: Services, tmp_path: Path) -> None:
    contracts = tmp_path / "contracts"
    shutil.copytree(PROJECT_ROOT / "contracts", contracts)
    other = build_services(services.settings.model_copy(update={"contracts_dir": contracts}), reuse=services)
    assert other.readers is not services.readers


def test_a_turn_runs_over_the_services_it_is_given(demo_warehouse: Path, services: Services) -> None:
    state = handle_turn("how many devices fail the ssh v2 check?", services=services)
    assert state.final.answer and not state.final.partial
    assert services.kept("graph", lambda s: None) is turn_graph(services)  # the turn compiled it onto these services


def test_each_services_read_the_catalog_of_their_contracts_directory(tmp_path: Path, services: Services) -> None:
    assert category_of("SSH-V2", services.catalog.rules.by_id) != "exposure"
    contracts = tmp_path / "contracts"
    shutil.copytree(PROJECT_ROOT / "contracts", contracts)
    rules = contracts / "rules" / "config_rules.yaml"
    text = rules.read_text(encoding="utf-8")
    start = text.index("  - id: SSH-V2\n")
    end = text.index("\n  - id:", start + 1)
    block = text[start:end]
    assert "security_category:" in block
    changed = "\n".join("    security_category: exposure" if line.startswith("    security_category:") else line
                        for line in block.split("\n"))
    rules.write_text(text[:start] + changed.replace("id: SSH-V2", "id: SSH-V2-LOCAL") + text[end:], encoding="utf-8")
    other = build_services(services.settings.model_copy(update={"contracts_dir": contracts}), reuse=services)
    assert category_of("SSH-V2-LOCAL", other.catalog.rules.by_id) == "exposure"
    assert "SSH-V2-LOCAL" in other.catalog.rules.ids and "SSH-V2" not in other.catalog.rules.ids
    assert "SSH-V2" in services.catalog.rules.ids  # the first services' catalog is untouched
    assert build_services(services.settings, reuse=services).catalog is services.catalog  # same directory: shared


def test_the_chat_servers_parts_are_built_from_settings_and_two_builds_share_nothing(
        isolated_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the chat server keeps is one object built from the settings (no chat module keeps anything): two builds
    have their own limits, throttle, uploads and upload folder, and a second build's sweep leaves the first's folder
    (its lock is held while its parts live)."""
    import chainlit.config
    import chainlit.server

    from chat_app.server_parts import build_parts

    for module in (chainlit.config, chainlit.server):  # where Chainlit reads the upload folder: restored after
        monkeypatch.setattr(module, "FILES_DIRECTORY", module.FILES_DIRECTORY)
    first, second = build_parts(get_settings()), build_parts(get_settings())
    assert first.limits is not second.limits and first.throttle is not second.throttle
    assert first.uploads is not second.uploads and first.background is not second.background
    assert first.services is not second.services and first.turn_pool is None
    assert first.files.folder != second.files.folder
    assert first.files.folder.parent == isolated_data_dir / "chainlit_files" and first.files.folder.exists()
    assert second.files.folder == chainlit.config.FILES_DIRECTORY



def test_each_services_keep_their_own_database_pools_and_migrations(services: Services) -> None:
    """The stores a services object has migrated (and, on PostgreSQL, its connection pools) are its own: a second
    services object over the same data migrates nothing twice in its own store and shares nothing with the first."""
    store = services.memory()
    assert store.schema_version() > 0 and len(services.databases.migrated) == 1
    other = build_services(services.settings, reuse=services)
    assert other.databases is not services.databases and not other.databases.migrated
    assert other.memory().schema_version() == store.schema_version() and len(other.databases.migrated) == 1
