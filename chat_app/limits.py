"""How much one chat session or user may ask at once, so that one of them cannot slow everyone else down.

A message — or a button press — is refused, with a sentence that says why and when to try again, when its session
already sent ``PER_SESSION`` of them in the last minute, its user ``PER_USER`` (several tabs), or ``MAX_IN_FLIGHT``
questions are still being answered for it: for its user in any of their tabs when users sign in, for its session when
everyone is the one local user (there "the user" is every browser). Counts are per server process.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

WINDOW_SECONDS = 60.0
PER_SESSION = 20
PER_USER = 40
MAX_IN_FLIGHT = 2


class MessageLimits:
    def __init__(self, per_session: int = PER_SESSION, per_user: int = PER_USER, in_flight: int = MAX_IN_FLIGHT,
                 window: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_session, self.per_user, self.in_flight, self.window, self.clock = (
            per_session, per_user, in_flight, window, clock)
        self._sent: dict[tuple[str, str], deque[float]] = {}
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        sent = self._sent.setdefault(key, deque())
        while sent and sent[0] <= now - self.window:
            sent.popleft()
        return sent

    def refusal(self, session: str, user: str, flight: str | None = None) -> str | None:
        """None when the message may be answered (and it is counted), else the sentence to answer instead; ``flight``:
        whose questions in progress count (``answering``'s key), None for a press that starts no question."""
        now = self.clock()
        with self._lock:
            if flight is not None and self._running.get(flight, 0) >= self.in_flight:
                return ("I am still answering your previous questions; send this one again when they are done.")
            for key, limit in ((("session", session), self.per_session), (("user", user), self.per_user)):
                sent = self._recent(key, now)
                if len(sent) >= limit:
                    wait = math.ceil(sent[len(sent) - limit] + self.window - now)
                    return (f"That is more than {limit} messages in a minute; please wait {wait} seconds and send it "
                            "again (the limit keeps the assistant responsive for everyone).")
            for key in (("session", session), ("user", user)):
                self._recent(key, now).append(now)
            if len(self._sent) > 50_000:
                self._sent = {k: v for k, v in self._sent.items() if v and v[-1] > now - self.window}
        return None

    @contextmanager
    def answering(self, user: str) -> Iterator[None]:
        """A question of ``user`` (or of the key ``refusal`` is given as ``flight``) is being answered for the duration
        of the block."""
        with self._lock:
            self._running[user] = self._running.get(user, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._running[user] - 1
                if left:
                    self._running[user] = left
                else:
                    del self._running[user]
