"""The chat page asks nothing of the Internet: Chainlit's page template links Google Fonts and a KaTeX
stylesheet on a CDN; both are removed from the served HTML (the UI falls back to the system sans-serif font, and
LaTeX is off in ``.chainlit/config.toml``). A browser test records every request of a session and fails on any
host that is not loopback."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import chainlit.server as chainlit_server

_EXTERNAL = re.compile(r"<link\b[^>]*\bhref=\"https?://(?!127\.0\.0\.1|localhost)[^\"]*\"[^>]*/?>", re.S)


def strip_external(html: str) -> str:
    return _EXTERNAL.sub("", html)


def install() -> None:
    original: Callable[[Any], str] = chainlit_server.get_html_template
    if getattr(original, "offline", False):
        return

    def offline_template(root_path: Any) -> str:
        return strip_external(original(root_path))

    offline_template.offline = True  # type: ignore[attr-defined]
    chainlit_server.get_html_template = offline_template
