"""The ``assess`` console script as a user runs it."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import ASSESS


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ASSESS, *args], capture_output=True, text=True, timeout=300, input=stdin)


def test_ask_json_prints_the_turn_state() -> None:
    out = run("ask", "--json", "--thread", "t-cli", "Which assets got worse since the previous assessment?")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["input"]["thread_id"] == "t-cli"
    assert state["intent"]["intent_class"] == "cbp_assessment"
    assert [c["tool_name"] for c in state["mcp"]["tool_calls"]] == ["assessment_comparison_tool"]


@pytest.mark.parametrize("prompt", ["", "   ", "y" * 100_000])
def test_bad_prompts_get_a_message_not_a_traceback(prompt: str) -> None:
    out = run("ask", prompt)
    assert out.returncode == 0
    assert out.stdout.strip() and "Traceback" not in out.stdout + out.stderr
