"""The memory store under crashes and concurrency, its migrations, bounded context and trace export; the store's
own suite runs on both engines: the SQLite file (default) and PostgreSQL (``ASSESS_DATABASE_URL``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from foundation.config import get_settings
from orchestration.agents.context_pruner import fold
from orchestration.memory.store import MIGRATIONS, WINDOW, MemoryStore, MemoryUnavailable
from orchestration.runtime import handle_turn, load_conversation
from orchestration.services import Services
from orchestration.trace_export import TraceAccessError, thread_states, to_markdown
from tests.catalog import BUNDLED
from tests.conftest import ASSESS
from tests.stores import configured_memory

WORKER = [sys.executable, "-m", "tests.memory_worker"]


def test_schema_is_versioned_by_migrations(database_backend: str) -> None:
    store = configured_memory()
    assert store.db.dialect == database_backend
    assert store.schema_version() == len(MIGRATIONS)
    MemoryStore(url=store.db.url)  # re-opening applies nothing twice
    assert store.schema_version() == len(MIGRATIONS)


def test_sigkill_mid_turn_keeps_every_completed_turn(isolated_data_dir: Path, database_backend: str) -> None:
    env = {**os.environ, "ASSESS_DATA_DIR": str(isolated_data_dir)}
    proc = subprocess.Popen([*WORKER, "crash-thread", "alice", "100000"], stdout=subprocess.PIPE, text=True, env=env)
    completed = 0
    assert proc.stdout is not None
    while completed < 25:  # let it write a few turns, then kill it while it writes the next ones
        completed = int(proc.stdout.readline())
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    store = configured_memory()
    assert store.integrity_check() == "ok"
    states = store.thread_states("crash-thread")
    assert len(states) >= completed
    assert [s["turn"] for s in states] == list(range(1, len(states) + 1))  # contiguous, none half-written
    restarted = subprocess.run([*WORKER, "crash-thread", "alice", "1"], capture_output=True, text=True, env=env, timeout=60)
    assert restarted.returncode == 0 and store.turn_count("crash-thread") == len(states) + 1


def test_twenty_concurrent_writers_lose_no_turn(isolated_data_dir: Path, database_backend: str) -> None:
    env = {**os.environ, "ASSESS_DATA_DIR": str(isolated_data_dir)}
    procs = [subprocess.Popen([*WORKER, f"thread-{i % 10}", f"user-{i}", "15"], stdout=subprocess.DEVNULL, env=env)
             for i in range(20)]
    for p in procs:
        assert p.wait(timeout=300) == 0
    store = configured_memory()
    assert store.integrity_check() == "ok"
    for t in range(10):  # two writers per thread: every turn kept, numbers unique and contiguous
        assert [s["turn"] for s in store.thread_states(f"thread-{t}")] != []
        assert store.turn_count(f"thread-{t}") == 30


def test_context_read_per_turn_is_bounded(demo_warehouse: Path, services: Services) -> None:
    store = configured_memory()
    thread = "long-thread"
    for n in range(1, 41):
        store.save_turn({"thread_id": thread, "user_id": "bob", "prompt": f"Summarize findings for Branch-{n:02d}",
                         "intent_class": "cbp_assessment", "meta_intent": "new_topic", "skill": "cbp_assessment",
                         "scope": {}, "entities": [{"type": "site", "value": f"Branch-{n:02d}", "confidence": 1.0,
                                                    "source": "explicit"}],
                         "plan": {}, "answer": "…", "findings": [{"rule_id": "NTP-AUTH"}], "state": "{}"}, fold=fold)
    conv = load_conversation(store, thread, "bob")
    assert len(conv.history) == WINDOW and conv.history[-1].turn_number == 40
    summary_lines = conv.summary.split("\n")
    assert summary_lines[-1].startswith(f"turn {40 - WINDOW}:") and "Branch-" in summary_lines[-1]
    state = handle_turn("What about security?", thread_id=thread, user_id="bob", services=services)
    assert len(state.conversation.history) == WINDOW
    assert [e.value for e in state.intent.entities if e.type == "site"] == ["Branch-40"]


def test_trace_export_json_and_markdown_with_owner_check(demo_warehouse: Path, tmp_path: Path, services: Services) -> None:
    thread = "export-thread"
    handle_turn("Summarize configuration findings for HQ", thread_id=thread, user_id="carol", services=services)
    handle_turn("What about security?", thread_id=thread, user_id="carol", services=services)
    states = thread_states(thread, "carol", services.memory())
    assert len(states) == 2 and states[1]["conversation"]["resolution"] == "carryover"
    assert "## Turn 2: What about security?" in to_markdown(thread, states)
    try:
        thread_states(thread, "mallory", services.memory())
        raise AssertionError("another user must not export this thread")
    except TraceAccessError:
        pass
    out = tmp_path / "trace.json"
    done = subprocess.run([ASSESS, "trace", "export", "--thread", thread, "--format", "json", "--output", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and len(json.loads(out.read_text())["turns"]) == 2
    refused = handle_turn("And the firewalls?", thread_id=thread, user_id="mallory", services=services)
    assert "another user" in refused.final.answer and configured_memory().turn_count(thread) == 2


def test_agent_memory_serves_repeated_tool_calls_until_the_warehouse_changes(writable_warehouse: Path,
                                                                             tmp_path: Path, services: Services) -> None:
    from assessment_engine.warehouse.config_templates import DeviceSpec, render
    from assessment_engine.warehouse.demo_network import CONTROLS
    from assessment_engine.warehouse.user_configs import assess_files

    prompt = "Summarize configuration best practice findings for Branch-05"
    first, second = handle_turn(prompt, services=services), handle_turn(prompt, services=services)
    a, b = (next(c for c in s.mcp.tool_calls if c.tool_name == "assessment_analysis_tool") for s in (first, second))
    assert (a.cached, b.cached) == (False, True) and a.row_count == b.row_count
    assert {c.tool_name for c in first.mcp.tool_calls} == {"assessment_analysis_tool", "inventory_tool"}
    assert first.plan.tasks[-1].outputs.model_dump()["summary"] == second.plan.tasks[-1].outputs.model_dump()["summary"]
    spec = DeviceSpec("RTR-NEW-9", "Branch-05", "branch", "production", "router", "wan", "f", "m", "ios-xe", "high",
                      "10.250.5.9", 5)
    assess_files([("rtr-new-9.cfg", render(spec, "17.9.4", dict.fromkeys(CONTROLS, False), "now").encode())], BUNDLED, get_settings())
    third = handle_turn(prompt, services=services)  # the warehouse changed: recomputed, not served from memory
    assert not any(c.cached for c in third.mcp.tool_calls)
    assert configured_memory().recall("no-such-key") is None


def test_forget_drops_exactly_the_entries_of_a_prefix(database_backend: str) -> None:
    store = configured_memory()
    store.remember("tool:a", {"x": 1}, 300)
    store.remember("tool:b", {"x": 2}, 300)
    store.remember("other:c", {"x": 3}, 300)
    assert store.forget("tool:") == 2
    assert store.recall("tool:a") is None and store.recall("tool:b") is None
    assert store.recall("other:c") == {"x": 3}


def test_preferences_corrections_and_collections_replace_their_row(database_backend: str) -> None:
    store = configured_memory()
    store.set_preference("ann", "top_n", "3")
    store.set_preference("ann", "top_n", "5")
    store.add_correction("ann", "site", "Site-B", "Site-A")
    store.add_correction("ann", "site", "Site-B", "Site-C")
    store.set_thread_collection("t1", "lab-a")
    store.set_thread_collection("t1", "fleet")
    store.remember("tool:x", {"n": 1}, 300)
    store.remember("tool:x", {"n": 2}, 300)
    assert store.preferences("ann") == {"top_n": "5"}
    assert store.corrections("ann") == [{"entity_type": "site", "wrong": "Site-B", "right": "Site-C"}]
    assert store.thread_collection("t1") == "fleet" and store.recall("tool:x") == {"n": 2}
    assert store.remove_preference("ann") == 1 and store.preferences("ann") == {}


def test_a_postgresql_server_that_does_not_answer_is_named_without_its_password(monkeypatch: pytest.MonkeyPatch,
                                                                                isolated_data_dir: Path) -> None:
    from tests.conftest import free_port

    monkeypatch.setenv("ASSESS_DATABASE_URL", f"postgresql://assess:s3cr3t-pw@127.0.0.1:{free_port()}/memory")
    with pytest.raises(MemoryUnavailable) as refused:
        configured_memory()
    assert "s3cr3t-pw" not in str(refused.value) and "127.0.0.1" in str(refused.value)
    assert "ASSESS_DATABASE_URL" in str(refused.value)


def test_a_user_over_the_quota_loses_their_oldest_conversations_whole_and_nobody_elses(database_backend: str) -> None:
    from tests.memory_worker import record

    store = configured_memory(quota_bytes=1_000_000)  # each record is about 200 KB
    for n in range(1, 4):
        store.save_turn(record("other-user-thread", "bob", n))
    for thread in ("old", "middle", "current"):
        for n in range(1, 3):
            store.save_turn(record(thread, "alice", n))
    # alice holds 6 turns ≈ 1.2 MB: her least recently used conversation went, whole; bob's are untouched
    assert store.turn_count("old") == 0 and store.thread_owner("old") is None
    assert store.turn_count("middle") == 2 and store.turn_count("current") == 2
    assert store.turn_count("other-user-thread") == 3
    assert 0 < store.stored_bytes("alice") <= 1_000_000
    sizes = store._kv("SELECT SUM(stored_bytes) FROM turns WHERE user_id = ?", ("alice",))
    assert int(sizes[0][0]) == store.stored_bytes("alice")  # the running count is the rows' sum
    for n in range(3, 12):  # the current conversation alone over the quota: its oldest answers go, the last six stay
        store.save_turn(record("current", "alice", n))
    assert store.turn_count("middle") == 0 and store.turn_count("current") == 6
    assert [t["turn_number"] for t in store.recent_turns("current")] == list(range(6, 12))
    assert store.stored_bytes("alice") > 1_000_000  # six answers of 200 KB: over, but follow-ups keep their context
    for n in range(30):  # outputs of commands (a document previewed again and again): the oldest go
        store.add_note("current", "alice", "command", f"/preview {n}", "p" * 20_000)
    notes = store.thread_notes("current")
    assert notes[0]["kind"] == "quota" and "older outputs" in notes[0]["body"] and "quota" in notes[0]["body"]
    assert len(notes) < 31 and notes[-1]["title"] == "/preview 29"
    kept = sum(len(n["body"]) + len(n["title"]) for n in notes)  # the quota note counts like any other
    turns = store._kv("SELECT SUM(stored_bytes) FROM turns WHERE user_id = ?", ("alice",))
    assert store.stored_bytes("alice") == int(turns[0][0]) + kept  # the running count is what is stored


def test_a_revoked_session_token_stays_revoked_on_every_replica(database_backend: str) -> None:
    from datetime import UTC, datetime, timedelta

    from chat_app.sessions import RevokedTokens, token_key

    replica_a, replica_b = RevokedTokens(configured_memory), RevokedTokens(configured_memory)
    assert not replica_b.is_revoked("token-1")
    replica_a.revoke("token-1", "alice", datetime.now(UTC) + timedelta(days=15))
    assert replica_b.is_revoked("token-1") and not replica_b.is_revoked("token-2")
    rows = configured_memory()._kv("SELECT token_hash FROM revoked_tokens", ())
    assert rows == [(token_key("token-1"),)]  # only a hash is stored: a token at rest would be a credential
    replica_a.revoke("token-old", "alice", datetime.now(UTC) - timedelta(seconds=1))  # expired ones are dropped
    assert len(configured_memory()._kv("SELECT token_hash FROM revoked_tokens", ())) == 1


def test_a_stopped_turn_is_forgotten_with_its_bytes_and_notes_count_to_their_owner(database_backend: str) -> None:
    from tests.memory_worker import record

    store = configured_memory()
    store.save_turn(record("t-stop", "alice", 1))
    kept = store.stored_bytes("alice")
    number = store.save_turn(record("t-stop", "alice", 2))
    assert store.forget_turn("t-stop", number) and not store.forget_turn("t-stop", number)
    assert store.turn_count("t-stop") == 1 and store.stored_bytes("alice") == kept
    store.add_note("t-stop", "alice", "command", "/docs", "x" * 100)
    store.add_note("t-stop", "bob", "command", "/docs", "planted")  # not bob's conversation
    assert [n["body"] for n in store.thread_notes("t-stop")] == ["x" * 100]
    assert store.stored_bytes("alice") == kept + 105 and store.stored_bytes("bob") == 0


def test_a_memory_file_replaced_while_the_process_runs_is_migrated_again(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "replaced.sqlite"
    MemoryStore(path).set_preference("alice", "top_n", "5")
    path.unlink()  # the file replaced (moved aside by an operator, restored from a backup …)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    fresh = MemoryStore(path)  # a new file: migrated, not taken for the one migrated before
    assert fresh.preferences("alice") == {}
    fresh.set_preference("bob", "top_n", "3")
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT user_id FROM preferences").fetchall() == [("bob",)]


def test_failed_sign_ins_count_on_every_replica_and_back_off_per_address(database_backend: str) -> None:
    """Two replicas' throttles on one database: five failures for a name on one make the other answer 429 for that name
    from that address, before any password is checked; from another address the right password gets in."""
    import asyncio

    import pytest
    from fastapi import HTTPException

    from chat_app.sessions import LoginThrottle

    now = [1_000_000.0]
    replica_a, replica_b = (LoginThrottle(configured_memory, "s" * 48, clock=lambda: now[0]) for _ in range(2))
    checked: list[str] = []

    def wrong() -> bool:
        checked.append("wrong")
        return False

    for _ in range(5):
        assert asyncio.run(replica_a.check("carol", "10.0.0.1", None, wrong)) is False
    with pytest.raises(HTTPException) as waiting:
        asyncio.run(replica_b.check("carol", "10.0.0.1", None, lambda: True))
    assert waiting.value.status_code == 429 and waiting.value.headers == {"Retry-After": "1"} and len(checked) == 5
    assert asyncio.run(replica_b.check("carol", "10.0.0.2", None, lambda: True)) is True
    now[0] += 2  # the wait is over: the right password from the first address gets in, and its failures are forgotten
    assert asyncio.run(replica_b.check("carol", "10.0.0.1", None, lambda: True)) is True
    assert configured_memory()._kv("SELECT failures FROM sign_in_failures WHERE key = ?", ("name:carol:10.0.0.1",)) == []


def test_a_user_at_the_quota_with_many_conversations_loses_them_oldest_first(database_backend: str) -> None:
    """The conversations to forget are read a few at a time (not all of them sized every turn): past the first few,
    still the least recently used go first, and only as many as the quota needs."""
    from tests.memory_worker import record

    store = configured_memory(quota_bytes=4_300_000)  # about 21 records of 200 KB
    for n in range(20):
        store.save_turn(record(f"c{n:02d}", "carol", 1))
    assert all(store.turn_count(f"c{n:02d}") == 1 for n in range(20))
    for n in range(20, 32):  # each new conversation pushes the oldest out, one by one
        store.save_turn(record(f"c{n:02d}", "carol", 1))
    kept = [n for n in range(32) if store.turn_count(f"c{n:02d}")]
    assert kept == list(range(32 - len(kept), 32)) and 18 <= len(kept) <= 21, kept
    assert 0 < store.stored_bytes("carol") <= 4_300_000
    store.add_note("c31", "carol", "command", "/preview big", "p" * 2_100_000)  # ten conversations' worth at once
    after = [n for n in range(32) if store.turn_count(f"c{n:02d}")]
    assert after == kept[len(kept) - len(after):] and len(kept) - len(after) >= 10, (kept, after)  # past a batch of 8
    assert 0 < store.stored_bytes("carol") <= 4_300_000
