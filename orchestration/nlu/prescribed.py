"""Questions of what we do or must do, which the company's documents answer (issue 54): "which ntp servers should
devices use", "how often do we rotate the snmpv3 keys", "can a method list end in none?", "are uptime timestamps ok in
logs?", "what is maximum-prefix for", "what's our emergency admin account called". Read from the question's grammar —
a modal or a question of practice — and from what it does not ask: no device, place, time or measure of the fleet
("which routers should be upgraded first" and "how many devices must we fix" ask the data; "how many ntp servers must
a device use" does not)."""

from __future__ import annotations

import re

# a modal or a question of practice: what is required, allowed, done, called or for
PRACTICE = re.compile(
    r"\b(?:should|must|shall|supposed to|allowed|permitted|acceptable|mandatory|required|forbidden|banned)\b|"
    r"\b(?:is|are) (?:[\w-]+ ){0,4}(?:ok|okay|fine)\b|"
    r"\b(?:do|does|must|should) we\b(?! (?:have|run|got|own|operate|stand|look|fare)\b(?! to\b))|\bare we (?:supposed|allowed|required)\b|\bhow (?:often|long)\b|"
    r"\bhow (?:is|are) (?:the |our )?[\w -]{2,40} (?:authenticated|secured|protected|configured|allowed|done|set)\b|"
    r"\bper (?:the|our) (?:\w+ )?(?:standard|policy|runbook)\b|\baccording to\b|\bour (?:\w+ )?(?:standard|policy)\b|"
    r"\bwhat(?:'s| is| are) [\w -]{2,40} for\b|\bcalled\b|\bwhy (?:is|are|do|does|must|should|would)\b|"
    r"\bcan (?:a|an|the|we|i)\b|\bwhat (?:rate|release|version|mode|port|timers?|vlans?|subnet|interface|servers?)\b|"
    r"\b(?:min|minimum|max|maximum) (?:\w+ ){0,2}(?:version|size|rate|length)\b|\bwhen do(?:es)? (?:we|the|our)\b|"
    r"\bwho (?:approves?|approved|owns?)\b|\bwhat happens when\b|\bwhat if\b|\bescalat\w*|\bwhen (?:do|does|are|is)\b|"
    r"\b(?:get|gets|are|is) (?:replaced|reviewed|rotated|reported|retained|kept|renewed)\b|"
    r"\b(?:do|does) [\w /-]{1,40} need\b|\b(?:treated|considered|counted|handled) as\b|\bcounts? as\b|"
    # which of two roles a thing plays in the design ("is mpls the primary or the backup path"), which of two findings
    # goes first ("does a high on a critical asset beat a critical on a lab box"), on which day or at what time
    r"\b(?:is|are) [\w -]{1,30}? the \w+ or (?:the )?\w+\b|"
    r"\b(?:beats?|outranks?|takes? (?:priority|precedence)|comes? (?:first|before)|ahead of)\b|"
    r"\b(?:which|what) (?:day|weekday|time of day)\b", re.I)
# the question names our documents: what they say is asked, whatever words of live state it holds ("how do engineers
# reach devices per our runbook")
NAMES_OURS = re.compile(r"\b(?:per|according to|in) (?:the|our) (?:\w+ ){0,2}(?:standards?|polic(?:y|ies)|runbooks?|"
                        r"procedures?|guidelines?)\b|\bour (?:\w+ ){0,2}(?:standards?|polic(?:y|ies)|runbooks?|"
                        r"procedures?) (?:says?|requires?)\b", re.I)
# what the state of the network is asked by: devices or places as rows, a count, a measure, failures, now, a run
FLEET_STATE = re.compile(
    r"\b(?:which|what|any|how many|list|show|count|number of)\s+(?:of (?:the|our) )?(?:[\w-]+\s+){0,2}?"
    r"(?:devices|routers|switch(?:es)|firewalls|boxes|sites|stores|branches|controllers|asas|nexus|exceptions|"
    r"signatures|matches|findings|results|releases|versions)\b"
    r"(?!\s+(?:should|must))|"
    r"\bpass rate\b|\bfail(?:s|ing|ed|ure|ures)?\b|\bcompliant\b|\bstill\b|\bcurrently\b|\bright now\b|"
    r"\btoday\b|\bin the (?:\w+ )?(?:run|assessment)\b|\bdeviations?\b|\bscore\b|\bpercent\w*\b|"
    # (not a number a standard sets: "how many ntp servers must a device use", "how many ssh retries do we allow")
    r"\bhow many\b(?! (?!(?:devices|routers|switch(?:es)?|firewalls|boxes|sites|stores|branches)\b)"
    r"(?:[\w-]+ ){1,3}(?:must|should|shall|do we (?:allow|permit|keep|need|want)|are (?:allowed|permitted|required))\b)|"
    r"\bwhich ones\b|\b(?:are|is) there any\b|\b(?:any|every)where\b|"
    # a part of the network ranked: "what's our worst region for critical findings", "our best performing site"
    r"\b(?:worst|best|least compliant|most compliant)\s+(?:[\w-]+\s+)?(?:regions?|sites?|stores?|branch(?:es)?|"
    r"devices?|routers?|switch(?:es)?|firewalls?|boxes|platforms?)\b|"
    # what the devices run now, asked with no modal ("what release are the switches on", "what version is FW-1 running")
    r"\b(?:which|what)\s+(?:[\w-]+\s+)?(?:releases?|versions?|code|platforms?|models?)\s+(?:are|is|do|does)\s+"
    r"(?:the\s+|our\s+|all\s+)?(?:[\w-]+\s+){0,2}?[\w-]+\s+(?:on|run|running|using)\s*[?.!]*\s*$", re.I)


# live state asked outright (not "are uptime timestamps ok": a word of LIVE as the name of a setting)
_LIVE_STATE_WORDS = r"reach|reachable|ping|is (?:it |the \w+ )?(?:up|down)|cpu|memory|utili[sz]ation|counters?|online|offline"
_LIVE_ASKED_WORDS = rf"{_LIVE_STATE_WORDS}|right now|at the moment"
_LIVE_ASKED = re.compile(rf"\b(?:{_LIVE_ASKED_WORDS})\b", re.I)
_LIVE_WORDS = r"up|down|load|uptime|status|traffic|errors?|flapping"
# what only the network's running state holds: a question with these words is never the documents' alone
LIVE = re.compile(rf"\b(?:{_LIVE_ASKED_WORDS}|{_LIVE_WORDS}|currently)\b", re.I)
# the running state by the words of a state, not of a time ("right now" after a series is also its latest run)
LIVE_STATE = re.compile(rf"\b(?:{_LIVE_STATE_WORDS}|{_LIVE_WORDS})\b", re.I)


def prescribed(text: str) -> bool:
    """Whether ``text`` asks what we do or must do, and nothing of the network's state."""
    return PRACTICE.search(text) is not None and asks_no_state(text)


def asks_no_state(text: str) -> bool:
    """Whether ``text`` asks nothing of the network's state: no devices or places as rows, count, measure or failure
    of the fleet, and no live state (unless it names our documents)."""
    return FLEET_STATE.search(text) is None and (not asks_live(text) or NAMES_OURS.search(text) is not None)


# what a part of the network may reach, by design ("pos vlan - what can it reach"), not whether it reaches now
DESTINATIONS = re.compile(r"\b(?:what|which|where)\b[^?]{0,60}?\b(?:can|could|may|allowed to)\s+"
                          r"(?:it |they |\w+ )?(?:reach|talk to|access|connect to)\b", re.I)


def asks_live(text: str, words: re.Pattern[str] = _LIVE_ASKED) -> bool:
    """Whether ``text`` asks the network's running state (``words``: which words say so) — what a part may reach by
    design aside."""
    return words.search(DESTINATIONS.sub(" ", text)) is not None


_PRONOUN = re.compile(r"\b(?:it|its|they|them|their|those|these|that one|this one)\b", re.I)
_TOPIC_HEAD = re.compile(r"^[^?]{3,}?\s[-–—:]\s")  # "un-annotated critical slic results - when do they …"


_NAMED = re.compile(r"\b[\w.-]*\d[\w.-]*\b|\b[a-z]+-[a-z]+\b|\b[A-Z]{2,}\b")  # "ios-xe 16", "RTR-CORE-1", "ASA"


def about_the_last_answer(question: str) -> bool:
    """Whether the question's object is a pronoun for something said before it ("who approved it", "when do they
    expire"), not named in the question itself (a topic put first: "slic results - when do they get escalated?")."""
    first = re.split(r"\s+and\s+|[;?]\s+", question.strip(), maxsplit=1)[0]
    pronoun = _PRONOUN.search(first)
    # (a pronoun after a name the question gives points at that name: "how long do we have to get off ios-xe 16 once
    # its out of maintenance")
    return _TOPIC_HEAD.match(question) is None and pronoun is not None and \
        _NAMED.search(first[:pronoun.start()]) is None
