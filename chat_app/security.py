"""Web-facing guards Chainlit leaves to the application: which origins may talk to the app with a user's cookie
(HTTP and the websocket alike), and who is asking on an HTTP request (the data layer refuses feedback on another
user's thread; the login throttle counts per address).

An origin may talk to the app when it is the app's own — the scheme and host the request was made to, as the
browser sees them (``X-Forwarded-*`` from the trusted proxy) — or listed in ``ASSESS_ALLOWED_ORIGINS``. A page on
another port of the same host, or on a sibling subdomain, is another origin: its websocket is refused, and so is
any request of it that can change something (POST, PUT, DELETE) — cookies with ``SameSite=Lax`` still travel
between ports of one host, so CORS alone (which only hides responses) does not stop those.
"""

from __future__ import annotations

import json
import os
from contextvars import ContextVar
from typing import Any

from chainlit.auth.cookie import get_token_from_cookies
from chainlit.config import config
from starlette.requests import Request
from starlette.responses import JSONResponse

REQUEST_USER: ContextVar[str | None] = ContextVar("request_user", default=None)
CLIENT_ADDRESS: ContextVar[str | None] = ContextVar("client_address", default=None)
REFUSALS: ContextVar[list[str] | None] = ContextVar("refusals", default=None)  # actions refused during a request
# a file arriving through Chainlit's upload route: only such a file is a user's (the app's own elements — charts,
# citations, JSON views — are written from masked stores and need no masking on their way to disk)
UPLOADING: ContextVar[bool] = ContextVar("uploading", default=False)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# A socket message larger than this closes the connection (engine.io's rule). It is well above the longest prompt
# (``ASSESS_MAX_PROMPT_CHARS``), so that an over-long message reaches the app and is answered with the limit
# instead of dropping the connection without a word (engine.io's default is 1 MB).
MAX_SOCKET_MESSAGE_BYTES = 8 * 1024 * 1024


def allowed_origins() -> list[str]:
    """``ASSESS_ALLOWED_ORIGINS`` (comma separated; ``assess serve`` sets the app's own address), else loopback
    on the default port. Never ``*``: a page on another origin must not read a user's threads with her cookie."""
    raw = os.environ.get("ASSESS_ALLOWED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000")
    return [o.strip().rstrip("/") for o in raw.split(",") if o.strip() and o.strip() != "*"]


def own_origins(scheme: str, host: str | None, forwarded_proto: str | None = None,
                forwarded_host: str | None = None) -> set[str]:
    """The origins a request to ``host`` counts as same-origin for: as addressed, and as a proxy forwarded it."""
    if not host:
        return set()
    origins = {f"{scheme}://{host}"}
    if forwarded_proto or forwarded_host:
        origins.add(f"{(forwarded_proto or scheme).split(',')[0].strip()}://"
                    f"{(forwarded_host or host).split(',')[0].strip()}")
    return origins


def origin_allowed(origin: str | None, own: set[str]) -> bool:
    """Whether a request carrying ``Origin: origin`` may act for the user (no Origin: not a browser's cross-origin
    request, which always names its origin)."""
    if origin is None:
        return True
    origin = origin.rstrip("/")
    return origin in own or origin in allowed_origins()


def _websocket_origin_allowed(origin: str | None, environ: dict[str, Any]) -> bool:
    """engine.io's check of a websocket's (or polling request's) Origin, with the same rule as HTTP."""
    own = own_origins(environ.get("wsgi.url_scheme", "http"), environ.get("HTTP_HOST"),
                      environ.get("HTTP_X_FORWARDED_PROTO"), environ.get("HTTP_X_FORWARDED_HOST"))
    return origin_allowed(origin, own)


def restrict_origins() -> None:
    """CORS for the HTTP API (Chainlit's ``allow_origins``, replaced in place before its middleware is built at the
    first request) and the Origin check of the websocket (Chainlit's socket.io server accepts any by default)."""
    from chainlit.server import sio

    config.project.allow_origins[:] = allowed_origins()
    sio.eio.cors_allowed_origins = _websocket_origin_allowed
    sio.eio.max_http_buffer_size = MAX_SOCKET_MESSAGE_BYTES


def request_token(request: Request) -> str | None:
    """The session token of a request: the auth cookie, else a bearer token (as Chainlit reads it)."""
    token = get_token_from_cookies(dict(request.cookies))
    header = request.headers.get("authorization", "")
    if not token and header.lower().startswith("bearer "):
        token = header[7:].strip()
    return token or None


class RequestContextMiddleware:
    """Refuses a cross-origin request that could change something, and records who asks: the client address of a
    login (for throttling) and the authenticated user of a feedback request. Plain ASGI: the socket.io and streaming
    routes pass straight through (their origin is checked by engine.io)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if request.method not in SAFE_METHODS:
            own = own_origins(request.url.scheme, request.headers.get("host"),
                              request.headers.get("x-forwarded-proto"), request.headers.get("x-forwarded-host"))
            if not origin_allowed(request.headers.get("origin"), own):
                await JSONResponse({"detail": "requests from another site are refused"}, status_code=403)(
                    scope, receive, send)
                return
        path = str(scope.get("path", "")).rstrip("/")
        user: str | None = None
        if path.endswith("/feedback"):
            user = _user_of(request_token(request))
        refusals: list[str] = []
        reset_user = REQUEST_USER.set(user)
        reset_address = CLIENT_ADDRESS.set(request.client.host if request.client else None)
        reset_refusals = REFUSALS.set(refusals)
        reset_uploading = UPLOADING.set(request.method == "POST" and path.endswith("/project/file"))
        try:
            await self.app(scope, receive, _refused_as_403(send, refusals))
        finally:
            REQUEST_USER.reset(reset_user)
            CLIENT_ADDRESS.reset(reset_address)
            REFUSALS.reset(reset_refusals)
            UPLOADING.reset(reset_uploading)


def _refused_as_403(send: Any, refusals: list[str]) -> Any:
    """A response that failed because an action was refused (``persistence.Refused``) goes out as 403 with the reason
    (Chainlit's routes turn every error into a 500)."""
    replaced = False

    async def wrapped(message: Any) -> None:
        nonlocal replaced
        if message["type"] == "http.response.start" and message["status"] == 500 and refusals:
            replaced = True
            body = json.dumps({"detail": refusals[0]}).encode()
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        if replaced:  # the original error body is dropped
            return
        await send(message)

    return wrapped


def _user_of(token: str | None) -> str | None:
    from chainlit.auth.jwt import decode_jwt

    if not token:
        return None
    try:
        return decode_jwt(token).identifier
    except Exception:  # an invalid or revoked token is Chainlit's to refuse; here it just means nobody
        return None


def install(app: Any) -> None:
    from chainlit.server import get_html_template

    from chat_app.headers import SecurityHeadersMiddleware

    restrict_origins()
    app.add_middleware(RequestContextMiddleware)
    # the chat page's inline scripts, as served (the offline template is installed before the first request)
    app.add_middleware(SecurityHeadersMiddleware, page_html=lambda: _served_page(get_html_template))


def _served_page(fallback: Any) -> str:
    import chainlit.server as chainlit_server

    return str(getattr(chainlit_server, "get_html_template", fallback)(""))
