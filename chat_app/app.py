"""Chainlit entry point (``assess serve``). Handlers only translate chat events into runtime calls
and render what comes back; all logic lives in ``orchestration`` and is tested without a browser."""

from __future__ import annotations

import asyncio
import os
import threading

import chainlit as cl

from chat_app.rendering import NODE_LABELS, final_notes, json_block, plan_table
from orchestration.runtime import TurnEvent, iter_turn
from orchestration.state import AssessmentState, Plan

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@cl.set_starters
async def starters(user: object = None, language: str | None = None) -> list[cl.Starter]:
    return [
        cl.Starter(label="Latest assessment summary",
                   message="Summarize my latest configuration best practice assessment, top 5 issues."),
        cl.Starter(label="What got worse?", message="Which assets got worse since the previous assessment?"),
        cl.Starter(label="Security posture", message="Assess the security posture of our DataCenter-1 infrastructure."),
        cl.Starter(label="Our SNMPv3 standard",
                   message="How should I configure SNMPv3 according to our company standards?"),
    ]


def _run_in_thread(prompt: str, thread_id: str, user_id: str, loop: asyncio.AbstractEventLoop,
                   queue: asyncio.Queue[TurnEvent | AssessmentState | None]) -> None:
    try:
        for item in iter_turn(prompt, thread_id=thread_id, user_id=user_id):
            loop.call_soon_threadsafe(queue.put_nowait, item)
    finally:
        loop.call_soon_threadsafe(queue.put_nowait, None)


async def _render_event(event: TurnEvent, parent_id: str) -> None:
    label = NODE_LABELS.get(event.node)
    if label is None:  # dispatch: scheduling only, not a step of its own
        return
    async with cl.Step(name=label, type="tool", parent_id=parent_id, default_open=False) as step:
        step.input = ", ".join(event.task_ids) or event.node
        body = event.summary or "done"
        plan = event.update.get("plan")
        if event.node == "planner" and isinstance(plan, Plan):
            body += "\n\n" + plan_table(plan)
        elif isinstance(plan, Plan) and plan.tasks:
            body += "\n\n" + json_block(plan.tasks[0].outputs)
        step.output = body


@cl.on_message
async def on_message(message: cl.Message) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[TurnEvent | AssessmentState | None] = asyncio.Queue()
    thread_id = cl.context.session.thread_id
    user = cl.user_session.get("user")
    user_id = getattr(user, "identifier", None) or "local"
    threading.Thread(target=_run_in_thread, args=(message.content, thread_id, user_id, loop, queue),
                     daemon=True).start()
    final_state: AssessmentState | None = None
    async with cl.Step(name="Assessment graph", type="run", default_open=True) as turn_step:
        turn_step.input = message.content[:500]
        while (item := await queue.get()) is not None:
            if isinstance(item, AssessmentState):
                final_state = item
            else:
                await _render_event(item, turn_step.id)
        turn_step.output = " → ".join(final_state.trace.node_run_order) if final_state else "no result"
    if final_state is None:
        await cl.Message(content="Sorry, the turn produced no answer. Please try again.").send()
        return
    await cl.Message(content=final_state.final.answer + final_notes(final_state)).send()
