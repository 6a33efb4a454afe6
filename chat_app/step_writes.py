"""The chat history's step rows, written a moment later and together: one transaction for the steps of every turn
running, instead of one per write.

An answer is about twenty Chainlit steps, each sent, then updated as its node finishes; Chainlit writes every
send and update as its own transaction (a SQLAlchemy session, a connection checkout, a commit) on the chat
server's event loop, which cannot use the second core — at 20 concurrent conversations that was a third of the
chat server's CPU (issue 32). Here a write only records the row; the rows are written after ``DELAY`` in one
transaction, several updates of one step as one row. Reads of the history (resume, feedback, deletion) write what
is pending first, so nobody reads around it; the server's shutdown writes it too. A crash loses at most the
display of the last ``DELAY`` of steps — the conversation itself is in the memory store.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

log = logging.getLogger(__name__)

DELAY = 0.05  # seconds: long enough to gather a turn's steps, short next to a person opening a thread


def step_row(step: dict[str, Any]) -> dict[str, Any]:
    """The columns Chainlit's ``create_step`` writes for a step: values that are None or an empty dict are left as
    they are in the table (an update never blanks a column), metadata and generation as JSON."""
    row = {k: v for k, v in step.items() if v is not None and not (isinstance(v, dict) and not v)}
    if "showInput" in step:
        row["showInput"] = str(step.get("showInput", "")).lower()
    row["metadata"] = json.dumps(step.get("metadata") or {})
    row["generation"] = json.dumps(step.get("generation") or {})
    return row


def upsert(columns: tuple[str, ...]) -> str:
    """The row written, or the step of that id updated — only within its own thread: a step id is chosen by the
    browser for a user's message, and a forged one must not move or overwrite another conversation's step."""
    names = ", ".join(f'"{c}"' for c in columns)
    values = ", ".join(f":{c}" for c in columns)
    updates = ", ".join(f'"{c}" = excluded."{c}"' for c in columns if c != "id")
    return (f"INSERT INTO steps ({names}) VALUES ({values}) ON CONFLICT (id) DO UPDATE SET {updates} "
            'WHERE steps."threadId" = excluded."threadId"')


class StepWrites:
    """Step rows waiting to be written, merged by step id in the order they came (a later value wins, as a later
    upsert would)."""

    def __init__(self, session: Callable[[], AsyncSession], delay: float = DELAY) -> None:
        self.session, self.delay = session, delay
        self.pending: dict[str, dict[str, Any]] = {}
        self._timer: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    def add(self, row: dict[str, Any]) -> None:
        self.pending.setdefault(str(row["id"]), {}).update(row)
        if self._timer is None or self._timer.done():
            self._timer = asyncio.get_running_loop().create_task(self._later())

    async def _later(self) -> None:
        # rows added while a flush is being written wait for the next round of this same timer (``add`` starts a
        # timer only when none runs): the loop ends only with nothing pending, without an await in between
        while self.pending:
            await asyncio.sleep(self.delay)
            await self.flush()

    async def flush(self) -> None:
        """Everything pending, in one transaction; if that fails, row by row (a bad row loses only itself)."""
        async with self._lock:
            rows, self.pending = list(self.pending.values()), {}
            if not rows:
                return
            groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
            for row in rows:
                groups.setdefault(tuple(sorted(row)), []).append(row)
            try:
                await self._write(list(groups.items()))
            except Exception as exc:  # noqa: BLE001 — Chainlit's own writes log and go on, so do these
                log.warning("steps not written together (%s); writing them one by one", exc)
                for row in rows:
                    try:
                        await self._write([(tuple(sorted(row)), [row])])
                    except Exception as one:  # noqa: BLE001
                        log.warning("step %s not written: %s", row.get("id"), one)

    async def _write(self, groups: list[tuple[tuple[str, ...], list[dict[str, Any]]]]) -> None:
        async with self.session() as session, session.begin():
            for columns, params in groups:
                await session.execute(text(upsert(columns)), params)
