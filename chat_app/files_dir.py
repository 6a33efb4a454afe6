"""Where Chainlit keeps uploaded files, and what of them ever touches the disk.

Chainlit puts uploads in ``<app root>/.files/<session id>/`` and deletes the whole ``.files`` folder when a
server stops — with the checkout as app root, a second instance from the same checkout (or a test server)
deleted the uploads of the first. Chainlit reads the location from ``chainlit.config.FILES_DIRECTORY`` (per
session, at upload time) and ``chainlit.server.FILES_DIRECTORY`` (at shutdown), so both are pointed at
``<data dir>/chainlit_files/<instance>``: each instance cleans up exactly its own uploads.

A configuration holds device secrets, and a server can die between the upload and the message that uses it (its
folder then outlives it). So an upload is written to disk only as it is kept (``uploads.kept_upload``: a
configuration masked, a text document with the configuration lines in it masked); the raw bytes of a file that
changed stay in the upload's session, in memory, until the message takes them (``take_raw_upload``) or the session
ends. While a file arrives it stays in memory too (``MultiPartParser.spool_max_size`` is raised to the upload limit:
Starlette spools anything over 1 MB to a temporary file, raw). Each instance holds a lock on its folder; at start, the folders of
instances that no longer hold theirs (a crash, a SIGKILL) are removed.
"""

from __future__ import annotations

import fcntl
import mimetypes
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import chainlit.config
import chainlit.server
from chainlit.session import BaseSession

from chat_app.security import UPLOADING
from chat_app.uploads import holds_device_secrets, kept_upload

LOCK = ".alive"


@dataclass(frozen=True)
class InstanceFiles:
    """This instance's upload folder and the open lock that marks it alive (held for the life of the process: the
    server's parts keep it; closed, the next instance's sweep would remove the folder)."""

    folder: Path
    lock: BinaryIO


def use_instance_files_directory(data_dir: Path) -> InstanceFiles:
    root = data_dir / "chainlit_files"
    root.mkdir(parents=True, exist_ok=True)
    sweep_dead_instances(root)
    folder = root / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=True)
    lock = (folder / LOCK).open("wb")
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    chainlit.config.FILES_DIRECTORY = folder
    setattr(chainlit.server, "FILES_DIRECTORY", folder)  # noqa: B010 (read by name at shutdown)
    return InstanceFiles(folder, lock)


def sweep_dead_instances(root: Path) -> list[Path]:
    """Remove the upload folders whose instance is gone (nobody holds its lock); the removed folders."""
    removed = []
    for folder in (p for p in root.iterdir() if p.is_dir()):
        try:
            with (folder / LOCK).open("ab") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: its instance is gone
        except BlockingIOError:
            continue  # a running instance
        except OSError:
            pass  # no lock file: a folder from before locks, or half made
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def take_raw_upload(session: Any, path: Path) -> bytes:
    """The bytes a user uploaded at ``path``: from the session's memory for a file kept masked on disk (taken: a
    second call reads the masked file), else from the file."""
    raw = getattr(session, "raw_uploads", {}).pop(str(path), None)
    return raw if raw is not None else path.read_bytes()


def install_upload_guards() -> None:
    """Chainlit's ``persist_file``, so that (1) an empty file is stored as one — Chainlit's upload route answered it
    with a server error, and the upload handler should say "the file is empty" — and (2) a file is written only as it
    is kept (``kept_upload``), a configuration's raw bytes kept in the session's memory; and Starlette keeps an upload
    in memory while it arrives, never in a temporary file. Only files of the upload route are looked at: the
    app's own elements passed through here too, each chart's and JSON view's text masked as if it were a
    configuration (a fifth of the chat server's CPU at 20 sessions) and its bytes kept for the session's life."""
    from starlette.formparsers import MultiPartParser

    upload = getattr(chainlit.config.config.features, "spontaneous_file_upload", None)
    largest = (getattr(upload, "max_size_mb", None) or 25) + 1
    MultiPartParser.spool_max_size = max(MultiPartParser.spool_max_size, largest * 1024 * 1024)
    original = BaseSession.persist_file
    if getattr(original, "guarded", False):
        return

    async def persist_file(self: BaseSession, name: str, mime: str, path: str | None = None,
                           content: bytes | str | None = None) -> Any:
        if not path and content is not None and len(content) == 0:
            with tempfile.NamedTemporaryFile(dir=self.files_dir.parent, delete=False) as empty:
                path = empty.name
            try:
                return await original(self, name, mime, path=path)
            finally:
                Path(path).unlink(missing_ok=True)
        if not UPLOADING.get():
            return await original(self, name, mime, path=path, content=content)
        # stored under the extension of the user's file name, not of the type the browser claimed (Chainlit names the
        # file after the type: a text file sent as application/octet-stream became ".bin" and was refused)
        mime = mimetypes.guess_type(name)[0] or mime
        raw = content.encode() if isinstance(content, str) else content
        if raw is None and path:
            raw = Path(path).read_bytes()
        masked = kept_upload(name, raw) if raw is not None else None
        if raw is None or masked is raw:
            return await original(self, name, mime, path=path, content=content)
        reference = await original(self, name, mime, content=masked)
        if not holds_device_secrets(name, raw):  # a document is added from its masked text: nothing to keep
            return reference
        stored = self.files[reference["id"]]["path"]
        if not hasattr(self, "raw_uploads"):
            self.raw_uploads = {}  # type: ignore[attr-defined]
        self.raw_uploads[str(stored)] = raw  # type: ignore[attr-defined]
        return reference

    persist_file.guarded = True  # type: ignore[attr-defined]
    BaseSession.persist_file = persist_file  # type: ignore[method-assign]

