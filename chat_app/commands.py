"""The chat's slash commands, in one table: what parses a message as a command, what ``/help`` lists and what the
export keeps all come from ``COMMANDS``. A command's reply is text plus, where there is a choice to make, the
collections it offers as buttons; ``/export`` is run by the chat layer (it sends files)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chat_app.documents import library, listing, remove, shown_name, usable_documents
from orchestration.services import Services

FLEET = "fleet"


@dataclass(frozen=True)
class Reply:
    text: str
    collections: list[str] = field(default_factory=list)  # offered as "use" buttons under the reply
    library: dict[str, Any] | None = None  # the document library: a button per document and action (chat_app/app.py)


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    summary: str
    run: Callable[[Services, str, str, str], Reply] | None = None  # (services, argument, user, thread) → reply; None: the chat layer's
    aliases: tuple[str, ...] = ()
    title: str = ""  # a conversation's name when it starts with this command (not "/docs")


def _help(services: Services, arg: str, user_id: str, thread_id: str) -> Reply:
    rows = [f"| `{c.usage}` | {c.summary} |" for c in COMMANDS]
    return Reply("**Commands**\n\n| Command | What it does |\n|---|---|\n" + "\n".join(rows)
                 + f"\n\nThis conversation answers about **{current_collection(services, thread_id)}**. Anything else you type "
                   "is a question about your assessments or your documents; attach files with the paperclip to add "
                   "documents or assess configurations.")


def current_collection(services: Services, thread_id: str) -> str:
    return services.memory().thread_collection(thread_id) or FLEET


def _collections(services: Services, arg: str, user_id: str, thread_id: str) -> Reply:
    current, own = current_collection(services, thread_id), services.collections(user_id)
    lines = [f"This conversation answers about **{current}**"
             + (" (the managed network)." if current == FLEET else " (uploaded configurations).")]
    if own:
        lines += ["", "Collections you can use:", "", f"- `{FLEET}` — the managed network",
                  *(f"- `{c}`" + (" ← this conversation" if c == current else "") for c in own),
                  "", "Switch with a button below or `/use NAME`."]
    else:
        lines += ["", "You have no uploaded collections yet: attach device configurations (.cfg, .txt) to assess them "
                      "as a collection of your own."]
    return Reply("\n".join(lines), [c for c in [FLEET, *own] if c != current])


def switch_collection(services: Services, name: str, user_id: str, thread_id: str) -> Reply:
    """The same switch as "back to the fleet" or an upload: the thread's collection in the conversation memory."""
    name = name.strip().strip("`'\"")
    own = services.collections(user_id)
    if not name:
        return Reply("Say which collection, e.g. `/use fleet` (`/collections` lists yours).", [FLEET, *own])
    chosen = FLEET if name.lower() in (FLEET, "the fleet") else next((c for c in own if c.lower() == name.lower()), None)
    if chosen is None:
        return Reply(f"You have no collection named **{name}**" + (": choose one below." if own else "."), [FLEET, *own])
    services.memory().set_thread_collection(thread_id, chosen)
    if chosen == FLEET:
        return Reply("This conversation now answers about the **fleet** (the managed network).")
    return Reply(f"This conversation now answers about the collection **{chosen}**: \"latest\" and \"previous\" mean its "
                 "assessments. `/use fleet` switches back.", [FLEET])


def _docs(services: Services, user_id: str, thread_id: str) -> Reply:
    index = services.knowledge().index
    cited = services.memory().thread_documents(thread_id)
    return Reply(listing(index, user_id, cited), library=library(index, user_id, cited))


def choose_documents(services: Services, arg: str, user_id: str, thread_id: str) -> Reply:
    """Which documents this conversation may cite: ``all``, or names (the user's own without their prefix)."""
    store = services.memory()
    if not arg.strip():
        current = store.thread_documents(thread_id)
        return Reply("This conversation cites " + (("only " + ", ".join(f"**{shown_name(c, user_id)}**" for c in current))
                                                    if current
                     else "any document you can use") + ". Choose with `/sources NAME, NAME` or `/sources all`.")
    if arg.strip().lower() in ("all", "any", "*"):
        return cite_documents(services, [], user_id, thread_id)
    return cite_documents(services, [n.strip().strip("`'\"") for n in re.split(r"[,\n]", arg) if n.strip()], user_id, thread_id)


def cite_documents(services: Services, names: list[str], user_id: str, thread_id: str) -> Reply:
    """The conversation cites only ``names`` from now on (all of them usable, else nothing changes); none: any."""
    store = services.memory()
    usable = {d["source"] for d in usable_documents(services.knowledge().index, user_id)}
    if not names or set(names) >= usable:
        store.set_thread_documents(thread_id, [])
        return Reply("This conversation cites any document you can use.")
    chosen: list[str] = []
    unknown: list[str] = []
    for name in names:
        found = name if name in usable else f"{user_id}/{name}" if f"{user_id}/{name}" in usable else None
        (chosen if found else unknown).append(found or name)
    if unknown:
        return Reply("Not among the documents you can use: " + ", ".join(f"**{u}**" for u in unknown)
                     + ". `/docs` lists them; nothing was changed.")
    store.set_thread_documents(thread_id, chosen)
    return Reply("From now on this conversation cites only " + ", ".join(f"**{shown_name(c, user_id)}**" for c in chosen)
                 + ". `/sources all` lifts it.")


COMMANDS: tuple[Command, ...] = (
    Command("help", "/help", "these commands", _help, title="Help"),
    Command("docs", "/docs", "the knowledge documents you can use: shared ones and your uploads",
            lambda services, arg, user, thread: _docs(services, user, thread), aliases=("documents",), title="Knowledge documents"),
    Command("remove", "/remove NAME", "remove one of your uploaded documents",
            lambda services, arg, user, thread: Reply(remove(services.knowledge().index, arg, user)), title="Remove a document"),
    Command("sources", "/sources NAME, NAME", "cite only these documents in this conversation (`/sources all`: any)",
            choose_documents, title="Documents cited"),
    Command("collections", "/collections", "which collection this conversation answers about, and yours",
            _collections, title="Collections"),
    Command("use", "/use NAME", "answer about collection NAME from now on (`/use fleet`: the managed network)",
            switch_collection, title="Switch collection"),
    Command("export", "/export FORMAT", "this conversation as a Markdown report (`md`, the default) or a JSON trace "
            "(`json`) with every step, its SQL and chunks, uploads and command outputs; or the latest answer's tables "
            "as CSV files (`csv`)", title="Export"),
)
_BY_NAME = {n: c for c in COMMANDS for n in (c.name, *c.aliases)}
PATTERN = re.compile(r"^\s*/([a-z]+)\b\s*(.*)$", re.I | re.S)


def parse(text: str) -> tuple[Command | None, str] | None:
    """``(command, argument)`` for a slash command, ``(None, name)`` for an unknown one, None for a question."""
    m = PATTERN.match(text or "")
    if m is None:
        return None
    return _BY_NAME.get(m.group(1).lower()), m.group(2).strip() if m.group(1).lower() in _BY_NAME else m.group(1)


def thread_title(first_message: str) -> str:
    """A conversation's name from its first message: a command's title instead of the command typed."""
    parsed = parse(first_message)
    return parsed[0].title if parsed and parsed[0] is not None and parsed[0].title else first_message


def run(services: Services, text: str, user_id: str, thread_id: str) -> Reply:
    """A text command's reply (an unknown command names /help); not for ``/export``."""
    parsed = parse(text)
    if parsed is None:
        return Reply("")
    command, arg = parsed
    if command is None:
        return Reply(f"There is no command `/{arg}`. `/help` lists the commands.")
    if command.run is None:
        return Reply(f"`/{command.name}` is run by the chat.")
    return command.run(services, arg, user_id, thread_id)
