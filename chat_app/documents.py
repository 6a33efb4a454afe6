"""Knowledge documents in the chat (``/docs`` and ``/remove`` in chat_app/commands.py): the documents a user can
retrieve (shared ones and their own uploads: name, owner, chunks, added), and removing one of the user's own
uploads (shared documents are managed with ``assess ingest`` / ``assess kb remove``)."""

from __future__ import annotations

from knowledge_base.ingest import owned_name
from knowledge_base.service import get_index
from orchestration.vocabulary.text import visible


def listing(user_id: str) -> str:
    usable = [d for d in get_index().sources() if d["uploaded_by"] in (None, user_id)]
    if not usable:
        return "The knowledge base holds no documents you can use yet."
    # names as they display (no control or right-to-left characters, even in documents stored before that rule)
    rows = [f"| {visible(d['source']).replace('|', '/')} | {d['version'] or '–'} | {'you' if d['uploaded_by'] else 'shared'} | {d['chunks']} | "
            f"{str(d['added_at'])[:10]} |" for d in usable]
    return ("**Knowledge documents you can use**\n\n| Document | Version | Owner | Chunks | Added |\n|---|---|---|---|---|\n"
            + "\n".join(rows) + "\n\nRemove one of yours with `/remove NAME`.")


def remove(name: str, user_id: str) -> str:
    if not name:
        return "Say which of your documents to remove, e.g. `/remove notes.md` (`/docs` lists them)."
    stored = name if name.startswith(f"{user_id}/") else owned_name(name, user_id)
    removed = get_index().remove_source(stored)
    if removed:
        return f"Removed **{stored}** ({removed} chunks); it is no longer used in your answers."
    shared = any(d["source"] == name and d["uploaded_by"] is None for d in get_index().sources())
    return (f"**{name}** is a shared document; it can only be removed by an administrator (`assess kb remove`)."
            if shared else f"You have no document named **{name}** (`/docs` lists yours).")
