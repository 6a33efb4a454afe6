"""Uploaded files, checked on the server (Chainlit only checks the MIME type the browser claims and the
size): the extension must be supported, the size within the limit, and the content what it claims to
be. Each file is either a knowledge document (ingested) or a device configuration (assessed)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from knowledge_base.loaders import SUPPORTED as KNOWLEDGE_TYPES
from orchestration.engines.config_parser import identify_platform, looks_like_config
from orchestration.engines.judgement import ROLE_FILE

CONFIG_TYPES = (".cfg", ".conf", ".config", ".txt", ".log")
MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # the same limit as [features.spontaneous_file_upload] max_size_mb


@dataclass(frozen=True)
class Upload:
    name: str
    path: Path
    kind: Literal["knowledge", "config", "rejected"]
    reason: str = ""


def holds_device_secrets(name: str, data: bytes) -> bool:
    """Whether an uploaded file is kept only masked: every file with a configuration's extension (Junos and other
    refused platforms included), and a text file that reads like a configuration. Knowledge documents are kept as
    written (a standard that quotes a command must keep it)."""
    suffix = Path(name).suffix.lower()
    if suffix in (".cfg", ".conf", ".config", ".log") or not suffix:
        return True
    return suffix == ".txt" and looks_like_config(data[:200_000].decode("utf-8", errors="replace"))


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


class Progress:
    """Where each file of one upload is (waiting, checking, adding, assessing, done), shown in the Uploads step as a
    bar over the files and a line per file, updated as each one moves on."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.state = dict.fromkeys(names, "waiting")
        self.finished = 0

    def set(self, name: str, state: str, finished: bool = False) -> None:
        if name in self.state:
            self.state[name] = state
        self.finished += finished

    def view(self) -> str:
        total = len(self.names) or 1
        pct = round(100 * self.finished / total)
        bar = "▓" * (pct // 10) + "░" * (10 - pct // 10)
        mark = {"waiting": "○", "done": "✓", "refused": "✗"}
        return "\n".join([f"`{bar}` {pct}% — {self.finished} of {len(self.names)} file"
                          f"{'' if len(self.names) == 1 else 's'} done", "",
                          *(f"- {mark.get(s, '…')} {n} — {s}" for n, s in self.state.items())])


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
