"""Knowledge documents in the chat (``/docs`` and ``/remove`` in chat_app/commands.py): the documents a user can
retrieve (shared ones and their own uploads: name, owner, chunks, added), and removing one of the user's own
uploads (shared documents are managed with ``assess ingest`` / ``assess kb remove``)."""

from __future__ import annotations

from typing import Any

from foundation.vocabulary.text import visible
from knowledge_base.index import KnowledgeIndex
from knowledge_base.ingest import owned_name


def usable_documents(index: KnowledgeIndex, user_id: str) -> list[dict[str, Any]]:
    """The documents ``user_id`` may retrieve: shared ones and their own uploads."""
    return [d for d in index.sources() if d["uploaded_by"] in (None, user_id)]


def shown_name(source: str, user_id: str) -> str:
    """A document's name as its user knows it in the library (whose Owner column says "you"): their own uploads
    without the ``<user>/`` prefix they are stored under, and no control or right-to-left characters (even in
    documents stored before that rule)."""
    return visible(source).removeprefix(f"{user_id}/")


def listing(index: KnowledgeIndex, user_id: str, cited: list[str] | None = None) -> str:
    """The documents as a table: name, title, version, owner, chunks, date, and whether this conversation cites it."""
    usable = usable_documents(index, user_id)
    if not usable:
        return "The knowledge base holds no documents you can use yet."
    rows = [f"| {shown_name(d['source'], user_id).replace('|', '/')} | {visible(d['title'] or '').replace('|', '/') or '—'} | "
            f"{d['version'] or '–'} | {'you' if d['uploaded_by'] else 'shared'} | {d['chunks']} | "
            f"{str(d['added_at'])[:10]} | {'✓' if not cited or d['source'] in cited else '—'} |" for d in usable]
    scope = (f"This conversation cites only {', '.join(f'**{shown_name(c, user_id)}**' for c in cited)}." if cited
             else "This conversation may cite any of them.")
    return ("**Knowledge documents you can use**\n\n| Document | Title | Version | Owner | Chunks | Added | Cited here |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + f"\n\n{scope} Preview a document, cite only one, "
            "or remove one of yours with the buttons below (or `/sources NAME`, `/remove NAME`).")


def remove(index: KnowledgeIndex, name: str, user_id: str) -> str:
    if not name:
        return "Say which of your documents to remove, e.g. `/remove notes.md` (`/docs` lists them)."
    stored = name if name.startswith(f"{user_id}/") else owned_name(name, user_id)
    removed = index.remove_source(stored)
    if removed:
        return f"Removed **{shown_name(stored, user_id)}** ({removed} chunks); it is no longer used in your answers."
    shared = any(d["source"] == name and d["uploaded_by"] is None for d in index.sources())
    return (f"**{name}** is a shared document; it can only be removed by an administrator (`assess kb remove`)."
            if shared else f"You have no document named **{name}** (`/docs` lists yours).")


PREVIEW_CHARS = 6000


def library(index: KnowledgeIndex, user_id: str, cited: list[str]) -> dict[str, Any]:
    """What the library's buttons need of each usable document (the table itself is ``listing``): its stored and
    shown name, whether the user may remove it, whether this conversation cites it (every one when none was chosen)."""
    return {"documents": [{"source": d["source"], "name": shown_name(d["source"], user_id),
                           "own": bool(d["uploaded_by"]), "cited": not cited or d["source"] in cited}
                          for d in usable_documents(index, user_id)],
            "restricted": bool(cited)}


def preview(index: KnowledgeIndex, source: str, user_id: str) -> str:
    """The beginning of a document the user can use, as it was stored (Markdown kept)."""
    found = next((d for d in usable_documents(index, user_id) if d["source"] == source), None)
    if found is None:
        return f"You have no document named **{visible(source)}** (`/docs` lists them)."
    text = "\n\n".join(index.text_of(source))
    shown = text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS].rsplit("\n", 1)[0] + "\n\n… (the rest is not shown)"
    return (f"**Preview — {visible(found['title'] or source)}** ({visible(source)}, version {found['version'] or '–'}, "
            f"{found['chunks']} chunk{'' if found['chunks'] == 1 else 's'})\n\n---\n\n{shown}")
