"""Meta-intent detection (DESIGN §4): how a turn relates to the conversation.

Deterministic patterns over the prompt. Without history a follow-up pattern still says
``followup_question``; the classifier then decides whether the history resolves it or the
clarification gate must ask.
"""

from __future__ import annotations

import re

from orchestration.state import MetaIntent

_I = re.IGNORECASE
_END = r"[\s.!,;:)]*(?:$|\s)"

_DEICTIC_NOUNS = (r"(?:one|ones|devices?|sites?|routers?|switch(?:es)?|firewalls?|hosts?|boxes|box|findings?|issues?|"
                  r"problems?|configs?|configurations?|deviations?|assets?|results?|items?)")
# A reference back to something said before: "check it", "what about that one", "are those compliant?"
DEICTIC = re.compile(
    r"\b(?:check|fix|assess|scan|audit|review|analy[sz]e|inspect|evaluate|verify|explain|summari[sz]e|compare|"
    r"remediate|harden|secure|test|look (?:at|into)|show me|tell me about)\s+"
    rf"(?:it|them|(?:this|that|these|those)(?!\s+[a-z])|(?:this|that|these|those|the same) {_DEICTIC_NOUNS})\b"
    r"|\b(?:what|how) about (?:it|them|this|that|these|those)\b"
    r"|\b(?:how|does|did|do|has|have) (?:that|this|it|they|those|these) (?:compare|look|stack up|trend|change)"
    r"|\b(?:is|are|was|were) (?:it|this|that|they|these|those)\s+(?:still\s+)?(?:compliant|secure|ok|okay|fine|"
    r"vulnerable|affected|safe|hardened|fixed|resolved|correct|exposed|at risk|failing|passing)\b"
    rf"|\b(?:this|that|these|those) {_DEICTIC_NOUNS}\b"
    r"|\b(?:any|all|some|none|each|either|both) of (?:it|that|this|them|those|these)\b",  # "is any of that covered"
    _I,
)


# "there" as a place ("what fails there"), not "is there", "are there any", "there are"
PLACE_THERE = re.compile(r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )\bthere\b(?!\s+(?:is|are|was|were|any)\b)",
                         _I)


def refers_back(prompt: str) -> bool:
    """True when the prompt points at something earlier in the conversation ("check it", "those devices")."""
    return bool(DEICTIC.search(prompt))


# What points at the configuration files of the same message: "assess these", "what do these configs fail?"
_UPLOAD_REFERENCE = re.compile(
    r"\b(?:(?:these|those|them|they)(?: (?:files|configs|configurations|devices|boxes|routers|switches|firewalls))?|"
    r"(?:this|that) (?:file|config|configuration|device|box|router|switch|firewall))\b", _I)


def about_upload(text: str) -> str:
    """A message sent with configuration files, its references to them made explicit: the thread now answers about
    the upload's collection, and the files are the devices of its latest assessment ("assess these" → "assess the
    devices of the latest assessment", "which of these have telnet on?")."""
    return _UPLOAD_REFERENCE.sub("the devices of the latest assessment", text)


# A message that only hands a file over ("Please add this document.", "Here are my configs"): it asks nothing, so
# routing it by similarity would answer a question nobody asked (it scored as a fleet summary).
_FILE_NOUNS = r"(?:documents?|docs?|files?|pdfs?|polic(?:y|ies)|standards?|configs?|configurations?|notes?|runbooks?)"
FILE_HANDOFF = re.compile(
    r"^\s*(?:(?:please|pls|kindly|can you|could you|would you|now|ok(?:ay)?,?)\s+)*"
    r"(?:(?:add|upload|ingest|import|load|index|store|save|process|take)\s+(?:in\s+)?|"
    r"(?:here(?:'s| is| are| you go,?)|i(?:'ve| have)?\s*(?:just\s+)?(?:attached|uploaded|added|sent)|attached (?:is|are)|"
    r"see (?:the )?attached)\s+)"
    r"(?:(?:this|these|the|my|our|a|an|attached|new|updated|latest|following)\s+){0,3}" + _FILE_NOUNS +
    r"(?:\s+(?:to|into|in|for)\s+(?:the\s+|your\s+)?(?:knowledge(?: base)?|kb|index|system|you))?"
    r"(?:[\s,]+(?:please|thanks|thank you))?[\s.!]*$",
    _I,
)


def overlong(prompt: str, limit: int) -> str | None:
    """The answer to a message over ``limit`` characters (it is not a question to route), or None."""
    if len(prompt.strip()) <= limit:
        return None
    return (f"Your message is {len(prompt.strip()):,} characters long; I accept up to {limit:,}. Please send just the "
            "question (attach long documents or configs as files instead).")


def is_file_handoff(prompt: str) -> bool:
    """True when the message only hands over files ("Please add this document.") and asks no question."""
    return bool(FILE_HANDOFF.match(prompt))


_RULES: list[tuple[MetaIntent, re.Pattern[str]]] = [
    (
        "cancellation",
        re.compile(r"^\s*(?:cancel|stop|abort|never\s?mind|forget (?:it|about it|that)|no,? thanks?|drop it|scratch that)\b", _I),
    ),
    (
        "acknowledgement",
        re.compile(
            r"^\s*(?:thanks?(?: you)?(?: very much| a lot| so much)?|thx|ty|cheers|great|perfect|awesome|cool|nice|"
            r"got it|understood|makes sense|noted|ok(?:ay)?|helpful|that helps|much appreciated|appreciated)"
            + _END + r"(?![^?]*\?)(?!.*\b(?:what|which|how|why|where|when|who|show|list|give|tell|then)\b)(?:.{0,40})$",
            _I,  # "ok - then what does it fail?" is a question after an acknowledgement: a question
        ),
    ),
    (
        "confirmation",
        re.compile(r"^\s*(?:yes|yep|yeah|yup|sure|correct|exactly|right|do it|go ahead|please do|confirm(?:ed)?|affirmative)" + _END, _I),
    ),
    (
        "clarification_request",
        re.compile(
            r"^\s*(?:what do you mean|what does (?:that|this|it) mean|can you clarify|could you clarify|"
            r"(?:can|could) you explain (?:that|this|it)|i don'?t (?:understand|get it)|huh\b|meaning\?)",
            _I,
        ),
    ),
    (
        "escalation",
        re.compile(
            r"\bescalat\w*|\bopen an? (?:ticket|case|incident)\b|\bpage (?:the )?on-?call\b|"
            r"\bnotify (?:the )?(?:soc|noc|security team|network team)\b|\btalk to (?:a|an) (?:human|engineer|person)\b",
            _I,
        ),
    ),
    (
        "followup_question",
        re.compile(
            r"^\s*(?:and|also|what about|how about|same (?:thing |again |but |question )?(?:for|with|in)|same but|now|then|ok(?:ay)?,? (?:and|now|what)|sorry,? i meant|i meant)\b|"
            r"\b(?:the same (?:devices|sites|assets|scope|ones)|those (?:devices|assets|ones|findings|issues)|"
            r"these (?:devices|assets|findings|issues)|the (?:first|second|third|fourth|fifth|last|previous) (?:one|finding|issue|item|device)|"
            r"(?:that|this) (?:one|finding|issue|device)|focus (?:only )?on|only (?:show )?(?:the )?\w+s\s*$|"
            r"explain (?:the )?(?:first|second|third|last) )|" + DEICTIC.pattern,
            _I,
        ),
    ),
]


def detect_meta_intent(prompt: str) -> MetaIntent:
    """The first matching meta-intent in priority order, else ``new_topic``."""
    for meta, pattern in _RULES:
        if pattern.search(prompt):
            return meta
    return "new_topic"
