"""Answer Composer node: writes ``final`` for every turn. Contract: contracts/agents/answer_composer.yaml.

Planned turns: the scope the data covered and how typed names were read (a fixed first line of every
data answer), the direct answer (the domain agent's summary: numbers, top items), then what to
do first, the findings table with fixes, devices that changed (trend mode), the enterprise context
applied with numbered citations [n] to the retrieved chunks, and an honest list of what was missing.
Gate turns: the clarification question. Acknowledgements and cancellations: one short sentence.
"""

from __future__ import annotations

from typing import Any, Literal

from foundation.vocabulary.scope import AnswerScope
from orchestration.agents.evidence import gather
from orchestration.interpretation import markdown
from orchestration.interpretation.enterprise import without_orders
from orchestration.interpretation.findings import devices
from orchestration.interpretation.generic_answers import CITE_MARK
from orchestration.interpretation.markdown import cited_words, code_block, place_markers
from orchestration.interpretation.scope_statement import asked_scope, name_notes, scope_line, slic_scope
from orchestration.outputs import Finding, RetrievedChunk
from orchestration.services import Services
from orchestration.state import AssessmentState, Citation, Final, StateUpdate, Task, shown_document

TABLE_ROWS = 50  # of an extension agent's table, shown in the chat


class _Citations:
    """Numbers retrieved chunks in order of first use; only retrieved chunks can be cited."""

    def __init__(self, state: AssessmentState) -> None:
        ctx = state.task_outputs("Knowledge Agent").enterprise_context
        self.chunks: dict[str, RetrievedChunk] = {c.metadata.chunk_id: c for c in ctx.retrieved_chunks} if ctx else {}
        self.by_source: dict[str, str] = {}
        for cid, c in self.chunks.items():
            self.by_source.setdefault(c.metadata.source, cid)
        self.used: list[Citation] = []

    def cite(self, chunk_id: str | None = None, source: str | None = None) -> str:
        cid = chunk_id if chunk_id in self.chunks else self.by_source.get(source or "")
        if cid is None:
            return ""
        for c in self.used:
            if c.chunk_id == cid:
                return f"[{c.number}]"
        meta = self.chunks[cid].metadata
        self.used.append(Citation(number=len(self.used) + 1, chunk_id=cid, source=meta.source, topic=meta.topic,
                                  relevance_score=meta.relevance_score, excerpt=without_orders(self.chunks[cid].content)[:400],
                                  version=str(getattr(meta, "version", "") or ""),
                                  page=str(getattr(meta, "page", "") or ""), content=self.chunks[cid].content))
        return f"[{len(self.used)}]"


def _cell(text: Any, limit: int = 90) -> str:
    s = str(text).replace("|", "/").replace("\n", "; ")
    return s if len(s) <= limit else s[: limit - 1] + "…"


FINDINGS_SHOWN = 20  # rows of the findings table in the chat; the export keeps every finding


def _findings_table(findings: list[Finding], cites: _Citations, whole: bool = False) -> list[str]:
    """The findings, the most widespread first; ``whole``: every one (one device's failed checks, one per rule at
    most — "what does RTR-LAB1-1 fail" is answered by all of them)."""
    shown = len(findings) if whole else FINDINGS_SHOWN
    trend = any(f.delta_status for f in findings)
    refs = [" ".join(filter(None, (cites.cite(e.chunk_id, e.source) for e in f.enterprise_context_applied)))
            for f in findings]
    context = any(refs)  # no empty column when nothing from the knowledge base applies
    head = ("| # | Deviation | Severity | Devices |" + (" Change |" if trend else "") + " Fix |"
            + (" Context |" if context else ""))
    rows = ["", "**Findings**", "", head, "|" + "---|" * (head.count("|") - 1)]
    for f, ref in zip(findings[:shown], refs, strict=False):
        fix = [ln for ln in f.recommendation.split("\n") if ln.strip() and not ln.startswith("!")] or [""]
        rows.append(f"| {f.id} | {f.rule_id} — {_cell(f.title, 60)} | {f.severity} | {f.assets_affected} |"
                    + (f" {f.delta_status or ''} |" if trend else "")
                    + f" `{_cell(fix[0], 60)}`{' …' if len(fix) > 1 else ''} |" + (f" {ref} |" if context else ""))
    if len(findings) > shown:
        # the rest named, so that "what's failing at Branch-07" names every check; no count of its own: every figure
        # of an answer traces to the task outputs (the Reflector checks)
        rest = list(dict.fromkeys(f.rule_id for f in findings[shown:]))
        named = ", ".join(rest[:REST_NAMED]) + (" and more" if len(rest) > REST_NAMED else "")
        rows += ["", f"*Also failing, less widespread:* {named}. The exported trace holds each one's fix and evidence."]
    return rows


REST_NAMED = 40  # findings named after the table, past which the export is the place to read them


def _first_sentence(text: str) -> str:
    """An assumption's first clause, said in the one line of assumptions."""
    text = text.strip()
    ends = [i for i in (text.find(". "), text.find("; "), text.find(": ")) if i > 0]
    return (text[:min(ends)] if ends else text).rstrip(".;:")


def _device_evidence(findings: list[Finding], several: bool = False) -> list[str]:
    """Per finding: the offending config lines (numbered, under their parent line) and the fix commands.
    ``several``: the findings of many devices, each with the lines of one of them."""
    shown = min(len(findings), 10)
    lines = ["", "**Evidence and fixes**", ""]
    if several:
        lines[-1:] = ["", f"The first {shown} of {len(findings)} findings, each with the lines of one device failing it "
                      "(ask about a device for all of its lines)." if len(findings) > shown else
                      "Each finding with the lines of one device failing it (ask about a device for all of its lines).",
                      ""]
    for f in findings[:10]:
        # one line per finding where its evidence and fix are one line each; a block only for several lines
        evidence = [ln for ln in (f.evidence or "").split("\n") if ln.strip()]
        fix = [ln for ln in (f.recommendation or "").split("\n") if ln.strip()]
        where = f" on {f.evidence_device}" if f.evidence_device and several else ""
        line = f"- **{f.rule_id}** {f.title} ({f.severity})"
        if len(evidence) == 1:
            said = evidence[0] if len(evidence[0]) <= 160 else evidence[0][:159] + "…"  # as stored: a "|" is no cell
            line += f" — line{where}: `{said}`"
        if len(fix) == 1:
            line += f"; fix: `{fix[0]}`"
        lines.append(line)
        if len(evidence) > 1:
            lines.append(f"  - lines{where} (numbered as in its configuration):\n\n" + code_block("\n".join(evidence), 4))
        if len(fix) > 1:
            lines.append("  - fix:\n\n" + code_block(f.recommendation, 4))
    return lines


def _extension_tables(state: AssessmentState) -> list[str]:
    """The table each planned agent without a model of its own added (``task.outputs.data_table``), under its name."""
    parts: list[str] = []
    for task in state.plan.tasks:
        table = task.outputs.data_table
        if table is None or task.kind == "domain":
            continue
        shown = table.rows[:TABLE_ROWS]
        parts += ["", f"**{table.title}** ({task.owner})", "", markdown.table(table.columns, shown)]
        cut = f"The first {len(shown)} of {len(table.rows)} rows; the exported trace holds every row. " \
            if len(shown) < len(table.rows) else ""
        if cut or table.note:
            parts += ["", f"*{(cut + table.note).strip()}*"]
    return parts


def _covered(state: AssessmentState) -> AnswerScope | None:
    """The scope the data covered, as the Data Query Agent (or else the SLIC Agent) recorded it."""
    context = state.task_outputs("Data Query Agent").assessment_context
    if context is not None and context.covered_scope is not None:
        return context.covered_scope
    return slic_scope(state.task_outputs("SLIC Agent").slic_context)


def _header(state: AssessmentState, scope: AnswerScope | None) -> list[str]:
    """Scope line and how names were read: the first thing of every data answer, in the same place."""
    carried = {e.value for e in state.intent.entities if e.type == "device" and e.source == "conversation"}
    # (or the rows an earlier answer listed: "sort by failed checks" after the 17 devices failing VTY-ACL)
    listed = [{str(r) for r in t.answer_devices or t.answer_rows} for t in state.conversation.history[-3:]]
    if scope is not None and len(scope.devices) > 3 and (
            set(scope.devices) <= carried or any(set(scope.devices) <= rows for rows in listed)):
        scope = scope.model_copy(update={"devices_listed_before": True})  # the list is above; its names are no scope
    if scope is not None:
        lines = [scope_line(scope)]
    elif any(t.owner in ("Data Query Agent", "SLIC Agent") for t in state.plan.tasks):
        lines = [scope_line(asked_scope(state.intent)).replace("**Scope:**", "**Scope asked** (no data came back for it):")]
    else:
        lines = []
    notes = name_notes(state.intent)
    if lines and notes:  # how names were read belongs to the scope: the line after it is the answer
        return [f"{lines[0]} — {' '.join(notes)}", *lines[1:]]
    return lines + notes


def _risk(state: AssessmentState, task: Task, missing: list[str]) -> Literal["low", "medium", "high"]:
    qualified = bool(task.outputs.data_gaps) and not task.outputs.statistics
    if qualified or gather(state, task).missing_required or task.status == "failed":
        return "high"
    return "medium" if missing else "low"


def _collection_answer(collection: str) -> str:
    if collection == "fleet":
        return ("Back to the fleet: from now on this conversation answers about the managed network (its latest "
                "assessment, all its sites). Nothing was run yet; ask your question.")
    return (f"From now on this conversation answers about the collection **{collection}** (your uploaded "
            "configurations): \"latest\" and \"previous\" mean its assessments, and every answer's scope line names "
            "it. Say \"back to the fleet\" to switch back. Nothing was run yet; ask your question.")


def _preference_answer(prefs: dict[str, str]) -> str:
    removed = [k for k, v in prefs.items() if not v]
    if removed:
        names = " and ".join({"top_n": "your top-N preference", "default_site": "your default site"}[k] for k in removed)
        return f"Done: I removed {names}."
    said = []
    if prefs.get("top_n"):
        said.append(f"show the top {prefs['top_n']} items when you don't ask for a number")
    if prefs.get("default_site"):
        said.append(f"scope questions to {prefs['default_site']} when you don't name a site or device")
    return ("Noted: from now on I'll " + " and ".join(said) + ". You'll see it in the steps of each answer; say "
            "\"forget my preferences\" to undo.")


CANNOT = {
    "live_state": ("I can't see live or operational state — reachability, CPU and memory, interface counters, "
                   "neighbours, sessions, clients or traffic: I only have the devices' configurations, the assessment "
                   "results, SLIC matches and logged events of each assessment run."),
    "licensing": ("I don't have licensing or support-contract data: the warehouse holds configurations, "
                  "assessment results, SLIC matches and events, not licences or contracts."),
    "action": ("I can't act on the network or on other systems — no tickets, pushed changes, reboots, messages or "
               "new scans: I read assessments and explain them."),
    "off_topic": ("That is outside what I know: I answer questions about your network's configuration "
                  "best-practice and security assessments and your company's network standards."),
}
CAN_INSTEAD = ("What I can do instead: show the findings, evidence and fix commands for a device or site (\"what does "
               "{target} fail and how do I fix it?\"), list the devices a finding affects, or quote the standard "
               "that applies.")


def _cannot_answer(state: AssessmentState, example: str) -> Final:
    frame = state.intent.frame
    target = (frame.targets.device or frame.filters.site or [example])[0]
    text = CANNOT.get(frame.cannot or "off_topic", CANNOT["off_topic"])
    instead = CAN_INSTEAD.format(target=target)
    if frame.cannot == "live_state" and frame.checks:  # "can FW-HQ-1 reach the syslog server?": how it is set up
        checks = ", ".join(frame.checks[:3])
        named = frame.targets.device or frame.filters.site
        kind = " ".join([*frame.filters.site_type[:1], *(f"{t}s" for t in frame.filters.device_type[:1])]) or "devices"
        ask = f"does {named[0]} pass {checks}?" if named else f"which {kind} fail {checks}?"
        instead = (f"What the configuration can tell is whether {'it is' if named else 'they are'} set up for it — "
                   f"ask \"{ask}\" — or: " + instead.removeprefix("What I can do instead: "))
    return Final(answer=f"{text}\n\n{instead}", missing_inputs=[f"not answerable: "
                 f"{frame.cannot or 'off_topic'}"], partial=True, risk_of_error="low")


def compose(state: AssessmentState, example: str = "<site or device>") -> Final:
    """The answer of the turn. ``example``: a site of the inventory the asker may see, named where the answer offers
    what it can do instead."""
    from orchestration.agents.intent_classifier import cannot_answer

    intent = state.intent
    if intent.meta_intent == "acknowledgement":
        return Final(answer="You're welcome. Ask me anything else about your assessments, or export this "
                            "conversation's trace from the chat.")
    if state.conversation.resolution == "preference":
        return Final(answer=_preference_answer(state.conversation.new_preferences))
    if state.conversation.resolution == "collection":
        return Final(answer=_collection_answer(state.conversation.collection))
    if state.conversation.resolution == "scope_reset":
        where = "the fleet" if (state.conversation.collection or "fleet") == "fleet" else \
            f"the collection **{state.conversation.collection}**"
        return Final(answer=f"Filters cleared: the next question is about all of {where} (its latest assessment), "
                            "with nothing carried from the answers before. Nothing was run; ask your question.")
    if intent.meta_intent == "cancellation":
        return Final(answer="Okay, cancelled. Nothing was run; ask a new question whenever you are ready.")
    if cannot_answer(intent):
        return _cannot_answer(state, example)
    if intent.intent_class == "unknown_or_needs_clarification":
        return Final(answer=intent.clarification_question or "Could you tell me what you would like to know?")
    task = state.plan.domain_task()
    if task is None:
        return Final(answer="No plan was executed for this question.", partial=True, risk_of_error="high",
                     missing_inputs=["plan"])
    out = task.outputs
    cites = _Citations(state)
    scope = _covered(state)
    summary = out.summary or "No summary was produced."
    generic = out.enterprise_context_applied
    if CITE_MARK.search(summary):  # each document cited where its words stand
        summary = CITE_MARK.sub(lambda m: (" " + mark) if (mark := cites.cite(m.group(1))) else "", summary)
    elif generic:
        summary = place_markers(summary, " ".join(filter(None, (cites.cite(e.chunk_id, e.source) for e in generic))))
    header = _header(state, scope)
    parts = [*(f"{h}\n" for h in header), summary]
    findings = out.findings
    risks = out.prioritized_risks
    # answers in proportion (issue 52): what was asked and nothing else — the fixes in order, the offending lines and the
    # assumptions only when asked (or one line offering them); a question put as a query has its rows only
    brief = intent.query is not None and not findings
    asks = intent.facets
    device_answer = bool(intent.entity("device"))
    wants_actions = intent.frame.ask == "fix" or asks.actions_asked
    wants_evidence = asks.evidence or asks.lines_asked or (device_answer and len(findings) <= 12)
    # a figure or a list put as a query ("pass rate at HQ?", "which devices run 16.12.4?"): what was asked, and one line
    # offering the findings behind it
    query = intent.asked_query
    figure = query is not None and query.output in ("value", "change") and asks.figure_asked
    # "what's failing at Branch-07" asks for the failing checks (its query lists them): the findings are the answer
    checks_listed = query is not None and query.group_by == ["rule"]
    unasked = query is not None and findings and not (wants_actions or wants_evidence) and (
        figure or not (asks.findings_asked or checks_listed))
    # "does it cover RTR-CORE-1?": a verdict on an exception — its lead and its checks, no findings or fixes unasked
    verdict = intent.frame.ask == "exception" and findings and not (
        wants_actions or asks.evidence or asks.lines_asked or asks.findings_asked)
    if verdict:
        parts += ["", "Ask \"what fails there?\" for the findings behind it, or for the fixes in order."]
        findings, risks = [], []
    if unasked and not verdict:
        if query.output == "value":  # type: ignore[union-attr]  # unasked: a query
            parts = [*(f"{h}\n" for h in header), summary.split("\n\n")[0]]
        parts += ["", "Ask \"what fails there?\" for the failing checks behind it, or for the fixes in order."]
        findings, risks = [], []
    if risks and len(findings) > 1 and wants_actions:
        first = ["**What to do first**", ""] + [
            f"{r.rank}. {r.rule_id} — {r.title} ({r.severity}, {devices(r.assets_affected)}): `{_cell(r.action, 80)}`"
            for r in risks[:5]]
        if asks.first_asked:  # "what should we fix first at Store-50": that is the answer's lead
            top = [r for r in risks if r.severity == risks[0].severity][:3]
            lead = (f"**Fix first:** {', '.join(r.rule_id for r in top)} ({risks[0].severity}); then the order "
                    "below, most severe and most widespread first.")
            parts = [*(f"{h}\n" for h in header), lead, "", *first, "", summary]
        else:
            parts += ["", *first]
    if findings:
        parts += _findings_table(findings, cites, whole=device_answer)
        if wants_evidence or (wants_actions and (device_answer or len(findings) <= 3)):
            parts += _device_evidence(findings, several=not device_answer)
        elif not wants_actions:
            parts += ["", f"Ask for the fixes in order (\"what should I fix first?\") or a finding's evidence and fix "
                          f"(\"how do I fix {findings[0].id}?\")."]
    if out.asset_trend:
        parts += ["", "**Devices that changed**", "", "| Device | Direction | Change in failed checks |", "|---|---|---|"]
        parts += [f"| {a.asset_id} | {a.direction} | {a.issues_delta:+d} |" for a in out.asset_trend[:12]]
    parts += _extension_tables(state)
    if out.chart_hints and not brief:
        parts += ["", "Charts: " + "; ".join(c.title for c in out.chart_hints) + " (shown below the answer)."]
    applied = [(e, f.id) for f in findings for e in f.enterprise_context_applied]
    if applied:
        parts += ["", "**Enterprise context applied**", ""]
        seen: set[str] = set()
        for e, fid in applied:
            key = e.chunk_id or e.source
            if key in seen:
                continue
            seen.add(key)
            parts.append(f"- {cites.cite(e.chunk_id, e.source)} {e.title or e.source} "
                         f"({e.topic}), for {fid}: {_cell(e.content_excerpt, 200)}")
    assumed = [*out.exposure_assumptions, *dict.fromkeys(out.assumptions)] if not brief else []
    if assumed:  # said in one paragraph: what the answer rests on, not a section longer than the answer
        parts += ["", "*Assumed:* " + " · ".join(_first_sentence(a) for a in assumed)]
    missing = list(dict.fromkeys(out.data_gaps))
    covered = " ".join(missing)
    missing += [f"{t.owner}: {t.error}" for t in state.plan.tasks
                if t.status == "failed" and t.error and t.owner not in covered and t.error not in covered]
    if missing:
        parts += ["", "**Not available for this answer**", ""] + [f"- {m}" for m in missing]
    if intent.facets.export:
        parts += ["", "To download this as a report, use **Export trace** in the chat (JSON with every step, or a "
                      "Markdown report), or run `assess trace export --thread <id> --format md`."]
    if cites.used:
        parts += ["", "**Sources**", ""] + [f"{c.label}{f' v{c.version}' if c.version else ''} — {c.topic} (relevance {c.relevance_score})"
                                            for c in cites.used]
    if state.conversation.documents and state.plan.task_for("Knowledge Agent"):
        parts += ["", "*Documents: this conversation cites only "
                      f"{', '.join(map(shown_document, state.conversation.documents))}.*"]
    risk = _risk(state, task, missing)
    answer = "\n".join(parts)
    words = cited_words(answer)
    cited = [c.model_copy(update={"quoted": words.get(c.number, [])}) for c in cites.used]
    return Final(answer=answer, scope=scope, citations=cited, missing_inputs=missing, risk_of_error=risk,
                 partial=bool(missing) or task.status != "completed" or risk == "high")


def narrate(state: AssessmentState, draft: Final, services: Services) -> Final:
    """With an LLM configured, let it rewrite the opening summary in the voice of the domain agent's contract
    persona; keep it only if every number and citation in it still traces back to the data (the reflector's
    check), else keep the deterministic text."""
    from orchestration import llm
    from orchestration.agents.reflector import check

    task = state.plan.domain_task()
    summary = task.outputs.summary if task else ""
    model = services.chat_model()
    if task is None or not summary or summary not in draft.answer or "```" in summary or model is None:
        return draft
    persona = services.contracts.agent(task.owner).persona.strip()
    text = llm.ask(model, f"You are {persona[0].lower() + persona[1:]}\n\nRewrite this answer for a network engineer in "
                   "clear prose. Keep every number, identifier and citation marker exactly as written; add no facts."
                   "\n\nQuestion: " + state.input.user_prompt + "\n\nAnswer: " + summary)
    if not text:
        return draft
    candidate = draft.evolve(answer=draft.answer.replace(summary, text.strip(), 1))
    unverified, bad = check(state, candidate)
    return draft if unverified or bad else candidate


def _example_site(state: AssessmentState, services: Services) -> str:
    """A site of the inventory to name in an example question (the first by name); a placeholder without one."""
    from orchestration.agents.intent_classifier import cannot_answer

    if not cannot_answer(state.intent):  # read only where an answer offers what it can do instead
        return "<site or device>"
    sites = sorted(services.names(state.input.user_id).sites.values())
    return sites[0] if sites else "<site or device>"


def run(state: AssessmentState, services: Services) -> StateUpdate:
    return {"final": narrate(state, compose(state, _example_site(state, services)), services)}


def summarize(update: StateUpdate) -> str:
    final: Final = update["final"]
    flags = f" (partial; {len(final.missing_inputs)} missing inputs)" if final.partial else ""
    return f"{len(final.answer)} characters, {len(final.citations)} citations{flags}"
