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


def rss_mb(pid: int) -> float:
    total = 0
    for p in _tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def cpu_seconds(pid: int) -> float:
    total = 0
    for p in _tree(pid):
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

    async def run(self, questions: list[str], timeout: float) -> None:
        async with httpx.AsyncClient(base_url=self.url) as http:
            login = await http.post("/auth/header")
            login.raise_for_status()
            cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        client = socketio.AsyncClient(reconnection=False)
        events: asyncio.Queue[tuple[str, dict[str, Any], float]] = asyncio.Queue()
        for name in ("new_message", "update_message", "task_end"):
            client.on(name, lambda data=None, name=name: events.put_nowait((name, data or {}, time.perf_counter())))
        await client.connect(self.url, socketio_path="/ws/socket.io", transports=["websocket"],
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


async def _sessions(url: str, n: int, questions: list[list[str]], timeout: float) -> list[Session]:
    sessions = [Session(url) for _ in range(n)]
    await asyncio.gather(*(s.run(q, timeout) for s, q in zip(sessions, questions, strict=True)))
    return sessions


def concurrency(sessions: int = 20, questions: int = 5, data_dir: Path | None = None, timeout: float = 120,
                report: Callable[[str], None] = print) -> dict[str, Any]:
    """One session alone (the baseline), then ``sessions`` at once, each asking ``questions`` different prompts,
    against one server."""
    asks = prompts()
    with serve(data_dir) as server:
        report(f"server ready (HTTP 200) after {server.ready_s:.1f} s; RSS {rss_mb(server.process.pid):.0f} MB")
        warm = asyncio.run(_sessions(server.url, 1, [asks[:2]], timeout))  # the first ask of a process loads lazily
        assert warm[0].asked
        results: dict[str, Any] = {}
        for label, n in (("1 session", 1), (f"{sessions} sessions", sessions)):
            plan = [[asks[(i * questions + j + 2) % len(asks)] for j in range(questions)] for i in range(n)]
            cpu0, wall0 = cpu_seconds(server.process.pid), time.perf_counter()
            done = asyncio.run(_sessions(server.url, n, plan, timeout))
            wall = time.perf_counter() - wall0
            cpu = cpu_seconds(server.process.pid) - cpu0
            figures = _figures([a for s in done for a in s.asked])
            figures.update({"wall_s": round(wall, 1), "messages_per_s": round(figures["questions"] / wall, 2),
                            "server_cores_used": round(cpu / wall, 2), "server_cpu_s_per_question":
                                round(cpu / max(1, figures["questions"]), 3),
                            "rss_mb": round(rss_mb(server.process.pid))})
            results[label] = figures
            report(f"{label:<12} {figures['questions']} questions, {figures['errors']} errors: first step p50 "
                   f"{figures['first_step_p50_s']} s, p95 {figures['first_step_p95_s']} s; answer p50 "
                   f"{figures['answer_p50_s']} s, p95 {figures['answer_p95_s']} s, max {figures['answer_max_s']} s; "
                   f"{figures['messages_per_s']} answers/s; server CPU {figures['server_cpu_s_per_question']} s per "
                   f"question, {figures['server_cores_used']} cores busy; RSS {figures['rss_mb']} MB")
    return results


def coldstart(data_dir: Path | None = None, timeout: float = 120, report: Callable[[str], None] = print) -> dict[str, Any]:
    """``assess serve`` to HTTP 200, to the first answer, and the first answer beside the second."""
    asks = prompts()
    with serve(data_dir) as server:
        idle_rss = rss_mb(server.process.pid)
        session = asyncio.run(_sessions(server.url, 1, [[asks[0], asks[1]]], timeout))[0]
        first, second = session.asked
        to_answer = time.perf_counter() - server.started
        figures = {"http_200_s": round(server.ready_s, 1), "first_answer_since_start_s": round(to_answer, 1),
                   "first_question_s": round(first.answer_s, 2), "second_question_s": round(second.answer_s, 2),
                   "idle_rss_mb": round(idle_rss), "rss_after_mb": round(rss_mb(server.process.pid))}
    report(f"cold start: HTTP 200 after {figures['http_200_s']} s; first answer {figures['first_answer_since_start_s']} s "
           f"after start (the first question itself {figures['first_question_s']} s, the second "
           f"{figures['second_question_s']} s); RSS {figures['idle_rss_mb']} MB idle, {figures['rss_after_mb']} MB after")
    return figures
