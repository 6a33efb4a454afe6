"""Turns in worker processes, so that concurrent conversations use every core.

A turn is mostly Python (graph, agents, composer) and holds the interpreter lock; in the chat server's own
threads, twenty conversations queue on one core. ``TurnPool`` starts ``workers`` processes (forked from a
fork server that imported the heavy libraries once: no inherited threads or locks), each loading the model,
routes, index and graph once, and hands each turn to the next free worker. The worker runs the plain ``iter_turn`` and sends every ``TurnEvent`` and the final
STATE back as it happens, so the chat still streams steps.

Each worker has its own pipe (nothing is shared between processes: a shared ``multiprocessing.Queue`` keeps
a lock that a killed worker may hold forever, hanging every other worker). The pool sends a turn to an idle
worker, keeps the others waiting in order, and reads every pipe in one thread. A worker that dies mid-turn
(killed, out of memory) costs only that turn: its asker gets an answer saying so, and a new worker takes its
place.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, cast

from assessment_engine.warehouse.sql_text import layouts
from foundation.config import Settings, available_cores
from orchestration import fork_server
from orchestration.runtime import TurnEvent, iter_turn, turn_graph
from orchestration.services import Services, build_services
from orchestration.state import AssessmentState, Conversation, Final, TurnInput

log = logging.getLogger(__name__)
Deliver = Callable[[TurnEvent | AssessmentState | None], object]  # None: the turn is over
DONE, STARTED, READY = "done", "started", "ready"


SHARED_SENTENCES = 8000  # past this many, the shared documents' sentences are embedded when a question needs them


def _embed_shared_sentences(services: Services) -> None:
    """The sentences of the shared documents, embedded once (kept on disk by content: a later start reads them), so
    that a knowledge answer embeds only its question and the asker's own uploads' sentences (issue 54)."""
    from knowledge_base.embedding_cache import embed_fixed
    from knowledge_base.segments import SHARED
    from orchestration.interpretation.document_sentences import sentence_texts

    corpus = services.knowledge().index.snapshot()
    segment = corpus.segments.get(SHARED)
    rows = corpus.rows(sorted(segment.ids())) if segment is not None else None
    if not rows:
        return
    texts = sentence_texts([(r.content, str(r.metadata.get("title") or ""), str(r.metadata.get("section") or ""))
                            for r in rows.values()])
    if texts and len(texts) <= SHARED_SENTENCES:
        services.sentence_vectors().preload(texts, embed_fixed(services.embedder(), texts))


def warm_up(services: Services) -> Services:
    """Load what every turn needs (model, routes, frame reader, index, graph, warehouse names) before the first
    question; returns ``services``, warm."""
    from assessment_engine.warehouse.sql_guard import validate
    from orchestration.agents.intent_classifier import classify

    try:
        turn_graph(services)
        classify("warm up the router", services=services)
        # sqlglot builds each dialect's tokenizer on first use (about 0.1 s): not in the first question that bounds a
        # statement
        validate("SELECT asset_id FROM assets", services.catalog.ontology, services.settings.warehouse_backend)
        if (retriever := services.retriever()) is not None:
            retriever.search("warm up", k=1)
            _embed_shared_sentences(services)
    except Exception:  # the first real turn reports any problem properly
        log.exception("warm-up failed")
    # what start-up loaded (model, names, routes, graph) lives as long as the process: out of the collector's sight,
    # a full collection no longer walks it — a 0.1 s pause that landed on some question at 10,000 devices
    gc.collect()
    gc.freeze()
    return services


def _serve(conn: Connection, threads: int) -> None:
    """A worker: take a turn from the pipe, send its events back, repeat until told to stop (``None``) or
    until the server is gone (its end of the pipe closed, or the process no longer alive). ``threads``: the
    model's and FAISS's share of the cores (one per worker when there is a worker per core: two workers each
    encoding on two threads of a 2-core machine slow each other down)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import faiss

    faiss.omp_set_num_threads(threads)
    services = warm_up(build_services(threads=threads))
    dialect = services.settings.warehouse_backend
    gc.freeze()  # the loaded model, index and graph live as long as the worker: full collections no longer walk them
    conn.send((READY,))
    server = multiprocessing.parent_process()  # the process that started the pool (the parent is the fork server)
    while True:
        try:
            if not conn.poll(1.0):
                if server is not None and not server.is_alive():
                    return
                continue
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        job_id, prompt, thread_id, user_id = job
        try:
            for item in iter_turn(prompt, thread_id=thread_id, user_id=user_id, services=services):
                if isinstance(item, TurnEvent) and (statements := item.statements()):
                    item = replace(item, sql_layouts=layouts(statements, dialect))
                conn.send((job_id, item))
        except (EOFError, OSError, BrokenPipeError):
            return
        except BaseException:  # iter_turn answers every error itself; this is the last wall before the pipe
            log.exception("turn worker failed")
        try:
            conn.send((DONE, job_id))
        except (EOFError, OSError):
            return


@dataclass
class _Job:
    job_id: int
    deliver: Deliver
    prompt: str
    thread_id: str
    user_id: str


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    job: _Job | None = None
    ready: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


class TurnPool:
    """``workers`` turn processes; ``submit`` streams a turn's items to ``deliver`` (``None`` ends the turn)."""

    def __init__(self, workers: int, settings: Settings, ready_timeout: float = 180.0, wait_ready: bool = True) -> None:
        """``settings``: the chat server's (what the fork server imports follows its embedding runtime). ``wait_ready``: return once every worker has loaded the model (else at once: turns submitted meanwhile
        wait in order and run when a worker is ready — the chat server answers HTTP first)."""
        # Workers fork from a fork server that has imported the embedding runtime, FAISS and the graph once (and
        # nothing else: not the chat server, not its threads): each starts in a fraction of a second and shares
        # the libraries' pages; the model and indexes are loaded per worker, before any thread exists in it.
        fork_server.start(settings)  # already running when the chat app started it early
        self._threads = max(1, available_cores() // max(1, workers))
        self._ctx = multiprocessing.get_context("forkserver")
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pending: deque[_Job] = deque()
        self._workers: dict[int, _Worker] = {}
        self._closed = False
        if not wait_ready:  # a process starts only once the fork server has finished its imports: not here
            self._reader = threading.Thread(target=self._read, name="turn-pool-reader", daemon=True)
            self._reader.start()
            threading.Thread(target=self._start_all, args=(workers,), name="turn-pool-start", daemon=True).start()
            return
        for slot in range(workers):
            self._start(slot)
        for worker in self._workers.values():
            if not worker.conn.poll(ready_timeout):
                raise RuntimeError(f"a turn worker did not start within {ready_timeout:g} s")
            worker.conn.recv()
            worker.ready = True
        self._reader = threading.Thread(target=self._read, name="turn-pool-reader", daemon=True)
        self._reader.start()

    def _start_all(self, workers: int) -> None:
        for slot in range(workers):
            worker = self._spawn(slot)
            with self._lock:
                if self._closed:
                    worker.conn.send(None)
                    return
                self._workers[slot] = worker

    @property
    def ready(self) -> bool:
        """Whether a worker has loaded the model (a turn submitted now starts without waiting for one)."""
        return any(w.ready for w in self._workers.values())

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self._workers.values() if w.process.pid is not None]

    def _start(self, slot: int) -> None:
        self._workers[slot] = self._spawn(slot)

    def _spawn(self, slot: int) -> _Worker:
        ours, theirs = self._ctx.Pipe()
        process = self._ctx.Process(target=_serve, args=(theirs, self._threads), name=f"turn-worker-{slot}",
                                    daemon=True)
        process.start()
        theirs.close()  # only the worker holds its end: its death closes the pipe for the reader
        return _Worker(process, ours)

    def submit(self, prompt: str, thread_id: str, user_id: str, deliver: Deliver) -> None:
        with self._lock:
            self._pending.append(_Job(next(self._ids), deliver, prompt, thread_id, user_id))
            self._dispatch()

    def _dispatch(self) -> None:
        """Hand waiting turns to idle workers (called with ``_lock`` held)."""
        for worker in self._workers.values():
            if not self._pending:
                return
            if worker.ready and worker.job is None:
                job = self._pending.popleft()
                try:
                    worker.conn.send((job.job_id, job.prompt, job.thread_id, job.user_id))
                    worker.job = job
                except (OSError, EOFError):  # the worker just died: the reader restarts it; the turn waits
                    self._pending.appendleft(job)

    def _read(self) -> None:
        while not self._closed:
            with self._lock:
                by_conn = {w.conn: slot for slot, w in self._workers.items()}
            if not by_conn:  # the workers are still being started
                time.sleep(0.05)
                continue
            for ready in wait(list(by_conn), timeout=0.5):
                conn = cast(Connection, ready)
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    self._replace(by_conn[conn])
                    continue
                self._handle(by_conn[conn], cast(tuple[Any, ...], message))

    def _handle(self, slot: int, message: tuple[Any, ...]) -> None:
        with self._lock:
            worker = self._workers[slot]
            job = worker.job
            if message[0] == READY:
                worker.ready = True
            elif message[0] == DONE:
                worker.job = None
            if message[0] in (READY, DONE):
                self._dispatch()
        if job is None or message[0] == READY:
            return
        job.deliver(None if message[0] == DONE else message[1])

    def _replace(self, slot: int) -> None:
        """A worker died: its turn ends with an answer that says so; a new worker takes the slot."""
        if self._closed:
            return
        with self._lock:
            dead = self._workers[slot]
            dead.process.join(timeout=5)
            log.error("turn worker %s (pid %s) died with exit code %s; restarting it", slot, dead.process.pid,
                      dead.process.exitcode)
            dead.conn.close()
            self._start(slot)
        if dead.job is not None:
            dead.job.deliver(_lost_turn(dead.job))
            dead.job.deliver(None)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._workers.values())
        for worker in workers:
            with contextlib.suppress(OSError, EOFError):  # a worker that already died needs no word
                worker.conn.send(None)
        for worker in workers:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()


def _lost_turn(job: _Job) -> AssessmentState:
    state = AssessmentState(input=TurnInput(user_prompt=job.prompt, thread_id=job.thread_id, user_id=job.user_id),
                            conversation=Conversation(thread_id=job.thread_id))
    return state.evolve(final=Final(
        answer="Sorry, the process answering this question stopped before it finished (it may have run out of "
               "memory). Nothing was saved for this question; please ask again.",
        partial=True, risk_of_error="high", missing_inputs=["internal error"]))
