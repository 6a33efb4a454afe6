"""What each step of a turn shows a person: the plan as a table, each tool call with its parameters, the SQL it ran
(pretty-printed, highlighted by the chat's Markdown), rows and time, retrieved chunks as a ranked list with source,
version and score, a domain agent's findings, and the Reflector's checks as a list. The complete JSON of a step is
a separate side element (``full_outputs``), never cut; these views are plain functions, tested without a browser."""

from __future__ import annotations

import json
from typing import Any

from assessment_engine.warehouse.sql_text import bind, pretty_sql
from orchestration.outputs import TaskOutputs
from orchestration.state import Final, Intent, Plan, Task, ToolCall, Trace

MAX_ROWS = 12  # rows of a findings or chunk table shown in a step; the full list is in the JSON beside it


def duration(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def node_ms(update: dict[str, Any], node: str) -> float:
    """How long a node took, from the trace delta it returned (dispatch and a task agent write one each)."""
    trace = update.get("trace")
    return sum(d.duration_ms for d in trace.state_deltas if d.node == node) if isinstance(trace, Trace) else 0.0


def cell(value: Any) -> str:
    """A value in a Markdown table cell: one line, no pipes."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return " ".join(text.split()).replace("|", "\\|") or "—"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def tool_call_view(call: ToolCall, dialect: str = "duckdb", laid_out: dict[str, str] | None = None) -> str:
    """A tool call: its parameters, each statement it ran with its values, rows and time. ``laid_out``: statements
    already laid out (by the turn worker); any other is laid out here."""
    # a SQL-path call's own statement and values are shown below as they ran, not as parameters
    shown = {"sql", "params"} if call.queries else set()
    params = {k: v for k, v in call.input.items() if v not in (None, "", [], {}) and k not in shown}
    head = (f"**`{call.tool_name}`** → {call.status}, {plural(call.row_count, 'row')}, {duration(call.duration_ms)}"
            + (" — from agent memory (same call, same data)" if call.cached else "")
            + (f" — {call.error}" if call.error else ""))
    lines = [head, ""]
    if params:
        lines += ["| Parameter | Value |", "|---|---|", *(f"| {k} | {cell(v)} |" for k, v in params.items()), ""]
    for n, statement in enumerate(call.queries, start=1):
        values = call.query_params[n - 1] if n <= len(call.query_params) else []
        layout = (laid_out or {}).get(statement) or pretty_sql(statement, dialect)
        lines += [f"SQL {n} of {len(call.queries)}:", "", "```sql", bind(layout, values), "```", ""]
    if not call.queries and not call.cached:
        lines += ["No SQL statement was recorded for this call.", ""]
    return "\n".join(lines)


def chunks_view(outputs: TaskOutputs) -> list[str]:
    ctx = outputs.enterprise_context
    if ctx is None:
        return []
    lines = [f"Query: _{cell(ctx.query_used)}_ · {ctx.retrieval_mode or 'retrieval'} · {duration(ctx.latency_ms)}", ""]
    if not ctx.retrieved_chunks:
        return [*lines, ctx.note or "No chunk matched.", ""]
    lines += ["| Rank | Document | Version | Section | Score |", "|---|---|---|---|---|"]
    for i, chunk in enumerate(ctx.retrieved_chunks[:MAX_ROWS], start=1):
        meta = chunk.metadata
        version = (meta.model_extra or {}).get("version") or "—"
        lines.append(f"| {meta.rank or i} | {cell(meta.title or meta.source)} ({cell(meta.source)}) | {cell(str(version))} "
                     f"| {cell(meta.section)} | {meta.relevance_score:.3f} |")
    if len(ctx.retrieved_chunks) > MAX_ROWS:
        lines.append(f"\n… and {len(ctx.retrieved_chunks) - MAX_ROWS} more in the full outputs.")
    return [*lines, ""]


def _evidence(device: str | None, evidence: str | None) -> str:
    if not evidence:
        return "—"
    text = " ".join(evidence.split())
    return (f"{device}: " if device else "") + (text if len(text) <= 120 else text[:119] + "…")


def findings_view(outputs: TaskOutputs) -> list[str]:
    lines: list[str] = []
    if outputs.summary:
        lines += [outputs.summary, ""]
    if outputs.findings:
        lines += [f"{plural(len(outputs.findings), 'finding')}:", "",
                  "| Rule | Severity | Devices | Finding | Evidence (one device) |", "|---|---|---|---|---|"]
        lines += [f"| {cell(f.rule_id)} | {f.severity} | {f.assets_affected} | {cell(f.title)} | "
                  f"{cell(_evidence(f.evidence_device, f.evidence))} |" for f in outputs.findings[:MAX_ROWS]]
        if len(outputs.findings) > MAX_ROWS:
            lines.append(f"\n… and {len(outputs.findings) - MAX_ROWS} more in the full outputs.")
        lines.append("")
    if outputs.chart_hints:
        lines += ["Charts: " + ", ".join(f"{h.title} ({h.chart_type})" for h in outputs.chart_hints), ""]
    table = outputs.data_table
    if table is not None:  # an extension agent's table: its size here, the rows under the answer
        lines += [f"{table.title}: {plural(len(table.rows), 'row')} of {', '.join(table.columns)}", ""]
    slic = outputs.slic_context
    if slic is not None:
        lines += [f"SLIC: {plural(slic.total_matches, 'match', 'matches')} on {plural(slic.assets_affected, 'device')}"
                  + (" — " + ", ".join(f"{k} {v}" for k, v in slic.by_severity.items()) if slic.by_severity else ""), ""]
        if slic.by_signature:
            lines += ["| Signature | Severity | Devices | Title |", "|---|---|---|---|"]
            lines += [f"| {cell(s.signature_id)} | {s.severity} | {s.assets} | {cell(s.title)} |"
                      for s in slic.by_signature[:MAX_ROWS]]
            lines.append("")
        lines += [f"- ⚠ {e}" for e in slic.errors]
    for label, items in (("Data gaps", outputs.data_gaps), ("Assumptions", outputs.assumptions)):
        if items:
            lines += [f"{label}:", *(f"- {cell(i)}" for i in items), ""]
    return lines


def task_view(task: Task, calls: list[ToolCall], summary: str, ms: float, outputs_name: str,
              dialect: str = "duckdb", laid_out: dict[str, str] | None = None) -> str:
    """A finished task: status and time, what it did (tool calls with SQL, chunks, findings), where its JSON is."""
    lines = [f"**{task.status}** in {duration(ms)} — {summary.removeprefix(task.status + ': ')}", ""]
    if task.error:
        lines += [f"Error: {task.error}", ""]
    ctx = task.outputs.assessment_context
    if ctx is not None:
        lines += [f"Tool chosen: **`{ctx.tool_selection.tool}`** — {ctx.tool_selection.reason}", ""]
        lines += [f"- ⚠ {e.tool}: {e.message}" for e in ctx.errors]
    lines += chunks_view(task.outputs)
    for call in calls:
        lines.append(tool_call_view(call, dialect, laid_out))
    lines += findings_view(task.outputs)
    lines.append(f"Complete outputs: {outputs_name}")
    return "\n".join(lines)


def intent_view(intent: Intent) -> str:
    frame = intent.frame
    filters = {k: v for k, v in frame.filters.model_dump().items() if v}
    when = {k: v for k, v in frame.time.model_dump().items() if v}
    rows = [("Intent", f"{intent.intent_class} ({intent.confidence:.2f})"),
            ("Skill", intent.domain_details.skill or "—"), ("Follow-up", intent.meta_intent),
            ("Asked for", f"{frame.ask} of {frame.subject}" + (f", limit {frame.limit}" if frame.limit else "")),
            ("Filters", ", ".join(f"{k} = {', '.join(map(str, v))}" for k, v in filters.items()) or "none"),
            ("Time", ", ".join(f"{k} = {v}" for k, v in when.items()) or "latest"),
            ("Entities", ", ".join(f"{e.type}={e.value}" for e in intent.entities) or "none")]
    if frame.cannot:
        rows.append(("Cannot answer", str(frame.cannot)))
    rows += [("Name read", f"{r.mention} → {r.value or '?'} ({r.status})") for r in intent.name_resolutions]
    if intent.clarification_question:
        rows.append(("Asks back", intent.clarification_question))
    return "\n".join(["| | |", "|---|---|", *(f"| {k} | {cell(v)} |" for k, v in rows)])


def plan_view(plan: Plan) -> str:
    rows = ["| Task | Owner | Skill | Depends on | Required data |", "|---|---|---|---|---|"]
    for t in plan.tasks:
        needs = ", ".join(f"{r.data_path}{'' if r.required else ' (optional)'}" for r in t.required_data) or "—"
        rows.append(f"| {t.id} | {t.owner} | {t.skill} | {', '.join(t.depends_on) or '—'} | {needs} |")
    return "\n".join(rows)


CHECKS = (("numbers", "reflector: numbers", "Every number traces back to a task output"),
          ("citations", "reflector: citations", "Every citation points at a retrieved chunk"),
          ("scope", "reflector: the scope", "The answer's scope is the one asked for"),
          ("form", "frame: ", "The answer has the question's form"))


def reflector_view(final: Final, summary: str) -> str:
    """The Reflector's checks, each passed or failed with what it found (from the notes it wrote on the answer)."""
    if summary.startswith(("finalize: no planned data", "replan")) or "run again in the question's form" in summary:
        return summary
    lines = []
    for _, prefix, label in CHECKS:
        found = [m.removeprefix("reflector: ").removeprefix("frame: ") for m in final.missing_inputs if m.startswith(prefix)]
        lines.append(f"- {'✗' if found else '✓'} {label}" + (f" — {'; '.join(found)}" if found else ""))
    verdict = "qualified (marked partial)" if final.partial else "finalized"
    return f"Answer {verdict}.\n\n" + "\n".join(lines)


def composer_view(final: Final, summary: str) -> str:
    lines = [summary, ""]
    if final.citations:
        lines += ["Citations:", *(f"- [{c.number}] {cell(c.source)}" + (f" v{c.version}" if c.version else "")
                                  + f" — score {c.relevance_score:.3f}" for c in final.citations)]
    return "\n".join(lines)


def full_outputs(data: Any) -> str:
    """A step's complete JSON, shown in the side view (never truncated)."""
    return json.dumps(data, indent=2, default=str)
