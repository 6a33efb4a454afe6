"""Context Pruner (DESIGN §7.3): bounded conversation context. Contract: contracts/agents/context_pruner.yaml.

The node trims ``conversation.history`` to the window; ``fold`` is the function the memory store applies
when a turn leaves the window, adding one line per turn to the thread's running summary and keeping
that summary itself bounded (oldest lines dropped first).
"""

from __future__ import annotations

import json
from typing import Any

from orchestration.memory.store import WINDOW
from orchestration.services import Services
from orchestration.state import AssessmentState, StateUpdate

SUMMARY_LINES = 40


def fold(summary: str, turn: dict[str, Any]) -> str:
    """The running summary with one more turn folded in (pure)."""
    entities = json.loads(turn.get("entities") or "[]") if isinstance(turn.get("entities"), str) else turn.get("entities") or []
    scope = ", ".join(f"{e['type']}={e['value']}" for e in entities if e.get("type") in ("site", "device", "device_type",
                                                                                         "environment"))
    findings = json.loads(turn.get("findings") or "[]") if isinstance(turn.get("findings"), str) else turn.get("findings") or []
    top = ", ".join(str(f.get("rule_id")) for f in findings[:3])
    line = (f"turn {turn['turn_number']}: {turn.get('intent_class') or 'n/a'}"
            + (f" [{scope}]" if scope else "") + f" — {str(turn['prompt'])[:80]}" + (f" → {top}" if top else ""))
    lines = [ln for ln in summary.split("\n") if ln] + [line]
    return "\n".join(lines[-SUMMARY_LINES:])


def run(state: AssessmentState, services: Services) -> StateUpdate:
    conv = state.conversation
    return {"conversation": conv.evolve(history=conv.history[-WINDOW:])}


def summarize(update: StateUpdate) -> str:
    conv = update["conversation"]
    older = len(conv.summary.split("\n")) if conv.summary else 0
    return f"{len(conv.history)} recent turns in context, {older} older turns summarized"
