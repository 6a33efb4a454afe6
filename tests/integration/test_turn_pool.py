"""Turns in worker processes (``orchestration/turn_pool.py``): real workers with the real model on the
demo warehouse. Their answers are the in-process answers, streamed step by step, concurrent turns are spread
over the workers, and a worker killed mid-turn costs only that turn."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assessment_engine.warehouse.sql_text import pretty_sql
from foundation.config import get_settings
from orchestration.runtime import TurnEvent, handle_turn
from orchestration.services import Services
from orchestration.state import AssessmentState
from orchestration.turn_pool import TurnPool

PROMPTS = ["Summarize my latest configuration best practice assessment, top 5 issues.",
           "Which assets got worse since the previous assessment?",
           "How should I configure SNMPv3 according to our company standards?",
           "Show me all critical findings on production routers"]


class Collected:
    def __init__(self) -> None:
        self.items: list[TurnEvent | AssessmentState] = []
        self.done = threading.Event()

    def __call__(self, item: TurnEvent | AssessmentState | None) -> None:
        if item is None:
            self.done.set()
        else:
            self.items.append(item)

    @property
    def final(self) -> AssessmentState:
        states = [i for i in self.items if isinstance(i, AssessmentState)]
        assert len(states) == 1
        return states[0]


@pytest.fixture()
def pool(demo_warehouse: Path) -> Iterator[TurnPool]:
    pool = TurnPool(2, get_settings())
    try:
        yield pool
    finally:
        pool.close()
    assert not any(Path(f"/proc/{pid}").exists() for pid in pool.pids)  # no worker outlives the pool


def test_idle_workers_stay(pool: TurnPool) -> None:
    """Workers wait for turns as long as the server lives (they once took the fork server for a dead parent and
    restarted every second, eating both cores)."""
    before = sorted(pool.pids)
    time.sleep(3.5)
    assert sorted(pool.pids) == before and all(Path(f"/proc/{p}").exists() for p in before)


def test_workers_answer_concurrent_turns_as_the_process_itself_would(pool: TurnPool, services: Services) -> None:
    collected = [Collected() for _ in PROMPTS]
    for i, (prompt, sink) in enumerate(zip(PROMPTS, collected, strict=True)):
        pool.submit(prompt, f"t-pool-{i}", "alice", sink)
    for sink in collected:
        assert sink.done.wait(120)
    assert len(set(pool.pids)) == 2
    for i, (prompt, sink) in enumerate(zip(PROMPTS, collected, strict=True)):
        events = [e for e in sink.items if isinstance(e, TurnEvent)]
        assert [e.node for e in events][:2] == ["context_pruner", "intent_classifier"]  # streamed node by node
        assert sink.final.input.thread_id == f"t-pool-{i}"
        assert sink.final.final.answer == handle_turn(prompt, f"t-here-{i}", "alice", services=services).final.answer
    # the workers lay out every statement they ran (the chat server's event loop parses no SQL)
    with_sql = [e for sink in collected for e in sink.items if isinstance(e, TurnEvent) and e.statements()]
    assert with_sql and all(e.sql_layouts == {q: pretty_sql(q) for q in e.statements()} for e in with_sql)
    assert any("\n" in layout for e in with_sql for layout in e.sql_layouts.values())  # one clause per line


def test_a_worker_killed_mid_turn_costs_only_that_turn(pool: TurnPool) -> None:
    victim = Collected()
    killed: list[int] = []

    def kill_on_first_step(item: TurnEvent | AssessmentState | None) -> None:
        if not killed and isinstance(item, TurnEvent):
            worker = next(w for w in pool._workers.values() if w.job and w.job.deliver is kill_on_first_step)
            pid = worker.process.pid
            if pid:
                killed.append(pid)
                os.kill(pid, signal.SIGKILL)
        victim(item)

    pool.submit(PROMPTS[0], "t-victim", "alice", kill_on_first_step)
    assert victim.done.wait(60)
    assert killed
    # the worker may have streamed the whole turn before the signal landed; either way the asker got an end
    assert "stopped before it finished" in victim.final.final.answer or victim.final.final.answer.startswith("**Scope")
    deadline = time.monotonic() + 120
    while killed[0] in pool.pids and time.monotonic() < deadline:
        time.sleep(0.2)
    assert killed[0] not in pool.pids and len(pool.pids) == 2  # a new worker took the slot
    idle = next(p for p in pool.pids if p != killed[0])
    os.kill(idle, signal.SIGKILL)  # an idle worker killed too: nothing it held may block the others
    after = [Collected(), Collected()]
    for i, sink in enumerate(after):
        pool.submit(PROMPTS[1 + i], f"t-after-{i}", "alice", sink)
    for sink in after:
        assert sink.done.wait(120)
        assert sink.final.final.answer and not sink.final.final.partial
    assert idle not in pool.pids and len(pool.pids) == 2


def test_a_pool_that_does_not_wait_for_its_workers_runs_a_turn_submitted_before_they_are_ready(
        demo_warehouse: Path) -> None:
    started = time.monotonic()
    pool = TurnPool(1, get_settings(), wait_ready=False)  # the chat server's: HTTP is answered while the worker loads the model
    try:
        assert time.monotonic() - started < 1.0 and not pool.ready
        sink = Collected()
        pool.submit(PROMPTS[2], "t-early", "alice", sink)
        assert sink.done.wait(120) and pool.ready
        assert sink.final.final.citations  # answered in full once the worker was ready
    finally:
        pool.close()
