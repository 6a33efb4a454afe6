"""The memory store: one database — the SQLite file in the data directory (WAL) by default, or PostgreSQL at
``ASSESS_DATABASE_URL`` for several replicas — with its schema versioned by ordered migrations, the same list
for both engines (their SQL is the subset both speak: ``ON CONFLICT`` upserts, ``RETURNING``).

A turn is written in one transaction after it completes, so a crash mid-turn loses at most that turn;
turn numbers are allocated inside that transaction, so concurrent writers never collide. What a new
turn reads is bounded: the last ``WINDOW`` turns plus a running summary of everything older, which
the Context Pruner extends as turns leave the window.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from foundation import migrations
from foundation.config import DEFAULT_MEMORY_QUOTA_MB
from foundation.database import Connection, Database, Databases, DatabaseUnavailable, open_database

WINDOW = 6
DEFAULT_QUOTA_BYTES = DEFAULT_MEMORY_QUOTA_MB * 1024 * 1024
log = logging.getLogger(__name__)


# a sign-in's failure records, by key: (failures, first_at, last_at) -> (seconds to wait, the records to write)
SignInPolicy = Callable[[dict[str, tuple[int, float, float]]], tuple[float, dict[str, tuple[int, float, float]]]]

PENDING = "upload-pending"  # a note of an upload being processed; left behind when the server stopped during it
QUOTA_NOTE = "quota"  # a note saying what the quota removed from its conversation (seq 0: it leads the export)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _m1_initial(db: Connection) -> None:
    db.script("""
    CREATE TABLE users (user_id TEXT PRIMARY KEY, created_at TEXT NOT NULL);
    CREATE TABLE threads (thread_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, title TEXT, created_at TEXT NOT NULL,
                          updated_at TEXT NOT NULL);
    CREATE INDEX ix_threads_user ON threads(user_id, updated_at);
    CREATE TABLE turns (thread_id TEXT NOT NULL, turn_number INTEGER NOT NULL, user_id TEXT NOT NULL, prompt TEXT NOT NULL,
                        intent_class TEXT, meta_intent TEXT, skill TEXT, scope TEXT, entities TEXT, plan TEXT,
                        answer TEXT, findings TEXT, state TEXT NOT NULL, started_at TEXT, finished_at TEXT,
                        duration_ms REAL, PRIMARY KEY (thread_id, turn_number));
    CREATE TABLE preferences (user_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, updated_at TEXT NOT NULL,
                              PRIMARY KEY (user_id, key));
    CREATE TABLE corrections (user_id TEXT NOT NULL, entity_type TEXT NOT NULL, wrong TEXT NOT NULL, "right" TEXT NOT NULL,
                              created_at TEXT NOT NULL, PRIMARY KEY (user_id, entity_type, wrong));
    CREATE TABLE agent_memory (key TEXT PRIMARY KEY, thread_id TEXT, value TEXT NOT NULL, created_at TEXT NOT NULL,
                               expires_at TEXT NOT NULL);
    CREATE TABLE summaries (thread_id TEXT PRIMARY KEY, upto_turn INTEGER NOT NULL, summary TEXT NOT NULL,
                            updated_at TEXT NOT NULL);
    """)


def _m2_name_readings(db: Connection) -> None:
    """How each turn read the names it was given (a clarification reply refers to them), and the complete
    device list an answer enumerated ("fix those devices" refers to it)."""
    db.script("""
    ALTER TABLE turns ADD COLUMN name_resolutions TEXT;
    ALTER TABLE turns ADD COLUMN answer_devices TEXT;
    """)


def _m3_thread_collections(db: Connection) -> None:
    """Which collection of assessments a thread answers about (an upload switches it; "back to the fleet" too)."""
    db.script("""
    CREATE TABLE thread_collections (thread_id TEXT PRIMARY KEY, collection TEXT NOT NULL, updated_at TEXT NOT NULL);
    """)


def _m4_sessions_and_quota(db: Connection) -> None:
    """Signed-out session tokens (by hash, until they would expire), and what each user keeps stored (the quota)."""
    db.script("""
    CREATE TABLE revoked_tokens (token_hash TEXT PRIMARY KEY, user_id TEXT, expires_at TEXT NOT NULL,
                                 revoked_at TEXT NOT NULL);
    ALTER TABLE users ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE turns ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
    CREATE INDEX ix_turns_user ON turns(user_id);
    UPDATE turns SET stored_bytes = LENGTH(state) + LENGTH(prompt) + COALESCE(LENGTH(answer), 0);
    UPDATE users SET stored_bytes = (SELECT COALESCE(SUM(t.stored_bytes), 0) FROM turns t WHERE t.user_id = users.user_id)
    """)


def _m5_turn_frames(db: Connection) -> None:
    """Each turn's question frame: a follow-up keeps the filters (topic, checks, severity, kinds of site) it does not
    change ("which of those are in production?" still means the weak-SNMP devices)."""
    db.script("""
    ALTER TABLE turns ADD COLUMN frame TEXT;
    """)


def _m6_thread_notes(db: Connection) -> None:
    """What a conversation showed besides answers — upload results, command outputs — kept for its export, each
    after the turn it followed."""
    db.script("""
    CREATE TABLE thread_notes (thread_id TEXT NOT NULL, seq INTEGER NOT NULL, user_id TEXT NOT NULL,
        after_turn INTEGER NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, at TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq));
    """)


def _m7_thread_documents(db: Connection) -> None:
    """The documents a thread may cite, when its user chose some (none stored: every document they can use)."""
    db.script("""
    CREATE TABLE thread_documents (thread_id TEXT PRIMARY KEY, sources TEXT NOT NULL, updated_at TEXT NOT NULL);
    """)


def _m8_sign_in_failures(db: Connection) -> None:
    """Failed sign-ins, by who tried from where (the back-off of a name from an address or a device) and by address
    (its budget): shared by every replica of the database, so that N replicas give no N times the guesses."""
    db.script("""
    CREATE TABLE sign_in_failures (key TEXT PRIMARY KEY, failures INTEGER NOT NULL, first_at DOUBLE PRECISION NOT NULL,
                                   last_at DOUBLE PRECISION NOT NULL);
    CREATE INDEX ix_sign_in_failures_last ON sign_in_failures(last_at);
    """)


def _m9_turn_queries(db: Connection) -> None:
    """Each turn's question as a typed query and the keys of its rows as shown: a follow-up is an edit of that query
    ("and in september?", "sort those by pass rate") or picks one of its rows ("the third one")."""
    db.script("""
    ALTER TABLE turns ADD COLUMN query TEXT;
    ALTER TABLE turns ADD COLUMN answer_rows TEXT;
    """)


def _m10_turn_questions(db: Connection) -> None:
    """The question a turn stood for when its words were read against the history ("summarize DataCenter-2" for
    "sorry I meant DataCenter-2"): a later follow-up carries that question, not the words typed."""
    db.script("ALTER TABLE turns ADD COLUMN asked TEXT;")


def _m11_turn_figures(db: Connection) -> None:
    """Each row's figure beside its key, as the answer showed it: "the worse one" or "the most common one" of a list
    that was not ranked is picked by its figure."""
    db.script("ALTER TABLE turns ADD COLUMN answer_figures TEXT;")


MIGRATIONS_TABLE = "_migrations"  # the name it had before the stores shared foundation/migrations.py
MIGRATIONS: list[migrations.Step] = [_m1_initial, _m2_name_readings, _m3_thread_collections,
                                                  _m4_sessions_and_quota, _m5_turn_frames, _m6_thread_notes,
                                                  _m7_thread_documents, _m8_sign_in_failures, _m9_turn_queries,
                                                  _m10_turn_questions, _m11_turn_figures]


def _upsert(table: str, keys: tuple[str, ...], values: tuple[str, ...]) -> str:
    """INSERT of a whole row that replaces the row with the same ``keys`` (SQLite and PostgreSQL alike)."""
    def q(names: tuple[str, ...]) -> str:  # quoted: "right" is a reserved word in PostgreSQL
        return ", ".join(f'"{n}"' for n in names)

    return (f"INSERT INTO {table} ({q((*keys, *values))}) VALUES ({', '.join('?' for _ in (*keys, *values))}) "
            f"ON CONFLICT ({q(keys)}) DO UPDATE SET " + ", ".join(f'"{c}" = excluded."{c}"' for c in values))


class MemoryUnavailable(RuntimeError):
    """The conversation store cannot be opened (corrupt file, no permission); the message is for users."""


def unusable(failure: DatabaseUnavailable) -> MemoryUnavailable:
    """A database failure as the conversation memory's problem, worded for users."""
    return MemoryUnavailable(f"the conversation memory at {failure.where} cannot be used ({failure.reason}); "
                             + failure.remedy)


class MemoryStore:
    def __init__(self, path: Path | None = None, url: str | None = None, quota_bytes: int = DEFAULT_QUOTA_BYTES,
                 databases: Databases | None = None) -> None:
        """The store in the SQLite file ``path``, or at the database ``url`` (``Services.memory()``: the settings'
        ``memory_url``). ``quota_bytes``: what one user's conversations may take (``ASSESS_MEMORY_QUOTA_MB``'s
        default unless given). ``databases``: the owner's
        pools and the stores it has migrated (``Services.memory()`` gives its own); without, this store has its own
        pool and brings the database up to date when it opens (each step applies once either way)."""
        if url is None and path is None:
            raise TypeError("MemoryStore needs the file path or the database URL of the store")
        self.quota_bytes = quota_bytes
        owner = databases or Databases()
        try:
            self.db: Database = open_database(url or f"sqlite:///{path}", owner)
        except DatabaseUnavailable as exc:
            raise unusable(exc) from None
        self.path = self.db.path  # the SQLite file, None on a server
        try:
            with owner.lock:
                key = self._identity()
                if key not in owner.migrated:
                    self._migrate()
                    owner.migrated.add(self._identity())
        except Exception as exc:
            failure = self.db.unavailable(exc)
            if failure is None:
                raise
            raise unusable(failure) from None

    def _identity(self) -> str:
        """The database, as migrated once per process: a SQLite file by its inode too (a file replaced while the
        process runs is a new database)."""
        if self.path is not None and self.path.exists():
            return f"{self.db.url}#{self.path.stat().st_ino}"
        return self.db.url

    def _connect(self) -> Connection:
        return self.db.connect()

    def _migrate(self) -> None:
        with self.db.writing("migrations") as con:
            migrations.apply(con, MIGRATIONS, MIGRATIONS_TABLE)

    def schema_version(self) -> int:
        con = self._connect()
        try:
            return migrations.version(con, MIGRATIONS_TABLE)
        finally:
            con.close()

    # --- turns -------------------------------------------------------------------------------
    def save_turn(self, record: dict[str, Any], fold: Callable[[str, dict[str, Any]], str] | None = None) -> int:
        """Store a completed turn atomically; returns its turn number."""
        con = self._connect()
        try:
            thread, user = record["thread_id"], record["user_id"]
            con.begin_exclusive(f"thread:{thread}")  # turn numbers are allocated in this transaction
            con.execute("INSERT INTO users (user_id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING", (user, _now()))
            con.execute("INSERT INTO threads VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        (thread, user, record["prompt"][:80], _now(), _now()))
            con.execute("UPDATE threads SET updated_at = ? WHERE thread_id = ?", (_now(), thread))
            number = con.execute("SELECT COALESCE(MAX(turn_number), 0) + 1 FROM turns WHERE thread_id = ?",
                                 (thread,)).fetchone()[0]
            cols = ["thread_id", "turn_number", "user_id", "prompt", "intent_class", "meta_intent", "skill", "scope",
                    "entities", "plan", "answer", "findings", "state", "started_at", "finished_at", "duration_ms",
                    "name_resolutions", "answer_devices", "frame", "query", "answer_rows", "asked", "answer_figures",
                    "stored_bytes"]
            row = {**record, "turn_number": number}
            values = [row.get(c) if not isinstance(row.get(c), dict | list) else json.dumps(row[c]) for c in cols]
            size = sum(len(v) for v in values if isinstance(v, str))
            values[-1] = size
            con.execute(f"INSERT INTO turns ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})", values)
            self._within_quota(con, user, thread, size)
            leaving = number - WINDOW
            if fold is not None and leaving >= 1:  # the turn that just left the window joins the summary
                old = con.execute("SELECT * FROM turns WHERE thread_id = ? AND turn_number = ?", (thread, leaving))
                names = [d[0] for d in old.description]
                left = dict(zip(names, old.fetchone(), strict=True))
                prev = con.execute("SELECT summary FROM summaries WHERE thread_id = ?", (thread,)).fetchone()
                summary = fold(prev[0] if prev else "", left)
                con.execute(_upsert("summaries", ("thread_id",), ("upto_turn", "summary", "updated_at")),
                            (thread, leaving, summary, _now()))
            con.execute("COMMIT")
            return int(number)
        except Exception:
            con.rollback()
            raise
        finally:
            con.close()

    def _within_quota(self, con: Connection, user: str, thread: str, added: int) -> None:
        """Count ``added`` bytes to ``user``'s stored conversations. Over the quota, their least recently used
        conversations other than ``thread`` are forgotten whole (oldest first); if ``thread`` alone is still over it,
        its oldest notes and then its oldest answers go — never the last ``WINDOW`` answers, which follow-ups read —
        and a note in the thread says how many (its export shows it)."""
        total = int(con.execute("UPDATE users SET stored_bytes = stored_bytes + ? WHERE user_id = ? RETURNING "
                                "stored_bytes", (added, user)).fetchone()[0])
        quota = self.quota_bytes
        if total <= quota:
            return
        # the least recently used first, a few at a time: a user at their quota frees one or two conversations a turn,
        # and sizing all of theirs each turn cost tens of milliseconds an answer at a few thousand conversations
        for old, size in self._oldest_threads(con, user, thread):
            if total <= quota:
                break
            for table in ("turns", "summaries", "thread_collections", "thread_notes", "thread_documents", "threads"):
                con.execute(f"DELETE FROM {table} WHERE thread_id = ?", (old,))
            total -= int(size)
            log.info("memory quota: user %s over %d bytes, conversation %s forgotten", user, quota, old)
        if total > quota:
            total = self._trim_thread(con, thread, total, quota)
        con.execute("UPDATE users SET stored_bytes = ? WHERE user_id = ?", (max(total, 0), user))

    @staticmethod
    def _oldest_threads(con: Connection, user: str, thread: str, batch: int = 8) -> Iterator[tuple[str, int]]:
        """``user``'s conversations but ``thread``, least recently used first, each with the bytes it holds — read
        ``batch`` at a time, after the ones already handed out (which the caller may have deleted)."""
        sized = ("SELECT h.thread_id, h.updated_at, COALESCE((SELECT SUM(t.stored_bytes) FROM turns t WHERE "
                 "t.thread_id = h.thread_id), 0) + COALESCE((SELECT SUM(LENGTH(n.body) + LENGTH(n.title)) FROM "
                 "thread_notes n WHERE n.thread_id = h.thread_id), 0) FROM threads h WHERE h.user_id = ? AND "
                 "h.thread_id <> ?{after} ORDER BY h.updated_at, h.thread_id LIMIT ?")
        after: tuple[str, str] | None = None
        while True:
            rows = con.execute(sized.format(after=""), (user, thread, batch)).fetchall() if after is None else \
                con.execute(sized.format(after=" AND (h.updated_at > ? OR (h.updated_at = ? AND h.thread_id > ?))"),
                            (user, thread, after[0], after[0], after[1], batch)).fetchall()
            for old, updated, size in rows:
                yield str(old), int(size)
                after = (str(updated), str(old))
            if len(rows) < batch:
                return

    def _trim_thread(self, con: Connection, thread: str, total: int, quota: int) -> int:
        """The oldest notes but the newest (the one being added), then the oldest answers but the last ``WINDOW``, of
        the conversation in hand, until its user is within ``quota``; the bytes they then hold."""
        notes = con.execute("SELECT seq, LENGTH(body) + LENGTH(title) FROM thread_notes WHERE thread_id = ? AND kind "
                            "NOT IN (?, ?) ORDER BY seq", (thread, PENDING, QUOTA_NOTE)).fetchall()[:-1]
        turns = con.execute("SELECT turn_number, stored_bytes FROM turns WHERE thread_id = ? ORDER BY turn_number",
                            (thread,)).fetchall()[:-WINDOW]
        gone_notes = gone_turns = 0
        for table, key, rows in (("thread_notes", "seq", notes), ("turns", "turn_number", turns)):
            for number, size in rows:
                if total <= quota:
                    break
                con.execute(f"DELETE FROM {table} WHERE thread_id = ? AND {key} = ?", (thread, number))
                total -= int(size or 0)
                gone_notes, gone_turns = (gone_notes + 1, gone_turns) if table == "thread_notes" else (
                    gone_notes, gone_turns + 1)
        if gone_notes or gone_turns:
            log.info("memory quota: conversation %s trimmed by %d answers and %d notes", thread, gone_turns, gone_notes)
            said = con.execute("SELECT body FROM thread_notes WHERE thread_id = ? AND kind = ?",
                               (thread, QUOTA_NOTE)).fetchone()
            counted = re.match(r"(\d+) older answers and (\d+)", said[0]) if said else None
            before = [int(counted.group(1)), int(counted.group(2))] if counted else [0, 0]
            body = (f"{before[0] + gone_turns} older answers and {before[1] + gone_notes} older outputs of this "
                    f"conversation were removed: your stored conversations were over the {quota // (1024 * 1024) or 1} "
                    "MB quota (ASSESS_MEMORY_QUOTA_MB).")
            con.execute("DELETE FROM thread_notes WHERE thread_id = ? AND kind = ?", (thread, QUOTA_NOTE))
            con.execute("INSERT INTO thread_notes VALUES (?, 0, (SELECT user_id FROM threads WHERE thread_id = ?), 0, ?, "
                        "?, ?, ?)", (thread, thread, QUOTA_NOTE, "Storage quota", body, _now()))
            # the note counts like any other (the running count stays the sum of what is stored)
            total += len(body) + len("Storage quota") - (len(said[0]) + len("Storage quota") if said else 0)
        return total

    def stored_bytes(self, user_id: str) -> int:
        rows = self._kv("SELECT stored_bytes FROM users WHERE user_id = ?", (user_id,))
        return int(rows[0][0]) if rows else 0

    # --- signed-out session tokens ------------------------------------------------------------------
    def revoke_token(self, token_hash: str, user_id: str | None, expires_at: str) -> None:
        """A session token that must not be accepted again (kept until it would have expired anyway)."""
        self._kv("INSERT INTO revoked_tokens VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                 (token_hash, user_id, expires_at, _now()))
        self._kv("DELETE FROM revoked_tokens WHERE expires_at < ?", (datetime.now(UTC).isoformat(),))

    def is_token_revoked(self, token_hash: str) -> bool:
        return bool(self._kv("SELECT 1 FROM revoked_tokens WHERE token_hash = ?", (token_hash,)))

    # --- failed sign-ins -------------------------------------------------------------------------------
    def reserve_sign_in(self, keys: list[str], decide: SignInPolicy, now: float) -> float:
        """One sign-in attempt by the failure records ``keys`` (what tried, and the address's budget), decided and
        counted in one transaction, before any password is checked (so 200 concurrent guesses count as 200): ``decide``
        gets each key's ``(failures, first_at, last_at)`` (zeros when none) and returns the seconds to wait — then
        nothing is counted — or 0 and the records to write. Records untouched for a day are dropped."""
        with self.db.writing("sign-in") as con:
            found = {k: (0, 0.0, 0.0) for k in keys}
            marks = ", ".join("?" for _ in keys)
            for key, failures, first, last in con.execute(
                    f"SELECT key, failures, first_at, last_at FROM sign_in_failures WHERE key IN ({marks})", keys):
                found[key] = (int(failures), float(first), float(last))
            wait, records = decide(found)
            if wait > 0:
                return wait
            for key, (failures, first, last) in records.items():
                con.execute(_upsert("sign_in_failures", ("key",), ("failures", "first_at", "last_at")),
                            (key, failures, first, last))
            con.execute("DELETE FROM sign_in_failures WHERE last_at < ?", (now - 86_400,))
            return 0.0

    def settle_sign_in(self, forget: list[str], uncount: list[str]) -> None:
        """A sign-in succeeded: the records ``forget`` are dropped, and the attempt is taken back from ``uncount``."""
        with self.db.writing("sign-in") as con:
            for key in forget:
                con.execute("DELETE FROM sign_in_failures WHERE key = ?", (key,))
            for key in uncount:
                con.execute("UPDATE sign_in_failures SET failures = failures - 1 WHERE key = ? AND failures > 0", (key,))

    def recent_turns(self, thread_id: str, limit: int = WINDOW) -> list[dict[str, Any]]:
        """The last ``limit`` turns, oldest first (state JSON left out: it is only read for export)."""
        con = self._connect()
        try:
            cur = con.execute("SELECT thread_id, turn_number, user_id, prompt, intent_class, meta_intent, skill, scope, "
                              "entities, answer, findings, name_resolutions, answer_devices, frame, query, answer_rows, "
                              "asked, answer_figures FROM turns WHERE thread_id = ? ORDER BY turn_number DESC "
                              "LIMIT ?", (thread_id, limit))
            names = [d[0] for d in cur.description]
            rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        finally:
            con.close()
        for r in rows:
            for key in ("scope", "entities", "findings", "name_resolutions", "answer_devices", "frame", "query",
                        "answer_rows", "answer_figures"):
                r[key] = json.loads(r[key]) if r[key] else ([] if key not in ("scope", "frame", "query") else {})
        return list(reversed(rows))

    def summary(self, thread_id: str) -> str:
        con = self._connect()
        try:
            row = con.execute("SELECT summary FROM summaries WHERE thread_id = ?", (thread_id,)).fetchone()
            return str(row[0]) if row else ""
        finally:
            con.close()

    def turn_count(self, thread_id: str) -> int:
        con = self._connect()
        try:
            return int(con.execute("SELECT COUNT(*) FROM turns WHERE thread_id = ?", (thread_id,)).fetchone()[0])
        finally:
            con.close()

    def thread_states(self, thread_id: str) -> list[dict[str, Any]]:
        """Every turn's full STATE, for trace export."""
        con = self._connect()
        try:
            return [json.loads(r[0]) for r in con.execute(
                "SELECT state FROM turns WHERE thread_id = ? ORDER BY turn_number", (thread_id,))]
        finally:
            con.close()

    def forget_turn(self, thread_id: str, turn_number: int) -> bool:
        """A turn the user stopped: it leaves the conversation (follow-ups and export no longer see it)."""
        con = self._connect()
        try:
            con.begin_exclusive(f"thread:{thread_id}")
            row = con.execute("SELECT user_id, stored_bytes FROM turns WHERE thread_id = ? AND turn_number = ?",
                              (thread_id, turn_number)).fetchone()
            if row is None:
                con.rollback()
                return False
            con.execute("DELETE FROM turns WHERE thread_id = ? AND turn_number = ?", (thread_id, turn_number))
            size = int(row[1] or 0)
            con.execute("UPDATE users SET stored_bytes = CASE WHEN stored_bytes > ? THEN stored_bytes - ? ELSE 0 END "
                        "WHERE user_id = ?", (size, size, row[0]))
            con.execute("COMMIT")
            return True
        except Exception:
            con.rollback()
            raise
        finally:
            con.close()

    def add_note(self, thread_id: str, user_id: str, kind: str, title: str, body: str) -> int:
        """An upload's results or a command's output, kept for the conversation's export (it counts to the quota);
        its number in the thread (0: not added, the conversation is another user's)."""
        con = self._connect()
        try:
            con.begin_exclusive(f"thread:{thread_id}")
            con.execute("INSERT INTO users (user_id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING", (user_id, _now()))
            con.execute("INSERT INTO threads VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        (thread_id, user_id, title[:80], _now(), _now()))
            owner = con.execute("SELECT user_id FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()[0]
            if owner != user_id:  # another user's conversation id: nothing is added to it
                con.rollback()
                return 0
            after, seq = con.execute("SELECT (SELECT COALESCE(MAX(turn_number), 0) FROM turns WHERE thread_id = ?), "
                                     "(SELECT COALESCE(MAX(seq), 0) + 1 FROM thread_notes WHERE thread_id = ?)",
                                     (thread_id, thread_id)).fetchone()
            con.execute("INSERT INTO thread_notes VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (thread_id, seq, user_id, after, kind, title, body, _now()))
            self._within_quota(con, user_id, thread_id, len(body) + len(title))
            con.execute("COMMIT")
            return int(seq)
        except Exception:
            con.rollback()
            raise
        finally:
            con.close()

    def thread_notes(self, thread_id: str, kind: str | None = None) -> list[dict[str, Any]]:
        """The conversation's notes in the order they were shown (of one ``kind``, or every kind shown)."""
        con = self._connect()
        try:
            cur = con.execute("SELECT seq, after_turn, kind, title, body, at FROM thread_notes WHERE thread_id = ? AND "
                              + ("kind = ?" if kind else "kind <> ?") + " ORDER BY seq", (thread_id, kind or PENDING))
            return [dict(zip(("seq", "after_turn", "kind", "title", "body", "at"), r, strict=True)) for r in cur]
        finally:
            con.close()

    def pending_uploads(self, before: str) -> list[dict[str, Any]]:
        """Uploads of every conversation still marked in progress since before ``before`` (a server start): the
        server stopped while they ran."""
        rows = self._kv("SELECT thread_id, seq, user_id, body FROM thread_notes WHERE kind = ? AND at < ? "
                        "ORDER BY thread_id, seq", (PENDING, before))
        return [dict(zip(("thread_id", "seq", "user_id", "body"), r, strict=True)) for r in rows]

    def update_note(self, thread_id: str, seq: int, kind: str, title: str, body: str) -> None:
        """A note rewritten in place: an upload in progress becomes its results (or the report of its interruption)."""
        self._kv("UPDATE thread_notes SET kind = ?, title = ?, body = ? WHERE thread_id = ? AND seq = ?",
                 (kind, title, body, thread_id, seq))

    def thread_owner(self, thread_id: str) -> str | None:
        con = self._connect()
        try:
            row = con.execute("SELECT user_id FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
            return str(row[0]) if row else None
        finally:
            con.close()

    def threads(self, user_id: str) -> list[dict[str, Any]]:
        con = self._connect()
        try:
            cur = con.execute("SELECT thread_id, title, created_at, updated_at FROM threads WHERE user_id = ? "
                              "ORDER BY updated_at DESC", (user_id,))
            return [dict(zip(("thread_id", "title", "created_at", "updated_at"), r, strict=True)) for r in cur]
        finally:
            con.close()

    # --- personalization and self-corrections ---------------------------------------------------
    def _kv(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        con = self._connect()
        try:
            cur = con.execute(sql, params)
            return list(cur.fetchall()) if cur.description else []  # an upsert returns no rows
        finally:
            con.close()

    def set_preference(self, user_id: str, key: str, value: str) -> None:
        self._kv(_upsert("preferences", ("user_id", "key"), ("value", "updated_at")), (user_id, key, value, _now()))

    def remove_preference(self, user_id: str, key: str | None = None) -> int:
        con = self._connect()
        try:
            if key:
                return int(con.execute("DELETE FROM preferences WHERE user_id = ? AND key = ?", (user_id, key)).rowcount)
            return int(con.execute("DELETE FROM preferences WHERE user_id = ?", (user_id,)).rowcount)
        finally:
            con.close()

    def preferences(self, user_id: str) -> dict[str, str]:
        return dict(self._kv("SELECT key, value FROM preferences WHERE user_id = ?", (user_id,)))

    def add_correction(self, user_id: str, entity_type: str, wrong: str, right: str) -> None:
        self._kv(_upsert("corrections", ("user_id", "entity_type", "wrong"), ("right", "created_at")), (user_id, entity_type, wrong, right, _now()))

    def corrections(self, user_id: str) -> list[dict[str, str]]:
        return [dict(zip(("entity_type", "wrong", "right"), r, strict=True)) for r in self._kv(
            "SELECT entity_type, wrong, \"right\" FROM corrections WHERE user_id = ?", (user_id,))]

    # --- the collection a thread answers about ---------------------------------------------------------
    def set_thread_documents(self, thread_id: str, sources: list[str]) -> None:
        """The documents the thread may cite from now on; an empty list lifts the restriction."""
        if not sources:
            self._kv("DELETE FROM thread_documents WHERE thread_id = ?", (thread_id,))
            return
        self._kv(_upsert("thread_documents", ("thread_id",), ("sources", "updated_at")),
                 (thread_id, json.dumps(sorted(set(sources))), _now()))

    def thread_documents(self, thread_id: str) -> list[str]:
        rows = self._kv("SELECT sources FROM thread_documents WHERE thread_id = ?", (thread_id,))
        return list(json.loads(rows[0][0])) if rows else []

    def set_thread_collection(self, thread_id: str, collection: str) -> None:
        self._kv(_upsert("thread_collections", ("thread_id",), ("collection", "updated_at")), (thread_id, collection, _now()))

    def thread_collection(self, thread_id: str) -> str | None:
        rows = self._kv("SELECT collection FROM thread_collections WHERE thread_id = ?", (thread_id,))
        return str(rows[0][0]) if rows else None

    # --- agent memory (cached task outputs with freshness) ------------------------------------------
    def remember(self, key: str, value: Any, ttl_seconds: int, thread_id: str | None = None) -> None:
        expires = (datetime.now(UTC) + timedelta(seconds=ttl_seconds)).isoformat()
        self._kv(_upsert("agent_memory", ("key",), ("thread_id", "value", "created_at", "expires_at")),
                 (key, thread_id, json.dumps(value, default=str), _now(), expires))

    def recall(self, key: str) -> Any | None:
        rows = self._kv("SELECT value, expires_at FROM agent_memory WHERE key = ?", (key,))
        if not rows or rows[0][1] < datetime.now(UTC).isoformat():
            return None
        return json.loads(rows[0][0])

    def forget(self, prefix: str) -> int:
        """Drop the agent-memory entries whose key starts with ``prefix`` (benchmarks measure cold asks)."""
        rows = self._kv("DELETE FROM agent_memory WHERE substr(key, 1, ?) = ? RETURNING key", (len(prefix), prefix))
        return len(rows)

    def integrity_check(self) -> str:
        """SQLite's own check of the file; on a server database (which checks itself) that it answers."""
        if self.db.dialect != "sqlite":
            return "ok" if self._kv("SELECT 1", ())[0][0] == 1 else "no answer"
        return str(self._kv("PRAGMA integrity_check", ())[0][0])

