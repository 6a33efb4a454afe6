"""Two questions typed as one (issue 52): "which site is worst and what fails there most", "how many firewalls are
there? which release do most of them run", "list the spine switches; what's their pass rate". Each is answered in
order, the second read after the first (its "there", "them", "it" point at the first answer), by the runtime
(``orchestration/runtime.py``).

Only a clause that asks on its own is split off: it starts with a question word after "and", a semicolon or a
question mark. A clause that only narrows the first ("… and only the critical ones", "… and in september"), lists
two things one question asks for ("which switches and routers …"), asks what the standards say about it or a figure
of the same things (one turn answers both: ``_ANSWERED_TOGETHER``) is no second question; nor is the second half of a
question for the documents that points back ("who can approve an emergency change and how quickly must it be
documented?": the knowledge answer reads both halves, and the second alone has lost what "it" was).
"""

from __future__ import annotations

import re

# what starts a question of its own
_ASKING = (r"(?:what(?:'s| is| are| do| does| did| about)?|which|how many|how much|how(?:'s| is| are| do| does| did)?|"
           r"where|when|who|is|are|does|do|did|can|should|list|show|give me)")
# the boundary before it: "; ", "? " or " and " / ", and " / ", also "
_SPLIT = re.compile(rf"(?:\s*;\s*|\?\s+|,?\s+and\s+(?:also\s+)?|,\s+also\s+)(?={_ASKING}\b)", re.IGNORECASE)
# what a clause needs besides its question word to ask something ("and what about it" asks nothing new)
_MIN_WORDS = 3
# a question for the documents whose second half stands on its own ("what is the ssh idle timeout and where must
# syslog go?"): two questions; with "it" or "they" in the second half, one (the knowledge answer reads both)
_ASKS_THE_DOCUMENTS = re.compile(r"\b(?:standards?|polic(?:y|ies)|must|should|allowed|permitted|who|timeout|"
                                 r"procedures?|process)\b|^\s*what is the\b", re.IGNORECASE)
# "it", "they" … and "our standard" with no topic of its own ("… and what does our standard require?")
_POINTS_BACK = re.compile(r"\b(?:it|its|they|them|their|those|that|this|there)\b|"
                          r"\b(?:our|the) (?:standards?|polic(?:y|ies))\b(?!\s+(?:for|on|about)\b)", re.IGNORECASE)
# second clauses one turn already answers with the first: what the standards say about it (the plan reads the documents
# beside the data) and a rate of the same things ("how many routers in us-central, and what's their pass rate": two
# measures of one query; "… and how many of them fail ASA-TELNET" is a count of fewer things, a question of its own)
_ANSWERED_TOGETHER = re.compile(r"\b(?:standards?|polic(?:y|ies)|requir\w*|guidelines?|documents?|says?|mandat\w*|"
                                r"procedures?|process|must|should|allowed|permitted|approv\w*|who|why)\b|"
                                r"\b(?:their|they|them|those)\b.*\b(?:pass rate|compliance|percent\w*|score)\b|"
                                r"\b(?:pass rate|compliance|percent\w*|score)\b.*\b(?:their|they|them|those)\b",
                                re.IGNORECASE)
# "… checks were performed, and how many of those checks failed?": a count of the same things, one query
_OF_THE_SAME = re.compile(r"^\s*how many of (?:them|those|these)(?:\s+[\w-]+){0,2}?\s+(?:failed|fail|passed|pass|"
                          r"were assessed|are failing|are passing)\s*\??\s*$", re.IGNORECASE)


def points_back(question: str) -> bool:
    """Whether a question points at what was asked before it ("it", "there", "those", "our standard")."""
    return _POINTS_BACK.search(question) is not None


# places or devices as rows, or a grouping: "… and which sites have the most critical findings" asks beyond the first's
_OTHER_PLACES = re.compile(r"\b(?:sites|stores|branches|locations|offices|regions|data ?cent(?:er|re)s|campuses|devices|"
                           r"boxes|routers|switches|firewalls|fleet|network|overall|in total|per|by|each|every)\b",
                           re.IGNORECASE)


def asks_other_places(question: str) -> bool:
    """Whether a question asks about places or devices of its own, or across them (not where the one before did)."""
    return _OTHER_PLACES.search(question) is not None


def split_questions(prompt: str) -> list[str]:
    """The questions ``prompt`` asks, in order: one (the prompt itself) or two."""
    text = prompt.strip()
    for m in _SPLIT.finditer(text):
        first, second = text[:m.start()].strip(" ,"), text[m.end():].strip()
        asks = len(re.findall(r"\w+", first)) >= _MIN_WORDS and len(re.findall(r"\w+", second)) >= _MIN_WORDS and \
            not _OF_THE_SAME.match(second)
        together = bool(_ANSWERED_TOGETHER.search(first) or _ANSWERED_TOGETHER.search(second)) and not (
            _ASKS_THE_DOCUMENTS.search(first) and not _POINTS_BACK.search(second))
        if asks and not together:
            return [first if first.endswith("?") else first + "?", second]
    return [text]


# two things named and nothing else — no question word, verb or pronoun: two lookups ("ntp servers and syslog
# collectors?"), not one ("snmp auth and priv algorithms we allow?" asks one thing of two words)
_NOUN = r"(?!(?:what|which|how|who|where|when|why|we|i|our|do|does|is|are|must|should|can|the|and)\b)[\w-]+"
_TWO_THINGS = re.compile(rf"^\s*(?P<first>{_NOUN}(?:\s+{_NOUN}){{1,3}})\s*,?\s+and\s+(?P<second>{_NOUN}(?:\s+{_NOUN}){{1,3}})"
                         r"\s*\??\s*$", re.IGNORECASE)


def parts(question: str) -> list[str]:
    """The asks of one question for the documents, in order, at most three: "what is the SSH idle timeout and where
    must syslog go?" and "who approved it and when does it expire?" ask two things each (the knowledge answer answers
    each, under its own heading); "what vlans and ports …" asks one."""
    out = [question.strip()]
    listed = _TWO_THINGS.match(out[0])
    if listed:  # "ntp servers and syslog collectors?": two things named, each asked for
        return [f"{listed.group('first')}?", f"{listed.group('second')}?"]
    while len(out) < 3:
        found = next((m for m in _SPLIT.finditer(out[-1]) if len(re.findall(r"\w+", out[-1][:m.start()])) >= 2
                      and len(re.findall(r"\w+", out[-1][m.end():])) >= 2), None)
        if found is None:
            break
        last = out.pop()
        out += [last[:found.start()].strip(" ,;"), last[found.end():].strip()]
    return [p if p.endswith("?") else p.rstrip(".") + "?" for p in out]
