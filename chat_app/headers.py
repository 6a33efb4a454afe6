"""Response headers Chainlit leaves to the application, on every HTTP response of the app.

- Files a user or the product stored (``/element-files/…``, Chainlit's ``/project/file/…``) are never active content:
  they are served with a content type the product chooses from a short list (text is ``text/plain``, never the
  uploader's ``text/html`` or ``image/svg+xml``), as an attachment, with ``nosniff`` and a sandboxing CSP. An
  uploaded page opened through its link by another user downloads as text and runs nothing.
- The chat page gets a strict Content-Security-Policy: scripts only from the app itself and the page's own inline
  scripts (by hash), no plugins, no framing (``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``).
- A cookie set over TLS is ``Secure`` (Chainlit marks it so only with ``SameSite=None``); the scheme is the one
  uvicorn reports, which honours ``X-Forwarded-Proto`` from the trusted proxy addresses only.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from starlette.datastructures import MutableHeaders

FILE_ROUTES = ("/element-files/", "/project/file/")
# What a stored file may be served as; anything else is text or bytes, never something the browser runs or renders
# as a page. SVG is left out on purpose: it is a document that can hold script.
_KEPT_TYPES = {"application/json", "application/pdf", "image/png", "image/jpeg", "image/gif", "image/webp"}
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)
_UNSAFE_NAME = re.compile(r"[^\w.\- ]+")


def served_type(claimed: str) -> str:
    """The content type a stored file is served with, whatever its uploader or browser claimed."""
    base = claimed.split(";", 1)[0].strip().lower()
    if base in _KEPT_TYPES:
        return base
    if base.startswith("text/") or base in ("application/x-yaml", "application/xml", "application/javascript"):
        return "text/plain; charset=utf-8"
    return "application/octet-stream"


def attachment(path: str) -> str:
    """``Content-Disposition`` for a stored file: always an attachment, named after the last part of its key."""
    name = _UNSAFE_NAME.sub("_", unquote(path.rstrip("/").rsplit("/", 1)[-1]))[:120].strip() or "download"
    return f"attachment; filename=\"{name}\"; filename*=UTF-8''{quote(name)}"


def page_policy(html: str) -> str:
    """The chat page's Content-Security-Policy, allowing exactly the inline scripts ``html`` holds."""
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
                      for body in _INLINE_SCRIPT.findall(html))
    return ("default-src 'self'; "
            f"script-src 'self' {hashes}; "
            "style-src 'self' 'unsafe-inline'; "  # React components and Plotly write style elements
            "img-src 'self' data: blob:; font-src 'self' data:; media-src 'self' blob:; "
            "connect-src 'self'; worker-src 'self' blob:; frame-src 'self' blob:; "
            "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")


FILE_POLICY = "sandbox; default-src 'none'; frame-ancestors 'none'"


class SecurityHeadersMiddleware:
    """Plain ASGI (the socket.io and streaming routes pass through untouched: only response headers change)."""

    def __init__(self, app: Any, page_html: Callable[[], str]) -> None:
        self.app = app
        self._page_html = page_html
        self._policy: str | None = None

    def policy(self) -> str:
        if self._policy is None:  # the page template is fixed once Chainlit's config is loaded
            self._policy = page_policy(self._page_html())
        return self._policy

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        stored_file = path.startswith(FILE_ROUTES)
        tls = scope.get("scheme") == "https"

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["X-Content-Type-Options"] = "nosniff"
                headers["X-Frame-Options"] = "DENY"
                headers["Referrer-Policy"] = "same-origin"
                if stored_file:
                    headers["Content-Type"] = served_type(headers.get("content-type", ""))
                    headers["Content-Disposition"] = attachment(path)
                    headers["Content-Security-Policy"] = FILE_POLICY
                else:
                    headers["Content-Security-Policy"] = self.policy()
                if tls:
                    _secure_cookies(headers)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _secure_cookies(headers: MutableHeaders) -> None:
    cookies = headers.getlist("set-cookie")
    if not cookies:
        return
    del headers["set-cookie"]
    for cookie in cookies:
        headers.append("set-cookie", cookie if re.search(r";\s*secure\b", cookie, re.I) else cookie + "; Secure")
