"""Switching the collection a thread answers about: "back to the fleet", "use the lab-east configs",
"switch to collection upload-r1-…". Only collections the user may see can be named; the rest of the
message (if any) is still a question for that collection."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_I = re.IGNORECASE
FLEET = re.compile(r"\b(?:(?:go |switch |get )?back to|switch(?:ing)? to|use|answer (?:about|for)|return to)\s+"
                   r"(?:the |our |my )?(?:whole |managed |production )?(?:fleet|network inventory)\b", _I)
NAMED = re.compile(r"\b(?:(?:go |switch )?back to|switch(?:ing)? to|use|answer (?:about|for)|look at|open)\s+"
                   r"(?:the |my |our )?(?:collection\s+)?[`'\"]?(?P<name>[a-z0-9][\w.-]{1,79})[`'\"]?"
                   r"(?:\s+(?:configs?|configurations|collection|uploads?|devices))?", _I)
WORDS = re.compile(r"[a-z0-9]+", _I)


@dataclass(frozen=True)
class Switch:
    collection: str | None  # the collection switched to; None: a name the user may not see (or none such)
    name: str  # the name as the user wrote it
    mention: str
    rest: str  # what the message says besides the switch


def read_switch(text: str, visible: Callable[[], list[str]]) -> Switch | None:
    """The switch the text asks for, if any. ``visible``: the user's collections (besides the fleet), asked
    for only when the words could name one — most messages switch nothing and cost no lookup."""
    m = FLEET.search(text)
    if m:
        return Switch("fleet", "fleet", m.group(0), (text[:m.start()] + text[m.end():]).strip(" ,.;:!?-"))
    candidates = list(NAMED.finditer(text))
    if not candidates:
        return None
    by_key = {c.lower(): c for c in visible()}
    for m in candidates:
        name = m.group("name")
        said_collection = bool(re.search(r"\b(collection|configs?|configurations|uploads?)\b", m.group(0), _I))
        if name.lower() in by_key or (said_collection and re.search(r"[-_.\d]", name)):
            return Switch(by_key.get(name.lower()), name, m.group(0),
                          (text[:m.start()] + text[m.end():]).strip(" ,.;:!?-"))
    return None


def is_only_a_switch(switch: Switch) -> bool:
    """Nothing else was asked ("ok, back to the fleet please")."""
    rest = [w for w in WORDS.findall(switch.rest.lower()) if w not in ("ok", "okay", "please", "now", "and", "then",
                                                                        "thanks", "let", "s", "lets", "again")]
    return len(rest) < 2
