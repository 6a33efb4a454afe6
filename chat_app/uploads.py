"""Uploaded files, checked on the server (Chainlit only checks the MIME type the browser claims and the
size): the extension must be supported, the size within the limit, and the content what it claims to
be. Each file is either a knowledge document (ingested) or a device configuration (assessed)."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from chainlit.auth import get_current_user
from fastapi import Body, Depends

from assessment_engine.checks.config_parser import identify_platform, looks_like_config
from assessment_engine.checks.judgement import ROLE_FILE
from foundation.secrets import mask_config, mask_prompt
from knowledge_base.loaders import SUPPORTED as KNOWLEDGE_TYPES

CONFIG_TYPES = (".cfg", ".conf", ".config", ".txt", ".log")
MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # the same limit as [features.spontaneous_file_upload] max_size_mb


@dataclass(frozen=True)
class Upload:
    name: str
    path: Path
    kind: Literal["knowledge", "config", "rejected"]
    reason: str = ""


TEXT_DOCUMENTS = (".txt", ".md", ".markdown", ".html", ".htm", ".csv")


def holds_device_secrets(name: str, data: bytes) -> bool:
    """Whether an uploaded file is a device configuration, kept only with its secrets masked: every file with a
    configuration's extension (Junos and other refused platforms included), and a text file that reads like one."""
    suffix = Path(name).suffix.lower()
    if suffix in (".cfg", ".conf", ".config", ".log") or not suffix:
        return True
    return suffix == ".txt" and looks_like_config(data[:200_000].decode("utf-8", errors="replace"))


def kept_upload(name: str, data: bytes) -> bytes:
    """What is ever written of an uploaded file: a configuration with its secrets masked; a text document with the
    configuration lines in it masked, wherever they stand (after pages of show output too) and as a question's
    pasted lines are, its prose as written; a PDF or Word file as uploaded (its extracted text is masked when it is
    added to the knowledge base, docs/SECURITY.md)."""
    suffix = Path(name).suffix.lower()
    if holds_device_secrets(name, data):
        return mask_config(data.decode("utf-8", errors="replace")).encode()
    if suffix in TEXT_DOCUMENTS:
        text = data.decode("utf-8", errors="replace")
        masked = mask_prompt(text)
        return data if masked == text else masked.encode()
    return data


def classify_upload(name: str, path: Path) -> Upload:
    suffix = Path(name).suffix.lower()
    try:
        size = path.stat().st_size
    except OSError:
        return Upload(name, path, "rejected", f"{name}: the upload could not be read")
    if size < 65536:
        with path.open("rb") as fh:
            if not fh.read().strip():
                return Upload(name, path, "rejected", f"{name}: the file is empty (nothing to assess or add)")
    if size > MAX_UPLOAD_BYTES:
        return Upload(name, path, "rejected",
                      f"{name}: {size / 1024 / 1024:.1f} MB is over the {MAX_UPLOAD_BYTES // 1024 // 1024} MB upload limit")
    if ROLE_FILE.search(name):  # interface roles that go with the configs of the same upload
        return Upload(name, path, "config")
    if suffix not in set(KNOWLEDGE_TYPES) | set(CONFIG_TYPES):
        return Upload(name, path, "rejected", f"{name}: unsupported file type '{suffix or 'none'}' — upload knowledge "
                                              f"documents ({', '.join(KNOWLEDGE_TYPES)}) or device configs (.cfg, .conf, .txt)")
    if suffix in (".cfg", ".conf", ".config", ".txt", ".log") and size:
        head = path.read_bytes()[:200_000].decode("utf-8", errors="replace")
        if looks_like_config(head):
            return Upload(name, path, "config")
        if suffix != ".txt":
            return Upload(name, path, "rejected", f"{name}: {identify_platform(head).reason}")
    return Upload(name, path, "knowledge")


CANCEL_LINK = "#cancel-upload-"  # public/side-view.js posts a click on such a link to CANCEL_ROUTE
CANCEL_ROUTE = "/assess/uploads/cancel"
NOT_STARTED = ("waiting", "checking", "waiting to be added", "waiting to be assessed")
FINAL = ("done", "refused", "cancelled")


class Progress:
    """Where each file of one upload is (waiting, checking, adding, assessing, done, cancelled), shown in the Uploads
    step as a bar over the files and a line per file, updated as each one moves on. A file not yet started carries a
    cancel link (a random token per file, honoured only for its uploader); the bar counts a file being embedded by
    its chunks."""

    def __init__(self, names: list[str], owner: str = "") -> None:
        self.names = names
        self.owner = owner
        self.state = dict.fromkeys(names, "waiting")
        self.share = dict.fromkeys(names, 0.0)  # how far a file being added is, 0–1 (its chunks embedded)
        self.tokens = {secrets.token_urlsafe(16): name for name in dict.fromkeys(names)}
        self.cancelled: set[str] = set()

    def set(self, name: str, state: str) -> None:
        if name in self.state:
            self.state[name] = state
            self.share[name] = 1.0 if state in FINAL else self.share[name]

    def embedded(self, name: str, done: int, total: int) -> None:
        if name in self.share and total:
            self.share[name] = done / total

    def cancel(self, token: str) -> str:
        """Cancel the file ``token`` names: its state after the request."""
        name = self.tokens.get(token)
        if name is None:
            return "unknown"
        if self.state[name] in NOT_STARTED:
            self.cancelled.add(name)
            return "cancel requested"
        return self.state[name]

    def cancel_all(self) -> None:
        """Stop pressed: every file not started is left out; the one in hand finishes (written whole or not)."""
        self.cancelled.update(n for n, s in self.state.items() if s in NOT_STARTED)

    def is_cancelled(self, name: str) -> bool:
        return name in self.cancelled

    def view(self) -> str:
        total = len(self.names) or 1
        finished = sum(1 for s in self.state.values() if s in FINAL)
        pct = min(100, round(100 * sum(self.share.values()) / total))
        bar = "▓" * (pct // 10) + "░" * (10 - pct // 10)
        mark = {"waiting": "○", "waiting to be added": "○", "waiting to be assessed": "○", "done": "✓", "refused": "✗",
                "cancelled": "✗"}
        link = {name: token for token, name in self.tokens.items()}
        return "\n".join([f"`{bar}` {pct}% — {finished} of {len(self.names)} file"
                          f"{'' if len(self.names) == 1 else 's'} done", "",
                          *(f"- {mark.get(s, '…')} {n} — {self._state(n, s)}"
                            + (f" · [cancel]({CANCEL_LINK}{link[n]})" if s in NOT_STARTED and n not in self.cancelled
                               else "")
                            for n, s in self.state.items())])

    def _state(self, name: str, state: str) -> str:
        if name in self.cancelled and state not in FINAL:
            return f"{state}, cancel requested"
        if state == "adding" and 0 < self.share[name] < 1:
            return f"adding — {round(100 * self.share[name])}% embedded"
        return state


class Uploads:
    """The uploads in progress on this server, by cancel token: a cancel link's click finds its upload here."""

    def __init__(self) -> None:
        self.running: dict[str, Progress] = {}

    def open(self, progress: Progress) -> None:
        self.running.update(dict.fromkeys(progress.tokens, progress))

    def close(self, progress: Progress) -> None:
        for token in progress.tokens:
            self.running.pop(token, None)

    def cancel(self, token: str, user: str) -> str:
        progress = self.running.get(token)
        if progress is None or progress.owner != user:  # another user's token reads as no token at all
            return "unknown"
        return progress.cancel(token)


def add_cancel_route(app: Any, uploads: Uploads, local_user: str) -> None:
    """``POST /assess/uploads/cancel`` with ``{"token": …}``: cancel one file of the signed-in user's upload."""

    async def cancel_upload(token: Annotated[str, Body(embed=True)],
                            user: Annotated[Any, Depends(get_current_user)]) -> dict[str, str]:
        return {"state": uploads.cancel(token, getattr(user, "identifier", None) or local_user)}

    app.add_api_route(CANCEL_ROUTE, cancel_upload, methods=["POST"])
    app.router.routes.insert(0, app.router.routes.pop())  # before "/{full_path:path}", which serves the page


def pending_note(documents: dict[str, str], configs: list[str]) -> str:
    """What an upload in progress holds, kept until its results replace it: the stored and shown name of each
    document, and the configurations."""
    return json.dumps({"documents": documents, "configs": configs})


def interrupted_report(pending: str, stored_sources: set[str]) -> str:
    """An upload the server stopped during, told after the restart: which documents were added before it stopped
    (each is written whole or not at all) and which files need to be attached again."""
    held = json.loads(pending)
    added = [shown for stored, shown in held["documents"].items() if stored in stored_sources]
    lost = [shown for stored, shown in held["documents"].items() if stored not in stored_sources]
    lines = ["**Upload interrupted** — the server stopped while this conversation's upload was being processed."]
    if added:
        lines.append(f"- ✓ added before it stopped: {', '.join(added)}")
    if lost:
        lines.append(f"- ✗ not added: {', '.join(lost)} — attach again")
    if held["configs"]:
        lines.append(f"- ✗ configurations {', '.join(held['configs'])}: not assessed unless `/collections` lists a new "
                     "collection (an assessment is written all at once) — attach them again")
    return "\n".join(lines)
