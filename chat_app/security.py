"""Web-facing guards Chainlit leaves to the application: which origins may talk to the app with a user's cookie
(HTTP and the websocket alike), who is asking (the data layer refuses any write to another user's conversation; the
login throttle counts per address), and which of Chainlit's routes this app does not offer at all.

Who is asking (``acting_user``): the signed-in user of the websocket session a write serves, else of the HTTP request
(its cookie or bearer token), else nobody; the server's own work outside any request (the report of uploads cut short,
written at start) is nobody's and may write anywhere. A request that carries a valid token was authenticated, so
Chainlit's "401 Unauthorized" for another user's thread or session is answered as what it is: 403, with the reason.
Chainlit's element routes (``PUT``/``DELETE /project/element``) serve custom elements, which this app has none of
(the page's CSP refuses their in-browser compilation): they are refused outright. Sharing a thread, and reading a
shared one, are refused unless ``allow_thread_sharing`` is on (Chainlit's routes do not look at the setting).

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
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse

from chat_app.sessions import DEVICE_COOKIE, DEVICE_DAYS

REQUEST_USER: ContextVar[str | None] = ContextVar("request_user", default=None)
IN_REQUEST: ContextVar[bool] = ContextVar("in_request", default=False)  # an HTTP request of a client is being served
CLIENT_ADDRESS: ContextVar[str | None] = ContextVar("client_address", default=None)
REFUSALS: ContextVar[list[str] | None] = ContextVar("refusals", default=None)  # actions refused during a request
# a sign-in request's device cookie as it came ("cookie"), and the one to set on a successful sign-in ("issue")
SIGN_IN: ContextVar[dict[str, str | None] | None] = ContextVar("sign_in", default=None)
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


def acting_user() -> str | None:
    """Who a write to the chat history is made for: the user of the websocket session it serves, else of the HTTP
    request (``""`` for a request or session nobody signed in to), else None — the server's own work."""
    from chainlit.context import context_var

    context = context_var.get(None)
    session_user = getattr(getattr(context, "session", None), "user", None) if context is not None else None
    if session_user is not None:
        return str(session_user.identifier)
    if IN_REQUEST.get():
        return REQUEST_USER.get() or ""
    return "" if context is not None else None


def sharing_allowed() -> bool:
    return bool(getattr(config.features, "allow_thread_sharing", False))


# Chainlit's routes whose answers a valid token turns from "who are you" (401) into "not yours" (403), and why.
_NOT_YOURS = (("/project/thread", "this conversation belongs to another user"),
              ("/project/share", "this conversation belongs to another user"),
              ("/project/", "this chat session belongs to another user"),
              ("/feedback", "feedback can only be given on your own conversations"))


def _refusal(method: str, path: str) -> str | None:
    """Why a request is refused before it reaches Chainlit, or None."""
    if path == "/project/element" and method in ("PUT", "DELETE"):
        return "this app has no elements that can be changed or removed through the API"
    if (path == "/project/thread/share" or path.startswith("/project/share/")) and not sharing_allowed():
        return "sharing conversations is turned off on this server"
    return None


def request_token(request: Request) -> str | None:
    """The session token of a request: the auth cookie, else a bearer token (as Chainlit reads it)."""
    token = get_token_from_cookies(dict(request.cookies))
    header = request.headers.get("authorization", "")
    if not token and header.lower().startswith("bearer "):
        token = header[7:].strip()
    return token or None


class RequestContextMiddleware:
    """Refuses a cross-origin request that could change something and the routes this app does not offer, and
    records who asks: the client address (for the login throttle) and the signed-in user of an API request. Plain
    ASGI: the socket.io and streaming routes pass straight through (their origin is checked by engine.io, their user
    is their session's)."""

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
        refused = _refusal(request.method, path)
        if refused:
            await JSONResponse({"detail": refused}, status_code=403)(scope, receive, send)
            return
        api = path.startswith(("/project", "/feedback", "/assess"))
        user = _user_of(request_token(request)) if api else None
        refusals: list[str] = []
        reset_user = REQUEST_USER.set(user)
        reset_request = IN_REQUEST.set(api)
        reset_address = CLIENT_ADDRESS.set(request.client.host if request.client else None)
        reset_refusals = REFUSALS.set(refusals)
        reset_uploading = UPLOADING.set(request.method == "POST" and path.endswith("/project/file"))
        not_yours = next((why for prefix, why in _NOT_YOURS if path.startswith(prefix)), None) if user else None
        started: list[bool] = []
        sign_in = {"cookie": request.cookies.get(DEVICE_COOKIE), "issue": None} if path == "/login" else None
        reset_sign_in = SIGN_IN.set(sign_in)

        async def sending(message: Any) -> None:
            started.append(True)
            if sign_in and sign_in["issue"] and message["type"] == "http.response.start" and message["status"] == 200:
                MutableHeaders(scope=message).append("set-cookie", device_cookie_header(sign_in["issue"]))
            await send(message)

        try:
            await self.app(scope, receive, _refused_as_403(sending, refusals, not_yours))
        except PermissionError as exc:  # a refusal no route of Chainlit's caught (``persistence.Refused``)
            if started:
                raise
            await JSONResponse({"detail": str(exc)}, status_code=403)(scope, receive, send)
        finally:
            REQUEST_USER.reset(reset_user)
            IN_REQUEST.reset(reset_request)
            CLIENT_ADDRESS.reset(reset_address)
            REFUSALS.reset(reset_refusals)
            UPLOADING.reset(reset_uploading)
            SIGN_IN.reset(reset_sign_in)


def device_cookie_header(value: str) -> str:
    """The device cookie of a successful sign-in (``sessions.LoginThrottle``): sent back only with sign-ins, never
    readable by the page's scripts (``Secure`` is added over TLS, ``headers._secure_cookies``)."""
    return f"{DEVICE_COOKIE}={value}; Path=/login; Max-Age={DEVICE_DAYS * 86_400}; HttpOnly; SameSite=Lax"


def _refused_as_403(send: Any, refusals: list[str], not_yours: str | None) -> Any:
    """A response that failed because a write was refused (``persistence.Refused``; Chainlit's routes turn every
    error into a 500), or that Chainlit answered 401 to a signed-in user (``not_yours``: the reason for this route),
    goes out as 403 with the reason."""
    replaced = False

    async def wrapped(message: Any) -> None:
        nonlocal replaced
        if message["type"] == "http.response.start":
            reason = (refusals[0] if message["status"] == 500 and refusals else
                      not_yours if message["status"] == 401 else None)
            if reason:
                replaced = True
                body = json.dumps({"detail": reason}).encode()
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
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
