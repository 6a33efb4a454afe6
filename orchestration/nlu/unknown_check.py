"""A check asked for by a name no check of the catalog has (issue 52: a slot the reader cannot fill is said, never
dropped): "which devices fail storm control?" is not a list of the devices failing any check. The words after "fail",
"without", "missing" … name what is asked; a word of them that neither the checks, the reader's corpus nor the words of
network operations know is a check the assessment does not have."""

from __future__ import annotations

import re

from orchestration.nlu.frame import OPS_WORDS, Catalogs, FrameReader

# what a device fails, lacks or has no … of: the words up to a place, a time, a joint or the end ("failed logins" is
# a measure, not a check failed)
_FAILED_WHAT = re.compile(
    r"\b(?:fail(?:s|ing)?|failures? (?:of|on)|without|missing|lack(?:s|ing)?|with no|(?:have|has) no)\s+"
    r"(?:the\s+|a\s+|an\s+|any\s+)?(?!(?:on|at|in|for|since|during|across|from|to|by|of|with)\b)"
    r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
    r"(?=\s+(?:checks?|rules?|at|in|on|for|across|since|during|and|or|anywhere|today|now)\b|\s*[?.!,]|\s*$)", re.I)
_OPS = frozenset(OPS_WORDS.split())


def unknown_check(text: str, reader: FrameReader, catalogs: Catalogs) -> str | None:
    """The name of a check ``text`` asks about that no check of the catalog has ("storm control"), None otherwise."""
    for m in _FAILED_WHAT.finditer(text):
        words = reader.content_words(m.group("what"))
        # (a word with a digit is a name — a device, a release — not a check's)
        if any(w.isalpha() and w not in reader.lexicon and w not in catalogs.all_rule_words and w not in _OPS
               for w in words):
            return m.group("what").strip()
    return None
