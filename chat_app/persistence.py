"""Chat history for the UI: Chainlit's SQLAlchemy data layer on the product's database URL — a SQLite file in the
data directory by default, or PostgreSQL (schema ``chainlit``) so that every replica sees every thread.

Chainlit ships no SQLite DDL, so the schema is created here (the documented tables plus the columns
Chainlit 2.12 writes, e.g. ``autoCollapse`` and ``modes``); the same DDL serves PostgreSQL, where tags are text
arrays and the tables sit in their own schema (the memory store has tables called ``users`` and ``threads`` too).
The project's own memory store keeps the turns themselves; this file only holds what the Chainlit UI shows in
its thread list and on resume. Element bodies go to a storage client (``chat_app/storage.py``) so that resumed
threads show them as live. Step rows are written a moment later, a turn's together (``chat_app/step_writes.py``).
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar, cast

from chainlit.data.storage_clients.base import BaseStorageClient
from chainlit.data.utils import queue_until_user_message
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

from chat_app.history_quota import HistoryQuota, Reckoning
from chat_app.security import REFUSALS, REQUEST_USER, acting_user
from chat_app.step_writes import StepWrites, step_row
from chat_app.uploads import kept_upload
from foundation import migrations
from foundation.database import open_database
from foundation.secrets import mask_prompt

SCHEMA = """
CREATE TABLE IF NOT EXISTS users ("id" TEXT PRIMARY KEY, "identifier" TEXT NOT NULL UNIQUE, "metadata" TEXT NOT NULL,
    "createdAt" TEXT);
CREATE TABLE IF NOT EXISTS threads ("id" TEXT PRIMARY KEY, "createdAt" TEXT, "name" TEXT, "userId" TEXT,
    "userIdentifier" TEXT, "tags" TEXT, "metadata" TEXT, FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS steps ("id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL, "threadId" TEXT NOT NULL,
    "parentId" TEXT, "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN, "metadata" TEXT, "tags" TEXT,
    "input" TEXT, "output" TEXT, "createdAt" TEXT, "command" TEXT, "start" TEXT, "end" TEXT, "generation" TEXT,
    "showInput" TEXT, "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN, "autoCollapse" BOOLEAN, "modes" TEXT,
    "icon" TEXT, FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS elements ("id" TEXT PRIMARY KEY, "threadId" TEXT, "type" TEXT, "url" TEXT, "chainlitKey" TEXT,
    "name" TEXT NOT NULL, "display" TEXT, "objectKey" TEXT, "size" TEXT, "page" INT, "language" TEXT, "forId" TEXT,
    "mime" TEXT, "props" TEXT, "autoPlay" BOOLEAN, "playerConfig" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS feedbacks ("id" TEXT PRIMARY KEY, "forId" TEXT NOT NULL, "threadId" TEXT NOT NULL,
    "value" INT NOT NULL, "comment" TEXT, FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
"""


PG_SCHEMA = "chainlit"
log = logging.getLogger(__name__)
OnTrim = Callable[[str, Reckoning], Awaitable[None]]  # the thread whose write set a reckoning off, and what it removed
# What the history keeps of a user's message: the longest prompt that is answered (``ASSESS_MAX_PROMPT_CHARS``'s
# default) and a little more; a longer one is refused before it runs, and only its start is kept.
MAX_STORED_CHARS = 10_000


MIGRATIONS_TABLE = "chat_history_migrations"


INDEXES = """
CREATE INDEX IF NOT EXISTS ix_steps_thread ON steps ("threadId", "createdAt");
CREATE INDEX IF NOT EXISTS ix_elements_thread ON elements ("threadId");
CREATE INDEX IF NOT EXISTS ix_threads_user ON threads ("userIdentifier");
"""


def steps(dialect: str) -> list[migrations.Step]:
    """Chainlit's tables, step by step (``foundation/migrations.py``: a change is a new step at the end); then the
    indexes a user's history is read and reckoned by (``history_quota.py``)."""
    return [migrations.script(SCHEMA if dialect == "sqlite" else SCHEMA.replace('"tags" TEXT', '"tags" TEXT[]')),
            migrations.script(INDEXES)]


def ensure_schema(url: str) -> URL:
    """Create or bring up to date the tables; the SQLAlchemy URL of the async driver to reach them."""
    db = open_database(url)
    try:
        with db.writing("chainlit schema") as con:  # replicas starting together apply each step once
            if db.path is None:
                con.execute(f"CREATE SCHEMA IF NOT EXISTS {PG_SCHEMA}")
                con.execute(f"SET LOCAL search_path TO {PG_SCHEMA}")
            migrations.apply(con, steps(db.dialect), MIGRATIONS_TABLE)
    except Exception as exc:
        raise db.unavailable(exc) or exc from None
    if db.path is not None:  # the opener made the file and switched it to WAL
        return make_url(f"sqlite+aiosqlite:///{db.path}")
    return make_url(url).set(drivername="postgresql+psycopg")


def masked_step(step: dict[str, Any]) -> dict[str, Any]:
    """A step as it is stored: its input and output with the secrets of pasted configuration lines masked (the
    answers' own texts come from masked stores and pass unchanged; a tool step's output is left as it is), a user's
    message cut at ``MAX_STORED_CHARS`` (an over-long message is refused, never run; the history keeps its start,
    not megabytes), and Chainlit's ``on_message`` step without the copy of the message it carries as input (shown
    nowhere; it doubled the bytes)."""
    out = dict(step)
    if step.get("name") == "on_message" and step.get("type") == "run":  # Chainlit's copy of the user's message
        out["input"] = ""
    # a tool step's output is a view of the turn's STATE, built from the masked question: it is not read again (the
    # largest texts of a turn: SQL, tables, chunks; the secrets audit pastes 606 values through turns and finds none)
    for key in ("input",) if step.get("type") == "tool" else ("input", "output"):
        value = out.get(key)
        if isinstance(value, str) and value:
            if len(value) > MAX_STORED_CHARS and step.get("type") in ("user_message", "run"):
                value = value[:MAX_STORED_CHARS] + f"… ({len(value) - MAX_STORED_CHARS:,} more characters not kept)"
            out[key] = mask_prompt(value)
    return out


def masked_upload(path: Path, name: str | None = None) -> bytes:
    """What is kept of a file a user attached: a device configuration only with its secrets masked, a text document
    with the configuration lines in it masked (``uploads.kept_upload``)."""
    try:
        data = path.read_bytes()
    except OSError:
        return b"(the file is not kept: it could not be read)"
    return kept_upload(name or path.name, data)


Method = TypeVar("Method", bound=Callable[..., Any])


def _queued(method: Method) -> Method:
    """Chainlit's rule for its data layer's writes: before a session's first message they wait (no empty threads)."""
    return cast(Method, queue_until_user_message()(method))  # type: ignore[no-untyped-call]


LOGIN = ContextVar("a login's data-layer statements", default=False)


class Refused(PermissionError):
    """A write to another user's conversation. Chainlit's feedback routes turn any error into HTTP 500, so the
    refusal is also recorded for the request (``REFUSALS``), and the request middleware answers it as a 403; in a
    websocket session it is logged by Chainlit's task and nothing is written."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        refusals = REFUSALS.get()
        if refusals is not None:
            refusals.append(detail)


def make_data_layer(url: str, storage: BaseStorageClient | None = None,  # type: ignore[no-untyped-def]
                    quota: HistoryQuota | None = None, on_trim: OnTrim | None = None):
    """Threads, steps and elements in the database at ``url`` (``sqlite:///path`` or ``postgresql://…``); element
    bodies (citations, charts, files) in ``storage``; each user's history within ``quota`` (``on_trim`` hears what
    it removed, in the session whose write set it off). A file
    the user attached is stored like the chat shows it, with device secrets masked (Chainlit persists a message's
    attachments itself, from the uploaded file)."""
    from chainlit.data.sql_alchemy import SQLAlchemyDataLayer

    class GuardedDataLayer(SQLAlchemyDataLayer):  # type: ignore[misc]
        """Chainlit's data layer with every write checked against the thread's owner (``_check_owner``), the text of
        every step masked on its way in, and steps written together."""

        known_threads: set[str] = set()
        thread_users: dict[str, str] = {}  # a thread's owner never changes: one SELECT per thread, not per element
        thread_owners: dict[str, str] = {}  # the same, by the owner's identifier
        writes: StepWrites
        reckonings: set[asyncio.Task[None]] = set()  # held until done (the loop keeps only weak references)
        reckoning: set[str] = set()  # the users whose history is being reckoned: one reckoning at a time each

        def _count(self, user: str | None, thread: str, size: int) -> None:
            """``size`` bytes written to ``user``'s history; when due, their history is reckoned meanwhile."""
            if quota is None or not user or not quota.written(user, size) or user in self.reckoning:
                return
            self.reckoning.add(user)
            task = asyncio.get_running_loop().create_task(self._reckon(user, thread))
            self.reckonings.add(task)
            task.add_done_callback(self.reckonings.discard)

        async def _reckon(self, user: str, thread: str) -> None:
            """Reckonings of ``user``'s history, one after the other while they write faster than one takes."""
            assert quota is not None
            try:
                while True:
                    quota.begin(user)
                    await self.writes.flush()
                    done = await quota.reckon(self, user, thread)
                    if (done.deleted_threads or done.trimmed_steps) and on_trim is not None:
                        await on_trim(thread, done)
                    if not quota.written(user, 0):
                        break
            except Exception:  # a reckoning is bookkeeping: the conversation goes on, the next one tries again
                log.exception("could not reckon the history of %s", user)
            finally:
                self.reckoning.discard(user)

        async def _owner(self, thread_id: str) -> str | None:
            """The identifier of the user a thread belongs to; None while it has none (being created)."""
            if thread_id not in self.thread_owners:
                rows = await self.execute_sql(query='SELECT "userIdentifier" FROM threads WHERE "id" = :id',
                                              parameters={"id": thread_id})
                owner = rows[0].get("userIdentifier") if isinstance(rows, list) and rows else None
                if owner is None:
                    return None
                self.thread_owners[thread_id] = str(owner)
            return self.thread_owners[thread_id]

        async def _check_owner(self, thread_id: str | None, what: str) -> None:
            """Refuse a write to a conversation that belongs to someone other than who is asking (the server's own
            work, outside any request or session, may write anywhere)."""
            actor = acting_user()
            if actor is None or not thread_id:
                return
            owner = await self._owner(str(thread_id))
            if owner is not None and owner != actor:
                raise Refused(f"{what} another user's conversation is not allowed")

        async def _thread_of(self, table: str, row_id: str) -> str | None:
            rows = await self.execute_sql(query=f'SELECT "threadId" FROM {table} WHERE "id" = :id',
                                          parameters={"id": row_id})
            return str(rows[0]["threadId"]) if isinstance(rows, list) and rows and rows[0].get("threadId") else None

        @_queued
        async def create_step(self, step_dict: dict[str, Any]) -> None:
            """The thread's row at once (elements and feedback refer to it), the step's a moment later with the
            turn's other steps (``chat_app/step_writes.py``). Every text a step carries is kept with the secrets of a
            configuration line pasted into it masked, as the turn itself is: the user's message, and Chainlit's
            ``on_message`` step and the graph's step, whose input is that message."""
            await self._check_owner(step_dict.get("threadId"), "writing to")
            await self.update_thread(step_dict["threadId"])
            row = step_row(masked_step(step_dict))
            self.writes.add(row)
            self._count(acting_user() or await self._owner(str(row["threadId"])), str(row["threadId"]),
                        len(row.get("input") or "") + len(row.get("output") or ""))

        @_queued
        async def update_step(self, step_dict: dict[str, Any]) -> None:
            await self.create_step(step_dict)

        @_queued
        async def delete_step(self, step_id: str) -> None:
            await self.writes.flush()
            await self._check_owner(await self._thread_of("steps", step_id), "deleting from")
            await super().delete_step(step_id)

        async def get_step(self, step_id: str) -> Any:
            await self.writes.flush()
            return await super().get_step(step_id)

        async def get_thread(self, thread_id: str) -> Any:
            await self.writes.flush()
            return await super().get_thread(thread_id)

        async def list_threads(self, pagination: Any, filters: Any) -> Any:
            await self.writes.flush()
            return await super().list_threads(pagination, filters)

        async def close(self) -> None:
            await self.writes.flush()
            await super().close()

        async def _get_user_id_by_thread(self, thread_id: str) -> str | None:
            if thread_id not in self.thread_users:
                user = await super()._get_user_id_by_thread(thread_id)
                if user is None:
                    return None
                self.thread_users[thread_id] = user
            return self.thread_users[thread_id]

        async def update_thread(self, thread_id: str, name: str | None = None, user_id: str | None = None,
                                metadata: dict[str, Any] | None = None, tags: list[str] | None = None) -> None:
            """Chainlit calls this before every step it writes, only to make sure the thread exists (a SELECT in
            its own transaction): a thread seen here is not looked up again, which halves the statements per step
            (~20 steps per turn; at 20 concurrent conversations logins queued behind them for seconds)."""
            if name is None and user_id is None and metadata is None and tags is None and thread_id in self.known_threads:
                return
            await self._check_owner(thread_id, "changing")
            if name is not None:  # named from its first message: "Knowledge documents", not "/docs"
                from chat_app.commands import thread_title

                name = thread_title(mask_prompt(name))
            await super().update_thread(thread_id, name=name, user_id=user_id, metadata=metadata, tags=tags)
            self.known_threads.add(thread_id)

        async def get_user(self, identifier: str) -> Any:
            token = LOGIN.set(True)
            try:
                return await super().get_user(identifier)
            finally:
                LOGIN.reset(token)

        async def create_user(self, user: Any) -> Any:
            """Chainlit calls this at every login: it reads the user, rewrites its metadata and reads it again. A
            known user with the same metadata is not rewritten (a login is then read-only, and in WAL mode a
            reader never waits for a writer); both go through the login connection (see below)."""
            token = LOGIN.set(True)
            try:
                known = await super().get_user(user.identifier)
                if known is not None and known.metadata == user.metadata:
                    return known
                return await super().create_user(user)
            finally:
                LOGIN.reset(token)

        async def delete_thread(self, thread_id: str) -> None:
            await self.writes.flush()
            await self._check_owner(thread_id, "deleting")
            self.known_threads.discard(thread_id)
            self.thread_users.pop(thread_id, None)
            self.thread_owners.pop(thread_id, None)
            await super().delete_thread(thread_id)

        async def create_element(self, element: Any) -> None:
            """An element of the asker's own thread; one whose id is already another thread's is refused (Chainlit
            writes elements by id, so a forged id would move or overwrite someone else's file)."""
            await self._check_owner(element.thread_id, "adding to")
            existing = await self._thread_of("elements", str(element.id))
            if existing is not None and existing != element.thread_id:
                raise Refused("an element of another conversation cannot be replaced")
            source = getattr(element, "path", None)
            if source and getattr(element, "content", None) is None:
                stored = copy.copy(element)  # the handler still reads the upload from the element's path
                stored.content, stored.path = masked_upload(Path(source), getattr(element, "name", None)), None
                element = stored
            await super().create_element(element)
            content = getattr(element, "content", None)
            self._count(acting_user() or await self._owner(str(element.thread_id)), str(element.thread_id),
                        len(content) if isinstance(content, str | bytes) else 0)

        async def delete_element(self, element_id: str, thread_id: str | None = None) -> None:
            await self._check_owner(await self._thread_of("elements", element_id), "removing from")
            await super().delete_element(element_id, thread_id)

        async def _owned(self, sql: str, key: str) -> str:
            """Feedback is its thread owner's: Chainlit's feedback routes do not check it, so this does."""
            await self.writes.flush()
            rows = await self.execute_sql(query=sql, parameters={"key": key})
            thread = rows[0].get("threadId") if isinstance(rows, list) and rows else None
            user = REQUEST_USER.get()
            if thread is None or user is None or await self.get_thread_author(thread) != user:
                raise Refused("feedback can only be given on your own conversations")
            return str(thread)

        async def upsert_feedback(self, feedback: Any) -> str:
            feedback.threadId = await self._owned("""SELECT "threadId" FROM steps WHERE "id" = :key""", feedback.forId)
            if feedback.id:  # an existing feedback id must be on the same user's thread too
                existing = await self.execute_sql(query="""SELECT 1 FROM feedbacks WHERE "id" = :key""",
                                                  parameters={"key": feedback.id})
                if existing:
                    await self._owned("""SELECT "threadId" FROM feedbacks WHERE "id" = :key""", feedback.id)
            result: str = await super().upsert_feedback(feedback)
            return result

        async def delete_feedback(self, feedback_id: str) -> bool:
            await self._owned("""SELECT "threadId" FROM feedbacks WHERE "id" = :key""", feedback_id)
            result: bool = await super().delete_feedback(feedback_id)
            return result

    conninfo = ensure_schema(url)
    layer = GuardedDataLayer(conninfo=conninfo.render_as_string(hide_password=False), storage_provider=storage)
    if conninfo.get_backend_name() == "postgresql":
        # A pool per process. No pre-ping: it doubled the round trips of every step written (~20 per turn, on the
        # event loop); a connection the server dropped fails its one statement (Chainlit logs it) and the pool is
        # renewed.
        options = {"pool_recycle": 3600, "connect_args": {"options": f"-csearch_path={PG_SCHEMA}"}}
        layer.engine = create_async_engine(conninfo, pool_size=5, max_overflow=10, **options)
        logins = create_async_engine(conninfo, pool_size=2, max_overflow=2, **options)
    else:
        # One connection, writes queued in the event loop: SQLite takes one writer at a time anyway, and with the
        # default pool of up to 15 connections they contended for the file lock, each loser sleeping in SQLite's
        # busy handler (up to 100 ms a try) — a login behind the steps of 20 conversations waited seconds.
        layer.engine = create_async_engine(conninfo, pool_size=1, max_overflow=0, pool_timeout=60)
        logins = create_async_engine(conninfo, pool_size=1, max_overflow=0, pool_timeout=60)
        for engine in (layer.engine, logins):
            event.listen(engine.sync_engine, "connect", _tune)
    # Logins have connections of their own: behind the steps' pool they queued after every step of every running
    # conversation (7–9 s at 20 sessions in `assess bench concurrency` on SQLite, 7–8 s on PostgreSQL).
    steps_session = async_sessionmaker(bind=layer.engine, expire_on_commit=False, class_=AsyncSession)
    login_session = async_sessionmaker(bind=logins, expire_on_commit=False, class_=AsyncSession)
    layer.async_session = lambda: (login_session if LOGIN.get() else steps_session)()
    layer.writes = StepWrites(steps_session)
    return layer


def _tune(connection: Any, _record: Any) -> None:
    """Every step of every turn is a committed write: in WAL mode ``synchronous=NORMAL`` skips the fsync per
    commit (durable at checkpoints; a power cut may lose the last steps' display, never corrupt the file), and a
    writer (another process, e.g. ``assess`` commands) is waited for instead of failing — Chainlit's data layer
    logs and drops a write that fails."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
