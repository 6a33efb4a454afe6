"""The terms of a text for keyword search: lower-cased words that keep their inner dots, pluses and dashes
(``ios-xe``, ``17.9.4``, ``aes-256``), without a few stop words. The keyword index stores chunks as these terms and
queries are cut the same way, so both sides of a match agree."""

from __future__ import annotations

import re

_STOP = frozenset(["a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in", "is",
                   "it", "of", "on", "or", "our", "should", "the", "to", "we", "what", "when", "which", "why", "with",
                   "my", "according"])


MAX_TERM = 64  # longer runs of letters are not words anyone searches for (and each would be stored whole)


def tokenize(text: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9][a-z0-9.+-]*[a-z0-9]", text.lower()) if t not in _STOP and len(t) <= MAX_TERM]
