"""The question frame (DESIGN §4a): what the user wants back, read once per turn.

Two halves, each measured on the held-out part of ``evals/question_frames.jsonl`` (``assess eval-frames``):

- *ask*, *subject* and, for questions the product cannot answer, *why* (``cannot``) come from a reader fitted on
  the corpus's training part: logistic regression over the bundled MiniLM sentence embedding joined with word
  and character n-grams (the embedding carries meaning across phrasings, the n-grams the short cue words —
  "how many", "vs", "why" — and the typos engineers make). Fitting takes about a second and happens once per
  process; the corpus, not code, is what to extend when a kind of question is read wrong.
- *filters*, *time*, *targets* and *limit* are read from the words: every value named, several values of one
  filter kept together (OR'ed), names resolved against the inventory by ``nlu/entities.py``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, cast, get_args

import numpy as np

from foundation.vocabulary.text import singular
from knowledge_base.embedding_cache import cache_dir, embed_fixed, keep
from knowledge_base.embeddings import Embedder
from orchestration.nlu.facets import group_key
from orchestration.nlu.frame_model import Features, Linear, Tfidf, char_wb_ngrams, word_ngrams
from orchestration.nlu.spelling import DOMAIN_WORDS
from orchestration.state import (
    Ask,
    Cannot,
    Entity,
    FrameFilters,
    FrameTargets,
    FrameTime,
    QuestionFrame,
    Subject,
)

ASKS: tuple[str, ...] = get_args(Ask)
SUBJECTS: tuple[str, ...] = get_args(Subject)
CANNOTS: tuple[str, ...] = get_args(Cannot)
_I = re.IGNORECASE


# --- the corpus -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelledQuestion:
    id: str
    split: str
    question: str
    frame: QuestionFrame


def load_corpus(path: Path) -> list[LabelledQuestion]:
    """The labelled questions (JSON lines: id, split train|test, question, frame with only its non-empty parts)."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            rows.append(LabelledQuestion(data["id"], data["split"], data["question"],
                                         QuestionFrame.model_validate(data["frame"])))
        except (ValueError, KeyError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
    return rows


# --- the fitted half: ask, subject, cannot -----------------------------------------------------------------------
class Recent:
    """A small map of the latest entries (the oldest half dropped when full); safe to share between threads."""

    def __init__(self, size: int = 256) -> None:
        self.size, self._items, self._lock = size, dict[Any, Any](), threading.Lock()

    def get(self, key: Any) -> Any:
        return self._items.get(key)

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            if len(self._items) >= self.size:
                for old in list(self._items)[: self.size // 2]:
                    del self._items[old]
            self._items[key] = value


class FrameReader:
    """Ask, subject and ``cannot`` classifiers fitted on the training questions (fitted by scikit-learn once and kept
    on disk; applied with numpy, ``frame_model.py``)."""

    def __init__(self, questions: Sequence[LabelledQuestion], embedder: Embedder) -> None:
        self._memo = Recent(512)
        self.frames = Recent()  # whole frames of recent requests, kept by their reader (``intent_classifier.frame_of``)
        train = [q for q in questions if q.split == "train"]
        if not train:
            raise ValueError("the question-frame corpus has no training questions")
        self._embedder = embedder
        texts = [_plain(q.question) for q in train]
        labels: dict[str, list[str]] = {"ask": [q.frame.ask for q in train], "subject": [q.frame.subject for q in train],
                                        "cannot": [q.frame.cannot or "-" for q in train]}
        stored = fitted_state_file(texts, labels, embedder)
        arrays = _restore(stored)
        if arrays is None:  # fitted here, then kept for the next process (each turn worker, each CLI)
            arrays = fit(texts, labels, embedder).arrays
            keep(stored, lambda tmp: np.savez(tmp, **arrays), "the reader is fitted again next time")  # type: ignore[arg-type]
        self._words = Tfidf(arrays["words_terms"], arrays["words_idf"], word_ngrams)
        self._chars = Tfidf(arrays["chars_terms"], arrays["chars_idf"], char_wb_ngrams)
        self.stop_words = frozenset(str(w) for w in arrays["stop_words"])
        models = {}
        for name in labels:
            coef = arrays[f"{name}_coef"]
            sizes = (coef.shape[1] - len(self._words) - len(self._chars) - len(CUES), len(self._words), len(self._chars))
            models[name] = Linear(coef, arrays[f"{name}_intercept"], arrays[f"{name}_classes"], sizes)
        self._ask, self._subject, self._cannot = models["ask"], models["subject"], models["cannot"]
        # the words of the training questions the product answers: with the operations words, its lexicon
        answered = {w for q in train if q.frame.ask != "not_answerable" for w in self.content_words(q.question)}
        self.lexicon = frozenset(answered | self.content_words(" ".join(DOMAIN_WORDS) + " " + OPS_WORDS))

    def features(self, plain: str) -> Features:
        dense = np.asarray(self._embedder.embed([plain]), dtype=np.float64)[0]
        return Features(dense, self._words.weights(plain), self._chars.weights(plain), cue_vector(plain))

    def content_words(self, text: str) -> set[str]:
        """Lower-cased words of three letters or more that are neither English stop words nor question words."""
        return {w for w in re.findall(r"[a-z][a-z0-9]{2,}", _plain(text))
                if w not in self.stop_words and w not in GENERIC_WORDS}

    def vocabulary(self) -> set[str]:
        """The words the reader was fitted on."""
        return set(self._words.index)

    def read(self, text: str) -> tuple[Ask, Subject, Cannot | None, float, float]:
        """The ask (with its probability and its lead over the runner-up), the subject and, for a
        ``not_answerable`` ask, why. Kept per text: a turn reads its words up to three times (the router's doubt,
        the standards' view, the facets), and the fitted reader gives the same answer each time."""
        plain = _plain(text)
        read = self._memo.get(plain)
        if read is None:
            read = self._read(plain)
            self._memo.put(plain, read)
        return cast(tuple[Ask, Subject, Cannot | None, float, float], read)

    def _read(self, plain: str) -> tuple[Ask, Subject, Cannot | None, float, float]:
        features = self.features(plain)
        ask_p = self._ask.proba(features)
        ask = str(self._ask.classes_[int(np.argmax(ask_p))])
        first, second = np.sort(ask_p)[::-1][:2] if len(ask_p) > 1 else (ask_p.max(), 0.0)
        margin = float(first - second)
        if ask == "not_answerable":
            cannot_p = dict(zip(self._cannot.classes_, self._cannot.proba(features), strict=True))
            cannot = max((c for c in CANNOTS if c in cannot_p), key=lambda c: cannot_p[c])
            return "not_answerable", "none", cast(Cannot, cannot), float(first), margin
        subject_p = dict(zip(self._subject.classes_, self._subject.proba(features), strict=True))
        subject = max((s for s in SUBJECTS if s in subject_p and s != "none"), key=lambda s: subject_p[s])
        return cast(Ask, ask), cast(Subject, subject), None, float(first), margin


@dataclass
class Fitted:
    """What scikit-learn fitted: the numbers kept on disk, and its own objects (the test that the numpy reader
    reads as they do compares against them)."""

    arrays: dict[str, np.ndarray]
    words: Any
    chars: Any
    models: dict[str, Any]


def fit(texts: list[str], labels: dict[str, list[str]], embedder: Embedder) -> Fitted:
    """The reader fitted by scikit-learn (imported here only: a turn worker restores the numbers and never imports
    it). ``texts`` are the training questions, the same in every process, whose embeddings the disk cache keeps."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    words = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, token_pattern=r"(?u)\b\w+\b").fit(texts)
    chars = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), sublinear_tf=True, min_df=2).fit(texts)
    dense = np.asarray(embed_fixed(embedder, texts), dtype=np.float64)
    features = hstack([dense * 2.0, words.transform(texts), chars.transform(texts),
                       np.array([cue_vector(t) for t in texts]) * 1.5]).tocsr()
    arrays: dict[str, np.ndarray] = {"stop_words": np.array(sorted(ENGLISH_STOP_WORDS), dtype=str)}
    for name, vectorizer in (("words", words), ("chars", chars)):
        terms = sorted(vectorizer.vocabulary_, key=vectorizer.vocabulary_.__getitem__)
        arrays[f"{name}_terms"], arrays[f"{name}_idf"] = np.array(terms, dtype=str), vectorizer.idf_
    models = {name: LogisticRegression(C=20.0, max_iter=4000).fit(features, values) for name, values in labels.items()}
    for name, model in models.items():
        arrays[f"{name}_coef"], arrays[f"{name}_intercept"] = model.coef_, model.intercept_
        arrays[f"{name}_classes"] = np.asarray(model.classes_, dtype=str)
    return Fitted(arrays, words, chars, models)


def _restore(path: Path) -> dict[str, np.ndarray] | None:
    """The fitted numbers kept in ``path`` (arrays only — no pickle: a cache file is data), or None."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            return {name: stored[name] for name in stored.files}
    except (OSError, KeyError, ValueError):
        return None


def cue_vector(text: str) -> np.ndarray:
    return np.array([1.0 if cue.search(text) else 0.0 for cue in CUES])


# Cue words of each kind of ask, as features beside the n-grams: what an engineer's grammar says about the
# answer's form ("how many" a number, "vs" two sides, "why" an explanation). The reader weighs them; none decides.
_FIX = re.compile(r"\bfix\b|\bremediat|\bclean up\b|\bcli\b|\bcommands?\b|\bpaste\b|\bturn off\b|\bconfig to\b|"
                  r"\bwhat do we do about\b|\bhow do (?:i|we) (?:disable|enable|get)\b", _I)
CUES = [re.compile(p, _I) for p in (
    r"^how many\b|\bnumber of\b|\bcount\b|^# of\b|\bhow many\b",
    r"\bpercent|%|\bshare of\b|\bfraction\b|\bpass rate\b|\bcompliance rate\b|\bratio\b",
    r"^(?:is|are|does|do|did|has|have|was|were|any)\b|\by/n\b|\bor not\b",
    r"\bvs\.?\b|\bversus\b|\bcompare|\bbetter or worse\b|\bbetween .+ and\b",
    r"\btrend|\bover time\b|\bhistory\b|\bmonth over month\b|\bacross (?:all )?runs\b|\bper run\b|\beach of the last\b|"
    r"\bmoved\b|\bsince (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    r"\bworst\b|\bbest\b|\btop \d+|\btop (?:three|five|ten)\b|\bmost\b|\brank|\briskiest\b|\bbottom \d+|\bbiggest\b",
    r"^why\b|\bwhy (?:is|does|do|did|are)\b|\bwhat does \S+ (?:mean|check)\b|\bexplain\b|\bwhat triggered\b|"
    r"\bwhat is the risk\b|\bevidence\b|\bwhat config line\b",
    _FIX.pattern,
    r"\bstandards?\b|\bpolic(?:y|ies)\b|\bprocedure\b|\brunbook\b|\bbest practice\b|\brecommended\b|"
    r"\baccording to\b|\bwho owns\b|\bescalate\b|\bchange window\b|\bapproval process\b|\bsite tiers\b|"
    r"\bguides?\b|\bhow (?:to|do (?:i|we|you)|should (?:i|we)) (?:configure|set up|setup)\b|\bdo we (?:use|put|set)\b|"
    r"\bsupposed to\b|\bmandat|\brequire[ds]?\b|\bsign[- ]?off\b|\bapprov(?:e|es|al)\b",
    r"\bexcept(?:ion|ed)s?\b|\bwaive(?:r|d|rs)?\b|\bexempt\w*|\bexcid\b",
    r"\bcpu\b|\bmemory utili|\breachable\b|\bping\b|\buptime\b|\bis \S+ (?:up|down|online)\b|\bup\??$|"
    r"\bright now\b|\bat the moment\b|\bcounters?\b|\bclients\b|\bsessions\b|\bconnections\b|\btraffic\b|"
    r"\bbandwidth\b|\bpacket loss\b|\bneighbou?rs\b|\bmac address table\b|\binterfaces are down\b|\bonline\b|"
    r"\bpower suppl|\bpsus?\b|\bfans?\b|\btemperature\b|\boptics?\b",
    r"\blicen[cs]e|\bsmartnet\b|\bsupport contract\b|\bcontracts? expire\b",
    r"^(?:please )?(?:raise|open|create|send|email|push|apply|reboot|reload|schedule|run|disable|enable|page|backup|"
    r"back up|deploy|configure|upgrade|downgrade|patch|install|shut|bounce|restart|replace|change|add|delete|"
    r"roll ?back|save|notify)\b|\bfor me\b|\bticket\b|\bjira\b|\bservicenow\b|\bslack\b",
    r"\bweather\b|\bjoke\b|\brecipe\b|\bcapital of\b|\bstock price\b|\bworld cup\b|\btranslate\b|"
    r"\bpython\b|\bscript\b|\bansible\b|\bplaybook\b|\bcss\b|\bkubernetes\b|\bperformance review\b",
    r"^(?:which|what) (?:\w+ )?(?:devices?|box(?:es)?|switch(?:es)?|routers?|firewalls?|fws?|asas?|hosts?|assets?)\b|"
    r"\bwho is running\b|"
    r"\blist\b|\bshow (?:me )?(?:the |all )?\w+|\binventory\b|\bwhat(?:'s| is) (?:in|at|deployed)\b",
    r"\bsummar|\boverview\b|\bstatus\b|\bposture\b|\bhow(?:'s| is| are) \w+ (?:doing|looking)\b|\bbig picture\b|"
    r"\brundown\b|\bin a nutshell\b|\breport\b|\bwhat did .+ (?:say|find)\b",
    r"\bslic(?:id)?\b|\bcveid\b|\bsignatures?\b|\bknown (?:issues?|bugs?|vulnerabilit)|\bcve\b|\bbrute force\b",
    r"\bdocuments?\b|\bknowledge base\b",
    r"\bsites?\b|\bbranches\b|\bstores\b",
    r"\brules?\b|\bchecks?\b|\bcatalog\b|\bareas?\b|\btechnolog|\bmost common\b|\bmisconfigs?\b",
    r"\bassessments\b|\bruns\b",
)]


def _plain(text: str) -> str:
    """Names carry no cue for the ask: device and rule ids become placeholders so the reader learns the words
    around them ("why does X fail Y"), not the names of the corpus."""
    for pattern, placeholder in _PLACEHOLDERS:
        text = pattern.sub(placeholder, text)
    return re.sub(r"\s+", " ", text).strip().lower()


_PLACEHOLDERS = [(re.compile(r"\bSLIC-[\w-]+", _I), " slicid "), (re.compile(r"\bEXC-[\w-]+", _I), " excid "),
                 (re.compile(r"\bCVE-[\w-]+", _I), " cveid "), (re.compile(r"\bASMT-[\w-]+", _I), " runid "),
                 (re.compile(r"\b(?:rtr|sw|fw|nx|wlc)-[a-z0-9-]+\b", _I), " devicename "),
                 (re.compile(r"\b[A-Z0-9]{2,}(?:-[A-Z0-9]{2,})+\b"), " ruleid ")]


# Network-operations words beside the corpus and the catalog: what engineers ask about that no check names
OPS_WORDS = ("freeze outage maintenance window incident ticket rollback backup vendor support tac rma circuit isp "
             "carrier wan lan vpn wifi ssid dns dhcp subnet vlan uplink downlink link links port ports cable rack "
             "datacenter campus office stack chassis module supply firmware image upgrade patch release eol eos "
             "lifecycle inventory asset owner contact escalation approval cab audit auditor pci sox hipaa nist cis "
             "iso gdpr segmentation zone dmz perimeter internet edge core access distribution spine leaf fabric "
             "tunnel ipsec certificate cert key keys crypto cipher tls ssl protocol management mgmt oob console")
# Question words that name no subject: a question made only of these is not off-topic, whatever else it lacks
GENERIC_WORDS = frozenset([
    "write", "help", "tell", "give", "show", "recommend", "summarize", "summarise", "doing", "good", "best", "time",
    "name", "need", "want", "please", "thanks", "today", "tomorrow", "tonight", "let", "make", "know", "explain",
    "draft", "compose", "create", "get", "way", "around", "near", "pls", "whats", "hows", "things", "stuff",
    "everything", "anything", "overall", "going", "look", "looking", "status", "state"])


def everyday_words(text: str, reader: FrameReader, catalogs: Catalogs) -> list[str]:
    """The content words of a question none of which the product knows (not in its corpus of answered questions,
    the check catalog or the network-operations words): "summarize the news today" → [news]. Empty when any word
    is known or there is no content word at all ("how are we doing?")."""
    words = reader.content_words(text)
    known = words & reader.lexicon or words & catalogs.all_rule_words
    return sorted(words) if words and not known else []


FITTED_FORMAT = 2  # of the stored fitted reader: raised when what is stored changes (2: English stop words kept)


def fitted_state_file(texts: list[str], labels: dict[str, list[str]], embedder: Embedder) -> Path:
    """Where the reader fitted on these questions and labels with this model is kept between processes: fitting
    takes ~2.3 s, which every turn worker paid before its first answer. Keyed by everything the fit depends on (the
    texts, labels, model, scikit-learn version, the cues and this format), so nothing stale is ever read."""
    fitter = importlib.metadata.version("scikit-learn")  # read from its metadata: importing it costs a second
    digest = hashlib.sha256(f"{FITTED_FORMAT}\0{fitter}\0{embedder.name}\0{embedder.dimension}\0".encode())
    for cue in CUES:
        digest.update(cue.pattern.encode() + b"\0")
    for i, text in enumerate(texts):
        digest.update(text.encode("utf-8", "surrogatepass") + b"\0" + "\0".join(v[i] for v in labels.values()).encode())
    return cache_dir() / f"frame-reader-{digest.hexdigest()[:32]}.npz"


# --- the read half: filters, time, targets, limit ------------------------------------------------------------------
_FILTER_ENTITIES = {"site": "site", "device_type": "device_type", "platform": "platform", "os_version": "os_version",
                    "environment": "environment", "severity": "severity"}
SITE_TYPES = [
    ("store", r"\bstores\b|\bstore (?=routers?|switch|firewalls?|fws?|devices|boxes|sites?|network|locations?|with|"
              r"compliance|posture|findings|results|trend)|"
              r"\b(?:the|which|what|every|each|any|worst|best) store\b(?![- ]?\d)"),
    ("branch", r"\bbranch(?:es)?\b(?![- ]?\d)"),
    ("datacenter", r"\bdata ?cent(?:er|re)s?\b(?![- ]?\d)|\bdcs?\b(?![- ]?\d)"),
    ("campus", r"\bcampus(?:es)?\b"),
]
SEVERITIES = [("critical", r"\bcrit(?:s|ical|icals)?\b"),
              ("high", r"\bhigh(?=[- ]sev|[- ]severity| findings| issues| risk| (?:or|and) crit)|\banything high\b|"
                       r"\bcrit(?:ical)?s? (?:or|and) high\b"),
              ("medium", r"\bmedium(?=[- ]sev|[- ]severity| findings| issues)"),
              ("low", r"\blow(?=[- ]sev|[- ]severity| findings| issues)")]
_ROLE = r"(core|edge|access|acc|distribution|dist|distro|aggregation|agg|spine|leaf)"
# how engineers shorten a role, as the inventory names it ("dist switches", "agg layer", "acc switches")
_ROLE_SHORT = {"acc": "access", "dist": "distribution", "distro": "distribution", "aggregation": "distribution",
               "agg": "distribution"}
_ROLE_BEFORE = re.compile(rf"\b{_ROLE}(?=[- ](?:layer|switch|switches|routers?|devices|boxes|firewalls?)\b)", _I)
_ROLE_NOUN = re.compile(r"\b(spine)s\b|\b(lea)(?:fs|ves)\b", _I)  # "the spines", "leaves": the role word is the device
_ROLE_PAIR = re.compile(rf"\b{_ROLE} (?:vs\.?|versus|and|or) {_ROLE}\b", _I)
TOPICS = [
    ("aaa", r"\baaa\b|tacacs|radius"),
    ("snmp", r"\bsnmp|\bcommunit(?:y|ies)\b|\bv2c\b"),
    ("ntp", r"\bntp\b"),
    ("ssh", r"\bssh"),
    ("telnet", r"\btel(?:net|ent)\b"),
    ("tls", r"\btls\b|\bssl\b"),
    ("bgp", r"\bbgp\b"),
    ("ospf", r"\bospf"),
    ("eigrp", r"\beigrp\b"),
    ("logging", r"\blog(?:s|ging)?\b|\bsyslog"),
    ("http", r"\bhttps?(?: server)?\b"),
    ("banner", r"\bbanners?\b"),
    ("spanning_tree", r"\bbpdu|spanning[- ]tree|\bstp\b"),
    ("switching", r"\bdtp\b|\btrunks?\b|dhcp snooping|\bvtp\b"),
    ("passwords", r"\bpasswords?\b|\btype 7\b|enable secret|clear ?text"),
    ("services", r"small servers|\bfinger\b|\bbootp\b|smart install|tcp keepalive"),
    ("interfaces", r"\burpf\b|proxy[- ]arp|\bredirects\b|directed[- ]broadcast|\bcdp\b"),
    ("management", r"\bmgmt\b|management (?:open|access|plane)|firewall management"),
    ("copp", r"\bcopp\b|control[- ]plane (?:policing|protection)"),
    ("vty", r"\bvty\b|exec[- ]timeout|\bconsole\b|\bidle\b"),
    ("fhrp", r"\bhsrp\b|\bvrrp\b|\bglbp\b|\bfhrp\b"),
    ("routing", r"source[- ]rout"),
]
MONTHS = {m: i for i, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
    ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
    ("dec", "december")), start=1) for m in names}
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_MONTH = r"\b(" + _MONTH_NAMES + r")\b"
# "may" is a month only beside words of time ("in may", "may assessment"); elsewhere it is the verb
_MONTH_VERB = re.compile(r"\bmay\b(?! (?:assessment|run|scan|results?)\b)", _I)
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10, "twenty": 20, "fifty": 50}
_N = r"(\d{1,3}|" + "|".join(NUMBERS) + r")"
_LAST_N = re.compile(rf"\b(?:last|past|previous|over the last) {_N} (?:assessments?|runs?|scans?)\b|"
                     rf"\b(?:for|in) {_N} (?:assessments|runs|scans)\b", _I)
_LIMIT = re.compile(rf"\b(?:top|worst|bottom|best|first) {_N}\b|\b{_N} (?:worst|best|riskiest|most|least)\b|"
                    # ("3 checks the firewalls fail most": so many of a kind, said first)
                    rf"^\s*{_N} (?:\w+ )?(?:checks|rules|failures|findings|issues|devices|boxes|sites|stores|branches|"
                    rf"switches|routers|firewalls)\b|"
                    rf"\blist {_N} (?:devices|issues|findings|sites|rules)\b|"
                    rf"\b(?:which|what|the|show(?: me)?|give me) (?!one\b){_N} (?:\w+ )?\w{{3,}}\b(?! ago)", _I)
_PREVIOUS = re.compile(
    r"\bsince (?:the |my |our )?(?:last|previous|prior)\b|\blast time\b|\b(?:got|get|gotten|getting) (?:worse|better|"
    r"fixed|resolved)\b|\bregress\w*|\bimproved\b|\bnew (?:critical |high )?(?:findings|issues)\b|\b(?:fixed|resolved) "
    r"since\b|\b(?:previous|prior) (?:run|assessment|one|scan)\b|\b(?:run|assessment|scan) before\b|\b(?:vs\.?|versus|than|compared (?:with|to)) (?:the )?last "
    r"(?:assessment|run|scan)\b|\bnow vs\b|"
    # "and a month before", "the month before", "a month earlier": the run before
    r"\b(?:a|the|one)\s+(?:month|run|assessment|scan)\s+(?:before|earlier|prior)\b(?!\s+(?:that|it|the|last|\w+ber))|"
    r"\bthe\s+previous\s+month\b", _I)
# the whole history, not the last change: "getting better over time" is the series of every run
_OVER_TIME = re.compile(r"\bover time\b|\bover the (?:months|runs|assessments)\b|\b(?:run by run|historically)\b|"
                        r"\b(?:month|run) (?:over|by) (?:month|run)\b|\b(?:all|every) (?:the )?(?:runs|assessments)\b", _I)
_QUARTER_END = {1: "03-31", 2: "06-30", 3: "09-30", 4: "12-31"}


def _ordered(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word.lower()]


def _month(name: str, today: date) -> str:
    """YYYY-MM of a month name: this year's, or last year's when that month is still to come."""
    month = MONTHS[name.lower()]
    year = today.year if month <= today.month else today.year - 1
    return f"{year}-{month:02d}"


# the verbs of an exception's end: "expires", "runs out", "lapses"
_ENDS = r"(?:expir\w*|run(?:s|ning)?\s+out|lapse[sd]?|lapsing)"
# an expiry's deadline: "expiring before march", "expire by the end of january 2027", "expires until june"
_EXPIRY_MONTH = re.compile(rf"\b{_ENDS}\s+(?:(?P<before>before)|by|until|till)\s+(?:the\s+)?(?:end\s+of\s+)?"
                           rf"{_MONTH}(?:\s+(?P<year>\d{{4}}))?", _I)
_EXPIRY_WITHIN = re.compile(rf"\b{_ENDS}\s+(?:with)?in\s+(?:the\s+)?(?:next\s+)?{_N}\s+(?P<unit>days?|weeks?|months?)",
                            _I)


# "expire before 2027", "expiring by the end of 2027": a year's first day (before), or its last (by its end)
_EXPIRY_YEAR = re.compile(rf"\b{_ENDS}\s+(?:(?P<before>before|by|until|till)\s+(?P<end>(?:the\s+)?end\s+of\s+)?)"
                          r"(?P<year>20\d\d)\b(?!-\d)", _I)
# "run out in 2027", "expiring in march", "lapse during january 2027": that year's or month's days
_EXPIRY_IN = re.compile(rf"\b{_ENDS}\s+(?:in|during|within)\s+(?:(?P<month>{_MONTH_NAMES})\b,?\s*)?(?P<year>20\d\d)?\b",
                        _I)


def _expiry_window(text: str, today: date) -> tuple[str | None, str | None, str]:
    """The first and last day an expiry asked about may fall on (either may be open), and the words without them
    (their month is no run's month). A month ahead is the next one of that name: exceptions expire in the future."""
    m = _EXPIRY_MONTH.search(text)
    if m:
        month = MONTHS[m.group(2).lower()]
        year = int(m.group("year")) if m.group("year") else today.year + (month < today.month)
        first = date(year, month, 1)
        if m.group("before"):
            deadline = first - timedelta(days=1)
        else:
            deadline = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        return None, deadline.isoformat(), text[:m.start()] + text[m.end():]
    m = _EXPIRY_YEAR.search(text)
    if m:
        year = int(m.group("year"))
        deadline = date(year, 12, 31) if m.group("end") else date(year - 1, 12, 31)
        return None, deadline.isoformat(), text[:m.start()] + text[m.end():]
    m = _EXPIRY_IN.search(text)
    if m and (m.group("month") or m.group("year")):
        if m.group("month"):
            month = MONTHS[m.group("month").lower()]
            year = int(m.group("year")) if m.group("year") else today.year + (month < today.month)
            first, last = date(year, month, 1), date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        else:
            first, last = date(int(m.group("year")), 1, 1), date(int(m.group("year")), 12, 31)
        return first.isoformat(), last.isoformat(), text[:m.start()] + text[m.end():]
    m = _EXPIRY_WITHIN.search(text)
    if m:
        n, unit = _number(m.group(1)), m.group("unit").lower()
        days = n * {"d": 1, "w": 7, "m": 30}[unit[0]]
        return None, (today + timedelta(days=days)).isoformat(), text[:m.start()] + text[m.end():]
    return None, None, text


# a time counted back from today: "three months ago", "a year ago", "6 weeks ago"
AGO = re.compile(rf"\b(?:{_N}|an?|one)\s+(?P<unit>months?|weeks?|years?)\s+ago\b", _I)


def read_time(text: str, entities: Sequence[Entity], today: date, anchor: date | None = None) -> FrameTime:
    """When the words ask about; "three months ago" is counted back from ``anchor`` (the latest run's day, as "last
    month" is the run before the latest), else from today."""
    runs = _ordered(e.value for e in entities if e.type == "assessment_id" and e.source != "unresolved")
    after, expiry, text = _expiry_window(text, today)
    words = _MONTH_VERB.sub(" ", text)
    since = None
    m = re.search(rf"\bsince (?:the start of |early |late |the |our )?{_MONTH}", words, _I)
    if m:
        since = _month(m.group(1), today)
        words = words[:m.start()] + words[m.end():]
    # ("september 2025": that year's, said; a month alone is the last one of that name)
    months = _ordered(f"{m.group(2)}-{MONTHS[m.group(1).lower()]:02d}" if m.group(2) else _month(m.group(1), today)
                      for m in re.finditer(_MONTH + r"(?:,?\s+(20\d\d)\b)?", words, _I))
    for m in AGO.finditer(words):  # "three months ago", "a month ago": the month that was then
        n = 1 if m.group(1) is None else _number(m.group(1))
        back = n * {"m": 1, "y": 12}.get(m.group("unit")[0].lower(), 0) or max(1, round(n * 7 / 30))
        then = anchor or today
        index = then.year * 12 + then.month - 1 - back
        months = _ordered([*months, f"{index // 12}-{index % 12 + 1:02d}"])
    last = _LAST_N.search(text)
    last_n = _number(next(g for g in last.groups() if g)) if last else None
    before = None
    q = re.search(r"\b(?:end of |before )?q([1-4]) (\d{4})\b", text, _I)
    if q and re.search(r"expir|before|until|by ", text, _I):
        before = f"{q.group(2)}-{_QUARTER_END[int(q.group(1))]}"
    elif re.search(r"expir\w* (?:this year|(?:by|before|until|at) (?:the )?end of (?:the |this )?year|"
                   r"before (?:the )?(?:new year|year[- ]end))", text, _I):
        before = f"{today.year}-12-31"
    iso = re.search(r"\bbefore (\d{4}-\d{2}-\d{2})\b", text)
    if iso:
        before = iso.group(1)
    if re.search(r"\b(?:expired|lapsed|out of date|past (?:its|their) expiry)\b", text, _I):
        before = (today - timedelta(days=1)).isoformat()  # "which exceptions have expired": by yesterday
    before = expiry or before
    relative: Literal["previous", "this_month", "last_month"] | None = None
    if re.search(r"\bthis month\b", text, _I):
        relative = "this_month"
    elif re.search(r"\blast month\b", text, _I):
        relative = "last_month"
    elif _PREVIOUS.search(text) and not (months or runs or since or last_n or _OVER_TIME.search(text)):
        relative = "previous"
    return FrameTime(runs=runs, months=months, since=since, last_n=last_n, before=before, after=after,
                     relative=relative)


def _without_ids(text: str, rule_ids: Iterable[str]) -> str:
    """The text without names that hold letters of topic words: hyphenated names with a digit (devices, runs,
    signatures, exceptions) and rule ids ("SNMP-V3-PRIV" and "COPP" name a rule, not the SNMP or CoPP topic)."""
    rules = {r.upper() for r in rule_ids}
    words = [r for r in rules if "-" not in r]  # one-word ids name the rule only as written: "COPP", not "copp"
    if words:
        text = re.sub(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b", " ", text)
    return _HYPHENATED.sub(lambda m: " " if any(c.isdigit() for c in m.group(0)) or m.group(0).upper() in rules
                           else m.group(0), text)


def read_filters(text: str, entities: Sequence[Entity], rule_ids: Iterable[str] = ()) -> FrameFilters:
    values: dict[str, list[str]] = {}
    for e in entities:
        if e.type in _FILTER_ENTITIES and e.source != "unresolved":
            values.setdefault(_FILTER_ENTITIES[e.type], []).append(e.value)
    words = _without_ids(text, rule_ids)
    if re.search(r"\bxe\b", words, _I) and "ios-xe" not in values.get("platform", []):
        values.setdefault("platform", []).append("ios-xe")  # "xe and nxos": the short name engineers use
    if "asa" in values.get("platform", []) and not re.search(r"\bfire ?wal?ls?\b|\bfws?\b", words, _I):
        values["device_type"] = [t for t in values.get("device_type", []) if t != "firewall"]  # "ASAs" said it
    for severity, pattern in SEVERITIES:
        if re.search(pattern, words, _I) and severity not in values.get("severity", []):
            values.setdefault("severity", []).append(severity)
    site_types = [kind for kind, pattern in SITE_TYPES if re.search(pattern, words, _I)]
    def role(word: str) -> str:
        return _ROLE_SHORT.get(word.lower(), word.lower())

    roles = [role(m.group(1)) for m in _ROLE_BEFORE.finditer(words)]
    roles += ["spine" if m.group(1) else "leaf" for m in _ROLE_NOUN.finditer(words)]
    for m in _ROLE_PAIR.finditer(words):
        if role(m.group(1)) in roles or role(m.group(2)) in roles:
            roles += [role(m.group(1)), role(m.group(2))]
    topics = [name for name, pattern in TOPICS if re.search(pattern, words, _I)]
    return FrameFilters(**{k: _ordered(v) for k, v in values.items()}, site_type=site_types,
                        role=_ordered(roles), topic=topics)


_HYPHENATED = re.compile(r"(?<![\w().])(?>[\w().]+)(?:-[\w().]+)+")  # from a word's start, no backtracking


_TITLE_STOP = frozenset(["a", "an", "the", "of", "to", "on", "in", "for", "and", "or", "is", "are", "by", "with", "any",
                         "ios", "xe", "nx", "os", "asa", "release", "enabled", "configured", "device", "devices"])


def title_words(text: str) -> frozenset[str]:
    """A title's (or question's) content words, plurals folded: "failures" is "failure"."""
    words = re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split()
    return frozenset(singular(w) for w in words if w not in _TITLE_STOP)


def _without_titles(text: str, named: Sequence[str], signatures: Iterable[tuple[str, str]]) -> str:
    """``text`` without the words of the signature titles it names ("NX-OS CLI command injection" → "the signature")."""
    words = frozenset().union(*(title_words(title) for sid, title in signatures if sid in named)) if named \
        else frozenset()
    if not words:
        return text
    kept = [w for w in re.split(r"(\s+)", text) if singular(re.sub(r"[^a-z0-9]+", "", w.lower())) not in words]
    return re.sub(r"\s{2,}", " ", "".join(kept)).strip()


# "the POS exception", "the lab waiver": an exception named by a word only it has
# "the POS exception", "our legacy POS waiver": up to three words before it, one of them an exception's own
_EXCEPTION_BY_WORD = re.compile(r"\b(?:the|our|that|this)\s+((?:[\w-]+\s+){0,2}[\w-]+)\s+"
                                r"(?:exception|waiver|risk acceptance)\b", _I)


def _exceptions_by_word(text: str, words: Iterable[tuple[str, str]]) -> list[str]:
    known = dict(words)
    return list(dict.fromkeys(known[w] for m in _EXCEPTION_BY_WORD.finditer(text)
                              for w in m.group(1).lower().split() if w in known))


# a word said just before "signature" ("the telnet signature", "the power one"): the one title it is in, if only one
_WORD_SIGNATURE = re.compile(r"\b([a-z][\w-]*)\s+(?:slic\s+)?signatures?\b", _I)
# (a kind of device or a severity before "signature" is where or how bad: "firewall signature matches")
_NOT_A_TITLE_WORD = frozenset({"firewall", "switch", "router", "box", "wlc", "critical", "high", "medium", "low"})


def read_targets(text: str, entities: Sequence[Entity], rule_ids: Iterable[str],
                 signatures: Iterable[tuple[str, str]], unknown_devices: Iterable[str] = (),
                 rule_words: Sequence[frozenset[str]] = (),
                 signature_words: Iterable[tuple[str, str]] = (),
                 exception_words: Iterable[tuple[str, str]] = ()) -> FrameTargets:
    devices = [e.value for e in entities if e.type == "device" and e.source != "unresolved"]
    rules = []
    for rule in rule_ids:
        flags = _I if "-" in rule else 0  # a one-word id (COPP, BANNER) counts only as written, not as the topic word
        if re.search(rf"(?<![\w-]){re.escape(rule)}(?![\w-])", text, flags):
            rules.append(rule)
    named = {m.upper() for m in re.findall(r"\bSLIC-[A-Z]{2,3}-\d{3}\b", text, _I)}
    said = title_words(text)
    signatures = list(signatures)
    for m in _WORD_SIGNATURE.finditer(text):  # "the telnet signature": the one signature whose title has that word
        word = title_words(m.group(1)) - _NOT_A_TITLE_WORD
        having = [sid for sid, title in signatures if word and word <= title_words(title)]
        named.update(having if len(having) == 1 else [])
    for sid, title in signatures:
        words = title_words(title)
        shared = said & words
        # most of a signature's title in any order ("web services path traversal", "past end of maintenance"),
        # unless those words are a configuration check's own ("smart install" is the rule, not SLIC-CFG-001)
        telling = len(shared) >= 3 or (len(shared) >= 2 and len(shared) >= 0.6 * len(words))
        # (said with "signature", "matched", "slic": the signature, whatever check shares its words)
        if telling and (SIGNATURE_SAID.search(text) or not any(shared <= rule for rule in rule_words)):
            named.add(sid)
    for sid, phrase in signature_words:  # what engineers call it, declared with the signature ("malloc")
        if re.search(rf"(?<![\w-]){re.escape(phrase)}", text, _I):
            named.add(sid)
    return FrameTargets(
        device=_ordered([*devices, *unknown_devices]),
        rule=sorted(rules, key=lambda r: text.upper().find(r)),
        exception=_ordered([*(m.upper() for m in re.findall(r"\bEXC-\d{4}-\d{3}\b", text, _I)),
                            *_exceptions_by_word(text, exception_words)]),
        cve=_ordered(m.upper() for m in re.findall(r"\bCVE-\d{4}-\d{4,}\b", text, _I)),
        signature=sorted(named),
    )


_WORSE = re.compile(r"\b(worse|worsen\w*|regress\w*|degrad\w*|deteriorat\w*|new (?:failures|issues|findings)|"
                    r"less (?:secure|compliant|hardened)|more (?:exposed|vulnerable|findings|failures|issues))\b", _I)
_BETTER = re.compile(r"\b(better|improv\w*|fixed|resolved|cleaned up|more (?:secure|compliant|hardened)|"
                     r"(?:fewer|less) (?:exposed|findings|failures|issues))\b", _I)
# "is it compliant / does it pass / is aaa on everywhere" asks whether checks pass; "is telnet enabled / open /
# exposed (anywhere)" whether they fail
_PASSES = re.compile(r"\b(complian\w*|pass(?:es|ing)?|meets?|secure|hardened|correct(?:ly)?|ok|okay|good|fine|healthy|"
                     r"in (?:good|decent) shape|alright|all right|follows?|"
                     r"adher\w*|conform\w*|disabled|turned off|switched off|removed|enforced|authenticated|"
                     r"encrypted|restricted|protected|clean|everywhere|all (?:[\w-]+ ){0,2}(?:devices|routers|switches|"
                     r"firewalls|boxes|sites)|every (?:device|router|switch|firewall|box|site))\b", _I)


# a figure going down or up: worse or better by what the figure is ("the pass rate dropped" is worse, "failures
# dropped" better)
_DOWN = re.compile(r"\b(?:drop\w*|fell|fall(?:s|en|ing)?|decreas\w*|declin\w*|went down|go(?:ne|es)? down|shr[iu]nk\w*|"
                   r"dipped|sank|(?:fewer|less|lower)\s+(?:[\w-]+\s+){0,5}?than)\b", _I)
_UP = re.compile(r"\b(?:rose|ris(?:e|en|es|ing)|increas\w*|grew|grow(?:n|s|ing)?|went up|go(?:ne|es)? up|climb\w*|"
                 r"jump\w*|spik\w*|(?:more|higher)\s+(?:[\w-]+\s+){0,5}?than)\b", _I)
_COUNTED = re.compile(r"\b(?:fail(?:ures|ed checks|s)|findings|issues|deviations|violations|criticals|errors|"
                      r"failed logins|matches|hits)\b", _I)
_RATE = re.compile(r"\b(?:pass(?:ing)?[\s-]?rates?|compliance|complian\w* (?:rate|score)|score|pass %)\b", _I)


def read_direction(text: str) -> Literal["worse", "better"] | None:
    worse, better = bool(_WORSE.search(text)), bool(_BETTER.search(text))
    if not (worse or better):
        down, up = bool(_DOWN.search(text)), bool(_UP.search(text))
        if down != up:  # one way only: which end it is depends on whether more of the figure is good
            if _RATE.search(text):
                worse, better = down, up
            elif _COUNTED.search(text):
                worse, better = up, down  # (a figure not named is the last answer's: no way read here)
    return "worse" if worse and not better else "better" if better and not worse else None


# "is anything failing / exposed / missing at HQ?" asks whether checks fail, whatever checks they are
_FAILS = re.compile(r"\b(?:fail\w*|non-?complian\w*|not complian\w*|violat\w*|broken|insecure|exposed|vulnerable|"
                    r"missing|lacks?|lacking|without|weak|deviat\w*|issues?|problems?|findings?|wrong|misconfigur\w*|"
                    r"open to|gaps?|holes?|shortfalls?|concerns?|risks?|errors?|red flags?)\b", _I)


def read_polarity(text: str) -> Literal["passes", "fails"] | None:
    """Whether a yes/no asks if checks pass or fail; None when its words say neither ("is ntp authentication enabled
    on X?", "is telnet enabled on Y?"): the checks it names decide (``nlu.checks.wanted_state``)."""
    return "passes" if _PASSES.search(text) else "fails" if _FAILS.search(text) else None


# what fails nothing, in a list or a count: "sites with no critical findings", "switches without telnet issues",
# "devices that are fully compliant", "which stores are clean". "No" before a feature is the opposite: "devices that
# have no ntp authentication" lack it, they fail
# a failing verb negated: "not failing", "arent failing", "don't fail", "never failed"
NOT_FAILING = re.compile(r"\b(?:not|never|(?:are|is|do|does|did|were|was)(?:n'?t|n’t|nt))\s+(?:currently\s+|yet\s+|even\s+)?"
                         r"fail(?:s|ing|ed)?\b", _I)
_FAULTS = r"(?:findings?|issues?|failures?|failed|failing|fails|problems?|deviations?|violations?|misconfig\w*|errors?)"
_CLEAN = re.compile(rf"\b(?:with|having|has|have|had|show(?:s|ing)?) (?:no|zero) (?:[\w-]+ ){{0,3}}?{_FAULTS}\b|"
                    rf"\bwithout (?:any )?(?:[\w-]+ ){{0,3}}?{_FAULTS}\b|\bfree (?:of|from)\b|"
                    r"\b(?:fully|100 ?%) compliant\b|\bare (?:clean|compliant)\b|\bpass(?:es|ing)? (?:all|every|everything)\b|"
                    rf"\bnothing (?:failing|failed)\b|\bfail(?:s|ed|ing)? nothing\b|\bno (?:failed|failing) (?:checks?|findings?)\b|"
                    # "which checks pass everywhere / does every device pass / does no device fail"
                    r"\bpass(?:es|ed)? everywhere\b|\b(?:every|all|each) (?:[\w-]+ )?(?:devices?|routers?|switch(?:es)?|"
                    r"firewalls?|boxes) pass(?:es)?\b|\bno (?:[\w-]+ )?(?:device|router|switch|firewall|box) fails?\b", _I)


def read_list_polarity(text: str) -> Literal["passes"] | None:
    """"passes" when a list or count asks for what fails nothing, else None (the failing ones are asked for)."""
    return "passes" if _CLEAN.search(text) or NOT_FAILING.search(text) else None


_FAILING_SHARE = re.compile(r"\bfail\w*|\bnon-?compliant\b|\bnot compliant\b|\bfailure rate\b", _I)


_PASSING_SHARE = re.compile(r"\bpass\w*|\bcomplian\w*|\bcomply\b|\bconform\w*|\bmeets?\b", _I)


def read_share_polarity(text: str) -> Literal["passes", "fails"] | None:
    """Which part a share asks for: "what % of checks fail" the failing one, "our pass rate" the passing one; None
    when the words say neither ("what fraction of the firewalls allow telnet": the checks named decide)."""
    return "fails" if _FAILING_SHARE.search(text) else "passes" if _PASSING_SHARE.search(text) else None


# the one that expires before the others: "which exception expires first", "the next one to expire"
FIRST_TO_EXPIRE = re.compile(r"\b(?:expir\w*|runs?\s+out|lapses?)\s+(?:first|next|soonest|earliest)\b|\b(?:first|next|"
                             r"soonest)\s+(?:one\s+)?to\s+(?:expire|run out|lapse)\b|\b(?:next|soonest|earliest)\s+"
                             r"(?:exception\s+)?expir\w*", _I)


# the one that expires after the others: "which exception expires last", "the last one to run out"
LAST_TO_EXPIRE = re.compile(r"\b(?:expir\w*|runs?\s+out|lapses?)\s+(?:the\s+)?(?:last|latest|furthest out)\b|\b(?:last|"
                            r"latest)\s+(?:one\s+)?to\s+(?:expire|run out|lapse)\b|\b(?:latest|furthest)\s+"
                            r"(?:exception\s+)?expir\w*", _I)
SIGNATURE_SAID = re.compile(r"\b(?:signatures?|slic|matched|matches|known issues?)\b", _I)
_EXCEPTIONS = re.compile(r"\bexceptions?\b|\bwaivers?\b|\brisk acceptances?\b", _I)


def read_expiring(text: str) -> Literal["first", "last"] | None:
    """Which end of the expiry order the words ask for, if any."""
    return "first" if FIRST_TO_EXPIRE.search(text) else "last" if LAST_TO_EXPIRE.search(text) else None


def read_limit(text: str) -> int | None:
    if read_expiring(text):
        return 1
    m = _LIMIT.search(text)
    return _number(next(g for g in m.groups() if g)) if m else None


@dataclass(frozen=True)
class Catalogs:
    """What the words are read against beside the inventory: rule ids and signature titles."""

    rule_ids: tuple[str, ...]
    signatures: tuple[tuple[str, str], ...]
    rule_words: tuple[frozenset[str], ...] = ()  # each rule's title and deviation words (``title_words``)
    signature_words: tuple[tuple[str, str], ...] = ()  # (signature id, a name engineers use for it)
    exception_words: tuple[tuple[str, str], ...] = ()  # (a word only one exception has, its id): "the POS exception"

    @cached_property
    def all_rule_words(self) -> frozenset[str]:
        return frozenset().union(*self.rule_words)


# "can FW-HQ-1 reach the syslog server?": reachability now is live state. The reader learned "ping" and "reachable"
# from its corpus; four training questions with "reach" cost 0.6 points of held-out asks, so this verb is read here
_REACH = re.compile(r"\b(?:can|could|does|do|is|are)\s+(?:[\w-]+\s+){1,3}?(?:able to\s+)?(?:reach|connect to|talk to|"
                    r"get to)\s+(?:the |our |its |their )?(?!internet\b)[\w-]+", _I)
# a span of time from one month to another: "between august and october", "from september to november"
RANGE = re.compile(r"\bbetween\s+[a-z]+(?:\s+\d{4})?\s+and\s+[a-z]+|\bfrom\s+[a-z]+(?:\s+\d{4})?\s+(?:to|through|thru|"
                   r"until|till)\s+[a-z]+", _I)
# a figure asked per run: the series of runs ("each month", "per assessment", "monthly", "over time")
_PER_RUN = re.compile(r"\b(?:each|every|per|by) (?:month|run|assessment|audit)\b|\bmonthly\b|\bmonth (?:by|over) month\b|"
                      r"\bover time\b", _I)
# words of a series over time: without them (or a time), "failures per role" is a figure per group
_SERIES = re.compile(r"\btrend|\bover time\b|\bhistor|\bevolv|\bprogress|\bchang|\bimprov|\bwors|\bbetter\b|"
                     r"\bruns\b|\bassessments\b|\baudits\b", _I)
# a figure per group of anything but time: "per tier", "by region" ("by month" is a series)
_PER_GROUP = re.compile(r"\b(?:per|by|for each|each|across|grouped by|split by|broken down by)\s+(?:the\s+)?"
                        r"(?!(?:months?|runs?|assessments?|audits?|weeks?|years?|days?|time|how)\b)[a-z]", _I)
# a question that is a counted noun and a group: "devices per role", "prod firewalls by site", "failures by tier"
_THINGS_PER_GROUP = re.compile(r"^\s*(?:(?:and|so|ok(?:ay)?|now)[\s,]+)?(?:(?:the|our|all)\s+)?(?:[\w-]+\s+){0,2}?"
                               r"(?:devices|boxes|hosts|routers|switches|firewalls|sites|stores|branches|checks|"
                               r"findings|failures|failed checks|fails)\s+(?:per|by|for each|in each)\s+(?:the\s+)?"
                               r"(?!(?:months?|runs?|assessments?|audits?|weeks?|years?|days?|time)\b)[a-z]", _I)
# a question whose head noun is the checks: "which checks got worse", "what rules improved since october"
_CHECKS_HEAD = re.compile(r"^(?:which|what) (?:[\w-]+ )?(?:checks?|rules?|controls?)\b", _I)
# "top 5 failing checks at the branches": a ranking whose head noun is the checks ranks checks, whatever place follows
_TOP_CHECKS = re.compile(r"^(?:the )?(?:(?:top|worst|most common|most frequent)\s+(?:\d+\s+)?(?:[\w-]+\s+)?"
                         r"(?:checks?|rules?|controls?|failures?|deviations?)|"
                         r"most\s+(?:[\w-]+\s+)?(?:checks?|rules?|controls?))\b", _I)  # "most failed check at X"
# "telnet anywhere in DC2?", "any power supply problems flagged": whether there are any, then which
ANY = re.compile(r"^(?:and |so )?any(?:thing|one)?\b(?!.*\b(?:which|what|list|show)\b)|\banywhere\b", _I)
# "what do the leaf switches in dc2 fail (most)": the devices are the scope, the checks they fail the answer
# "did it get better …", "is the data center improving", "has HQ gotten worse": a question put as yes or no
_TOPIC_THEN_QUESTION = re.compile(r"^(?P<head>[^:?]+?)(?:\s+[-–—]\s+|:\s+)(?P<rest>\S.*)$")


def asking_clause(text: str, entities: Sequence[Entity]) -> str:
    """The clause the ask is read from: "Branch-05 - what are its devices" asks "what are its devices" about the
    names before the dash (or colon), which carry no cue for the ask; the whole text otherwise."""
    m = _TOPIC_THEN_QUESTION.match(text.strip())
    if m is None:
        return text
    head = m.group("head").lower()
    for value in sorted((e.value.lower() for e in entities), key=len, reverse=True):
        head = head.replace(value, " ")
    left = re.sub(r"\b(?:the|and|so|ok|okay|then|re|about)\b", " ", head).split()
    # nothing but names: entities, or one token written as a name ("us-west", "9.16(4)" — a row picked by its key)
    names_only = not left or (len(left) == 1 and re.search(r"[-\d]", left[0]) is not None)
    return m.group("rest") if names_only else text


# what only an assessment has: its findings and checks ("up or down" then speaks of their number, not of a link)
_ASSESSED = re.compile(r"\b(?:findings?|failed checks?|failures?|checks?|deviations?|pass rate|issues?)\b", _I)
_POLAR = re.compile(r"^(?:and |so |but )?(?:did|does|do|has|have|is|are|was|were|will|can|could)\b", _I)
_WHAT_THEY_FAIL = re.compile(r"^(?:and |so )?what (?:do|does|did) (?:the |our |all )?\S.* fail(?:ing)?\b", _I)


def read_frame(text: str, entities: Sequence[Entity], reader: FrameReader, catalogs: Catalogs,
               today: date | None = None, unknown_devices: Iterable[str] = (), anchor: date | None = None) -> QuestionFrame:
    """The whole frame of one request."""
    ask, subject, cannot, confidence, margin = reader.read(asking_clause(text, entities))
    if _REACH.search(text):
        ask, subject, cannot, confidence, margin = "not_answerable", "none", "live_state", max(confidence, 0.9), 0.5
    direction = read_direction(text)
    if direction and subject in ("findings", "devices") and _CHECKS_HEAD.search(text.strip()):
        subject = "rules"  # the checks that changed are asked for, whatever the reader's doubt between the nouns
    if subject == "sites" and ask == "ranking" and _TOP_CHECKS.search(text.strip()):
        subject = "rules"
    if subject == "devices" and ask in ("ranking", "list") and _WHAT_THEY_FAIL.search(text.strip()):
        subject = "rules" if ask == "ranking" else "findings"
    today = today or date.today()
    time = read_time(text, entities, today, anchor)
    if ask == "compare" and len(time.months) + len(time.runs) > 2:
        ask = "trend"  # "sep vs oct vs nov": three sides of one subject are its series
    if ask == "summary" and len(time.months) + len(time.runs) >= 2 and RANGE.search(text):
        # "how did Lab-1 do from september to november": how it went over the span, run by run
        ask, confidence = "trend", max(confidence, 0.9)
    if ask in ("count", "share", "summary") and subject in ("findings", "runs") and _PER_RUN.search(text):
        ask = "trend"  # "how many critical findings did we have each month": a figure per run, not the latest one
    # one point in time: a month, a run, or "last month" alone ("critical fails per region last month")
    one_time = len(time.months) + len(time.runs) + bool(time.relative) <= 1 and not (time.since or time.last_n)
    if ask == "summary" and _THINGS_PER_GROUP.match(text) and one_time:
        ask, confidence = "count", max(confidence, 0.9)  # "devices per role", "failed checks by site type in october"
    if ask == "trend" and (group_key(text) or _PER_GROUP.search(text)) and one_time and not _SERIES.search(text):
        ask = "count"  # "failures per role", "failed checks per tier for august": one figure per group, not a series
    targets = read_targets(text, entities, catalogs.rule_ids, catalogs.signatures, unknown_devices,
                           catalogs.rule_words, catalogs.signature_words, catalogs.exception_words)
    untitled = _without_titles(text, targets.signature, catalogs.signatures) if ask == "fix" else text
    if untitled != text and not _FIX.search(untitled) and not _REACH.search(text):
        # "which devices match the cli command injection signature": the title's words ("cli", "command") name the
        # signature, they do not ask for commands — the ask is read from the rest of the words
        ask, subject, cannot, confidence, margin = reader.read(asking_clause(untitled, entities))
    if cannot == "live_state" and (time.months or time.runs) and _ASSESSED.search(text) and not _REACH.search(text):
        # "did the number of high findings go up or down from sep to oct": assessment figures over runs, not a link
        ask, subject, cannot = "compare" if len(time.months) + len(time.runs) > 1 else "count", "findings", None
    if cannot == "live_state" and targets.signature and not _REACH.search(text):
        # "power supply failures anywhere?": a signature the logged events match, not live state
        polar = _POLAR.match(text.strip()) or ANY.search(text.strip()) or text.rstrip().endswith("?")
        ask, subject, cannot = "yes_no" if polar else "list", "devices", None
    expiring = read_expiring(text)
    if expiring and _EXCEPTIONS.search(text) and not _REACH.search(text):
        # "which exception expires last": the register's dates, whatever the reader's doubt toward the documents
        ask, subject, cannot = "exception", "exceptions", None
    return QuestionFrame(
        ask=ask, subject=subject, cannot=cannot, confidence=round(confidence, 3), margin=round(margin, 3),
        filters=read_filters(text, entities, catalogs.rule_ids),
        time=time,
        targets=targets,
        limit=read_limit(text),
        expiring=expiring,
        direction=direction,
        # "the TLS thing - is that covered?": a clause after a dash or comma asks as well
        polar=ask == "yes_no" or any(_POLAR.match(part.strip()) for part in re.split(r"\s[-–—]\s|[,;:]\s", text)),
        polarity=read_polarity(text) if ask == "yes_no" else read_list_polarity(text) if ask in ("list", "count")
        else read_share_polarity(text) if ask == "share" else None,
    )
