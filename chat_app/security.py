"""Web-facing guards Chainlit leaves to the application: which origins may call the API with a user's cookie,
and who is asking on an HTTP request (so the data layer can refuse feedback on another user's thread)."""

from __future__ import annotations

import os
from contextvars import ContextVar
from typing import Any

from chainlit.auth.cookie import get_token_from_cookies
from chainlit.auth.jwt import decode_jwt
from chainlit.config import config
from starlette.requests import Request

REQUEST_USER: ContextVar[str | None] = ContextVar("request_user", default=None)


def allowed_origins() -> list[str]:
    """``ASSESS_ALLOWED_ORIGINS`` (comma separated; ``assess serve`` sets the app's own address), else loopback
    on the default port. Never ``*``: a page on another origin must not read a user's threads with her cookie."""
    raw = os.environ.get("ASSESS_ALLOWED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000")
    return [o.strip().rstrip("/") for o in raw.split(",") if o.strip() and o.strip() != "*"]


def restrict_origins() -> None:
    """Replace Chainlit's ``allow_origins`` in place, before the CORS middleware is built at the first request."""
    config.project.allow_origins[:] = allowed_origins()


class RequestUserMiddleware:
    """Records the authenticated user of a feedback request (the same cookie or bearer token Chainlit checks).
    Plain ASGI, and only on the feedback routes: the socket.io and streaming routes pass straight through."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or not str(scope.get("path", "")).rstrip("/").endswith("/feedback"):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        token = get_token_from_cookies(dict(request.cookies))
        header = request.headers.get("authorization", "")
        if not token and header.lower().startswith("bearer "):
            token = header[7:]
        user: str | None = None
        if token:
            try:
                user = decode_jwt(token).identifier
            except Exception:  # an invalid token is Chainlit's to refuse; here it just means nobody
                user = None
        reset = REQUEST_USER.set(user)
        try:
            await self.app(scope, receive, send)
        finally:
            REQUEST_USER.reset(reset)


def install(app: Any) -> None:
    restrict_origins()
    app.add_middleware(RequestUserMiddleware)
