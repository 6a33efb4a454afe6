"""Where Chainlit keeps uploaded files: under the data directory, one folder per server instance.

Chainlit puts uploads in ``<app root>/.files/<session id>/`` and deletes the whole ``.files`` folder when a
server stops — with the checkout as app root, a second instance from the same checkout (or a test server)
deleted the uploads of the first. Chainlit reads the location from ``chainlit.config.FILES_DIRECTORY`` (per
session, at upload time) and ``chainlit.server.FILES_DIRECTORY`` (at shutdown), so both are pointed at
``<data dir>/chainlit_files/<instance>``: each instance cleans up exactly its own uploads.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path
from typing import Any

import chainlit.config
import chainlit.server
from chainlit.session import BaseSession

from orchestration.config import get_settings


def use_instance_files_directory() -> Path:
    folder = get_settings().data_dir / "chainlit_files" / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=True)
    chainlit.config.FILES_DIRECTORY = folder
    setattr(chainlit.server, "FILES_DIRECTORY", folder)  # noqa: B010 (read by name at shutdown)
    return folder


def accept_empty_uploads() -> None:
    """Chainlit's upload route answers an empty file with a server error (its ``persist_file`` needs content
    or a path): an empty file is stored as one, so that the upload handler can say "the file is empty"."""
    original = BaseSession.persist_file
    if getattr(original, "accepts_empty", False):
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
        return await original(self, name, mime, path=path, content=content)

    persist_file.accepts_empty = True  # type: ignore[attr-defined]
    BaseSession.persist_file = persist_file  # type: ignore[method-assign]
