"""Trace export of a conversation: every turn's full STATE as JSON, or a readable Markdown report."""

from __future__ import annotations

import json
from typing import Any

from orchestration.memory.store import MemoryStore


class TraceAccessError(PermissionError):
    """The thread does not exist or belongs to another user."""


def thread_states(thread_id: str, user_id: str | None = None, store: MemoryStore | None = None) -> list[dict[str, Any]]:
    store = store or MemoryStore()
    owner = store.thread_owner(thread_id)
    if owner is None:
        raise TraceAccessError(f"no conversation '{thread_id}'")
    if user_id is not None and owner != user_id:
        raise TraceAccessError(f"conversation '{thread_id}' belongs to another user")
    return store.thread_states(thread_id)


def to_json(thread_id: str, states: list[dict[str, Any]]) -> str:
    return json.dumps({"thread_id": thread_id, "turns": states}, indent=2)


def to_markdown(thread_id: str, states: list[dict[str, Any]]) -> str:
    out = [f"# Assessment Assistant — conversation {thread_id}", "", f"{len(states)} turns.", ""]
    for n, s in enumerate(states, start=1):
        intent = s["intent"]
        out += [f"## Turn {n}: {s['input']['user_prompt'][:200]}", "",
                f"- Intent: **{intent['intent_class']}** (skill {intent['domain_details'].get('skill') or '—'}, "
                f"meta {intent['meta_intent']}, confidence {intent['confidence']})",
                "- Entities: " + (", ".join(f"{e['type']}={e['value']}" for e in intent["entities"]) or "none"),
                f"- Follow-up handling: {s['conversation'].get('resolution', 'none')}",
                "- Steps: " + " → ".join(s["trace"]["node_run_order"]), ""]
        if s["plan"]["tasks"]:
            out += ["| Task | Owner | Skill | Depends on | Status |", "|---|---|---|---|---|"]
            out += [f"| {t['id']} | {t['owner']} | {t['skill']} | {', '.join(t['depends_on']) or '—'} | {t['status']} |"
                    for t in s["plan"]["tasks"]]
            out.append("")
        for c in s["mcp"]["tool_calls"]:
            queries = c.get("queries") or []  # traces stored before the statements were recorded have none
            out.append(f"- Tool `{c['tool_name']}` → {c['status']}, {c['row_count']} rows, {c['duration_ms']} ms"
                       + (", from agent memory" if c.get("cached") else f", {len(queries)} SQL statements")
                       + (f" — {c['error']}" if c.get("error") else ""))
            if queries:
                out += ["", "  ```sql", *(f"  {' '.join(q.split())};" for q in queries), "  ```", ""]
        final = s["final"]
        out += ["", "### Answer", "", final["answer"], ""]
        if final["partial"]:
            out += [f"> Partial answer — risk of error: {final['risk_of_error']}. Missing: "
                    + "; ".join(final["missing_inputs"]), ""]
    return "\n".join(out)
