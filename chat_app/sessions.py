"""Sign-in and sign-out that hold against guessing and stolen tokens, without letting a guesser lock others out.

- **Back-off, not lock-out**: failed sign-ins are counted per user name *and* address (or per name and device, below).
  After ``FREE_FAILURES`` (5) failures within ``WINDOW_SECONDS`` (15 minutes), each further attempt of that name from
  that address must wait ``2^(failures-5)`` seconds after the last one (1, 2, 4 … at most ``MAX_WAIT_SECONDS``, 5
  minutes): until then it is answered HTTP 429 with the wait, without checking the password. Nothing is counted per
  name alone, so guessing alice's password from one address never keeps alice out from another; a success forgets
  that name's failures from there.
- **Trusted devices**: a successful sign-in sets a signed cookie naming the user (``DEVICE_COOKIE``, 180 days, sent
  only to ``/login``). A sign-in that carries it for its name is counted per name and device instead of per address,
  so a guesser behind the same address (a NAT, a proxy) does not keep that user out either (OWASP's "device cookie").
- **A budget per address**: past ``ADDRESS_BUDGET`` (30) failures from one address within a minute, a failure puts
  that name from that address at the longest wait at once (password spraying gets one guess a name per five minutes)
  — the budget never refuses an attempt itself, so a right password from that address is never blocked by it.
- The attempt is counted before its password is checked, in one transaction of the product database
  (``MemoryStore.reserve_sign_in``; 200 concurrent guesses count as 200), which every replica shares: behind N
  replicas an attacker gets no N times the guesses.
- **Sign-out ends the session**: Chainlit's token is a signed JWT valid for ``user_session_timeout`` and its
  ``/logout`` only deletes the cookie. Here sign-out records the token as revoked in the product database (shared
  by replicas) until it would expire, and every place Chainlit decodes a token — cookie, bearer header, websocket
  — refuses a revoked one; the sockets this process holds with that token are closed.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import HTTPException

WINDOW_SECONDS = 15 * 60.0  # failures older than this (since the last one) are forgotten
FREE_FAILURES = 5
MAX_WAIT_SECONDS = 300.0
ADDRESS_WINDOW_SECONDS = 60.0
ADDRESS_BUDGET = 30
DEVICE_COOKIE = "assess_device"
DEVICE_DAYS = 180

Record = tuple[int, float, float]  # failures, first_at, last_at


def backoff(failures: int) -> float:
    """How long after the last failure the next attempt must wait, with ``failures`` counted."""
    return 0.0 if failures < FREE_FAILURES else min(MAX_WAIT_SECONDS, 2.0 ** (failures - FREE_FAILURES))


class LoginThrottle:
    """Failed sign-ins in the product database (``store()``: the services' ``MemoryStore``); device cookies signed
    with ``secret``."""

    def __init__(self, store: Callable[[], Any], secret: str, clock: Callable[[], float] = time.time) -> None:
        self._store, self._secret, self.clock = store, secret.encode(), clock

    # --- trusted devices ---------------------------------------------------------------------------------------
    def device_cookie(self, user: str) -> str:
        """A new device token for ``user``: their name's hash, a random id and a signature."""
        device = secrets.token_urlsafe(12)
        return f"{self._name(user)}.{device}.{self._sign(user, device)}"

    def device_of(self, user: str, cookie: str | None) -> str | None:
        """The device id of ``cookie`` when it was issued for ``user`` by this app, else None."""
        parts = (cookie or "").split(".")
        if len(parts) != 3 or not hmac.compare_digest(parts[0], self._name(user)):
            return None
        return parts[1] if hmac.compare_digest(parts[2], self._sign(user, parts[1])) else None

    def _name(self, user: str) -> str:
        return hashlib.sha256(b"name\n" + user.casefold().encode()).hexdigest()[:16]

    def _sign(self, user: str, device: str) -> str:
        return hmac.new(self._secret, f"{user.casefold()}\n{device}".encode(), hashlib.sha256).hexdigest()[:32]

    # --- attempts ----------------------------------------------------------------------------------------------
    def keys(self, user: str, address: str | None, device: str | None) -> tuple[str, str]:
        """The failure record of this attempt (a name from a device, else from an address) and of its address."""
        name = user.casefold()[:200]
        who = f"device:{name}:{device}" if device else f"name:{name}:{address or '?'}"
        return who, f"address:{address or '?'}"

    def _decide(self, who: str, where: str, trusted: bool, now: float) -> Callable[[dict[str, Record]], tuple[float, dict[str, Record]]]:
        def decide(found: dict[str, Record]) -> tuple[float, dict[str, Record]]:
            failures, first, last = found[who]
            if now - last > WINDOW_SECONDS:
                failures, first = 0, now
            wait = backoff(failures) - (now - last)
            if wait > 0:
                return wait, {}
            spent, since, _ = found[where]
            if now - since > ADDRESS_WINDOW_SECONDS:
                spent, since = 0, now
            failures += 1  # counted now; taken back if the password is right
            if spent + 1 > ADDRESS_BUDGET and not trusted:
                failures = max(failures, FREE_FAILURES + math.ceil(math.log2(MAX_WAIT_SECONDS)))
            return 0.0, {who: (failures, first or now, now), where: (spent + 1, since, now)}

        return decide

    async def check(self, user: str, address: str | None, cookie: str | None, verify: Callable[[], bool]) -> bool:
        """``verify()`` unless this name from this address (or device) must still wait (then HTTP 429 with the
        wait); the attempt is counted first and taken back when the password is right."""
        device = self.device_of(user, cookie)
        who, where = self.keys(user, address, device)
        now = self.clock()
        wait = await asyncio.to_thread(self._store().reserve_sign_in, [who, where],
                                       self._decide(who, where, device is not None, now), now)
        if wait > 0:
            seconds = math.ceil(wait)
            raise HTTPException(status_code=429, detail=f"Too many failed sign-ins. Try again in {seconds} seconds.",
                                headers={"Retry-After": str(seconds)})
        ok = verify()
        if ok:
            await asyncio.to_thread(self._store().settle_sign_in, [who], [where])
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
