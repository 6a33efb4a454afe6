"""One user against another's conversation, through every route of the running app (Chainlit's and the product's)
and its websocket: with alice's thread, step, element, feedback, session and file ids in hand, bob reads nothing of
hers and changes nothing — each refusal a 403 with the reason — and a client nobody signed in to is asked to sign in.
Alice's rows (thread, steps, elements, feedback) and her stored files are read with SQL and byte for byte before and
after: identical."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import socketio

from tests.chat_client import ChatSession

MARK = f"marker-{uuid.uuid4().hex[:10]}"


def _rows(data: Path, sql: str, *params: Any) -> list[dict[str, Any]]:
    with sqlite3.connect(f"file:{data / 'chainlit.sqlite'}?mode=ro", uri=True) as con:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute(sql, params).fetchall()]


def _snapshot(data: Path, thread: str) -> dict[str, Any]:
    """Everything of alice's conversation: its rows in every table and the bytes of its stored files."""
    elements = _rows(data, 'SELECT * FROM elements WHERE "threadId" = ? ORDER BY id', thread)
    files = {}
    for element in elements:
        digest = hashlib.sha256(str(element["objectKey"]).encode()).hexdigest()
        path = data / "elements" / digest[:2] / digest
        files[element["id"]] = path.read_bytes() if path.exists() else None
    return {"thread": _rows(data, "SELECT * FROM threads WHERE id = ?", thread),
            "steps": _rows(data, 'SELECT * FROM steps WHERE "threadId" = ? ORDER BY id', thread),
            "elements": elements, "files": files,
            "feedbacks": _rows(data, 'SELECT * FROM feedbacks WHERE "threadId" = ? ORDER BY id', thread)}


def _wait_for(probe: Any, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.25)
    raise AssertionError("not written in time")


def test_no_route_lets_one_user_read_or_change_anothers_conversation(auth_app: tuple[str, Path], tmp_path: Path) -> None:
    url, data = auth_app
    notes = tmp_path / "alice-notes.md"
    notes.write_text(f"# Alice's notes\n\n{MARK} her own document, hers alone.\n")

    async def scenario() -> None:
        alice = ChatSession(url, "alice", "wonderland")
        await alice.login()
        await alice.connect()
        file_id = await alice.upload(notes, "text/markdown")
        await alice.ask(f"Please add this document. {MARK}", files=[file_id])
        await alice.ask(f"How should I configure SNMPv3 according to our company standards? {MARK}")
        [question] = _wait_for(lambda: _rows(data, "SELECT * FROM steps WHERE output LIKE ? AND type = 'user_message'",
                                             f"How should I configure SNMPv3%{MARK}"))
        thread = question["threadId"]
        answer = _wait_for(lambda: _rows(data, "SELECT id FROM steps WHERE \"threadId\" = ? AND type = "
                                               "'assistant_message' ORDER BY \"createdAt\" DESC", thread))[0]["id"]
        element = _wait_for(lambda: _rows(data, 'SELECT * FROM elements WHERE "threadId" = ?', thread))[0]
        liked = await alice.http.put("/feedback", json={"feedback": {"forId": answer, "value": 1}, "sessionId":
                                                        alice.session_id})
        assert liked.status_code == 200, liked.text
        feedback = liked.json()["feedbackId"]
        alice_user = _rows(data, "SELECT id FROM users WHERE identifier = 'alice'")[0]["id"]
        # sharing is off: not even her own thread can be shared
        shared = await alice.http.put("/project/thread/share", json={"threadId": thread, "isShared": True})
        wrong = [] if shared.status_code == 403 and "sharing" in shared.text else [("alice", "share", shared.text)]
        await asyncio.sleep(0.5)
        before = _snapshot(data, thread)
        assert before["steps"] and before["elements"] and before["feedbacks"]

        bob = ChatSession(url, "bob", "builder")
        await bob.login()
        await bob.connect()
        custom = {"id": element["id"], "threadId": thread, "type": "custom", "name": element["name"],
                  "display": "inline", "forId": answer, "props": {"html": "<b>pwned</b>"}}
        action = {"id": str(uuid.uuid4()), "name": "doc_preview", "payload": {"source": "alice/alice-notes.md"},
                  "forId": answer, "label": "x"}
        routes: list[tuple[str, str, dict[str, Any]]] = [
            ("GET", f"/project/thread/{thread}", {}),
            ("GET", f"/project/thread/{thread}/element/{element['id']}", {}),
            ("GET", f"/project/share/{thread}", {}),
            ("PUT", "/project/thread", {"json": {"threadId": thread, "name": "pwned"}}),
            ("PUT", "/project/thread/share", {"json": {"threadId": thread, "isShared": True}}),
            ("DELETE", "/project/thread", {"json": {"threadId": thread}}),
            ("PUT", "/project/element", {"json": {"sessionId": bob.session_id, "element": custom}}),
            ("DELETE", "/project/element", {"json": {"sessionId": bob.session_id, "element": custom}}),
            ("PUT", "/project/element", {"json": {"sessionId": alice.session_id, "element": custom}}),
            ("PUT", "/feedback", {"json": {"feedback": {"forId": answer, "value": 0, "comment": "bob"},
                                           "sessionId": bob.session_id}}),
            ("PUT", "/feedback", {"json": {"feedback": {"id": feedback, "forId": answer, "value": 0},
                                           "sessionId": bob.session_id}}),
            ("DELETE", "/feedback", {"json": {"feedbackId": feedback}}),
            ("POST", "/project/action", {"json": {"sessionId": alice.session_id, "action": action}}),
            ("POST", "/project/file", {"params": {"session_id": alice.session_id},
                                       "files": {"file": ("x.md", b"# x\n\ninjected\n", "text/markdown")}}),
            ("GET", f"/project/file/{file_id}", {"params": {"session_id": alice.session_id}}),
            ("GET", f"/element-files/{element['objectKey']}", {}),
        ]
        anonymous = httpx.AsyncClient(base_url=url, timeout=60)
        seen: list[str] = []
        try:
            for method, path, kwargs in routes:
                for who, client in (("bob", bob.http), ("anonymous", anonymous)):
                    reply = await client.request(method, path, **kwargs)
                    seen.append(reply.text)
                    detail = reply.json().get("detail") if reply.headers.get("content-type", "").startswith(
                        "application/json") else None
                    expected = (403,) if who == "bob" else (401, 403)
                    # a reason, not Chainlit's word for "who are you" (bob signed in)
                    if reply.status_code not in expected or not isinstance(detail, str) or not detail or (
                            who == "bob" and detail == "Unauthorized"):
                        wrong.append((who, method, path, reply.status_code, reply.text[:120]))
            # his own thread list, asked with her user id as the filter, lists only his own threads
            listed = await bob.http.post("/project/threads", json={"pagination": {"first": 50},
                                                                   "filter": {"userId": alice_user}})
            assert listed.status_code == 200 and thread not in listed.text
            seen.append(listed.text)
            # actions of his own session that name her conversation: refused in words, nothing of hers in the reply
            for name, payload in (("export_trace", {"thread_id": thread, "format": "md"}),
                                  ("export_csv", {"thread_id": thread, "answer": ""})):
                reply = await bob.http.post("/project/action", json={"sessionId": bob.session_id, "action": {
                    "id": str(uuid.uuid4()), "name": name, "payload": payload, "forId": answer, "label": name}})
                assert reply.status_code == 200
            # the websocket: her thread cannot be opened, and a message under her step's id writes nothing of hers
            intruder = socketio.AsyncClient(reconnection=False)
            with pytest.raises(socketio.exceptions.ConnectionError):
                await intruder.connect(url, socketio_path="/ws/socket.io", transports=["websocket"], wait_timeout=20,
                                       headers={"Cookie": bob.cookie, "Origin": url},
                                       auth={"sessionId": str(uuid.uuid4()), "clientType": "webapp", "threadId": thread})
            forged = {"id": question["id"], "name": "User", "type": "user_message", "output": "taken over",
                      "createdAt": datetime.now(UTC).isoformat()}
            await bob.client.emit("client_message", {"message": forged, "fileReferences": None})
            reply = await bob._until_task_end(120)
            seen.extend(reply.messages)
            await asyncio.sleep(1.0)  # steps are written a moment after they are sent
            assert wrong == []
            assert _snapshot(data, thread) == before
            assert not [text[:200] for text in seen if MARK in text or "alice-notes" in text]
        finally:
            await anonymous.aclose()
            await bob.close()
            await alice.close()

    asyncio.run(scenario())
