"""Which checks a question counts (DESIGN §4a): the rules it names, else the rules of the topics it names —
by technology, by the words of each rule's deviation ("telnet" → VTY lines that accept telnet) and by the catalog's
topic phrases — narrowed to the rules its other words describe ("a default snmp community" is one SNMP rule,
"weak snmp" every one). Read once by the Intent Classifier into ``QuestionFrame.checks``."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from assessment_engine.checks.rule_engine import Rule
from orchestration.nlu.facets import topic_phrase_rules
from orchestration.nlu.frame import TOPICS

# words that say a state or shape the question, not which check: "telnet enabled" is every telnet rule
STATE_WORDS = frozenset(["enabled", "disabled", "enable", "disable", "configured", "config", "configuration", "set", "used", "use", "running", "run", "allowed", "allow", "open", "opened", "turned", "still", "any", "all", "the", "and", "with", "without", "for", "are", "is", "on", "off", "our", "devices", "device", "which", "what", "have", "has", "does", "problem", "problems", "issue", "issues", "weak", "missing", "show", "list", "give", "fail", "fails", "failing", "check", "checks", "rule", "rules", "compliant"])


def _words(text: str) -> set[str]:
    text = re.sub(r"\bv(\d)\b", r"version \1", text.lower())  # "ssh v2" is what the titles call "SSH version 2"
    return {w.rstrip("s") for w in re.findall(r"[a-z0-9]{3,}", text) if w not in STATE_WORDS}


def narrowed(text: str, candidates: Sequence[Rule], topics: Sequence[str] = ()) -> list[str]:
    """The candidate rules whose deviation and title share the most of the question's telling words — words some
    candidates have and others not ("smart install" among the services, "default" among the SNMP rules) — all of
    them when no word tells them apart ("weak snmp", "telnet enabled"). A topic's own name tells nothing: "aaa
    problems" are every AAA rule's, though only some titles say "AAA"."""
    # a rule's own topic phrase too: "urpf" names one interface rule though its title says "unicast RPF" (a phrase
    # several rules share, like "aaa|tacacs|radius", names their topic, not one of them)
    shared = Counter(t for r in candidates for t in set(r.topics))
    texts = {r.id: _words(" ".join([r.deviation, r.title,
                                    *(re.sub(r"\\[a-zA-Z]", " ", t) for t in r.topics if shared[t] == 1)]))
             for r in candidates}
    said = _words(text) - {t.rstrip("s") for t in topics}

    def has(words: set[str], word: str) -> bool:  # "auth" is said of "authenticated", "snoop" of "snooping"
        return word in words or (len(word) >= 4 and any(w.startswith(word) for w in words))

    telling = {w for w in said if 0 < sum(has(t, w) for t in texts.values()) < len(texts)}
    scores = {rid: sum(has(t, w) for w in telling) for rid, t in texts.items()}
    best = max(scores.values(), default=0)
    chosen = [rid for rid, s in scores.items() if s == best]
    return chosen if best and len(chosen) < len(candidates) else [r.id for r in candidates]


def checks_asked(text: str, topics: Sequence[str], named: Sequence[str], rules: Sequence[Rule]) -> list[str]:
    """The rule ids whose failures the question counts; empty when it names no rule and no topic."""
    if named:
        return list(named)
    if not topics:
        return []
    patterns = [re.compile(p, re.I) for name, p in TOPICS if name in topics]
    precise, length = topic_phrase_rules(text, rules)
    said = max((len(m.group(0)) for p in patterns for m in [p.search(text)] if m), default=0)
    if precise and length > said + 3:  # the catalog's phrase for one rule ("snmp v3")
        return precise
    candidates = [r for r in rules if r.technology in topics or any(p.search(f"{r.deviation} {r.title}") for p in patterns)]
    chosen = narrowed(text, candidates, topics)
    # "snmp v2c": the one SNMP rule whose risk is v2c (its title says version 3)
    risky = named_risk(text, chosen, rules)
    if risky and len(risky) < len(chosen):
        return risky
    if len(chosen) < len(candidates):  # the words told the rules apart ("aaa new-model" is not the login rule)
        return chosen
    return list(dict.fromkeys(chosen + precise))


# words of where and how much, which name no risk: "how many aaa failures per site type" names no failed login
_WHERE_WORDS = frozenset(["anywhere", "everywhere", "somewhere", "network", "fleet", "today", "now", "failure", "failed",
                          "pas", "passed", "passing", "many", "much", "per", "count", "number", "rate", "percent"])


def named_risk(text: str, checks: Sequence[str], rules: Sequence[Rule]) -> list[str]:
    """The checks whose deviation or rationale — what is wrong, not the state the check wants — holds a word of the
    question that its title does not ("is snmp v2c used anywhere": SNMP-V3-PRIV's rationale says v2c, its title
    "SNMP uses version 3 …"): asked whether that is used, the question asks whether the check fails."""
    risks = {r.id: _words(f"{r.deviation} {r.rationale}") for r in rules}
    # a word of a risk only: in no title of the catalog, not within a title's word ("log" of "syslog"), and in the
    # risks of two rules at most ("v2c" — not "logs" or "core", which many rationales say)
    titles = set().union(*(_words(r.title) for r in rules)) if rules else set()
    own = {w for w in _words(text) - _WHERE_WORDS if not any(w in t or t in w for t in titles)
           and sum(w in words for words in risks.values()) <= 2}
    return [r.id for r in rules if r.id in checks and own & risks[r.id]]


_OFF = re.compile(r"\bdisabled\b|\bnot\b|^no\b", re.I)  # a title that wants a feature off: "Telnet … is disabled"


def wanted_state(checks: Sequence[str], rules: Sequence[Rule], text: str = "") -> Literal["passes", "fails"]:
    """What a question whose words say neither passing nor failing asks of the checks it names: it names the
    feature. Most of them wanting the feature off ("Telnet management is disabled"), "is telnet enabled on FW-1?" asks
    whether they fail; else ("NTP authentication is enabled") "is ntp authentication enabled on RTR-1?" whether they
    pass — unless ``text`` names what is wrong with each ("is snmp v2c used anywhere": ``named_risk``)."""
    if text and checks and set(named_risk(text, checks, rules)) == set(checks):
        return "fails"
    titles = [r.title for r in rules if r.id in checks]
    return "fails" if titles and 2 * sum(bool(_OFF.search(t)) for t in titles) >= len(titles) else "passes"
