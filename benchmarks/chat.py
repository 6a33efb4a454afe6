"""``assess bench coldstart`` and ``assess bench concurrency``: what a user of the web app feels, measured
through the real server — ``assess serve`` started on a loopback port, sessions talking Chainlit's
socket.io protocol as the browser does (header login for the cookie, ``client_message`` out, steps and
the answer back).

Per question: time to the first step the server sends (the browser shows it), to the answer message, and
to the end of the task. The server's resident memory (parent and children) and CPU seconds are read from
``/proc``; CPU seconds over wall time says how many cores the server used."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import socketio

from benchmarks.turns import p95, prompts

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += children.get(p, [])
    return found


def rss_mb(pid: int, field: str = "Rss") -> float:
    """Resident memory of the process tree: ``Rss`` counts a shared library page in every process that maps it,
    ``Pss`` shares it out (the tree's real footprint when worker processes map the same torch libraries)."""
    total = 0
    for p in _tree(pid):
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith(f"{field}:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def cpu_seconds(pid: int, tree: bool = True) -> float:
    """CPU seconds (user + system) of ``pid`` and every process below it, or of ``pid`` alone."""
    total = 0
    for p in _tree(pid) if tree else [pid]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            continue
    return total / CLOCK_TICKS


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    started: float
    ready_s: float = 0.0


@contextmanager
def serve(data_dir: Path | None = None, extra_env: dict[str, str] | None = None, timeout: float = 120) -> Iterator[Server]:
    """``assess serve`` on a free loopback port until HTTP 200; stopped with every child at the end."""
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **(extra_env or {})}
    if data_dir is not None:
        env["ASSESS_DATA_DIR"] = str(data_dir)
    assess = Path(sys.executable).with_name("assess")
    started = time.perf_counter()
    process = subprocess.Popen([str(assess), "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    server = Server(f"http://127.0.0.1:{port}", process, started)
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"assess serve exited with {process.returncode}")
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"assess serve did not answer within {timeout} s")
            try:
                if httpx.get(server.url + "/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        server.ready_s = time.perf_counter() - started
        yield server
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@dataclass
class Asked:
    prompt: str
    first_step_s: float = 0.0
    answer_s: float = 0.0
    done_s: float = 0.0
    error: str = ""


@dataclass
class Session:
    """One browser tab: a logged-in socket.io connection that asks its questions one after another."""

    url: str
    asked: list[Asked] = field(default_factory=list)
    login_s: float = 0.0

    async def run(self, questions: list[str], timeout: float, delay: float = 0.0) -> None:
        """Log in and connect (after ``delay``: tabs are not opened in the same millisecond), then ask; a session
        that cannot connect counts every question as an error."""
        await asyncio.sleep(delay)
        try:
            await self._run(questions, timeout)
        except (httpx.HTTPError, socketio.exceptions.ConnectionError, TimeoutError) as exc:
            self.asked += [Asked(q, error=f"{type(exc).__name__}: {exc}") for q in questions[len(self.asked):]]

    async def _run(self, questions: list[str], timeout: float) -> None:
        started = time.perf_counter()
        # plain HTTP on loopback: no TLS context to build (tens of milliseconds of the client's CPU per session)
        async with httpx.AsyncClient(base_url=self.url, timeout=timeout, verify=False) as http:
            login = await http.post("/auth/header")
            self.login_s = time.perf_counter() - started
            login.raise_for_status()
            cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        client = socketio.AsyncClient(reconnection=False)
        events: asyncio.Queue[tuple[str, dict[str, Any], float]] = asyncio.Queue()
        for name in ("new_message", "update_message", "task_end"):
            client.on(name, lambda data=None, name=name: events.put_nowait((name, data or {}, time.perf_counter())))
        await client.connect(self.url, socketio_path="/ws/socket.io", transports=["websocket"], wait_timeout=timeout,
                             headers={"Cookie": cookie, "Origin": self.url},
                             auth={"sessionId": str(uuid.uuid4()), "clientType": "webapp", "threadId": None})
        try:
            await client.emit("connection_successful")
            await self._drain(events, until="task_end", timeout=timeout)  # the session's start
            for question in questions:
                self.asked.append(await self._ask(client, events, question, timeout))
        finally:
            await client.disconnect()

    @staticmethod
    async def _drain(events: asyncio.Queue[tuple[str, dict[str, Any], float]], until: str, timeout: float) -> None:
        while True:
            name, _, _ = await asyncio.wait_for(events.get(), timeout)
            if name == until:
                return

    async def _ask(self, client: socketio.AsyncClient, events: asyncio.Queue[tuple[str, dict[str, Any], float]],
                   question: str, timeout: float) -> Asked:
        asked = Asked(question)
        message = {"id": str(uuid.uuid4()), "name": "User", "type": "user_message", "output": question,
                   "createdAt": datetime.now(UTC).isoformat()}
        sent = time.perf_counter()
        await client.emit("client_message", {"message": message, "fileReferences": None})
        try:
            while True:
                name, data, at = await asyncio.wait_for(events.get(), timeout)
                if name == "new_message" and data.get("type") != "user_message" and not asked.first_step_s:
                    asked.first_step_s = at - sent
                if name == "new_message" and data.get("type") == "assistant_message":
                    asked.answer_s = at - sent
                if name == "task_end" and asked.answer_s:
                    asked.done_s = at - sent
                    return asked
        except TimeoutError:
            asked.error = f"no answer within {timeout} s"
            return asked


def _figures(asked: list[Asked]) -> dict[str, Any]:
    ok = [a for a in asked if not a.error]
    answers = [a.answer_s for a in ok] or [0.0]
    first = [a.first_step_s for a in ok] or [0.0]
    return {"questions": len(asked), "errors": len(asked) - len(ok),
            "first_step_p50_s": round(statistics.median(first), 3), "first_step_p95_s": round(p95(first), 3),
            "answer_p50_s": round(statistics.median(answers), 3), "answer_p95_s": round(p95(answers), 3),
            "answer_max_s": round(max(answers), 3)}


async def _sessions(urls: list[str], n: int, questions: list[list[str]], timeout: float) -> list[Session]:
    """``n`` sessions, dealt over the servers in turn (a load balancer's round robin)."""
    sessions = [Session(urls[i % len(urls)]) for i in range(n)]
    await asyncio.gather(*(s.run(q, timeout, delay=0.05 * i) for i, (s, q) in enumerate(zip(sessions, questions, strict=True))))
    return sessions


def burst(servers: list[Server], n: int, questions: int, timeout: float, label: str,
          report: Callable[[str], None]) -> dict[str, Any]:
    """``n`` sessions at once over ``servers``, each asking ``questions`` different prompts: latency figures, and
    the servers' CPU (every process of every server) over the wall time."""
    asks = prompts()
    plan = [[asks[(i * questions + j + 2) % len(asks)] for j in range(questions)] for i in range(n)]
    pids = [server.process.pid for server in servers]
    # the server process itself is the chat layer (Chainlit); the turn workers and the fork server are its children
    chat0 = sum(cpu_seconds(pid, tree=False) for pid in pids)
    cpu0, wall0, own0 = sum(map(cpu_seconds, pids)), time.perf_counter(), time.process_time()
    done = asyncio.run(_sessions([server.url for server in servers], n, plan, timeout))
    wall = time.perf_counter() - wall0
    client_cores = (time.process_time() - own0) / wall  # the sessions share the machine with the server
    cpu = sum(map(cpu_seconds, pids)) - cpu0
    chat_cpu = sum(cpu_seconds(pid, tree=False) for pid in pids) - chat0
    figures = _figures([a for s in done for a in s.asked])
    for error in sorted({a.error for s in done for a in s.asked if a.error})[:3]:
        report(f"  error: {error}")
    logins = [s.login_s for s in done if s.login_s]
    figures.update({"login_p95_s": round(p95(logins), 3) if logins else None, "wall_s": round(wall, 1),
                    "client_cores_used": round(client_cores, 2), "messages_per_s": round(figures["questions"] / wall, 2),
                    "server_cores_used": round(cpu / wall, 2), "server_cpu_s_per_question":
                        round(cpu / max(1, figures["questions"]), 3),
                    "chat_layer_cpu_s_per_question": round(chat_cpu / max(1, figures["questions"]), 4),
                    "rss_mb": round(sum(rss_mb(pid) for pid in pids)),
                    "pss_mb": round(sum(rss_mb(pid, "Pss") for pid in pids))})
    # a burst of n questions needs n x (CPU per question) on the machine's cores: no scheduling beats that
    figures["burst_floor_s"] = round(n * figures["server_cpu_s_per_question"] / (os.cpu_count() or 1), 2)
    report(f"{label:<12} {figures['questions']} questions, {figures['errors']} errors: first step p50 "
           f"{figures['first_step_p50_s']} s, p95 {figures['first_step_p95_s']} s; answer p50 "
           f"{figures['answer_p50_s']} s, p95 {figures['answer_p95_s']} s, max {figures['answer_max_s']} s; "
           f"{figures['messages_per_s']} answers/s; server CPU {figures['server_cpu_s_per_question']} s per "
           f"question (chat layer {figures['chat_layer_cpu_s_per_question']} s), {figures['server_cores_used']} cores busy; RSS {figures['rss_mb']} MB (PSS {figures['pss_mb']} MB); "
           f"login p95 {figures['login_p95_s']} s; the sessions' own process {figures['client_cores_used']} cores; "
           f"floor for {n} questions at once on {os.cpu_count()} cores {figures['burst_floor_s']} s")
    return figures


def warm(server: Server, timeout: float) -> None:
    """The first asks of a process load lazily: two questions before anything is measured."""
    assert asyncio.run(_sessions([server.url], 1, [prompts()[:2]], timeout))[0].asked


def concurrency(sessions: int = 20, questions: int = 5, data_dir: Path | None = None, timeout: float = 120,
                workers: list[int] | None = None, report: Callable[[str], None] = print) -> dict[str, Any]:
    """For each turn-worker setting (``ASSESS_TURN_WORKERS``; default: the configured one) a server, and against
    it one session alone (the baseline), then ``sessions`` at once, each asking ``questions`` different prompts."""
    results: dict[str, Any] = {}
    for n in workers if workers is not None else [None]:
        report(f"turn workers: {'configured' if n is None else n}")
        results[f"workers={n}"] = _concurrency(sessions, questions, data_dir, timeout, n, report)
    return results


def _concurrency(sessions: int, questions: int, data_dir: Path | None, timeout: float, workers: int | None,
                 report: Callable[[str], None]) -> dict[str, Any]:
    with serve(data_dir, {"ASSESS_TURN_WORKERS": str(workers)} if workers is not None else None) as server:
        report(f"server ready (HTTP 200) after {server.ready_s:.1f} s; RSS {rss_mb(server.process.pid):.0f} MB")
        warm(server, timeout)
        return {label: burst([server], n, questions, timeout, label, report)
                for label, n in (("1 session", 1), (f"{sessions} sessions", sessions))}


def coldstart(data_dir: Path | None = None, timeout: float = 120, workers: int | None = None,
              report: Callable[[str], None] = print) -> dict[str, Any]:
    """``assess serve`` to HTTP 200, to the first answer, and the first answer beside the second."""
    asks = prompts()
    report(f"turn workers: {'configured' if workers is None else workers}")
    with serve(data_dir, {"ASSESS_TURN_WORKERS": str(workers)} if workers is not None else None) as server:
        idle_rss, idle_pss = rss_mb(server.process.pid), rss_mb(server.process.pid, "Pss")
        session = asyncio.run(_sessions([server.url], 1, [[asks[0], asks[1]]], timeout))[0]
        first, second = session.asked
        to_answer = time.perf_counter() - server.started
        figures = {"http_200_s": round(server.ready_s, 1), "first_answer_since_start_s": round(to_answer, 1),
                   "first_question_s": round(first.answer_s, 2), "second_question_s": round(second.answer_s, 2),
                   "idle_rss_mb": round(idle_rss), "idle_pss_mb": round(idle_pss),
                   "rss_after_mb": round(rss_mb(server.process.pid)), "pss_after_mb": round(rss_mb(server.process.pid, "Pss"))}
    report(f"cold start: HTTP 200 after {figures['http_200_s']} s; first answer {figures['first_answer_since_start_s']} s "
           f"after start (the first question itself {figures['first_question_s']} s, the second "
           f"{figures['second_question_s']} s); RSS {figures['idle_rss_mb']} MB idle (PSS {figures['idle_pss_mb']} MB), "
           f"{figures['rss_after_mb']} MB after (PSS {figures['pss_after_mb']} MB)")
    return figures


IMPORTS = {"chainlit": "import chainlit.cli, chainlit.server",
           "the server's own modules": "import chat_app.rendering, chat_app.persistence, orchestration.runtime"}


def _runtime_import() -> tuple[str, str]:
    """The embedding runtime the workers import (the fork server's first preloads)."""
    from foundation.config import get_settings
    from orchestration.fork_server import PRELOAD, preload

    modules = [m for m in preload(get_settings()) if m not in PRELOAD]
    return " + ".join(modules), "import " + ", ".join(modules)


def import_floor(report: Callable[[str], None] = print) -> dict[str, float]:
    """What a cold start cannot go below: the seconds a fresh interpreter needs to import what the server runs
    (each in its own process, one after another, in the same run as the start itself)."""
    seconds = {}
    for label, statement in [*IMPORTS.items(), _runtime_import()]:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True, capture_output=True,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        seconds[label] = round(time.perf_counter() - started, 1)
    report("import floor: " + ", ".join(f"{label} {s} s" for label, s in seconds.items())
           + f"; together {sum(seconds.values()):.1f} s")
    return seconds
