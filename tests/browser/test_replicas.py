"""Two replicas of the app behind no load balancer at all — two ``assess serve`` processes on two loopback ports,
each with its own data directory, sharing what a deployment shares (docs/DEPLOY.md): one PostgreSQL (memory, chat
history, knowledge base), one warehouse, one elements folder and the app secret. A thread started in the browser on
replica A is resumed on replica B with its steps, chart, citations and conversation memory; a document uploaded
on A is answered from on B."""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.browser import open_chat, running_app, send, shot

pytestmark = pytest.mark.browser


def test_a_thread_started_on_one_replica_continues_on_the_other(demo_warehouse_dir: Path, tmp_path: Path,
                                                                 postgres_url: str, browser: Any) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.copy(demo_warehouse_dir / "warehouse.duckdb", shared / "warehouse.duckdb")
    env = {"ASSESS_DATABASE_URL": postgres_url, "ASSESS_WAREHOUSE_FILE": str(shared / "warehouse.duckdb"),
           "ASSESS_ELEMENTS_DIR": str(shared / "elements"), "CHAINLIT_AUTH_SECRET": secrets.token_urlsafe(48)}
    doc = tmp_path / "quokka-wan-standard.md"
    doc.write_text("---\ntopic: approved_configurations\ndomain: configuration_best_practice\n---\n"
                   "# Quokka WAN Standard\n\nAll Quokka WAN links use BFD with 300 ms timers and a multiplier of 3.\n")

    with running_app(tmp_path / "replica-a", **env) as replica_a, running_app(tmp_path / "replica-b", **env) as replica_b:
        page = open_chat(browser, replica_a)
        send(page, "How should I configure SNMP v3 according to our company standards?")
        send(page, "Show breakdown of configuration best practice deviations by severity, technology, and OS.")
        page.wait_for_selector(".js-plotly-plot", timeout=30_000)
        page.set_input_files("#upload-button-input", str(doc))
        page.wait_for_timeout(2000)
        send(page, "Please add this document.")  # answered by the upload's results alone, not by a turn
        send(page, "Summarize configuration best practice findings for Branch-05")
        page.wait_for_timeout(1500)
        thread = page.url.split("/thread/")[1]
        on_a = _shown(page)
        assert on_a["charts"] >= 1 and on_a["chips"] >= 1 and on_a["answers"] == 4, on_a
        assert "quokka-wan-standard.md: added" in on_a["text"]
        page.close()

        page = open_chat(browser, replica_b)  # the thread list is read from the shared database
        page.locator("#thread-history").get_by_text("How should I configure SNMP v3").first.click()
        page.wait_for_url(f"**/thread/{thread}", timeout=30_000)
        page.wait_for_selector(".js-plotly-plot", timeout=60_000)
        page.wait_for_timeout(3000)
        for run in page.locator("[data-step-type='run']").all():  # a resumed thread shows each turn's steps folded
            run.get_by_text("Used Assessment graph").first.click()
        page.wait_for_timeout(1500)
        on_b = _shown(page)
        assert {k: on_b[k] for k in ("charts", "chips", "answers", "steps")} == \
               {k: on_a[k] for k in ("charts", "chips", "answers", "steps")}
        chip = page.locator("[data-step-type='assistant_message'] .element-link").first
        name = chip.text_content()
        chip.click()  # the chunk's body is served by B from the shared elements folder, signed with the shared secret
        page.wait_for_function("n => document.getElementById('side-view-title')?.textContent.trim() === n",
                               arg=name, timeout=15_000)
        assert "chunk" in page.locator("#side-view-content").inner_text()

        followup = send(page, "What about security?").inner_text()  # the conversation's memory, kept on A
        assert "Branch-05" in followup and "Security view" in followup
        uploaded = send(page, "What is our Quokka WAN standard for BFD timers?").inner_text()
        assert "300 ms" in uploaded and "quokka-wan-standard.md" in uploaded.lower()
        shot(page, "replica-b-resumed")
        page.close()


def _shown(page: Any) -> dict[str, Any]:
    answers = page.locator("[data-step-type='assistant_message']")
    return {"charts": page.locator(".js-plotly-plot").count(),
            "chips": page.locator("[data-step-type='assistant_message'] .element-link").count(),
            "answers": answers.count(), "steps": page.locator("[data-step-type='tool'], [data-step-type='run']").count(),
            "text": " ".join(m.inner_text() for m in answers.all())}
