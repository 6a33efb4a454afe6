"""The plain API every front end uses: ``handle_turn`` runs one turn through the graph.

``iter_turn`` yields a ``TurnEvent`` per node as it finishes (the chat UI streams these as steps)
and finally the turn's STATE. Errors never escape as tracebacks: the turn ends with an answer that
says what went wrong, and the exception is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from orchestration.graph import get_graph
from orchestration.state import AssessmentState, Conversation, Final, TurnInput

log = logging.getLogger(__name__)
RECURSION_LIMIT = 60


@dataclass(frozen=True)
class TurnEvent:
    """One node finished: its name, the STATE fields it returned, and the trace summary."""

    node: str
    update: dict[str, Any]
    summary: str = ""
    task_ids: list[str] = field(default_factory=list)


def initial_state(prompt: str, thread_id: str, user_id: str, context_kv: dict[str, str] | None = None) -> AssessmentState:
    return AssessmentState(
        input=TurnInput(user_prompt=prompt, thread_id=thread_id, user_id=user_id, context_kv=context_kv or {}),
        conversation=Conversation(thread_id=thread_id),
    )


def iter_turn(prompt: str, thread_id: str = "default", user_id: str = "local",
              raise_errors: bool = False) -> Iterator[TurnEvent | AssessmentState]:
    """Run one turn, yielding node events as they happen and the final STATE last."""
    state = initial_state(prompt if isinstance(prompt, str) else "", thread_id, user_id)
    values: Any = state
    try:
        for mode, chunk in get_graph().stream(state, stream_mode=["updates", "values"],
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
    except Exception as exc:
        if raise_errors:
            raise
        log.exception("turn failed")
        final_state = state.model_copy(update={"final": Final(
            answer=f"Sorry, something went wrong while answering ({type(exc).__name__}). Nothing was changed; "
                   "please try again or rephrase. The error has been logged.",
            partial=True, risk_of_error="high", missing_inputs=["internal error"])})
    yield final_state


def handle_turn(prompt: str, thread_id: str = "default", user_id: str = "local",
                raise_errors: bool = False) -> AssessmentState:
    """Run one turn and return its final STATE."""
    result: AssessmentState | None = None
    for item in iter_turn(prompt, thread_id, user_id, raise_errors):
        if isinstance(item, AssessmentState):
            result = item
    assert result is not None
    return result
