"""Chainlit entry point (``assess serve``). Handlers translate chat events into calls of the plain
runtime, ingestion and assessment APIs, and render what comes back: one collapsible step per graph
node as it runs (the plan as a table, each task's inputs and full outputs), the answer with citation
chips, Plotly charts and export actions. All logic lives in ``orchestration`` and ``knowledge_base``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import chainlit as cl
from chainlit.config import config as chainlit_config
from chainlit.server import app as chainlit_app
from chainlit.types import ThreadDict

from assessment_engine.warehouse.sql_text import pretty_sql
from chat_app import commands
from chat_app import step_views as views
from chat_app.auth import LOCAL_USER, check_password, install_local_sign_in
from chat_app.charts import PlotlyChart, chart_json, figure
from chat_app.files_dir import install_upload_guards, take_raw_upload
from chat_app.history_quota import HistoryQuota, Reckoning
from chat_app.offline import install as install_offline_page
from chat_app.persistence import make_data_layer
from chat_app.rendering import final_notes, highlighted, linked_markers, node_label
from chat_app.security import CLIENT_ADDRESS, SIGN_IN, request_token
from chat_app.security import install as install_guards
from chat_app.server_parts import ServerParts, build_parts
from chat_app.sessions import close_sockets_of, expiry_of, install_revocation
from chat_app.steps import made, skip_chainlits_sleep
from chat_app.storage import add_route
from chat_app.uploads import (
    Progress,
    add_cancel_route,
    classify_upload,
    interrupted_report,
    pending_note,
)
from foundation.config import get_settings
from knowledge_base.ingest import owned_name
from orchestration.csv_export import answer_tables, has_tables
from orchestration.memory.store import PENDING
from orchestration.nlu.followups import CLEAR_FILTERS
from orchestration.nlu.meta_intent import about_upload, is_file_handoff, overlong
from orchestration.nlu.query_edits import narrowed_by_follow_ups
from orchestration.outputs import ChartHint, ChartSeries
from orchestration.runtime import TurnEvent, iter_turn
from orchestration.services import Services
from orchestration.state import AssessmentState, Mcp, Plan
from orchestration.turn_pool import TurnPool, warm_up

os.environ.setdefault("HF_HUB_OFFLINE", "1")
log = logging.getLogger(__name__)
SETTINGS = get_settings()


# Everything the server keeps, built once from the settings (chat_app/server_parts.py); nothing slow is loaded here.
chainlit_app.state.parts = build_parts(SETTINGS)


def parts() -> ServerParts:
    """What this server keeps for its life (kept on the web app's state)."""
    kept: ServerParts = chainlit_app.state.parts
    return kept


def turn_pool() -> TurnPool | None:
    """The app's turn workers (started with the app), or None."""
    return parts().turn_pool


def app_services() -> Services:
    """The services of this server's own work: its commands, document library and uploads, and its turns when it
    has no workers (each worker builds its own)."""
    return parts().services


# Turns run in worker processes (both cores), started with the app (``on_startup``), not when this module is
# imported (a test or a tool that imports it starts nothing); each loads the model, routes, index and graph while
# Chainlit already answers HTTP (the page first), and a question asked before one is ready waits for it under a
# visible "Starting" step. Without workers the server warms itself up before Chainlit binds the port.
if SETTINGS.turn_worker_count <= 0:
    warm_up(app_services())
add_route(chainlit_app, parts().elements)
install_guards(chainlit_app)
install_offline_page()
install_upload_guards()
skip_chainlits_sleep()
install_revocation(parts().revoked)
add_cancel_route(chainlit_app, parts().uploads, LOCAL_USER)


@cl.data_layer
def data_layer():  # type: ignore[no-untyped-def]
    return make_data_layer(SETTINGS.chat_history_url, parts().elements,
                           HistoryQuota(SETTINGS.memory_quota_mb * 1024 * 1024), tell_trimmed)


async def tell_trimmed(thread_id: str, done: Reckoning) -> None:
    """What the storage quota removed, said in the conversation whose write went over it."""
    parts_of = ([f"{len(done.deleted_threads)} older conversation(s) deleted"] if done.deleted_threads else []) + (
        [f"the text of {done.trimmed_steps} older step(s) of this conversation removed"] if done.trimmed_steps else [])
    with contextlib.suppress(Exception):  # told in a session; without one (a server-side write) it is only logged
        await cl.Message(content=f"Your stored conversations were over your {SETTINGS.memory_quota_mb} MB storage "
                                 f"quota: {' and '.join(parts_of)}. The latest answers are kept.").send()


if SETTINGS.auth_enabled:
    @cl.password_auth_callback
    async def login(username: str, password: str) -> cl.User | None:
        # backed off per name and address or trusted device (HTTP 429 with the wait), counted before it is checked
        sign_in = SIGN_IN.get() or {}
        throttle = parts().throttle
        ok = await throttle.check(username, CLIENT_ADDRESS.get(), sign_in.get("cookie"),
                                  lambda: check_password(username, password))
        if ok and "issue" in sign_in:  # this browser is now a trusted device of the user's (chat_app/sessions.py)
            sign_in["issue"] = throttle.device_cookie(username)
        return cl.User(identifier=username, metadata={"provider": "password"}) if ok else None

    # Chainlit's decorator wraps the callback so that any exception becomes "wrong password" (HTTP 401); the login
    # route calls it with (username, password), so the callback goes in unwrapped and its HTTP 429 reaches the user.
    chainlit_config.code.password_auth_callback = login
else:
    @cl.header_auth_callback
    async def local_user(headers: Any) -> cl.User | None:
        return cl.User(identifier=LOCAL_USER, metadata={"provider": "local"})

    install_local_sign_in(chainlit_app)


@cl.on_logout
async def logout(request: Any, response: Any) -> dict[str, bool]:
    """Sign-out ends the session everywhere: the token is revoked (cookie, bearer, websocket) and its sockets close."""
    token = request_token(request)
    if token:
        user = None
        with contextlib.suppress(Exception):
            import jwt

            user = jwt.decode(token, options={"verify_signature": False}).get("identifier")
        await cl.make_async(parts().revoked.revoke)(token, user, expiry_of(token))
        await close_sockets_of(token)
    return {"success": True}


def _user_id() -> str:
    user = cl.user_session.get("user")
    return getattr(user, "identifier", None) or LOCAL_USER


def _in_flight_key() -> str:
    """Whose questions in progress are counted against the limit: the signed-in user's (in all their tabs), or the
    session's when everyone is the one local user."""
    return _user_id() if SETTINGS.auth_enabled else cl.context.session.id


def _now() -> str:
    return datetime.now(UTC).isoformat()


@cl.set_starters
async def starters(user: object = None, language: str | None = None) -> list[cl.Starter]:
    return [
        cl.Starter(label="Latest assessment summary",
                   message="Summarize my latest configuration best practice assessment, top 5 issues."),
        cl.Starter(label="What got worse?", message="Which assets got worse since the previous assessment?"),
        cl.Starter(label="Security posture", message="Assess the security posture of our DataCenter-1 infrastructure."),
        cl.Starter(label="SLIC and our policies",
                   message="What do the SLIC findings for DataCenter-1 mean given our internal policies?"),
        cl.Starter(label="Our SNMPv3 standard",
                   message="How should I configure SNMPv3 according to our company standards?"),
        cl.Starter(label="Breakdown chart",
                   message="Show breakdown of configuration best practice deviations by severity, technology, and OS."),
    ]


@cl.on_chat_resume
async def on_chat_resume(thread: ThreadDict) -> None:
    """Nothing to restore: the conversation memory is keyed by the thread id, so follow-ups just work. An upload the
    server stopped during was reported in it when this server started (``report_uploads_cut_short``)."""
    return None


@cl.on_app_startup
async def on_startup() -> None:
    if turn_pool() is None and SETTINGS.turn_worker_count > 0:
        parts().turn_pool = TurnPool(SETTINGS.turn_worker_count, SETTINGS, wait_ready=False)
    # once the port is bound, in a thread: what the first answers would otherwise load on the event loop (Plotly's
    # template, the Markdown and SQL parsers) — a 50–200 ms stall of every conversation at the first chart
    warming = asyncio.get_running_loop().run_in_executor(None, warm_chat_layer)
    await report_uploads_cut_short()
    await warming
    freeze_what_lives_forever()


def freeze_what_lives_forever() -> None:
    """What is loaded by now (Chainlit, the web stack, the models, parsers and caches) lives as long as the process:
    moved out of the garbage collector's reach. Its full collections walked all of it — 150–210 ms in which the
    event loop stood still, every conversation's step waiting (the first step's p95 at 20 sessions) — and now walk
    only what conversations create. Without a collection first: one takes ~0.2 s here, before the page is served,
    for the little garbage made since the last one."""
    gc.freeze()


def warm_chat_layer() -> None:
    with contextlib.suppress(Exception):  # a warm-up: the first answer loads whatever this could not
        chart_json(figure(ChartHint(chart_type="bar", title="warm-up", labels=["a"],
                                    series=[ChartSeries(name="n", data=[1])], source_path="warm-up")))
        has_tables("| a |\n|---|\n| 1 |", 0)
        pretty_sql("SELECT 1 FROM results")  # a turn run in the server's threads (no pool) lays out its own


async def report_uploads_cut_short() -> None:
    """Uploads the previous server stopped during, reported in their conversations before anyone opens them: a
    message written to the thread's history (a message sent while a thread is being opened is replaced by the
    history Chainlit sends after it)."""
    from chainlit.data import get_data_layer

    layer, store = get_data_layer(), app_services().memory()  # no chat session here: plain threads, not cl.make_async
    try:
        pending = await asyncio.to_thread(store.pending_uploads, parts().started_at)
        # in a thread: opening the index loads the model, which must not hold up the event loop
        sources = await asyncio.to_thread(lambda: app_services().knowledge().index.sources()) if pending else []
        stored = {d["source"] for d in sources}
        for note in pending:
            text = interrupted_report(note["body"], stored)
            if layer is not None:  # unwrapped: Chainlit's wrapper looks for a chat session, and there is none yet
                message = {"id": str(uuid.uuid4()), "threadId": note["thread_id"], "name": chainlit_config.ui.name,
                           "type": "assistant_message", "output": text, "createdAt": _now(), "start": _now(),
                           "end": _now(), "streaming": False, "isError": False, "waitForAnswer": False}
                await type(layer).create_step.__wrapped__(layer, message)
            await asyncio.to_thread(store.update_note, note["thread_id"], note["seq"], "upload", "Upload interrupted", text)
    except Exception:  # a report is a courtesy: the server starts without it
        log.exception("could not report the uploads a server stop cut short")


def _run_in_thread(prompt: str, thread_id: str, user_id: str, loop: asyncio.AbstractEventLoop,
                   queue: asyncio.Queue[TurnEvent | AssessmentState | None]) -> None:
    try:
        for item in iter_turn(prompt, thread_id=thread_id, user_id=user_id, services=app_services()):
            loop.call_soon_threadsafe(queue.put_nowait, item)
    finally:
        loop.call_soon_threadsafe(queue.put_nowait, None)


class StepRenderer:
    """One Chainlit step per node, readable first (chat_app/step_views.py), with the node's time; task steps open
    when dispatch starts them and close when they finish, each with its complete JSON as a side element."""

    def __init__(self, root: cl.Step) -> None:
        self.root = root
        self.open: dict[str, cl.Step] = {}
        self.total_ms = 0.0

    async def event(self, event: TurnEvent) -> None:
        plan = event.update.get("plan")
        ms = views.node_ms(event.update, event.node)
        self.total_ms += ms
        if event.node == "dispatch":
            for task in (plan.tasks if isinstance(plan, Plan) else []):
                step = made(cl.Step, name=task.owner, type="tool", parent_id=self.root.id, default_open=False,
                            show_input="text")  # the input is a sentence, not JSON
                step.start = _now()
                step.input = f"{task.id} · {task.skill} — {task.description}" + (
                    f" (after {', '.join(task.depends_on)})" if task.depends_on else "")
                await step.send()
                self.open[task.id] = step
            return
        label = node_label(event.node, app_services().contracts)
        if isinstance(plan, Plan) and event.task_ids and plan.tasks:  # a task agent finished its task
            task = plan.tasks[0]
            opened = self.open.pop(task.id, None)
            step = opened or made(cl.Step, name=label, type="tool", parent_id=self.root.id)
            mcp = event.update.get("mcp")
            calls = [c for c in mcp.tool_calls if c.task_id in (None, task.id)] if isinstance(mcp, Mcp) else []
            name = f"{task.id} outputs (JSON)"
            step.output = views.task_view(task, calls, event.summary, ms, name, SETTINGS.warehouse_backend,
                                          event.sql_layouts)
            step.elements = [_json_element(name, {"task": task.model_dump(mode="json", exclude_unset=True),
                                                  "tool_calls": [c.model_dump(mode="json") for c in calls]})]
            step.end = _now()
            await (step.update() if opened is not None else step.send())
            return
        # the node has finished: its step is sent once, complete (one data-layer write, not a create and an update)
        step = made(cl.Step, name=label, type="tool", parent_id=self.root.id, default_open=False, show_input=False)
        body = f"{event.summary or 'done'}"
        if event.node == "planner" and isinstance(plan, Plan):
            body += "\n\n" + views.plan_view(plan)
            step.elements = [_json_element("plan (JSON)", plan.model_dump(mode="json"))]
            body += "\n\nComplete plan: plan (JSON)"
        elif event.node == "intent_classifier" and "intent" in event.update:
            body = views.intent_view(event.update["intent"]) + "\n\nComplete reading: intent (JSON)"
            step.elements = [_json_element("intent (JSON)", event.update["intent"].model_dump(mode="json"))]
        elif event.node == "answer_composer" and "final" in event.update:
            body = views.composer_view(event.update["final"], body)
        elif event.node == "reflector" and "final" in event.update:
            body = views.reflector_view(event.update["final"], body)
        step.output, step.start, step.end = f"_{views.duration(ms)}_\n\n" + body, _now(), _now()
        await step.send()


def _json_element(name: str, data: Any) -> cl.Text:
    """A step's complete JSON, one click away in the side view (never cut)."""
    return cl.Text(name=name, content=views.full_outputs(data), language="json", display="side")


def _citations(state: AssessmentState) -> list[cl.Text]:
    elements = []
    for c in state.final.citations:
        body = (f"**{c.source}**{f', page {c.page}' if c.page else ''} — topic {c.topic}, relevance {c.relevance_score}"
                f"\n\nchunk `{c.chunk_id}`" + ("; the words the answer quotes in bold" if c.quoted else "") + "\n\n"
                + highlighted(c.content or _chunk_content(state, c.chunk_id), c.quoted))
        elements.append(cl.Text(name=c.label, content=body, display="side"))
    return elements


def _charts(state: AssessmentState) -> list[PlotlyChart]:
    task = state.plan.domain_task()
    return [PlotlyChart(name=hint.title, content=chart_json(figure(hint)), display="inline")
            for hint in (task.outputs.chart_hints[:4] if task else [])]


def _chunk_content(state: AssessmentState, chunk_id: str) -> str:
    ctx = state.task_outputs("Knowledge Agent").enterprise_context
    chunk = ctx.chunk(chunk_id) if ctx else None
    return chunk.content if chunk else ""


def _export_actions(thread_id: str, state: AssessmentState | None = None) -> list[cl.Action]:
    actions = [cl.Action(name="export_trace", payload={"thread_id": thread_id, "format": "json"},
                         label="Export trace (JSON)", icon="download"),
               cl.Action(name="export_trace", payload={"thread_id": thread_id, "format": "md"},
                         label="Export report (Markdown)", icon="file-text")]
    if state is not None and state.conversation.turn_number:
        actions.append(cl.Action(name="regenerate", payload={"turn": state.conversation.turn_number,
                                                             "prompt": state.input.user_prompt},
                                 label="Regenerate", icon="refresh-cw",
                                 tooltip="Answer the last question again on the current data (it replaces this answer "
                                         "in the conversation)"))
    if state is not None and narrowed_by_follow_ups(state):  # the scope follow-ups narrowed, cleared in one click
        actions.append(cl.Action(name="clear_filters", payload={}, label="Clear the filters", icon="filter-x",
                                 tooltip="Ask the next question of all the data again: nothing carried from the "
                                         "answers before"))
    sql_rows = sum(c.row_count for c in state.mcp.tool_calls if c.tool_name == "sql_path") if state else 0
    if state is not None and has_tables(state.final.answer, sql_rows):
        # the answer is found again by its text: a button under an earlier answer exports that answer's tables
        actions.append(cl.Action(name="export_csv", payload={"thread_id": thread_id, "answer": answer_key(state)},
                                 label="Tables (CSV)", icon="table"))
    return actions


async def _forget_when_done(queue: asyncio.Queue[TurnEvent | AssessmentState | None], thread_id: str) -> None:
    """A stopped turn leaves the conversation memory once its worker has saved it: a follow-up never builds on an
    answer the user did not see, and the export does not list it."""
    while (item := await queue.get()) is not None:
        if isinstance(item, AssessmentState) and item.conversation.turn_number:
            with contextlib.suppress(Exception):
                await cl.make_async(app_services().memory().forget_turn)(thread_id, item.conversation.turn_number)


async def _starting_step() -> tuple[cl.Step, float]:
    """Shown when a question arrives before any turn worker has loaded the model (the first seconds after a start)."""
    step = made(cl.Step, name="Starting", type="tool", default_open=True)
    step.output = ("The answer engine is starting (loading the model, routes and indexes); this question runs as "
                   "soon as it is ready.")
    await step.send()
    return step, time.monotonic()


def answer_key(state: AssessmentState | dict[str, Any]) -> str:
    answer = state.final.answer if isinstance(state, AssessmentState) else state["final"]["answer"]
    return hashlib.sha256(answer.encode()).hexdigest()[:16]


async def run_turn(prompt: str, thread_id: str, user_id: str) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[TurnEvent | AssessmentState | None] = asyncio.Queue()
    pool = turn_pool()
    if pool is not None:
        pool.submit(prompt, thread_id, user_id, lambda item: loop.call_soon_threadsafe(queue.put_nowait, item))
    else:
        threading.Thread(target=_run_in_thread, args=(prompt, thread_id, user_id, loop, queue), daemon=True).start()
    final_state: AssessmentState | None = None
    async with made(cl.Step, name="Assessment graph", type="run", default_open=True, show_input="text") as root:
        root.input = prompt[:500]
        renderer = StepRenderer(root)
        starting = await _starting_step() if pool is not None and not pool.ready else None
        try:
            while (item := await queue.get()) is not None:
                if starting is not None:
                    step, began = starting
                    step.output = f"Ready after {views.duration(1000 * (time.monotonic() - began))}."
                    await step.update()
                    starting = None
                if isinstance(item, AssessmentState):
                    final_state = item
                else:
                    await renderer.event(item)
        except asyncio.CancelledError:  # the user pressed Stop: the turn runs out in its worker, then is forgotten
            if final_state is None:
                forgetting = asyncio.get_running_loop().create_task(_forget_when_done(queue, thread_id))
                parts().background.add(forgetting)  # held until done: the loop keeps only a weak reference to a task
                forgetting.add_done_callback(parts().background.discard)
            else:
                await cl.make_async(app_services().memory().forget_turn)(thread_id, final_state.conversation.turn_number)
            raise
        root.output = (" → ".join(final_state.trace.node_run_order) + f" · {views.duration(renderer.total_ms)}"
                       if final_state else "no result")
    if final_state is None:
        await cl.Message(content="Sorry, the turn produced no answer. Please try again.").send()
        return
    text = linked_markers(final_state.final.answer, final_state) + final_notes(final_state)
    answer = made(cl.Message, content=text, elements=_citations(final_state),
                  actions=_export_actions(thread_id, final_state))
    await answer.send()
    for chart in _charts(final_state):  # one after the other: in the order the answer names them (sent together,
        await chart.send(for_id=answer.id)  # the smaller figure arrived first)


async def handle_uploads(elements: list[Any], user_id: str, thread_id: str) -> str | None:
    """Each file added or assessed, one results message for all; the collection the configurations went to. A file
    not yet started can be cancelled from its line; Stop cancels every file not started, lets the one in hand finish
    and still reports the results (then the message's question is not asked)."""
    progress = Progress([e.name for e in elements], owner=user_id)
    store = app_services().memory()
    parts().uploads.open(progress)
    stopped = False
    try:
        async with cl.Step(name="Uploads", type="tool", default_open=True, show_input="text") as step:
            step.input = ", ".join(e.name for e in elements)
            shown_at = 0.0

            async def show(name: str, state: str | None = None) -> None:
                nonlocal shown_at
                if state is not None:
                    progress.set(name, state)
                elif time.monotonic() - shown_at < 0.5:  # embedding progress: a step update every half second
                    return
                shown_at = time.monotonic()
                step.output = progress.view()
                await step.update()

            configs, documents, refused = await _sort_uploads(elements, show)
            # kept until the results replace it: a server stopped during the upload is reported after the restart
            pending = await cl.make_async(store.add_note)(
                thread_id, user_id, PENDING, "Upload in progress",
                pending_note({owned_name(n, user_id): n for n in documents.values()}, [n for n, _ in configs]))
            work = asyncio.ensure_future(cl.make_async(_process_uploads)(
                documents, configs, user_id, progress, lambda name, state=None: cl.run_sync(show(name, state))))
            try:
                lines, collection = await asyncio.shield(work)
            except asyncio.CancelledError:  # Stop: the files not started are left out, the one in hand finishes
                stopped = True
                progress.cancel_all()
                lines, collection = await work
                lines.insert(0, "- ■ stopped: the files not yet started were left out")
            lines = refused + lines
            if collection:
                await cl.make_async(store.set_thread_collection)(thread_id, collection)
            step.output = progress.view() + "\n\n" + "\n".join(lines)
    finally:
        parts().uploads.close(progress)
    text = "**Upload results**\n\n" + "\n".join(lines)
    await cl.Message(content=text, actions=_collection_actions([commands.FLEET] if collection else [])).send()
    if pending:
        await cl.make_async(store.update_note)(thread_id, pending, "upload", "Upload results", text)
    if stopped:
        raise asyncio.CancelledError
    return collection


async def _sort_uploads(elements: list[Any], show: Any) -> tuple[list[tuple[str, bytes]], dict[Path, str], list[str]]:
    """Each file checked: a configuration (its raw text), a knowledge document (its path), or refused (a line of
    the results)."""
    configs: list[tuple[str, bytes]] = []
    documents: dict[Path, str] = {}
    refused: list[str] = []
    for element in elements:
        await show(element.name, "checking")
        upload = classify_upload(element.name, Path(element.path))
        if upload.kind == "rejected":
            refused.append(f"- ✗ {upload.reason}")
            await show(element.name, "refused")
        elif upload.kind == "config":
            # the file on disk is masked (it is the attachment the thread keeps); the raw text the rules judge
            # comes from the session's memory
            configs.append((upload.name, take_raw_upload(cl.context.session, upload.path)))
            await show(element.name, "waiting to be assessed")
        else:
            documents[upload.path] = upload.name
            await show(element.name, "waiting to be added")
    return configs, documents, refused


def _process_uploads(documents: dict[Path, str], configs: list[tuple[str, bytes]], user_id: str,
                     progress: Progress, show: Any) -> tuple[list[str], str | None]:
    """The documents added (embedded together, each file reported), then the configurations assessed into one new
    assessment; runs in a worker thread. The results' lines, and the collection the configurations went to."""
    from assessment_engine.warehouse.user_configs import assess_files
    from knowledge_base.ingest import ingest_paths

    lines: list[str] = []
    shown = {owned_name(n, user_id): n for n in documents.values()}
    if documents:
        def cancelled(name: str) -> bool:
            return progress.is_cancelled(shown.get(name, name))

        def embedded(name: str, done: int, total: int) -> None:
            progress.embedded(shown.get(name, name), done, total)
            show(shown.get(name, name))

        try:
            added = ingest_paths(app_services().knowledge(), list(documents),
                                 lambda name, i, n: show(shown.get(name, name), "adding"), documents, user_id,
                                 embedded=embedded, cancelled=cancelled)
            lines += [f"- {'✗' if f.status in ('error', 'cancelled') else '✓'} "  # named as the user named them
                      f"{f.message.replace(f.name, shown.get(f.name, f.name), 1)}" for f in added.files]
            for f in added.files:
                show(shown.get(f.name, f.name), {"error": "refused", "cancelled": "cancelled"}.get(f.status, "done"))
        except Exception as exc:  # the index itself failed: every document of the message says so
            lines += [f"- ✗ {name}: could not be added ({type(exc).__name__})" for name in documents.values()]
    collection = None
    if configs:
        for name, _ in configs:
            if not progress.is_cancelled(name):
                show(name, "assessing")
        try:
            services = app_services()
            report = assess_files(configs, services.catalog, services.settings, owner=user_id,
                                  cancelled=progress.is_cancelled)
            lines += [f"- {'✓' if f.ok else '✗'} {f.message}" for f in report.files]
            lines += [f"- ⚠ {w}" for w in report.warnings]
            if report.assessment_id and report.collection:
                collection = report.collection
                lines.append(f"- assessment **{report.assessment_id}** created from {report.assessed} configuration(s) "
                             f"in your collection `{report.collection}`. This conversation now answers about it "
                             "(\"Summarize the latest assessment\"); the fleet is unchanged — say \"back to the "
                             "fleet\" to switch back.")
        except Exception as exc:  # the warehouse may be missing or locked; say so and keep the chat alive
            lines.append(f"- ✗ the configurations could not be assessed: {exc}")
        for name, _ in configs:
            show(name, "cancelled" if progress.is_cancelled(name) else "done")
    return lines, collection


@cl.on_message
async def on_message(message: cl.Message) -> None:
    user_id = _user_id()
    thread_id = cl.context.session.thread_id
    # an over-long message is answered here: it is neither run nor stored (a flood of them must not fill the memory)
    refused = parts().limits.refusal(cl.context.session.id, user_id, _in_flight_key()) or \
        overlong(message.content, SETTINGS.max_prompt_chars)
    if refused:
        await cl.Message(content=refused).send()
        return
    with parts().limits.answering(_in_flight_key()):
        await _answer(message, user_id, thread_id)


async def _answer(message: cl.Message, user_id: str, thread_id: str) -> None:
    files = [e for e in (message.elements or []) if getattr(e, "path", None)]
    prompt = message.content
    if files and await handle_uploads(files, user_id, thread_id):
        prompt = about_upload(prompt)  # "assess these": the configurations just assessed, not an earlier answer
    if files and not message.content.strip():  # files alone: named after them, not "Untitled Conversation"
        await _name_thread(thread_id, "Upload: " + ", ".join(e.name for e in files)[:70])
    parsed = commands.parse(message.content)
    if parsed is not None and parsed[0] is not None and parsed[0].name == "export":
        fmt = (parsed[1].split() or ["md"])[0].lower()
        if fmt not in ("md", "markdown", "json", "csv"):
            await cl.Message(content=f"`/export` makes `md`, `json` or `csv`, not `{fmt}`.").send()
        else:
            await send_export(thread_id, "markdown" if fmt == "markdown" else fmt)
    elif parsed is not None:
        reply = await cl.make_async(commands.run)(app_services(), message.content, user_id, thread_id)
        await send_reply(thread_id, user_id, message.content.strip()[:80], reply)
    elif not files or (message.content.strip() and not is_file_handoff(message.content)):
        # a message that only hands its files over ("Please add this document.") is answered by the upload results
        await run_turn(prompt, thread_id, user_id)


async def _name_thread(thread_id: str, name: str) -> None:
    from chainlit.data import get_data_layer

    layer = get_data_layer()
    if layer is not None:
        with contextlib.suppress(Exception):  # a name is a convenience; the conversation goes on without it
            await layer.update_thread(thread_id, name=name)


def _collection_actions(collections: list[str]) -> list[cl.Action]:
    return [cl.Action(name="use_collection", payload={"collection": c}, icon="database",
                      label="Back to the fleet" if c == commands.FLEET else f"Use {c}") for c in collections[:8]]


def _library_actions(library: dict[str, Any] | None) -> list[cl.Action]:
    """The document library's buttons: preview each document, cite only it in this conversation, remove one's own,
    and cite any document again. Buttons rather than a custom element: Chainlit compiles custom elements in the
    browser with eval, which the page's CSP refuses (docs/SECURITY.md)."""
    if not library:
        return []
    actions = []
    for d in library["documents"]:
        actions.append(cl.Action(name="doc_preview", payload={"source": d["source"]}, label=f"Preview {d['name']}",
                                 icon="eye"))
        if not (library["restricted"] and d["cited"]):
            actions.append(cl.Action(name="doc_cite", payload={"sources": [d["source"]]}, label=f"Cite only {d['name']}",
                                     icon="filter"))
        if d["own"]:
            actions.append(cl.Action(name="doc_remove", payload={"source": d["source"]}, label=f"Remove {d['name']}",
                                     icon="trash-2"))
    if library["restricted"]:
        actions.append(cl.Action(name="doc_cite", payload={"sources": []}, label="Cite any document", icon="list"))
    return actions


async def send_reply(thread_id: str, user_id: str, title: str, reply: commands.Reply) -> None:
    """A command's reply: its text, the collections it offers and the document library's buttons."""
    await send_note(thread_id, user_id, "command", title, reply.text,
                    _collection_actions(reply.collections) + _library_actions(reply.library))


async def send_note(thread_id: str, user_id: str, kind: str, title: str, text: str,
                    actions: list[cl.Action] | None = None) -> None:
    """A message that is not an answer (a command's output, upload results), kept for the conversation's export."""
    await cl.Message(content=text, actions=actions or []).send()
    try:
        await cl.make_async(app_services().memory().add_note)(thread_id, user_id, kind, title, text)
    except Exception as exc:  # noqa: BLE001 — the message was shown; only its place in the export is lost
        log.warning("could not keep the %s output for the export: %s", kind, type(exc).__name__)


def limited(callback: Callable[[cl.Action], Awaitable[None]]) -> Callable[[cl.Action], Awaitable[None]]:
    """A button press counts against its sender's message limits (``chat_app/limits.py``), as a message does: a
    flood of presses is refused with a notice that is shown, not stored."""
    @functools.wraps(callback)
    async def pressed(action: cl.Action) -> None:
        refused = parts().limits.refusal(cl.context.session.id, _user_id())
        if refused:
            await cl.context.emitter.send_toast(refused, "warning")
            return
        await callback(action)

    return pressed


@cl.action_callback("use_collection")
@limited
async def use_collection(action: cl.Action) -> None:
    thread_id, user_id = cl.context.session.thread_id, _user_id()
    name = str(action.payload.get("collection") or "")
    reply = await cl.make_async(commands.switch_collection)(app_services(), name, user_id, thread_id)
    await send_reply(thread_id, user_id, f"/use {name}", reply)


@cl.action_callback("doc_preview")
@limited
async def doc_preview(action: cl.Action) -> None:
    from chat_app.documents import preview

    source = str(action.payload.get("source") or "")
    text = await cl.make_async(preview)(app_services().knowledge().index, source, _user_id())
    await send_note(cl.context.session.thread_id, _user_id(), "command", f"Preview {source}"[:80], text)


@cl.action_callback("doc_remove")
@limited
async def doc_remove(action: cl.Action) -> None:
    from chat_app.documents import remove

    source = str(action.payload.get("source") or "")
    text = await cl.make_async(remove)(app_services().knowledge().index, source, _user_id())
    await send_note(cl.context.session.thread_id, _user_id(), "command", f"/remove {source}"[:80], text)


@cl.action_callback("doc_cite")
@limited
async def doc_cite(action: cl.Action) -> None:
    names = [str(s) for s in action.payload.get("sources") or []]
    reply = await cl.make_async(commands.cite_documents)(app_services(), names, _user_id(), cl.context.session.thread_id)
    await send_reply(cl.context.session.thread_id, _user_id(), "/sources " + ", ".join(names)[:70], reply)


@cl.action_callback("regenerate")
@limited
async def regenerate(action: cl.Action) -> None:
    """The latest answer again: its turn leaves the memory and the question runs anew (an earlier answer cannot be
    replaced without changing what the answers after it built on). The button's question must be that answer's, as
    the memory keeps it: a forged payload is refused, and an over-long one before anything is read."""
    thread_id, user_id = cl.context.session.thread_id, _user_id()
    turn, prompt = int(action.payload.get("turn") or 0), str(action.payload.get("prompt") or "")
    refused = overlong(prompt, SETTINGS.max_prompt_chars)
    if refused:
        await cl.Message(content=refused).send()
        return
    recent = await cl.make_async(app_services().memory().recent_turns)(thread_id, 1)
    if not prompt or not recent or recent[-1]["turn_number"] != turn or recent[-1]["user_id"] != user_id or \
            recent[-1]["prompt"] != prompt:
        await cl.Message(content="Only the latest answer can be regenerated; ask the question again instead.").send()
        return
    with parts().limits.answering(_in_flight_key()):
        await cl.make_async(app_services().memory().forget_turn)(thread_id, turn)
        await run_turn(prompt, thread_id, user_id)


@cl.action_callback("clear_filters")
@limited
async def clear_filters(action: cl.Action) -> None:
    """The button of a narrowed answer: the words that clear the scope, run as a turn (the memory keeps it, so no
    later follow-up refers back past it)."""
    with parts().limits.answering(_in_flight_key()):
        await run_turn(CLEAR_FILTERS, cl.context.session.thread_id, _user_id())


@cl.action_callback("export_trace")
@limited
async def export_trace(action: cl.Action) -> None:
    await send_export(str(action.payload.get("thread_id")), "md" if action.payload.get("format") == "md" else "json")


@cl.action_callback("export_csv")
@limited
async def export_csv(action: cl.Action) -> None:
    from orchestration.trace_export import TraceAccessError, thread_states

    thread_id = str(action.payload.get("thread_id"))
    try:
        states = await cl.make_async(thread_states)(thread_id, _user_id(), app_services().memory())
    except TraceAccessError as exc:
        await cl.Message(content=f"Export refused: {exc}.").send()
        return
    await send_tables(thread_id, states, str(action.payload.get("answer") or "") or None)


async def send_tables(thread_id: str, states: list[dict[str, Any]], key: str | None) -> None:
    """Every table of one answer as CSV files: the answer the button was under (``key``), else the latest answer
    that has tables (``/export csv``)."""
    numbered = list(enumerate(states, start=1))
    chosen = [(n, s) for n, s in numbered if answer_key(s) == key] if key else \
        [(n, s) for n, s in reversed(numbered) if answer_tables(s, n)][:1]
    tables = answer_tables(chosen[0][1], chosen[0][0]) if chosen else []
    if not tables:
        await cl.Message(content="No answer of this conversation has a table to export yet.").send()
        return
    files = [cl.File(name=t.name, content=t.text().encode(), mime="text/csv", display="inline") for t in tables]
    await cl.Message(content=f"Exported {len(tables)} table(s) of answer {chosen[0][0]} as CSV: "
                             + ", ".join(f"{t.name} ({len(t.rows)} rows)" for t in tables) + ".",
                     elements=files).send()


async def send_export(thread_id: str, fmt: str) -> None:
    """The conversation's trace as a file: the same for the buttons under an answer and for ``/export`` (which
    also works in a resumed thread, where the buttons of earlier answers are not restored)."""
    from orchestration.trace_export import TraceAccessError, thread_notes, thread_states, to_json, to_markdown

    try:
        states = await cl.make_async(thread_states)(thread_id, _user_id(), app_services().memory())
        notes = await cl.make_async(thread_notes)(thread_id, _user_id(), app_services().memory())
    except TraceAccessError as exc:
        await cl.Message(content=f"Export refused: {exc}.").send()
        return
    if not states and not notes:
        await cl.Message(content="This conversation has no answers to export yet.").send()
        return
    if fmt == "csv":
        await send_tables(thread_id, states, None)
        return
    fmt = "md" if fmt == "markdown" else fmt
    text = to_json(thread_id, states, notes) if fmt == "json" else to_markdown(thread_id, states, notes)
    name = f"trace-{thread_id[:8]}.{fmt}"
    await cl.Message(content=f"Exported {len(states)} turn(s)" + (f" and {len(notes)} upload or command output(s)"
                                                                  if notes else "") + f" of this conversation as {fmt.upper()}.",
                     elements=[cl.File(name=name, content=text.encode(), mime="application/json" if fmt == "json"
                                       else "text/markdown", display="inline")]).send()

