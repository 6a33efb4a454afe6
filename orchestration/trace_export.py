"""Trace export of a conversation: every turn's full STATE as JSON, or a readable Markdown report with each turn's
plan, tool calls and the SQL they ran (values in place), retrieved chunks, answer and checks — and what the
conversation showed besides answers (upload results, command outputs), each where it appeared."""

from __future__ import annotations

import json
from typing import Any

from assessment_engine.warehouse.sql_text import bind
from orchestration.memory.store import MemoryStore


class TraceAccessError(PermissionError):
    """The thread does not exist or belongs to another user."""


def thread_states(thread_id: str, user_id: str | None, store: MemoryStore) -> list[dict[str, Any]]:
    """The stored turns of the thread in ``store`` (the caller's services' memory), for its owner."""
    owner = store.thread_owner(thread_id)
    if owner is None:
        raise TraceAccessError(f"no conversation '{thread_id}'")
    if user_id is not None and owner != user_id:
        raise TraceAccessError(f"conversation '{thread_id}' belongs to another user")
    return store.thread_states(thread_id)


def thread_notes(thread_id: str, user_id: str | None, store: MemoryStore) -> list[dict[str, Any]]:
    """Upload results and command outputs of the conversation (the same access check as its turns)."""
    owner = store.thread_owner(thread_id)
    if owner is None or (user_id is not None and owner != user_id):
        return []
    return store.thread_notes(thread_id)


def to_json(thread_id: str, states: list[dict[str, Any]], notes: list[dict[str, Any]] | None = None) -> str:
    return json.dumps({"thread_id": thread_id, "turns": states, "notes": notes or []}, indent=2)


def _notes_after(notes: list[dict[str, Any]], turn: int) -> list[str]:
    out: list[str] = []
    for note in notes:
        if note["after_turn"] == turn:
            out += [f"### {note['title']} ({note['kind']}, {str(note['at'])[:19].replace('T', ' ')} UTC)", "",
                    note["body"], ""]
    return out


def _chunks(state: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for task in state["plan"]["tasks"]:
        ctx = (task.get("outputs") or {}).get("enterprise_context") or {}
        chunks = ctx.get("retrieved_chunks") or []
        if chunks:
            out += [f"Retrieved for {task['id']} ({ctx.get('retrieval_mode') or 'retrieval'}): "
                    f"_{' '.join(str(ctx.get('query_used', '')).split())}_", "",
                    "| Rank | Document | Version | Section | Score |", "|---|---|---|---|---|"]
            for i, chunk in enumerate(chunks, start=1):
                m = chunk["metadata"]
                out.append(f"| {m.get('rank') or i} | {m['source']} | {m.get('version') or '—'} | "
                           f"{str(m.get('section', '')).replace('|', '/')} | {float(m.get('relevance_score', 0)):.3f} |")
            out.append("")
    return out


def to_markdown(thread_id: str, states: list[dict[str, Any]], notes: list[dict[str, Any]] | None = None) -> str:
    notes = notes or []
    out = [f"# Assessment Assistant — conversation {thread_id}", "",
           f"{len(states)} turn(s)" + (f", {len(notes)} upload or command output(s)" if notes else "") + ".", ""]
    out += _notes_after(notes, 0)
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
            values = c.get("query_params") or []
            if queries:
                out += ["", "  ```sql", *(f"  {' '.join(bind(q, values[i] if i < len(values) else []).split())};"
                                          for i, q in enumerate(queries)), "  ```", ""]
        out += ["", *_chunks(s)]
        final = s["final"]
        out += ["### Answer", "", final["answer"], ""]
        if final["partial"]:
            out += [f"> Partial answer — risk of error: {final['risk_of_error']}. Missing: "
                    + "; ".join(final["missing_inputs"]), ""]
        out += _notes_after(notes, n)
    return "\n".join(out)
