"""The running app probed as an attacker would, over HTTP and the websocket (Chainlit's own protocol, no browser):
cross-origin sockets and writes, password guessing, tokens after sign-out, response headers, message floods and
sizes, feedback on another user's thread, hostile documents while others chat, and raw uploads after a crash."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import socketio

from tests.browser import running_app
from tests.chat_client import ChatSession
from tests.conftest import ASSESS, TEST_OUTPUT, free_port
from tests.documents import write_hostile_docx

USERS = "alice:wonderland,bob:builder,carol:rosebud,dave:hunter22,erin:opensesame"


@pytest.fixture(scope="module")
def app(demo_warehouse_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("web-security")
    shutil.copytree(demo_warehouse_dir, data, dirs_exist_ok=True)
    with running_app(data, ASSESS_AUTH_ENABLED="true", ASSESS_USERS=USERS) as url:
        yield url, data


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


async def _connects(url: str, user: str, password: str, origin: str) -> bool:
    session = ChatSession(url, user, password, origin=origin)
    try:
        assert (await session.login()).status_code == 200
        await session.connect()
        return True
    except (socketio.exceptions.ConnectionError, TimeoutError):
        return False
    finally:
        await session.close()


def test_a_websocket_from_another_origin_is_refused(app: tuple[str, Path]) -> None:
    url, _ = app
    port = url.rsplit(":", 1)[1]
    assert run(_connects(url, "alice", "wonderland", url))
    assert not run(_connects(url, "alice", "wonderland", "http://127.0.0.1:1"))  # another port of the same host
    assert not run(_connects(url, "alice", "wonderland", f"http://evil.127.0.0.1.nip.io:{port}"))  # a sibling name
    with httpx.Client(base_url=url) as http:  # a write from another origin with the user's cookie
        assert http.post("/login", data={"username": "alice", "password": "wonderland"}).status_code == 200
        refused = http.put("/project/thread", json={"threadId": "x", "name": "pwned"},
                           headers={"Origin": "http://127.0.0.1:1"})
        assert refused.status_code == 403 and "another site" in refused.json()["detail"]


def test_a_signed_out_token_is_refused_as_cookie_bearer_and_websocket(app: tuple[str, Path]) -> None:
    url, _ = app
    with httpx.Client(base_url=url) as http:
        assert http.post("/login", data={"username": "bob", "password": "builder"}).status_code == 200
        token = http.cookies["access_token"]
        assert http.get("/user").status_code == 200
        assert http.post("/logout", headers={"Origin": url}).status_code == 200
    assert httpx.get(f"{url}/user", cookies={"access_token": token}).status_code == 401
    assert httpx.get(f"{url}/user", headers={"Authorization": f"Bearer {token}"}).status_code == 401

    async def socket_with(token: str) -> bool:
        client = socketio.AsyncClient(reconnection=False)
        try:
            await client.connect(url, socketio_path="/ws/socket.io", transports=["websocket"], wait_timeout=20,
                                 headers={"Cookie": f"access_token={token}", "Origin": url},
                                 auth={"sessionId": "s-1", "clientType": "webapp", "threadId": None})
            await client.disconnect()
            return True
        except socketio.exceptions.ConnectionError:
            return False

    assert run(socket_with(token)) is False


def test_every_page_sends_a_strict_policy_and_stored_files_are_inert(app: tuple[str, Path]) -> None:
    url, _ = app
    page = httpx.get(url)
    policy = page.headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in policy and "frame-ancestors 'none'" in policy and "unsafe-eval" not in policy
    assert page.headers["x-frame-options"] == "DENY" and page.headers["x-content-type-options"] == "nosniff"
    with httpx.Client(base_url=url) as http:  # over TLS (a proxy says so) the session cookie is Secure
        login = http.post("/login", data={"username": "alice", "password": "wonderland"},
                          headers={"X-Forwarded-Proto": "https"})
        assert "secure" in login.headers["set-cookie"].lower()
        plain = http.post("/login", data={"username": "alice", "password": "wonderland"})
        assert "secure" not in plain.headers["set-cookie"].lower()


def test_feedback_on_another_users_thread_is_a_403_without_a_traceback(app: tuple[str, Path]) -> None:
    url, data = app

    async def scenario() -> tuple[int, str]:
        alice = ChatSession(url, "alice", "wonderland")
        await alice.login()
        await alice.connect()
        await alice.ask("How should I configure NTP authentication according to our standards?")
        await alice.close()
        import sqlite3

        step = None
        for _ in range(40):  # Chainlit writes the steps after it sent them
            with sqlite3.connect(data / "chainlit.sqlite") as con:
                row = con.execute("SELECT s.id FROM steps s JOIN threads t ON t.id = s.threadId "
                                  "WHERE t.userIdentifier = 'alice' AND s.type = 'assistant_message'").fetchone()
            if row:
                step = row[0]
                break
            await asyncio.sleep(0.25)
        assert step is not None
        async with httpx.AsyncClient(base_url=url) as bob:
            await bob.post("/login", data={"username": "bob", "password": "builder"})
            reply = await bob.put("/feedback", json={"feedback": {"forId": step, "value": 0, "comment": "x"},
                                                     "sessionId": "s-1"}, headers={"Origin": url})
            return reply.status_code, reply.text

    status, body = run(scenario())  # type: ignore[misc]
    assert status == 403 and "your own conversations" in body
    log = max(TEST_OUTPUT.glob("app-*.log"), key=lambda p: p.stat().st_mtime).read_text()
    assert "PermissionError" not in log and "Refused" not in log


def test_a_flood_of_messages_is_refused_with_a_sentence_and_a_huge_one_is_answered(app: tuple[str, Path]) -> None:
    url, _ = app

    async def scenario() -> tuple[list[str], str, str]:
        session = ChatSession(url, "dave", "hunter22")
        await session.login()
        await session.connect()
        try:
            huge = await session.ask("x" * 1_000_000)
            replies = [(await session.ask("/docs")).text for _ in range(21)]
            return replies, huge.text, str(session.client.connected)
        finally:
            await session.close()

    replies, huge, connected = run(scenario())  # type: ignore[misc]
    assert all("Knowledge documents" in r for r in replies[:19])  # the huge message was the first of 20
    assert "more than 20 messages in a minute" in replies[19] and "please wait" in replies[20]
    assert "1,000,000 characters" in huge and connected == "True"


def test_a_forged_regenerate_is_refused_at_once_and_only_the_latest_question_runs_again(app: tuple[str, Path]) -> None:
    url, _ = app

    async def scenario() -> tuple[float, list[str]]:
        bob = ChatSession(url, "bob", "builder")
        await bob.login()
        await bob.connect()
        try:
            await bob.ask("Which IOS-XE versions run at Branch-05?")

            async def press(prompt: str) -> tuple[float, str]:
                started = time.perf_counter()
                reply = await bob.http.post("/project/action", json={"sessionId": bob.session_id, "action": {
                    "id": "a1", "name": "regenerate", "payload": {"turn": 1, "prompt": prompt}, "forId": "x",
                    "label": "Regenerate"}})
                assert reply.status_code == 200
                name, event = await asyncio.wait_for(bob.events.get(), 30)
                while name != "new_message":
                    name, event = await asyncio.wait_for(bob.events.get(), 30)
                return time.perf_counter() - started, str(event.get("output"))

            huge_seconds, huge = await press("x" * 200_000)
            _, other = await press("Which IOS-XE versions run at Branch-09?")  # not the question that was answered
            return huge_seconds, [huge, other]
        finally:
            await bob.close()

    seconds, (huge, other) = run(scenario())  # type: ignore[misc]
    assert seconds < 2 and "200,000 characters" in huge, (seconds, huge)
    assert "Only the latest answer can be regenerated" in other


def test_hostile_documents_are_reported_within_15_s_while_another_session_is_answered(app: tuple[str, Path],
                                                                                     tmp_path: Path) -> None:
    url, _ = app
    big_title = write_hostile_docx(tmp_path / "big-title.docx", title="security " * 120_000, paragraphs=40)
    # 300 paragraphs: the style table is what is hostile (python-docx scans it per paragraph); 3,000 paragraphs of
    # plain text are 270 chunks to embed, half a minute on this machine, whatever the styles
    styles = write_hostile_docx(tmp_path / "style-table.docx", styles=100_000, paragraphs=300)

    async def scenario() -> tuple[list[tuple[str, float]], list[float]]:
        uploader, asker = ChatSession(url, "alice", "wonderland"), ChatSession(url, "bob", "builder")
        for s in (uploader, asker):
            await s.login()
            await s.connect()
        answered: list[float] = []

        async def keep_asking() -> None:
            for q in ("Which IOS-XE versions run at Branch-05?", "How should I configure SNMPv3 according to our "
                      "company standards?", "Which assets got worse since the previous assessment?"):
                answered.append((await asker.ask(q)).seconds)

        async def upload() -> list[tuple[str, float]]:
            reported = []
            for doc in (big_title, styles):  # sent with the type a browser gives a Word file
                file_id = await uploader.upload(doc, "application/vnd.openxmlformats-officedocument.wordprocessingml"
                                                     ".document")
                reply = await uploader.ask("Please add this document.", files=[file_id])
                reported.append((reply.text, reply.seconds))
            return reported

        try:
            reported, _ = await asyncio.gather(upload(), keep_asking())
        finally:
            await uploader.close()
            await asker.close()
        return reported, answered

    reported, answered = run(scenario())  # type: ignore[misc]
    for (text, seconds), name in zip(reported, ("big-title.docx", "style-table.docx"), strict=True):
        assert name in text and seconds < 15, (text, seconds)
    assert len(answered) == 3 and max(answered) < 15


# Sign-in guessing. Each test's guesses come from addresses of its own (``X-Forwarded-For``, which uvicorn honours
# from loopback, the trusted proxy): no test is slowed by another's.
def _sign_in(http: httpx.Client, user: str, password: str, address: str) -> httpx.Response:
    return http.post("/login", data={"username": user, "password": password}, headers={"X-Forwarded-For": address})


def test_guessing_a_name_backs_off_from_that_address_and_never_keeps_the_right_password_out_elsewhere(
        app: tuple[str, Path]) -> None:
    url, _ = app
    with httpx.Client(base_url=url) as attacker:
        codes = [_sign_in(attacker, "carol", f"guess-{i}", "198.51.100.7").status_code for i in range(7)]
        assert codes == [401] * 5 + [429, 429]  # five free, then wait (not even checked: no password is tried)
        waiting = _sign_in(attacker, "carol", "rosebud", "198.51.100.7")  # the right one, from the guesser's address
        assert waiting.status_code == 429 and int(waiting.headers["retry-after"]) >= 1
        assert "Try again in" in waiting.json()["detail"]
        time.sleep(1.1)  # the first wait is a second; then it doubles
        assert _sign_in(attacker, "carol", "guess-7", "198.51.100.7").status_code == 401
        assert _sign_in(attacker, "carol", "guess-8", "198.51.100.7").status_code == 429
    with httpx.Client(base_url=url) as carol:  # carol herself, from her own address, meanwhile: signed in
        assert _sign_in(carol, "carol", "rosebud", "203.0.113.20").status_code == 200
        assert carol.cookies.get("assess_device")  # this browser is now a trusted device of hers
        # the guesser goes on from her address (a shared NAT): carol's browser is trusted, so she still gets in
        for i in range(12):
            _sign_in(httpx.Client(base_url=url), "carol", f"nat-{i}", "203.0.113.20")
        assert _sign_in(httpx.Client(base_url=url), "carol", "rosebud", "203.0.113.20").status_code == 429
        assert _sign_in(carol, "carol", "rosebud", "203.0.113.20").status_code == 200


def test_concurrent_guesses_are_counted_before_any_is_checked(app: tuple[str, Path]) -> None:
    url, _ = app

    async def burst() -> list[int]:
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            replies = await asyncio.gather(*(http.post("/login", data={"username": "erin", "password": f"g{i}"},
                                                       headers={"X-Forwarded-For": "198.51.100.8"})
                                             for i in range(60)))
        return [r.status_code for r in replies]

    codes = run(burst())
    assert codes.count(401) <= 6 and codes.count(429) >= 54  # type: ignore[union-attr]
    assert httpx.post(f"{url}/login", data={"username": "erin", "password": "opensesame"},
                      headers={"X-Forwarded-For": "198.51.100.9"}).status_code == 200  # elsewhere: in


def test_an_address_over_its_budget_slows_spraying_but_never_refuses_a_right_password(app: tuple[str, Path]) -> None:
    url, _ = app
    address = "198.51.100.10"
    with httpx.Client(base_url=url) as http:
        sprayed = [_sign_in(http, f"mallory-{i}", "Winter2026!", address).status_code for i in range(34)]
        assert sprayed == [401] * 34  # one guess per name: each name's back-off has not started
        late = _sign_in(http, "mallory-33", "Spring2026!", address)  # its guess came over the budget: a long wait
        assert late.status_code == 429 and int(late.headers["retry-after"]) > 60
        assert _sign_in(http, "mallory-0", "Spring2026!", address).status_code == 401  # its first came within it
        assert int(_sign_in(http, "mallory-0", "Summer2026!", address).headers["retry-after"]) > 60  # now: the longest
        assert _sign_in(http, "dave", "hunter22", address).status_code == 200  # a right password gets in


def test_a_killed_server_leaves_no_raw_upload_after_the_next_start(demo_warehouse_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "crash-data"
    shutil.copytree(demo_warehouse_dir, data)
    config = tmp_path / "edge-1.cfg"
    config.write_text("hostname EDGE-1\nenable password 0 RawSecret7Zq\nsnmp-server community CommunityZq9 RO\n"
                      "interface GigabitEthernet1\n ip address 10.0.0.1 255.255.255.0\nline vty 0 4\n password Vty0Zq\n")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "ASSESS_DATA_DIR": str(data)}

    def start() -> subprocess.Popen[bytes]:
        TEST_OUTPUT.mkdir(exist_ok=True)
        proc = subprocess.Popen([ASSESS, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env,
                                stdout=(TEST_OUTPUT / f"crash-{port}.log").open("a"), stderr=subprocess.STDOUT,
                                start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    return proc
            except httpx.HTTPError:
                time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the app did not start")

    def on_disk() -> str:
        files = [p for p in (data / "chainlit_files").rglob("*") if p.is_file() and p.name != ".alive"]
        return "".join(p.read_bytes().decode("latin-1") for p in files)

    proc = start()
    try:
        async def upload_only() -> None:  # the file is uploaded; the message that would use it never comes
            session = ChatSession(url)
            await session.login()
            await session.connect()
            await session.upload(config)
            await session.client.disconnect()

        run(upload_only())
        stored = on_disk()
        assert "EDGE-1" in stored and "<password type 0 masked>" in stored  # what is on disk is masked already
        assert not any(v in stored for v in ("RawSecret7Zq", "CommunityZq9", "Vty0Zq"))
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # no shutdown hook runs
        proc.wait(timeout=30)
    assert "EDGE-1" in on_disk()  # the folder outlived its server
    proc = start()
    try:
        assert on_disk() == ""  # the next start removed the dead instance's folder
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
