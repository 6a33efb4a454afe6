"""A chat client that speaks the Chainlit UI's own protocol (HTTP login and file upload, socket.io messages) to a
running app, for tests that need many sessions, hostile origins or raw payloads a browser would not send."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import socketio


@dataclass
class Reply:
    """What the app sent for one message: the messages (assistant and others) and elements, until the task ended."""

    messages: list[str] = field(default_factory=list)
    elements: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def text(self) -> str:
        return "\n".join(self.messages)


class ChatSession:
    def __init__(self, url: str, user: str | None = None, password: str | None = None, origin: str | None = None) -> None:
        self.url, self.user, self.password = url, user, password
        self.origin = origin or url
        self.http = httpx.AsyncClient(base_url=url, timeout=120)
        self.client = socketio.AsyncClient(reconnection=False)
        self.session_id = str(uuid.uuid4())
        self.events: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []  # the user messages sent, in order

    async def login(self) -> httpx.Response:
        if self.user is None:
            return await self.http.post("/auth/header")
        return await self.http.post("/login", data={"username": self.user, "password": self.password or ""})

    @property
    def cookie(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    async def connect(self) -> None:
        for name in ("new_message", "update_message", "element", "task_end"):
            self.client.on(name, lambda data=None, name=name: self.events.put_nowait((name, data or {})))
        await self.client.connect(self.url, socketio_path="/ws/socket.io", transports=["websocket"], wait_timeout=30,
                                  headers={"Cookie": self.cookie, "Origin": self.origin},
                                  auth={"sessionId": self.session_id, "clientType": "webapp", "threadId": None})
        await self.client.emit("connection_successful")
        await self._until_task_end(60)

    async def upload(self, path: Path, mime: str = "application/octet-stream") -> str:
        response = await self.http.post("/project/file", params={"session_id": self.session_id},
                                        files={"file": (path.name, path.read_bytes(), mime)})
        response.raise_for_status()
        return str(response.json()["id"])

    async def ask(self, text: str, files: list[str] | None = None, timeout: float = 120) -> Reply:
        message = {"id": str(uuid.uuid4()), "name": "User", "type": "user_message", "output": text,
                   "createdAt": datetime.now(UTC).isoformat()}
        started = time.perf_counter()
        self.sent.append(message)
        await self.client.emit("client_message", {"message": message,
                                                  "fileReferences": [{"id": f} for f in files or []] or None})
        reply = await self._until_task_end(timeout)
        reply.seconds = time.perf_counter() - started
        return reply

    async def edit(self, text: str, timeout: float = 120) -> str:
        """The last message sent, edited to ``text`` (as the pencil under it does): the answer to the edited one."""
        message = {**self.sent[-1], "output": text}
        await self.client.emit("edit_message", {"message": message})
        return (await self._until_task_end(timeout)).text

    async def _until_task_end(self, timeout: float) -> Reply:
        reply = Reply()
        while True:
            name, data = await asyncio.wait_for(self.events.get(), timeout)
            if name == "new_message" and data.get("type") != "user_message" and data.get("output"):
                reply.messages.append(str(data["output"]))
            elif name == "update_message" and reply.messages and data.get("output"):
                reply.messages[-1] = str(data["output"])
            elif name == "element":
                reply.elements.append(data)
            elif name == "task_end":
                return reply

    async def close(self) -> None:
        if self.client.connected:
            await self.client.disconnect()
        await self.http.aclose()
