"""Element storage on the local filesystem: Chainlit's storage-client interface, so that citation chips,
charts and exported files are persisted with the thread and a resumed thread shows them exactly as live.

Files live under ``<data dir>/elements`` named by a hash of Chainlit's object key (no path from a user ever
becomes a file path). They are served by ``GET /element-files/<object key>`` only with a signature and an
expiry that this process issued (HMAC with the app secret), like the presigned URLs of Chainlit's S3/Azure
clients: the data layer hands a fresh URL out only to the thread's owner. For several app replicas, use one
of Chainlit's object-store clients instead (``chainlit.data.storage_clients``; docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from chainlit.data.storage_clients.base import BaseStorageClient

URL_PREFIX = "/element-files"
URL_LIFETIME_SECONDS = int(os.environ.get("STORAGE_EXPIRY_TIME", "3600"))


class LocalStorageClient(BaseStorageClient):
    def __init__(self, root: Path, secret: str, lifetime: int = URL_LIFETIME_SECONDS) -> None:
        self.root = root
        self.secret = secret.encode()
        self.lifetime = lifetime

    def path_of(self, object_key: str) -> Path:
        digest = hashlib.sha256(object_key.encode()).hexdigest()
        return self.root / digest[:2] / digest

    def signature(self, object_key: str, expires: int) -> str:
        return hmac.new(self.secret, f"{object_key}\n{expires}".encode(), hashlib.sha256).hexdigest()

    def verify(self, object_key: str, expires: int, signature: str) -> bool:
        return expires >= time.time() and hmac.compare_digest(self.signature(object_key, expires), signature)

    def size(self, object_key: str) -> int:
        """The bytes a stored file takes (0 when there is none)."""
        try:
            return self.path_of(object_key).stat().st_size
        except OSError:
            return 0

    def read(self, object_key: str) -> tuple[bytes, str] | None:
        """The stored bytes and their MIME type, or None."""
        path = self.path_of(object_key)
        if not path.is_file():
            return None
        meta = json.loads(path.with_suffix(".json").read_text()) if path.with_suffix(".json").exists() else {}
        return path.read_bytes(), str(meta.get("mime") or "application/octet-stream")

    async def upload_file(self, object_key: str, data: bytes | str, mime: str = "application/octet-stream",
                          overwrite: bool = True, content_disposition: str | None = None) -> dict[str, Any]:
        path = self.path_of(object_key)
        if path.exists() and not overwrite:
            return {"object_key": object_key, "url": await self.get_read_url(object_key)}
        path.parent.mkdir(parents=True, exist_ok=True)
        body = data.encode() if isinstance(data, str) else data
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(body)
        tmp.replace(path)  # atomic: a reader never sees half a file
        path.with_suffix(".json").write_text(json.dumps({"mime": mime, "object_key": object_key}))
        return {"object_key": object_key, "url": await self.get_read_url(object_key)}

    async def get_read_url(self, object_key: str) -> str:
        expires = int(time.time()) + self.lifetime
        return f"{URL_PREFIX}/{quote(object_key)}?expires={expires}&signature={self.signature(object_key, expires)}"

    async def delete_file(self, object_key: str) -> bool:
        path = self.path_of(object_key)
        for p in (path, path.with_suffix(".json")):
            p.unlink(missing_ok=True)
        return True

    async def close(self) -> None:
        return None


def add_route(app: Any, storage: LocalStorageClient) -> None:
    """Serve stored elements on the Chainlit app, ahead of its catch-all page route."""
    from fastapi import HTTPException, Response

    async def element_file(object_key: str, expires: int = 0, signature: str = "") -> Response:
        if not storage.verify(object_key, expires, signature):
            raise HTTPException(status_code=403, detail="link expired or not valid")
        found = storage.read(object_key)
        if found is None:
            raise HTTPException(status_code=404, detail="not found")
        body, mime = found
        return Response(content=body, media_type=mime, headers={"Cache-Control": "private, max-age=300"})

    app.add_api_route(URL_PREFIX + "/{object_key:path}", element_file, methods=["GET"])
    app.router.routes.insert(0, app.router.routes.pop())  # before "/{full_path:path}", which serves the page
