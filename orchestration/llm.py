"""The optional LLM (DESIGN §11), off by default: the one factory that builds a LangChain chat model.

When ``ASSESS_LLM_PROVIDER``/``ASSESS_LLM_MODEL`` are set, ``init_chat_model`` builds the provider's model
(its LangChain package must be installed, e.g. ``langchain-openai`` or ``langchain-ollama``). It may classify a
prompt the router is unsure about and write the narrative of an answer; every output passes the same guards
as deterministic text (valid intent labels; the reflector's number and citation check) and the deterministic
result is used whenever it does not. Tests inject LangChain's fake chat models with ``set_chat_model``; building
a real model under pytest is refused.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from orchestration.config import get_settings

log = logging.getLogger(__name__)
_lock = threading.Lock()
_override: Any = None
_built: dict[tuple[str, str, str | None], Any] = {}


def set_chat_model(model: Any) -> None:
    """Install a chat model (tests: a fake) or clear it (None)."""
    global _override
    with _lock:
        _override = model


def get_chat_model() -> Any | None:
    """The configured chat model, or None when no LLM is configured or it cannot be built."""
    with _lock:
        if _override is not None:
            return _override
    settings = get_settings()
    if not settings.llm_provider or not settings.llm_model:
        return None
    if "PYTEST_CURRENT_TEST" in os.environ:
        raise RuntimeError("tests must not build a real chat model; inject a fake with set_chat_model()")
    key = (settings.llm_provider, settings.llm_model, settings.llm_base_url)
    with _lock:
        if key not in _built:
            from langchain.chat_models import init_chat_model

            kwargs: dict[str, Any] = {"temperature": 0}
            if settings.llm_base_url:
                kwargs["base_url"] = settings.llm_base_url
            try:
                _built[key] = init_chat_model(settings.llm_model, model_provider=settings.llm_provider, **kwargs)
            except (ImportError, ValueError) as exc:
                log.warning("LLM %s/%s not available (%s); continuing without it", *key[:2], exc)
                _built[key] = None
        return _built[key]


def ask(prompt: str) -> str | None:
    """One completion as text, or None when there is no model or the call fails (callers fall back)."""
    model = get_chat_model()
    if model is None:
        return None
    try:
        reply = model.invoke(prompt)
    except Exception as exc:  # a remote model failing must never fail the turn
        log.warning("LLM call failed: %s", exc)
        return None
    content = getattr(reply, "content", reply)
    return content if isinstance(content, str) else None
