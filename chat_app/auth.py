"""Who is chatting. With ``ASSESS_AUTH_ENABLED=false`` (the embedded demo) every browser is the single
local user, which still gives a persistent, resumable thread list; with it true, users log in with a
password from ``ASSESS_USERS`` ("name:password" or "name:sha256=<hex>", comma separated) and see,
resume and export only their own threads."""

from __future__ import annotations

import hashlib
import hmac
import os

LOCAL_USER = "local"


def users() -> dict[str, str]:
    out = {}
    for item in os.environ.get("ASSESS_USERS", "").split(","):
        if ":" in item:
            name, secret = item.strip().split(":", 1)
            out[name] = secret
    return out


def check_password(username: str, password: str) -> bool:
    secret = users().get(username)
    if secret is None:
        return False
    if secret.startswith("sha256="):
        return hmac.compare_digest(secret[7:], hashlib.sha256(password.encode()).hexdigest())
    return hmac.compare_digest(secret, password)
