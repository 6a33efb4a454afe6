"""The sentences of the retrieved chunks that answer a question (issue 54): chosen by how well each answers it — how
close it is in meaning (the embedding model), whether it holds the kind of value asked for (an amount of time for "how
long", an address for "where", a name for "who" or "called") and the question's own words in it or in its section's
heading — not by where it stands. A sentence is kept with the chunk it came from, so that it is cited to that chunk and
no other; the user's own uploads (``<user>/<name>``: only their owner retrieves them) are told apart, to lead."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from foundation.vocabulary.text import HOW_LONG, singular
from orchestration.interpretation.enterprise import sentences
from orchestration.nlu.spelling import expand_shorthand
from orchestration.outputs import RetrievedChunk

Similarity = Callable[[str, list[str]], list[float]]  # (question, sentences) → cosine of each

_WORD = re.compile(r"[a-z0-9][a-z0-9+.-]{2,}")
NORMATIVE = re.compile(r"\b(?:must|shall|required|requires|never|only|all (?:network )?devices)\b", re.I)
_STOP = frozenset(["the", "and", "for", "our", "what", "how", "why", "should", "with", "does", "are", "this", "that",
                   "from", "into", "when", "which", "best", "practice", "configure", "configuring", "configuration",
                   "according", "company", "standards", "standard", "flagged", "deviation", "per", "new", "need",
                   "needs", "happen", "happens", "else", "get", "gets", "we", "allow", "allowed",
                   "ok", "okay", "can", "must", "there", "any", "policy", "policies", "procedure", "guideline", "those", "these",
                   "them", "they", "their", "its", "it", "you", "your", "would", "could", "matter", "matters",
                   "important", "reason", "purpose", "point"])
# how a question asks for a document, not what it is about ("where is the escalation process written down")
_ASKING = frozenset(["where", "written", "down", "documented", "document", "find", "kept", "described", "describe",
                     "say", "says", "tell", "have", "who", "team", "runbook", "vs", "versus"])
_SAME = {"process": "procedure", "processe": "procedure", "workflow": "procedure",  # one word for one thing
         "owns": "own", "owned": "own", "owner": "own", "ownership": "own", "responsible": "own",
         "remediation": "fix", "remediate": "fix", "remediated": "fix", "resolve": "fix", "resolved": "fix",
         "fixed": "fix", "fixing": "fix", "patch": "fix", "patched": "fix", "patching": "fix",
         "retention": "retain", "retained": "retain", "keeps": "retain", "keep": "retain", "kept": "retain"}


def stem(word: str) -> str:
    """One form for a verb's forms, on both sides of a match: "upgrade", "upgraded" and "upgrading" are "upgrad",
    "fixing" and "fixed" "fix" (short words are left alone: "used" is not "us")."""
    for end in ("ing", "ed", "e"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[:-len(end)]
    return word


def terms(text: str, spelled_out: bool = False) -> set[str]:
    """The words of ``text`` that say what it is about, in one form each; a hyphenated word is its parts too (the
    tag ``[ASA-TLS]`` says "asa" and "tls", "server-version" "version"), and a name of capitalised words its
    initials ("Change Advisory Board" is also "cab"). ``spelled_out``: a document's text, whose runs of words are
    also the acronyms a question may use for them (``_initials``)."""
    # (shorthand typed is the word written: "mgmt" is "management")
    found = [w.rstrip(".-") for w in _WORD.findall(expand_shorthand(text).lower())]  # "measure." at a sentence's end is "measure"
    found += [p for w in found if "-" in w for p in w.split("-") if len(p) >= 3]
    found += ["".join(w[0] for w in run.split()).lower() for run in _NAME_RUN.findall(text)]
    if spelled_out:  # a document's words: also the acronyms a question may use for them
        found += _initials(text)
    words = (_one(w) for w in found if len(w) >= 3 and w not in _STOP and w not in _ASKING)
    return {stem(_SAME.get(w, w)) for w in words}


def _initials(text: str) -> list[str]:
    """What an acronym of the text's words would be: "spanning tree" is "stp" (a protocol's), "wireless LAN controller"
    "wlc" — an engineer types the acronym, the document spells it out."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]{2,}", text)]
    out = []
    for i in range(len(words) - 1):
        run = words[i:i + 3]
        if any(w in _STOP or w in ("a", "an", "of", "to", "in", "on", "or", "is", "be", "by", "as", "at") for w in run[:2]):
            continue
        two = run[0][0] + run[1][0]
        out.append(two + "p")
        if len(run) == 3 and run[2] not in _STOP:
            out.append(two + run[2][0])
    return out


def _one(word: str) -> str:
    """``singular``, and a plural of four letters too ("keys", "logs", "acls": not "this" or "plus")."""
    if len(word) == 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return singular(word)


_NAME_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){2,4}\b")  # three to five capitalised words: a name


# words that name kinds of devices or of results: a passage that shares only these with the question does not
# answer it
GENERIC = frozenset(stem(singular(w)) for w in [
    "router", "switch", "switches", "firewall", "device", "network", "cisco", "edge", "core", "access", "branch",
    "store", "site", "finding", "issue", "deviation", "problem"])


# of those, the kinds of parts of the network ("store firewalls"), which tell sentences apart (a result's kind does not)
_PART_KINDS = GENERIC - frozenset(stem(singular(w)) for w in ["finding", "issue", "deviation", "problem", "network",
                                                             "device", "cisco"])


def shared(topic: set[str], words: set[str]) -> set[str]:
    """The words of ``topic`` that ``words`` hold, as written or as the start of a longer form ("auth" in
    "authentication", "priv" in "privacy", "snmp" in "snmpv3", and the other way round)."""
    return {t for t in topic if t in words or (len(t) >= 4 and any(
        (w.startswith(t) or t.startswith(w)) and len(w) >= 4 for w in words))}


def about(chunk: RetrievedChunk) -> set[str]:
    """What a chunk is about: the words of its section path (or its document's title)."""
    return terms(chunk.metadata.section or chunk.metadata.title, spelled_out=True)


# the kind of value a question asks for, and how a sentence holds one
_DURATION = re.compile(r"\b\d+(?:[.,]\d+)?\s*(?:(?:business|working|calendar)\s+)?(?:ms|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|"
                       r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen)\s+"
                       r"(?:(?:business|working|calendar)\s+)?(?:seconds?|"
                       r"minutes?|hours?|days?|weeks?|months?|years?)\b", re.I)
_OFTEN = re.compile(_DURATION.pattern + r"|\b(?:yearly|monthly|quarterly|weekly|daily|annually|every (?:quarter|year|"
                    r"month|week|day))\b", re.I)  # how often: an amount of time, or a word for one
_ADDRESS = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?\b|\bjump host\b|\b[a-z]+\d+\.[a-z.]+\b|"
                      # or a place of the network ("where is staging hosted": "DataCenter-2 … hosts the staging …")
                      r"\b(?:DataCenter|Store|Branch|Site|Lab)-\w+\b|\bHQ\b|\bdata cent(?:er|re)s?\b", re.I)
_INTERFACE = re.compile(r"\b(?:Loopback|Vlan|GigabitEthernet|Ethernet|mgmt)\d*|\b(?:management|wireless management) "
                        r"interface\b|\bVLAN \d+", re.I)
_WHO = re.compile(r"\b(?:team|office|board|manager|owned by|approved by|SOC|CISO|engineer|IT|on-call|NOC)\b")
_WHEN = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
                   r"\b\d{1,2}:\d{2}\b|\b20\d\d\b|\bfirst \w+ of\b|\bwithin\b|\bafter\b|\bbefore\b", re.I)
_NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|both|single)\b", re.I)
_NAME = re.compile(r"`[^`]+`|\"[^\"]+\"|\b[A-Z][\w-]*\d[\w-]*\b|\b[a-z]+\d+\b")
_BECAUSE = re.compile(r"\b(?:because|so that|so it|in order to|otherwise|protects?|prevents?|an attacker|exploited|"
                      r"can (?:shift|starve|erase|take|drop|invalidate|reach|read|change)|could|would|is why|lets? "
                      r"(?:anyone|an attacker)|in clear text|risk)\b", re.I)
_ACRONYM = re.compile(r"\b[A-Z]{2,}(?:-?\d+)*\b")  # SHA, AES-128, MD5, TLS, IKEv2 aside
_ASKS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(r"\bhow often\b|\brotat\w*|\breviewed\b|\brenewed\b", re.I), _OFTEN),
    (re.compile(r"\bhow (?:long|soon|fast|quickly)\b|\bretain\w*|\bretention\b|\btime-?outs?\b|\btimers?\b|"
                r"\bdeadlines?\b|\bwithin\b|" + HOW_LONG.pattern, re.I), _DURATION),
    (re.compile(r"\bwhere\b|\bwhich (?:ip|address|subnet|network|server|collector|host)|\bips?\b|"
                r"\baddress(?:es)?\b|\bsubnets?\b|\bservers?\b|\bcollectors?\b|\bjump host\b|\bfrom where\b", re.I),
     _ADDRESS),
    (re.compile(r"\binterfaces?\b|\bsourced?\b|\bvlans?\b", re.I), _INTERFACE),
    (re.compile(r"\bwho\b|\bowns?\b", re.I), _WHO),
    (re.compile(r"\bwhen\b|\bdate\b|\bexpir\w*|\bwindow\b|\b(?:which|what) (?:day|weekday)\b", re.I), _WHEN),
    (re.compile(r"\bports?\b|\bhow (?:much|many|big|large)\b|\bsize\b|\brate\b|\bbandwidth\b|\bversion\b|"
                r"\bextension\b|\bnumber\b|\bminimum\b|\bmin\b|\bmax\w*\b|\bwhat release\b", re.I), _NUMBER),
    (re.compile(r"\bcalled\b|\bnamed?\b|\bwhich (?:account|host|user)\b", re.I), _NAME),
    (re.compile(r"\b(?:algorithms?|ciphers?|protocols?|hash(?:es|ing)?|encryption)\b", re.I), _ACRONYM),
    # (a purpose: "what is maximum-prefix for" — not "what is the best practice for SNMPv3", a standard asked for)
    (re.compile(r"\bwhy\b|\bwhat for\b|\bwhat is (?!(?:the |our )?(?:best practices?|recommend\w*|standards?|polic\w+|"
                r"guidance|rules?|requirements?|config\w*) for\b)[\w -]{2,40} for\b|\bpurpose\b|\brisks?\b", re.I),
     _BECAUSE),
]


def asked_values(question: str) -> list[re.Pattern[str]]:
    """The kinds of value ``question`` asks for (none for a question of what or why)."""
    return [value for ask, value in _ASKS if ask.search(question)]


@dataclass(frozen=True)
class Sentence:
    """A sentence of a retrieved chunk and how well it answers the question it was scored for."""
    chunk: RetrievedChunk
    rank: int  # its chunk's place in retrieval
    position: int  # its place in the chunk
    text: str  # as the document has it
    score: float = 0.0

    @property
    def source(self) -> str:
        return self.chunk.metadata.source

    @property
    def own(self) -> bool:
        """Whether it comes from the asker's own upload (stored as ``<user>/<name>``: only its owner retrieves it)."""
        return "/" in self.source


MARGIN = 0.12  # below the best sentence's score by more than this, a sentence speaks of the topic, not to the question
MOST = 3  # sentences quoted for one part of a question
MOST_HOW_TO = 8  # … for "how should I configure X", which the standard's several requirements answer


def quotable(content: str, title: str) -> list[str]:
    """The sentences of a chunk that may be quoted: ``enterprise.sentences``, a title line with no stop of its own (a
    PDF's first line) taken off the sentence it ran into."""
    out = []
    for text in sentences(content):
        if title and text.startswith(title + " ") and len(text) > len(title) + 20:
            text = text[len(title):].strip()
        out.append(text)
    return out


_CODE = re.compile(r"```[^\n]*\n(.*?)```", re.S)


def config_lines(content: str) -> list[str]:
    """The lines of the configuration blocks of a chunk, as written (placeholders such as ``<key>`` and blank lines
    left out: a line with a secret's place holds no value to quote)."""
    return [line.strip() for block in _CODE.findall(content) for line in block.split("\n")
            if line.strip() and "<" not in line]


def read_under(path: str, sentence: str) -> str:
    """A sentence as it is embedded: under its section's path, which often says what it is about."""
    return f"{path}: {sentence}"


def sentence_texts(chunks: Sequence[tuple[str, str, str]]) -> list[str]:
    """The texts ``answering`` embeds for chunks given as (content, title, section path): what a turn worker embeds
    once at start for the shared documents (``turn_pool.warm_up``)."""
    return list(dict.fromkeys(read_under(section or title, text) for content, title, section in chunks
                              for text in [*quotable(content, title), *(f"`{line}`" for line in config_lines(content))]))


EMBEDDED = 40  # candidate sentences read for meaning per question at most (those not preloaded cost ~3 ms each)
NEAR = 0.5  # a sentence this close in meaning answers with one of the question's words ("which timezone for log
# timestamps": "Timestamps use UTC with millisecond precision")


def answering(part: str, context: str, chunks: Sequence[RetrievedChunk], similar: Similarity | None,
              margin: float = MARGIN, also: str = "") -> list[Sentence]:
    """The sentences of ``chunks`` that answer ``part`` of a question, best first (empty: none does), those within
    ``margin`` of the best. ``context``: words of the rest of the question, for a part that points back ("… and when
    does it expire"). ``also``: words the question means without saying ("approved releases" for "is 17.9.4 approved?").
    """
    return within(ranked(part, context, chunks, similar, also), part, margin)


def within(scored: Sequence[Sentence], part: str, margin: float = MARGIN) -> list[Sentence]:
    """Of ``scored`` (``ranked``'s, best first), those within ``margin`` of the best — at most ``MOST`` at the usual
    margin — each with the sentence it points back to."""
    if not scored:
        return []
    best = scored[0].score
    how_to = re.search(r"\bhow (?:should|do|must|can) (?:i|we)\b.*\b(?:configur\w*|set ?up|enable)\b", part, re.I)
    most = MOST_HOW_TO if how_to else MOST
    chosen = [s for s in scored if s.score >= best - margin][:most if margin <= MARGIN else None]
    return _with_antecedents(chosen)


def ranked(part: str, context: str, chunks: Sequence[RetrievedChunk], similar: Similarity | None,
           also: str = "") -> list[Sentence]:
    """Every sentence of ``chunks`` that speaks to ``part``, scored by how well it answers it, best first: read for
    meaning once per part, however many margins are then taken of it (``within``)."""
    own_terms = terms(part) | terms(also)
    asked = own_terms | (terms(context) if context and (_points_back(part) or len(own_terms - GENERIC) < 2) else set())
    if HOW_LONG.search(part):
        asked |= terms("deadline")
    topic = asked - GENERIC or asked
    if not topic:
        return []
    needed = 2 if len(topic) >= 3 and not HOW_LONG.search(part) else 1
    values_asked = any(v is not _BECAUSE for v in asked_values(part))  # a value, not a reason
    part_kinds = terms(part) & _PART_KINDS
    candidates: list[tuple[Sentence, int, int]] = []
    mine: list[int] = []  # of a candidate's shared words, how many are the part's own (not the rest of the question's)
    for rank, chunk in enumerate(chunks):
        heading = about(chunk)
        # a section whose own heading is only words asked ("RPKI" for "what rpki policy do we apply") is about what
        # is asked as much as two words of a longer path are
        leaf = terms((chunk.metadata.section or "").split("›")[-1])
        named_section = 2 if leaf and shared(topic, leaf) == leaf else 0
        said = quotable(chunk.content, chunk.metadata.title)
        # a value asked that only the reference configuration holds ("how many ssh auth retries do we allow": `ip ssh
        # authentication-retries 3`): its lines are quotable too, after the chunk's sentences
        code = [f"`{line}`" for line in config_lines(chunk.content)] if values_asked else []
        for position, text in enumerate([*said, *code]):
            if position == len(said) - 1 and position and not re.search(r"[.:!?)\]`*\"]\s*$", text) \
                    and chunk.content.rstrip().endswith(text.split()[-1]):
                continue  # cut by the chunk's edge mid-sentence: the next chunk holds it whole
            # a rule tag ("[ASA-TLS]") says what a sentence is about, as its heading does: not its own words
            words, tagged = terms(_TAG.sub(" ", text), spelled_out=True), terms(" ".join(_TAG.findall(text)))
            own = shared(topic, words)
            shared_own = len(own)
            shared_heading = max(len(shared(topic - own, heading | tagged)), 0 if own else named_section)
            # (or two kinds of parts the question names, for a reading by meaning: "when are branch routers
            # refreshed" — "Branch routers are replaced after seven years in service")
            kinds_named = len(shared(part_kinds, words)) >= 2
            if shared_own or (rank < 3 and shared_heading >= min(2, len(topic))) or kinds_named:
                candidates.append((Sentence(chunk, rank, position, text), shared_own, shared_heading))
                mine.append(len(own & own_terms))
    if not candidates:
        return []
    if len(candidates) > EMBEDDED:
        # a long passage (an upload of show output, a table of hundreds of rows) has hundreds of candidates: the ones
        # the question's words point at most are read for meaning, so that a turn embeds a bounded number of sentences
        ranked = sorted(range(len(candidates)), key=lambda i: (-2 * candidates[i][1] - candidates[i][2],
                                                               candidates[i][0].rank, candidates[i][0].position))
        keep = sorted(ranked[:EMBEDDED])
        candidates, mine = [candidates[i] for i in keep], [mine[i] for i in keep]
    question = f"{part} {context}" if context and _points_back(part) else part
    # each sentence read under its section's path ("NTP … Standard › Servers: Use the two internal stratum-2
    # servers …"): what it is about is often said only there
    closeness = similar(question, [read_under(s.chunk.metadata.section or s.chunk.metadata.title, s.text)
                                   for s, _, _ in candidates]) if similar else [0.0] * len(candidates)
    values = asked_values(part)
    named_kinds = part_kinds
    phrases = _phrases(part)
    focus = asked_focus(part)
    named_ids = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+", part)}
    scored = []
    for (s, shared_own, shared_heading), near, of_part in zip(candidates, closeness, mine, strict=True):
        # its own words, or its own and its heading's near the top of retrieval ("SNMP version 3" under "SNMPv3 …"),
        # or one of them and close in meaning
        # (or the very thing asked: "what do we announce to …": "Outbound filters announce only our own aggregates")
        # (its section's own heading may say it: "what's the compensating control for …" under "Compensating
        # controls")
        leaf = terms((s.chunk.metadata.section or "").split("›")[-1]) if focus else set()
        focused = len(shared(focus, terms(s.text) | leaf)) / len(focus) if focus else 0.0
        if not (shared_own >= needed or (s.rank < 3 and shared_own + shared_heading >= needed and (
                shared_own or shared_heading >= min(2, len(topic)))) or (shared_own and near >= NEAR) or focused == 1.0
                or (len(shared(named_kinds, terms(s.text))) >= 2 and near >= NEAR and bool(values) and any(
                    v.search(s.text) for v in values))):
            continue
        # the kind of value asked for present (an amount of time for "how long"), or missing
        # (a value the question itself names is no answer: "SNMP" for "snmp algorithms")
        found = any(m.group(0).lower() not in part.lower() for v in values for m in v.finditer(s.text))
        kind = (0.15 if found else -0.25) if values else 0.0
        path = (s.chunk.metadata.section or s.chunk.metadata.title).lower()
        phrase = 1.0 if any(p in s.text.lower() for p in phrases) else 0.6 if any(p in path for p in phrases) else 0.0
        # a check named by its id: the sentences the document tags with it ("… [SNMP-V3-PRIV]") speak of it
        tagged_asked = any(t.lower() in named_ids for tag in _TAG.findall(s.text) for t in re.split(r"[\[\],\s]+", tag)
                           if t)
        # the part's own words count more than those it borrows from the rest of the question
        # the kinds the question names ("… of store firewalls") tell apart sentences that share its topic: "High: …
        # WAN routers everywhere, and store firewalls (PCI scope)" over the other criticalities
        kinds = len(shared(named_kinds, terms(s.text))) if named_kinds else 0
        score = (near + 0.06 * min(of_part, 4) + 0.02 * min(shared_own - of_part, 4) + 0.03 * min(shared_heading, 3)
                 + 0.04 * min(kinds, 2)
                 + kind + 0.1 * phrase
                 + 0.2 * focused + 0.2 * tagged_asked + 0.03 * bool(NORMATIVE.search(s.text)) - 0.01 * s.rank)
        scored.append(Sentence(s.chunk, s.rank, s.position, s.text, round(score, 4)))
    scored.sort(key=lambda s: (-s.score, s.rank, s.position))
    return scored


_ANAPHOR = re.compile(r"^(?:this|that|these|those|it|they|such|therefore|so|hence)\b", re.I)


def _with_antecedents(chosen: list[Sentence]) -> list[Sentence]:
    """A chosen sentence that points back ("This is why the assessment flags …") with the sentence before it in its
    chunk, which says what "this" is."""
    out = list(chosen)
    for s in chosen:
        if _ANAPHOR.match(s.text) and s.position > 0:
            before = sentences(s.chunk.content)[s.position - 1]
            if not any(x.chunk is s.chunk and x.position == s.position - 1 for x in out):
                out.append(Sentence(s.chunk, s.rank, s.position - 1, before, s.score))
    return out


_TAG = re.compile(r"\[[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?:,\s*[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)*\]")
# what a "what's the X for/at/of …" or "which X …" question asks for: X ("what's the compensating control for no urpf
# at the data center edge": a compensating control; "which ntp servers should devices use": servers)
_FOCUS = re.compile(r"^\s*(?:what(?:'s|s| is| are| was)?|which)\s+(?:the\s+|our\s+|a\s+|an\s+)?"
                    r"(?P<focus>[\w -]+?)(?:\s+(?:for|of|at|on|in|to|with|from|do|does|did|should|must|shall|can|is|are|"
                    r"was|were|we|get|gets|per|according)\b|\s*[?.]?\s*$)", re.I)


# "what do we announce to our transit providers": the verb is what is asked about
_DOING = re.compile(r"^\s*(?:what|which \w+)\s+(?:do|does|did|must|should|can)\s+(?:we|they|you|i|the \w+|our \w+)\s+"
                    r"(?P<focus>\w+)\b", re.I)


def asked_focus(question: str) -> set[str]:
    """What a "what's the X for …", "which X …" or "what do we X" question asks about: X's words (none for other forms)."""
    doing = _DOING.match(question)
    if doing and doing.group("focus").lower() not in ("have", "need", "use", "do", "get", "keep", "run", "say"):
        return terms(doing.group("focus")) - GENERIC
    m = _FOCUS.match(question)
    return terms(m.group("focus")) - GENERIC if m else set()


def _phrases(question: str) -> list[str]:
    """Two words of the question side by side, neither a small word ("compensating control", "war room"): a sentence
    that has them as written speaks of the same thing."""
    words = [w for w in re.findall(r"[a-z0-9][a-z0-9-]*", question.lower())]
    return [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)
            if a not in _STOP and b not in _STOP and a not in _ASKING and b not in _ASKING and len(a) > 2 and len(b) > 2
            and a not in _SMALL and b not in _SMALL]


_SMALL = frozenset(["what", "whats", "the", "our", "for", "are", "was", "were", "how", "who", "when", "does", "did",
                    "its", "their", "they", "them", "this", "that", "these", "those", "with", "from", "into", "not"])


def says_it(question: str, chunks: Sequence[RetrievedChunk], similar: Similarity | None = None) -> bool:
    """Whether one sentence of ``chunks`` holds what the question is about: three of its words, or two that are most of
    them ("what's the backup wan path at the branches": "… broadband internet as the backup over DMVPN" with "WAN" and
    "path" before it); or one of them and close in meaning ("how much bandwidth does voice get in the branch qos":
    "Voice traffic gets a priority queue of 30 percent of the link")."""
    topic = terms(question) - GENERIC
    if not topic:
        return False
    said = [(c, text) for c in chunks for text in sentences(c.content)]
    near = [(c, text) for c, text in said if shared(topic, terms(text) | about(c))]
    # (its section's heading says what a sentence is about as much as its words: "which pci requirement covers time
    # sync" — "Time is synchronized from the internal NTP servers (req. 10.6)" under "PCI-DSS … Policy › Requirements")
    if any((n := len(shared(topic, terms(text) | about(c)))) >= 3 or (n >= 2 and n >= 0.5 * len(topic))
           for c, text in near):
        return True
    # one of its words and the kind of value it asks for ("which day is CAB": "… the weekly Change Advisory Board
    # (Tuesday)")
    values = asked_values(question)
    if values and any(shared(topic, terms(text)) and any(v.search(text) for v in values) for _, text in near):
        return True
    return similar is not None and bool(near) and max(similar(
        question, [f"{c.metadata.section or c.metadata.title}: {text}" for c, text in near])) >= SAYS_IT


SAYS_IT = 0.6  # how close in meaning a sentence sharing one word with the question must be to answer it


_POINTER = re.compile(r"\b(?:it|its|they|them|their|those|that|this|there|someone|one)\b", re.I)


def _points_back(part: str) -> bool:
    return bool(_POINTER.search(part))


_UNITS = {"ms": 1 / 86_400_000, "millisecond": 1 / 86_400_000, "second": 1 / 86_400, "minute": 1 / 1440,
          "hour": 1 / 24, "day": 1.0, "week": 7.0, "month": 30.4, "year": 365.0}
_WORDS = {w: n for n, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen"])}
_AMOUNT = re.compile(r"\b(\d+|" + "|".join(_WORDS) + r")\s*(ms|millisecond|second|minute|hour|day|week|month|year)s?\b",
                     re.I)


def durations(text: str) -> list[tuple[float, str]]:
    """The amounts of time a text states, in days, with how it says them ("13 months", "400 days")."""
    out = []
    for number, unit in _AMOUNT.findall(text):
        n = int(number) if number.isdigit() else _WORDS[number.lower()]
        out.append((n * _UNITS[unit.lower()], f"{number} {unit.lower()}{'s' if n != 1 else ''}"))
    return out


def addresses(text: str) -> list[str]:
    return re.findall(r"\b\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?\b", text)


def disagreement(part: str, first: str, second: str, addresses_too: bool = False,
                 others: tuple[str, str] = ("", "")) -> tuple[str, str] | None:
    """What two documents' sentences for one question state differently — ("400 days", "13 months"), ("10.88.8.10,
    10.88.8.11", "10.250.10.21, 10.250.10.22") — else None. An amount of time is compared in days (a year is not 12
    months of 30.4 days: 365 days and 12 months agree, 400 days and 13 months do not) in each one's best sentence; addresses (``addresses_too``: the
    asker's document against a standard, or two set side by side) where the question asks where, in all the sentences
    each shows (``others``: the rest of them)."""
    a, b = durations(first), durations(second)
    if a and b and not any(abs(x - y) <= 0.01 * max(x, y) for x, _ in a for y, _ in b):
        return " or ".join(dict.fromkeys(t for _, t in a)), " or ".join(dict.fromkeys(t for _, t in b))
    if addresses_too and any(v is _ADDRESS for v in asked_values(part)) and others:
        first, second = f"{first} {others[0]}", f"{second} {others[1]}"
        ips_a, ips_b = addresses(first), addresses(second)
        if ips_a and ips_b and not set(ips_a) & set(ips_b):
            return ", ".join(dict.fromkeys(ips_a)), ", ".join(dict.fromkeys(ips_b))
    return None
