"""Turns asked through the ``assess`` command, in a process of its own: its JSON shows the context the agents
used, and a conversation started there goes on in another process (the memory is on disk, not in the process)."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

from orchestration.runtime import handle_turn
from orchestration.services import Services
from orchestration.state import AssessmentState
from tests.conftest import ASSESS


def ents(state: AssessmentState, etype: str) -> list[str]:
    return [e.value for e in state.intent.entities if e.type == etype]


def test_assess_ask_json_shows_the_context(demo_warehouse: Path) -> None:
    out = subprocess.run([ASSESS, "ask", "--json", "What has changed since my last assessment?"],
                         capture_output=True, text=True, timeout=300, check=True)
    state = json.loads(out.stdout)
    dq = next(t for t in state["plan"]["tasks"] if t["owner"] == "Data Query Agent")
    assert dq["outputs"]["assessment_context"]["report_data"]["assessment_comparison_tool"]["metrics"]["new_issues"] >= 0
    assert state["mcp"]["tool_calls"][0]["status"] == "ok"


def test_history_survives_a_restart_of_the_process(demo_warehouse: Path, services: Services) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    subprocess.run([ASSESS, "ask", "--thread", thread, "Summarize configuration findings for Branch-05"],
                   capture_output=True, text=True, timeout=300, check=True)
    follow = handle_turn("What about security?", thread_id=thread, user_id="local", services=services)  # another process
    assert follow.conversation.turn_number == 2 and ents(follow, "site") == ["Branch-05"]
