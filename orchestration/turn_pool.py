"""Turns in worker processes, so that concurrent conversations use every core.

A turn is mostly Python (graph, agents, composer) and holds the interpreter lock; in the chat server's own
threads, twenty conversations queue on one core. ``TurnPool`` starts ``workers`` processes (forked from a
fork server that imported the heavy libraries once: no inherited threads or locks), each loading the model,
routes, index and graph once, and hands each turn to the next free worker. The worker runs the plain ``iter_turn`` and sends every ``TurnEvent`` and the final
STATE back as it happens, so the chat still streams steps.

A worker that dies mid-turn (killed, out of memory) costs only that turn: its asker gets an answer saying
so, and a new worker takes its place.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any

from orchestration.runtime import TurnEvent, iter_turn
from orchestration.state import AssessmentState, Conversation, Final, TurnInput

log = logging.getLogger(__name__)
Deliver = Callable[[TurnEvent | AssessmentState | None], object]  # None: the turn is over
DONE, STARTED, READY = "done", "started", "ready"
PRELOAD = ["sentence_transformers", "faiss", "duckdb", "orchestration.graph", "orchestration.runtime",
           "orchestration.turn_pool", "knowledge_base.service"]


def warm_up() -> None:
    """Load what every turn needs (model, routes, index, graph, warehouse names) before the first question."""
    from knowledge_base.service import get_retriever
    from orchestration.agents.intent_classifier import classify
    from orchestration.graph import get_graph

    try:
        get_graph()
        classify("warm up the router")
        get_retriever().search("warm up", k=1)
    except Exception:  # the first real turn reports any problem properly
        log.exception("warm-up failed")


def _next_job(jobs: Any) -> Any:
    """The next turn; ``None`` when told to stop or when the server is gone (killed: no one would read). The
    server is the process that started the pool, not the parent (that is the fork server)."""
    server = multiprocessing.parent_process()
    while True:
        try:
            return jobs.get(timeout=1.0)
        except queue.Empty:
            if server is not None and not server.is_alive():
                return None


def _serve(slot: int, jobs: Any, events: Any) -> None:
    """A worker: take a turn, stream its events back, repeat until told to stop or orphaned."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    warm_up()
    events.put((READY, slot, os.getpid()))
    while (job := _next_job(jobs)) is not None:
        job_id, prompt, thread_id, user_id = job
        events.put((STARTED, job_id, slot))
        try:
            for item in iter_turn(prompt, thread_id=thread_id, user_id=user_id):
                events.put((job_id, item))
        except BaseException:  # iter_turn answers every error itself; this is the last wall before the pipe
            log.exception("turn worker failed")
        events.put((DONE, job_id, slot))
    server = multiprocessing.parent_process()
    if server is not None and not server.is_alive():  # nobody reads the pipe: exiting must not wait to flush it
        events.cancel_join_thread()


@dataclass
class _Job:
    deliver: Deliver
    prompt: str
    thread_id: str
    user_id: str
    slot: int | None = None


class TurnPool:
    """``workers`` turn processes behind one queue; ``submit`` streams a turn's items to ``deliver``."""

    def __init__(self, workers: int, ready_timeout: float = 180.0) -> None:
        # Workers fork from a fork server that has imported torch, sentence-transformers and the graph once (and
        # nothing else: not the chat server, not its threads): each starts in a fraction of a second and shares
        # the libraries' pages; the model and indexes are loaded per worker, before any thread exists in it.
        self._ctx = multiprocessing.get_context("forkserver")
        self._ctx.set_forkserver_preload(PRELOAD)
        self._jobs: Any = self._ctx.Queue()
        self._events: Any = self._ctx.Queue()
        self._running: dict[int, _Job] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._procs: dict[int, BaseProcess] = {}
        self._closed = False
        for slot in range(workers):
            self._start(slot)
        ready = 0
        while ready < workers:  # the server answers HTTP only when every worker has loaded the model
            message = self._events.get(timeout=ready_timeout)
            ready += message[0] == READY
        self._reader = threading.Thread(target=self._read, name="turn-pool-reader", daemon=True)
        self._reader.start()
        self._watch = threading.Thread(target=self._watchdog, name="turn-pool-watchdog", daemon=True)
        self._watch.start()

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self._procs.values() if p.pid is not None]

    def _start(self, slot: int) -> None:
        process = self._ctx.Process(target=_serve, args=(slot, self._jobs, self._events),
                                    name=f"turn-worker-{slot}", daemon=True)
        process.start()
        self._procs[slot] = process

    def submit(self, prompt: str, thread_id: str, user_id: str, deliver: Deliver) -> None:
        job_id = next(self._ids)
        with self._lock:
            self._running[job_id] = _Job(deliver, prompt, thread_id, user_id)
        self._jobs.put((job_id, prompt, thread_id, user_id))

    def _read(self) -> None:
        while not self._closed:
            try:
                message = self._events.get(timeout=0.5)
            except queue.Empty:
                continue
            except (EOFError, OSError):
                return
            kind = message[0]
            if kind == READY:
                continue
            if kind in (STARTED, DONE):
                with self._lock:
                    job = self._running.get(message[1])
                    if job is not None and kind == STARTED:
                        job.slot = message[2]
                    elif job is not None:
                        del self._running[message[1]]
                if job is not None and kind == DONE:
                    job.deliver(None)
                continue
            with self._lock:
                job = self._running.get(kind)
            if job is not None:
                job.deliver(message[1])

    def _watchdog(self) -> None:
        """A dead worker: its turn ends with an answer that says so; a new worker takes the slot."""
        while not self._closed:
            for slot, process in list(self._procs.items()):
                process.join(timeout=0.5 / max(1, len(self._procs)))
                if self._closed or process.is_alive():
                    continue
                log.error("turn worker %s (pid %s) died with exit code %s; restarting it", slot, process.pid,
                          process.exitcode)
                with self._lock:
                    lost = [(i, j) for i, j in self._running.items() if j.slot == slot]
                    for job_id, _ in lost:
                        del self._running[job_id]
                for _, job in lost:
                    job.deliver(_lost_turn(job))
                    job.deliver(None)
                self._start(slot)

    def close(self) -> None:
        self._closed = True
        for _ in self._procs:
            self._jobs.put(None)
        for process in self._procs.values():
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()


def _lost_turn(job: _Job) -> AssessmentState:
    state = AssessmentState(input=TurnInput(user_prompt=job.prompt, thread_id=job.thread_id, user_id=job.user_id),
                            conversation=Conversation(thread_id=job.thread_id))
    return state.evolve(final=Final(
        answer="Sorry, the process answering this question stopped before it finished (it may have run out of "
               "memory). Nothing was saved for this question; please ask again.",
        partial=True, risk_of_error="high", missing_inputs=["internal error"]))
