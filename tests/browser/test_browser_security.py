"""In Chromium: a page, a "config" or an SVG a user uploaded, opened through its signed link by another logged-in
user, runs nothing and downloads as text; the chat page runs under its CSP without a single violation."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from chat_app.storage import LocalStorageClient
from tests.browser import login, scripted_session, send

pytestmark = pytest.mark.browser
T = TypeVar("T")
SCRIPT = ("<script>localStorage.setItem('pwned', 'yes'); fetch('/user').then(r => r.text())"
          ".then(t => localStorage.setItem('stolen', t));</script>")
WATCH_CSP = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")


@pytest.fixture()
def app(auth_app: tuple[str, Path]) -> tuple[str, Path]:
    return auth_app  # the session's shared server with password auth (tests/conftest.py)


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine outside Playwright's own event loop (the sync API holds one in this thread)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _signed_link(data: Path, name: str) -> str:
    """The link a thread's owner gets for an attachment (what Alice could send Bob)."""
    with sqlite3.connect(data / "chainlit.sqlite") as con:
        row = con.execute('SELECT "objectKey" FROM elements WHERE name = ?', (name,)).fetchone()
    assert row, f"{name} was not stored as an attachment"
    storage = LocalStorageClient(data / "elements", (data / ".chainlit_secret").read_text().strip())
    return _run(storage.get_read_url(row[0]))


def test_an_uploaded_page_opened_by_another_user_runs_nothing_and_downloads_as_text(
        app: tuple[str, Path], browser: Any, tmp_path: Path) -> None:
    url, data = app
    page_file = tmp_path / "report.html"
    page_file.write_text(f"<html><head><title>Quarterly report</title></head><body>{SCRIPT}<p>SNMP traps.</p></body></html>")
    fake_config = tmp_path / "edge.cfg"  # a "config" the browser would sniff as a page
    fake_config.write_text(f"<!DOCTYPE html><html><body>{SCRIPT}</body></html>\n")
    alice = login(browser, url, "alice", "wonderland")
    alice.set_input_files("#upload-button-input", [str(page_file), str(fake_config)])
    alice.wait_for_timeout(2000)
    send(alice, "Please add these documents.")
    alice.wait_for_timeout(2000)
    bob = login(browser, url, "bob", "builder")
    for name in ("report.html", "edge.cfg"):
        link = _signed_link(data, name)
        served = bob.request.get(url + link)
        assert served.status == 200
        assert served.headers["content-type"].startswith(("text/plain", "application/octet-stream"))
        assert served.headers["content-disposition"].startswith("attachment")
        assert served.headers["x-content-type-options"] == "nosniff"
        assert "sandbox" in served.headers["content-security-policy"]
        with bob.expect_download() as download:
            try:
                bob.goto(url + link)
            except Exception as exc:  # Chromium aborts the navigation: the link is a download, not a page
                assert "ERR_ABORTED" in str(exc) or "Download" in str(exc)
        assert SCRIPT in Path(download.value.path()).read_text()
    bob.goto(url)
    bob.wait_for_selector("#chat-input", timeout=60_000)
    assert bob.evaluate("() => [localStorage.getItem('pwned'), localStorage.getItem('stolen')]") == [None, None]


def test_an_svg_with_script_is_served_as_bytes(app: tuple[str, Path], browser: Any) -> None:
    """SVG is a document that can run script: whatever type a stored file claims, it is never served as one."""
    url, data = app
    storage = LocalStorageClient(data / "elements", (data / ".chainlit_secret").read_text().strip())
    svg = f'<svg xmlns="http://www.w3.org/2000/svg">{SCRIPT}</svg>'
    _run(storage.upload_file("alice/el-1/logo.svg", svg, mime="image/svg+xml"))
    link = _run(storage.get_read_url("alice/el-1/logo.svg"))
    bob = login(browser, url, "bob", "builder")
    served = bob.request.get(url + link)
    assert served.headers["content-type"] == "application/octet-stream"
    assert served.headers["content-disposition"].startswith("attachment")


def test_the_chat_runs_under_its_csp_without_a_violation(app: tuple[str, Path], browser: Any) -> None:
    url, _ = app
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(WATCH_CSP)
    page = context.new_page()
    response = page.goto(url)
    assert response is not None and "script-src 'self'" in response.headers["content-security-policy"]
    page.fill("#email", "alice")
    page.fill("#password", "wonderland")
    page.keyboard.press("Enter")
    page.wait_for_selector("#chat-input", timeout=60_000)
    page.wait_for_timeout(1500)
    scripted_session(page)
    page.wait_for_timeout(2000)
    assert page.evaluate("() => window.__csp") == []
    context.close()
