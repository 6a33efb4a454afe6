"""The chat history (Chainlit's data layer) on both engines of the product database: what one replica writes —
a thread, its steps, a citation element, feedback — another replica's data layer on the same URL lists and
resumes, and it shares a PostgreSQL database with the memory store without their tables colliding."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from chainlit.context import init_http_context
from chainlit.element import Text
from chainlit.types import Feedback, Pagination, ThreadFilter
from chainlit.user import User

from chat_app.persistence import make_data_layer
from chat_app.security import REQUEST_USER
from chat_app.storage import LocalStorageClient
from foundation.config import get_settings
from tests.stores import configured_memory


def _step(step_id: str, thread_id: str, kind: str, output: str, at: str, parent: str | None = None) -> dict[str, object]:
    return {"id": step_id, "threadId": thread_id, "parentId": parent, "name": kind, "type": kind, "output": output,
            "streaming": False, "isError": False, "createdAt": at, "start": at, "end": at, "showInput": "json",
            "metadata": {"agent": "knowledge"}, "language": "markdown"}


def test_a_thread_written_by_one_replica_is_resumed_by_another(database_backend: str, tmp_path: Path) -> None:
    url = get_settings().chat_history_url
    assert url.startswith(database_backend)
    elements = LocalStorageClient(tmp_path / "shared-elements", "x" * 48)
    configured_memory().set_preference("alice", "severity", "high")  # the memory store's users/threads tables too

    async def scenario() -> None:
        replica_a, replica_b = make_data_layer(url, elements), make_data_layer(url, elements)
        alice = await replica_a.create_user(User(identifier="alice", metadata={"provider": "local"}))
        init_http_context(thread_id="th-1", user=alice)
        await replica_a.update_thread("th-1", name="Weak SNMP at site ams", user_id=alice.id,
                                      metadata={"collection": "fleet"})
        await replica_a.create_step(_step("st-q", "th-1", "user_message", "Which devices have weak SNMP?",
                                          "2026-11-23T10:00:00Z"))
        await replica_a.create_step(_step("st-trace", "th-1", "tool", "intent: data_query", "2026-11-23T10:00:01Z",
                                          parent="st-q"))
        await replica_a.create_step(_step("st-a", "th-1", "assistant_message", "3 devices use community 'public'.",
                                          "2026-11-23T10:00:02Z"))
        await replica_a.create_element(Text(name="[1] snmp-hardening.md", content="Use SNMPv3 with authPriv.",
                                            display="side", for_id="st-a", thread_id="th-1"))
        token = REQUEST_USER.set("alice")
        try:
            await replica_a.upsert_feedback(Feedback(forId="st-a", value=1, comment="right"))
        finally:
            REQUEST_USER.reset(token)

        listed = await replica_b.list_threads(Pagination(first=20), ThreadFilter(userId=alice.id))
        assert [t["id"] for t in listed.data] == ["th-1"] and listed.data[0]["name"] == "Weak SNMP at site ams"
        thread = await replica_b.get_thread("th-1")
        assert thread is not None and thread["userIdentifier"] == "alice"
        assert json.loads(str(thread["metadata"])) == {"collection": "fleet"}  # TEXT on both engines, as Chainlit reads it
        steps = {s["id"]: s for s in thread["steps"]}
        assert [s["id"] for s in thread["steps"]] == ["st-q", "st-trace", "st-a"]
        assert steps["st-trace"]["parentId"] == "st-q" and steps["st-a"]["output"].startswith("3 devices")
        assert json.loads(str(steps["st-a"]["metadata"])) == {"agent": "knowledge"}
        assert steps["st-a"].get("feedback", {}).get("value") == 1
        [element] = thread["elements"] or []
        assert element["name"] == "[1] snmp-hardening.md" and element["forId"] == "st-a"
        assert (elements.read(element["objectKey"]) or (b"",))[0] == b"Use SNMPv3 with authPriv."
        assert await replica_b.get_thread_author("th-1") == "alice"

        await replica_b.delete_thread("th-1")
        assert await replica_a.get_thread("th-1") is None

    asyncio.run(scenario())
    assert configured_memory().preferences("alice") == {"severity": "high"}
