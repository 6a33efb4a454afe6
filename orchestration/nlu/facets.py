"""Prompt facets: what the words of a request say about how to answer it, read once by the Intent
Classifier and carried on ``intent.facets``. Agents decide from these facts (which tool, which breakdown,
which SQL template, whether to chart or export) and never read the prompt again for a routing decision.

The planner's conditions are contract data (``planner_rules.conditions``) evaluated here as well, so the
routes, the planner and the Data Query Agent read one reading of the prompt. Rule topics ("devices
without an NTP server") come from the rule catalog (``topics`` in config_rules.yaml).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from assessment_engine.checks.rule_engine import Rule
from assessment_engine.ontology import Ontology
from orchestration.catalog import Catalog
from orchestration.contracts import PlannerCondition
from orchestration.state import Facets, Intent

_I = re.IGNORECASE
TRACKING = re.compile(
    r"\bremain(?:s|ed|ing)? open\b|\bstill (?:open|present|unresolved|there)\b|\bunresolved\b|\bpersist\w*|"
    # "still failing" alone asks what stays open; "still failing L2-BPDUGUARD" asks whether the check fails now
    r"\bstill failing\b(?!\s+(?:the\s+)?[a-z0-9]+-[a-z0-9-]+)|"
    r"\brecurring\b|\bkeeps? (?:failing|coming back)\b|\bopen (?:issues|findings|deviations|items)\b|"
    r"\bnot (?:yet |been )?(?:fixed|resolved|remediated)\b|\boutstanding\b|"
    r"\b(?:open|failing|there|unresolved)\b[^.?!]{0,40}?\b(?:for|in|across) (?:the last )?(?:\d+|one|two|three|four|"
    r"five|six|seven|eight|nine|ten|several|multiple)\w* (?:\w+ )?(?:assessments|runs|scans)\b",
    _I,
)
CHANGE = re.compile(
    r"\bchang(?:e|ed|es)\b.*\bsince\b|\bwhat(?:'s| has| have)? changed\b|\bsince (?:(?:my|the|our) )?(?:last|previous|prior)\b|"
    r"\bcompar\w*|\bversus\b|\bvs\.?\s|\btrend\w*|\bdelta\b|\bdrift\b|\bimprov(?:ed|ement)\b|\bgot (?:worse|better)\b|"
    r"\bworsen\w*|\bregress\w*|\bnew (?:\w+ ){0,2}?(?:issues|findings|deviations|failures|failed checks)\b|\bresolved\b|"
    r"\b(?:issues|findings|failures|failed checks|deviations)\s+(?:are|were)\s+new\b|"
    r"\bfixed since\b|\b(?:anything|something|what(?:'s|s|’s| is)?)\s+(?:else\s+)?new\b.*\b(?:since|from|after)\b",
    _I,
)
EXCEPTIONS = re.compile(r"\bexceptions?\b|\bwaivers?\b|\bexempt\w*", _I)
ASSET_BREAKDOWN = re.compile(
    r"\bproduct famil\w*|\bplatforms?\b|\b(?:by|per) (?:device|asset|site|os|operating system|version|model|criticality|tier)\b|"
    r"\bcriticality\b|\b(?:which|worst|top \d+) (?:devices|assets|routers|switches|firewalls|hosts)\b|\bmost (?:affected|deviations)\b",
    _I,
)
# "most common failures" ranks rules (EVAL-004: "findings ranked by frequency"), "most common areas" the topics
TECH_BREAKDOWN = re.compile(r"\btechnolog\w*|\b(?:by|per) (?:category|area|feature|rule)\b|\bcategor\w*|"
                            r"\b(?:which|what) (?:areas?|features?|topics?)\b", _I)
FOCUS_AREAS = ("aaa", "snmp", "ntp", "ssh", "logging", "bgp", "ospf", "eigrp", "vty", "telnet", "http", "banner",
               "spanning", "interfaces", "services", "management")
DEVICE_WORDS = re.compile(r"\b(assets?|devices?|hosts?|routers?|switches|firewalls?)\b", _I)
CHANGE_WORDS = re.compile(r"\bnew\b|\bresolved\b|\bfixed\b|\bchang", _I)
PERSISTENCE_WORDS = re.compile(r"persist|remain|still|(?:open|failing|there|unresolved)\b[^.?!]{0,40}?\b(?:for|in|"
                               r"across) (?:the last )?\w+ (?:\w+ )?(?:assessments|runs|scans)", _I)
# the SQL path's templates
LISTING = re.compile(r"\b(which|what|list|show)\b.*\b(versions?|releases?|software|models?|hardware|platforms?|"
                     r"operating systems?|product famil\w+|ip addresses|roles?)\b", _I)
# "what's the oldest ios version we run", "newest release on the switches": the software releases, that end first
RELEASE_AGE = re.compile(r"\b(oldest|earliest|newest|most recent|latest)\b(?:\s+[\w-]+){0,2}?\s+(?:versions?|releases?|"
                         r"software|code|trains?|images?)\b", _I)


def asks_release_age(text: str) -> bool:
    """"the oldest ios version we run": the inventory's releases, not findings (answerable, though no word of the
    frame corpus says so)."""
    return bool(RELEASE_AGE.search(text)) and not (ISSUE_WORDS.search(text) or CHANGE.search(text))


WITHOUT = re.compile(r"\b(without|missing|lacking|(?:do|does) not have|don'?t have|doesn'?t have|with no|ha(?:ve|s) no)\b", _I)
COUNT = re.compile(r"\bhow many\b.*\b(devices|routers|switches|firewalls|wireless controllers|assets)\b", _I)
ISSUE_WORDS = re.compile(r"\b(fail\w*|deviations?|issues?|violations?|findings?|checks?|compliance|critical|severity|"
                         r"signatures?|slic|vulnerab\w*|cves?|advisor\w*|risk\w*|assess\w*|audit\w*|complian\w*|"
                         r"pass\w*|secur\w*)\b", _I)
# the question is about what fails ("which spine switches fail anything?"), not about the inventory
FAILING = re.compile(r"\b(fail\w*|deviations?|issues?|violations?|findings?|problems?|non[- ]?complian\w*)\b", _I)
# breakdown dimensions a question asks to see (key, pattern); the chart titles live with the charts
DIMENSIONS: list[tuple[str, str]] = [
    ("severity", r"\bseverit"),
    ("technology", r"\btechnolog|\bcategor|\barea\b"),
    ("os", r"\bos\b|operating system|\bsoftware\b|\bversions?\b|\brelease"),
    ("product_family", r"product famil|\bplatforms?\b|\bmodels?\b|product line"),
    ("criticality", r"criticality|\btiers?\b"),
    ("site", r"\bby site\b(?![- ]?types?)|\bper site\b(?![- ]?types?)|\bsites\b"),
    ("device_type", r"device type|\bby (device|type)\b"),
]
WANTS_CHART = re.compile(r"\bbreak ?down\b|\bchart|\bgraph|\bplot|\bvisuali[sz]|\bdistribution\b|\bby (severity|"
                         r"technology|os|platform|product|criticality|site|device)\b|\bwhich \w+ famil", _I)
EXPORT_WORDS = ("download", "export", "report", "pdf")
# which changes between two runs are asked for: the new failures, the fixed ones, or both ("what changed")
NEW_ISSUES = re.compile(r"\bnew (?:\w+ ){0,2}?(?:issues?|findings?|failures?|failed checks?|deviations?|problems?)\b|\bappeared\b|"
                        r"\bintroduced\b|\bstarted failing\b|"
                        # "how many findings are new since last month"
                        r"\b(?:issues?|findings?|failures?|failed checks?|deviations?|problems?|ones)\s+(?:are|were|is)\s+"
                        r"new\b|"
                        # "anything new since last month?", "what's new at HQ since october"
                        r"\b(?:anything|something|what(?:'s|s|’s| is)?)\s+(?:else\s+)?new\b", _I)
FIXED_ISSUES = re.compile(r"\b(?:fixed|resolved|remediated|cleared|closed)\b", _I)
WHAT_CHANGED = re.compile(r"\bwhat(?:'s| has| have)? changed\b", _I)


def changes_asked(text: str) -> list[Literal["new", "resolved"]]:
    """The changes between two runs a question asks for: the new failures, the fixed ones, or both ("what changed")."""
    if not (CHANGE.search(text) or FIXED_ISSUES.search(text)):
        return []
    if WHAT_CHANGED.search(text):
        return ["new", "resolved"]
    found: list[Literal["new", "resolved"]] = []
    if NEW_ISSUES.search(text):
        found.append("new")
    if FIXED_ISSUES.search(text):
        found.append("resolved")
    return found


GroupKey = Literal["site_type", "role", "environment", "sites"]
GROUP_KEYS: tuple[GroupKey, ...] = ("site_type", "role", "environment", "sites")  # GROUP_BY's group names


def group_key(text: str) -> GroupKey | None:
    m = GROUP_BY.search(text)
    return next((key for key in GROUP_KEYS if m.group(key)), None) if m else None


# "when was RTR-CORE-1 last assessed?": a date, per device
WHEN_ASSESSED = re.compile(r"\b(?:when|what date|how long ago|how recently)\b[^?.]*\b(?:assess\w*|audit\w*|scann?\w*|"
                           r"checked|evaluated)\b|\blast (?:assessed|audited|scanned)\b", _I)
# "which role has the worst pass rate": groups ranked by their rate, not by how many checks fail
RATE = re.compile(r"\b(?:pass(?:ing)? rates?|compliance (?:rates?|scores?|percentages?)|percentages?|percent)\b|%", _I)
HIGHEST = re.compile(r"\b(?:top|best|highest|most compliant|cleanest)\b", _I)
LOWEST = re.compile(r"\b(?:worst|lowest|bottom|least compliant|poorest)\b", _I)


def _rate(text: str) -> Literal["lowest", "highest"] | None:
    """"which role has the worst pass rate" ranks by the rate, lowest first; "top 3 branches by pass rate" highest."""
    if not RATE.search(text):
        return None
    return "highest" if HIGHEST.search(text) and not LOWEST.search(text) else "lowest"
# "pass rate per site type", "failures by role": one row per group of a column the analysis tool does not break
# down by (its breakdowns answer "by site", "by platform", "by severity")
GROUP_BY = re.compile(r"\b(?:per|by|for each|each|across|grouped by|split by|which|what)[\s-]+(?:the\s+)?(?:(?P<site_type>"
                      r"site[- ]?types?|kinds? of sites?|types? of sites?)|(?P<role>roles?|device roles?)|"
                      r"(?P<environment>environments?|envs?)|(?P<sites>sites?)(?![- ]?types?))\b", _I)
# "show the failed checks with evidence", "which config lines fail it": the offending lines are asked for
EVIDENCE = re.compile(r"\b(?:evidence|proof|offending (?:config(?:uration)? )?lines?|config(?:uration)? lines?|"
                      r"(?:the|which) lines?)\b", _I)


def _tracking(text: str) -> Literal["unresolved", "persistent", "recurring"] | None:
    if not TRACKING.search(text):
        return None
    if re.search(r"\brecurring\b", text, _I):
        return "recurring"
    return "persistent" if PERSISTENCE_WORDS.search(text) else "unresolved"


def topic_rules(text: str, catalog: Sequence[Rule]) -> list[str]:
    """Rules of ``catalog`` whose topic the text names; the longest matching phrase wins ("ntp authentication" is
    NTP-AUTH, not NTP-SERVER), rules sharing that phrase are all returned (in catalog order)."""
    return topic_phrase_rules(text, catalog)[0]


def topic_phrase_rules(text: str, catalog: Sequence[Rule]) -> tuple[list[str], int]:
    """``topic_rules`` and the length of the phrase that chose them."""
    best, rules = 0, []
    for rule in catalog:
        length = max((len(m.group(0)) for t in rule.topics for m in [re.search(t, text, _I)] if m), default=0)
        if length > best:
            best, rules = length, [rule.id]
        elif length and length == best:
            rules.append(rule.id)
    return rules, best


def attribute_column(text: str, ontology: Ontology) -> str | None:
    """The inventory column a listing question asks about, by the ontology's synonyms (longest word wins)."""
    best: tuple[str, int] | None = None
    for column, words in ontology.synonyms.items():
        for word in words:
            if re.search(rf"\b{re.escape(word)}\b", text, _I) and (best is None or len(word) > best[1]):
                best = (column, len(word))
    return best[0] if best else None


def wanted_dimensions(text: str, presentation: str) -> list[str]:
    dims = [key for key, pattern in DIMENSIONS if re.search(pattern, text, _I)]
    if not dims and (presentation == "chart" or WANTS_CHART.search(text)):
        dims = ["severity"]
    return dims


# what a question asks for besides its answer (issue 52, answers in proportion): the fixes in order, the findings behind a
# figure, the offending lines; "first" as an ordinal ("the first one") asks for no order of fixes
ACTIONS_ASKED = re.compile(r"\b(?:fix\w*|remediat\w*|clean(?:ing)? up|harden\w*|prioriti\w*|first(?! (?:one|ones|two|three|\d+|of them|device|site|row|entry|item))|plan|action\w*|cli|"
                           r"commands?|recommend\w*|assess\w*|posture|audit|review|what (?:should|do|must) (?:we|i))\b",
                           re.IGNORECASE)
FINDINGS_ASKED = re.compile(r"\bwhat\b[^?]{0,40}\bfail\w*|\b(?:which|what) (?:checks|rules)\b|\b(?:wrong|findings?|issues?|"
                            r"problems?|deviations?|summar\w*|review|assess\w*|posture|rundown|status|overview|report|"
                            r"doing|look(?:s|ing)?)\b", re.IGNORECASE)
COUNTED_ASKED = re.compile(r"\b(?:how many|number of|no\.? of|count|total|pass rate|percent\w*|%)", re.IGNORECASE)
# a question about what to do first: the order of the fixes is its answer, before the figures
FIRST_ASKED = re.compile(r"\b(?:fix|address|tackle|do|remediate|handle|start with|work on)\b.{0,40}\bfirst\b|"
                         r"\bprioriti[sz]\w*|\bwhere (?:do|should|would) (?:i|we) start\b|\bwhat comes first\b", _I)
LINES_ASKED = re.compile(r"\b(?:evidence|lines?|show me where|where exactly|why)\b", re.IGNORECASE)


def asked_besides(text: str) -> dict[str, bool]:
    """What the words ask for besides the answer itself (``Facets.actions_asked`` …): read over the words the user typed
    and the request they stood for (a follow-up's "how do I fix the telnet one" asks for a fix of that request)."""
    return {"actions_asked": bool(ACTIONS_ASKED.search(text)), "findings_asked": bool(FINDINGS_ASKED.search(text)),
            "figure_asked": bool(COUNTED_ASKED.search(text)), "lines_asked": bool(LINES_ASKED.search(text)),
            "first_asked": bool(FIRST_ASKED.search(text))}


def read_facets(text: str, catalog: Catalog, presentation: str = "narrative") -> Facets:
    """Every facet of one request (the effective one for a follow-up that re-runs an earlier request), read with
    ``catalog``'s rule topics, ontology synonyms and named conditions."""
    conditions = catalog.contracts.conditions()
    # "how many devices got worse since last month" counts a change between runs, not the inventory
    issue_words = bool(ISSUE_WORDS.search(text) or CHANGE.search(text))
    listing = bool(LISTING.search(text)) and not issue_words
    age = RELEASE_AGE.search(text) if not issue_words else None
    oldest = age is not None and age.group(1).lower() in ("oldest", "earliest")
    return Facets(
        tracking=_tracking(text),
        change=bool(CHANGE.search(text)),
        comparison_focus="assets" if DEVICE_WORDS.search(text) else ("changes" if CHANGE_WORDS.search(text) else "overall"),
        exceptions=bool(EXCEPTIONS.search(text)),
        asset_breakdown=bool(ASSET_BREAKDOWN.search(text)),
        technology_breakdown=bool(TECH_BREAKDOWN.search(text)),
        focus_areas=[f for f in FOCUS_AREAS if re.search(rf"\b{f}", text, _I)],
        without_rules=topic_rules(text, catalog.rules.rules) if WITHOUT.search(text) else [],
        inventory_count=bool(COUNT.search(text)) and not issue_words,
        failing=bool(FAILING.search(text)),
        listing_column="assets.os_version" if age else attribute_column(text, catalog.ontology) if listing else None,
        release_age=("oldest" if oldest else "newest") if age else None,
        chart_dimensions=wanted_dimensions(text, presentation),
        export=any(w in text.lower() for w in EXPORT_WORDS),
        evidence=bool(EVIDENCE.search(text)),
        rate=_rate(text),
        when_assessed=bool(WHEN_ASSESSED.search(text)),
        changes_asked=changes_asked(text),
        group_by=group_key(text),
        mentions_pci="pci" in text.lower(),
        planner_conditions=sorted(name for name, c in conditions.items()
                                  if any(re.search(p, text, _I) for p in c.patterns)),
    )


def condition_holds(name: str, condition: PlannerCondition, intent: Intent) -> bool:
    """A named condition (the planner's, or one an agent or tool contract declares) holds for this request: the
    prompt matched its patterns (read above into ``planner_conditions``), or an entity of its types was named."""
    if name in intent.facets.planner_conditions:
        return True
    return any(e.type in condition.entity_types for e in intent.entities)
