"""One user floods the running app — 2,000 button presses over HTTP and 1,000 messages of 8,000 characters over the
websocket (8 MB), as fast as they go — while another asks questions: the other's answers stay under 2 s, the flooder is refused in words (a
notice for presses, a sentence for messages), and what the flooder leaves in the stores, read with SQL and from the
files, stays within the storage quota (1 MB here)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.browser import running_app
from tests.chat_client import ChatSession

QUOTA_MB = 1


@pytest.fixture(scope="module")
def app(demo_warehouse_dir: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    data = tmp_path_factory.mktemp("flood")
    shutil.copytree(demo_warehouse_dir, data, dirs_exist_ok=True)
    with running_app(data, ASSESS_AUTH_ENABLED="true", ASSESS_USERS="alice:wonderland,mallet:hammer",
                     ASSESS_MEMORY_QUOTA_MB=str(QUOTA_MB)) as url:
        yield url, data


def _history_bytes(data: Path, user: str) -> int:
    """The text of every step of the user's conversations and the bytes of their stored files."""
    with sqlite3.connect(f"file:{data / 'chainlit.sqlite'}?mode=ro", uri=True) as con:
        text = con.execute('SELECT COALESCE(SUM(COALESCE(LENGTH(s."input"), 0) + COALESCE(LENGTH(s."output"), 0)), 0) '
                           'FROM steps s JOIN threads t ON t.id = s."threadId" WHERE t."userIdentifier" = ?',
                           (user,)).fetchone()[0]
        keys = [r[0] for r in con.execute('SELECT e."objectKey" FROM elements e JOIN threads t ON t.id = e."threadId" '
                                          'WHERE t."userIdentifier" = ?', (user,))]
    import hashlib

    files = 0
    for key in keys:
        digest = hashlib.sha256(str(key).encode()).hexdigest()
        path = data / "elements" / digest[:2] / digest
        files += path.stat().st_size if path.exists() else 0
    return int(text) + files


def _memory_bytes(data: Path, user: str) -> tuple[int, int]:
    with sqlite3.connect(f"file:{data / 'memory.sqlite'}?mode=ro", uri=True) as con:
        counted = con.execute("SELECT COALESCE(MAX(stored_bytes), 0) FROM users WHERE user_id = ?", (user,)).fetchone()[0]
        turns = con.execute("SELECT COALESCE(SUM(stored_bytes), 0) FROM turns WHERE user_id = ?", (user,)).fetchone()[0]
        notes = con.execute("SELECT COALESCE(SUM(LENGTH(body) + LENGTH(title)), 0) FROM thread_notes WHERE user_id = ?",
                            (user,)).fetchone()[0]
    return int(counted), int(turns) + int(notes)


def test_a_flood_of_presses_and_messages_neither_slows_another_user_nor_outgrows_the_quota(app) -> None:  # type: ignore[no-untyped-def]
    url, data = app

    async def scenario() -> tuple[list[float], list[str], list[int], int]:
        alice, mallet = ChatSession(url, "alice", "wonderland"), ChatSession(url, "mallet", "hammer")
        for s in (alice, mallet):
            await s.login()
            await s.connect()
        toasts: list[str] = []
        mallet.client.on("toast", lambda data=None: toasts.append(str((data or {}).get("message"))))
        await alice.ask("How should I configure SNMPv3 according to our company standards?")  # warm
        await mallet.ask("/docs")  # the flooder's thread exists: presses run in it

        async def presses() -> list[int]:
            codes: list[int] = []
            action = {"name": "doc_preview", "payload": {"source": "standard-snmpv3.md"}, "forId": str(uuid.uuid4()),
                      "label": "Preview"}
            for start in range(0, 2_000, 50):
                replies = await asyncio.gather(*(mallet.http.post("/project/action", json={
                    "sessionId": mallet.session_id, "action": {**action, "id": str(uuid.uuid4())}})
                    for _ in range(start, start + 50)))
                codes += [r.status_code for r in replies]
            return codes

        async def messages() -> None:
            for i in range(1_000):
                message = {"id": str(uuid.uuid4()), "name": "User", "type": "user_message",
                           "output": f"Which IOS-XE versions run at Branch-05? ({i}) " + "x" * 7_900,
                           "createdAt": datetime.now(UTC).isoformat()}
                await mallet.client.emit("client_message", {"message": message, "fileReferences": None})

        async def questions() -> list[float]:
            await asyncio.sleep(1.0)  # the flood is under way
            seconds = []
            for q in ("Which assets got worse since the previous assessment?", "Which IOS-XE versions run at Branch-05?",
                      "What is our SSH idle timeout?"):
                seconds.append((await alice.ask(q)).seconds)
            return seconds

        codes, _, seconds = await asyncio.gather(presses(), messages(), questions())
        refused, quiet = [], 0
        while quiet < 3:  # until the flooder's answers have stopped coming for 3 s
            try:
                name, event = await asyncio.wait_for(mallet.events.get(), 1.0)
                if name == "new_message" and event.get("type") != "user_message":
                    refused.append(str(event.get("output")))
                quiet = 0
            except TimeoutError:
                quiet += 1
        await alice.close()
        await mallet.close()
        return seconds, refused, codes, len(toasts)

    started = time.monotonic()
    seconds, replies, codes, toasts = asyncio.run(scenario())
    assert max(seconds) < 2.0, seconds
    assert codes.count(200) == 2_000 and toasts >= 1_900  # presses over the limit: a notice each, nothing stored
    limited = [r for r in replies if "messages in a minute" in r or "still answering" in r]
    assert len(limited) >= 900, (len(replies), replies[:3])
    time.sleep(2)  # the last reckoning of the history
    quota = QUOTA_MB * 1024 * 1024
    assert _history_bytes(data, "mallet") <= quota * 1.1, _history_bytes(data, "mallet")
    counted, stored = _memory_bytes(data, "mallet")
    assert counted == stored and stored <= quota, (counted, stored)
    print("flood:", seconds, _history_bytes(data, "mallet"), counted, len(replies), toasts)
    assert any("storage quota" in r for r in replies)  # the flooder was told what the quota removed
    assert time.monotonic() - started < 600
