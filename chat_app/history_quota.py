"""What one user's chat history may hold: ``ASSESS_MEMORY_QUOTA_MB``, as for the conversation memory.

The data layer counts what each user's writes add (``written``); each time a user has written a twentieth of the
quota since their last reckoning, the history is reckoned exactly (``reckon``: the text of their steps, with SQL,
and the bytes of their stored files). Over the quota, their least recently used conversations other than the one in
hand are deleted whole, oldest first; if the one in hand is still over, the texts of its oldest steps give way to a
line saying why and their files go — never its newest ``KEPT_STEPS`` (about the last two answers) — and the user is
told in the conversation. A flood of questions or button presses therefore costs its sender their own history, and
never more than the quota.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

KEPT_STEPS = 40
TRIMMED = "(removed: your stored conversations were over the storage quota)"


@dataclass
class Reckoning:
    deleted_threads: list[str] = field(default_factory=list)
    trimmed_steps: int = 0
    bytes_after: int = 0


class HistoryQuota:
    def __init__(self, quota_bytes: int) -> None:
        self.quota_bytes = quota_bytes
        self.every = max(64 * 1024, quota_bytes // 20)
        self._since: dict[str, int] = {}
        self._lock = threading.Lock()

    def written(self, user: str, size: int) -> bool:
        """Count ``size`` bytes written for ``user`` since their last reckoning began; True when one is due."""
        with self._lock:
            self._since[user] = self._since.get(user, 0) + size
            return self._since[user] >= self.every

    def begin(self, user: str) -> None:
        """A reckoning of ``user``'s history begins: what they write from now on counts towards the next."""
        with self._lock:
            self._since[user] = 0

    async def reckon(self, layer: Any, user: str, current: str) -> Reckoning:
        """``user``'s history within the quota (``layer``: the chat history's data layer; ``current``: the thread
        in hand, kept whole as long as anything else can go)."""
        done = Reckoning()
        threads = await layer.execute_sql(query=_USAGE, parameters={"user": user})
        if not isinstance(threads, list):
            return done
        files: dict[str, list[str]] = {}
        for row in await layer.execute_sql(query=_FILES, parameters={"user": user}) or []:
            files.setdefault(str(row["threadId"]), []).append(str(row["objectKey"]))
        sizes = {str(t["id"]): int(t["text"] or 0) + sum(_stored(layer, key) for key in files.get(str(t["id"]), []))
                 for t in threads}
        total = sum(sizes.values())
        for thread in (str(t["id"]) for t in threads):  # least recently used first
            if total <= self.quota_bytes:
                break
            if thread != current:
                await layer.delete_thread(thread)
                total -= sizes[thread]
                done.deleted_threads.append(thread)
        if total > self.quota_bytes:
            total, done.trimmed_steps = await self._trim(layer, current, total, files.get(current, []))
        done.bytes_after = total
        if done.deleted_threads or done.trimmed_steps:
            log.info("history quota: user %s over %d bytes: %d conversations deleted, %d steps trimmed", user,
                     self.quota_bytes, len(done.deleted_threads), done.trimmed_steps)
        return done

    async def _trim(self, layer: Any, thread: str, total: int, keys: list[str]) -> tuple[int, int]:
        await layer.writes.flush()
        steps = await layer.execute_sql(query=_OLDEST_STEPS, parameters={"thread": thread}) or []
        chosen: list[str] = []
        for step in steps[:-KEPT_STEPS] if len(steps) > KEPT_STEPS else []:
            if total <= self.quota_bytes:
                break
            size = int(step["size"] or 0)
            if size > len(TRIMMED) * 2:
                chosen.append(str(step["id"]))
                total -= size - len(TRIMMED)
        for start in range(0, len(chosen), 400):  # a statement per 400 steps, not one each
            some = chosen[start:start + 400]
            marks = ", ".join(f":s{i}" for i in range(len(some)))
            await layer.execute_sql(query=f'UPDATE steps SET "output" = :text, "input" = NULL WHERE "id" IN ({marks})',
                                    parameters={"text": TRIMMED, **{f"s{i}": v for i, v in enumerate(some)}})
        files = await layer.execute_sql(query=_STEP_FILES, parameters={"thread": thread, "text": TRIMMED}) or []
        for row in files:  # the files of the trimmed steps
            total -= _stored(layer, str(row["objectKey"]))
            await layer.delete_element(str(row["id"]), thread)
        return total, len(chosen)


def _stored(layer: Any, object_key: str) -> int:
    """The bytes of a stored file (``storage.LocalStorageClient.size``; 0 without a storage that tells)."""
    size = getattr(layer.storage_provider, "size", None)
    return int(size(object_key)) if size is not None else 0


# each conversation of a user with the bytes of its steps' text, least recently used first
_USAGE = """SELECT t."id", (SELECT SUM(COALESCE(LENGTH(s."input"), 0) + COALESCE(LENGTH(s."output"), 0)) FROM steps s
    WHERE s."threadId" = t."id") AS text, COALESCE((SELECT MAX(s."createdAt") FROM steps s WHERE s."threadId" = t."id"),
    t."createdAt") AS last FROM threads t WHERE t."userIdentifier" = :user ORDER BY last, t."id" """
_FILES = """SELECT e."threadId", e."objectKey" FROM elements e JOIN threads t ON t."id" = e."threadId"
    WHERE t."userIdentifier" = :user AND e."objectKey" IS NOT NULL"""
_OLDEST_STEPS = """SELECT "id", COALESCE(LENGTH("input"), 0) + COALESCE(LENGTH("output"), 0) AS size FROM steps
    WHERE "threadId" = :thread ORDER BY "createdAt", "id" """
_STEP_FILES = """SELECT e."id", e."objectKey" FROM elements e JOIN steps s ON s."id" = e."forId"
    WHERE e."threadId" = :thread AND s."output" = :text AND e."objectKey" IS NOT NULL"""
