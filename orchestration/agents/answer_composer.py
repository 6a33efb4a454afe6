"""Answer Composer node: writes ``final`` for every turn. Contract: contracts/agents/answer_composer.yaml.

Planned turns: the direct answer first (the domain agent's summary), then findings and risks,
numbered citations to retrieved chunks, and what was missing. Gate turns: the clarification
question. Acknowledgements and cancellations: one short sentence, nothing planned.
"""

from __future__ import annotations

from typing import Any, Literal

from orchestration.state import AssessmentState, Citation, Final, Task

DOMAIN_OWNERS = ("Config Best Practice Agent", "Security Assessment Agent")


def _domain_task(state: AssessmentState) -> Task | None:
    return next((t for t in state.plan.tasks if t.owner in DOMAIN_OWNERS), None)


def _citations(state: AssessmentState) -> list[Citation]:
    chunks = state.task_outputs("Knowledge Agent").get("enterprise_context", {}).get("retrieved_chunks", [])
    out = []
    for i, chunk in enumerate(chunks, start=1):
        meta = chunk.get("metadata", {})
        out.append(Citation(number=i, chunk_id=str(meta.get("chunk_id", "")), source=str(meta.get("source", "")),
                            topic=str(meta.get("topic", "")), relevance_score=float(meta.get("relevance_score", 0.0)),
                            excerpt=str(chunk.get("content", ""))[:300]))
    return out


def _findings_md(findings: list[dict[str, Any]]) -> str:
    lines = ["", "**Findings**", ""]
    for i, f in enumerate(findings, start=1):
        lines.append(f"{i}. **{f.get('title', '?')}** ({f.get('severity', '?')}) — {f.get('recommendation', '')}")
    return "\n".join(lines)


def _missing_inputs(state: AssessmentState, outputs: dict[str, Any]) -> list[str]:
    """Data gaps the domain agent named, plus failures of tasks those gaps do not already cover."""
    missing = list(outputs.get("data_gaps", []))
    covered = " ".join(missing)
    missing += [f"{t.owner}: {t.error}" for t in state.plan.tasks
                if t.status == "failed" and t.error and t.owner not in covered]
    return missing


def compose(state: AssessmentState) -> Final:
    intent = state.intent
    if intent.meta_intent == "acknowledgement":
        return Final(answer="You're welcome. Ask me anything else about your assessments, or export this "
                            "conversation's trace from the chat.")
    if intent.meta_intent == "cancellation":
        return Final(answer="Okay, cancelled. Nothing was run; ask a new question whenever you are ready.")
    if intent.intent_class == "unknown_or_needs_clarification":
        return Final(answer=intent.clarification_question or "Could you tell me what you would like to know?")
    task = _domain_task(state)
    if task is None:
        return Final(answer="No plan was executed for this question.", partial=True, risk_of_error="high",
                     missing_inputs=["plan"])
    outputs = task.outputs
    parts = [str(outputs.get("summary") or "No summary was produced.")]
    if outputs.get("findings"):
        parts.append(_findings_md(outputs["findings"]))
    missing = _missing_inputs(state, outputs)
    if missing:
        parts += ["", "**Not available for this answer**", ""] + [f"- {m}" for m in missing]
    citations = _citations(state)
    if citations:
        parts += ["", "**Sources**", ""] + [f"[{c.number}] {c.source} — {c.topic}" for c in citations]
    required_missing = any(r.required for r in task.required_data) and bool(outputs.get("data_gaps"))
    risk: Literal["low", "medium", "high"] = (
        "high" if required_missing or task.status == "failed" else ("medium" if missing else "low"))
    return Final(answer="\n".join(parts), citations=citations, missing_inputs=missing,
                 risk_of_error=risk, partial=bool(missing) or task.status != "completed")


def run(state: AssessmentState) -> dict[str, Any]:
    return {"final": compose(state)}


def summarize(update: dict[str, Any]) -> str:
    final: Final = update["final"]
    flags = f" (partial; {len(final.missing_inputs)} missing inputs)" if final.partial else ""
    return f"{len(final.answer)} characters, {len(final.citations)} citations{flags}"
