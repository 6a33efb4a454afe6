"""Which way a question ranks or chooses (issue 52): the words for the bad and the good end of a measure ("worst",
"cleanest"), for its high and low end ("most", "fewest"), their comparatives ("worse", "fewer") read as the
superlative they choose by ("is HQ or DataCenter-1 worse" is "which of the two is worst"), and the one reading of a
choice between two earlier answers ("which improved more", "which one is worse"). The query reader and the edits of
the last query read them from here, so a word added is read the same way by both."""

from __future__ import annotations

import re
from typing import Literal

_I = re.IGNORECASE

# the ends of a ranking: worst and best by the measure's ``better``, most and least by its value
WORST = re.compile(r"\b(?:worst|poorest|least compliant|most (?:serious|severe|dangerous)|riskiest)\b", _I)
BEST = re.compile(r"\b(?:best(?! practice)|cleanest|most compliant)\b", _I)
MOST = re.compile(r"\b(?:most|highest|biggest|largest|top)\b", _I)
LEAST = re.compile(r"\b(?<!\bat )(?:least|lowest|fewest|smallest|bottom)\b", _I)  # "at least 10" is a bound
# a comparative choosing between two named values, as the superlative it stands for
COMPARATIVE = re.compile(r"\b(?:worse|better|more|fewer|less)\b", _I)
SUPERLATIVE_OF = {"worse": "worst", "better": "best", "more": "most", "fewer": "fewest", "less": "least"}

# which of two earlier answers is asked for: any form, comparative, superlative or a verb of change
_BETTER = re.compile(r"\b(?:better|improv\w*|best|cleaner|healthier)\b", _I)
_WORSE = re.compile(r"\b(?:worse|wors\w*|worst|deteriorat\w*|regress\w*)\b", _I)
_MORE = re.compile(r"\b(?:more|most|higher|highest|bigger)\b", _I)
_LESS = re.compile(r"\b(?:less|least|fewer|fewest|lower|lowest|smaller)\b", _I)

Way = Literal["better", "worse", "more", "less"]


def which_way(text: str) -> Way | None:
    """The end a choice between two asks for ("which improved more": better; "which one is worse": worse), the
    measure's direction first, its size second; None when the words choose no end."""
    for way, words in (("better", _BETTER), ("worse", _WORSE), ("more", _MORE), ("less", _LESS)):
        if words.search(text):
            return way  # type: ignore[return-value]  # the literal of its pair
    return None
