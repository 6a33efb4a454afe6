"""Typo tolerance: words that are not in the domain vocabulary are replaced by their closest
vocabulary word ("configuraton" -> "configuration") before routing and entity extraction.

Only plain alphabetic words of five or more letters are touched; names with digits or hyphens
(hostnames, sites, rule ids) are never changed, so no entity can be invented here.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Iterable
from functools import lru_cache

DOMAIN_WORDS = ["summarize", "summarise", "summary", "latest", "recent", "previous", "prior", "assessment", "assessments", "audit", "configuration", "config", "deviation", "deviations", "violations", "compliance", "compliant", "security", "secure", "insecure", "hardened", "hardening", "firewall", "firewalls", "router", "routers", "switch", "switches", "controller", "controllers", "wireless", "critical", "severity", "medium", "percentage", "breakdown", "technology", "platform", "family", "families", "product", "products", "remediation", "recommend", "recommended", "corrective", "actions", "unresolved", "persistent", "remaining", "changed", "change", "improved", "worsened", "posture", "exposure", "vulnerable", "vulnerability", "vulnerabilities", "signature", "signatures", "policy", "policies", "standard", "standards", "exception", "exceptions", "escalate", "escalation", "production", "staging", "datacenter", "datacenters", "branch", "branches", "stores", "headquarters", "authentication", "authorization", "accounting", "logging", "management", "telnet", "encryption", "password"]
# Plain English words a domain word is one letter away from: "three" is not "tree", "where" not "were", "at least"
# not "at last", a "route" not a "router"
COMMON_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twenty", "fifty",
                "hundred", "first", "second", "third", "where", "there", "cover", "least", "route", "slack", "never",
                "every", "other", "after", "about", "which", "while", "still", "since", "until", "again", "later",
                "reach", "reachable", "connect", "connected", "connectivity",  # "can X reach Y" is not "each"
                "january", "february", "march", "april", "june", "july", "august", "september", "october",
                "november", "december",
                # the words of follow-ups and bounds: "not counting the lab" is not "not accounting"
                "count", "counting", "counted", "leave", "leaving", "ignore", "ignoring", "exclude", "excluding",
                "besides", "apart", "common", "either", "neither", "nobody", "nowhere", "single", "exactly",
                "precisely", "dropped", "worse", "better", "those", "these", "their", "whose", "device", "devices"]
_ENDINGS = ("s", "es", "d", "ed", "ing", "ly")
_PREFIXES = ("un", "non", "re")
_WORD = re.compile(r"(?<![\w-])[A-Za-z]{5,}(?![\w-])")
# a protocol and its version typed as one word ("snmpv3", "sshv2"), read as the checks name them ("snmp v3")
_GLUED_VERSION = re.compile(r"\b(snmp|ssh|ntp|tls|ssl|http)(v\d(?:\.\d)?)\b", re.IGNORECASE)


# engineers' shorthand, read as the words it stands for before anything else reads the question ("# devices per
# platform", "crits @ hq", "hosts w/o aaa"); whole tokens only, so that names ("FW-HQ-1", "SW-MGMT-1") never change
SHORTHAND: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), r) for p, r in (
    (r"^\s*#\s*(?=[a-z])|(?<![\w#])#\s*of\b|(?<=\s)#\s+(?=[a-z])", "number of "),
    (r"(?<=\s)@(?=\s)", "at"),
    (r"(?<![\w/-])w/o(?![\w/-])", "without"),
    (r"(?<![\w/-])w/(?=\s)", "with"),
    (r"(?<![\w-])mgmt(?![\w-])", "management"),
    (r"(?<![\w-])crits(?![\w-])", "critical findings"),
    (r"(?<![\w-])crit(?![\w-])", "critical"),
    (r"(?<![\w-])devs(?![\w-])", "devices"),
    (r"(?<![\w-])rtrs(?![\w-])", "routers"),  # (never "RTR-ST30-1": a name goes on after the hyphen)
    (r"(?<![\w-])rtr(?![\w-])", "router"),
    (r"(?<![\w-])fws(?![\w-])", "firewalls"),
    (r"(?<![\w-])fw(?![\w-])", "firewall"),
    (r"(?<![\w-])cfgs?(?![\w-])", "config"),
    (r"(?<![\w-])sev(?![\w-])", "severity"),  # ("high sev")
    # "which site led", "which one topped the list": the one with the most
    (r"\b(which|what)\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:led|topped|came\s+(?:out\s+)?top)"
     r"(?:\s+(?:it|that|them|the\s+list))?(?=\s*[?.!]*\s*$)", r"\1 \2 had the most"),
    (r"(?<![\w'-])'?em(?![\w'-])", "them"),  # "list em", "fix 'em"
    # question words typed fast, too short for the vocabulary's correction: "wich store", "waht fails", "hw many"
    (r"(?<![\w'-])(?:wich|whcih|whihc|wihch|whch)(?![\w'-])", "which"),
    (r"(?<![\w'-])(?:waht|hwat|wht)(?![\w'-])", "what"),
    (r"(?<![\w'-])(?:hw|hwo|haw)(?=\s+(?:many|much|often|long|is|are|do|does|did)\b)", "how"),
    # a name's possessive is the name: "RTR-ST33-1's high findings", "HQ's pass rate" (never "what's" or "it's")
    (r"(?-i:\b([A-Z][A-Za-z]*[-\d][\w()-]*|[A-Z]{2,}\d*))['’]s(?![\w'-])", r"\1"),
    # contractions typed without their apostrophe: "whats failing", "arent failing", "doesnt have"
    (r"(?<![\w'-])(what|that|where|how|who)(s)(?![\w'-])", r"\1'\2"),
    (r"(?<![\w'-])(aren|isn|don|doesn|didn|wasn|weren|hasn|haven|can|couldn|shouldn|wouldn)(t)(?![\w'-])", r"\1'\2"),
))


def expand_shorthand(text: str) -> str:
    """``text`` with engineers' shorthand written out, spaces kept single."""
    for pattern, words in SHORTHAND:
        text = pattern.sub(words, text)
    return re.sub(r"[ \t]{2,}", " ", text)


class SpellingNormalizer:
    def __init__(self, vocabulary: Iterable[str], protected: Iterable[str] = ()) -> None:
        """``vocabulary``: the words a typo is corrected to; ``protected``: real words never corrected, but no target of
        a correction either (the bundled documents' words: "treated" is no typo of "related", and "causes" must not
        become "campuses")."""
        self.vocabulary = sorted({w.lower() for w in vocabulary if w.isalpha()} | set(DOMAIN_WORDS) | set(COMMON_WORDS))
        self._known = frozenset(self.vocabulary)
        # … except a word that is a shorter form of a vocabulary word, or one a letter or two longer ("remain" is read
        # as "remaining", "given" as "give", as they always were); a word three letters longer or more is a word of
        # its own ("criticality" is no typo of "critical")
        self._protected = frozenset(w for w in (p.lower() for p in protected) if not self._a_form_of_known(w))

    def _a_form_of_known(self, word: str) -> bool:
        at = bisect.bisect_left(self.vocabulary, word)
        longer = at < len(self.vocabulary) and self.vocabulary[at].startswith(word)
        return longer or any(word[:k] in self._known for k in range(max(4, len(word) - 2), len(word)))

    @property
    def known_words(self) -> frozenset[str]:
        """The vocabulary: words that are never names (e.g. after "in": "in production")."""
        return self._known

    @lru_cache(maxsize=4096)  # noqa: B019 - one normalizer per process; words repeat across prompts
    def correct_word(self, word: str) -> str:
        lower = word.lower()
        if lower in self._protected or self._inflected(lower):
            return word
        # two letters swapped is the commonest typo ("shuold"), and the one difflib's ratio scores lowest
        swapped = (lower[:i] + lower[i + 1] + lower[i] + lower[i + 2:] for i in range(len(lower) - 1))
        match = next((w for w in swapped if w in self._known), None)
        close = match or next(iter(difflib.get_close_matches(lower, self.vocabulary, n=1, cutoff=0.84)), None)
        return close or word

    def _inflected(self, word: str) -> bool:
        """A known word, inflected or not, is no typo: "datacenters", "disabled", "check" beside "checks",
        "approves" beside "approved", "unremediated" beside "remediate"."""
        stems = {word} | {word[:-len(end)] for end in _ENDINGS if word.endswith(end)}
        stems |= {stem[len(pre):] for stem in stems for pre in _PREFIXES if stem.startswith(pre)}
        return any(stem in self._known or any(stem + end in self._known for end in _ENDINGS) for stem in stems)

    def normalize(self, text: str) -> str:
        return _WORD.sub(lambda m: self.correct_word(m.group(0)), _GLUED_VERSION.sub(r"\1 \2", text))
