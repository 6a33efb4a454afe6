"""Text as people see it: names and titles normalised before they are matched or shown.

NFKC folds compatibility forms (full-width ``ＨＱ`` is ``HQ``); control characters and the Unicode bidirectional
controls (right-to-left overrides and isolates, the marks) are removed, so a file name or a site name cannot
display as something it is not (``/docs`` showed ``evil‮fdp.md`` as ``evilpdf.md``); whitespace runs become one
space.
"""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064"
                        "\u2066-\u2069\u061c\ufeff]")
_SPACES = re.compile(r"\s+")


def visible(text: str, limit: int | None = None) -> str:
    """``text`` on one line as it displays: NFKC, without control and bidi characters, at most ``limit`` long."""
    out = _SPACES.sub(" ", _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))).strip()
    return out[:limit].rstrip() if limit is not None else out


# Letters of other scripts that look like Latin ones (Unicode's confusables for the Latin capitals and the common
# lower-case ones): "НQ" with a Cyrillic Н reads as "HQ".
_LOOKALIKES = str.maketrans(
    "АВЕКМНОРСТХУІЈЅаеорсухіјѕԁԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικρν",
    "ABEKMHOPCTXYIJSaeopcyxijsdqwABEZHIKMNOPTYXoikpv")
_MIXED = re.compile(r"\S+")


def latin_lookalikes(text: str) -> str:
    """``text`` with look-alike letters of other scripts read as Latin, in words that also hold Latin letters or
    digits (a name typed with a stray Cyrillic letter); a word wholly in another script stays as it is. The result
    has the same length, character for character."""
    def read(m: re.Match[str]) -> str:
        word = m.group(0)
        mapped = word.translate(_LOOKALIKES)
        return mapped if mapped != word and re.search(r"[A-Za-z0-9]", word) else word

    return _MIXED.sub(read, text)


def singular(word: str) -> str:
    """A lower-case plural read as its singular, so that a question and a text match whichever they use
    ("deadlines" is "deadline", "criticals" "critical"); short words and "-ss", "-us", "-is" endings stay
    ("aaa", "class", "status", "analysis")."""
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")) else word


def plural(noun: str, n: int = 2) -> str:
    """An English noun for ``n`` things ("1 switch", "8 switches", "2 routers")."""
    if n == 1:
        return noun
    if re.search(r"[^aeiou]y$", noun):  # "category", "policy"
        return noun[:-1] + "ies"
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh", "z")) else "s")


# "how long do we have to fix a critical finding": a question of time, answered by an amount of time (a deadline)
HOW_LONG = re.compile(r"\b(?:how long|how much time|how soon|how quickly|how fast|by when|time limit|how many days)\b", re.I)
