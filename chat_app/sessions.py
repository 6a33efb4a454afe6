"""Sign-in and sign-out that hold against guessing and stolen tokens.

- **Throttling**: failed sign-ins are counted per user name and per client address over a sliding minute; past
  ``MAX_FAILURES_PER_USER`` (10) for a name or ``MAX_FAILURES_PER_ADDRESS`` (30) from an address, every attempt —
  a right password included — is answered HTTP 429 with how long to wait, without checking the password. The
  count is taken before the password is checked and with no await in between, so 200 concurrent guesses count
  as 200. Counts are per server process (docs/SECURITY.md: behind N replicas an attacker gets N times as many).
- **Sign-out ends the session**: Chainlit's token is a signed JWT valid for ``user_session_timeout`` and its
  ``/logout`` only deletes the cookie. Here sign-out records the token as revoked in the product database (shared
  by replicas) until it would expire, and every place Chainlit decodes a token — cookie, bearer header, websocket
  — refuses a revoked one; the sockets this process holds with that token are closed.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import HTTPException

WINDOW_SECONDS = 60.0
MAX_FAILURES_PER_USER = 10
MAX_FAILURES_PER_ADDRESS = 30


class LoginThrottle:
    """Failed sign-ins per name and per address in the last ``window`` seconds."""

    def __init__(self, per_user: int = MAX_FAILURES_PER_USER, per_address: int = MAX_FAILURES_PER_ADDRESS,
                 window: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_user, self.per_address, self.window, self.clock = per_user, per_address, window, clock
        self._failures: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        seen = self._failures.setdefault(key, deque())
        while seen and seen[0] <= now - self.window:
            seen.popleft()
        return seen

    def wait_seconds(self, user: str, address: str | None) -> int:
        """0 when a sign-in may be tried now, else the seconds until it may."""
        now = self.clock()
        waits = []
        with self._lock:
            for key, limit in ((("user", user.casefold()), self.per_user), (("address", address or "?"), self.per_address)):
                seen = self._recent(key, now)
                if len(seen) >= limit:
                    waits.append(seen[len(seen) - limit] + self.window - now)
        return math.ceil(max(waits)) if waits else 0

    def failed(self, user: str, address: str | None) -> None:
        now = self.clock()
        with self._lock:
            for key in (("user", user.casefold()), ("address", address or "?")):
                self._recent(key, now).append(now)
            if len(self._failures) > 100_000:  # names an attacker made up: forget the idle ones
                self._failures = {k: v for k, v in self._failures.items() if v and v[-1] > now - self.window}

    def succeeded(self, user: str) -> None:
        with self._lock:
            self._failures.pop(("user", user.casefold()), None)

    def check(self, user: str, address: str | None, verify: Callable[[], bool]) -> bool:
        """``verify()`` unless ``user`` or ``address`` is throttled (then HTTP 429 with the wait); counts a failure."""
        wait = self.wait_seconds(user, address)
        if wait:
            raise HTTPException(status_code=429, detail=f"Too many failed sign-ins. Try again in {wait} seconds.",
                                headers={"Retry-After": str(wait)})
        ok = verify()
        if ok:
            self.succeeded(user)
        else:
            self.failed(user, address)
        return ok


def token_key(token: str) -> str:
    """What is stored of a revoked token: its hash (the token itself would be a credential at rest)."""
    return hashlib.sha256(token.encode()).hexdigest()


class RevokedTokens:
    """Revoked session tokens in the product database (``MemoryStore``), remembered here once seen revoked."""

    def __init__(self, store: Callable[[], Any]) -> None:
        self._store = store
        self._known: set[str] = set()

    def revoke(self, token: str, user: str | None, expires_at: datetime) -> None:
        key = token_key(token)
        self._store().revoke_token(key, user, expires_at.isoformat())
        self._known.add(key)

    def is_revoked(self, token: str) -> bool:
        key = token_key(token)
        if key in self._known:
            return True
        if self._store().is_token_revoked(key):  # revoked on another replica
            self._known.add(key)
            return True
        return False


def expiry_of(token: str) -> datetime:
    """When a token expires (its ``exp``), read without checking it; a day from now if it has none."""
    import jwt

    try:
        exp = jwt.decode(token, options={"verify_signature": False})["exp"]
        return datetime.fromtimestamp(float(exp), UTC)
    except Exception:
        return datetime.now(UTC) + timedelta(days=1)


def install_revocation(revoked: RevokedTokens) -> None:
    """Every name under which Chainlit decodes a session token refuses a revoked one."""
    import secrets

    import chainlit.auth
    import chainlit.auth.jwt
    import chainlit.server
    import jwt as pyjwt
    from chainlit.auth.jwt import get_jwt_secret
    from jwt import InvalidTokenError

    original = chainlit.auth.jwt.decode_jwt
    if getattr(original, "checks_revocation", False):
        return

    def decode_unless_revoked(token: str) -> Any:
        if revoked.is_revoked(token):
            raise InvalidTokenError("the session was signed out")
        return original(token)

    def create_unique(data: Any) -> str:
        """Chainlit's token plus a random id: two sign-ins in the same second get different tokens, so signing one
        out never refuses the other."""
        token = original_create(data)
        claims = pyjwt.decode(token, options={"verify_signature": False})
        return str(pyjwt.encode({**claims, "jti": secrets.token_urlsafe(12)}, get_jwt_secret() or "", algorithm="HS256"))

    original_create = chainlit.auth.jwt.create_jwt
    decode_unless_revoked.checks_revocation = True  # type: ignore[attr-defined]
    for module in (chainlit.auth.jwt, chainlit.auth, chainlit.server):
        module.decode_jwt = decode_unless_revoked  # type: ignore[attr-defined]
        module.create_jwt = create_unique  # type: ignore[attr-defined]


async def close_sockets_of(token: str) -> int:
    """Disconnect this process's websocket sessions that were opened with ``token``."""
    from chainlit.server import sio
    from chainlit.session import ws_sessions_sid

    closed = 0
    for session in list(ws_sessions_sid.values()):
        if getattr(session, "token", None) == token:
            await sio.disconnect(session.socket_id)
            closed += 1
    return closed
