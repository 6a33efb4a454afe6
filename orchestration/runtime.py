"""The plain API every front end uses: ``handle_turn`` runs one turn through the graph.

The runtime loads the thread's bounded context from memory (recent turns, running summary, the user's
preferences and self-corrections), runs the graph, and stores the completed turn in one transaction —
a crash mid-turn loses at most that turn. ``iter_turn`` yields a ``TurnEvent`` per node as it finishes
(the chat UI streams these as steps) and finally the turn's STATE. Errors never escape as tracebacks:
the turn ends with an answer that says what went wrong, and the exception is logged.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from assessment_engine.checks.pasted_lines import judge_lines
from assessment_engine.query import DataQuery
from foundation.database import DatabaseUnavailable
from foundation.secrets import mask_line, mask_prompt
from foundation.yaml_files import ContractError
from knowledge_base.embeddings import EmbeddingUnavailable
from orchestration.agents.context_pruner import fold
from orchestration.graph import build_graph
from orchestration.memory.store import WINDOW, MemoryStore, MemoryUnavailable, unusable
from orchestration.nlu.two_questions import asks_other_places, points_back, split_questions
from orchestration.services import Services, build_services
from orchestration.state import (
    AssessmentState,
    Conversation,
    Entity,
    Final,
    FindingDigest,
    Mcp,
    NameResolution,
    PastedLine,
    PastTurn,
    QuestionFrame,
    TurnInput,
    utc_now,
)
from orchestration.tools.results import SqlPathResult, result_of

log = logging.getLogger(__name__)
RECURSION_LIMIT = 60


@dataclass(frozen=True)
class TurnEvent:
    """One node finished: its name, the STATE fields it returned, and the trace summary."""

    node: str
    update: dict[str, Any]
    summary: str = ""
    task_ids: list[str] = field(default_factory=list)
    # the update's SQL statements laid out for reading, by a turn worker: parsing them (2–20 ms each) on the chat
    # server's event loop held up every other conversation
    sql_layouts: dict[str, str] = field(default_factory=dict)

    def statements(self) -> list[str]:
        mcp = self.update.get("mcp")
        return [q for call in (mcp.tool_calls if isinstance(mcp, Mcp) else []) for q in call.queries]


def _past(row: dict[str, Any]) -> PastTurn:
    return PastTurn(turn_number=row["turn_number"], prompt=row["prompt"], intent_class=row["intent_class"],
                    skill=row["skill"], meta_intent=row["meta_intent"],
                    entities=[Entity.model_validate(e) for e in row["entities"]], findings=[FindingDigest.model_validate(f) for f in row["findings"] or []],
                    answer_excerpt=(row["answer"] or "")[:300],
                    name_resolutions=[NameResolution.model_validate(r) for r in row.get("name_resolutions") or []],
                    answer_devices=list(row.get("answer_devices") or []),
                    frame=QuestionFrame.model_validate(row["frame"]) if row.get("frame") else None,
                    query=DataQuery.model_validate(row["query"]) if row.get("query") else None,
                    answer_rows=list(row.get("answer_rows") or []), asked=row.get("asked") or "",
                    answer_figures=list(row.get("answer_figures") or []))


def load_conversation(store: MemoryStore, thread_id: str, user_id: str) -> Conversation:
    rows = store.recent_turns(thread_id, WINDOW)
    return Conversation(thread_id=thread_id, turn_number=(rows[-1]["turn_number"] + 1) if rows else 1,
                        history=[_past(r) for r in rows], summary=store.summary(thread_id),
                        preferences=store.preferences(user_id), corrections=store.corrections(user_id),
                        collection=store.thread_collection(thread_id) or "fleet",
                        documents=store.thread_documents(thread_id))


def _findings_digest(state: AssessmentState) -> list[dict[str, Any]]:
    task = state.plan.domain_task()
    if task is None:
        return []
    return [FindingDigest(id=f.id, rule_id=f.rule_id, title=f.title, severity=f.severity,
                          entities_referenced=f.entities_referenced[:50]).model_dump() for f in task.outputs.findings]


def answer_devices(state: AssessmentState) -> list[str]:
    """The devices an answer enumerated completely — a list or ranking of devices (``statistics.devices_listed``),
    or the SQL path's rows when the row cap did not cut them — so that "fix those devices" or "what do those fail?"
    mean exactly them; empty for every other answer."""
    task = state.plan.domain_task()
    listed = task.outputs.statistics.get("devices_listed") if task else None
    if listed:  # in the order the answer showed them ("the first device on that list")
        return [str(d) for d in listed]
    context = state.task_outputs("Data Query Agent").assessment_context
    report = result_of(context.report_data, SqlPathResult) if context else None
    if report is None or "asset_id" not in report.columns or report.row_cap_reached:
        return []
    # every template with devices names them asset_id; in the rows' order ("the second one" of a ranking is its second)
    return list(dict.fromkeys(str(r["asset_id"]) for r in report.rows))


# a dimension's column in the rows of the frame's own templates, where it is not named as the dimension
ROW_COLUMNS = {"device": "asset_id", "release": "os_version", "rule": "rule_id", "signature": "signature_id"}


def answer_rows(state: AssessmentState) -> list[str]:
    """The keys of the rows an answer showed, in its order — the first dimension its query grouped by — so that "the
    third one" or "the worst one" is that row; empty when the answer was no list of one kind of thing."""
    query = state.intent.asked_query
    if query is None or not query.group_by:
        return []
    task = state.plan.domain_task()
    shown = task.outputs.statistics.get("rows_listed") if task else None
    if shown:  # a query's answer: in the order it showed them
        return [str(s) for s in shown]
    if query.group_by == ["device"] and (listed := answer_devices(state)):
        return listed
    report = _compiled_rows(state)
    dim = query.group_by[0]
    if dim == "device" and len(query.group_by) == 2 and not query.measures:
        dim = query.group_by[1]  # a lookup ("what release is RTR-CORE-2 on"): its values are what "that" names
    if report is None and dim == "rule" and task is not None:
        # checks ranked by the assessment tools: their findings, in the order the answer gave them
        return list(dict.fromkeys(f.rule_id for f in task.outputs.findings if f.rule_id))[:100]
    if report is None:
        return []
    column = next((c for c in (dim, ROW_COLUMNS.get(dim), "group_key") if c in report.columns), None)
    if column is None:  # group_key: the frame's comparison template, one row per group in the order it showed
        return []
    return list(dict.fromkeys(str(r[column]) for r in report.rows if r.get(column) is not None))[:100]


def _compiled_rows(state: AssessmentState) -> SqlPathResult | None:
    """The rows the turn's compiled query returned (the Data Query Agent's report), or None."""
    context = state.task_outputs("Data Query Agent").assessment_context
    return result_of(context.report_data, SqlPathResult) if context else None


def answer_figures(state: AssessmentState, rows: list[str]) -> list[float | None]:
    """Each row's figure, beside the keys ``rows`` (the first measure of the query that showed them); empty when the
    answer had no such figure for them."""
    query = state.intent.asked_query
    report = _compiled_rows(state)
    if not rows or query is None or not query.group_by or not query.measures or report is None:
        return []
    dim, measure = query.group_by[0], query.measures[0]
    column = next((c for c in (dim, ROW_COLUMNS.get(dim)) if c in report.columns), None)
    if column is None or measure not in report.columns:
        return []
    figures = {str(r[column]): r.get(measure) for r in report.rows if r.get(column) is not None}
    return [float(v) if isinstance(v, int | float) else None for v in (figures.get(k) for k in rows)]


def save_turn(store: MemoryStore, state: AssessmentState, started: str, seconds: float) -> int:
    conv = state.conversation
    for key, value in conv.new_preferences.items():
        if value:
            store.set_preference(state.input.user_id, key, value)
        else:
            store.remove_preference(state.input.user_id, key)
    for c in conv.new_corrections:
        store.add_correction(state.input.user_id, c["entity_type"], c["wrong"], c["right"])
    if conv.new_collection:
        store.set_thread_collection(state.input.thread_id, conv.new_collection)
    intent = state.intent
    # a fix or an explanation of the last answer's rows asks no query of its own: the conversation's query and rows
    # stay those of the last answer ("which firewalls fail X" → "how do i fix it" → "are any of those in pci scope")
    last = conv.history[-1] if conv.history else None
    kept = last if last is not None and intent.asked_query is None and intent.frame.ask in ("fix", "explain") and \
        conv.resolution in ("carryover", "same_devices", "device_reference", "finding_reference") else None
    query = intent.asked_query if kept is None else kept.query
    shown = answer_rows(state)
    return store.save_turn({
        "thread_id": state.input.thread_id, "user_id": state.input.user_id, "prompt": state.input.user_prompt,
        "intent_class": intent.intent_class, "meta_intent": intent.meta_intent, "skill": intent.domain_details.skill,
        "scope": intent.domain_details.scope.model_dump(), "entities": [e.model_dump() for e in intent.entities],
        "plan": state.plan.model_dump(mode="json"), "answer": state.final.answer, "findings": _findings_digest(state),
        "state": state.model_dump_json(), "started_at": started, "finished_at": utc_now(),
        "duration_ms": round(seconds * 1000, 1),
        "name_resolutions": [r.model_dump() for r in intent.name_resolutions],
        "answer_devices": answer_devices(state) or (kept.answer_devices if kept is not None else []),
        "frame": intent.frame.model_dump(),
        "query": query.model_dump() if query is not None else None,
        "answer_rows": shown or (kept.answer_rows if kept is not None else []),
        "answer_figures": answer_figures(state, shown) if shown else (kept.answer_figures if kept is not None else []),
        "asked": conv.effective_prompt or None,
    }, fold=fold)


def _refusal(state: AssessmentState, text: str) -> AssessmentState:
    return state.evolve(final=Final(answer=text, partial=True, risk_of_error="high",
                                                   missing_inputs=["access to this conversation"]))


def _cannot_answer(state: AssessmentState, exc: Exception) -> AssessmentState:
    return state.evolve(final=Final(
        answer=f"I cannot answer right now: {exc}. Nothing was changed; an administrator needs to fix this.",
        partial=True, risk_of_error="high", missing_inputs=[str(exc)[:200]]))


def turn_graph(services: Services) -> Any:
    """The turn graph over ``services``, compiled on the first turn and kept with them."""
    return services.kept("graph", build_graph)


def iter_turn(prompt: str, thread_id: str | None = None, user_id: str = "local", raise_errors: bool = False,
              services: Services | None = None) -> Iterator[TurnEvent | AssessmentState]:
    """Run one turn over ``services``, yielding node events as they happen and the final STATE last. A front end
    passes the services it built at start (a process keeps one); without them the turn builds its own from the
    current settings — loading the model, a second or more: a caller that asks more than once passes services.

    Two questions typed as one ("which site is worst and what fails there most") are asked in order, each a turn of
    the conversation (the second reads the first's answer); the final STATE is the second's, its answer both."""
    thread_id = thread_id or f"t-{uuid.uuid4().hex[:12]}"
    parts = split_questions(prompt) if isinstance(prompt, str) and "\n" not in prompt.strip() else [prompt]
    if len(parts) == 1 or services is None or not _owned_by(services, thread_id, user_id):
        yield from _one_turn(prompt, thread_id, user_id, raise_errors, services)
        return
    answered: list[AssessmentState] = []
    for part in parts:
        asked = part
        if answered and not points_back(part) and not asks_other_places(part):
            # "pass rate at HQ and how many critical findings": the second asks where the first did ("there")
            places = [e for e in answered[0].intent.entities if e.type in ("site", "device")
                      and e.source in ("explicit", "inventory")]
            asked = f"{part.rstrip(' ?')} there?" if len(places) == 1 else part
        for item in _one_turn(asked, thread_id, user_id, raise_errors, services):
            if isinstance(item, AssessmentState):
                answered.append(item)
            else:
                yield item
    first, last = answered[0], answered[-1]
    # the second answer's sources numbered after the first's: one list of citations for the one message
    offset = max((c.number for c in first.final.citations), default=0)
    second = re.sub(r"\[(\d+)\]", lambda m: f"[{int(m.group(1)) + offset}]", last.final.answer) if offset else \
        last.final.answer
    cited = [*first.final.citations, *(c.model_copy(update={"number": c.number + offset})
                                       for c in last.final.citations)]
    both = f"{first.final.answer}\n\n---\n\n**{parts[1]}**\n\n{second}"
    yield last.evolve(final=last.final.evolve(answer=both, citations=cited))


def _owned_by(services: Services, thread_id: str, user_id: str) -> bool:
    """Whether the thread is new or the user's own (another's is refused once, not per question)."""
    try:
        return services.memory().thread_owner(thread_id) in (None, user_id)
    except Exception:  # noqa: BLE001 — no memory: the turn itself says so
        return False


def _one_turn(prompt: str, thread_id: str, user_id: str, raise_errors: bool,
              services: Services | None) -> Iterator[TurnEvent | AssessmentState]:
    typed = prompt if isinstance(prompt, str) else ""
    # a configuration line pasted into the question keeps its secrets out of STATE, memory, traces and answers
    prompt = mask_prompt(typed)
    started, t0 = utc_now(), time.perf_counter()
    state = AssessmentState(input=TurnInput(user_prompt=prompt, thread_id=thread_id, user_id=user_id),
                            conversation=Conversation(thread_id=thread_id))
    if services is None:
        try:
            services = build_services()
        except ContractError as exc:  # the installation, not the question
            if raise_errors:
                raise
            log.error("turn failed: %s", exc)
            yield _cannot_answer(state, exc)
            return
    memory_problem = ""
    try:
        store: MemoryStore | None = services.memory()
    except MemoryUnavailable as exc:  # answer without the conversation's history, and say so
        if raise_errors:
            raise
        log.error("%s", exc)
        store, memory_problem = None, str(exc)
    if store is not None:
        try:
            owner = store.thread_owner(thread_id)
            conversation = load_conversation(store, thread_id, user_id) if owner in (None, user_id) else None
        except DatabaseUnavailable as exc:  # e.g. the PostgreSQL server went away after the store was opened
            if raise_errors:
                raise
            log.error("%s", exc)
            store, memory_problem, owner, conversation = None, str(unusable(exc)), None, None
        if owner is not None and owner != user_id:
            yield _refusal(state, "This conversation belongs to another user; start a new conversation instead.")
            return
        if conversation is not None:
            state = state.evolve(conversation=conversation)
    # lines pasted to be judged are judged here, on what was typed: masked, "public" would be no community at all
    pasted = [PastedLine(line=mask_line(v.line), rule_id=v.rule.id, fails=v.fails, under=v.under)
              for v in judge_lines(typed, services.catalog.rules.rules)]
    if pasted:
        state = state.evolve(input=state.input.evolve(pasted_lines=pasted))
    values: Any = state
    try:
        for mode, chunk in turn_graph(services).stream(state, stream_mode=["updates", "values"],
                                              config={"recursion_limit": RECURSION_LIMIT}):
            if mode == "values":
                values = chunk
                continue
            for node, update in chunk.items():
                update = update or {}
                trace = update.get("trace")
                deltas = trace.state_deltas if trace is not None else []
                yield TurnEvent(node=node, update=update, summary="; ".join(d.summary for d in deltas),
                                task_ids=[d.task_id for d in deltas if d.task_id])
        final_state = values if isinstance(values, AssessmentState) else AssessmentState.model_validate(values)
    except (EmbeddingUnavailable, ContractError) as exc:  # the installation, not the question: say what is wrong
        if raise_errors:
            raise
        log.error("turn failed: %s", exc)
        final_state = _cannot_answer(state, exc)
    except Exception as exc:
        if raise_errors:
            raise
        log.exception("turn failed")
        final_state = state.evolve(final=Final(
            answer=f"Sorry, something went wrong while answering ({type(exc).__name__}). Nothing was changed; "
                   "please try again or rephrase. The error has been logged.",
            partial=True, risk_of_error="high", missing_inputs=["internal error"]))
    if store is None:
        final_state = final_state.evolve(final=final_state.final.evolve(
            answer=final_state.final.answer + f"\n\n*Without conversation memory: {memory_problem}. This answer "
                                              "does not use earlier turns and is not saved.*"))
        yield final_state
        return
    try:
        number = save_turn(store, final_state, started, time.perf_counter() - t0)
        final_state = final_state.evolve(conversation=final_state.conversation.evolve(turn_number=number))
    except Exception as exc:  # memory is best effort for the answer: the user still gets it, the failure is logged
        if raise_errors:
            raise
        log.exception("could not store the turn")
        if isinstance(exc, DatabaseUnavailable):  # a lost database is said, not hidden: follow-ups will not see it
            final_state = final_state.evolve(final=final_state.final.evolve(
                answer=final_state.final.answer + f"\n\n*Not saved to the conversation memory: {unusable(exc)}. "
                                                  "A follow-up question will not know this answer.*"))
    yield final_state


def handle_turn(prompt: str, thread_id: str | None = None, user_id: str = "local", raise_errors: bool = False,
                services: Services | None = None) -> AssessmentState:
    """Run one turn and return its final STATE (a new thread when ``thread_id`` is None)."""
    result: AssessmentState | None = None
    for item in iter_turn(prompt, thread_id, user_id, raise_errors, services):
        if isinstance(item, AssessmentState):
            result = item
    assert result is not None
    return result
