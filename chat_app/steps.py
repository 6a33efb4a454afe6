"""Chainlit steps and messages built on the event loop, without the 1 ms sleep Chainlit puts in their constructors.

Chainlit's step and message constructors sleep 1 ms on purpose (distinct creation times). On the event loop that
sleep stopped every session's traffic — 20 sessions × ~20 steps per answer put the first step of a question
0.3–0.45 s behind (py-spy under `assess bench concurrency`), and Chainlit's own handler builds every incoming message
that way. Building them in threads instead cost a thread hop per step and the GIL shared with the loop. So the
sleep is skipped (``skip_chainlits_sleep``, installed by the app) and ``made`` keeps creation times increasing.
"""

from __future__ import annotations

import importlib
import time
from datetime import datetime, timedelta
from typing import Any, TypeVar

import chainlit as cl

Made = TypeVar("Made", cl.Step, cl.Message)


class _WithoutSleep:
    """``time`` as Chainlit's step and message modules see it: everything but ``sleep``."""

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    @staticmethod
    def sleep(_seconds: float) -> None:
        return None


def skip_chainlits_sleep() -> None:
    for module in ("chainlit.step", "chainlit.message"):  # the modules (``chainlit.step`` is also a decorator's name)
        importlib.import_module(module).time = _WithoutSleep()  # type: ignore[attr-defined]


class _Clock:
    """The creation time of the last step built here."""

    last = datetime.min


def made(kind: type[Made], **fields: Any) -> Made:
    """A Chainlit step or message, each created after the one before (its time written with microseconds always:
    Chainlit's own text drops them when they are zero, and the history sorts by text)."""
    made_ = kind(**fields)
    if made_.created_at:
        at = max(datetime.fromisoformat(made_.created_at.rstrip("Z")), _Clock.last + timedelta(microseconds=1))
        made_.created_at = at.isoformat(timespec="microseconds") + "Z"
        _Clock.last = at
    return made_
