"""Inspecting a turn in real Chromium: every step of a cited chart answer read without opening JSON (the SQL the
Data Query Agent ran, the ranked chunks, the Reflector's checks, each step's time), the complete JSON one click
away; the slash commands, a collection switched from a button, and an export that holds the upload results and
the command outputs — with a quiet browser console throughout."""

from __future__ import annotations

import contextlib
import re
import shutil
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import demo_app, open_chat, running_app, send, shot, wait_for_answers
from tests.conftest import TEST_OUTPUT

pytestmark = pytest.mark.browser

STEPS = ("Context Pruner", "Intent Classifier", "Planner", "Knowledge Agent", "Data Query Agent",
         "Config Best Practice Agent", "Answer Composer", "Reflector")


@pytest.fixture(scope="module")
def app(demo_warehouse_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    with demo_app(demo_warehouse_dir, tmp_path_factory, "inspect-data") as served:
        yield served


def _console(page: Any) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    page.on("console", lambda m: seen.append((m.type, m.text)))
    return seen


def _expand(page: Any, name: str) -> Any:
    """Open a step (its header is a button named by the step) and return its body."""
    header = page.locator(f"[id='step-{name}']").last
    if header.get_attribute("aria-expanded") != "true":
        header.click()
        page.wait_for_timeout(300)
    return page.locator(f"[id='{header.get_attribute('aria-controls')}']")


def test_every_step_of_a_cited_chart_answer_reads_without_opening_json(app: tuple[str, Path], browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    console = _console(page)
    page.goto(app[0])
    page.wait_for_selector("#chat-input", timeout=60_000)
    page.wait_for_timeout(1500)
    answer = send(page, "Show breakdown of configuration best practice deviations by severity and OS, and what "
                        "does our SNMPv3 standard say?")
    assert answer.locator(".element-link").count() >= 1  # cited
    page.wait_for_selector(".js-plotly-plot", timeout=30_000)  # charted
    _expand(page, "Assessment graph")
    bodies = {name: _expand(page, name).inner_text() for name in STEPS}
    assert all(re.search(r"\b\d+ ms\b|\b\d+\.\d s\b", text) for text in bodies.values()), bodies

    data = bodies["Data Query Agent"]
    assert "Tool chosen:" in data and re.search(r"SQL \d+ of \d+", data) and "SELECT" in data, data[:800]
    assert "ASMT-2026-11-02" in data and "?" not in data.split("SQL 1 of")[1]  # values in place
    knowledge = bodies["Knowledge Agent"]
    assert "Rank" in knowledge and "Score" in knowledge and "standard-snmpv3.md" in knowledge
    assert re.search(r"\b0\.\d{3}\b", knowledge)  # scores
    assert "Every number traces back to a task output" in bodies["Reflector"]
    assert "Every citation points at a retrieved chunk" in bodies["Reflector"]
    assert "Depends on" in bodies["Planner"] and "Filters" in bodies["Intent Classifier"]
    assert "{" not in data.split("Tool chosen:")[0]  # the step opens with what it did, not with JSON

    # the complete outputs of a task, one click away in the side view
    _expand(page, "Data Query Agent").locator(".element-link").first.click()
    side = page.locator("#side-view-content")
    side.get_by_text("tool_calls").first.wait_for(timeout=15_000)
    assert "query_params" in side.inner_text() and "assessment_context" in side.inner_text()
    shot(page, "inspect-steps")
    page.keyboard.press("Escape")
    page.wait_for_selector("#side-view-content", state="detached", timeout=5_000)

    # an inline [n] marker previews its chunk on hover and opens that chunk on a click
    marker = answer.locator('a[href^="#cite-"]').first
    n = marker.get_attribute("href").removeprefix("#cite-")
    marker.scroll_into_view_if_needed()
    marker.hover()
    preview = page.locator("#citation-preview")
    preview.wait_for(state="visible", timeout=5_000)
    chip = next(c.text_content().strip() for c in answer.locator(".element-link").all()
                if c.text_content().strip().startswith(f"[{n}] "))
    assert preview.inner_text().startswith(chip) and len(preview.inner_text()) > len(chip) + 40, preview.inner_text()
    shot(page, "citation-preview")
    marker.click()
    page.wait_for_selector("#side-view-title", timeout=10_000)
    assert page.locator("#side-view-title").inner_text().strip() == chip
    page.keyboard.press("Escape")
    page.wait_for_selector("#side-view-content", state="detached", timeout=5_000)

    errors = [text for kind, text in console if kind == "error"]
    warnings = [text for kind, text in console if kind == "warning"]
    assert errors == [] and len(warnings) < 50, (errors[:5], warnings[:5])
    unnamed = page.evaluate("""() => [...document.querySelectorAll('button, a.modebar-btn')].filter(b =>
        b.offsetParent !== null && !(b.getAttribute('aria-label') || b.innerText.trim())).map(b => b.outerHTML.slice(0, 80))""")
    assert unnamed == []  # every visible button has an accessible name
    page.close()


def test_a_cited_sentence_is_marked_in_the_preview_and_in_the_opened_chunk(app: tuple[str, Path], browser: Any) -> None:
    """Issue 54: the hover preview of a marker marks the sentence the answer quotes (not the chunk's first lines, nor
    its code fences), and the chunk opened from it shows that sentence in bold."""
    page = browser.new_page(viewport={"width": 1300, "height": 950})
    page.goto(app[0])
    page.wait_for_selector("#chat-input", timeout=60_000)
    page.wait_for_timeout(1500)
    answer = send(page, "what is the ssh idle timeout?")
    quoted = "Idle sessions end after 10 minutes"
    # the answer's lead line (Chainlit draws a paragraph as a div of role article), or a line of its list
    line = answer.locator("li, [role='article']", has_text=quoted).first
    marker = line.locator('a[href^="#cite-"]').first
    marker.scroll_into_view_if_needed()
    marker.hover()
    preview = page.locator("#citation-preview")
    preview.wait_for(state="visible", timeout=5_000)
    marked = preview.locator("mark")
    assert marked.count() >= 1 and quoted in marked.first.inner_text(), preview.inner_html()
    assert "```" not in preview.inner_text()
    shot(page, "citation-sentence-preview")
    marker.click()
    page.wait_for_selector("#side-view-content", timeout=10_000)
    # (Chainlit renders Markdown's bold as a span of class font-bold)
    bold = page.locator("#side-view-content :is(strong, .font-bold)", has_text=quoted)
    bold.first.wait_for(timeout=10_000)
    assert quoted in bold.first.inner_text()
    shot(page, "citation-sentence-opened")
    page.keyboard.press("Escape")
    page.close()


def test_commands_a_collection_switch_button_and_an_export_that_holds_uploads_and_outputs(
        app: tuple[str, Path], browser: Any, tmp_path: Path) -> None:
    from assessment_engine.warehouse.config_templates import DeviceSpec, render
    from assessment_engine.warehouse.demo_network import CONTROLS

    page = open_chat(browser, app[0])
    console = _console(page)
    helped = send(page, "/help").inner_text()
    assert all(c in helped for c in ("/docs", "/remove NAME", "/collections", "/use NAME", "/export FORMAT"))
    assert "answers about fleet" in helped

    config = tmp_path / "lab-edge-1.cfg"
    spec = DeviceSpec("LAB-EDGE-1", "Lab-East", "lab", "lab", "router", "wan", "f", "m", "ios-xe", "high", "10.9.9.1", 9)
    config.write_text(render(spec, "17.9.4", dict.fromkeys(CONTROLS, False), "now"))
    page.set_input_files("#upload-button-input", str(config))
    page.wait_for_timeout(1500)
    count = page.locator("[data-step-type='assistant_message']").count()
    page.fill("#chat-input", "Please assess this config.")
    page.click("#chat-submit")
    wait_for_answers(page, count, timeout=120_000)
    page.wait_for_timeout(1500)
    results = page.locator("[data-step-type='assistant_message']", has_text="Upload results").last
    collection = re.search(r"your collection (upload-\S+?)\.", results.inner_text().replace("`", ""))
    assert collection, results.inner_text()

    listed = send(page, "/collections").inner_text()
    assert f"answers about {collection.group(1)}" in listed and "Back to the fleet" in listed
    before = page.locator("[data-step-type='assistant_message']").count()
    page.get_by_role("button", name="Back to the fleet").last.click()  # the switch, from the UI
    wait_for_answers(page, before)
    assert "now answers about the fleet" in page.locator("[data-step-type='assistant_message']").last.inner_text()
    assert "answers about fleet" in send(page, "/help").inner_text()

    send(page, "/export md")
    link = page.locator("a[download], a:has-text('trace-')").last
    link.wait_for(timeout=30_000)
    with page.expect_download() as info:
        link.click()
    report = Path(info.value.path()).read_text()
    assert "### Upload results" in report and collection.group(1) in report and "lab-edge-1.cfg" in report
    assert "### /collections" in report and "### /use fleet" in report and "### /help" in report
    assert report.index("### Upload results") < report.index("### /collections") < report.index("### /use fleet")
    errors = [text for kind, text in console if kind == "error"]
    assert errors == [], errors[:5]
    page.close()


def test_a_stopped_turn_is_kept_out_of_the_conversation_memory(app: tuple[str, Path]) -> None:
    """Stop pressed while the graph runs: the turn finishes in its worker and is then forgotten, so the next
    question is the conversation's first turn (and the export lists only it)."""
    import asyncio
    import uuid
    from concurrent.futures import ThreadPoolExecutor
    from datetime import UTC, datetime

    from orchestration.memory.store import MemoryStore
    from tests.chat_client import ChatSession

    async def conversation(url: str) -> tuple[str, str]:
        chat = ChatSession(url)
        await chat.login()
        await chat.connect()
        try:
            message = {"id": str(uuid.uuid4()), "name": "User", "type": "user_message", "createdAt":
                       datetime.now(UTC).isoformat(), "output": "Which assets got worse since the previous assessment?"}
            await chat.client.emit("client_message", {"message": message, "fileReferences": None})
            while True:  # the first step of the graph: the turn is running
                name, data = await asyncio.wait_for(chat.events.get(), 60)
                if name == "new_message" and data.get("name") == "Assessment graph":
                    thread = str(data["threadId"])
                    break
            await chat.client.emit("stop")
            await chat._until_task_end(60)
            second = await chat.ask("Summarize my latest configuration best practice assessment")
            return thread, second.text
        finally:
            await chat.close()

    with ThreadPoolExecutor(1) as pool:  # a loop of its own: Playwright's sync API holds this thread's loop
        thread, answer = pool.submit(asyncio.run, conversation(app[0])).result()
    assert "checks performed" in answer
    states = MemoryStore(app[1] / "memory.sqlite").thread_states(thread)
    assert [s["input"]["user_prompt"] for s in states] == ["Summarize my latest configuration best practice assessment"]


def test_a_thread_link_opened_in_a_fresh_browser_opens_that_thread_after_login(auth_app: tuple[str, Path],
                                                                               browser: Any) -> None:
    from tests.browser import login

    url = auth_app[0]
    alice = login(browser, url, "alice", "wonderland")
    first = send(alice, "Summarize my latest configuration best practice assessment").inner_text().split("\n")[0]
    link = alice.url
    assert "/thread/" in link
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()  # no cookie: signed out
    fresh.goto(link)
    fresh.wait_for_selector("#email", timeout=60_000)
    fresh.fill("#email", "alice")
    fresh.fill("#password", "wonderland")
    fresh.keyboard.press("Enter")
    fresh.wait_for_url(link, timeout=30_000)
    wait_for_answers(fresh, 0)
    assert fresh.locator("[data-step-type='assistant_message']").first.inner_text().split("\n")[0] == first
    fresh.context.close()
    alice.context.close()


def test_regenerate_replaces_only_the_latest_answer(app: tuple[str, Path], browser: Any) -> None:
    from orchestration.memory.store import MemoryStore

    page = open_chat(browser, app[0])
    send(page, "Which assets got worse since the previous assessment?")
    send(page, "Summarize my latest configuration best practice assessment")
    thread = page.url.split("/thread/")[1]
    before = page.locator("[data-step-type='assistant_message']").count()
    page.get_by_role("button", name="Regenerate").first.click()  # under the first answer: not the latest
    wait_for_answers(page, before)
    assert "Only the latest answer can be regenerated" in \
        page.locator("[data-step-type='assistant_message']").last.inner_text()
    before = page.locator("[data-step-type='assistant_message']").count()
    page.get_by_role("button", name="Regenerate").last.click()
    wait_for_answers(page, before)
    page.wait_for_timeout(1000)
    assert "checks performed" in page.locator("[data-step-type='assistant_message']").last.inner_text()
    prompts = [s["input"]["user_prompt"] for s in MemoryStore(app[1] / "memory.sqlite").thread_states(thread)]
    assert prompts == ["Which assets got worse since the previous assessment?",
                       "Summarize my latest configuration best practice assessment"]
    page.close()


def _click(page: Any, name: str) -> str:
    """Click the last button named ``name`` and return the message it answers with."""
    before = page.locator("[data-step-type='assistant_message']").count()
    page.get_by_role("button", name=name).last.click()
    wait_for_answers(page, before)
    page.wait_for_timeout(800)
    return str(page.locator("[data-step-type='assistant_message']").last.inner_text())


def test_the_document_library_previews_and_restricts_what_a_thread_cites(app: tuple[str, Path], browser: Any) -> None:
    page = open_chat(browser, app[0])
    question = "Which approved exceptions cover SNMP at DataCenter-1 and what does our standard require?"
    cited = {c.text_content() for c in send(page, question).locator(".element-link").all()}
    assert any(c.endswith("] exceptions-datacenter.md") for c in cited), cited  # unrestricted: the exceptions

    listed = send(page, "/docs")
    library = listed.inner_text()
    assert "Cited here" in library and "SNMP Standard — SNMPv3 with Authentication and Privacy" in library
    listed.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    page.screenshot(path=str(TEST_OUTPUT / "document-library.png"))
    preview = _click(page, "Preview standard-snmpv3.md")
    assert preview.startswith("Preview — SNMP Standard") and "priv security level" in preview
    assert "cites only standard-snmpv3.md" in _click(page, "Cite only standard-snmpv3.md")

    answer = send(page, question)
    chips = {c.text_content() for c in answer.locator(".element-link").all()}
    assert chips and all(c.endswith("] standard-snmpv3.md") for c in chips), chips  # only the chosen document
    assert "this conversation cites only standard-snmpv3.md" in answer.inner_text()
    assert "This conversation cites only standard-snmpv3.md" in send(page, "/docs").inner_text()
    assert "cites any document" in _click(page, "Cite any document")
    again = {c.text_content() for c in send(page, question).locator(".element-link").all()}
    assert again == cited
    page.close()


def test_an_upload_cut_short_by_a_killed_server_is_reported_after_the_restart(
        demo_warehouse_dir: Path, tmp_path: Path, browser: Any) -> None:
    import random

    from tests.browser import kill_app

    data = tmp_path / "served"
    shutil.copytree(demo_warehouse_dir, data)
    words = ["router", "switch", "firewall", "policy", "uplink", "vlan", "trunk", "access", "audit", "logging", "syslog", "ntp", "snmp", "aaa", "ssh", "acl"]
    rng = random.Random()  # words no run had before: none of their chunks is in the embedding cache a run leaves
    files = []
    for n in range(4):  # ~1,400 distinct chunks each: embedding them takes long enough to kill the server meanwhile
        doc = tmp_path / f"runbook-{n}.md"
        doc.write_text(f"# Runbook {n}\n\n" + "\n\n".join(
            " ".join(rng.choice(words) + str(rng.randint(0, 999)) for _ in range(120)) for _ in range(1400)))
        files.append(str(doc))
    with running_app(data) as url:
        page = open_chat(browser, url)
        # the conversation first (Chainlit gives it its address once it has written the thread, which can come
        # seconds after the first step, by when an upload may be over), then the upload, killed while it embeds
        send(page, "hello")
        page.wait_for_url("**/thread/*", timeout=60_000)
        thread = page.url.split("/thread/")[1]
        page.set_input_files("#upload-button-input", files)
        page.wait_for_timeout(3000)
        page.fill("#chat-input", "Please add these documents.")
        page.click("#chat-submit")
        import sqlite3

        from orchestration.memory.store import PENDING, MemoryStore

        def notes_kept() -> list[str]:
            with contextlib.closing(sqlite3.connect(data / "memory.sqlite")) as con:
                return [k for k, in con.execute("SELECT kind FROM thread_notes WHERE thread_id = ?", (thread,))]

        deadline = time.monotonic() + 120
        while PENDING not in notes_kept() and time.monotonic() < deadline:  # the files sorted, their adding begun
            page.wait_for_timeout(100)
        page.wait_for_timeout(1000)
        before = notes_kept()
        kill_app(url)
        page.close()
    # the premise: the server was killed while the upload ran (its note still says so)
    assert before == [PENDING], before
    with running_app(data) as url:
        page = open_chat(browser, url, f"/thread/{thread}")
        report = page.locator("[data-step-type='assistant_message']", has_text="Upload interrupted")
        try:
            report.first.wait_for(timeout=60_000)
        except PlaywrightTimeout:  # seen once in CI only: said, and what the page and the store held
            seen = f"page: {page.inner_text('body')[-1500:]!r}; url: {page.url}; notes: " + \
                   f"{[n['title'] for n in MemoryStore(data / 'memory.sqlite').thread_notes(thread)]}"
            page.reload()
            try:
                report.first.wait_for(timeout=30_000)
            except PlaywrightTimeout as error:
                raise AssertionError(f"no report, also after a reload; {seen}") from error
            warnings.warn(f"the report showed only after a reload; before it: {seen}", stacklevel=1)
        text = report.first.inner_text()
        assert "not added:" in text and "runbook-3.md" in text and "attach again" in text
        notes = MemoryStore(data / "memory.sqlite").thread_notes(thread)
        assert [n["title"] for n in notes] == ["Upload interrupted"]  # said once, and kept for the export
        page.reload()
        page.wait_for_selector("#chat-input", timeout=60_000)
        page.wait_for_timeout(3000)
        assert page.locator("[data-step-type='assistant_message']", has_text="Upload interrupted").count() == 1
        page.close()


def test_a_file_cancelled_from_its_line_and_a_stop_during_an_upload_leave_them_out_and_still_report(
        app: tuple[str, Path], browser: Any, tmp_path: Path) -> None:
    """While a long document is being embedded (the bar counts its chunks), a file not yet started is cancelled from
    its line; Stop then leaves out every file not started, lets the one in hand finish, and the results still come
    (and replace the pending note kept for a server stop)."""
    import random

    from orchestration.memory.store import MemoryStore

    words = ["router", "switch", "firewall", "policy", "uplink", "vlan", "trunk", "access", "audit", "syslog", "ntp"]
    rng = random.Random(11)
    big = tmp_path / "runbook-big.md"  # ~500 distinct chunks: embedding them takes tens of seconds
    big.write_text("# Runbook\n\n" + "\n\n".join(" ".join(rng.choice(words) + str(rng.randint(0, 999))
                                                            for _ in range(120)) for _ in range(250)))
    (tmp_path / "cancel-me.md").write_text("# Cancel me\n\nQuokka-Lynx: a note its uploader cancelled.\n")
    (tmp_path / "after-stop.md").write_text("# After stop\n\nQuokka-Lynx: a note left out by Stop.\n")
    page = open_chat(browser, app[0])
    console = _console(page)
    page.set_input_files("#upload-button-input", [str(big), str(tmp_path / "cancel-me.md"),
                                                 str(tmp_path / "after-stop.md")])
    page.wait_for_timeout(2000)
    page.fill("#chat-input", "Please add these documents.")
    page.click("#chat-submit")
    page.get_by_text(re.compile(r"adding — \d+% embedded")).first.wait_for(timeout=120_000)
    line = page.locator("li", has_text="cancel-me.md")
    line.get_by_role("link", name="cancel").click()
    line.get_by_text("cancel requested").first.wait_for(timeout=10_000)
    shot(page, "upload-cancel")
    page.wait_for_url("**/thread/*", timeout=60_000)
    thread = page.url.split("/thread/")[1]
    page.locator("#stop-button").click()
    results = page.locator("[data-step-type='assistant_message']", has_text="Upload results")
    results.first.wait_for(timeout=180_000)
    text = results.first.inner_text()
    assert "stopped: the files not yet started were left out" in text, text
    assert "cancel-me.md: cancelled — not added" in text and "after-stop.md: cancelled — not added" in text, text
    assert re.search(r"runbook-big\.md: added \d+ chunks", text), text  # the file in hand finished
    notes = MemoryStore(app[1] / "memory.sqlite").thread_notes(thread)
    assert [n["title"] for n in notes] == ["Upload results"]  # the pending note was replaced, not left behind
    listed = send(page, "/docs").inner_text()
    assert "runbook-big.md" in listed and "cancel-me.md" not in listed and "after-stop.md" not in listed
    errors = [t for kind, t in console if kind == "error"]
    assert errors == [], errors[:5]
    page.close()


def test_an_answer_narrowed_by_follow_ups_clears_its_filters_in_one_click(app: tuple[str, Path], browser: Any) -> None:
    """Follow-ups narrow the last query; the narrowed answer offers "Clear the filters", and after the click the next
    question is the whole fleet's again (its figure as SQL computes it)."""
    import duckdb

    with duckdb.connect(str(app[1] / "warehouse.duckdb"), read_only=True) as con:
        (fleet,), = con.execute("""SELECT COUNT(*) FROM results r JOIN assets a USING (asset_id) WHERE
            a.collection = 'fleet' AND r.status = 'fail' AND r.severity = 'critical' AND r.assessment_id = (SELECT
            assessment_id FROM assessments WHERE collection = 'fleet' ORDER BY started_at DESC LIMIT 1)""").fetchall()
    page = open_chat(browser, app[0])
    send(page, "what fails at the stores")
    assert page.get_by_role("button", name="Clear the filters").count() == 0  # nothing narrowed yet
    narrowed = send(page, "just the firewalls, critical only")
    assert "device type firewall" in narrowed.inner_text()
    assert page.get_by_role("button", name="Clear the filters").count() == 1
    assert "Filters cleared" in _click(page, "Clear the filters")
    lead = send(page, "how many critical failed checks?").inner_text()
    assert "all sites" in lead and re.search(rf"\b{fleet} (?:critical )?failed checks", lead), lead
    page.close()
