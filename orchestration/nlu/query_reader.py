"""A data question read as a typed query (issue 52, ``assessment_engine/query.py``): what is measured, what the rows
are grouped by, the conditions (negated where the words negate them), bounds per row, the runs or months, the order,
the limit and the answer's form. It builds on what the Intent Classifier already read — the question frame's ask,
subject, filters, time, targets and limit, the resolved names — and reads the rest from the words with the semantic
model's vocabulary (``contracts/semantic_model.yaml``): measure words, "by/per/each <dimension>", "which <things>",
"worst/best/top N", "more than N <measure>", "zero/no/without", "not/outside/excluding <value>".

Measures are named two ways: by words that only mean a measure ("pass rate", "failed checks", "failed logins"), and by
the plain nouns of what is counted ("devices", "checks", "releases", "sites") — those only where they are counted
("how many devices", "the most devices", "more than 20 failures"); elsewhere "which devices" names what is listed.
Counting devices or checks where the words speak of failing ("how many devices fail NTP-AUTH") counts the failing ones.

``read_query`` returns None for what is not a question about figures or lists of the warehouse (a summary, an
explanation, a fix, a policy, new or resolved findings, pasted lines): those keep their own answers. A shape the
assessment tools answer with more (``kept_by_the_assessment_tools``) is read and marked ``kept``: they answer it, a
follow-up edits it. What it cannot
fill is said (``QueryReading.unsaid``), never dropped silently; a month that has no run is said with the runs there are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from assessment_engine.query import Bound, Comparison, Condition, DataQuery, Order, Output
from assessment_engine.semantic_model import SemanticModel
from assessment_engine.warehouse.run_summary import BREAKDOWNS
from orchestration.nlu.frame import ANY, MONTHS, NOT_FAILING, RANGE
from orchestration.nlu.names import PLATFORM_WORDS
from orchestration.nlu.which_way import BEST, COMPARATIVE, LEAST, MOST, SUPERLATIVE_OF, WORST
from orchestration.state import Intent

_I = re.IGNORECASE
DATA_ASKS = ("count", "list", "ranking", "yes_no", "trend", "compare")  # a share: the analysis tool's percentages
DATA_SUBJECTS = ("devices", "findings", "rules", "sites", "runs", "signatures")
COUNT_NOUNS = ("devices", "checks", "releases", "sites", "events", "exceptions", "signatures")  # a measure only where counted
DEVICE_COUNTS = ("devices", "devices_failing", "devices_matched", "failed_checks", "slic_matches")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "twenty": 20}
_N = r"(\d+|" + "|".join(NUMBER_WORDS) + r")"
COUNT_CUE = re.compile(r"(?:^\s*#|\bhow many\b|\bnumber of\b|\bno\.? of\b|\bcount of\b|\b# of\b|\btotal\b|\bcount\b)", _I)
COUNTED = re.compile(rf"(?:\bhow many|\bnumber of|\bno\.? of|\bcount of|#|\btotal(?: number of)?|\bthe most|\bmost|"
                     rf"\bfewest|\bleast|\bmore than {_N}|\bover {_N}|\bfewer than {_N}|\bless than {_N}|"
                     rf"\bat least {_N})\s+(?:\w+[\s-]+){{0,2}}$", _I)
# "devices per role", "prod firewalls by site": the noun the question opens with, counted per group (not "list
# devices by role", which names them)
COUNTED_PER_HEAD = re.compile(r"^\s*(?:(?:and|so|ok(?:ay)?|now)[\s,]+)?(?:(?:the|our|all)\s+)?(?:(?!(?:list|show|which|what|"
                              r"name|give|where|top|worst|best|bottom|most|least|fewest|\d+)\b)[\w-]+\s+){0,2}$", _I)
COUNTED_PER = re.compile(r"\s+(?:per|by|for each|in each|across each)\s+(?:the\s+)?(?P<dim>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)",
                         _I)
NEGATORS = re.compile(r"(?:\bnot|n't|\bno longer|\boutside(?: of)?|\bexcluding|\bexcl\.?|\bexcept(?: for)?|\bother than|"
                      r"\bbesides|\bapart from|\bleaving out|\bleave out|\bignoring|\bminus|\bnon|\bexclude|\bdrop|\bskip|"
                      r"\bwithout(?=\s+the\s))[\s-]+"
                      r"(?:(?:on|in|at|running|using|counting|including|the|a|an|from|of|be|being)\s+){0,2}$", _I)
# "the router with the lowest pass rate", "a site having the most criticals": the rows the superlative ranks
ROW_WITH_THE_END = re.compile(r"\b(?:the|a|an|any|one)\s+(?:(?:top\s+)?\d+\s+)?(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+(?:with|having|"
                              r"that (?:has|had|have|shows?)|which (?:has|had))\s+the\s+(?:most|fewest|least|lowest|"
                              r"highest|worst|best|biggest|largest|smallest|poorest)\b", re.I)
# a question that starts with the rows it asks for: "sites where the pass rate dropped", "stores whose firewalls …"
ROWS_WHERE = re.compile(r"^\s*(?:(?:list|show|give)(?:\s+me)?\s+)?(?:the\s+|all\s+)?(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
                        r"\s+(?:where|whose|in which|at which)\b", re.I)
RANKED_ROWS = re.compile(r"\b(?:(?:worst|best|lowest|highest|poorest|top|bottom)[\s-]+(?:scoring|scored|rated|"
                         r"performing|ranked)|worst|best|least compliant|most compliant|poorest|cleanest)\s+"
                         r"(?P<what>[a-z][\w\s-]*)",
                         re.I)
# "… but not SNMP-ACL", "… and pass L2-DHCP-SNOOPING", "… without failing NTP-AUTH": a check the devices do not fail
BUT_NOT = re.compile(r"\b(?:but|and|yet|while|whilst)\s+(?:(?:do|does)\s*n[o']?t\s+(?:fail\s+)?|not\s+(?:failing\s+)?|"
                     r"pass(?:es|ing)?\s+|never\s+fail\s+)(?:on\s+|the\s+)?|\bwithout\s+failing\s+(?:the\s+)?|"
                     r"\b(?:that|which)\s+(?:also\s+|still\s+)?pass(?:es)?\s+(?:on\s+|the\s+)?", _I)
# "the second worst store", "3rd highest pass rate": a place in a ranking
ORDINAL_NUMBER = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}
NTH_RANKED = re.compile(r"\b(?P<nth>second|2nd|third|3rd|fourth|4th|fifth|5th)[\s-]+(?:most|least|worst|best|lowest|"
                        r"highest|biggest|fewest|poorest|cleanest)\b", re.I)
def query_condition(conditions: Sequence[Condition], dimension: str) -> Condition | None:
    return next((c for c in conditions if c.dimension == dimension and not c.negated), None)


# the checks failing at all of a kind of place or device: "which rules fail at every store", "on all the routers"
EVERY = re.compile(r"\b(?:at|in|on|across)\s+(?:every|each|all(?:\s+(?:the|our|of the))?)\s+(?P<what>stores?|"
                   r"branch(?:es)?|sites?|data ?cent(?:er|re)s?|dcs?|campus(?:es)?|locations?|offices?|devices?|boxes|"
                   r"routers?|switch(?:es)?|firewalls?)\b", re.I)
# a count of places: "how many stores have it", "how many of our branches fail NTP-AUTH"
HOW_MANY_SITES = re.compile(r"\bhow many\s+(?:of (?:the|our)\s+)?(?:sites|locations|offices|stores|branch(?:es)?|"
                            r"data ?cent(?:er|re)s|dcs|campus(?:es)?)\b", re.I)
# "what % of the stores have a critical finding": a share of places, not of their devices
SHARE_OF_SITES = re.compile(r"\b(?:what|which)\s+(?:%|percent(?:age)?|share|fraction|proportion|part)\s+of\s+(?:the\s+|our\s+)?"
                            r"(?:sites|locations|offices|stores|branch(?:es)?|data ?cent(?:er|re)s|dcs|campus(?:es)?)\b"
                            r"(?!'|\s+(?:devices?|routers?|switch(?:es)?|firewalls?|boxes|wlcs?|hosts|assets))", re.I)
# "what else do they fail", "anything else": besides the checks the conversation was about
ELSE = re.compile(r"\b(?:what|anything|something|which|any)\s+else\b|\bother (?:checks|rules|failures|findings)\b", _I)
BOUND = re.compile(rf"\b(?P<op>more than|over|above|greater than|at least|fewer than|less than|under|below|at most|"
                   rf"exactly|just|only|precisely)\s+(?P<n>{_N})(?:\s*(?:%|percent))?\s+(?P<what>[\w -]+)|"
                   # (not "without a single critical failure": none of them, ``ZERO``)
                   rf"(?<!without )(?<!\bnot )(?<!n't )(?<!never )\b(?P<single>a single|one single)\s+(?P<one>[\w -]+)", _I)
# a bound in percent ("which stores are under 70 percent"): on a rate, whether or not the rate is named
PERCENT_BOUND = re.compile(r"\b(?P<op>more than|over|above|greater than|at least|less than|under|below|at most)\s+"
                           r"(?P<n>\d+(?:\.\d+)?)\s*(?:%|percent)", _I)
# a rate bound said after the rate ("with a pass rate below 80%", "compliance under 90 percent")
RATE_BOUND = re.compile(r"\b(?P<what>pass rate|pass percentage|fail(?:ure)? rate|compliance(?: rate| score)?)\s+"
                        r"(?:of\s+|is\s+|that is\s+|at\s+)?(?P<op>more than|over|above|greater than|at least|less than|"
                        r"under|below|at most|<=|>=|<|>)\s*(?P<n>\d+(?:\.\d+)?)\s*(?:%|percent)?", _I)
# "per firewall", "for each switch": one device of a kind, as an average is taken
PER_DEVICE = re.compile(r"\b(?:per|each|every|a)\s+(?:[\w-]+\s+)?(?:device|box|router|switch|firewall|asa|wlc|"
                        r"host|node|controller)\b", _I)
LOG_SAID = re.compile(r"\blog(?:ged|s|ging)?\b|\bsyslog\b|\bevents?\b|\bmessages?\b|\bhow many times\b", _I)
SLIC_SAID = re.compile(r"\bslic\b|\bsignatures?\b|\bknown[- ]issues?\b|\bmatch(?:es|ed)?\b|\bSLIC-", _I)
AVERAGE = re.compile(r"\b(?:avg|average|mean|on average)\b", _I)
# "per store", "for each branch": one place of a kind, as an average is taken
PER_PLACE = re.compile(r"\b(?:per|each|every|a)\s+(?P<kind>sites?|stores?|branch(?:es)?|locations?|campus(?:es)?|"
                       r"datacenters?)\b", _I)
SITE_KIND_OF = {"store": "store", "branch": "branch", "campus": "campus", "datacenter": "datacenter"}
# the kind of row a ranking is among, named after the row asked about: "is Store-50 the store with the lowest …"
ROW_KINDS = {**{k: ("site_type", v) for k, v in SITE_KIND_OF.items()}, "datacentre": ("site_type", "datacenter"),
             **{k: ("device_type", k) for k in ("router", "switch", "firewall")}}
ROW_KIND = re.compile(r"\b(?:the|top\s+\d+|\d+)\s+(?P<kind>store|branch|campus|data\s?cent(?:er|re)|router|switch|"
                      r"firewall)(?:e?s)?\s+(?:with|that|having|which|where|by|for)\b", re.IGNORECASE)
# failing in each run read: "never passed", "always failed", "in every run", "every month since august"
EVERY_RUN = re.compile(r"\bnever (?:passed|pass(?:es|ing)?|been (?:fixed|compliant|clean)|fixed|compliant)\b|"
                       r"\balways (?:fail\w*|been failing)\b|\b(?:in |on )?(?:every|each|all(?: the)?) "
                       r"(?:single )?(?:runs?|assessments?|scans?)\b|\bevery (?:single )?month\b|\bconsistently fail\w*",
                       _I)
# what a ranking is by: "the most reboots", "the fewest outages"
# ("the most that month", "the most in september": a time, not a figure)
RANKED_BY = re.compile(r"\b(?:most|fewest|least|highest number of|lowest number of)\s+(?!(?:in|at|on|that|this|last|"
                       r"for|since|during|of|there|here|then|now|today|overall)\b)"
                       r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)", _I)
# "… and their software version", "… with their management ip": a value of each row shown beside it
THEIR_ATTRIBUTE = re.compile(r"\b(?:and|with|plus|including|showing)\s+(?:their|its|the)\s+"
                             r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})\s*[?.!]*\s*$", _I)
HOW_MANY_THINGS = re.compile(r"(?:\bhow many|\b(?:the\s+)?(?:number|count|no\.?|#)\s+of|^\s*count(?:\s+the)?)\s+(?:of (?:the|our)\s+)?"
                             r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)", _I)
# things counted by a failure they have: "number of catalyst 9200 with failed aaa checks" counts the devices
WITH_A_FAILURE = re.compile(r"\b(?:with|having|(?:that\s+)?(?:have|has|had))\s+(?:any\s+|an?\s+|at\s+least\s+one\s+)?"
                            r"(?:[\w-]+\s+){0,3}?(?:failed|failing|failures?|fails)\b", _I)
# rows named first, before what keeps them ("devices in us-central under 80% pass rate": devices)
ROWS_FIRST = re.compile(r"^\s*(?:(?:list|show|give|find)(?:\s+me)?\s+)?(?:the\s+|all\s+|any\s+)?"
                        r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)", _I)
ZERO = re.compile(r"\b(?:zero|no|without any|without|(?:do|does|did)\s*(?:n[o']?t|n’t)\s+(?:have|show)\s+any|"
                  r"(?:have|has|had|show|shows)\s+no)\s+(?:(?:failed checks?|failures?|fails?|findings?|deviations?|"
                  r"issues?)|(?:\w+\s+){1,3}(?:failures?|findings?|checks?|deviations?))\b|"
                  r"\bpass(?:ed|es|ing)? (?:everything|(?:every|all)(?: (?:the|their|its))? checks?)\b|\bfail(?:s|ing)? nothing\b|"
                  # "firewalls that dont fail anything", "never fail a check"
                  r"\b(?:(?:do|does|did)\s*(?:n[o']?t|n’t)|never)\s+fail\s+(?:anything|any\s+checks?|a\s+check)\b|"
                  # "checks that fail on no device", "and on none at all", "which checks does nobody fail"
                  r"\b(?:fail(?:s|ed|ing)?\s+|on\s+|at\s+)(?:on\s+|at\s+)?(?:no|zero)\s+(?:devices?|boxes|sites?)\b|\b(?:on|at)\s+none\b|"
                  r"\bnowhere\b|\b(?:nobody|no one|no device|no box)\s+fails?\b", _I)
WITHOUT_THINGS = re.compile(r"\b(?:without(?: any)?|with no|no)\s+(?P<what>routers?|switch(?:es)?|firewalls?|"
                            r"wireless controllers?|wlcs?)\b", _I)
TOP = re.compile(rf"\b(?:top|worst|best|bottom|first|lowest|highest)\s+{_N}\b|\b{_N}\s+(?:worst|best|top|lowest|"
                 rf"highest)\b", _I)
GROUP = re.compile(r"\b(?:by|per|for each|each|across|grouped by|broken down by|split by)[\s-]+(?:the\s+)?"
                   # ("per ios-xe release": a value with a hyphen said before the dimension)
                   r"(?P<dim>[a-z](?:[\w ]|-(?=\w))*?)(?=$|[^\w\s-]|\s+(?:at|in|on|for|of|with|from|since|and|,)\b|\s*$)",
                   _I)
WHICH = re.compile(rf"\b(?:which|what(?:\s+(?:are|is|were))?|list|show|rank|worst|best|top|lowest|highest|bottom)"
                   rf"(?:\s+{_N})?\s+(?:the\s+|all\s+|our\s+|its\s+|their\s+|of the\s+)?(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}})", _I)
AMONG = re.compile(r"\b(?:of|among|out of|in)\s+(?:any|all|every|each)(?:\s+(?:of\s+)?(?:the|our))?\s+"
                   r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})", _I)
WHAT_FAILS = re.compile(r"\bwhat(?:'s| is| are| do| does| did)?\b[^?]*\bfail(?:s|ing|ed)?\b|\bwhat fails\b|"
                        r"\bwhat(?:'s| is)? wrong\b", _I)
FAILING = re.compile(r"\b(?:fail\w*|failures?|deviations?|deviate\w*|findings?|issues?|problems?|violat\w*|crits?|"
                     r"criticals?|not compliant|non[- ]?compliant|without|missing|lacking|allow\w*|enabled|hit by|"
                     r"exposed|affected|worse|better|improv\w*|degrad\w*|at risk|risky|vulnerable|insecure|secure)\b", _I)
PASSES = re.compile(r"\b(?:pass|passes|passed|passing)\b(?!\s*(?:rate|%|percent))", _I)
BREAKDOWN = re.compile(r"\bbreak\s*down\b|\bbreakdown\b|\bdistribution\b", _I)
# the model's dimensions the analysis tool breaks a run down by, with its chart (``run_summary.BREAKDOWNS``)
TOOL_BREAKDOWNS = frozenset(
    {"os": "release", "technology": "topic"}.get(name, name) for name in BREAKDOWNS) | {"platform"}
# a span of months: "between august and october", "from august to october"
POLICY = re.compile(r"\b(?:polic(?:y|ies)|standards?|pci|complian\w*|guidelines?|mean|means|meaning|impact\w*|"
                    r"escalat\w*)\b", _I)
NEW_OR_FIXED = re.compile(r"\bnew\b(?:\s+\w+){0,2}\s+(?:findings?|issues?|failures?|failed checks?|deviations?|"
                          r"problems?)\b|\b(?:fixed|resolved|remediated|cleared|broke)\b|\b(?:findings?|issues?|failures?|"
                          r"failed checks?|deviations?)\s+(?:are|were|is)\s+new\b", _I)
CHANGE = re.compile(r"\bsince\b|\b(?:moved|shifted|swung)\b|\b(?:more|less|fewer)\s+(?:[\w-]+\s+){1,3}?than\b|\bworse\b|\bbetter\b|\bimprov\w*|\bdegrad\w*|\bgo(?:ne)? (?:up|down)\b|"
                    r"\bincreas\w*|\bdecreas\w*|\bchang\w*|\bfrom\b.*\bto\b|\bvs\.?\b|\bversus\b|\bcompared? to\b", _I)
CLEAN = re.compile(r"\b(?:clean|compliant|ok|okay|fine|pass(?:es|ing)?|disabled|off)\b(?! rate)|\b(?:do|does|are|is) "
                   r"(?:all|every)\b", _I)
OVER_TIME = re.compile(r"\bover time\b|\btrend\w*|\brun by run\b|\beach run\b|\bper run\b|\bevery run\b|"
                       r"\bacross (?:the |all )?runs\b|\bhistor\w*|\b(?:per|by|each|every) month\b|\bmonth(?:ly| by month| over month)\b|"
                       r"\bover the (?:last|past) \w+ (?:runs|assessments)\b", _I)
FINE = re.compile(r"\b(?:clean|compliant|ok|okay|fine|healthy|in (?:good|decent) shape)\b", _I)
# a choice between named values: "is HQ or DataCenter-1 worse", "which has more critical findings, HQ or DC1"
CHOICE = re.compile(r"\b(?:which|who)\b[^?]*\bor\b|^\s*(?:is|are|was|were|does|do|did|has|have)\b[^?]*\bor\b", _I)
# figures of several places asked as one: "failed checks at HQ and Lab-1 combined", "in total"
TOGETHER = re.compile(r"\b(?:combined|together|in total|in all|altogether|total|overall|as a whole|pooled|sum)\b", _I)
SEVERITY_ONES = re.compile(r"\b(?:critical|high|medium|low)(?:[\s-]+severity)?\s+ones\b", _I)
# "which" with no noun after it: one of the rows in play ("which fails the most checks", "which one has …")
BARE_WHICH = re.compile(r"^\s*(?:and\s+|so\s+)?(?:which|who)(?:\s+ones?)?(?:\s+of\s+(?:them|those|these))?\s+"
                        r"(?:fails?|failed|has|have|had|is|are|was|were|runs?|passes|passed)\b", _I)
# one side against all others: "the stores vs the rest", "prod compared with everything else"
REST = re.compile(r"\b(?:vs\.?|versus|compared (?:with|to)|against|and|or)\s+(?:the rest|everything else|everywhere else|"
                  r"anything else|all (?:the )?others?|the others|(?:all )?(?:the )?other (?:sites|devices|places|boxes|"
                  r"ones|locations|parts)|the remainder|elsewhere|(?:the )?rest of (?:the )?(?:fleet|network|estate))\b",
                  _I)
# "which of A and B …", "compare A and B", "A and B side by side"
SIDES = re.compile(r"\b(?:vs\.?|versus|compared (?:with|to)|against)\s|\bwhich (?:one )?of\b|\bcompar(?:e|ing)\b|"
                   r"\bside by side\b|\bbetween\b", _I)
# the verbs of a change with no measure word: "what got fixed", "what's new on …" (``_changes_said``)
FIXED_SAID = re.compile(r"\b(?:fix(?:ed|es)?|resolved?|remediated|cleared|improved|better)\b", _I)
NEW_SAID = re.compile(r"\b(?:new|newly|broke|broken|regress\w*|worse|degraded)\b", _I)
# from which run something has held: "since when has RTR-ST30-1 been failing PWD-ENABLE-SECRET", "how long has …"
SINCE_WHEN = re.compile(r"\bsince when\b|\bhow long (?:has|have|had)\b|\bfor how long\b|\bwhen did\b.{0,60}\bstart\b", _I)
# the figures a run's summary by the assessment tools states (a question naming another is compiled)
SUMMARY_FIGURES = frozenset({"pass_rate", "failed_checks", "checks", "passed_checks", "excepted_checks",
                             "devices_assessed", "devices", "devices_failing", "critical_findings", "high_findings"})
# the measures whose own definition holds a severity (``semantic_model.yaml``: their ``where``)
SEVERITY_OF = {"critical_findings": "critical", "high_findings": "high"}
# every one of the checks named, not any of them: "devices failing both NTP-AUTH and NTP-SERVER"
BOTH = re.compile(r"\bboth\b|\bas well as\b|\band also\b|\ball (?:of )?(?:these|those|the following)\b", _I)
# what two devices or sites differ in: "diff between FW-1 and FW-2", "what does SW-1 fail that SW-2 doesn't"
DIFFER = re.compile(r"\bdiffs?\b|\bdifferen\w*|\bdiffer\b|\bthat\b[^?]{1,40}\b(?:doesn'?t|does not|don'?t|"
                    r"do not|isn'?t|is not)\b|\bbut not\b|\band not\b", _I)
# what one side fails and the other does not ("at Store-41 but not Store-40", "what does FW-1 fail that FW-2 doesn't")
ONE_SIDE = re.compile(r"\bbut not\b|\band not\b|\bthat\b[^?]{1,40}\b(?:doesn'?t|does not|don'?t|do not|isn'?t|is not)\b|"
                      r"\bonly (?:at|on|in)\b", _I)
LAST_TIME = re.compile(r"\bthan (?:the |it was )?(?:last|previous) (?:time|run|assessment|scan|audit)\b|\blast time\b",
                       _I)
FIRST_RUN = re.compile(r"\b(?:first|earliest|oldest)\s+(?:assessment|run|audit)\b", _I)
DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)\b")
TIER = re.compile(r"\btier[\s-]?([123])\b", _I)
PROTOCOL_VERSION = re.compile(r"\b(?:ssh|snmp|ntp|tls|ospf|bgp|http|netflow|ip)\s*(?:version|v)\s*(\d+)", _I)
# conditions the assessment tools' scope has no key for: a summary there is the compiler's
BEYOND_THE_TOOLS = frozenset({"region", "tier", "role", "pci_scope", "criticality", "product_family", "model", "cve",
                              "category"})
def _beyond_the_tools(condition: Condition, scope: dict[str, Any]) -> bool:
    """A condition the tools' scope does not hold. Of the dimensions beyond them, the scope holds a role only: a
    product family or model in ``scope`` was read from the words for the compiler ("pass rate of the catalyst 9200s":
    the tools would answer for the whole fleet)."""
    return condition.dimension in BEYOND_THE_TOOLS and not (condition.dimension == "role" and scope.get("role"))


# what neither the tools' scope nor a SQL template keeps or groups by (both know a role)
KEPT_BY_NO_TOOL = BEYOND_THE_TOOLS - {"role"}
# dimensions whose values the reader finds in the words themselves, each with what must follow a value: a role only
# before a kind of device ("wan routers", "core devices"; not "access lists" or "edge interfaces")
VALUE_WORDS = {"region": "", "role": r"(?=\s+(?:routers?|switch(?:es)?|firewalls?|devices?|boxes|box|nodes?|layer|"
                                     r"controllers?|role)\b)",
               # "management plane checks", "layer 2 findings" (the category "services" is the topic of that name)
               "category": r"(?<!services)"}
DEVICE_WORDS = re.compile(r"^(?:(?:core|edge|wan|distribution|dist|access|spine|leaf|management|mgmt|production|prod|"
                          r"staging|lab|store|branch|campus|datacenter|hq|nx-os|ios-xe|asa|nexus|cisco|isr|asr|csr|"
                          r"catalyst|firepower|\d[\w.()]*)\s+)*"
                          r"(?:routers?|switch(?:es)?|firewalls?|boxes|box|devices?|hosts?|assets?|asas|asa's|wlcs?|"
                          # (product lines named as the devices: "which ISRs fail SSH-V2")
                          r"wireless controllers?|leafs|leaves|spines?|nodes?|isrs|asrs|csrs|catalysts|nexus(?:es)?|"
                          # one of them, the phrase's last word ("which leaf has the lowest"; "asa check" is a check)
                          r"firepowers|(?:leaf|isr|asr|csr|catalyst|firepower|asa)(?=\s*$))\b", _I)
SITE_WORDS = re.compile(r"^(?:(?:tier\s*\d|pci)\s+)?(?:sites?|stores?|branch(?:es)?|datacenters?|data centers?|campus(?:es)?|"
                        r"locations?|offices?)\b(?!-\d)", _I)  # "Store-50" is a site's name, not "stores"
# a device's business criticality said with its value ("high criticality devices", "business critical boxes"): not
# the severity of a finding, whose values are the same words
CRITICALITY = re.compile(r"\b(?:(?P<v>critical|high|medium|low)[\s-]+(?:business[\s-]+)?criticality|"
                         r"(?:business|mission)[\s-]+(?P<b>critical)|criticality\s+(?:is\s+|of\s+)?"
                         r"(?P<a>critical|high|medium|low))\b", _I)
# the sites in (or out of) the PCI scope, as a population: "pci stores", "non pci", "not in pci scope"
PCI_IN = re.compile(r"\bpci[- ](?:scoped?\s+)?(?:sites?|stores?|branch(?:es)?|devices?|boxes|routers?|switch(?:es)?|"
                    r"firewalls?|locations?)\b|\b(?:in|within|inside)\s+(?:the\s+)?pci(?:[- ]dss)?\s+scope\b|"
                    r"\bin\s+scope\s+for\s+pci\b|\bpci[- ]scoped\b", _I)
PCI_OUT = re.compile(r"\bnon[- ]?pci\b|\b(?:not|n[o']t)\s+(?:in|within)\s+(?:the\s+)?pci(?:[- ]dss)?(?:\s+scope)?\b|"
                     r"\b(?:outside|out\s+of)\s+(?:the\s+)?pci(?:[- ]dss)?(?:\s+scope)?\b", _I)
# a kind, place or platform said before what a phrase names: a filter, not the dimension
QUALIFIER = re.compile(r"^(?:core|edge|wan|distribution|access|spine|leaf|management|production|staging|lab|store|branch|"
                       r"campus|datacenter|dc|hq|nx-os|ios-xe|ios|asa|nexus|catalyst|us-\w+)\s+(?=\w)", _I)
KIND_WITHIN = re.compile(r"^[\w-]+\s+(?:devices?|boxes|box|routers?|switch(?:es)?|firewalls?|wlcs?|hosts?)\b", _I)
RULE_WORDS = re.compile(r"^(?:(?:\w+\s+)?(?:rules?|checks?|controls?))\b", _I)


# "where is RTR-CORE-2", "where's FW-HQ-1 located": the site a device is at
WHERE_IS = re.compile(r"^\s*where(?:'s| is| are)\s+(?:the\s+)?[\w.-]+(?:\s+(?:located|installed|deployed|at))?\s*\??\s*$|"
                      r"\blocation of\b", _I)


RUNNING_WHAT = re.compile(r"^\s*(?:and\s+|so\s+)?what\s+(?:is|are|'s|'re)?\s*(?:it|they|those|these|that one|the \w+ ones?)"
                          r"\s+running\s*(?:now|today)?\s*\??\s*$", _I)


KIND_OF_THEM = re.compile(r"^\s*(?:and\s+|so\s+)?what\s+(?:type|kind)s?(?:\s+of\s+(?:devices?|boxes|kit))?\s+(?:is|are)\s+"
                          r"(?:it|they|those|these|that one)\s*\??\s*$", _I)


def attribute_asked(prompt: str, model: SemanticModel) -> str | None:
    """The device attribute the words ask for ("what model is RTR-CORE-2", "mgmt ip of SW-HQ-CORE-1", "where is
    FW-HQ-1"): a dimension each device has one value of, named with no measure, finding or check word beside it.
    The caller knows a device is named."""
    if measure_words(prompt, model) or FAILING.search(prompt) or COUNT_CUE.search(prompt) or \
            len(prompt.split()) > 10:  # a lookup is short; a longer question asks more than the inventory's value
        return None
    if WHERE_IS.search(prompt):
        return "site"
    if RUNNING_WHAT.search(prompt):
        return "release"  # "what are they running": the software, the one thing a device is said to run
    if KIND_OF_THEM.search(prompt):
        return "device_type"  # "what type are they": the kind of device each is
    for word, name in model.dimension_words:
        dimension = model.dimensions[name]
        if name not in ("device", "run") and (dimension.default or "").startswith(("a.", "s.")) and \
                model.word_patterns[word].search(prompt):
            return name
    return None


def attribute_query(dimension: str, devices: Sequence[str]) -> DataQuery:
    """The named devices' value of one attribute, from the inventory."""
    return DataQuery(group_by=["device", dimension], conditions=[Condition(dimension="device", values=list(devices))],
                     output="list")


@dataclass
class QueryReading:
    query: DataQuery
    unsaid: list[str] = field(default_factory=list)  # what the words asked that the query could not hold
    missing_runs: list[str] = field(default_factory=list)  # months asked that have no run
    kept: bool = False  # a shape the assessment tools answer (``kept_by_the_assessment_tools``): read, not executed
    every: str | None = None  # "fail at every store": the checks failing at all of them ("site" or "device"), whose
    #                           number the caller counts in the warehouse (``bound_to_every``)


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def _negated(prompt: str, value: str) -> bool:
    """Whether the words just before ``value`` negate it ("not on 17.9.4", "outside DataCenter-1", "non-critical",
    "excluding firewalls")."""
    # a release as typed may be shorter than the one it was read as ("not running 17.9" for 17.9.4)
    parts = value.split(".")
    forms = [value, *(".".join(parts[:n]) for n in range(len(parts) - 1, 1, -1))] if re.match(r"\d", value) else [value]
    for form in forms:
        written = re.escape(form).replace("_", "[_ ]")
        for m in re.finditer(rf"(?<![\w.-]){written}(?:e?s)?(?![\w-])", prompt, _I):
            if NEGATORS.search(prompt[max(0, m.start() - 40):m.start()]):
                return True
    return False


def measure_words(prompt: str, model: SemanticModel) -> list[str]:
    """The measures the words name, each once, in the order they stand: a word that only means a measure wherever it
    stands, a counted noun only where it is counted."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for word, name in model.measure_words:
        for m in model.word_patterns[word].finditer(prompt):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            if name in COUNT_NOUNS and not COUNTED.search(prompt[max(0, m.start() - 40):m.start()]) and not \
                    _counted_per_group(prompt, m, model):
                continue
            if not _whole_measure(prompt, m, word, model):
                continue
            taken.append((m.start(), m.end()))
            found.append((m.start(), name))
    # "failed checks covered by exceptions": a count said, then a narrower count of the same rows qualifying it, is
    # the narrower one (the excepted checks), not both
    qualified = {a_name for (a_start, a_name), (_, b) in zip(found, taken, strict=True) for b_start, b_name in found
                 if b_start > a_start and QUALIFIES.fullmatch(prompt[b:b_start]) and a_name != b_name and
                 model.measures[a_name].fact == model.measures[b_name].fact and model.measures[b_name].where and
                 model.measures[a_name].unit == model.measures[b_name].unit == "count"}
    return list(dict.fromkeys(name for _, name in sorted(found) if name not in qualified))


QUALIFIES = re.compile(r"\s+(?:(?:that|which)\s+)?(?:(?:are|were|is|was|have|has)\s+)?", re.I)


def _counted_per_group(prompt: str, noun: re.Match[str], model: SemanticModel) -> bool:
    """Whether the noun the question opens with is counted per group of a dimension ("devices per role", "prod
    firewalls by site") — not ranked by a figure ("top 5 devices by failed checks")."""
    per = COUNTED_PER.match(prompt[noun.end():])
    return bool(per and COUNTED_PER_HEAD.match(prompt[:noun.start()]) and _dimension(per.group("dim"), model))


def _dimension(text: str, model: SemanticModel) -> str | None:
    """The dimension a phrase names ("site type", "releases", "the firewalls" — devices, "stores" — sites); a tier
    a criticality or the PCI scope before it is a value ("tier 1 sites" are sites, "business critical devices" and
    "pci stores" devices and stores)."""
    phrase = re.sub(r"^(?:tier[\s-]?[123]|(?:business|mission)[\s-]+critical|(?:non[\s-]?)?pci(?:[\s-]scoped)?)\s+(?!scope\b)(?=\w)",
                    "", text.strip().lower())
    for word, name in model.dimension_words:
        if model.word_patterns[word].match(phrase):
            return name
    if DEVICE_WORDS.match(phrase):
        return "device"
    if SITE_WORDS.match(phrase):
        return "site"
    # a value before the dimension is a filter said with it ("which ios-xe version", "the us-west sites")
    rest = QUALIFIER.sub("", phrase, count=1)
    if rest == phrase or not rest:
        return None
    # ("lab environment devices" are devices: a kind of device said within the phrase is what it names)
    return "device" if KIND_WITHIN.match(rest) else _dimension(rest, model)


def names_a_part_beyond_the_frame(prompt: str, model: SemanticModel) -> bool:
    """Whether the words name a part of the network the question frame has no filter for: a region ("us-west") or a
    tier ("tier 1") — "list sites in us-west" is about that part."""
    return bool(TIER.search(prompt)) or any(
        re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", prompt, _I)
        for dim in VALUE_WORDS if dim in model.dimensions and not VALUE_WORDS[dim] for v in model.dimensions[dim].values)


def _names_a_measure(text: str, model: SemanticModel) -> bool:
    """Whether the words start with a measure's name longer than any dimension's there ("device count", not "device")."""
    phrase = text.strip()
    longest = max((len(w) for w, _ in model.dimension_words if model.word_patterns[w].match(phrase)), default=0)
    return any(len(w) > longest and model.word_patterns[w].match(phrase) for w, _ in model.measure_words)


# "failed SNMP-ACL in august but pass it now", "passed NTP-AUTH in september and fail it now": a check's transition
TRANSITION = re.compile(r"\b(?P<then>failed|failing|passed|passing)\b[^.?;]*?\b(?:but|and|yet)\s+(?:(?:now|today|"
                        r"currently)\s+)?(?P<now>pass(?:es|ing)?|fail(?:s|ing)?)\b(?:\s+(?:it|them))?\s+(?:now|today|"
                        r"currently|in the latest run|in the last run)\b", _I)


def _transition(prompt: str, model: SemanticModel) -> str | None:
    """The measure of the changes between two runs a transition said in words counts ("failed X in august but pass it
    now": the fixed checks; "passed it then and fail it now": the checks broken since), or None."""
    m = TRANSITION.search(prompt)
    if m is None:
        return None
    was_failing, fails_now = m.group("then").lower().startswith("fail"), m.group("now").lower().startswith("fail")
    # (passed then: judged then, not a check new since — those are new failures, not broken ones)
    measure = "fixed_checks" if was_failing and not fails_now else "broken_checks" if fails_now and not was_failing \
        else None
    return measure if measure in model.measures else None


def read_query(prompt: str, intent: Intent, scope: dict[str, Any], model: SemanticModel,
               runs: Sequence[tuple[str, str]], pasted: bool = False, among: bool = False) -> QueryReading | None:
    """The query a data question asks, or None. ``scope``: the filters the intent's names and frame bind (the tools'
    ``scope_for``); ``runs``: the collection's runs as (assessment id, YYYY-MM-DD), oldest first; ``pasted``: the
    question carries configuration lines (judged on their own); ``among``: the question has no subject of its own and
    is about the devices ``scope`` holds (the last answer's list)."""
    frame, facets = intent.frame, intent.facets
    months = {d[:7] for _, d in runs}
    missing = [m for m in frame.time.months if m not in months]
    if missing and runs and not any(m in months for m in frame.time.months) and not pasted:
        return QueryReading(DataQuery(measures=["failed_checks"]), ["no run in " + ", ".join(missing)], missing)
    measures = said = measure_words(prompt, model)
    transition = _transition(prompt, model)
    if transition is not None:  # "failed SNMP-ACL in august but pass it now": the checks that changed, not the failures
        measures = said = [transition]
    if not measures and PERCENT_BOUND.search(prompt):
        # "which stores are under 70 percent": a percentage with no figure named is of the first rate the model
        # declares (the pass rate, the figure every summary leads with)
        measures = said = [next(name for name, m in model.measures.items() if m.unit == "percent")]
    named_measure = bool(measures)
    if frame.ask == "summary" and not named_measure and runs and not pasted and \
            names_a_part_beyond_the_frame(prompt, model):
        # "how did us-west do in september": the summary's leading figures for a part the tools cannot scope
        led = summary_query(prompt, intent, scope, model, runs)
        if led is not None:
            return QueryReading(led, [], [])
    counted = bool(COUNT_CUE.search(prompt))
    data_words = bool(measures) and (counted or GROUP.search(prompt) or TOP.search(prompt))
    asked = frame.ask in DATA_ASKS and frame.subject in DATA_SUBJECTS
    # ("how many checks are covered by exceptions": a figure of the results, though the frame's subject is exceptions)
    asked = asked or (frame.ask in DATA_ASKS and frame.subject == "exceptions" and bool(measures) and
                      all(model.measures[m].fact == "results" for m in measures))
    since_when = SINCE_WHEN.search(prompt) is not None and len(runs) > 1
    # "how do SW-1 and SW-2 differ": the checks one fails and the other passes, whatever ask the frame read
    two_apart = DIFFER.search(prompt) is not None and len(scope.get("devices") or []) == 2
    # (a figure per group with no word of policy is a data question, whatever the frame leans to: "critical failures
    # per region"; "a breakdown of … by …" is the analysis tool's, with its chart)
    executed = asked or (data_words and (frame.ask in ("summary", "list", "ranking", "trend") or (
        frame.ask in ("policy", "explain") and GROUP.search(prompt) is not None and not POLICY.search(prompt) and
        not (BREAKDOWN.search(prompt) and grouped_by(prompt, model) in TOOL_BREAKDOWNS)))) or since_when or two_apart
    # a measure named in a summary ("pass rate at Store-33"): the tools answer it, a follow-up may edit it
    # a rate named is a figure asked, whatever ask the frame read ("what's the failure rate of the ntp checks")
    rated = any(model.measures[m].unit == "percent" for m in measures) and not POLICY.search(prompt)
    # "what percentage of routers fail NTP-AUTH last month": the share the tools answer, in the run asked (read so that
    # the run reaches them; it answered the latest)
    share_in_time = frame.ask == "share" and not named_measure and time_named(intent)
    # (the tools' share is of devices: "what % of the stores have a critical finding" is of the stores)
    executed = executed or (SHARE_OF_SITES.search(prompt) is not None and "sites_failing_share" in model.measures)
    if pasted or not runs or not (executed or share_in_time or (named_measure and (frame.ask in ("summary", "share")
                                                                                   or rated))):
        return None
    if intent.domain_details.skill in ("cbp_expert_insights", "sec_expert_insights") and POLICY.search(prompt):
        return None  # what SLIC matches mean under our policies: the SLIC expert's interpretation
    # the changes between two runs per group or ranked ("which site had the most new failures since october"): a
    # figure of the changes fact, which the comparison (a whole count, with its list) does not break down
    verbs_said: list[str] = []
    tools_compare = False  # a change the comparison answers whole, its query kept for follow-ups
    # "how many devices fixed SNMP-ACL since august", "which stores have new failures since october", "how many checks
    # were fixed at the stores": the things counted or listed by a change they had (the comparison counts devices
    # that got worse, and reads no fix of one check)
    changed_rows = _rows_of_a_change(prompt, model) if len(runs) > 1 and NEW_OR_FIXED.search(prompt) else None
    if changed_rows is not None:
        verbs_said = [m for m in measures if model.of_changes(m)][:1] or \
            _changes_said(prompt)[:1]
        measures = said = verbs_said or measures
        changed_rows = changed_rows if verbs_said else None
    changes_per_row = bool(measures) and model.of_changes(measures[0]) and bool(
        GROUP.search(prompt) or TOP.search(prompt) or WHICH_FIRST.match(prompt) or changed_rows)
    if (facets.tracking or facets.evidence or facets.changes_asked or frame.targets.exception or
            NEW_OR_FIXED.search(prompt)) and not changes_per_row:
        # the comparison tool's scope holds no "not": "switches not on 17.9.4 with new failures since october" is the
        # changes fact's query, or the tool would answer for the switches on 17.9.4
        # (so is "what got fixed on the routers since august": the comparison sets the latest run beside the one before
        # it; from further back the tools answer with the trend; and a part of the fleet the tools keep no scope of)
        since = frame.time.since or min(frame.time.months, default=None)
        further_back = len(runs) > 2 and since is not None and since[:7] < runs[-2][1][:7]
        # ("what got fixed at Store-33 in october": that run beside the one before it, which the comparison, of the
        # latest run only, does not set side by side)
        further_back = further_back or (len(frame.time.months) == 1 and not frame.time.since and len(runs) > 2 and
                                        frame.time.months[0] < runs[-1][1][:7])
        excluding = len(runs) > 1 and not frame.targets.exception and not facets.evidence and not facets.tracking and (
            any(c.negated or c.dimension in BEYOND_THE_TOOLS for c in _conditions(prompt, intent, scope, model)) or (
                NEW_OR_FIXED.search(prompt) is not None and further_back))
        if excluding and not (measures and model.of_changes(measures[0])):
            # "what's new on the switches not at HQ", "how many checks got fixed on …": what the verbs say changed
            verbs_said = _changes_said(prompt)
            measures = said = verbs_said or measures
        compared = len(runs) > 1 and bool(measures) and model.of_changes(measures[0]) and not (
            facets.tracking or facets.evidence or frame.targets.exception)
        if not (excluding and measures and model.of_changes(measures[0])) and not compared:
            return None  # new or fixed findings, one exception, evidence: the comparison and tracking answers
        # ("how many new failures since october": the comparison answers; its query is read and kept, so that "which
        # device has the most of them" edits it)
        tools_compare = compared and not (excluding and measures and model.of_changes(measures[0]))
    ask = "count" if counted and frame.ask in ("list", "summary", "share") else frame.ask
    if ask in ("share", "count") and WHICH_FIRST.match(prompt) and (MOST.search(prompt) or LEAST.search(prompt) or
                                                                    WORST.search(prompt) or BEST.search(prompt)):
        ask = "ranking"  # "which of them has the lowest pass rate": the rows ranked, whatever the reader leans to
    if ask == "count" and HOW_MANY_SITES.search(prompt):  # "how many stores fail SNMP-V3-PRIV": stores are counted
        frame = frame.evolve(subject="sites")
    elif ask == "count" and frame.subject == "devices" and HOW_MANY_DID_FAIL.search(prompt):
        frame = frame.evolve(subject="findings")  # "how many did FW-ST30-1 fail in august": its failed checks
    elif ask == "count" and frame.subject != "devices" and _devices_counted_failing(prompt, scope):
        frame = frame.evolve(subject="devices")  # "how many ISR 1100s at the stores fail NTP-AUTH": the devices
    unsaid: list[str] = []
    conditions = _conditions(prompt, intent, scope, model)
    conditions = _devices_not_failing(prompt, conditions)
    severities = next((c for c in conditions if c.dimension == "severity" and not c.negated), None)
    if severities is not None and len(severities.values) > 1:
        # "critical or high findings": the failed checks of both severities, not the high ones the last words name
        measures = said = list(dict.fromkeys("failed_checks" if SEVERITY_OF.get(m) in severities.values else m
                                             for m in measures))
    if ELSE.search(prompt):  # "what else do they fail" after the devices failing ASA-TELNET: their other checks
        conditions = [c.model_copy(update={"negated": True}) if c.dimension in ("rule", "topic") and not c.negated and
                      not any(re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", prompt, _I) for v in c.values) else c
                      for c in conditions]
    # an average named alone is one figure ("avg failed checks per device at the stores"), not a list of checks
    averaged = bool(said) and all(model.measures[m].unit == "average" for m in said)
    group = _group_by(prompt, "count" if averaged and ask == "list" else ask, frame.subject, scope, model,
                      timed=len(frame.time.months) + len(frame.time.runs) > 1)
    if changed_rows not in (None, "checks"):
        group, ask = [changed_rows], "list"  # the devices (or sites) with some, counted in the first line
    elif not group and frame.direction is not None and not frame.polar and WHICH_FIRST.match(prompt) and len(runs) > 1 \
            and (rows := _rows_of_a_change(prompt, model)) not in (None, "checks"):
        group, ask = [rows], "list"  # "which wan routers got worse since october": each router that did
    elif verbs_said and not counted:
        group = ["rule"]  # "what got fixed on …": the checks, each with its count
    elif verbs_said:
        group = []  # "how many checks were fixed …": one figure
    if averaged and group == ["device"] and PER_DEVICE.search(prompt):
        group = []  # "average failed checks per firewall": the average's own "per device", of the firewalls
    per_place = PER_PLACE.search(prompt) if AVERAGE.search(prompt) else None
    if per_place and group == ["site"] and set(said) <= {"failed_checks", "failed_checks_per_device"} and \
            "failed_checks_per_site" in model.measures:
        # "avg number of failed checks per store": the failed checks of each store, averaged over the stores
        measures = said = ["failed_checks_per_site"]
        group = []
        kind = SITE_KIND_OF.get(re.sub(r"(?<=ch)es$|(?<=us)es$|s$", "", per_place.group("kind").lower()))
        if kind and not any(c.dimension == "site_type" for c in conditions):
            conditions.append(Condition(dimension="site_type", values=[kind]))
    named_devices = scope.get("devices") or ([scope["device"]] if scope.get("device") else [])
    if among and re.match(r"^\s*(?:and\s+|so\s+)?(?:which|what)\b", prompt, _I):
        ask = "list"
    if among and ask != "count" and (not group or group != ["rule"] and not _names_rows(prompt, model)
                                     or BARE_WHICH.match(prompt)):
        # "which have more than 5 failures", "which is the worst", "which fails the most checks" (of the devices just
        # listed: "which" with no noun of its own is one of them, whatever it is said to fail)
        group = ["device"]
    attribute = THEIR_ATTRIBUTE.search(prompt)
    attribute_of = _dimension(attribute.group("what"), model) if attribute else None
    rows_named = ROWS_FIRST.match(prompt[:attribute.start()]) if attribute else None
    if attribute_of in (*DEVICE_ATTRIBUTES, "site", "management_address", "criticality") and rows_named and \
            _dimension(rows_named.group("what"), model) == "device" and ask != "count":
        # "list the spine switches and their software version": each device with its value
        group, ask = ["device", attribute_of], "list"
        measures = said = [m for m in measures if model.measures[m].fact != "devices"]
    row_words = HOW_MANY_THINGS.search(prompt) if ask == "count" else ROWS_FIRST.match(prompt)
    bound_said = BOUND.search(prompt)
    some = bound_said is not None and bound_said.group("n") is not None and (
        (bound_said.group("op").lower() == "at least" and _number(bound_said.group("n")) == 1) or (
            bound_said.group("op").lower() in ("more than", "over", "above") and _number(bound_said.group("n")) == 0))
    if not group and row_words and (RATE_BOUND.search(prompt) or (bound_said and not some) or EVERY_RUN.search(prompt)):
        # ("at least one critical check" is failing one: no figure per row)
        # a figure bound is a figure per row: "devices in us-central under 80% pass rate" lists devices, "how many
        # devices have more than 20 failed checks" counts them (a list's lead is its count)
        dim = _dimension(row_words.group("what"), model)
        if dim in ("device", "site", "site_type", "region", "rule", "release", "model", "platform", "role"):
            group, ask = [dim], "list"
    excluded = any(c.dimension == "device" and c.negated for c in conditions)  # "… except RTR-CORE-2": a list
    if group == ["device"] and len(named_devices) == 1 and ask == "list" and not excluded:
        group = ["rule"]  # "failed checks on SW-HQ-CORE-2": one device's checks, not a list of one device
    on_checks = any(c.dimension in ("rule", "severity", "topic") for c in conditions)
    failing = bool(FAILING.search(prompt) or WORST.search(prompt) or BEST.search(prompt)) or on_checks or (
        ask == "yes_no" and FINE.search(prompt) is not None)  # "is Branch-02 fine": whether anything fails there
    rest = REST.search(prompt)
    # (what a comparison's words would group by otherwise — "the stores" compared are each store — gives way)
    head = prompt[:rest.start()] if rest else ""
    side = _split_side(head, conditions) if rest else None
    if side is not None:  # "pass rate of the stores vs the rest": two rows, the stores' and every other device's
        boolean = model.dimensions[side.dimension].match == "boolean"
        update = {"values": ["true", "false"], "negated": False} if boolean else {"split": True, "negated": False}
        # ("the pci stores vs everything else": a value said right before the side's noun is of the side, not of both;
        # "the firewalls at the stores vs the rest" keeps the firewalls on both sides)
        joined = [] if boolean else _qualifying(head, side, conditions, model)
        conditions = [c.model_copy(update=update) if c is side else c.model_copy(update={"split": True})
                      if c in joined else c for c in conditions]
        group = [side.dimension]
    sides = [c for c in conditions if len(c.values) > 1 and not c.negated and c.dimension not in ("rule", "topic")]
    if not group and sides and SIDES.search(prompt):
        group = [sides[0].dimension]  # "high findings in production vs lab": each side
    elif not group and sides and measures and sides[0].dimension in ("site", "device", "region") and \
            not TOGETHER.search(prompt):
        # "failed checks at HQ and at Lab-1": each place's figure (and their sum in the lead), not one pooled
        group = [sides[0].dimension]
    elif not group and sides and measures and model.measures[measures[0]].unit == "percent" and \
            not TOGETHER.search(prompt) and _joined_by_and(prompt, sides[0].values):
        # "pass rate for nx-os and asa": each one's rate (a rate pooled over both is asked as such: "together")
        group = [sides[0].dimension]
    chosen = bool(sides and CHOICE.search(prompt) and (COMPARATIVE.search(prompt) or WORST.search(prompt) or BEST.search(
        prompt) or MOST.search(prompt) or LEAST.search(prompt))) and grouped_by(prompt, model) is None
    if chosen:  # "is HQ or DataCenter-1 worse", "which has more critical findings, HQ or DC1": one of the two
        group, ask = [sides[0].dimension], "ranking"
    zero = bool(ZERO.search(prompt))
    if zero and ask == "count" and not group and frame.subject in ("devices", "sites"):
        # "how many firewalls have no critical findings": the firewalls with none, counted (and named)
        group, ask = ["device" if frame.subject == "devices" else "site"], "list"
        measures = [m for m in measures if m not in ("devices", "sites")]  # the things counted are the rows now
    logged = [m for m in measures if model.measures[m].fact == "events"]
    things = (HOW_MANY_THINGS.search(prompt) if ask == "count" else ROWS_FIRST.match(prompt)) if logged else None
    thing = _dimension(things.group("what"), model) if things else None
    logged_by = not group and thing in ("device", "site") and not BOUND.search(prompt)
    if logged_by and thing is not None:
        # "how many devices had a config change in october", "which sites saw failed logins": the devices (sites)
        # that logged one, named and counted — not the inventory, not the events
        group, ask, measures = [thing], "list", logged[:1]
    without = WITHOUT_THINGS.search(prompt)
    places_counted = HOW_MANY_THINGS.search(prompt) if without and ask == "count" and not group else None
    place = _dimension(places_counted.group("what"), model) if places_counted is not None else None
    if place in ("site", "region"):  # "how many stores have no firewall": those stores, counted (a list's lead)
        group, ask = [place], "list"
    if without and group and group != ["device"]:  # "sites without any firewall": their firewalls counted, none kept
        kind = re.sub(r"(?:e?s)$", "", without.group("what").lower()).replace("wlc", "wireless_controller")
        kind = {"switch": "switch", "router": "router", "firewall": "firewall"}.get(kind, "wireless_controller")
        conditions = [c for c in conditions if c.dimension != "device_type"]
        conditions.append(Condition(dimension="device_type", values=[kind], in_measure=True))
        measures, zero = ["devices"], False
    if ask == "count" and not group and frame.subject == "devices" and "failed_checks" in measures and \
            set(measures) <= {"failed_checks", "devices", "devices_failing"} and WITH_A_FAILURE.search(prompt) and \
            "devices_failing" in model.measures:  # (the failures are what keeps the devices counted)
        measures = ["devices_failing"]
    counted_rows = HOW_MANY_THINGS.search(prompt)
    if not measures and SEVERITY_ONES.search(prompt) and ask == "count" and not (
            counted_rows and _dimension(counted_rows.group("what"), model) == "device"):
        measures = ["failed_checks"]  # "how many high ones does it have": a severity is a check's, so checks are counted
    common = COMMON.search(prompt) is not None
    if common and group:
        # "most common slic signatures": the rows' own noun is no figure (one signature each), how often they occur is
        measures = [m for m in measures if model.counted_things(m) != group[0]]
    # ("how did the branches do between august and october": a span with no figure named is a trend, both figures)
    # (so is "did Branch-02 get better or worse since august": a span from a month to now)
    measures = _adjusted(measures, "trend" if ask == "compare" and (RANGE.search(prompt) or frame.time.since) and
                         not group else ask,
                         frame.subject, group, failing or zero, conditions, common)
    if measures == ["checks"] and not failing and PASSES.search(prompt) and "passed_checks" in model.measures:
        measures = ["passed_checks"]  # "how many checks does RTR-CORE-1 pass": the passed ones, as "fail" counts failed
    unknown = RANKED_BY.search(prompt)
    if group == ["device"] and measures == ["devices"] and unknown and not COMMON.search(prompt) \
            and not measure_words(unknown.group("what"), model) and _dimension(unknown.group("what"), model) is None:
        # "which device had the most reboots": one device per device ranks nothing — a figure the data does not hold
        # is said, and the rows ranked by their failed checks
        unsaid.append(f"no figure of “{unknown.group('what')}” in the data: ranked by failed checks instead")
        measures = ["failed_checks"]
    if ask == "count" and HOW_MANY_SITES.search(prompt) and not group and measures and measures[0] in ("failed_checks", "critical_findings",
                                                                              "high_findings") and (
            measures[0] == "failed_checks" or query_condition(conditions, "severity")):
        measures = ["sites_failing"]  # "how many branches have critical findings": the branches with one, counted
    if SHARE_OF_SITES.search(prompt) and not group and measures and measures[0] in (
            "failed_checks", "critical_findings", "high_findings", "devices_failing", "pass_rate", "fail_rate") and \
            "sites_failing_share" in model.measures:
        measures = ["sites_failing_share"]  # of the places judged, the share with one
    facts = {model.measures[m].fact for m in measures}
    if "devices" in measures and len(facts) > 1 and "devices_assessed" in model.measures and \
            model.measures["devices_assessed"].fact in facts:
        # "how many devices at Store-48 and what's their pass rate": the devices those checks were on, beside the rate
        measures = list(dict.fromkeys("devices_assessed" if m == "devices" else m for m in measures))
    measures = [m for m in measures if model.measures[m].fact == model.measures[measures[0]].fact] if measures else []
    # "… but passing LOG-HOST" is said of another check (a condition on the devices), not of the rows counted
    unpassed = BUT_NOT.sub(" ", prompt) if any(c.of_devices for c in conditions) else prompt
    bounds = _bounds(unpassed, measures, group, ask, failing, zero, model)
    if bounds and len(group) == 1 and measures and all(model.counted_things(m) == group[0] for m in measures) and \
            any(model.measures[b.measure].fact != model.measures[measures[0]].fact for b in bounds):
        # "how many sites have a pass rate over 90": the sites are the rows, the figure bound is what each has
        measures = list(dict.fromkeys(b.measure for b in bounds))
    if logged_by and not bounds:
        bounds = [Bound(measure=measures[0], op=">", value=0)]
    # "checks failing on just one device": the figure bound is a column of the rows, shown first
    if measures:
        bound_only = [b.measure for b in bounds if b.measure not in measures and
                      model.measures[b.measure].fact == model.measures[measures[0]].fact]
        measures = list(dict.fromkeys([*bound_only, *measures]))
    if bounds and len(group) == 1 and len(measures) > 1:
        # "how many devices have more than 20 failed checks": each row is one device — the figure bound is the column
        measures = [m for m in measures if model.counted_things(m) != group[0]] or measures
    checks = next((c for c in conditions if c.dimension == "rule" and not c.negated and len(c.values) > 1), None)
    if checks is not None and BOTH.search(prompt) and group in ([], ["device"]) and not zero:
        # "devices failing both NTP-AUTH and NTP-SERVER": each device fails a check once a run, so failing all of
        # them is failing as many as were named
        group, measures, ask = ["device"], ["failed_checks"], "list"
        bounds = [Bound(measure="failed_checks", op=">=", value=len(checks.values))]
    fact = model.measures[measures[0]].fact if measures else "devices"
    apart = [c for c in conditions if not c.in_measure and model.dimension_sql(c.dimension, fact) is None]
    if apart:  # "ospf adjacency flaps": the signature's matches have no checks to filter — said, not failed
        conditions = [c for c in conditions if c not in apart]
        unsaid += [f"{c.describe()} does not apply to {model.measures[measures[0]].noun[1]}" for c in apart if measures]
    # "prod vs lab", "the stores vs the rest": two sides of one run, not a change (also in a month named: "… in
    # september" is that run's two sides)
    two_sides = bool(sides and (SIDES.search(prompt) or chosen)) or side is not None
    time, missing = _time(prompt, intent, runs, fact, model, two_sides)
    # a trend the frame read where the words name a measure and no time ("whats the fail rate for SNMP checks") is
    # that figure now
    trend = ask == "trend" and not (named_measure and not time_named(intent))
    asked_change = ((_change_said(prompt) and not two_sides) or OVER_TIME.search(prompt) or trend) and \
        not since_when
    if asked_change and model.facts[fact].run and len(time.get("runs", [])) < 2 and not missing:
        return None  # a change over fewer than two runs: the comparison says there is nothing to compare
    if asked_change and not named_measure and measures[:1] == ["failed_checks"] and group and group[0] not in (
            "device", "rule") and len(time.get("runs", [])) > 1 and "pass_rate" in model.measures:
        # "which region got worse the most", "which site type improved": groups of unlike size compared by their
        # rate (a count grows with the devices and checks assessed), the count beside it
        measures = ["pass_rate", "failed_checks"]
    if ask == "yes_no" and measures and not group:  # when it is Yes: "is HQ clean" — none; "any … with telnet" — some
        bounds = [Bound(measure=measures[0], op="=" if CLEAN.search(prompt) else ">", value=0)]
        if bounds[0].op == ">" and measures[0] in DEVICE_COUNTS and len(time.get("runs", [])) <= 1:
            measures = [{"devices_failing": "failed_checks", "devices_matched": "slic_matches"}.get(measures[0],
                                                                                                    measures[0])]
            named = next((c for c in conditions if c.dimension == "device" and not c.negated), None)
            # "any … flagged?": Yes, and which devices; of one device named ("is SW-1 failing anything critical"),
            # which checks (signatures) it fails
            group = ["device"] if named is None or len(named.values) != 1 or measures[0] not in (
                "failed_checks", "slic_matches") else ["rule" if measures[0] == "failed_checks" else "signature"]
            bounds = [Bound(measure=measures[0], op=">", value=0)]
    if without and group and group != ["device"]:
        bounds = [Bound(measure="devices", op="=", value=0)]
    if ask == "yes_no" and among and group == ["device"] and measures and not bounds and \
            model.measures[measures[0]].better == "lower" and model.measures[measures[0]].unit == "count":
        # "are they compliant" after a list: those of them failing (none is a Yes)
        bounds = [Bound(measure=measures[0], op=">", value=0)]
    if ask == "yes_no" and frame.polarity == "passes" and ANY.search(prompt) and group == ["device"] and \
            measures[:1] == ["failed_checks"] and (frame.checks or frame.targets.rule):
        # "is snmp v3 used anywhere at HQ": a feature wanted on is there where a device passes its checks — Yes
        # when some device does, and which
        bounds = [Bound(measure="failed_checks", op="=", value=0)]
    if missing:
        unsaid.append("no run in " + ", ".join(missing))
    order, limit = _order(COMPARATIVE.sub(lambda c: SUPERLATIVE_OF[c.group(0).lower()], prompt) if chosen else prompt,
                          ask, measures, group, frame.limit, model)
    if order is not None and not order.descending:
        # "the device with the fewest failed checks" may fail none: no "more than 0" bound on what is ranked
        bounds = [b for b in bounds if not (b.measure == order.measure and b.op == ">" and b.value == 0)]
    one_device = len(getattr(next((c for c in conditions if c.dimension == "device" and not c.negated), None),
                             "values", ())) == 1
    if order is not None and not named_measure and (WORST.search(prompt) or BEST.search(prompt)) and \
            measures[0] in ("failed_checks", "devices") and (group in (["device"], ["site"]) or group == ["rule"] and
                                                              one_device):
        # the worst device or site: the most critical failures, then high, then all (as every device ranking reads);
        # the worst of one device's checks: the most severe
        measures, order = severity_first(order.descending)
    output = _output(ask, group, time, prompt, named_measure and bool(GROUP.search(prompt)))
    if model.facts[fact].at and not time.get("months") and OVER_TIME.search(prompt):
        output = "series"  # "login failures per month": every calendar month the events cover
    pair = next((c for c in sides if c.dimension in ("device", "site") and len(c.values) == 2), None)
    if pair is not None and DIFFER.search(prompt) and len(time.get("runs", [])) <= 1 and not time.get("months"):
        # the checks failing on one side only, each with the side it fails on
        measures, group, bounds, order, limit, output = ["failed_checks"], ["rule", pair.dimension], [], None, None, \
            "one_side" if ONE_SIDE.search(prompt) else "difference"
        if output == "one_side":  # "at Store-41 but not Store-40", "… that FW-2 doesn't": the side named first
            first = sorted(pair.values, key=lambda v: prompt.lower().find(v.lower()) % (len(prompt) + 1))
            conditions = [c.model_copy(update={"values": first}) if c is pair else c for c in conditions]
    every_run = EVERY_RUN.search(prompt)
    if every_run and model.facts[fact].run and not missing and group and measures and \
            model.measures[measures[0]].better == "lower" and "runs_failing" in model.measures:
        # "devices that never passed NTP-AUTH", "checks failing in every run at HQ": failing in each run read (every
        # run, or those since the time named)
        asked_runs = time.get("runs", []) if len(time.get("runs", [])) > 1 else [r for r, _ in runs]
        measures, bounds, order, limit, output = ["runs_failing"], [
            Bound(measure="runs_failing", op=">=", value=len(asked_runs))], None, None, "list"
        time = {"runs": asked_runs}
    if since_when and model.facts[fact].run and not missing:
        # every run, to find where the latest unbroken stretch of failures began
        measures = [m for m in measures if model.measures[m].unit == "count"][:1] or ["failed_checks"]
        group, bounds, order, limit, output = [], [], None, None, "since"
        time = {"runs": [r for r, _ in runs]}
    if len(measures) > 1 and model.counted_things(measures[0]) in ("device", "site") and \
            any(SEVERITY_OF.get(m) for m in measures[1:]) and \
            any(c.dimension == "severity" and not c.negated for c in conditions):
        # "how many devices at each site type have critical findings": the devices failing critical checks, counted
        # (the failures they have are what is counted of them, not a figure of their own)
        measures = [measures[0], *(m for m in measures[1:] if m not in ("failed_checks", *SEVERITY_OF))]
    own_severity = {SEVERITY_OF.get(m) for m in measures} - {None}
    if len(measures) > 1 and own_severity:
        # "pass rate at HQ and how many critical findings": the severity is the critical count's own, not the rate's
        conditions = [c for c in conditions if not (c.dimension == "severity" and not c.negated and
                                                    set(c.values) <= own_severity)]
    if output == "value" and measures == ["devices_failing"] and "devices_assessed" in model.measures:
        measures = ["devices_failing", "devices_assessed"]  # "5 of the 19 devices assessed": out of how many
    every = EVERY.search(prompt)
    thing = None if every is None or group != ["rule"] else (
        "device" if re.match(r"dev|box|rout|switch|fire", every.group("what"), _I) else "site")
    if thing is not None:  # "which rules fail at every store": counted per check, bound once the stores are counted
        measures, bounds, order, limit, output = [f"{thing}s_failing"], [], None, None, "list"
    offset = 0
    nth = NTH_RANKED.search(prompt)
    if nth and order is not None:  # "the second worst store": one row, after the first
        offset, limit = ORDINAL_NUMBER[nth.group("nth").lower()] - 1, 1
    if measures:  # "failed logins on RTR-ST45-1": one device's events have no checks to list them by
        fact = model.measures[measures[0]].fact
        group = [d for d in group if model.dimension_sql(d, fact) is not None]
        if not group:
            order, limit, offset = None, None, 0
            output = "value" if output in ("list", "table") else output
            bounds = [b for b in bounds if not (b.op == ">" and b.value == 0)]
    if measures and model.of_changes(measures[0]) and output in ("series", "change", "since"):
        # "which device had the most fixes since october": a figure of the change itself, one per row (the fact sets
        # the last run beside the first), not the figure of each run set side by side
        output = "table" if group else "value"
    if measures and model.of_changes(measures[0]):
        # the changes into a run are against the run before it; "since august" sets august beside the last (the runs
        # between are no part of it)
        asked_runs = time.get("runs") or [runs[-1][0]]
        if transition is not None and asked_runs[-1] != runs[-1][0]:
            asked_runs = [asked_runs[0], runs[-1][0]]  # "failed it in august but pass it now": from that run to now
        ids = [r for r, _ in runs]
        before = ids[ids.index(asked_runs[0]) - 1:ids.index(asked_runs[0])] if asked_runs[0] in ids else []
        time = {**time, "runs": [asked_runs[0], asked_runs[-1]] if len(asked_runs) > 1 else [*before, *asked_runs]}
        if transition is not None:  # ("passed it then": the transition's words, no bound of "passing" on its own)
            bounds = [b for b in bounds if b.value != 0]
        if group and (output == "list" or output == "table" and verbs_said and order is None) and limit is None and \
                not bounds and len(measures) == 1:
            # "which devices fixed it", "what got fixed on …": those with some, not every one ("new failures per site"
            # is every site's figure)
            bounds = [Bound(measure=measures[0], op=">", value=0)]
    moved: Literal["worse", "better", "either"] | None = \
        frame.direction if output in ("series", "change") and group and not frame.polar else None
    if moved is None and output in ("series", "change") and group and not frame.polar and EITHER_WAY.search(prompt):
        moved = "either"  # "which device type moved the most": by how far, whichever way
    more = MORE_NOW.search(prompt) if output == "change" and group and measures and not moved else None
    if more is not None:  # "which leaf switches fail more checks now than in september": those whose figure rose
        rose = more.group("how").lower() == "more"
        moved = "worse" if rose == (model.measures[measures[0]].better == "lower") else "better"
    if moved:  # (a row with none of it in a run is a row that can move: "0 → 3" got worse; no row is not assessed)
        bounds = [b for b in bounds if not (b.op == ">" and b.value == 0)]
    query = DataQuery(measures=measures, group_by=group, conditions=conditions, bounds=bounds, order=order,
                      limit=limit, offset=offset, output=output, runs=time.get("runs", []),
                      months=time.get("months", []), direction=moved).asked_of_its_row()
    named_kind = ROW_KIND.search(prompt) if query.leader else None
    if named_kind is not None:  # "is Store-50 the store with the lowest pass rate": ranked among the stores
        dim, value = ROW_KINDS[re.sub(r"\s", "", named_kind.group("kind").lower())]
        if query.group_by[:1] == [ROWS_OF.get(dim, "device")] and query.condition(dim) is None:
            query = query.model_copy(update={"conditions": [*query.conditions, Condition(dimension=dim,
                                                                                           values=[value])]})
    if not executed and named_measure and (query.group_by or query.runs[-1:] != [runs[-1][0]] or (
            len(said) > 1 and len(query.measures) > 1) or any(
            c.negated or _beyond_the_tools(c, scope) for c in conditions)):
        # "pass rate by tier", "… in september", "… of the wan routers", "how many devices … and their pass rate":
        # more than the tools' summary
        executed = True
    if named_measure and any(m not in SUMMARY_FIGURES for m in said):
        executed = True  # "the failure rate of the ntp checks": a figure the tools' summary does not state
    if rated and frame.ask == "share" and frame.subject == "devices":
        executed = True  # "the pass rate of the staging devices": the rate of their checks, not a share of devices
    # what the words asked that the query cannot hold is said with the compiler's answer (the tools would not say it)
    # a filter the tools' scope does not hold ("the wan routers" read from the words): the tools would answer wider
    unheld = any(_beyond_the_tools(c, scope) for c in conditions)
    # a run the words chose that the frame does not carry to the tools ("in the first run"): they would read the latest
    ft = frame.time
    unheld = unheld or (bool(query.runs) and query.runs[-1] != runs[-1][0] and not (
        ft.runs or ft.months or ft.relative or ft.since or ft.last_n or ft.before))
    kept = thing is None and not unheld and not [n for n in unsaid if not n.startswith("no run in ")] and (
        not executed or share_in_time or kept_by_the_assessment_tools(query, facets, frame.checks or
                                                                          frame.targets.rule, frame.polarity))
    kept = kept or (tools_compare and not query.group_by)
    return QueryReading(query, unsaid, missing, kept, thing)


# rows asked for and what to sort them by: "checks failing at Lab-1 sorted by how many devices fail them", "devices
# at HQ ordered by pass rate" — the clause orders the rows; it is neither the ask nor what the rows are
SORTED_BY = re.compile(r"[\s,(-]+(?:sorted|ordered|ranked|sort(?:ed)?\s+them|order(?:ed)?\s+them)\s+by\s+"
                       r"(?P<what>[\w\s'-]+?)\s*\)?\s*[?.!]*\s*$", _I)
ROWS_NAMED = re.compile(r"\b(?:devices|boxes|hosts|switch(?:es)?|routers|firewalls|checks|rules|findings|sites|stores|"
                        r"branch(?:es)?|platforms|releases|versions|models|regions|roles)\b", _I)


def sorted_rows(prompt: str, model: SemanticModel) -> tuple[str, str] | None:
    """The rows asked for (the words before the clause) and the measure a "sorted by" clause orders them by; None
    when the prompt has no such clause, names no rows before it, or the clause names no measure."""
    m = SORTED_BY.search(prompt)
    if m is None or not ROWS_NAMED.search(prompt[:m.start()]):
        return None
    clause = m.group("what")
    named = measure_words(clause, model) or measure_words(f"how many {clause}", model)
    if not named:
        return None
    measure = named[0]
    if measure == "devices" and re.search(r"\bfail", clause, _I) and "devices_failing" in model.measures:
        measure = "devices_failing"  # "by how many devices fail them": the devices failing each
    return prompt[:m.start()], measure


def ordered_by(query: DataQuery, measure: str, model: SemanticModel, runs: Sequence[tuple[str, str]]) -> DataQuery:
    """The rows of ``query`` with ``measure`` beside their own figures (those of the same fact), worst first."""
    fact = model.measures[measure].fact
    kept = [m for m in query.measures if m != measure and model.measures[m].fact == fact]
    timed = model.facts[fact].run and not query.runs and runs
    worst_first = (model.measures[measure].better or "lower") == "lower"
    return query.model_copy(update={
        "measures": [measure, *kept], "order": Order(measure=measure, descending=worst_first), "output": "table",
        "bounds": [b for b in query.bounds if model.measures[b.measure].fact == fact],
        **({"runs": [runs[-1][0]]} if timed else {})})


def time_named(intent: Intent) -> bool:
    """Whether the words said a time: runs, months, "since", "last N", "last month"."""
    t = intent.frame.time
    return bool(t.runs or t.months or t.since or t.last_n or t.before or t.relative)


# the rows a summary of a kind of thing is made of: the branches' sites, the firewalls' devices, one site's devices
ROWS_OF = {"site_type": "site", "region": "site", "tier": "site", "pci_scope": "site", "site": "device"}


def summary_query(prompt: str, intent: Intent, scope: dict[str, Any], model: SemanticModel,
                  runs: Sequence[tuple[str, str]], ranked: bool = False, checks: bool = False) -> DataQuery | None:
    """What a summary of one scope leads with, as a query: the pass rate and failed checks of the places or devices
    named, in the run asked (the latest otherwise); ``ranked``: its rows instead ("how are the branches doing" →
    "which one is worst": the branches, by failed checks). None for the whole fleet or a scope the model cannot
    hold; ``checks``: the failed checks it was about, with the severity or checks it kept ("its high findings")."""
    conditions = _conditions(prompt, intent, scope, model)
    if not conditions or not runs or any((model.on_rows(c.dimension) and not checks) or c.negated for c in conditions):
        return None
    read, missing = _time(prompt, intent, runs, "results", model)
    if missing:
        return None
    run = read.get("runs") or [runs[-1][0]]
    if checks:
        return DataQuery(measures=["failed_checks"], conditions=conditions, runs=run)
    if not ranked:
        return DataQuery(measures=["pass_rate", "failed_checks"], conditions=conditions, runs=run)
    rows = next((ROWS_OF.get(c.dimension, "device") for c in conditions if c.dimension != "device" or
                 len(c.values) > 1), None)
    return DataQuery(measures=["failed_checks"], group_by=[rows], conditions=conditions, runs=run, output="table") \
        if rows else None


def bound_to_every(query: DataQuery, thing: str, how_many: int) -> DataQuery:
    """The checks failing at every one of the ``how_many`` sites (devices) the query's conditions keep."""
    measure = f"{thing}s_failing"
    return query.model_copy(update={"bounds": [Bound(measure=measure, op=">=", value=max(how_many, 1))]})


def places_in_scope(query: DataQuery, thing: str) -> DataQuery:
    """The query that counts the sites (devices) judged in the run under ``query``'s conditions on devices: what
    "every store" is every one of."""
    kept = [c for c in query.conditions if c.dimension not in ("rule", "topic", "severity")]
    return DataQuery(measures=["devices_assessed"], group_by=[thing], conditions=kept, runs=query.runs[-1:],
                     output="table")


def kept_by_the_assessment_tools(query: DataQuery, facets: Any, frame_rules: Sequence[str] = (),
                                 polarity: str | None = None) -> bool:
    """What the assessment tools answer with more than figures (DESIGN §6.2; the reference architecture's cases): a
    breakdown for charts; the whole run's figures and its most common deviations, with their findings; a change on the
    whole or per device (the comparison, with each device's trend); the devices failing named checks, each check a
    finding with its fix. Transitional (docs/ARCHITECTURE.md "Questions as queries"): the compiler takes these over
    once its answers carry findings and charts."""
    if query.output in ("since", "difference", "one_side"):
        return False  # no tool answers from which run, or what two devices differ on
    if any(c.negated and not c.in_measure for c in query.conditions):
        return False  # the tools' scope holds no "not": "devices not running 17.9.4 that fail SSH-V2" is the compiler's
    if query.group_by[:1] == ["device"] and len(query.group_by) == 2 and not query.measures:
        return False  # each device with a value of the inventory: a lookup, not a breakdown
    one_run = len(query.runs) <= 1 and not query.months
    whole = one_run and not [c for c in query.conditions if not c.in_measure]
    plain = one_run and not any(c.negated for c in query.conditions) and not any(c.in_measure for c in query.conditions)
    failing = bool(query.measures) and query.measures[0] in ("failed_checks", "devices_failing")
    yes_no_or_some = all(b.value == 0 and b.op in (">", "=") for b in query.bounds)
    rules = query.condition("rule")
    # checks named as the tools read them (not one check of a topic the query narrowed to: "snmp rw")
    checks_named = any(c.dimension == "topic" for c in query.conditions) or (
        rules is not None and set(rules.values) == set(frame_rules))
    # "telnet anywhere in DC2?", "is HQ clean on ssh?": whether something fails, Yes or No first (the compiler's); one
    # device's verdict, and checks wanted on ("is aaa configured everywhere?"), stay with the tools' verdicts
    asks_for_failures = query.output == "yes_no" and polarity == "fails" and query.condition("device") is None
    # a dimension named with one value of it is a filter, not a breakdown ("failed checks with critical severity")
    charts = [d for d in facets.chart_dimensions if query.group_by or not (
        (c := query.condition(d)) is not None and len(c.values) == 1)]
    breakdown = bool(charts or facets.asset_breakdown or facets.technology_breakdown)
    severities = query.condition("severity")
    if severities is not None and (len(severities.values) > 1 or severities.negated):
        return False  # the tools take one severity ("which of those are high or critical": the compiler's)
    if any(d in BEYOND_THE_TOOLS for d in query.group_by) or any(c.dimension in KEPT_BY_NO_TOOL
                                                                 for c in query.conditions):
        # the tools break down by no tier, region or role, and keep a role only ("pass rate in us-west by site type")
        return False
    # a breakdown of failures the tools chart; a count of devices or SLIC matches per group is the compiler's
    # (devices failing per site type is no chart of theirs: they chart failed checks)
    per_group_devices = bool(query.group_by) and query.measures[:1] == ["devices_failing"]
    charted = breakdown and (failing or not query.measures) and not per_group_devices and one_run and not query.bounds and not query.order and not query.limit and not any(
        c.negated for c in query.conditions) and not (  # the tools exclude nothing ("firewalls not running 9.18(3)")
        "platform" in query.group_by and "os" not in facets.chart_dimensions)  # their "platform" alone: the family
    return charted or (
        whole and not query.group_by and failing and yes_no_or_some) or (
        plain and query.group_by == ["rule"] and failing and yes_no_or_some) or (
        len(query.runs) == 2 and query.group_by in ([], ["device"]) and query.measures[:1] in ([], ["failed_checks"])) or (
        checks_named and failing and query.group_by in ([], ["device"]) and not query.order and yes_no_or_some
        and not asks_for_failures and not query.asks_whether_some_pass)


# "which model is the most common at the stores": the devices counted per model, not their failures
COMMON = re.compile(r"\b(?:most|least)\s+(?:common|popular|widespread|frequent|used|deployed)\b|\bcommonest\b|"
                    r"\brarest\b|\b(?:have|own|run|deploy|got) the (?:most|fewest|least) of\b", _I)
# what fails, said right after "most common": "critical finding", "failures", "issue"
COMMON_FAILURE = re.compile(r"\s+(?:(?:critical|high|medium|low|severe)(?:[\s-]+severity)?\s+)?(?:findings?|failures?|failed checks?|issues?|"
                            r"deviations?|problems?|fails?|misconfigs?|misconfigurations?)\b", _I)
DEVICE_ATTRIBUTES = ("model", "release", "platform", "role", "device_type", "site_type", "environment", "region",
                     "product_family", "site", "tier", "criticality")
# what "… vs the rest" may set one side of: a device's attribute or its site's, or the site's PCI scope
SPLITTABLE = frozenset(DEVICE_ATTRIBUTES) | {"pci_scope"}


def _adjusted(measures: list[str], ask: str, subject: str, group: list[str], failing: bool,
              conditions: list[Condition], common: bool = False) -> list[str]:
    """The measures read, or the one the question's shape implies; a count of devices or checks where the words
    speak of failing counts the failing ones, and a more specific measure of the same things ("devices … assessed")
    replaces the plain count."""
    for plain in ("devices", "checks"):
        if plain in measures and any(m != plain and m.endswith(plain) or m.startswith(plain + "_")
                                     for m in measures):
            measures = [m for m in measures if m != plain]

    slic = any(c.dimension in ("signature", "cve") for c in conditions) or subject == "signatures" or \
        group == ["signature"]
    if slic and not any(m.startswith(("slic", "devices_matched", "signatures")) for m in measures):
        return ["devices_matched"] if group in ([], ["device"]) else ["slic_matches"]
    failing_things = {"devices": "devices_failing", "checks": "failed_checks", "sites": "sites_failing"}
    if measures:
        return [failing_things.get(m, m) if failing and not any(c.in_measure for c in conditions) else m
                for m in measures]
    if common and group and group[0] in DEVICE_ATTRIBUTES:
        return ["devices"]
    if ask == "list" and group and not failing and group[0] in ("device", "site", "release", "platform", "model", "role"):
        return []  # "which sites are tier 1": the sites, nothing counted
    if ask == "trend":
        return ["failed_checks", "pass_rate"]  # "how has HQ trended": both figures, run by run
    if not failing and (subject == "devices" or ask == "yes_no"):
        return ["devices"]  # "is there a firewall at Branch-04", "any 16.x code on the routers"
    if subject in ("devices", "sites") and not group:
        return [failing_things[subject]]  # "how many stores fail SNMP-V3-PRIV": the stores with a failure, counted
    return ["failed_checks"]


def _joined_by_and(prompt: str, values: Sequence[str]) -> bool:
    """Whether the words join the values with "and" (or a comma), not "or": "nx-os and asa", "HQ, Lab-1 and Site-A"."""
    at = sorted(m.start() for v in values if (m := re.search(rf"(?<![\w-]){_spoken(v)}", prompt, _I)) is not None)
    if len(at) != len(values):
        return False
    between = [prompt[a:b] for a, b in zip(at, at[1:], strict=False)]
    return all(re.search(r"\band\b|&|,", t) and not re.search(r"\bor\b", t, _I) for t in between)


FIREWALL_SAID = re.compile(r"\bfirewalls?\b|\bfws?\b", _I)


def _listed(value: Any) -> list[Any]:
    return [] if not value else [value] if isinstance(value, str) else list(value)


def _conditions(prompt: str, intent: Intent, scope: dict[str, Any], model: SemanticModel) -> list[Condition]:
    frame = intent.frame
    named = {"sites": "site", "site_type": "site_type", "device": "device", "devices": "device",
             "environment": "environment", "platform": "platform", "os_version": "release", "device_type": "device_type",
             "role": "role", "product_family": "product_family", "model": "model"}
    protocol = {m.group(1) for m in PROTOCOL_VERSION.finditer(prompt)}  # "ssh version 2" is a feature, not a release
    out: list[Condition] = []
    for key, dim in named.items():
        values = scope.get(key)
        if not values:
            continue
        values = [values] if isinstance(values, str) else list(values)
        if dim == "release":
            values = [v for v in values if v.split(".")[0] not in protocol]
            if not values:
                continue
        if dim == "device_type" and values == ["firewall"] and len(_listed(scope.get("platform"))) > 1 and \
                not FIREWALL_SAID.search(prompt):
            continue  # "nx-os and asa": "asa" is one of the platforms asked, not a device type of them all
        negated = [v for v in values if _negated(prompt, v)]
        out.append(Condition(dimension=dim, values=values, negated=bool(negated) and len(negated) == len(values)))
    for dim, after in VALUE_WORDS.items():  # values the words name that no scope key holds ("us-west", "wan routers")
        if dim not in model.dimensions or any(c.dimension == dim for c in out):
            continue
        found = [v for v in model.dimensions[dim].values  # "management_plane" as "management plane", "layer2" "layer 2"
                 if re.search(rf"(?<![\w-]){_spoken(v)}(?:e?s)?(?![\w-]){after}", prompt, _I)]
        if found:
            negated = [v for v in found if _negated(prompt, v)]
            out.append(Condition(dimension=dim, values=found, negated=bool(negated) and len(negated) == len(found)))
    said = [m for m in CRITICALITY.finditer(prompt)] if "criticality" in model.dimensions else []
    if said:
        values = list(dict.fromkeys((m.group("v") or m.group("b") or m.group("a")).lower() for m in said))
        out.append(Condition(dimension="criticality", values=values, negated=_negated(prompt, said[0].group(0))))
        for m in said:  # the words of a criticality say no severity
            prompt = prompt[:m.start()] + " " * (m.end() - m.start()) + prompt[m.end():]
    pci = [v for v, said in (("true", PCI_IN.search(PCI_OUT.sub(" ", prompt))), ("false", PCI_OUT.search(prompt)))
           if said]
    if pci and "pci_scope" in model.dimensions:  # both said: the two sides ("pci sites vs non pci")
        out.append(Condition(dimension="pci_scope", values=pci))
    tiers = [f"tier{t}" for t in dict.fromkeys(TIER.findall(prompt))]
    if tiers:
        out.append(Condition(dimension="tier", values=tiers, negated=_negated(prompt, "tier")))
    severities = frame.filters.severity or [e.value for e in intent.entities if e.type == "severity"]
    if said:
        severities = [v for v in severities if re.search(rf"\b{v[:4]}", prompt, _I)]
    if severities:
        non = bool(re.search(r"\bnon[- ]?(?:" + "|".join(map(re.escape, severities)) + r")", prompt, _I)) or any(
            _negated(prompt, s) for s in severities)
        out.append(Condition(dimension="severity", values=list(dict.fromkeys(severities)), negated=non))
    rules = frame.checks or frame.targets.rule
    spelled = [r for r in rules if "-" in r and re.search(
        r"(?<![\w-])" + re.escape(r).replace("\\-", "[- ]") + r"(?![\w-])", prompt, _I)]
    rules = spelled or rules  # "snmp rw anywhere": the check SNMP-RW of the snmp checks, as engineers type ids
    if any(c.dimension == "category" for c in out) and not spelled:
        rules = []  # "the management plane checks" are a category's, not the check whose title says "management"
    if rules:
        out.append(Condition(dimension="rule", values=list(dict.fromkeys(rules))))
    # events of a kind named as the log's ("devices that logged power supply alarms", "… per site", "… in september")
    # are the log's events, not the signature matching them; "which boxes had malloc failures" is the run's SLIC finding
    logged = any(model.measures[m].fact == "events" for m in measure_words(prompt, model)) and bool(
        LOG_SAID.search(prompt) or GROUP.search(prompt) or frame.time.months or frame.time.relative or
        frame.time.since) and not SLIC_SAID.search(prompt)
    if frame.targets.signature and not logged:
        out.append(Condition(dimension="signature", values=frame.targets.signature))
    if frame.targets.cve:
        out.append(Condition(dimension="cve", values=frame.targets.cve))
    return [c for c in _headed_by_a_kind(prompt, out) if c.dimension in model.dimensions]


def _headed_by_a_kind(prompt: str, conditions: list[Condition]) -> list[Condition]:
    """"drop the access switches": the kind of device after a value left out is part of what is left out, not a
    condition kept (every role but access, not only the switches)."""
    left_out = [v for c in conditions if c.negated and c.dimension not in ("device_type", "rule", "severity")
                for v in c.values]
    kept = []
    for c in conditions:
        if c.dimension == "device_type" and not c.negated and left_out and all(re.search(
                rf"(?<![\w-]){_spoken(value)}(?:e?s)?\s+{_spoken(kind)}(?:e?s)?(?![\w-])", prompt, _I)
                for kind in c.values for value in left_out[:1]):
            continue
        kept.append(c)
    return kept


def values_named(prompt: str, values: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """The inventory's own values of open dimensions the words name ("number of catalyst 9200 failing aaa": the
    product family Catalyst 9200), as a scope holds them; the longest value named wins ("ISR 4000" over "ISR")."""
    found: dict[str, list[str]] = {}
    for dim, known in values.items():
        said = [v for v in known if re.search(rf"(?<![\w-]){_spoken(v)}(?:e?s)?(?![\w-])", prompt, _I)]
        said = [v for v in said if not any(v != w and v.lower() in w.lower() for w in said)] or _by_brand(
            prompt, known) or _by_series(prompt, known)
        if said:
            found[dim] = said
    return found


def _qualifying(head: str, side: Condition, conditions: list[Condition], model: SemanticModel) -> list[Condition]:
    """The conditions said in the two words right before the side's value ("pci" in "the pci stores"): they qualify
    the side."""
    said = [m.start() for v in side.values for m in re.finditer(rf"(?<![\w-]){_spoken(v)}", head, _I)]
    if not said:
        return []
    before = " ".join(re.findall(r"[\w-]+", head[:max(said)])[-2:])
    words = {name: [w for w, d in model.dimension_words if d == name] for name in SPLITTABLE}
    return [c for c in conditions if c is not side and c.dimension in SPLITTABLE and not c.negated and
            not c.of_devices and not c.in_measure and any(
                re.search(rf"(?<![\w-]){re.escape(w) if w in words.get(c.dimension, []) else _spoken(w)}(?![\w-])",
                          before, _I) for w in [*c.values, *words.get(c.dimension, [])])]


def _split_side(head: str, conditions: list[Condition]) -> Condition | None:
    """The condition "… vs the rest" sets against every other row: of a part or kind of the network, the one said
    last before it ("firewalls at the stores vs everywhere else": the stores)."""
    candidates = [c for c in conditions if c.dimension in SPLITTABLE and not c.of_devices and not c.in_measure]
    said = [(max((m.start() for v in c.values for m in re.finditer(rf"(?<![\w-]){_spoken(v)}", head, _I)),
                 default=-1), c) for c in candidates]
    said = [(at, c) for at, c in said if at >= 0] or ([(0, candidates[0])] if len(candidates) == 1 else [])
    return max(said, key=lambda s: s[0])[1] if said else None


def _by_series(prompt: str, known: tuple[str, ...]) -> list[str]:
    """The values a series number names in the plural, as people call a product line ("the 9300s": Catalyst 9300),
    when one value alone ends in that number."""
    found = []
    for number in re.findall(r"(?<![\w.-])(\d{3,5})'?s\b", prompt):
        ending = [v for v in known if v.split()[-1] == number]
        found += ending if len(ending) == 1 else []
    return found


def _by_brand(prompt: str, known: tuple[str, ...]) -> list[str]:
    """The values whose first word the words say alone ("the ASR routers": ASR 1000; "ISRs": ISR 1100 and ISR 4000) —
    not followed by another number ("ISR 2900" is no family of ours), and not a platform's word ("asa", "nexus": the
    platform, which holds every family of it)."""
    brands: dict[str, list[str]] = {}
    for value in known:
        first = value.split()[0]
        if len(first) >= 3 and first.isalpha() and " " in value:
            brands.setdefault(first.lower(), []).append(value)
    return [v for brand, values in brands.items()
            if not any(p.fullmatch(brand) for p, _ in PLATFORM_WORDS)
            and re.search(rf"(?<![\w-]){re.escape(brand)}(?:e?s|'s)?(?![\w-])(?!\s*\d)", prompt, _I) for v in values]


def _spoken(value: str) -> str:
    """A stored value as a pattern of how it is said: "_" as a space, a space before a trailing digit optional."""
    return re.sub(r"(?<=[a-z])(\d)", r"\\s?\1", re.escape(value).replace("_", "[_ ]"))


RATED_AS = re.compile(r"\s+(?:as\s+)?(?:business[\s-]+|mission[\s-]+)?(?:critical|high|medium|low|tier|criticality|"
                      r"severity)\b", _I)


def _whole_measure(prompt: str, m: re.Match[str], word: str, model: SemanticModel) -> bool:
    """Whether a measure's word found at ``m`` is that measure: "failed checks per device type" is failed checks per
    device type, not an average per device; "rated high criticality" is the attribute rated, not the score."""
    if word == "rated" and RATED_AS.match(prompt[m.end():]):
        return False
    if " per " not in word:
        return True
    per = word.split(" per ", 1)[1]
    return _dimension(prompt[m.start() + word.index(" per ") + 5:], model) == _dimension(per, model)


def _without_measures(prompt: str, model: SemanticModel, which: Callable[[str], bool] = lambda _: True) -> str:
    """``prompt`` with the measures' words (those ``which`` keeps) blanked, longest first: "checks" in "failed checks"
    names no dimension."""
    for word, _ in model.measure_words:
        if not which(word):
            continue
        spans = [w.span() for w in model.word_patterns[word].finditer(prompt) if _whole_measure(prompt, w, word, model)]
        for a, b in spans:
            prompt = prompt[:a] + " " * (b - a) + prompt[b:]
    return prompt


def ranks_rows(prompt: str, model: SemanticModel) -> bool:
    """Whether the words rank rows of a dimension by a figure ("which tier has the lowest pass rate", "the router with
    the most failures"): one figure per group, the end asked first."""
    if not (MOST.search(prompt) or LEAST.search(prompt) or WORST.search(prompt) or BEST.search(prompt)):
        return False
    phrases = [m.group("what") for m in (*WHICH.finditer(prompt), *ROW_WITH_THE_END.finditer(prompt),
                                         *RANKED_ROWS.finditer(prompt))]
    return any(_dimension(p, model) not in (None, "run") for p in phrases)


def grouped_by(prompt: str, model: SemanticModel) -> str | None:
    """The dimension named after "by/per/each" ("pass rate by region in october": region), or None."""
    prompt = _without_measures(prompt, model, lambda word: " per " in word)  # "failed checks per device": a measure
    for m in GROUP.finditer(prompt):
        if _names_a_measure(prompt[m.start("dim"):], model):
            continue  # "top 5 models by device count": what the rows are ranked by
        if m.group(0).lower().startswith("across") and TOGETHER.search(prompt):
            continue  # "overall pass rate across the tier1 sites": one figure over them all
        # the longest name of a dimension where the group starts ("by kind of site for us-west": not just "kind")
        dim = _dimension(prompt[m.start("dim"):], model) or _dimension(m.group("dim"), model)
        if dim and dim != "run":
            return dim
    return None


WHICH_FIRST = re.compile(r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?which\b", _I)
# "how many did FW-1 fail", "how many has it failed": the device is the subject; what it fails is counted
HOW_MANY_DID_FAIL = re.compile(r"\bhow many\s+(?:did|does|do|has|have|had)\s+(?P<who>[\w .()-]+?)\s+(?:fail|failed)\b", _I)
# "how many <things> fail …": what is counted is what comes before the verb
HOW_MANY_FAIL = re.compile(r"\bhow many\s+(?P<what>[\w .()-]+?)\s+(?:fail|failing|are failing|have failed|still fail)\b",
                           _I)
DEVICE_KEYS = ("device_type", "platform", "product_family", "model", "role", "os_version")


def _devices_counted_failing(prompt: str, scope: dict[str, Any]) -> bool:
    """Whether "how many … fail" counts devices: its words before the verb name a kind of device or a value of the
    devices ("ISR 1100s", "nexus boxes", "core routers"), not checks, findings or times."""
    m = HOW_MANY_FAIL.search(prompt)
    if m is None or re.search(r"\b(?:checks?|rules?|controls?|findings?|failures?|times?|signatures?)\b", m.group("what"),
                              _I):
        return False
    what = m.group("what")
    named = [str(v) for k in DEVICE_KEYS for v in ([scope[k]] if isinstance(scope.get(k), str) else scope.get(k) or [])]
    return bool(DEVICE_WORDS.search(what) or any(re.search(rf"(?<![\w-]){_spoken(v)}", what, _I) for v in named))


def _devices_not_failing(prompt: str, conditions: list[Condition]) -> list[Condition]:
    """"devices failing SNMP-RW but not SNMP-ACL", "… and pass L2-DHCP-SNOOPING": a check said after "but not" or
    "but pass" beside one failed is a condition on the devices (those failing none of it; those judged on it and
    passing it), not on the rows."""
    def after_cue(value: str) -> bool:
        return re.search(f"(?:{BUT_NOT.pattern}){re.escape(value)}" + r"(?![\w-])", prompt, _I) is not None

    failed = {v for c in conditions if c.dimension == "rule" and not c.negated for v in c.values if not after_cue(v)}
    if not failed:
        return conditions  # "what fails on SW-1 except SSH-V2": the rows of the other checks
    out: list[Condition] = []
    for c in conditions:
        passed = [v for v in c.values if after_cue(v)] if c.dimension == "rule" and not c.of_devices else []
        if not passed:
            out.append(c)
            continue
        kept = [v for v in c.values if v not in passed]
        out += [c.model_copy(update={"values": kept})] if kept else []
        # "… but pass SNMP-ACL": the devices judged on it that pass it; "… but not SNMP-ACL": those failing none of it
        said_pass = all(re.search(rf"\bpass(?:es|ing|ed)?\s+(?:on\s+|the\s+)?{re.escape(v)}(?![\w-])", prompt, _I)
                        for v in passed)
        out.append(Condition(dimension="rule", values=passed, negated=not said_pass, of_devices=True,
                             passing=said_pass))
    return out


def severity_first(descending: bool = True) -> tuple[list[str], Order]:
    """The measures and order of a ranking by severity: critical failures, then high, then all of them."""
    return ["critical_findings", "high_findings", "failed_checks"], Order(
        measure="critical_findings", descending=descending, then=["high_findings", "failed_checks"])


def _names_rows(prompt: str, model: SemanticModel) -> bool:
    """Whether the words name a kind of row: a dimension of the model, devices or sites in any of their words (not
    the "checks" of "failed checks": a measure's words name what is counted)."""
    prompt = _without_measures(prompt, model)
    words = re.findall(r"[a-z][\w-]*(?:\s+[a-z][\w-]*)?", prompt.lower())
    return any(model.word_patterns[w].search(prompt) for w, _ in model.dimension_words) or any(
        DEVICE_WORDS.match(w) or SITE_WORDS.match(w) for w in words)


# how a request for rows opens: "list", "show me all the", "please give me the"
ROWS_REQUEST = r"^\s*(?:please\s+)?(?:list|show|give|display|get)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?"
# rows asked for with a figure of each: "show the devices at Site-B with their pass rate", "list stores and their
# failed checks"
EACH_WITH = re.compile(ROWS_REQUEST + r"(?P<what>[\w-]+(?:\s+[\w-]+)?)\b.*?\b(?:with|and|along with)\s+(?:their|"
                       r"each one's|its)\s+\w", _I)
# a request that opens on the failed checks themselves (or the words alone): they are the rows ("show failed checks on
# the edge routers")
CHECKS_LISTED = re.compile(r"(?:" + ROWS_REQUEST + r"|^\s*(?:all\s+)?(?:the\s+)?)(?:failed|failing)\s+(?:checks|rules|"
                           r"findings)\b(?!\s+(?:per|by)\b)", _I)


# a bound said with a number: "under 85%", "more than 20", "at least 3"
# so many checks asked for by their number ("the 4 most failed checks", "3 most common failures"), not a bound on
# a row's figure ("devices with 4 failed checks", "more than 20 failed checks")
CHECKS_COUNTED_OUT = re.compile(r"(?<!\bwith )(?<!\bhas )(?<!\bhave )(?<!\bhad )(?<!\bthan )(?<!\bover )(?<!\bunder )"
                                r"(?<!\bleast )(?<!\bmost )\b(?:\d{1,2}|two|three|four|five|six|seven|eight|nine|ten)\s+"
                                r"(?:most\s+)?(?:common(?:ly)?\s+|frequent(?:ly)?\s+|often\s+)?(?:failed\s+|failing\s+)?"
                                r"(?:checks|rules|failures|findings|issues|violations)\b", _I)
ROW_BOUND = re.compile(r"\b(?:under|below|over|above|less than|more than|fewer than|greater than|at least|at most)\s+\d",
                       _I)


def _group_by(prompt: str, ask: str, subject: str, scope: dict[str, Any], model: SemanticModel,
              timed: bool = False) -> list[str]:
    """What the rows are: named after "by/per/each", or the things "which/top N/rank" asks for; what a device or site
    fails, its checks (``timed``: two times named, which a comparison sets side by side instead)."""
    if any(COMMON_FAILURE.match(prompt[m.end():]) for m in COMMON.finditer(prompt)) and \
            not re.search(r"\b(?:by|per|each)\s", prompt, _I):
        return ["rule"]  # "the most common critical finding (across) the branches": the checks, not the branches
    dim_named = grouped_by(prompt, model)
    if dim_named:
        return [dim_named]
    each = EACH_WITH.match(prompt)
    each_dim = _dimension(each.group("what"), model) if each else None
    if each_dim and each_dim != "run":
        return [each_dim]  # "show the devices at Site-B with their pass rate": each device, with its figure
    # ("failed checks at Store-41 from august to october": the figure over a span of months, not the checks)
    spanned = RANGE.search(prompt) is not None and not (WHICH.search(prompt) or TOP.search(prompt))
    if ask == "list" and CHECKS_LISTED.match(prompt) and not spanned:
        return ["rule"]  # "list the failed checks of the core routers": the checks, whatever else the words name
    if ask in ("list", "ranking") and CHECKS_COUNTED_OUT.search(prompt):
        return ["rule"]  # "routers: the 4 most failed checks", "5 most common failures": so many checks, ranked
    for m in COMMON.finditer(prompt):  # "most common software version on the firewalls": the releases counted
        dim = _dimension(prompt[m.end():], model)
        if dim and dim not in ("run", "device"):
            return [dim]
    if ask == "count":
        return []
    if WHAT_FAILS.search(prompt) and ask in ("list", "summary", "explain", "ranking"):
        # "which switches are on 16.12.4 and what do they fail": the devices, each with its failing checks; "what's
        # failing most on the nexus boxes": the checks ranked; "what devices fail the most": the devices
        # failing: "what are the lab devices failing" asks their checks)
        named = any(re.match(r"which|list|show|what\s+(?!are\b|is\b|were\b)", m.group(0), _I) and _dimension(
            m.group("what"), model) == "device" for m in WHICH.finditer(prompt))
        return ["device"] if named else ["rule"]
    for m in ROW_WITH_THE_END.finditer(prompt):  # "one of the 5 stores with the most failed checks": the stores
        dim = _dimension(m.group("what"), model)
        if dim and dim != "run":
            return [dim]
    if ask in ("list", "ranking"):
        dim = _dimension(prompt, model)
        if dim and dim != "run":
            return [dim]
    rows_where = ROWS_WHERE.match(prompt)  # "sites where the pass rate dropped since september": those sites
    dim = _dimension(rows_where.group("what"), model) if rows_where and ask != "count" else None
    if dim and dim not in ("run", "rule"):
        return [dim]
    if ask in ("list", "ranking", "compare", "yes_no", "share", "trend"):
        for m in WHICH.finditer(prompt):
            dim = _dimension(prompt[m.start("what"):], model)  # "which tier 1 site": the site
            superlative = any(x.search(prompt) for x in (MOST, LEAST, WORST, BEST))  # "which device has the lowest"
            # ("which switches at HQ have a pass rate under 85%": a bound on each one's figure asks for the rows)
            if dim and dim != "run" and not (ask in ("yes_no", "share", "trend") and dim == "device" and not superlative
                                             and not ROW_BOUND.search(prompt)):
                return [dim]
    for m in RANKED_ROWS.finditer(prompt):  # "least compliant site type", "worst platform by pass rate"
        dim = _dimension(m.group("what"), model)
        if dim and dim != "run" and ask not in ("count", "yes_no"):
            return [dim]
    if MOST.search(prompt) or LEAST.search(prompt) or WORST.search(prompt) or BEST.search(prompt):
        for m in AMONG.finditer(prompt):  # "the lowest pass rate of any region": the regions ranked
            dim = _dimension(m.group("what"), model)
            if dim and dim != "run":
                return [dim]
    # "compliance of the tier1 sites": one rate, whatever the frame took the ask for
    one_rate = any(model.measures[m].unit == "percent" for m in measure_words(prompt, model)) and not (
        WHICH.search(prompt) or TOP.search(prompt))
    if ask in ("list", "ranking") and not one_rate and not spanned:  # findings listed or ranked are checks ("top 10 violations", "deviations open at X")
        return [{"devices": "device", "sites": "site", "rules": "rule", "signatures": "signature",
                 "findings": "rule"}.get(subject, "device")]
    if ask == "compare":
        several = [k for k in ("sites", "devices", "device_type", "platform", "os_version", "site_type")
                   if isinstance(scope.get(k), list) and len(scope[k]) > 1]
        if several:
            return [dict(sites="site", devices="device", device_type="device_type", platform="platform",
                         os_version="release", site_type="site_type")[several[0]]]
        unmeasured = _without_measures(prompt, model)
        for word, dim in model.dimension_words:
            if model.word_patterns[word].search(unmeasured) and dim != "run":
                return [dim]
        # "compare the two datacenters on pass rate": one kind of place named, compared is each place of that kind
        kind = next((k for k in ("site_type", "region", "tier") if isinstance(scope.get(k), str)), None)
        if kind is not None and not scope.get("sites") and not timed:
            return [ROWS_OF[kind]]
    return []


def _bounds(prompt: str, measures: list[str], group: list[str], ask: str, failing: bool, zero: bool,
            model: SemanticModel) -> list[Bound]:
    if not measures or not group:
        return []
    ops: dict[str, Comparison] = {"more than": ">", "over": ">", "above": ">", "greater than": ">", ">": ">",
                                  "at least": ">=", ">=": ">=", "fewer than": "<", "less than": "<", "under": "<",
                                  "below": "<", "<": "<", "at most": "<=", "<=": "<=", "exactly": "=", "just": "=",
                                  "only": "=", "precisely": "=", "a single": "=", "one single": "="}
    rated = RATE_BOUND.search(prompt)
    said = measure_words(rated.group("what"), model) if rated else []
    if rated and said:  # "with a pass rate below 80%": that rate, bound
        return [Bound(measure=said[0], op=ops[rated.group("op").lower()], value=float(rated.group("n")))]
    percent = PERCENT_BOUND.search(prompt)
    if percent and model.measures[measures[0]].unit == "percent":  # "which stores are under 70 percent"
        return [Bound(measure=measures[0], op=ops[percent.group("op").lower()], value=float(percent.group("n")))]
    m = BOUND.search(prompt)
    if m:
        what = re.sub(r"^(device|box|site|check)\b", lambda w: {"box": "boxes"}.get(w.group(1), w.group(1) + "s"),
                      (m.group("what") or m.group("one")).strip(), flags=_I)  # "just one device": devices counted
        said = measure_words(f"how many {what}", model)
        measure = said[0] if said and said[0] in measures else measures[0]
        if said and said[0] not in measures:
            measure = {"devices": "devices_failing", "checks": "failed_checks"}.get(said[0], said[0])
        op = (m.group("op") or m.group("single")).lower()
        return [Bound(measure=measure, op=ops[op], value=_number(m.group("n")) if m.group("n") else 1)]
    measure = measures[0]
    counts_failures = model.measures[measure].better == "lower" and model.measures[measure].unit == "count"
    if zero and counts_failures:
        return [Bound(measure=measure, op="=", value=0)]
    if ask == "list" and group[0] in ("device", "site", "rule") and failing and counts_failures:
        if NOT_FAILING.search(prompt) or re.search(r"\bpass(?:es|ed|ing)?\b(?! rate)", prompt, _I):
            return [Bound(measure=measure, op="=", value=0)]
        return [Bound(measure=measure, op=">", value=0)]
    return []


def month_before(month: str) -> str:
    """The YYYY-MM before ``month`` (YYYY-MM)."""
    year, number = (int(x) for x in month.split("-"))
    return f"{year - (number == 1)}-{(number - 2) % 12 + 1:02d}"


def _time(prompt: str, intent: Intent, runs: Sequence[tuple[str, str]], fact: str,
          model: SemanticModel, two_sides: bool = False) -> tuple[dict[str, list[str]], list[str]]:
    """The runs (or, for events, the months) the question reads, and the months asked that have no run;
    ``two_sides``: its "vs" sets two sides of one run side by side, not two runs."""
    time = intent.frame.time
    ids = [r for r, _ in runs]
    day_of = dict(runs)
    month_of = {r: d[:7] for r, d in runs}
    facts = model.facts[fact]
    if facts.at:  # events: calendar months
        months = list(time.months)
        if RANGE.search(prompt) and len(months) == 2:  # "between august and october": each month from one to the other
            months = _months_between(*sorted(months))
        if time.relative in ("last_month", "previous") and not months:
            months = [month_before(month_of[ids[-1]])]
        if time.since and ids:  # "failed logins since october": each month from then to the latest run's
            months = _months_between(time.since[:7], month_of[ids[-1]])
        return {"months": sorted(dict.fromkeys(months))}, []
    if facts.run is None:
        return {}, []
    missing = [m for m in time.months if m not in month_of.values()]
    chosen = [r for r in ids if month_of[r] in time.months]
    chosen += [r for r in time.runs if r in ids]
    chosen += [r for r in ids if day_of[r][:10] in DATE.findall(prompt)]
    if FIRST_RUN.search(prompt):
        chosen.append(ids[0])
    changed = bool(_change_said(prompt) and not two_sides) or intent.frame.direction is not None
    if OVER_TIME.search(prompt) and not chosen and not time.since and not time.last_n:
        chosen = list(ids)  # "over time", "run by run": every run
    if (time.relative in ("previous", "last_month") or LAST_TIME.search(prompt)) and len(ids) > 1 and not chosen:
        chosen = [ids[-2], ids[-1]] if changed else [ids[-2]]
    if time.since:
        chosen = [r for r in ids if month_of[r] >= time.since]
    elif time.last_n:
        chosen = ids[-time.last_n:]
    if RANGE.search(prompt) and len(time.months) == 2 and not changed and not missing:
        # "failed checks at Branch-03 between august and october": every run from the one month to the other
        first, last = sorted(time.months)
        chosen = [r for r in ids if first <= month_of[r] <= last]
    if len(chosen) == 1 and NEW_OR_FIXED.search(prompt) and len(time.months) == 1 and IN_MONTH.search(prompt) and \
            chosen[0] != ids[0] and not time.since:
        # "what got fixed at Store-33 in october": what changed in that month's run, against the run before it
        chosen = [ids[ids.index(chosen[0]) - 1], chosen[0]]
    if len(chosen) == 1 and changed and time.months and chosen[0] != ids[-1] and not missing:
        chosen.append(ids[-1])  # "what changed since october": that run against the latest
    if not chosen:
        chosen = ids[-1:] if not missing else []
    return {"runs": sorted(dict.fromkeys(chosen), key=ids.index)}, missing


IN_MONTH = re.compile(r"(?<!\bthan )\b(?:in|during)\s+(?:the\s+)?(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) +
                      r")\b(?!\s+(?:to|through|and)\b)", _I)
EITHER_WAY = re.compile(r"\b(?:moved|changed|shifted|swung)\s+(?:the\s+)?most\b", _I)
# "more checks now than in september", "fewer failures than last month": a figure compared with its own earlier value
MORE_NOW = re.compile(r"\b(?P<how>more|fewer|less)\b(?:\s+[\w-]+){0,3}?\s+(?:now\s+|today\s+)?than\s+(?:in|on|at|last|"
                      r"before|back|the)\b", _I)
CHANGED_ROWS = re.compile(r"^\s*(?:and\s+|so\s+)?(?:how many|which|what|(?:list|show)(?:\s+me)?(?:\s+the)?)\s+(?:of (?:the|our)\s+)?"
                          r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)", _I)


def _rows_of_a_change(prompt: str, model: SemanticModel) -> str | None:
    """What a question about a change counts or lists: "checks" ("how many checks were fixed"), or the dimension of
    its rows ("which stores have new failures": site); None when it names no rows first ("what's new")."""
    m = CHANGED_ROWS.match(prompt)
    if m is None:
        return None
    if re.match(r"(?:checks?|rules?)\b", m.group("what"), _I):
        return "checks"
    dim = _dimension(m.group("what"), model)
    return dim if dim is not None and dim != "rule" and model.dimension_sql(dim, "changes") is not None else None


def _changes_said(prompt: str) -> list[str]:
    """The changes measures a question with no measure word names by its verbs: "what's new" the new failures, "what
    got fixed" the fixed checks, "what changed" both."""
    fixed = FIXED_SAID.search(prompt) is not None
    new = NEW_SAID.search(prompt) is not None
    if fixed == new:
        return ["new_failures", "fixed_checks"] if fixed or CHANGE.search(prompt) else []
    return ["fixed_checks"] if fixed else ["new_failures"]


def _change_said(prompt: str) -> bool:
    """Whether the words ask for a change: "from august to october" alone is a span of months, not one."""
    return CHANGE.search(RANGE.sub(" ", prompt)) is not None


def _months_between(first: str, last: str) -> list[str]:
    """Every YYYY-MM from ``first`` to ``last``, both kept (none when ``first`` is later)."""
    year, month = (int(x) for x in first.split("-"))
    out: list[str] = []
    while f"{year}-{month:02d}" <= last and len(out) < 120:
        out.append(f"{year}-{month:02d}")
        year, month = year + (month == 12), month % 12 + 1
    return out


def _order(prompt: str, ask: str, measures: list[str], group: list[str], limit: int | None,
           model: SemanticModel) -> tuple[Order | None, int | None]:
    if not group or not measures:
        return None, limit
    measure = model.measures[measures[0]]
    m = TOP.search(prompt)
    if m:
        limit = _number(m.group(1) or m.group(2))
    worst, best, most, least = (p.search(prompt) for p in (WORST, BEST, MOST, LEAST))
    if not (worst or best or most or least or ask == "ranking" or limit):
        return None, limit
    if worst or best:  # the bad end: the most failures, the lowest pass rate; "best" the other one
        bad_first = worst is not None and (best is None or worst.start() < best.start())
        descending = bad_first if measure.better != "higher" else not bad_first
    else:
        descending = least is None or (most is not None and most.start() < least.start())
    if limit is None and re.search(r"\b(?:which|what)\s+\w+(?:\s+[\w-]+){0,2}\s+(?:has|have|had|is|got|gets|fails?|sees?)\b|"
                                   # ("pass rate per tier, best first": every row, in that order)
                                   r"\b(?:worst|best)\s+(?!\d|first$|last$)[a-z]+$|"
                                   # "what's the worst site right now": the one row
                                   r"\bthe\s+(?:worst|best|(?:most|least)\s+(?:common|popular|widespread|deployed))\s+"
                                   r"(?!\d)(?:site|store|branch|device|box|switch|router|firewall|region|platform|"
                                   r"release|version|model|role|tier)\b(?!\s+(?:by|per|for each)\b)|"
                                   # "which is the worst", "which one has the most" (of the rows just listed)
                                   r"\b(?:which|what)(?:\s+one)?\s+(?:is|was|has|had)\s+(?:the\s+)?(?:worst|best|most|least|"
                                   r"fewest|highest|lowest)\b", prompt, _I):
        limit = None if _plural_asked(prompt) else 1
    row = ROW_WITH_THE_END.search(prompt)
    if limit is None and row and re.match(r"the|a|an|one", row.group(0), _I) and not re.search(
            r"(?<!s)s$|ches$", row.group("what").split()[-1]):  # "the router with the lowest pass rate": one row
        limit = 1
    return Order(measure=measures[0], descending=descending), limit


# what "which …" asks for, up to its verb: "which access switch has" (one), "which sites have" (several)
WHICH_NOUN = re.compile(r"\b(?:which|what)\s+(?!is\b|was\b|has\b|does\b)(?P<words>(?:[\w-]+\s+){0,3}?)"
                        r"(?P<verb>has|have|had|is|are|was|were|got|gets|fails?|sees?|does|do)\b", _I)


def _plural_asked(prompt: str) -> bool:
    """Whether "which …" asks for several rows: by its verb where the verb agrees ("has" one, "have" several), else by
    the noun before it ("which sites had": several; "which access switch had": one — "access" is no plural)."""
    m = WHICH_NOUN.search(prompt)
    if m is None:
        return bool(re.search(r"\b(?:which|what)\s+(?!is\b|was\b|has\b|does\b)\w+(?<!ss)s\b", prompt, _I))
    verb = m.group("verb").lower()
    if verb in ("has", "is", "was", "gets", "fails", "sees", "does"):
        return False
    if verb in ("have", "are", "were", "fail", "see", "do"):
        return True
    words = m.group("words").split()
    return bool(words) and re.search(r"(?<!ss)s$|ches$", words[-1], _I) is not None


def _output(ask: str, group: list[str], time: dict[str, list[str]], prompt: str, per_measure: bool = False) -> Output:
    """The answer's form; ``per_measure``: a measure named per group ("failed checks per environment") is a table of
    its figures, whatever the frame's ask."""
    # (months of events counted are one total: "how many failed logins since september")
    several = len(time.get("runs", [])) > 1 or (len(time.get("months", [])) > 1 and ask != "count")
    if ask == "yes_no":
        return "yes_no"
    if several:
        return "change" if len(time.get("runs", [])) == 2 and _change_said(prompt) else "series"
    if group:
        return "list" if ask == "list" and not per_measure else "table"
    return "value"
