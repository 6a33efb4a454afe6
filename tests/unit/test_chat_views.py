"""What the chat shows beside an answer, without a browser: each step readable (tool calls with the SQL they ran and
its values, ranked chunks, the Reflector's checks, times), the complete JSON never cut, the slash commands from one
table, and an export that keeps upload results and command outputs where they appeared."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from assessment_engine.warehouse.sql_text import bind
from chat_app import commands
from chat_app import step_views as views
from chat_app.rendering import linked_markers
from foundation.config import get_settings
from orchestration.runtime import TurnEvent, iter_turn
from orchestration.services import Services
from orchestration.state import AssessmentState, Mcp, Plan
from orchestration.trace_export import thread_notes, thread_states, to_json, to_markdown
from tests.catalog import BUNDLED, CONTRACTS
from tests.stores import configured_memory

QUESTION = "Which switches at DataCenter-1 fail SNMP checks, and what does our SNMPv3 standard require?"


def _turn(prompt: str, thread: str, user: str = "local", *, services: Services) -> tuple[dict[str, str], AssessmentState]:
    """Every step's view as the chat renders it, by node, and the final STATE."""
    shown: dict[str, str] = {}
    final = None
    for item in iter_turn(prompt, thread_id=thread, user_id=user, services=services):
        if isinstance(item, AssessmentState):
            final = item
            continue
        assert isinstance(item, TurnEvent)
        plan, ms = item.update.get("plan"), views.node_ms(item.update, item.node)
        if isinstance(plan, Plan) and item.task_ids:
            mcp = item.update.get("mcp")
            calls = mcp.tool_calls if isinstance(mcp, Mcp) else []
            shown[item.node] = views.task_view(plan.tasks[0], calls, item.summary, ms, "T outputs (JSON)")
        elif item.node == "intent_classifier":
            shown[item.node] = views.intent_view(item.update["intent"])
        elif item.node == "reflector":
            shown[item.node] = views.reflector_view(item.update["final"], item.summary)
    assert final is not None
    return shown, final


def test_each_step_reads_as_what_it_did_with_the_sql_it_ran_and_the_chunks_it_ranked(demo_warehouse: Path, services: Services) -> None:
    shown, final = _turn(QUESTION, "t-views", services=services)
    data = shown["data_query_agent"]
    assert "Tool chosen: **`" in data and re.search(r"→ ok, \d+ rows, \d+ ms", data)
    blocks = re.findall(r"```sql\n(.*?)```", data, re.S)
    assert blocks and all("?" not in b for b in blocks)  # every value in place, as the engine used it
    warehouse = services.warehouse()
    run = warehouse.query("SELECT assessment_id FROM assessments WHERE collection = 'fleet' "
                          "ORDER BY started_at DESC LIMIT 1").rows[0][0]
    assert any(f"'{run}'" in b and "'DataCenter-1'" in b and "'switch'" in b for b in blocks)
    statement = next(b for b in blocks if f"'{run}'" in b)
    assert warehouse.query(statement).rows  # the SQL shown runs as it reads

    knowledge = shown["knowledge_agent"]
    ranked = re.findall(r"^\| (\d+) \| [^|]+\(([\w.-]+\.md)\) \| (\S+) \| [^|]* \| (\d\.\d{3}) \|$", knowledge, re.M)
    chunks = final.task_outputs("Knowledge Agent").enterprise_context
    assert chunks is not None and len(ranked) == len(chunks.retrieved_chunks) >= 3
    assert [r[1] for r in ranked] == [c.metadata.source for c in chunks.retrieved_chunks]
    assert "standard-snmpv3.md" in {r[1] for r in ranked}

    checks = shown["reflector"].splitlines()
    assert sum(line.startswith(("- ✓", "- ✗")) for line in checks) == 4
    assert "| Filters | site = DataCenter-1, device_type = switch" in shown["intent_classifier"]
    assert all(re.search(r"in \d+ ms|in \d+\.\d s", shown[n]) for n in ("knowledge_agent", "data_query_agent"))


def test_the_complete_outputs_are_never_cut() -> None:
    big = {"rows": [{"asset": f"sw-{i:05d}", "evidence": "x" * 80} for i in range(2000)]}
    text = views.full_outputs(big)
    assert len(text) > 200_000 and json.loads(text) == big


def test_a_statement_reads_with_its_values_and_quoted_marks_stay_text() -> None:
    sql = "SELECT '?' AS q, \"a?\" FROM t WHERE a = ? AND b IN (?, ?) AND c = ? AND d = ?"
    assert bind(sql, ["O'Brien", 3, 4.5, None, True]) == \
        "SELECT '?' AS q, \"a?\" FROM t WHERE a = 'O''Brien' AND b IN (3, 4.5) AND c = NULL AND d = TRUE"
    assert bind("SELECT 1", []) == "SELECT 1"


def test_a_reflector_that_qualified_the_answer_says_which_check_failed() -> None:
    from orchestration.state import Final

    final = Final(answer="x", partial=True, missing_inputs=["reflector: numbers not found in the task outputs: 17",
                                                             "frame: the per-device list"])
    lines = views.reflector_view(final, "qualify: …").splitlines()
    assert "qualified" in lines[0]
    assert "- ✗ Every number traces back to a task output — numbers not found in the task outputs: 17" in lines
    assert "- ✓ Every citation points at a retrieved chunk" in lines
    assert "- ✗ The answer has the question's form — the per-device list" in lines


def test_help_lists_every_command_of_the_one_table_and_unknown_commands_point_to_it(isolated_data_dir: Path, services: Services) -> None:
    text = commands.run(services, "/help", "alice", "t-help").text
    assert all(f"`{c.usage}`" in text for c in commands.COMMANDS) and "answers about **fleet**" in text
    assert text.count("\n| `/") == len(commands.COMMANDS)  # one row each: no cell broke the table
    assert "no command `/frobnicate`" in commands.run(services, "/frobnicate now", "alice", "t-help").text
    assert commands.parse("show /24 subnets at HQ") is None and commands.parse("/DOCS") is not None
    assert commands.parse("/24 subnets") is None  # a prefix length is a question, not a command


def test_collections_are_listed_and_switched_with_the_conversations_own_switch(writable_warehouse: Path, services: Services) -> None:
    from assessment_engine.warehouse.user_configs import assess_files
    from orchestration.runtime import load_conversation

    config = b"hostname lab-r1\ninterface Gi0/0\n ip address 10.0.0.1 255.255.255.0\nline vty 0 4\n transport input ssh\n"
    report = assess_files([("lab-r1.cfg", config)], BUNDLED, get_settings(), owner="alice")
    assert report.collection
    listed = commands.run(services, "/collections", "alice", "t-coll")
    assert "answers about **fleet**" in listed.text and report.collection in listed.text
    assert listed.collections == [report.collection]  # offered as a button; the current one is not
    assert report.collection not in commands.run(services, "/collections", "bob", "t-coll-b").text  # another user's

    switched = commands.run(services, f"/use {report.collection}", "alice", "t-coll")
    assert f"collection **{report.collection}**" in switched.text
    assert load_conversation(configured_memory(), "t-coll", "alice").collection == report.collection
    assert "no collection named" in commands.run(services, f"/use {report.collection}", "bob", "t-coll-b").text
    assert load_conversation(configured_memory(), "t-coll-b", "bob").collection == "fleet"
    commands.run(services, "/use fleet", "alice", "t-coll")
    assert load_conversation(configured_memory(), "t-coll", "alice").collection == "fleet"


def test_the_export_keeps_upload_results_and_command_outputs_where_they_appeared(writable_warehouse: Path, services: Services) -> None:
    store = configured_memory()
    store.add_note("t-exp", "alice", "upload", "Upload results", "**Upload results**\n\n- ✓ notes.md: added 3 chunks")
    _turn("Summarize my latest configuration best practice assessment", "t-exp", "alice", services=services)
    store.add_note("t-exp", "alice", "command", "/docs", "**Knowledge documents you can use** …")
    store.add_note("t-exp", "mallory", "command", "/docs", "planted")  # not her conversation: nothing is added
    notes = thread_notes("t-exp", "alice", services.memory())
    assert [(n["after_turn"], n["title"]) for n in notes] == [(0, "Upload results"), (1, "/docs")]
    assert thread_notes("t-exp", "mallory", services.memory()) == []

    states = thread_states("t-exp", "alice", services.memory())
    report = to_markdown("t-exp", states, notes)
    upload, turn, docs = (report.index(s) for s in ("notes.md: added 3 chunks", "## Turn 1", "Knowledge documents you"))
    assert upload < turn < docs and "planted" not in report
    assert "```sql" in report and "?" not in report.split("```sql")[1].split("```")[0]
    assert json.loads(to_json("t-exp", states, notes))["notes"][1]["title"] == "/docs"


def test_smart_install_evidence_names_the_missing_command_not_a_pattern() -> None:
    from assessment_engine.checks.slic_engine import _as_command

    assert _as_command("^no vstack$") == "`no vstack` line"
    assert _as_command(r"^snmp-server community \S+ RW") == "line like `snmp-server community … RW`"
    assert _as_command(r"^no ip\ source-route$") == "`no ip source-route` line"


def test_a_thread_restricted_to_documents_retrieves_and_cites_only_them(writable_warehouse: Path, services: Services) -> None:

    question = "Which approved exceptions cover SNMP at DataCenter-1 and what does our standard require?"
    assert "Not among the documents you can use: **nope.md**" in commands.run(services, "/sources standard-snmpv3.md, nope.md",
                                                                             "alice", "t-src").text
    assert configured_memory().thread_documents("t-src") == []  # nothing changed
    assert "cites only **standard-snmpv3.md**" in commands.run(services, "/sources standard-snmpv3.md", "alice", "t-src").text
    found = services.knowledge().retriever.search(question, viewer="alice", sources=["standard-snmpv3.md"])
    assert found and {c.metadata["source"] for c in found} == {"standard-snmpv3.md"}
    _, final = _turn(question, "t-src", "alice", services=services)
    assert final.final.citations and {c.source for c in final.final.citations} == {"standard-snmpv3.md"}
    assert "cites only standard-snmpv3.md" in final.final.answer
    assert "✓" in commands.run(services, "/docs", "alice", "t-src").text.split("standard-snmpv3.md")[1].split("\n")[0]
    commands.run(services, "/sources all", "alice", "t-src")
    assert configured_memory().thread_documents("t-src") == []


def test_upload_progress_and_the_report_of_an_upload_a_server_stop_cut_short(isolated_data_dir: Path) -> None:
    from chat_app.uploads import Progress, Uploads, interrupted_report, pending_note
    from orchestration.memory.store import PENDING

    progress = Progress(["a.md", "b.cfg", "c.md", "d.png"], owner="alice")
    progress.set("d.png", "refused")
    progress.set("a.md", "adding")
    view = progress.view()
    assert view.startswith("`▓▓░░░░░░░░` 25% — 1 of 4 files done")
    assert "- … a.md — adding" in view and "- ✗ d.png — refused" in view and "- ○ b.cfg — waiting · [cancel](#" in view
    progress.embedded("a.md", 96, 128)  # the bar counts a file being embedded by its chunks
    view = progress.view()
    assert view.startswith("`▓▓▓▓░░░░░░` 44% — 1 of 4 files done") and "a.md — adding — 75% embedded" in view

    tokens = {name: token for token, name in progress.tokens.items()}
    uploads = Uploads()
    uploads.open(progress)
    assert uploads.cancel(tokens["c.md"], "mallory") == "unknown"  # another user's token reads as no token
    assert not progress.is_cancelled("c.md")
    assert uploads.cancel(tokens["a.md"], "alice") == "adding"  # started: it finishes
    assert uploads.cancel(tokens["c.md"], "alice") == "cancel requested" and progress.is_cancelled("c.md")
    assert "c.md — waiting, cancel requested" in progress.view() and f"#cancel-upload-{tokens['c.md']}" not in progress.view()
    progress.cancel_all()  # Stop: every file not started
    assert progress.is_cancelled("b.cfg") and not progress.is_cancelled("a.md") and not progress.is_cancelled("d.png")
    uploads.close(progress)
    assert uploads.cancel(tokens["b.cfg"], "alice") == "unknown"

    body = pending_note({"alice/a.md": "a.md", "alice/c.md": "c.md"}, ["b.cfg"])
    report = interrupted_report(body, {"alice/a.md", "standard-snmpv3.md"})
    assert "added before it stopped: a.md" in report and "not added: c.md — attach again" in report
    assert "configurations b.cfg: not assessed" in report

    store = configured_memory()
    seq = store.add_note("t-up", "alice", PENDING, "Upload in progress", body)
    assert store.thread_notes("t-up") == []  # in progress: not part of the conversation's export yet
    assert [n["seq"] for n in store.pending_uploads("9999")] == [seq] and store.pending_uploads("2000") == []
    store.update_note("t-up", seq, "upload", "Upload interrupted", report)
    assert [n["title"] for n in store.thread_notes("t-up")] == ["Upload interrupted"]
    assert store.pending_uploads("9999") == []


def test_a_cited_pdf_names_its_page_under_sources_and_on_its_chip(writable_warehouse: Path, tmp_path: Path, services: Services) -> None:
    from knowledge_base.ingest import ingest_file
    from tests.documents import write_pdf

    pdf = write_pdf(tmp_path / "quokka-wan-guide.pdf", ["Quokka WAN guide", "Quokka WAN edge routers use BFD timers "
                                                        "of 300 ms and the QUOKKA-EDGE route-map towards carriers."])
    assert ingest_file(services.knowledge(), pdf, pdf.name, owner="alice").status == "added"
    _, final = _turn("What BFD timers do quokka WAN edge routers use according to the quokka WAN guide?", "t-pdf",
                     "alice", services=services)
    cited = [c for c in final.final.citations if c.source == "alice/quokka-wan-guide.pdf"]
    assert cited and cited[0].page == "1" and cited[0].label.endswith("] quokka-wan-guide.pdf (yours) p. 1")
    assert f"{cited[0].label} " in final.final.answer  # under Sources, as the chip is named

    shown = linked_markers(final.final.answer, final)  # inline markers link to their chunk, with a preview
    n = cited[0].number
    assert re.search(rf'\[\[{n}\]\]\(#cite-{n} "[^"]*BFD timers of 300 ms[^"]*"\)', shown), shown
    assert f"\n{cited[0].label} " in shown  # the label under Sources stays the chip's name
    assert linked_markers("see `[1]` and\n```\n[1]\n```", final).count("#cite-") == 0  # code keeps its brackets


def test_a_document_without_a_heading_is_titled_by_its_first_line_not_its_file_name(writable_warehouse: Path,
                                                                                   tmp_path: Path, services: Services) -> None:
    from knowledge_base.ingest import ingest_file

    note = tmp_path / "notes-change-window.txt"
    note.write_text("Change Window Policy for Lab Routers\n\nLab routers are changed on Sundays between 02:00 and "
                    "04:00 only, after the lab lead approves the change ticket.\n")
    prose = tmp_path / "prose.txt"
    prose.write_text("Lab switches are patched monthly by the lab team, after the release notes are reviewed.\n")
    assert ingest_file(services.knowledge(), note, note.name, owner="alice").status == "added"
    assert ingest_file(services.knowledge(), prose, prose.name, owner="alice").status == "added"
    listed = commands.run(services, "/docs", "alice", "t-title").text
    assert "| notes-change-window.txt | Change Window Policy for Lab Routers |" in listed
    assert "| prose.txt | Prose |" in listed  # a sentence is no title: the file name stays


def test_steps_built_on_the_event_loop_are_created_in_order_without_chainlits_sleep() -> None:
    """Chainlit sleeps 1 ms in every step's constructor to keep creation times apart; the app skips the sleep (on
    the event loop it held every session up) and keeps the times increasing itself."""
    import sys
    import time

    import chainlit as cl

    from chat_app.steps import made, skip_chainlits_sleep

    skip_chainlits_sleep()  # what the app installs (importing the app itself would start its turn workers)

    times = [made(cl.Step, name=f"s{i}", thread_id="t-order").created_at for i in range(200)]
    assert all(a < b for a, b in zip(times, times[1:], strict=False)) and len(set(times)) == 200
    assert {len(t) for t in times} == {len("2026-11-27T10:00:00.000000Z")}  # sorted as text, they sort in time
    started = time.monotonic()
    sys.modules["chainlit.step"].time.sleep(30)  # the constructors' clock: a sleep that returns at once
    assert time.monotonic() - started < 5


def test_a_statement_laid_out_by_the_turn_worker_is_shown_without_parsing_it_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from orchestration.state import ToolCall

    statement = "SELECT asset_id FROM assets WHERE site = ? AND criticality = ?"
    call = ToolCall(tool_name="inventory_tool", queries=[statement], query_params=[["HQ", "high"]], row_count=2)
    laid_out = {statement: "SELECT\n  asset_id\nFROM assets\nWHERE\n  site = ? AND criticality = ?"}
    assert views.tool_call_view(call, "duckdb", {statement: views.pretty_sql(statement)}) == views.tool_call_view(call)

    def no_parsing(*_: object) -> str:
        raise AssertionError("parsed on the event loop")

    monkeypatch.setattr(views, "pretty_sql", no_parsing)
    shown = views.tool_call_view(call, "duckdb", laid_out)
    assert "SELECT\n  asset_id\nFROM assets\nWHERE\n  site = 'HQ' AND criticality = 'high'" in shown


def test_each_step_is_named_after_its_agents_contract() -> None:
    from chat_app.rendering import node_label
    from orchestration.agents import TASK_AGENTS

    contracts = CONTRACTS.agents.values()
    assert {c.node for c in contracts} >= set(TASK_AGENTS) | {"intent_classifier", "planner", "reflector"}
    assert all(node_label(c.node, CONTRACTS) == c.name for c in contracts)
    assert (node_label("slic_agent", CONTRACTS), node_label("context_pruner", CONTRACTS), node_label("dispatch", CONTRACTS)) == (
        "SLIC Agent", "Context Pruner", "dispatch")  # a node no agent owns keeps its own name
