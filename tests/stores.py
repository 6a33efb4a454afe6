"""The stores a test reads beside the product: the memory the environment configures, as the services open it."""

from __future__ import annotations

from foundation.config import get_settings
from orchestration.memory.store import MemoryStore


def configured_memory(quota_bytes: int | None = None) -> MemoryStore:
    """The memory store at the configured ``memory_url`` (what ``build_services().memory()`` opens)."""
    settings = get_settings()
    return MemoryStore(url=settings.memory_url,
                       quota_bytes=quota_bytes if quota_bytes is not None else settings.memory_quota_mb * 1024 * 1024)
