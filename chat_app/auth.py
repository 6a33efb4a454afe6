"""Who is chatting. With ``ASSESS_AUTH_ENABLED=false`` (the embedded demo) every browser is the single
local user, which still gives a persistent, resumable thread list; with it true, users log in with a
password from ``ASSESS_USERS`` ("name:password" or "name:sha256=<hex>", comma separated) and see,
resume and export only their own threads."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from typing import Any

from fastapi import Request  # at module level: FastAPI reads the route's annotations from here

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


def install_local_sign_in(app: Any) -> None:
    """Without sign-in, the page's first ``GET /user`` signs the local user in at once (the session cookie set on
    that answer) instead of answering 401 and waiting for the browser's header sign-in, which put two errors in the
    browser console on every first visit. With a cookie, the user is read from it as Chainlit does."""
    from chainlit.auth import authenticate_user, create_jwt
    from chainlit.auth.cookie import get_token_from_cookies, set_auth_cookie
    from chainlit.config import config
    from fastapi import HTTPException
    from fastapi.encoders import jsonable_encoder
    from fastapi.responses import JSONResponse

    async def current_user(request: Request) -> JSONResponse:
        token = get_token_from_cookies(dict(request.cookies))
        if token:
            with contextlib.suppress(HTTPException):  # an expired or foreign token: sign in afresh below
                return JSONResponse(jsonable_encoder(await authenticate_user(token)))
        callback = config.code.header_auth_callback
        user = await callback(request.headers) if callback else None
        if user is None:
            raise HTTPException(status_code=401, detail="credentialssignin")
        token = create_jwt(user)
        response = JSONResponse(jsonable_encoder(await authenticate_user(token)))
        set_auth_cookie(request, response, token)
        return response

    app.add_api_route("/user", current_user, methods=["GET"])
    app.router.routes.insert(0, app.router.routes.pop())  # ahead of Chainlit's own /user
