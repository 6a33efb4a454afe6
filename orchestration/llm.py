"""The optional LLM (DESIGN §11), off by default: the one factory that builds a LangChain chat model.

When ``ASSESS_LLM_PROVIDER``/``ASSESS_LLM_MODEL`` are set, ``init_chat_model`` builds the provider's model
(its LangChain package must be installed, e.g. ``langchain-openai`` or ``langchain-ollama``). It may classify a
prompt the router is unsure about and write the narrative of an answer; every output passes the same guards
as deterministic text (valid intent labels; the reflector's number and citation check) and the deterministic
result is used whenever it does not. Tests give ``build_services`` LangChain's fake chat models (``chat_model=``);
building a real model under pytest is refused.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from foundation.config import Settings

log = logging.getLogger(__name__)


def build_chat_model(settings: Settings) -> Any | None:
    """The configured chat model, or None when no LLM is configured or it cannot be built (``Services.chat_model``
    builds it once per services)."""
    if not settings.llm_provider or not settings.llm_model:
        return None
    if "PYTEST_CURRENT_TEST" in os.environ:
        raise RuntimeError("tests must not build a real chat model; give build_services a fake (chat_model=)")
    from langchain.chat_models import init_chat_model

    kwargs: dict[str, Any] = {"temperature": 0}
    if settings.llm_base_url:
        kwargs["base_url"] = settings.llm_base_url
    try:
        return init_chat_model(settings.llm_model, model_provider=settings.llm_provider, **kwargs)
    except (ImportError, ValueError) as exc:
        log.warning("LLM %s/%s not available (%s); continuing without it", settings.llm_provider, settings.llm_model,
                    exc)
        return None


def ask(model: Any | None, prompt: str) -> str | None:
    """One completion of ``model`` as text, or None when there is no model or the call fails (callers fall back)."""
    if model is None:
        return None
    try:
        reply = model.invoke(prompt)
    except Exception as exc:  # a remote model failing must never fail the turn
        log.warning("LLM call failed: %s", exc)
        return None
    content = getattr(reply, "content", reply)
    return content if isinstance(content, str) else None
