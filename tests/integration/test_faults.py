"""Broken stores and missing parts give one clear line (CLI) or a specific answer (chat), never a traceback; the
parts that do not need the broken store still answer; the server is the process that was started."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from orchestration.runtime import handle_turn
from orchestration.services import Services, build_services
from tests.conftest import ASSESS


def run(*args: str, data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ASSESS, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "ASSESS_DATA_DIR": str(data_dir), **env})


def test_a_corrupt_conversation_memory_still_answers_and_says_so(writable_warehouse: Path, services: Services) -> None:
    memory = writable_warehouse.parent / "memory.sqlite"
    memory.write_text("this is not a database")
    final = handle_turn("What is the best practice for SNMPv3?", services=services).final
    assert "standard-snmpv3.md" in final.answer  # the knowledge answer does not need memory
    assert "Without conversation memory" in final.answer and "not a database" in final.answer
    out = run("prefs", data_dir=writable_warehouse.parent)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "conversation memory" in out.stderr and "cannot be used" in out.stderr


def test_a_postgresql_server_lost_while_the_app_runs_costs_the_memory_not_the_answer(
        writable_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database goes away after the store was opened (and migrated): the next turn is answered, says it has no
    conversation memory and why (no password, no traceback), and the tool calls run without agent memory."""
    from benchmarks.postgres import fresh_database, stop_cluster, throwaway_cluster
    from tests.conftest import free_port

    with throwaway_cluster(free_port()) as server:
        monkeypatch.setenv("ASSESS_DATABASE_URL", fresh_database(server).replace("assess@", "assess:s3cret-pw@"))
        services = build_services()  # over the settings just changed
        first = handle_turn("Summarize configuration best practice findings for Branch-05", thread_id="t-lost", services=services)
        assert "Without conversation memory" not in first.final.answer
        stop_cluster(server)
        second = handle_turn("Summarize configuration best practice findings for Branch-05", thread_id="t-lost", services=services)
        standard = handle_turn("How should I configure SNMPv3 according to our company standards?", services=services).final
    assert "something went wrong" not in standard.answer and standard.partial
    assert any("knowledge base at postgresql://assess:***@" in m for m in standard.missing_inputs), standard.missing_inputs
    assert "Branch-05" in second.final.answer and "3 devices" in second.final.answer
    assert "Without conversation memory: the conversation memory at postgresql://assess:***@127.0.0.1" in \
        second.final.answer
    assert "s3cret-pw" not in second.model_dump_json()
    assert [c.status for c in second.mcp.tool_calls] == ["ok"] * len(second.mcp.tool_calls)


def test_a_missing_model_or_contracts_folder_is_named(writable_warehouse: Path, tmp_path: Path) -> None:
    data = writable_warehouse.parent
    out = run("ask", "Summarize the latest assessment", data_dir=data, ASSESS_EMBEDDING_MODEL_PATH=str(tmp_path))
    assert "Traceback" not in out.stdout + out.stderr
    assert "the embedding model is missing at" in out.stdout
    out = run("ask", "Summarize the latest assessment", data_dir=data, ASSESS_CONTRACTS_DIR=str(tmp_path / "none"))
    assert "Traceback" not in out.stdout + out.stderr and "I cannot answer right now" in out.stdout


def test_serve_refuses_to_start_with_one_line_per_problem(writable_warehouse: Path, tmp_path: Path) -> None:
    data = writable_warehouse.parent
    (data / "memory.sqlite").write_text("garbage")
    (data / "knowledge_index" / "chunks.sqlite").write_bytes(b"garbage" * 100)
    out = run("serve", "--port", "9", data_dir=data, ASSESS_EMBEDDING_MODEL_PATH=str(tmp_path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert any("embedding model is missing" in ln for ln in lines)
    assert any("conversation memory" in ln for ln in lines)
    assert any("knowledge index" in ln for ln in lines)
    assert lines[-1] == "assess serve: not started"


def _children(pid: int) -> list[int]:
    """Children of every thread of `pid`. A thread may end while we read (the server starts and ends short-lived
    threads at any time): only that thread is skipped, not the whole process (which once hid every worker)."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    found = []
    for task in tasks:
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += _children(p)
    return found


def _gone(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if Path(f"/proc/{p}/stat").exists()
                 and Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
        if not alive:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_serve_is_the_server_process_and_a_signal_leaves_nothing_behind(demo_warehouse_dir: Path, tmp_path: Path,
                                                                      sig: signal.Signals) -> None:
    """'assess serve' becomes Chainlit (no parent to outlive it); its only children are the turn workers (and
    multiprocessing's resource tracker), and none of them survives the server: stopped with it, or leaving on
    their own within seconds when it was killed."""
    import shutil

    import httpx

    from tests.conftest import free_port

    data = tmp_path / "served"
    shutil.copytree(demo_warehouse_dir, data)
    port = free_port()
    proc = subprocess.Popen([ASSESS, "serve", "--host", "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "ASSESS_DATA_DIR": str(data),
                                                            "ASSESS_TURN_WORKERS": "2"},
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("the server did not start")
        tree = _tree(proc.pid)
        commands = [Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode() for p in tree[1:]]
        assert "chainlit" in Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        assert len(commands) >= 2 and all("multiprocessing" in c for c in commands), commands  # workers, tracker
        proc.send_signal(sig)
        proc.wait(timeout=30)
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
        assert _gone(tree[1:], 15), "a turn worker outlived the server"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
