"""A follow-up read as an edit of the previous answer's query (issue 52, DESIGN §9): the conversation is the last
typed query and the keys of the rows it showed (``PastTurn.query``, ``PastTurn.answer_rows``).

Two kinds of follow-up:

- **a row picked** ("the third one - what does it fail?", "how many devices run the worst one", "the lowest one"): the
  words that pick it are replaced by the row's key, and the question is read as if it had named it
  (``picked_prompt``). "worst", "best", "lowest" and "highest" pick the end of the previous ranking that the words
  mean, by the measure it was ordered by and which way that measure is better (``semantic_model.yaml``: ``better``).
- **the query edited** (``edited_query``): a follow-up made only of edits changes the previous query where it speaks
  and keeps the rest — the time ("and in september?", "what about the october run?"), the order ("sort those by
  failed checks"), the measure ("by critical findings instead"), the rows' grouping ("by site type"), the best or worst
  group ("which type is worst"), the conditions ("just the firewalls", "and high?" — a value replaces the one of its
  kind; "not counting the lab" excludes), the rest of a list ("and the rest, sorted by failures").

A follow-up that asks anything else (a fix, an explanation, a policy) is not an edit: None, and it keeps its answers.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from assessment_engine.query import Bound, Condition, DataQuery, Order
from assessment_engine.semantic_model import SemanticModel
from assessment_engine.warehouse.query_compiler import QueryError, compile_query, fact_of
from orchestration.nlu.followups import COUNT_AMONG
from orchestration.nlu.frame import SEVERITIES, SITE_TYPES
from orchestration.nlu.meta_intent import PLACE_THERE
from orchestration.nlu.query_reader import (
    BOUND,
    DEVICE_ATTRIBUTES,
    FIRST_RUN,
    OVER_TIME,
    PCI_IN,
    PCI_OUT,
    SEVERITY_ONES,
    SINCE_WHEN,
    TOP,
    ZERO,
    _bounds,
    _conditions,
    _dimension,
    _number,
    _time,
    attribute_asked,
    measure_words,
    month_before,
    severity_first,
)
from orchestration.nlu.which_way import which_way
from orchestration.state import AssessmentState, FrameTime, Intent, PastTurn

_I = re.IGNORECASE
ORDINAL = {"first": 0, "1st": 0, "top": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3,
           "fifth": 4, "5th": 4, "last": -1, "bottom": -1}
SUPERLATIVE = ("worst", "best", "lowest", "highest")
COMPARATIVE = {"more": "most", "fewer": "fewest", "less": "fewest", "better": "best", "worse": "worst",
               "higher": "highest", "lower": "lowest"}  # of two rows, the more is the most
PLACES = frozenset({"site", "site_type", "tier", "region"})  # where: a follow-up's place replaces every other
# "the worse one", "the most common one": a row picked by its figure, as "the worst one" is
BY_FIGURE = re.compile(r"\b(?:the\s+)?(?P<which>worse|better|higher|lower|most\s+common|commonest|least\s+common)\s+"
                       r"(?P<noun>one|site|store|branch|device|box|switch|router|firewall|release|version|rule|check|"
                       r"type|platform|signature)\b", _I)
BY_FIGURE_AS = {"worse": "worst", "better": "best", "higher": "highest", "lower": "lowest", "most common": "highest",
                "commonest": "highest", "least common": "lowest"}
# the rows a picking noun can name: "the worst site" is a row of a ranking of sites, not of tiers
ROW_NOUNS = {"site": {"site"}, "store": {"site"}, "branch": {"site"}, "device": {"device"}, "box": {"device"},
             "switch": {"device"}, "router": {"device"}, "firewall": {"device"}, "release": {"release"},
             "version": {"release"}, "rule": {"rule"}, "check": {"rule"}, "type": {"device_type", "site_type"},
             "platform": {"platform"}, "signature": {"signature"}}
ROW_REF = re.compile(r"\b(?:the\s+)?(?P<which>first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th|last|top|bottom|"
                     r"worst|best|lowest|highest)\s+(?P<noun>one|site|store|branch|device|box|switch|router|firewall|"
                     r"release|version|rule|check|type|platform|signature)(?:\s+(?:on|in|of)\s+(?:that|the|this)\s+"
                     r"(?:list|table|ranking))?\b", _I)
SORT = re.compile(r"\b(?:sort|order|rank|sorted|ordered|ranked)\b(?:\s+(?:them|those|these|it|that|the list|the "
                  r"rest))?\s+by\s+(?P<what>[\w\s-]+?)(?:\s+instead)?\s*(?:$|[?.!,])", _I)
# "sort worst first", "order them lowest first", "highest first please": the rows shown, ordered by their figure
SORT_END = re.compile(r"\b(?:(?:sort|order|rank|sorted|ordered|ranked|list)(?:\s+(?:them|those|these|it|that|the list))?"
                      r"\s+(?:with\s+)?(?:the\s+)?|^\s*(?:and\s+)?)(?P<which>worst|best|lowest|highest|most|fewest|least)"
                      r"\s+(?:ones?\s+)?(?:first|on top)\b", _I)
INSTEAD = re.compile(r"\b(?:by|in terms of|on)\s+(?P<what>[\w\s-]+?)\s+instead\b", _I)
# another figure of the same rows, and nothing else: "and on failed checks", "what about critical findings?"
ANOTHER_FIGURE = re.compile(r"^\s*(?:and|what about|how about|same (?:for|with)|now)\s+(?:on\s+|in terms of\s+|by\s+|"
                            r"for\s+)?(?:the\s+)?(?P<what>[a-z][\w\s-]{2,40}?)\s*[?.!]*$", _I)
# "by site type", "break it down by role", "split that per region" (of the one row just named: that row's groups)
REGROUP = re.compile(r"^\s*(?:ok(?:ay)?,?\s+|and\s+|now\s+|then\s+|can you\s+|please\s+)*(?:by|per|broken down by|"
                     r"split by|grouped by|(?:break|split|group)\s+(?P<it>it|that|this|them|those|these)?\s*(?:down\s+|"
                     r"up\s+|out\s+)?(?:by|per))\s+(?P<dim>[\w\s-]+?)\s*(?:please\s*)?[?.!]*$", _I)
# "split us-west by device type", "us-west by device type" after the devices per region: that row in its own groups
REGROUP_ROW = re.compile(r"^\s*(?:ok(?:ay)?,?\s+|and\s+|now\s+|then\s+|can you\s+|please\s+)*(?:(?:break|split|group)"
                         r"\s+)?(?P<value>[\w-]+(?:\s+(?!down\b|up\b|out\b)[\w-]+)?)\s+(?:down\s+|up\s+|out\s+)?(?:by|per)\s+"
                         r"(?P<dim>[\w\s-]+?)\s*(?:please\s*)?[?.!]*$", _I)
GROUP_EXTREME = re.compile(r"^\s*(?:and\s+|so\s+)?(?:which|what)(?:\s+(?:one\s+)?of\s+(?:those|them|these))?"
                           r"(?:\s+(?P<dim>[\w\s-]+?))?\s+(?:is|was|are|were|has|had|"
                           r"does|did|accounts?|contributes?|gets?|got|sees?|saw|logs?|logged|makes?|made|covers?|covered|"
                           r"produced?|generated?|recorded|reported|triggered|showed|shows?|threw|throws?|"
                           # "which one fails the most checks": one of the rows (not "which device fails …", its own)
                           # ("which one hit the most devices" after the signatures matched: one of them)
                           r"(?:(?<=\bone )|(?<=\bwhich )|(?<=\bthem )|(?<=\bthose )|(?<=\bthese ))"
                           r"(?:fails?|hits?|match(?:es|ed)?|affect(?:s|ed)?))\s+"
                           r"(?:(?:responsible|accountable)\s+)?(?:for\s+)?(?:the\s+)?"
                           # ("which is better" of two rows; "which got worse", "which did better" are changes)
                           r"(?P<which>worst|best|lowest|highest|most|least|fewest|more|fewer|less|(?:(?<=is )|"
                           r"(?<=was )|(?<=are )|(?<=has )|(?<=had )|(?<=the ))(?:better|worse|higher|lower))\b", _I)
# "worst one?", "and the best?" after groups: the end of the groups shown (an empty ``dim``: the groups' own)
# ("whats the worst one": the same, asked)
BARE_EXTREME = re.compile(r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?(?:what(?:'s|’s|s|\s+is|\s+was|\s+were)\s+)?(?:the\s+)?(?P<dim>)(?P<which>worst|best|lowest|highest|most|fewest|least)"
                          r"(?:\s+one)?\s*[?.!]*\s*$", _I)
# the latest run said as now: "and now?", "how many fail it today", "currently"
NOW = re.compile(r"\b(?:(?:right\s+)?now|today|currently|at the moment|these days|at present|as of now|(?:in|for) the "
                 r"(?:latest|last|most recent|current|newest) (?:run|assessment|scan))\b", _I)
# "the most of them", "the fewest of those": the rows of the last list, counted
MOST_OF_THEM = re.compile(r"\b(?:most|fewest|least|highest number)\s+(?:of\s+)?(?:them|those|these)\b", _I)
# "compare to Store-40", "how does that compare with the branches", "vs DataCenter-2?": the last figure beside another
COMPARE_TO = re.compile(r"^\s*(?:and\s+|now\s+)?(?:how\s+(?:does|do|did)\s+(?:that|it|this|they)\s+)?(?:compare[sd]?|stack up)"
                        r"(?:\s+(?:it|that|this|them))?\s+(?:to|with|against)\b|^\s*(?:and\s+)?(?:vs\.?|versus)\s", _I)
# "what are they", "which devices have them", "what sites are those at", "which rules do they cover", "where are they",
# "list them", and "which devices?" alone after checks: the things the last answer counted or was about, by name
_LEAD = r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?"
# "the critical ones" after a figure per severity: that row of the groups shown
_THEY = r"(?:they|those|these|them|it|the\s+(?P<value>[\w-]+)\s+ones?)"
THEM = (re.compile(_LEAD + r"(?:on\s+|at\s+)?(?:what|which)(?:\s+(?P<what>[a-z][\w-]*))?\s+(?:are|were|have|has|had)\s+"
                   + _THEY + r"(?:\s+(?:on|at|in))?\s*[?.!]*\s*$", _I),
        re.compile(_LEAD + r"(?:what|which)\s+(?P<what>[a-z][\w-]*)\s+(?:do|does|did)\s+" + _THEY +
                   r"\s+(?:cover|run|affect|hit|apply to|sit at|live at)\s*[?.!]*\s*$", _I),
        re.compile(_LEAD + r"(?P<where>where)\s+(?:are|were|is)\s+" + _THEY + r"(?:\s+located)?\s*[?.!]*\s*$", _I),
        re.compile(_LEAD + r"(?P<where>where)(?:\s+exactly)?\s*[?.!]*\s*$", _I),  # "where?" alone: where they are
        # "how many devices have them", "how many sites are they at": those things, counted
        # ("how many devices do they hit at HQ": there; "how many switches fail them", "… altogether")
        re.compile(_LEAD + r"(?P<count>how many)\s+(?P<what>[a-z][\w-]*)\s+(?:are|were|have|has|had|do|does|did|"
                           r"fail|failed|match|matched|hit)\s+" + _THEY +
                   r"(?:\s+(?:have|on|at|in|hit|affect|match))?(?:\s+(?:at|in)\s+(?:the\s+)?[\w-]+)?"
                   r"(?:\s+(?:altogether|all together|in all|between them|combined))?\s*[?.!]*\s*$", _I),
        # "on how many devices", "across how many sites (is that)": the same things, counted
        re.compile(_LEAD + r"(?:on|across|over|at|in)\s+(?P<count>how many)\s+(?P<what>[a-z][\w-]*)"
                           r"(?:\s+(?:is that|are they|are those|then|in total|altogether))?\s*[?.!]*\s*$", _I),
        re.compile(_LEAD + r"(?:list|show|name)(?:\s+me)?\s+(?:them|those|these)\s*[?.!]*\s*$", _I),
        # "list the devices", "show me those boxes", "name the sites" after a figure counted over them
        re.compile(_LEAD + r"(?:list|show|name|give)(?:\s+me)?\s+(?:the|those|these|all the)\s+"
                           r"(?P<what>devices|boxes|sites|checks|rules|stores|switches|routers|firewalls)"
                           r"(?:\s+(?:then|please))?\s*[?.!]*\s*$", _I))
# "at which sites", "which regions?": the rows of a dimension the last figure was counted over
WHICH_ROWS = re.compile(_LEAD + r"(?:(?:at|in|on)\s+)?(?:which|what)\s+(?P<dim>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
                        r"(?:\s+(?:are they|are those|is that|is it))?\s*[?.!]*\s*$", _I)
# "which region dropped the most", "what site improved": each group's change between two runs, the most first
CHANGE_EXTREME = re.compile(_LEAD + r"(?:which|what)(?:\s+one)?(?:\s+of\s+(?:them|those|these))?(?:\s+(?P<dim>(?!has\b|have\b)[a-z][\w-]*(?:\s+[a-z][\w-]*)?))??"
                            r"\s+(?:has\s+|have\s+)?"
                            r"(?:dropped|fell|declined|decreased|slipped|worsened|got worse|gotten worse|regressed|"
                            r"improved|got better|gotten better|rose|increased|went up|went down|moved|changed|shifted|"
                            r"swung)\b(?:\s+(?:the\s+)?"
                            r"(?:most|least|more|less))?", _I)
NEUTRAL_CHANGE = re.compile(r"\b(?:moved|changed|shifted|swung)\b", _I)
# "any of those at the datacenters?": whether any of the rows in play is there — an edit, not the question asked again
ANY_OF_THEM = re.compile(r"\bany\s+(?:of\s+)?(?:them|those|these)\b", _I)
# "how many", "how many is that" after a list: the same rows, counted (a list's lead is its count)
HOW_MANY = re.compile(_LEAD + r"(?:how many(?:\s+(?:of them|are there|is that|are they|"
                      r"in total|in all|total))?|count(?:\s+them)?|the count|total)\s*[?.!]*\s*$", _I)
# "and how many at the stores", "how many there in total": a count asked of a place, its measure the last one's
COUNT_THERE = re.compile(_LEAD + r"how many\s+(?:(?:are|were)\s+)?(?:there\s+)?(?:in|at|on|for|across)\b", _I)
# "how many devices is that" after the sites with some: the things of another kind behind the same rows, counted
HOW_MANY_OF = re.compile(_LEAD + r"how many\s+(?:different\s+|distinct\s+|unique\s+|separate\s+)?(?P<what>[a-z]+)(?:\s+(?:is that|are there|are they|in total|in all|"
                         r"does that make|is it|are those|altogether|then))+\s*[?.!]*\s*$", _I)
# "how many new failures is that altogether", "how many failed checks do they add up to": the rows' figure, summed
SUM_OF_THE_ROWS = re.compile(_LEAD + r"how many\s+(?:[\w-]+\s+){1,3}?(?:is that|are there|are they|are those|does that make|"
                             r"do they (?:have|add up to)|(?:in total|in all|altogether|combined))(?:\s+(?:in total|in all|"
                             r"altogether|combined|then))?\s*[?.!]*\s*$", _I)
REST = re.compile(r"\b(?:the rest|the others|the other ones|the remaining(?: ones)?)\b|"
                  # "list the ones that don't", "which stores don't": the rows the last answer's bound left out
                  r"\b(?:ones?|those|[a-z]+s)\s+(?:that\s+|which\s+|who\s+)?(?:don'?t|do not|doesn'?t|does not|aren'?t|"
                  r"are not|didn'?t|did not|haven'?t|have not|can'?t)\s*[?.!]*\s*$", _I)
TIME_WORDS = re.compile(r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december|"
                        r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|last|previous|prior|first|earliest|oldest|latest|month|"
                        r"run|runs|assessment|assessments|scan|time|since|until|between|from|20\d\d(?:-\d\d(?:-\d\d)?)?|asmt-[\d-]+)\b", _I)
FILLER = frozenset(["and", "what", "about", "how", "just", "only", "the", "those", "these", "them", "they", "it",
                    "its", "that", "this", "ones", "one", "in", "on", "at", "for", "of", "please", "pls", "now",
                    "ok", "okay", "instead", "then", "same", "but", "with", "was", "were", "is", "are", "there",
                    "show", "me", "sorted", "sort", "order", "ordered", "rank", "ranked", "by", "not", "counting",
                    "excluding", "without", "except", "also", "too", "so", "whats", "what's", "did", "do", "does",
                    "a", "an", "all", "any", "from", "to", "get", "give", "list", "again", "which", "rest", "others",
                    "other", "remaining", "thanks", "leave", "leaving", "out", "ignore", "ignoring", "minus",
                    "besides", "apart", "outside", "exclude", "drop", "skip", "many", "count", "back", "ago",
                    "earlier", "before", "or", "common", "popular", "frequent", "widespread", "one", "thing", "question"])


# the measures that are the failed checks of one severity
SEVERITY_BOUND = {"critical_findings": "critical", "high_findings": "high"}
EDITED = "edit of the last query: "  # the Intent step's signal: what the follow-up changed
# how a follow-up read against the history keeps an earlier answer's scope (the Intent Classifier's resolutions)
KEPT_SCOPE = frozenset({"carryover", "refinement", "same_devices", "device_reference", "finding_reference",
                        "self_correction", "name_clarification"})


def narrowed_by_follow_ups(state: AssessmentState) -> bool:
    """Whether a data answer's scope came from earlier answers (an edit of the last query, a scope carried over): the
    chat offers to clear it."""
    return state.final.scope is not None and (state.conversation.resolution in KEPT_SCOPE or any(
        s.startswith(EDITED) for s in state.intent.signals))


def is_edit(intent: Intent) -> bool:
    """Whether the turn is an edit of the last query: it runs on the compiler, whatever a template would read."""
    return intent.query is not None and any(s.startswith(EDITED) for s in intent.signals)


@dataclass
class QueryEdit:
    query: DataQuery
    notes: list[str] = field(default_factory=list)  # what the edit asked that has no run
    said: list[str] = field(default_factory=list)  # what it changed, for the step's summary


def _better(model: SemanticModel, measure: str) -> str:
    return model.measures[measure].better or "lower" if measure in model.measures else "lower"


# "whats the risk", "why does that matter", "is that bad": a question about the one check the last answer was about
WHY_IT_MATTERS = re.compile(r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?(?:what(?:'s|s|’s| is| are)?\s+the\s+(?:risks?|impact|danger)|"
                            r"why\s+(?:does|do|is|would)\s+(?:that|this|it)\s+(?:matter|a problem|bad|dangerous|risky)|"
                            r"(?:is|how bad is)\s+(?:that|this|it)(?:\s+(?:bad|dangerous|risky|a problem))?|so what|"
                            r"why\s+(?:should|do)\s+(?:i|we)\s+care)\s*[?.!]*\s*$", _I)


# "list them", "show me those": the rows again, not what they were counted by ("what are they" asks that)
LIST_VERB = re.compile(_LEAD + r"(?:list|show|name)\b", _I)
# the words that ask whether (not "and at the stores?", a place for the same list)
YES_NO_ASKED = re.compile(r"^\s*(?:and|so|but|ok(?:ay)?|then)?[\s,]*(?:is|are|does|do|did|has|have|had|was|were|any|can|"
                          r"will|would|should)\b|\bor not\b|\bany\b", _I)
# the words that ask for rows, not whether there are any: "which ones are high", "list them", "what are they"
LIST_ASKED = re.compile(r"\b(?:which|list|show|name|enumerate)\b|\bwhat\s+(?:are|were)\b", _I)


# "is that in our standard?", "what does the baseline say about it", "which policy requires this": the one check the
# last answer was about, asked of the documents
STANDARD_OF_IT = re.compile(r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?(?:(?:is|was|are)\s+(?P<it>that|this|it)\s+(?:in|part of|"
                            r"covered by|required by|from|mandated by|written in)\s+(?:our|the|a|any)\s+|what\s+does\s+(?:our|"
                            r"the)\s+(?:\w+\s+)?(?:standard|policy|baseline|guideline)s?\s+say\s+about\s+(?P<it2>that|this|"
                            r"it)\b|(?:which|what)\s+(?:standard|policy|document|baseline)\s+(?:says|requires|mandates|covers)\s+"
                            r"(?P<it3>that|this|it)\b)", _I)


# "as a percentage", "what % is that": the last count as a share of what it was counted out of
AS_SHARE = re.compile(r"^\s*(?:and\s+|ok(?:ay)?,?\s+|so\s+)?(?:(?:as|in)\s+(?:a\s+)?(?:percent(?:age)?|%|share|ratio)|"
                      r"(?:what|which)\s+(?:percent(?:age)?|%|share|fraction)\s+(?:is that|of (?:them|the total|all))|"
                      r"how much is that in percent)\s*[?.!]*\s*$", _I)
HOW_MANY_OF_WORDS = re.compile(r"\bhow many(?:\s+of)?\b", _I)


# "since then", "back then": the time the last answer was about
THEN = re.compile(r"\b(?P<how>since|from|back|as of)\s+then\b|\bat (?:that|the) (?:time|point)\b", _I)


def then_named(prompt: str, previous: PastTurn | None, runs: Sequence[tuple[str, str]]) -> str | None:
    """The follow-up with "then" named as the month of the one run (or month) the last query was of ("which one
    dropped more since then" after two regions in august: since august 2026); None when it says no "then" or the last
    answer was of no one time. ``runs``: the collection's runs as (assessment id, YYYY-MM-DD)."""
    m = THEN.search(prompt)
    query = previous.query if previous is not None else None
    if m is None or query is None:
        return None
    month = dict(runs).get(query.runs[0], "")[:7] if len(query.runs) == 1 else \
        query.months[0] if len(query.months) == 1 and not query.runs else ""
    if not re.fullmatch(r"\d{4}-\d{2}", month):
        return None
    named = f"{calendar.month_name[int(month[5:])].lower()} {month[:4]}"
    how = (m.group("how") or "in").lower()
    return prompt[:m.start()] + f"{'in' if how in ('back', 'as of') else how} {named}" + prompt[m.end():]


# a lookup asks what a value is: "what code is the top one running", "which release is the second one on"
LOOKUP = re.compile(r"^\s*(?:and\s+|so\s+)?(?:what|which|where)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:code|release|version|"
                    r"software|image|model|hardware|platform|os|role|ip|management|mgmt|site|location)\b", _I)
# "between the two", "between them", "from the first to the second": the two times of the conversation's last answers
THE_TWO_TIMES = re.compile(r"\bbetween (?:the|those|these) two(?:\s+(?:runs|months|assessments|answers))?\b|"
                           r"\bbetween them\b|\bfrom (?:the )?(?:first|one) to the (?:second|other)\b", _I)


def the_two_named(prompt: str, history: Sequence[PastTurn], runs: Sequence[tuple[str, str]],
                  model: SemanticModel) -> str | None:
    """The follow-up with "between the two" named as the runs of the last two answers, each of one run ("which region
    improved the most between the two" after the pass rate per region in september, then in november: between
    september and november, not the two latest runs); None when it says no such thing or those answers were not of
    two different runs. ``runs``: the collection's runs as (assessment id, YYYY-MM-DD)."""
    m = THE_TWO_TIMES.search(prompt)
    # ("which one moved the most" after the same figures in october, then now: between those two, said or not)
    implied = m is None and CHANGE_EXTREME.match(prompt) is not None and not TIME_WORDS.search(prompt)
    answered = [t for t in history if t.query is not None][-2:]
    queries = [t.query for t in answered if t.query is not None]
    if (m is None and not implied) or len(queries) != 2 or any(len(q.runs) != 1 for q in queries) or \
            len({q.model_copy(update={"runs": []}).model_dump_json() for q in queries}) != 1:
        return None  # (two answers that differ in more than their run are two questions, not two times)
    dated = dict(runs)
    pair = sorted({q.runs[0] for q in queries}, key=lambda run: dated.get(run, run))
    if len(pair) != 2:
        return None
    # the figure the two answers gave, when the words name none ("got worse the most" after failed checks per site
    # type: by failed checks, not by the pass rate "worse" reads as alone)
    figure = queries[0].measures[0] if queries[0].measures and not measure_words(prompt, model) else None
    by = f" by {model.measures[figure].noun[1]}" if figure in model.measures else ""
    if m is None:  # (the rows the two answers were of, named: "which one" is a device type there)
        extreme = CHANGE_EXTREME.match(prompt)
        if extreme is None or extreme.group("dim") or not queries[-1].group_by:
            return None
        noun = model.dimensions[queries[-1].group_by[0]].noun
        asked = re.sub(r"^(\s*(?:and\s+|so\s+)?(?:which|what))(?:\s+one)?(?:\s+of\s+(?:them|those|these))?", rf"\1 {noun}",
                       prompt, count=1, flags=re.I)
        return re.sub(r"[\s?.!]*$", "", asked) + f" between {pair[0]} and {pair[1]}{by}"
    return prompt[:m.start()] + f"between {pair[0]} and {pair[1]}{by}" + prompt[m.end():]


def picked_prompt(prompt: str, previous: PastTurn | None, model: SemanticModel) -> str | None:
    """The prompt with the words that pick a row of the previous answer ("the third one", "the worst one") replaced
    by that row's key; None when they pick none. "whats the risk" after an answer about one check is asked of it;
    "as a percentage" after a count asks the count's question as a share."""
    if previous is not None and AS_SHARE.match(prompt) and HOW_MANY_OF_WORDS.search(previous.question):
        return HOW_MANY_OF_WORDS.sub("what percentage of", previous.question, count=1)
    if previous is not None and previous.query is not None and WHY_IT_MATTERS.match(prompt):
        rules = previous.query.condition("rule")
        if rules is not None and not rules.negated and len(rules.values) == 1:
            return f"what is the risk of {rules.values[0]}?"
    standard = STANDARD_OF_IT.search(prompt) if previous is not None else None
    if standard is not None and previous is not None:
        # "is that in our standard?" after the fix of one check: asked of that check, by its id
        held = previous.query.condition("rule") if previous.query is not None else None
        checks = list(held.values) if held is not None and not held.negated else \
            list(previous.frame.checks or previous.frame.targets.rule) if previous.frame is not None else []
        if len(checks) == 1:
            it = next(g for g in ("it", "it2", "it3") if standard.group(g) is not None)
            return prompt[:standard.start(it)] + checks[0] + prompt[standard.end(it):]
    rules = previous.query.condition("rule") if previous is not None and previous.query is not None else None
    # (after one check broken down by a kind of device, "it" is the check, no row: "how many devices fail it at HQ"
    # after the SSH-V2 pass rate by platform)
    rows_of_it = previous is not None and previous.query is not None and bool(previous.query.group_by) and \
        not {"rule", "device", *PLACES} & set(previous.query.group_by)
    failing_it = FAILING_IT.search(prompt) if WIDENED.search(prompt) or rows_of_it else None
    if failing_it and rules is not None and not rules.negated and len(rules.values) == 1 and previous is not None \
            and previous.query is not None:
        # "and how many wan routers fail it fleet wide" after the one check the last answer was about: that check
        return _kept_place(prompt[:failing_it.start("it")] + rules.values[0] + prompt[failing_it.end("it"):],
                           previous.query)
    if previous is None or not previous.answer_rows or previous.query is None:
        return None
    if CHANGED_WHAT.match(prompt) and _of_the_changes(previous.query, model):
        return None  # "what did it fix" after the device with the most fixes: the checks behind it (``edited_query``)
    if SAME_VALUE.search(prompt) and THEY_ALL.search(prompt):
        return None  # "do they all run the same release": whether they share one (``one_value_of_them``), no row
    still = STILL_LEADS.match(prompt)
    if still and (still.group("it") or still.group("still")) or STILL_TRUE.match(prompt):
        return None  # "was it also worst in august": whether the row still leads, an edit of the ranking
    if FIGURE_OF_IT.match(prompt) and previous.query.group_by and previous.query.limit == 1:
        return None  # "how many did it have in august": the row's figure then, an edit of the ranking
    # the row picked and the value named compose: "how many config changes on it that month" after the device with
    # the most failed logins in october is about that device, in october
    one = _the_one_named(prompt, previous) or _the_places_listed(prompt, previous)
    one = _that_value(one or prompt, previous, model) or one or _a_row_by_name(prompt, previous)
    if one is not None:
        return one
    m = ROW_REF.search(prompt) or BY_FIGURE.search(prompt)
    if m is None or alone(prompt, m):
        return None  # "top one?" alone: the row's figure, an edit of the last query (``edited_query``)
    if previous.query.group_by and measure_words(prompt, model) and \
            previous.query.group_by[0] not in ROW_NOUNS.get(m.group("noun").lower(), set(previous.query.group_by)):
        return None  # "worst site by pass rate in september" after the tiers ranked: a ranking of its own
    which = BY_FIGURE_AS.get(m.group("which").lower(), m.group("which").lower())
    if which not in SUPERLATIVE and previous.query.group_by == ["device"]:
        # "the first one" of a device list: the follow-up resolution keeps what that list was about — unless the
        # words look up one of its values ("what code is the top one running"), which the inventory holds at no time
        index = ORDINAL.get(which)
        if index is None or index >= len(previous.answer_rows):
            return None
        named = _named_in_its_clause(prompt, m, previous.answer_rows[index]) or \
            prompt[:m.start()] + previous.answer_rows[index] + prompt[m.end():]
        return named if LOOKUP.match(prompt) and attribute_asked(named, model) else None
    rows = previous.answer_rows
    if which in SUPERLATIVE:
        query = previous.query
        measure = query.order.measure if query.order else (query.measures[0] if query.measures else None)
        if measure is None:
            return None  # a list with no figure has no worst
        if query.order is None:  # an unranked list: the row whose figure, as shown, is the worst (one, not a tie)
            by_figure = _by_figure(which, previous, model)
            if by_figure is None:
                return None
            picked = _named_in_its_clause(prompt, m, rows[by_figure]) or \
                prompt[:m.start()] + rows[by_figure] + prompt[m.end():]
            return _kept_place(picked, query) if query.group_by == ["rule"] else picked
        high_first = query.order.descending
        if which in ("lowest", "highest"):
            first = (which == "highest") == high_first
        else:
            worst_high = _better(model, measure) == "lower"
            first = (which == "worst") == (worst_high == high_first)
        index = 0 if first else -1
    else:
        index = ORDINAL[which]
    if index >= len(rows):
        return None
    picked = _named_in_its_clause(prompt, m, rows[index]) or prompt[:m.start()] + rows[index] + prompt[m.end():]
    if previous.query.group_by[:1] and previous.query.group_by[0] in PLACES and PLACE_THERE.search(picked):
        return PLACE_THERE.sub(place_phrase(previous.query.group_by[0], [rows[index]]), picked, count=1)
    place = next((c for c in previous.query.conditions if c.dimension in PLACES and not c.negated and
                  len(c.values) == 1 and c.dimension not in previous.query.group_by), None)
    if place is not None and PLACE_THERE.search(picked):
        # "how many devices fail the top one there" after the checks ranked in us-east: there is us-east
        # (a kind of site said as one: "at the store sites", not "in store")
        picked = PLACE_THERE.sub(place_phrase(place.dimension, place.values), picked, count=1)
    elif previous.query.group_by == ["rule"]:
        # "how many devices fail the second one" after the top checks at the branches: at the branches, where the
        # ranking was made (as "which devices fail it" is), unless the words name a place of their own
        picked = _kept_place(picked, previous.query)
    return picked


THEY_ALL = re.compile(r"\b(?:they|them|those|these|all|both)\b", _I)
# "are they all in the same site", "do they all run the same release", "same region?"
SAME_VALUE = re.compile(r"\b(?:all\s+)?(?:in|at|on|from|run(?:ning)?|of|have)\s+the\s+same\s+(?P<dim>[a-z][\w ]*?)\s*"
                        r"(?:[?.!]|$)", _I)


def one_value_of_them(prompt: str, devices: Sequence[str], last: DataQuery | None,
                      model: SemanticModel) -> QueryEdit | None:
    """"are they all in the same site" after a list of devices (``devices``: the list in play, ``last``: the query
    that chose them): those devices per site, answered Yes only when there is one (output ``same``) — never "any of
    them is there"; None when the words ask no such thing or no list of devices is in play."""
    m = SAME_VALUE.search(prompt)
    dim = _dimension(m.group("dim"), model) if m else None
    if dim is None or dim in ("device", "run") or model.on_rows(dim) or len(devices) < 2:
        return None
    kept = [c for c in (last.conditions if last is not None else []) if not model.on_rows(c.dimension) and
            not c.in_measure and c.dimension != "device"]
    edited = DataQuery(measures=["devices"], group_by=[dim], output="same",
                       conditions=[*kept, Condition(dimension="device", values=list(devices))])
    return QueryEdit(edited, [], [f"whether they share one {dim}"])


def _counting(measure: str, things: str, model: SemanticModel) -> str | None:
    """The measure of the same rows as ``measure`` that counts ``things`` (the devices failing beside the failed
    checks, the devices matched beside the SLIC matches), or None."""
    first = model.measures[measure]
    return next((name for name, m in model.measures.items() if m.fact == first.fact and m.where == first.where and
                 model.counted_things(name) == things), None)


# the devices named as such: "those devices", "the boxes", "them hosts"
DEVICES_NAMED = re.compile(r"\b(?:devices|boxes|hosts)\b", _I)


def _things_of_the_row_led(prompt: str, own: Intent, scope: dict[str, Any], previous: PastTurn,
                           model: SemanticModel) -> QueryEdit | None:
    """"how many of those devices are at the stores" after the signature that matched the most devices: the devices
    that row counted, kept by the words' own conditions, counted ("list the ones at the stores": listed); None when
    the last answer led with no one row or its figure counts the rows themselves."""
    query = previous.query
    listed = ONES_LISTED.match(prompt) is not None
    if query is None or not (COUNT_AMONG.search(prompt) or listed) or not query.group_by or \
            not query.measures or not previous.answer_rows or tied_rows(previous):
        return None
    thing = model.counted_things(query.measures[0])
    own_conditions = [c for c in _conditions(prompt, own, scope, model) if not c.in_measure]
    # "list those routers" after the signature that hit the most routers: the devices its lead row counted, named by
    # their kind (a signature's matches are one per device)
    devices_named = query.group_by[0] != "device" and model.dimension_sql("device", model.measures[
        query.measures[0]].fact) is not None and (DEVICES_NAMED.search(prompt) is not None or any(
            c.dimension in DEVICE_KINDS | {"role"} and not c.negated for c in own_conditions))
    if devices_named:
        thing = "device"
    if thing is None or thing == query.group_by[0]:
        return None
    # a ranking led with one row, its things named ("those routers"), or the one row a ranking kept
    if query.limit != 1 and not (query.order is not None and devices_named and listed):
        return None
    leader = query.leader or previous.answer_rows[0]
    # (the things' own noun, "those devices", names no figure of its own)
    if any(model.counted_things(x) != thing for x in measure_words(prompt, model)) or re.search(r"\bfail", prompt, _I) or \
            any(model.on_rows(c.dimension) for c in own_conditions):
        return None  # "how many of them fail something critical": a figure of their own (``within_last``)
    said = {c.dimension for c in own_conditions}
    replaced = PLACES if said & PLACES else set()
    conditions = [c for c in query.conditions if c.dimension not in said | replaced and c.dimension != query.group_by[0]]
    shape = {"group_by": [thing], "output": "list", "bounds": [Bound(measure=query.measures[0], op=">", value=0)]} \
        if listed else {"group_by": [], "output": "value", "bounds": []}
    edited = query.model_copy(update={
        **shape, "order": None, "limit": None, "offset": 0, "leader": None,
        "conditions": [*conditions, Condition(dimension=query.group_by[0], values=[leader]), *own_conditions]})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"the {thing}s of {leader}"])


def _by_figure(which: str, previous: PastTurn, model: SemanticModel) -> int | None:
    """Where the row with the highest, lowest, worst or best figure is among the rows the last answer showed (by the
    figures shown beside them); None when the figures are not all known or two rows share that figure."""
    figures, query = previous.answer_figures, previous.query
    if query is None or not query.measures or len(figures) != len(previous.answer_rows) or not figures or \
            any(f is None for f in figures):
        return None
    high = which == "highest" if which in ("highest", "lowest") else \
        (which == "worst") == (_better(model, query.measures[0]) == "lower")
    target = max(figures) if high else min(figures)  # type: ignore[type-var]  # none is None (above)
    return figures.index(target) if figures.count(target) == 1 else None


def carried_measure(prompt: str, query: DataQuery, last: DataQuery, model: SemanticModel,
                    timed: bool = True, months: Sequence[str] = ()) -> DataQuery | None:
    """A ranking asked of a row just picked, with no measure of its own ("which site there has the most" after the
    region with the most critical findings): ranked by the last answer's measure, on the checks it counted, and in its
    runs or months when the words name no time (``timed``); None when the words name a measure or the last one
    counted something else."""
    if query.order is None or not query.group_by or not query.measures or not last.measures or \
            measure_words(prompt, model):
        return None
    before = last.measures[0]
    # the checks it counted, and where it counted them unless the words name a place of their own ("which device had
    # the most that month" after the worst month of failed logins at HQ: HQ's devices); the row picked is the
    # question's own
    placed = any(c.dimension in PLACES for c in query.conditions)
    kept = [c for c in last.conditions if query.condition(c.dimension) is None and c.dimension not in last.group_by
            and (model.on_rows(c.dimension) or c.dimension in PLACES and not placed)]
    counts_itself = model.counted_things(query.measures[0]) == query.group_by[0]  # devices per device: 1 each
    fact = model.measures[before].fact
    crossed = fact != model.measures[query.measures[0]].fact  # ("which site had the most that month" after events)
    if (before == query.measures[0] and not kept) or \
            crossed and not counts_itself and model.dimension_sql(query.group_by[0], fact) is None:
        return None
    when = {} if timed else {"runs": list(last.runs), "months": list(last.months)}
    if crossed and timed and not model.facts[fact].run:  # the month named, not the run of that month
        when = {"runs": [], "months": list(months)}
    edited = query.model_copy(update={"measures": [before],
                                      "order": query.order.model_copy(update={"measure": before}),
                                      "conditions": [*query.conditions, *kept], **when})
    return DataQuery.model_validate(edited.model_dump())


IT = re.compile(r"\b(?:it|that one|that site|that device|that box)\b(?!['’])|\b(?P<its>its)\b", _I)
# a row of another kind asked of the one place named last, with nothing else said: "and which device there"
DRILL = re.compile(r"^\s*(?:and|so|ok|then)?[\s,]*(?:which|what)\s+(?P<dim>(?:[a-z]+\s+)?(?:devices?|box(?:es)?|hosts?|"
                   r"sites?|stores?|branch(?:es)?|switch(?:es)?|routers?|firewalls?|wlcs?|platforms?|models?|releases?|"
                   r"roles?|checks?|rules?))\s+(?:there|in there)(?P<tail>\s+(?:has|had|have|with|sees?|saw)\s+the\s+"
                   r"(?:most|fewest|least|highest|lowest)\b[\w\s-]*?)?\s*[?.!]*\s*$", _I)
# the rows of the one place named last: "its sites", "its devices"
ITS_ROWS = re.compile(r"\bits\s+(?P<what>sites|stores|branches|devices|boxes|routers|switches|firewalls)\b", _I)


# rows that are a value of the devices (a platform, a release, a model, a role, a kind): "it" is that value
VALUE_ROWS = frozenset({"platform", "release", "os_version", "model", "role", "device_type", "product_family"})


# a lead that names rows tied at the top: "**A** and **B** tie with the most …", "No single device leads: … tie at 7"
TIE_LEAD = re.compile(r"\btie (?:with|at)\b")


def tied_rows(previous: PastTurn) -> bool:
    """Whether a limit of one kept several rows tied at the top: its lead says so. A ranking among the devices just
    listed ("which of them fails the most") shows all of them, its first alone in the lead."""
    if len(previous.answer_rows) < 2:
        return False
    lead = next((ln for ln in previous.answer_excerpt.splitlines() if ln.strip() and not ln.startswith("**Scope")), "")
    return not lead or TIE_LEAD.search(lead) is not None


def _the_one_named(prompt: str, previous: PastTurn) -> str | None:
    """After an answer that named one row ("which site is worst" → Lab-1), "there" and "it" are that row: "what
    fails there most" is "what fails at Lab-1 most"; after a ranking, whose lead names its first row, "it" is that row
    ("most common failure at the stores" → "how many stores have it"). None when the last answer named no row first."""
    query = previous.query
    checked = IT_CHECK.search(prompt)
    if query is not None and query.order is None and query.group_by == ["rule"] and len(previous.answer_rows) == 1 \
            and checked:  # "how many firewalls have it" after the one check a list showed: that check
        row = str(previous.answer_rows[0])
        return _kept_place(prompt[:checked.start("it")] + row + prompt[checked.end("it"):], query)
    if query is None or query.order is None or not query.group_by:
        return None
    # ("is it still the lowest" → "No" → "whats its pass rate now": the row asked about, not the one that leads now)
    key, dim = query.leader or previous.answer_rows[0], query.group_by[0]
    if dim in PLACES and query.limit == 1 and PLACE_THERE.search(prompt):
        at = place_phrase(dim, [key])
        drill = DRILL.match(prompt)
        if drill:  # "which site had the most" → "and which device there": the one there with the most
            return _drilled(drill, at, query.order.descending)
        return PLACE_THERE.sub(at, prompt, count=1)
    first_named = query.limit == 1 and not tied_rows(previous) or (query.limit is None and query.order.descending)
    if dim in PLACES - {"site"} and first_named and ITS_ROWS.search(prompt):
        # "which region is lowest" → "list its sites": the sites in that region
        return ITS_ROWS.sub(lambda m: f"{m.group('what')} in {key}", prompt, count=1)
    it = IT.search(prompt)
    tied = tied_rows(previous)  # a limit of one keeps the rows tied at the top: "its" is all of theirs
    of_that = OF_THAT.search(prompt)
    if dim in ("device", "site") and query.limit == 1 and of_that and not tied:
        # "is any of that covered by an exception" after the worst device: its failures (the register's every
        # exception answered a Yes about none of them)
        return prompt[:of_that.start("it")] + key + prompt[of_that.end("it"):]
    picked_too = ROW_REF.search(prompt) is not None  # "the second one - what fails on it": the row named is "it"
    # a ranking with no limit whose lead named its first row ("**HQ** has the lowest pass rate"): "it" is that row
    led = query.limit is None and re.search(rf"^\*\*{re.escape(str(key))}\*\* (?:has|is)\b", previous.answer_excerpt,
                                            re.M) is not None
    if dim in ("device", "site") and (query.limit == 1 or led) and it and not picked_too and not (
            tied and not led and it.group("its")):
        # "its critical findings": the row's (after a tie, the follow-up resolution reads it over the tied rows)
        return prompt[:it.start()] + (f"{key}'s" if it.group("its") else key) + prompt[it.end():]
    kind = THAT_KIND.search(prompt)
    if (dim in VALUE_ROWS or dim in PLACES - {"site"}) and kind and first_named:
        # "list the devices of that type with a critical finding" after the device type with the most: that type
        # ("devices with that role": the wan devices — a role is read as one beside the noun it qualifies)
        held = ROLE_HELD.search(prompt) if dim == "role" else None
        if held is not None:
            return prompt[:held.start()] + f"{key} {held.group('noun')}" + prompt[held.end():]
        return prompt[:kind.start()] + str(key) + prompt[kind.end():]
    if dim in VALUE_ROWS and it and not it.group("its") and first_named:  # (a ranking's lead names its first row)
        # "which platform has the best pass rate" → "how many devices run it": that platform
        return prompt[:it.start()] + str(key) + prompt[it.end():]
    m = IT_CHECK.search(prompt) or IT_ON.search(prompt)
    if dim in ("rule", "signature") and m:  # a check is what is failed or fixed: "does it have" is still about the place
        return _kept_place(prompt[:m.start("it")] + key + prompt[m.end("it"):], query)
    return None


# "devices that have that role", "switches in this role": the devices of the role a ranking led with
ROLE_HELD = re.compile(r"\b(?P<noun>devices|boxes|routers|switches|firewalls)\s+(?:that\s+)?(?:have|has|with|in|of)\s+"
                       r"(?:that|this|the same)\s+role\b", _I)
# "so what does FW-EDGE-2 fail": what a device fails, asked whole (not "and what does …", which edits)
WHAT_IT_FAILS = re.compile(r"^\s*(?:so\s+|ok(?:ay)?,?\s+|then\s+)?what\s+(?:does|is)\s+(?P<device>[A-Za-z][\w-]*-[\w-]+)\s+"
                           r"fail(?:ing)?\b(?:\s+then)?\s*[?.!]*\s*$", _I)
# "the same ones", "those too": the rows the last answer showed, asked of another device or place
SAME_ONES = re.compile(r"\b(?:the\s+)?same\s+(?:ones|checks|findings|failures|issues|problems)\b|"
                       r"\b(?:those|them|these)\s+(?:too|as well)\b", _I)
HAS_VERB = re.compile(r"\b(?:does|do|did|is|are|have|has|had|fail(?:s|ing|ed)?|got|get)\b", _I)
# "list the ones …", "show me those …": the things the last figure counted, listed
# ("list the critical ones" after SLIC matches per severity: the signatures of that row)
ONES_LISTED = re.compile(_LEAD + r"(?:list|show(?:\s+me)?|name|give me|which are|what are)\s+"
                         r"(?:the\s+(?:[\w-]+\s+){0,2}?ones|them|those)\b", _I)
# "which of them …", "which ones …": some of the things the last answer counted, by name
WHICH_OF = re.compile(_LEAD + r"(?:which|what)\s+(?:ones\s+)?(?:of\s+(?:them|those|these)|ones)\b", _I)
# "that type", "this platform", "that region": the one value of a kind the last answer led with
THAT_KIND = re.compile(r"\b(?:that|this|the same)\s+(?:device\s+)?(?:type|kind|role|platform|release|version|model|tier|"
                       r"region|site type|product family|family)\b", _I)


# the words that name where a question is asked: a place of its own, or everywhere
PLACE_NAMED = re.compile(r"\b(?:at|in|across|outside|within|from)\s+(?:the\s+|our\s+|all\s+|every\s+)?(?:(?-i:[A-Z0-9][\w-]*)|"
                         r"stores?|branch\w*|sites?|campus\w*|data\s?cent\w*|regions?|labs?|offices?|us-\w+|tier\s?\d)|"
                         r"\b(?:everywhere|anywhere|overall|fleet|whole|stores|branches|campuses|datacenters|sites|"
                         r"regions)\b", _I)


def place_phrase(dimension: str, values: Sequence[str]) -> str:
    """A place as the reader reads it back: "at HQ", "in us-east", "at the store sites", "at the tier1 sites"."""
    said = " and ".join(values)
    return f"at {said}" if dimension == "site" else f"in {said}" if dimension == "region" else f"at the {said} sites"


def _kept_place(picked: str, query: DataQuery) -> str:
    """A question about a check picked from a ranking made in one place, asked where that ranking was ("top failing
    check at HQ" → "which devices fail it": at HQ), unless its words name a place of their own."""
    places = [c for c in query.conditions if c.dimension in PLACES and not c.negated and c.dimension not in
              query.group_by]
    if not places or PLACE_NAMED.search(picked):
        return picked
    said = [place_phrase(c.dimension, c.values) for c in places]
    return re.sub(r"\s*([?.!]*)\s*$", lambda m: f" {' '.join(said)}{m.group(1)}", picked, count=1)


# a kind of device said: a type, a platform or a role before a device noun
DEVICE_KIND = re.compile(r"\b(?:routers?|switch(?:es)?|firewalls?|wlcs?|wireless controllers?|nx-os|ios-xe|asa|nexus)\b|"
                         r"\b(?:core|edge|access|wan|spine|leaf|distribution|management)\s+(?:devices?|boxes|layer)\b", _I)
# a kind of device as the reader reads it back: "on the firewalls", "on the core devices", "on nx-os"
KIND_PHRASES = {"device_type": lambda v: f"on the {v.replace('_', ' ')}s", "role": lambda v: f"on the {v} devices",
                "platform": lambda v: f"on {v}"}


def _kept_kind(picked: str, query: DataQuery) -> str:
    """A question asked of one row of a ranking made over a kind of device ("the month with the most failed checks on
    the firewalls" → "what failed the most that month"), asked of that kind, unless its words name a kind of their
    own."""
    said = [KIND_PHRASES[c.dimension](c.values[0]) for c in query.conditions if c.dimension in KIND_PHRASES and
            not c.negated and len(c.values) == 1 and c.dimension not in query.group_by]
    if not said or DEVICE_KIND.search(picked):
        return picked
    return re.sub(r"\s*([?.!]*)\s*$", lambda m: f" {' '.join(said)}{m.group(1)}", picked, count=1)


def _a_row_by_name(prompt: str, previous: PastTurn) -> str | None:
    """A row of a ranking of places by a check's failures, named ("which sites fail NTP-AUTH the most" → "what
    devices at Site-A"): asked of that check there, unless the words name a check of their own."""
    query = previous.query
    if query is None or query.group_by[:1] not in (["site"], ["region"], ["site_type"]) or query.order is None:
        return None
    rules = query.condition("rule")
    named = [row for row in previous.answer_rows if re.search(rf"(?<![\w-]){re.escape(str(row))}(?![\w-])", prompt, _I)]
    if rules is None or rules.negated or not named or re.search(r"\b[A-Z]{2,}(?:-[A-Z0-9]+)+\b", prompt) or \
            re.search(r"\bfail\w*|\bpass\w*|\bcheck|\bfinding", prompt, _I):
        return None
    return re.sub(r"\s*([?.!]*)\s*$", lambda m: f" failing {' or '.join(rules.values)}{m.group(1)}", prompt, count=1)


LISTED_PLACES_NAMED = 15  # more places than a follow-up's words can name back: their conditions are not enough alone


# "at each of those sites", "in these regions", "for all of those stores": the places the last answer listed
PLACE_NOUNS = {"sites": "site", "locations": "site", "places": "site", "offices": "site", "regions": "region",
               "tiers": "tier", "site types": "site_type"}
# (not "which of those sites are in us-east": a choice among them)
THOSE_PLACES = re.compile(r"\b(?:(?:at|in|for|across)\s+(?:(?:each|every one|all|both)\s+)?(?:of\s+)?|of\s+(?:each|every one|all|both)"
                          r"\s+of\s+)(?:those|these|them|the)\s+"
                          r"(?P<noun>sites|locations|places|offices|regions|tiers|site types)\b", _I)


def _the_places_listed(prompt: str, previous: PastTurn) -> str | None:
    """After a list of places ("which sites are in us-central"), "there" is those places: where the list's only
    condition is a place, that place ("how many devices there" → "… in us-central"); otherwise the places listed, by
    name ("which sites have no firewall" → "… at Site-A, Lab-1"). None after anything but a list of places."""
    query = previous.query
    if query is None or query.group_by[:1] not in (["site"], ["region"], ["site_type"], ["tier"]) or \
            len(query.group_by) > 1 or (query.limit or 2) == 1:
        return None
    those = THOSE_PLACES.search(prompt)
    if those is not None and PLACE_NOUNS[those.group("noun").lower()] == query.group_by[0] and \
            0 < len(previous.answer_rows) <= LISTED_PLACES_NAMED:
        # "the pass rate at each of those sites" after the sites some devices are at: those places, whole, by name
        return prompt[:those.start()] + ("at " if query.group_by == ["site"] else "in ") + \
            ", ".join(previous.answer_rows) + prompt[those.end():]
    row = ROW_REF.search(prompt)
    if PLACE_THERE.search(prompt) is None or row is not None and not alone(prompt, row):
        return None  # ("the second one - what fails there": the place picked by its place, ``picked_prompt``)
    kept = [c for c in query.conditions if not c.negated]
    if len(kept) == len(query.conditions) == 1 and kept[0].dimension in PLACES and not query.measures:
        where = f"{'at' if kept[0].dimension == 'site' else 'in'} {' and '.join(kept[0].values)}"
    elif query.order is not None and query.limit is None and previous.answer_rows and not DRILL.match(prompt):
        # every place ranked, the answer led with the first ("its worst site?" → "how many devices there"): that one
        where = f"{'at' if query.group_by == ['site'] else 'in'} {previous.answer_rows[0]}"
    elif 0 < len(previous.answer_rows) <= LISTED_PLACES_NAMED:
        where = "at " + ", ".join(previous.answer_rows)
    else:
        drill = DRILL.match(prompt)
        if drill and drill.group("tail") and query.measures and previous.answer_rows:
            # "failed logins by site" (36 rows, the most first) → "which device there has the most": the first
            # place shown, the one the answer named first
            return _drilled(drill, f"{'at' if query.group_by == ['site'] else 'in'} {previous.answer_rows[0]}", True)
        return None
    drill = DRILL.match(prompt)
    if drill and query.order is not None and query.measures:
        # "top 3 sites by failed logins" → "which device there": the one of those places with the most
        return _drilled(drill, where, query.order.descending)
    return PLACE_THERE.sub(where, prompt, count=1)


def _drilled(drill: re.Match[str], where: str, descending: bool) -> str:
    """"which device there (has the most …)" asked of a place: the row of that kind there with the most (its own words
    for the end and the figure, when it said them)."""
    tail = (drill.group("tail") or "").strip() or f"has the {'most' if descending else 'fewest'}"
    return f"which {drill.group('dim')} {where} {tail}"


# "any of that", "none of it": what the one row the last answer led with has
OF_THAT = re.compile(r"\b(?:any|some|all|none|each)\s+of\s+(?P<it>that|this|it)\b(?!['’])", _I)
# "it" as what is had, failed, fixed: the check a ranking of checks named first ("how many stores have it")
# how many of the things in play are of a kind: "how many of them are switches", "how many are firewalls"
KIND_COUNT = re.compile(r"^\s*(?:and\s+|so\s+)?how many(?:\s+of\s+(?:them|those|these))?\s+(?:are|is|were)\b", _I)
# a condition asked of the rows shown: "which of those are high severity", "which ones are critical"
AMONG_SHOWN = re.compile(r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?which\s+(?:ones|of\s+(?:those|these|them))\s+(?:are|is|were|was)\b",
                         _I)
# "it" as what fails: a check, whatever else the last answer was about — asked everywhere, nothing else of its scope kept
FAILING_IT = re.compile(r"\bfail(?:s|ed|ing)?\s+(?P<it>it)\b(?!['’])", _I)
WIDENED = re.compile(r"\b(?:fleet[- ]?wide|network[- ]?wide|across the (?:whole |entire )?(?:fleet|network|estate)|"
                     r"everywhere|overall|in the whole (?:fleet|network)|at all sites)\b", _I)
IT_CHECK = re.compile(r"\b(?:have|has|had|fail\w*|fix\w*|with|about|affect\w*|hit\w*|remediate\w*)\s+"
                      r"(?P<it>it|(?:that|this)(?:\s+(?:one|check|rule))?)\b(?!['’])"
                      r"(?!\s+(?:is|are|was|were|has|have|had|runs?|fails?|failed)\b)", _I)  # ("fail that one too")


# "what boxes is it on", "which devices is that seen on": the devices a check or signature is found on
IT_ON = re.compile(r"\b(?:is|was)\s+(?P<it>it|that)\s+(?:(?:seen|found|present)\s+)?on\s*[?.!]*\s*$", _I)


THAT_VALUE = re.compile(r"\b(?:that|the same)(?:\s+(?:one|version|release|model|platform|code|image|software|"
                        r"family|role))?\b(?!\s+(?:is|was|has|have|are)\b)", _I)
# "… then", "back then", "at the time" closing a question: when the last answer was
THEN_ASKED = re.compile(r"\s+(?:back\s+)?(?:then|at\s+(?:that|the)\s+time)(?=\s*[?.!]*\s*$)", _I)
PAST = re.compile(r"\b(?:did|was|were|had|failed|fixed|broke|changed|passed)\b", _I)
THAT_THING = re.compile(r"\b(?:that|this|the same)\s+(?P<what>[a-z][\w-]*)\b", _I)


def _that_value(prompt: str, previous: PastTurn, model: SemanticModel) -> str | None:
    """"is that release approved?" after the devices on 16.12.4: the one value of that dimension the previous query
    kept, named ("is 16.12.4 approved?"); None when it kept none, or several."""
    query = previous.query
    if query is not None and query.group_by[:1] == ["device"] and len(query.group_by) == 2 and not query.measures \
            and len(previous.answer_rows) == 1:
        # "which other devices run that" after "what release is RTR-CORE-2 on": that release, the device left out
        m = THAT_VALUE.search(prompt)
        device = query.condition("device")
        if m is not None:
            other = f" other than {device.values[0]}" if device and len(device.values) == 1 and OTHER.search(
                prompt) else ""
            return prompt[:m.start()] + previous.answer_rows[0] + other + prompt[m.end():]
    then = THEN_ASKED.search(prompt) if query is not None and PAST.search(prompt) and not THEY_ALL.search(prompt) \
        else None  # ("what failed most on them then": an edit of the query that chose them, in that run)
    if then is not None and query is not None and len(query.months) == 1:
        # "how many config changes did it have then" after the device with the most failed logins in october: then is
        # that month (a trailing "then" of the present, "what fails there then", is no time)
        month = query.months[0]
        return prompt[:then.start()] + f" in {date(int(month[:4]), int(month[5:7]), 1).strftime('%B %Y')}" + \
            prompt[then.end():]
    if then is not None and query is not None and query.group_by == ["run"] and len(previous.answer_rows) == 1:
        # "what failed there then" after the run with the lowest pass rate at Branch-04: at Branch-04, in that run
        timed = prompt[:then.start()] + f" in the {previous.answer_rows[0]} run" + prompt[then.end():]
        place = next((c for c in query.conditions if c.dimension in PLACES and not c.negated and len(c.values) == 1),
                     None)
        return PLACE_THERE.sub(place_phrase(place.dimension, place.values), timed, count=1) if place else timed
    for m in THAT_THING.finditer(prompt):
        dim = _dimension(m.group("what"), model)
        if dim == "run" and query is not None and query.group_by == ["run"] and len(previous.answer_rows) == 1:
            # "which site had the most that month" after the month with the most: that month (or run), by name, of
            # the devices and places the runs were ranked over ("… on the firewalls")
            row = str(previous.answer_rows[0])
            named = date(int(row[:4]), int(row[5:7]), 1).strftime("%B %Y") if re.fullmatch(r"\d{4}-\d{2}", row) \
                else row
            return _kept_kind(_kept_place(prompt[:m.start()] + f"in {named}" + prompt[m.end():], query), query)
        if dim == "run" and query is not None and len(query.months) == 1 and query.group_by[:1] != ["run"]:
            # "… that month" after an answer about one month: that month, by name
            month = query.months[0]
            return prompt[:m.start()] + f"in {date(int(month[:4]), int(month[5:7]), 1).strftime('%B %Y')}" + \
                prompt[m.end():]
        condition = query.condition(dim) if query is not None and dim and dim not in ("device", "site") else None
        if condition is not None and not condition.negated and len(condition.values) == 1:
            return prompt[:m.start()] + condition.values[0] + prompt[m.end():]
    return None


def alone(prompt: str, m: re.Match[str]) -> bool:
    """Whether the words that pick a row are the whole follow-up ("top one?", "and the second one")."""
    rest = prompt[:m.start()] + " " + prompt[m.end():]
    return all(w in FILLER for w in re.findall(r"[a-z0-9][\w']*", rest.lower()))


def _named_in_its_clause(prompt: str, picked: re.Match[str], key: str) -> str | None:
    """"the third one - what does it fail?" as "what does Site-A fail?": the row named where the question's own
    clause points at it, so that the question reads whole (None when there is no such clause)."""
    if prompt[:picked.start()].strip(" ,.") not in ("", "and", "so", "ok", "okay", "now"):
        return None
    sep = re.match(r"\s*(?:[-–—:,;]|\.\s)\s*", prompt[picked.end():])
    if sep is None:
        return None
    clause = prompt[picked.end() + sep.end():]
    # "its devices" stays "<key> - what are its devices" (the asking clause reads that); "<key>'s devices" reads worse
    pronoun = re.search(r"\b(?:it|that one|this one|they|them)\b", clause, _I)
    if pronoun is None:
        return None
    return clause[:pronoun.start()] + key + clause[pronoun.end():]


KINDS = frozenset({"switch", "switches", "router", "routers", "firewall", "firewalls", "boxes", "box", "wlcs", "wlc"})


def _leftover(prompt: str, spans: Sequence[tuple[int, int]], conditions: Sequence[Condition]) -> list[str]:
    """The words of ``prompt`` no edit accounts for."""
    text = prompt
    for a, b in spans:  # blanked in place: spans may overlap ("failed checks" and "failed")
        text = text[:a] + " " * (b - a) + text[b:]
    text = TIME_WORDS.sub(" ", text)
    if any(c.dimension == "pci_scope" for c in conditions):  # "at pci sites": the whole phrase is the condition
        text = PCI_OUT.sub(" ", PCI_IN.sub(" ", text))
    values_read = {v for c in conditions for v in c.values}
    for value, pattern in (*SITE_TYPES, *SEVERITIES):  # "dc" read as the data centers, "crits" as critical
        if value in values_read:
            text = re.sub(pattern, " ", text, flags=_I)
    words = [w for w in re.findall(r"[a-z0-9][\w'.()-]*", text.lower()) if w not in FILLER]
    if any(c.negated for c in conditions):  # "drop the access switches": the kind is part of what is left out
        words = [w for w in words if w not in KINDS]
    values = [v.lower().replace("_", " ") for c in conditions for v in c.values]
    named = {part for c in conditions for part in c.dimension.split("_")}  # "high severity": the severity's own name
    return [w for w in words if w not in named and not any(w.startswith(p) for p in named if len(p) > 3) and not any(
        w.rstrip("s") in v or v in w or w.rstrip("es") in v for v in values)]


def _other_values(prompt: str, query: DataQuery, read: Sequence[Condition], model: SemanticModel) -> list[Condition]:
    """Another value, said bare, of a dimension the previous query keeps ("and high?" after critical findings): the
    reader needs more words to take "high" for a severity; an edit has the previous query's to go by."""
    found: list[Condition] = []
    for condition in query.conditions:
        dimension = model.dimensions.get(condition.dimension)
        if dimension is None or condition.negated or any(c.dimension == condition.dimension for c in read):
            continue
        values = [v for v in dimension.values if v not in condition.values and re.search(
            rf"(?<![\w-]){re.escape(v)}(?:s|\s+ones?)?(?![\w-])", prompt, _I)]
        if values:
            found.append(Condition(dimension=condition.dimension, values=values))
    return found


def _excluded(conditions: Sequence[Condition], out: Condition) -> tuple[list[Condition], bool]:
    """The conditions with ``out``'s values left out: taken from a list of the same dimension that names them, added to
    one that already leaves some out, or a condition of their own."""
    kept: list[Condition] = []
    done = False
    for c in conditions:
        if c.dimension == out.dimension and not done:
            values = [v for v in c.values if v not in out.values] if not c.negated else \
                list(dict.fromkeys([*c.values, *out.values]))
            if not values:  # every value it kept left out: nothing is left, which the answer says
                kept += [c, out]
                done = True
                continue
            done = values != c.values or c.negated
            kept.append(c.model_copy(update={"values": values}))
            continue
        kept.append(c)
    return (kept, True) if done else ([*kept, out], out not in conditions)


# "drop the switches", "remove the lab filter", "forget the stores": the filter taken off what it kept
DROP_FILTER = re.compile(r"\b(?:drop|remove|forget|clear|lose|get rid of|take off|undo)\b", _I)


# a count of a kind of thing named: a question of its own after a grouped answer, not an edit of it
COUNTED_KIND = re.compile(r"\bhow many\s+(?:[\w-]+\s+)?(?:devices|boxes|firewalls|routers|switches|wlcs|controllers|"
                          r"sites|stores|branches|datacenters|campuses)\b", _I)
# ("how many devices is that", "… are there in total": the devices behind the rows shown, an edit)
# "on each", "for each one", "each of them", "how many routers run each": a figure asked of every row the last
# answer showed
ON_EACH = re.compile(r"\beach(?:\s+(?:one|of them|of those))?\s*[?.!]*\s*$|"
                     r"\beach of (?:them|those)\s*[?.!]*\s*$", _I)
# a request that names the kind of device it lists and what they must have: a question of its own, whatever came before
KIND_ASKED = re.compile(r"^\s*(?:list|show(?:\s+me)?|give me|which|what)\s+(?:the\s+|all\s+|our\s+)?"
                        r"(?:(?!(?:has|have|had|is|are|more|fewer|less|most|fewest|one|of)\b)[\w()-]+\s+){0,2}?"
                        r"(?:devices|boxes|routers|switch(?:es)?|firewalls|wlcs|controllers)\s+(?:[\w()-]+\s+){0,3}?"
                        r"(?:with|failing|that fail|fail|having|running|run|on)\s+\S", _I)
POINTS_BACK = re.compile(r"\b(?:that|those|these|them|they|there|in total|in all|altogether|behind)\b", _I)
# "which ones", "which are they": the rows the last answer counted, listed again
# ("what are they" is what the figure counted: the checks behind "the most failed checks")
WHICH_ONES = re.compile(_LEAD + r"which\s+(?:ones|are they|were they)(?:\s+exactly)?"
                        r"\s*[?.!]*\s*$", _I)
# "what are the findings", "what are their issues": the failed checks behind a list of devices
THE_FINDINGS = re.compile(_LEAD + r"(?:what|which)\s+(?:are|were)\s+(?:the|their|those)\s+"
                          r"(?:findings|failures|issues|failed checks|problems|deviations)\s*[?.!]*\s*$", _I)
# "when was it lowest", "when did it peak" after a figure over several runs: the run where it was
WHEN_EXTREME = re.compile(_LEAD + r"(?:when|which (?:run|month|assessment))\s+(?:was|were|"
                          r"did|is|had|has|saw|sees|got|logged|recorded)\s+(?:it|that|they|this|we|the\s+[\w\s-]+?)?\s*(?:at\s+)?(?:its\s+|their\s+|"
                          r"our\s+|the\s+)?(?P<which>lowest|highest|worst|best|most|least|fewest|peak(?:ed)?)\b", _I)

# "worst month?", "the best run" said alone
EXTREME_RUN = re.compile(_LEAD + r"(?:the\s+)?(?P<which>lowest|highest|worst|best|peak)\s+(?:month|run|assessment|scan)"
                         r"\s*[?.!]*\s*$", _I)


def _when_extreme(prompt: str, query: DataQuery, model: SemanticModel) -> QueryEdit | None:
    """The run at one end of a figure shown over several runs ("pass rate trend for the firewalls" → "when was it
    lowest"): the runs as rows, ordered the way the words choose, the first kept; None for anything else."""
    m = WHEN_EXTREME.match(prompt) or EXTREME_RUN.match(prompt)
    if m is None or not query.measures or query.group_by:
        return None
    measure = query.measures[0]
    fact = model.facts[model.measures[measure].fact]
    several = len(query.runs) > 1 if fact.run else query.output == "series" and len(query.months) != 1
    if not several or model.dimension_sql("run", model.measures[measure].fact) is None:
        return None  # (a fact with a clock but no runs — events — has months as its periods)
    which = m.group("which").lower()
    if which in ("worst", "best"):
        descending = (which == "worst") == (_better(model, measure) == "lower")
    else:
        descending = which in ("highest", "most", "peak", "peaked")
    edited = query.model_copy(update={"group_by": ["run"], "order": Order(measure=measure, descending=descending),
                                      "limit": 1, "output": "list"})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"the run with the {which} {model.measures[measure].noun[0]}"])


# the words speak of what fails ("fails the most", "failing", "failed checks")
FAILS_SAID = re.compile(r"\bfail", _I)

# "and the other way round?", "vice versa" after what one side fails and the other does not
REVERSED = re.compile(_LEAD + r"(?:(?:and|what about|how about)\s+)?(?:the\s+)?(?:other way (?:round|around)|"
                      r"vice versa|reverse|opposite|other one|other side)\s*[?.!]*\s*$", _I)
# "how many checks do both fail", "which ones fail on both": what the two sides share
BOTH_FAIL = re.compile(r"\b(?:both|the two|each of them)\s+(?:of them\s+)?(?:fail|have|share)|\b(?:fail|failing|failed)\s+"
                       r"(?:on|at|in)\s+both\b|\bin common\b|\bshared?\b", _I)


def _the_two_sides(prompt: str, query: DataQuery) -> QueryEdit | None:
    """After what two devices or sites fail apart ("what does FW-1 fail that FW-2 doesn't"): the other side's own
    ("and the other way round?"), or the checks both fail ("how many checks do both fail"); None otherwise."""
    if query.output not in ("one_side", "difference") or len(query.group_by) != 2:
        return None
    pair = query.condition(query.group_by[1])
    if pair is None or len(pair.values) != 2:
        return None
    if REVERSED.match(prompt) and query.output == "one_side":
        swapped = [c.model_copy(update={"values": pair.values[::-1]}) if c is pair else c for c in query.conditions]
        return QueryEdit(query.model_copy(update={"conditions": swapped}), [], [f"what {pair.values[1]} fails alone"])
    if BOTH_FAIL.search(prompt):
        # what fails on every one of the sides: the rows failing on as many of them as there are sides
        failing = "devices_failing" if query.group_by[1] == "device" else "sites_failing"
        shared = query.model_copy(update={"measures": [failing], "group_by": query.group_by[:1], "output": "list",
                                          "bounds": [Bound(measure=failing, op="=", value=len(pair.values))]})
        return QueryEdit(DataQuery.model_validate(shared.model_dump()), [], ["what both fail"])
    return None


def edited_query(prompt: str, own: Intent, scope: dict[str, Any], previous: PastTurn | None, model: SemanticModel,
                 runs: Sequence[tuple[str, str]], places: bool = False) -> QueryEdit | None:
    """The previous query as the follow-up edits it, or None when the follow-up is no edit of it (``own``: the
    follow-up read on its own, ``scope`` its own scope; ``places``: a new place alone is an edit too — the
    follow-up resolution could not ask the question again there). An edit is always a statement the compiler can
    make: a condition the figure's table has no column for, or a bound on another table's figure, is left out and
    said (``compilable``)."""
    edit = _edited_query(prompt, own, scope, previous, model, runs, places)
    return compilable(edit, model) if edit is not None else None


def compilable(edit: QueryEdit, model: SemanticModel) -> QueryEdit | None:
    """``edit`` with what no statement can hold left out and said ("rule left out: devices are not counted by it");
    None when it still compiles to nothing."""
    try:
        compile_query(edit.query, model, "fleet")
        return edit
    except QueryError:
        pass
    try:
        fact = fact_of(edit.query, model)
    except QueryError:
        return None
    dropped = [c for c in edit.query.conditions if not c.of_devices and model.dimension_sql(c.dimension, fact) is None]
    bounds = [b for b in edit.query.bounds if b.measure in model.measures and model.measures[b.measure].fact == fact]
    query = edit.query.model_copy(update={"conditions": [c for c in edit.query.conditions if c not in dropped],
                                          "bounds": bounds})
    try:
        compile_query(query, model, "fleet")
    except QueryError:
        return None
    notes = [f"{c.dimension} {', '.join(c.values)} left out: it does not apply to {fact}" for c in dropped]
    return QueryEdit(query, [*edit.notes, *notes], edit.said)


# "what did it fix", "which ones were fixed", "what broke there" after a figure of the changes between two runs
# (or by the row it names: "what did the second one fix", "what did Site-B fix" after the top 3 sites by fixes)
CHANGED_WHAT = re.compile(_LEAD + r"(?:what|which)(?:\s+checks?|\s+ones)?\s+(?:(?:did|has|have|were|was|got)\s+)?(?:(?:it|they|"
                          r"that one|those|these|there|the (?P<nth>\w+)(?: one)?|(?P<row>[A-Za-z][\w.()-]*-[\w.()-]+))\s+)?"
                          r"(?P<how>fix|fixed|resolve|resolved|break|broke|broken|regress|regressed)\b", _I)


def _of_the_changes(query: DataQuery | None, model: SemanticModel) -> bool:
    """Whether ``query`` counts the changes between two runs (a fact set beside a baseline run)."""
    return query is not None and bool(query.measures) and model.of_changes(query.measures[0])


def _checks_behind_the_change(prompt: str, previous: PastTurn, model: SemanticModel) -> QueryEdit | None:
    """"what did it fix" after the device with the most fixes since september: the checks that device fixed between
    the same runs (the row the answer led with; "what broke" the new failures); None unless the last figure counted
    changes and the words ask what they were."""
    m = CHANGED_WHAT.match(prompt)
    query = previous.query
    if m is None or query is None or not _of_the_changes(query, model) or \
            len(re.findall(r"[\w-]+", prompt[m.end():])) > 2:
        return None  # ("what got fixed on routers outside us-east since august" asks anew)
    conditions = list(query.conditions)
    nth = ORDINAL.get((m.group("nth") or "").lower())
    named = next((r for r in previous.answer_rows if m.group("row") and str(r).lower() == m.group("row").lower()), None)
    if (m.group("nth") and nth is None) or (m.group("row") and named is None):
        return None  # ("the stores" is no row of the last answer's)
    if query.group_by and query.group_by[0] != "rule" and (nth is not None or named is not None):
        if nth is not None and nth >= len(previous.answer_rows):
            return None
        conditions.append(Condition(dimension=query.group_by[0], values=[named or previous.answer_rows[nth or 0]]))
    elif query.group_by and query.group_by[0] != "rule":
        if not previous.answer_rows or tied_rows(previous) or (query.limit != 1 and query.order is None):
            return None  # no one row led: "it" is none of them
        conditions.append(Condition(dimension=query.group_by[0], values=[query.leader or previous.answer_rows[0]]))
    fixed = m.group("how").lower().startswith(("fix", "resolv"))
    measure = "fixed_checks" if fixed else "new_failures"
    measure = measure if measure in model.measures else query.measures[0]
    edited = query.model_copy(update={"measures": [measure], "group_by": ["rule"], "conditions": conditions,
                                      "bounds": [Bound(measure=measure, op=">", value=0)], "order": None,
                                      "limit": None, "offset": 0, "leader": None, "output": "list"})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"the checks behind the {model.measures[measure].noun[1]}"])


# "the month before", "a month earlier", "the run before that", "the previous one": a time before the one asked
ONE_BEFORE = re.compile(r"\b(?:month|run|assessment|scan|one)\s+(?:before|earlier|prior)\b|\bprevious\s+(?:month|run|"
                        r"assessment|scan|one)\b", _I)


def _the_one_before(query: DataQuery, time: FrameTime, runs: Sequence[tuple[str, str]]) -> dict[str, list[str]] | None:
    """"the month before", "the run before that" said of a query about one month or one run: the month, or the run,
    before it; None when the words say another time or the query has no one time of its own."""
    if time.relative != "previous" or time.months or time.runs or time.since or time.last_n:
        return None
    if len(query.months) == 1:
        return {"months": [month_before(query.months[0])]}
    ids = [r for r, _ in runs]
    if len(query.runs) == 1 and query.runs[0] in ids and 0 < ids.index(query.runs[0]) < len(ids) - 1:
        # (before the latest run, "the one before" is the reader's own: the run before the latest)
        return {"runs": [ids[ids.index(query.runs[0]) - 1]]}
    return None


def _edited_query(prompt: str, own: Intent, scope: dict[str, Any], previous: PastTurn | None, model: SemanticModel,
                  runs: Sequence[tuple[str, str]], places: bool = False) -> QueryEdit | None:
    if previous is None or previous.query is None or not runs or len(re.findall(r"\w+", prompt)) > 14:
        return None
    behind = _checks_behind_the_change(prompt, previous, model)
    if behind is not None:
        return behind
    when = _when_extreme(prompt, previous.query, model)
    if when is not None:
        return when
    sides = _the_two_sides(prompt, previous.query)
    if sides is not None:
        return sides
    led = _things_of_the_row_led(prompt, own, scope, previous, model)
    if led is not None:
        return led
    summed = previous.query
    if SUM_OF_THE_ROWS.match(prompt) and summed.group_by and summed.measures and summed.limit is None and \
            measure_words(prompt, model)[:1] == summed.measures[:1] and model.measures[summed.measures[0]].unit == "count" \
            and all(b.op == ">" and b.value == 0 for b in summed.bounds):
        # "how many new failures is that altogether" after the routers with some: the rows' figure, added up (a bound
        # of "some" only left out rows that add nothing; "the sites with no firewalls" have devices of other kinds)
        edited = summed.model_copy(update={"group_by": [], "bounds": [], "order": None, "offset": 0, "output": "value"})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], ["the rows added up"])
    if WHAT_IT_FAILS.match(prompt) and any(model.on_rows(c.dimension) for c in previous.query.conditions):
        # "so what does FW-EDGE-2 fail" after whether it fails FW-EDGE-1's high findings (No): all it fails, asked
        # anew — not the checks or the severity the last question chose
        return None
    named_measures = measure_words(prompt, model)[:1]
    if ON_EACH.search(prompt) and previous.query.group_by and named_measures:
        # "how many devices on each" after the platforms listed: that figure for each row shown (in the latest run,
        # when it is a figure of the runs and the rows were the inventory's)
        q, each_measure = previous.query, named_measures[0]
        timed = model.facts[model.measures[each_measure].fact].run and not q.runs
        edited = q.model_copy(update={"measures": [each_measure], "output": "table", "order": None, "limit": None,
                                      "bounds": [], **({"runs": [runs[-1][0]]} if timed else {})})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"each {q.group_by[0]}"])
    if COUNTED_KIND.search(prompt) and previous.query.group_by and not OF_THEM.search(prompt) and \
            not POINTS_BACK.search(prompt):
        return None  # "how many firewalls at the stores run 9.8(4)" after a ranking of stores: a count of its own
    if KIND_ASKED.match(prompt) and not OF_THEM.search(prompt) and not POINTS_BACK.search(prompt):
        return None  # "list the wan routers with more than 20 failed checks": a kind and what it must have, its own
    if THE_FINDINGS.match(prompt) and previous.query.group_by == ["device"] and previous.query.measures and \
            model.measures[previous.query.measures[0]].fact == "results" and "failed_checks" in model.measures:
        # "list switches with critical findings at HQ" → "what are the findings": those devices' failed checks, as
        # the list chose them (its severity, its checks)
        q = previous.query
        edited = q.model_copy(update={"measures": ["failed_checks"], "group_by": ["rule"], "output": "list",
                                      "bounds": [Bound(measure="failed_checks", op=">", value=0)], "order": None,
                                      "limit": None})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], ["the failed checks of those devices"])
    if WHICH_ONES.match(prompt) and previous.query.group_by and previous.query.group_by != ["device"] and \
            previous.query.output in ("list", "table") and previous.query.limit != 1:
        # "how many sites have a pass rate over 90" → "which ones": the rows counted, every one of them
        return QueryEdit(previous.query.model_copy(update={"output": "list", "limit": None}), [], ["the rows counted"])
    query = previous.query
    time = own.frame.time
    spans: list[tuple[int, int]] = []
    said: list[str] = []
    notes: list[str] = []
    update: dict[str, Any] = {}
    measures = list(query.measures)
    order = query.order
    group = list(query.group_by)
    limit = query.limit
    output = query.output
    listed_rows: list[str] | None = None  # the devices listed last, when an edit keeps them by name
    row_condition: Condition | None = None  # the one row of the last answer an edit is about ("break it down by …")

    m = REGROUP.match(prompt)
    dim = _dimension(m.group("dim"), model) if m else None
    if m and dim is None and m.group("dim").strip().lower() in ("type", "types", "kind", "kinds"):
        # "break that down by type": a device's type, unless the rows already are of a kind of site
        dim = "site_type" if "site_type" in group or query.condition("site_type") else "device_type"
    if m and dim and dim != "run":
        if m.group("it") and limit == 1 and group and len(previous.answer_rows) >= 1 and group != [dim]:
            # "which is lowest" → "break it down by site type": that one row (a region) in its own groups
            row_condition = Condition(dimension=group[0], values=previous.answer_rows[:1])
            order = None
        group, spans, output, limit = [dim], spans + [m.span()], "table", None
        said.append(f"grouped by {dim}")
    m = None if said else REGROUP_ROW.match(prompt)
    dim = _dimension(m.group("dim"), model) if m else None
    row = next((r for r in previous.answer_rows if m and str(r).lower() == m.group("value").lower()), None)
    if m and dim and dim != "run" and row is not None and group and group != [dim]:
        row_condition = Condition(dimension=group[0], values=[row])
        group, order, spans, output, limit = [dim], None, spans + [m.span()], "table", None
        said.append(f"{row} grouped by {dim}")
    m = WHICH_ROWS.match(prompt)
    dim = _dimension(m.group("dim"), model) if m else None
    none_of = query.bound_to_none
    if m and dim and dim not in ("run", "device") and group == ["device"] and none_of and previous.answer_rows:
        # "at which sites are they" after the devices with no failed checks: where those devices are
        edited = query.model_copy(update={
            "measures": [], "group_by": [dim], "output": "list", "limit": None, "order": None, "bounds": [],
            "conditions": [*query.conditions, Condition(dimension="device", values=list(previous.answer_rows))]})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"the {dim}s of those devices"])
    if m and dim and dim not in ("run", "device") and group[:1] != [dim] and measures and \
            model.measures[measures[0]].unit == "count":
        # "at which sites" after "how many of them fail OSPF-AUTH": the sites with some, by name
        # (of the rows a ranking's cut chose, when it chose some: "what severity are they" after the top 5 checks)
        cut_by_rank = group and previous.answer_rows and (limit is not None or query.offset) and \
            query.condition(group[0]) is None
        cut = [Condition(dimension=group[0], values=list(previous.answer_rows[:limit or None]))] if cut_by_rank else []
        group, output, limit, order = [dim], "list", None, None
        bounds_asked = [Bound(measure=measures[0], op=">", value=0)]
        edited = query.model_copy(update={"group_by": group, "output": output, "limit": limit, "order": order,
                                          "bounds": bounds_asked, "offset": 0, "conditions": [*query.conditions, *cut]})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"which {dim}s"])
    m = GROUP_EXTREME.match(prompt) or BARE_EXTREME.match(prompt)
    if m and m.group("which").lower() in ("better", "worse") and (
            len(previous.answer_rows) != 2 or output in ("change", "series")):
        # "which one is better" judges two rows shown side by side; after other rows or after changes, the two it
        # judges are elsewhere (the last two answers: ``both_sides``)
        m = None
    several = next((c for c in query.conditions if not c.negated and len(c.values) > 1), None) \
        if m and not group and not m.group("dim") and OF_THEM.search(prompt) else None
    if several is not None:  # "which of them has the most" after how many devices twelve sites have: those sites
        group = [several.dimension]
    if m and (group or m.group("dim")):
        named = _dimension(m.group("dim"), model) if m.group("dim") else None
        if named not in (None, "device", "run") and group == ["device"] and previous.answer_devices and \
                MOST_OF_THEM.search(prompt):
            # "which site has the most of them" after a list of devices: those devices counted per site
            kept = [c for c in query.conditions if not model.on_rows(c.dimension) and c.dimension != "device"]
            edited = DataQuery(measures=["devices"], group_by=[named], conditions=[
                *kept, Condition(dimension="device", values=list(previous.answer_devices))],
                order=Order(measure="devices", descending=m.group("which").lower() in ("most", "highest")),
                limit=1, output="list")
            return QueryEdit(edited, [], [f"the devices listed, per {named}"])
        if named and named != "run" and named not in group:
            group = [named]
            held = query.condition(named)
            if held is not None and not held.negated and len(held.values) == 1 and not OF_THEM.search(prompt):
                # "which device had the most that month" after one device's figure: every device ranked, the one
                # asked about before is no longer the only row (nor a row asked about: "is it the one with the most")
                query = query.model_copy(update={"conditions": [c for c in query.conditions if c is not held]})
        where_they_are = named is None and group and group != ["device"] and measures == ["devices"] and any(
            b.measure == "devices" and b.op == ">" and b.value == 0 for b in query.bounds)
        if where_they_are and OF_THEM.search(prompt) and FAILS_SAID.search(prompt):
            # "which of them fails the most checks" after where the devices on 9.8(4) are: "them" are still the
            # devices (the places were where they are); what they fail is a device's
            group = ["device"]
        thing = model.counted_things(measures[0]) if measures and not group else None
        if thing in ("device", "site") and model.measures[measures[0]].fact == "results":
            # "which one fails the most checks" after how many nx-os devices fail: those devices, one row each,
            # by their failed checks (what the rows are counted by when the words name nothing else)
            group, measures = [thing], ["failed_checks"]
            update["bounds"] = []
            # the checks that chose them choose the devices, and each is ranked by all it fails ("how many firewalls
            # fail ASA-TELNET" → "which one is worst": of those eight, the worst)
            update["conditions"] = [c.model_copy(update={"of_devices": True}) if c.dimension in ("rule", "topic") and
                                    not c.negated else c for c in query.conditions]
        if group and measures and _counts_its_rows(measures[0], group[0], model) and "failed_checks" in model.measures:
            # "which branch has the most" after the share of branches with a critical failure: a branch has it or
            # not — ranked by its critical failed checks
            measures = ["failed_checks"]
        measure = order.measure if order else (measures[0] if measures else None)
        rest = prompt[m.end():]
        named_measure = measure_words(rest, model)[:1]
        if not named_measure:  # ("the most devices" is read as a count of devices with the superlative before it)
            named_measure = [x for x in measure_words(prompt[m.start("which"):], model)[:1]
                             if model.counted_things(x) in ("device", "site")]
        if not named_measure and re.search(r"\w", rest):  # "fails the most checks": the verb says which checks
            named_measure = measure_words(prompt, model)[:1]
        if named_measure and DEVICES_WITH.match(rest) and "devices_failing" in model.measures and \
                model.measures[named_measure[0]].fact == model.measures["devices_failing"].fact and \
                model.counted_things(named_measure[0]) != "device":
            named_measure = ["devices_failing"]  # "which has more devices with a critical failure": devices counted
        if named_measure and measures and model.measures[named_measure[0]].fact != model.measures[measures[0]].fact:
            # "which one hit the most devices" after the signatures matched: the devices they matched, not the
            # inventory's
            thing = model.counted_things(named_measure[0])
            named_measure = [next((name for name, x in model.measures.items() if thing and not x.where and
                                   x.fact == model.measures[measures[0]].fact and model.counted_things(name) == thing),
                                  named_measure[0])]
        if named_measure and (not measures or model.measures[named_measure[0]].fact != model.measures[
                measures[0]].fact):  # "which one has the worst pass rate" after the devices per platform: the same
            measure, measures = named_measure[0], [named_measure[0]]  # rows, by that figure
            spans.append((m.end(), len(prompt)))
        elif named_measure and measures and model.measures[named_measure[0]].fact == model.measures[measures[0]].fact:
            # "which of those has the lowest pass rate" after the stores over 36 failed checks: those, by pass rate
            measure = named_measure[0]
            measures = list(dict.fromkeys([measure, *measures]))
            spans.append((m.end(), len(prompt)))
        if measure and group:
            said_as = m.group("which").lower()
            which = COMPARATIVE.get(said_as, said_as)
            if which in ("worst", "best"):
                descending = (which == "worst") == (_better(model, measure) == "lower")
            else:  # "which one has more critical fails" of two: the one with the most
                descending = which in ("highest", "most", "more")
            order, limit, output = Order(measure=measure, descending=descending), 1, "list"
            device = query.condition("device")
            one_device = device is not None and len(device.values) == 1
            # (one of two rows "worse" than the other: by the figure they were compared on)
            if which in ("worst", "best") and said_as == which and not named_measure and \
                    model.measures[measure].unit == "count" and (
                    group == ["rule"] and one_device or group in (["device"], ["site"]) and measure in (
                        "failed_checks", "critical_findings")):
                # one device's worst check: the most severe; the worst device or site: the most critical failures,
                # then high, then all (as the reader ranks them)
                measures, order = severity_first(which == "worst")
            spans.append(m.span())
            said.append(f"the {COMPARATIVE.get(which, which)} {group[0]}")
            if len(query.runs) > 1 and query.output in ("series", "change"):
                update["runs"] = query.runs[-1:]  # "which device is responsible for most of them" after a series: now
    m = CHANGE_EXTREME.match(prompt)
    # "which type improved" after a figure per device type: a word of the grouping ("type") is the grouping
    # (no word of its own: "which improved the most" after the pass rate per region, those regions)
    dim = (group[0] if group else None) if m and not m.group("dim") else (
        _dimension(m.group("dim"), model) or (group[0] if group and m.group("dim").lower().rstrip("s") in
                                              group[0].split("_") else None)) if m else None
    if m and dim and dim != "run" and measures and model.facts[model.measures[measures[0]].fact].run and len(runs) > 1:
        # "which region dropped the most since october" after the pass rate per region: each region's change
        group, output, limit = [dim], "change", None
        order = Order(measure=measures[0], descending=True)
        spans.append(m.span())
        said.append(f"which {dim} changed most")
        if not TIME_WORDS.search(prompt):  # (the frame reads a change as since the last run: no time said)
            # the two runs the last change was between ("… between september and october" → "which firewall got
            # worse the most"); since the run the last answer was about ("… and in august?" → "which improved the
            # most"); or the last two
            # ("… got worse since september" → "and which improved?": over the same runs, first to last)
            latest = runs[-1][0]
            update["runs"] = list(query.runs) if len(query.runs) == 2 and query.output == "change" else \
                [query.runs[0], query.runs[-1]] if len(query.runs) > 2 and query.output == "series" else \
                [query.runs[0], latest] if len(query.runs) == 1 and query.runs[0] != latest else \
                [r for r, _ in runs[-2:]]
        if own.frame.direction and query.direction:  # "and which improved?" after the ones that got worse
            update["direction"] = own.frame.direction
        elif NEUTRAL_CHANGE.search(m.group(0)) and not own.frame.direction:
            update["direction"] = "either"  # "which one moved the most": by how far, whichever way
    m = SINCE_WHEN.search(prompt)
    if m and len(runs) > 1 and measures and model.facts[model.measures[measures[0]].fact].run and \
            not _leftover(prompt, [m.span()], []):
        # "since when" after what SW-HQ-CORE-2 fails: each of those checks' unbroken stretch up to the latest run
        counted = [x for x in measures if model.measures[x].unit == "count"][:1] or ["failed_checks"]
        edited = query.model_copy(update={"measures": counted, "group_by": group[:1], "bounds": [], "order": None,
                                          "limit": None, "output": "since", "runs": [r for r, _ in runs]})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], ["since when"])
    m = next((x for p in THEM if (x := p.match(prompt))), None)
    rows_m = WHICH_ROWS.match(prompt)
    if m is None and rows_m and _dimension(rows_m.group("dim"), model) == "device":
        m = rows_m  # "which devices?" after the checks failing at HQ: the devices failing them
    named = m.groupdict().get("what") or m.groupdict().get("dim") if m else None
    if m is not None and m is not rows_m and LIST_VERB.match(prompt) and not named and \
            group and query.output in ("list", "yes_no", "table") and not said:
        # "list them" after "any devices without high findings at the stores? — Yes, 6": those rows, listed — not
        # what they were counted by
        return QueryEdit(query.model_copy(update={"output": "list"}), [], ["the rows listed"])
    asked_for = "site" if m and m.groupdict().get("where") else _dimension(named, model) if named else None
    things = asked_for or (model.counted_things(measures[0]) if m and measures else None)
    # the rows shown matter where a limit or a bound chose them; every row of the kind otherwise (the conditions keep
    # them: "only the critical ones, on which devices" edits rows no answer has shown)
    chosen = bool(group) and (query.limit is not None or bool(query.offset) or any(
        not (b.op == ">" and b.value == 0) for b in query.bounds))
    value = (m.groupdict().get("value") or "").lower() if m else ""
    if m and things and not said and group[:1] != [things] and (not chosen or previous.answer_rows):
        # "38 critical failed checks" → "what are they": those checks, by name; after "which store has the most",
        # those of the stores the answer named
        rows = [r for r in previous.answer_rows if r.lower() == value] or list(previous.answer_rows)
        by_rows = bool(group) and bool(rows) and (chosen or bool(value))
        # (rows chosen for having none of something: what they have none of is no condition of their things — "how
        # many devices do they have" after the sites with no firewalls counts every device there)
        conditions = [c for c in query.conditions if not by_rows or c.dimension != group[0] and not
                      query.bound_to_none] + ([Condition(dimension=group[0], values=rows)] if by_rows else [])
        kinds = DEVICE_KINDS | {"role"}
        said_kind = [c for c in _conditions(prompt, own, scope, model) if c.dimension in kinds and not c.negated]
        if said_kind:  # "which switches were they on" after the routers' alarms: the switches' (the kind said wins)
            conditions = [c for c in conditions if c.dimension not in kinds] + said_kind
        said_place = [c for c in _conditions(prompt, own, scope, model) if c.dimension in PLACES and not c.negated]
        if said_place:  # "how many devices do they hit at HQ": there (the place said wins)
            conditions = [c for c in conditions if c.dimension not in PLACES] + said_place
        counting = (next((x for x in measures if model.counted_things(x) != things), measures[0])
                    if asked_for is None else measures[0]) if measures else None
        none_of = query.bound_to_none and by_rows
        # ("list them" after how many sites: the sites themselves, not "sites with sites"; after a list of rows with no
        # figure, the rows)
        none_of = none_of or counting is None or (model.counted_things(counting) == things and
                                                  not model.facts[model.measures[counting].fact].run)
        edited = query.model_copy(update={
            # "which sites are they at" after the devices with no failed checks: where those devices are, not where
            # something fails
            "measures": [] if none_of or counting is None else [counting], "group_by": [things],
            "conditions": conditions, "limit": None, "output": "list", "order": None,
            "bounds": [Bound(measure=counting, op=">", value=0)] if counting is not None and
            model.measures[counting].unit == "count" and not none_of else []})
        # (of rows counted by none of something or measured by a rate, the inventory's count of the things: "how many
        # boxes do they have")
        tally = None if not m.groupdict().get("count") else _counting(counting, things, model) \
            if counting is not None and not none_of and model.measures[counting].unit == "count" else \
            _counting("devices", things, model) if "devices" in model.measures else None
        if tally is not None:  # "how many devices have them": the same things, counted once each
            edited = edited.model_copy(update={"measures": [tally], "group_by": [], "bounds": [], "output": "value"})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"the {things}s counted"])
    m = HOW_MANY_OF.match(prompt)
    of_kind = _dimension(m.group("what"), model) if m else None
    # (critical failed checks are failed checks of that severity: "how many devices is that" counts the devices failing
    # with the severity held)
    severity = SEVERITY_BOUND.get(measures[0]) if measures and "failed_checks" in model.measures else None
    base = "failed_checks" if severity else measures[0] if measures else None
    held_severity = [Condition(dimension="severity", values=[severity])] if severity and \
        query.condition("severity") is None else []
    # ("how many signatures is that" after the matches by signature: the distinct ones, not the matches)
    per_kind = next((name for name, x in sorted(model.measures.items(), key=lambda kv: group == [of_kind] and not str(
                     kv[1].count).upper().startswith("DISTINCT")) if x.fact == model.measures[base].fact and
                     model.counted_things(name) == of_kind and x.where == model.measures[base].where), None) \
        if of_kind and base and (group or POINTS_BACK.search(prompt)) and (group != [of_kind] or not query.bounds) \
        else None
    if per_kind is not None and not said:
        # "how many devices is that" after the sites with devices failing SSH-V2 (or after the pass rate of production):
        # those devices, counted; after a ranking ("which role has the worst pass rate"), the devices of the rows it
        # showed — the ranking's order and cut are what chose them, and they go
        conditions = [*query.conditions, *held_severity]
        if group and query.bound_to_none and previous.answer_rows:
            # "how many devices do they have in total" after the sites with no firewalls: those sites' devices —
            # what they have none of is no condition of theirs
            conditions = [Condition(dimension=group[0], values=list(previous.answer_rows))]
        elif group and query.order is not None and query.limit is not None and previous.answer_rows and \
                not tied_rows(previous) and \
                group[0] in model.dimensions and query.condition(group[0]) is None:
            conditions.append(Condition(dimension=group[0], values=previous.answer_rows[:query.limit]))
        edited = query.model_copy(update={"measures": [per_kind], "group_by": [], "bounds": [], "order": None,
                                          "limit": None, "offset": 0, "output": "value", "conditions": conditions})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"the {of_kind}s counted"])
    widened = WIDENED.search(prompt)  # ("how many is that fleet wide" after a list at HQ: counted everywhere)
    moved = output in ("series", "change") and query.direction is not None  # ("which stores got worse": those that did)
    if HOW_MANY.match(prompt[:widened.start()] + prompt[widened.end():] if widened else prompt) and group and \
            not said and (output in ("list", "yes_no") or moved):
        kept = [c for c in query.conditions if not (widened and c.dimension in PLACES and not c.negated)]
        # (the rows that moved are counted by the same question: its lead is their count)
        edited = query.model_copy(update={"conditions": kept} if moved else {
            "output": "list", "order": None, "limit": None, "conditions": kept})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], ["how many" + (" everywhere" if widened
                                                                                          else "")])
    m = TOP.search(prompt)
    if m and _number(m.group(1) or m.group(2)) > 1 and group and measures and not said and \
            query.output in ("table", "list"):
        # "just the top 3" after a figure per device: the same rows, the first N of them by the figure
        which = re.match(r"\w+", m.group(0)).group(0).lower()  # type: ignore[union-attr]  # TOP starts with a word
        measure = order.measure if order else measures[0]
        if which in ("worst", "best"):
            descending = (which == "worst") == (_better(model, measure) == "lower")
        elif which in ("bottom", "lowest"):
            descending = not (order.descending if order else True)
        else:
            descending = order.descending if order else True
        order, limit, output = Order(measure=measure, descending=descending), _number(m.group(1) or m.group(2)), "list"
        spans.append(m.span())
        said.append(f"the {which} {limit}")
    m = ROW_REF.search(prompt)
    if m and alone(prompt, m) and group and previous.answer_rows and not said:
        # "top one?", "and the third one": that row's figures, its key kept as a condition in place of the grouping
        rows, which = previous.answer_rows, m.group("which").lower()
        index = ORDINAL.get(which, 0)
        if which in SUPERLATIVE or index >= len(rows) or (measures == [] and output != "table"):
            return None
        key = rows[index]
        conditions = [c for c in query.conditions if c.dimension != group[0]] + [
            Condition(dimension=group[0], values=[key])]
        edited = query.model_copy(update={"group_by": [], "conditions": conditions, "order": None, "limit": None,
                                          "bounds": [], "output": "value"})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"the {which} row: {key}"])
    m = FIGURE_OF_IT.match(prompt)
    if m and not group and output == "value" and measures:
        spans.append(m.span())  # "how many did it have in august" after one figure of one place: that figure, then
    elif m and group and limit == 1 and measures and previous.answer_rows and not tied_rows(previous) and not said:
        # "how many did it have in the first run" after the kind of site with the most: that row's figure — its key
        # a condition in place of the grouping — edited further by the rest ("in the first run")
        row_condition = Condition(dimension=group[0], values=previous.answer_rows[:1])
        query = query.model_copy(update={"conditions": [c for c in query.conditions if c.dimension != group[0]],
                                         "bounds": []})
        group, order, limit, output = [], None, None, "value"
        spans.append(m.span())
        said.append(f"the {query.group_by[0]}: {previous.answer_rows[0]}")
    m = STILL_LEADS.match(prompt)
    m = m if m and (m.group("it") or m.group("still")) else STILL_TRUE.match(prompt)
    if m and group and query.order and limit == 1 and measures and \
            previous.answer_rows and not tied_rows(previous) and not said:
        # "was it also worst in august?" after the platform with the lowest pass rate: whether that row leads the same
        # ranking (then, or there) — every row ranked, the answer says where it stands; "was that also true in
        # august?" asks it of the ranking as it was
        which = (m.groupdict().get("which") or "first").lower()
        measure = query.order.measure
        descending = (which == "worst") == (_better(model, measure) == "lower") if which in ("worst", "best") else \
            query.order.descending if which in ("top", "first") else which in ("highest", "most")
        order = query.order.model_copy(update={"descending": descending})
        update["leader"], output = previous.answer_rows[0], "yes_no"
        if (m.groupdict().get("still") or "").lower() == "still" and not TIME_WORDS.search(prompt) and runs and \
                query.runs and query.runs != [runs[-1][0]] and len(query.runs) == 1:
            update["runs"] = [runs[-1][0]]  # "is it still the worst?" after august: now
        spans.append(m.span())
        said.append(f"whether {previous.answer_rows[0]} is still first")
    m = SORT_END.search(prompt)
    if m and group and measures:
        # "sort worst first", "lowest first please" after a figure per group: the same rows, ordered that way by the
        # figure they show
        measure = order.measure if order is not None else measures[0]
        which = m.group("which").lower()
        worst_first = _better(model, measure) == "lower"  # the most of a failure count is the worst
        descending = {"worst": worst_first, "best": not worst_first, "highest": True, "lowest": False,
                      "most": True, "fewest": False, "least": False}[which]
        order = Order(measure=measure, descending=descending)
        spans.append(m.span())
        said.append(f"ordered {which} first")
    for pattern in (SORT, INSTEAD, ANOTHER_FIGURE):
        m = pattern.search(prompt)
        if not m:
            continue
        if pattern is ANOTHER_FIGURE and (not measures or len(m.group("what").split()) > 3 or
                                          not measure_words(m.group("what"), model)):
            continue  # "and the firewalls?": no figure named, another edit's
        named_measures = measure_words(f"how many {m.group('what')}", model) or measure_words(m.group("what"), model)
        if not named_measures:
            return None  # "sort by name": no measure the model knows
        new = named_measures[0]
        if pattern in (INSTEAD, ANOTHER_FIGURE) and measures:
            if model.measures[new].fact != model.measures[measures[0]].fact:
                return None  # another fact entirely: a question of its own
            measures = [new] + [x for x in measures[1:] if x != new]
        elif new not in measures:
            if measures and model.measures[new].fact != model.measures[measures[0]].fact:
                return None
            measures = [new] + measures
        # conditions on the checks, which chose the devices of a list of those failing them
        checks_kept = [c for c in query.conditions if model.on_rows(c.dimension) and not c.negated]
        shown = previous.answer_devices or (previous.answer_rows[:query.limit] if query.limit else [])
        if pattern is SORT and group == ["device"] and checks_kept and shown and \
                model.measures[new].fact == model.measures[measures[-1]].fact:
            # "devices failing NTP-AUTH" → "sort them by failed checks": those devices, by all their failed checks
            # (counted on NTP-AUTH alone, each fails one); the checks named chose the devices ("top 5 by critical
            # findings" → "sort them by pass rate": those five, by their pass rate over every check)
            listed_rows = list(shown)
            measures = [new]
        if order is not None or pattern is SORT:
            order = Order(measure=new, descending=_better(model, new) == "lower")
        spans.append(m.span())
        said.append(f"{'ordered' if pattern is SORT else 'measured'} by {new}")
        if not group and pattern is SORT:
            return None  # nothing listed to sort
    bounds = list(query.bounds) if listed_rows is None else []
    m = BOUND.search(prompt) or ZERO.search(prompt)
    if m and group and measures and query.bounds:
        # "and on none at all" after the checks failing on one device: another bound on the same rows
        asked = _bounds(prompt, measures, group, "list", True, bool(ZERO.search(prompt)), model)
        if asked and asked != bounds:
            bounds = asked
            spans.append(m.span())
            said.append(", ".join(b.describe() for b in asked))
    m = REST.search(prompt)
    thing = model.counted_things(measures[0]) if measures and not group and not bounds else None
    if m and thing in ("device", "site") and model.measures[measures[0]].better == "lower":
        # "which stores don't" after how many stores fail SNMP-V3-PRIV: those of the same kind failing none of it
        group, measures, output = [thing], ["failed_checks"], "list"
        bounds = [Bound(measure="failed_checks", op="=", value=0)]
        spans.append(m.span())
        said.append("the rest")
    elif m and bounds:
        flip = {"=": ">", ">": "=", "<": ">=", ">=": "<", "<=": ">"}
        bounds = [Bound(measure=b.measure, op=flip.get(b.op, b.op), value=b.value) for b in bounds]  # type: ignore[arg-type]
        spans.append(m.span())
        said.append("the rest")  # listed with their figures, the most first (no ranking was asked for)
    conditions = [*query.conditions, *([row_condition] if row_condition else [])] if listed_rows is None else [
        *(c for c in query.conditions if not model.on_rows(c.dimension) and c.dimension != "device"),
        Condition(dimension="device", values=listed_rows)]
    own_conditions = [c for c in _conditions(prompt, own, scope, model) if not c.in_measure]
    own_conditions += _other_values(prompt, query, own_conditions, model)
    fact = model.measures[measures[0]].fact if measures else None
    # a value of what the figure cannot be kept to is no condition of it: "how many did it log in october" after
    # failed logins — "log" is the verb, not the logging checks (a word left over then is no edit's)
    own_conditions = [c for c in own_conditions if fact is None or model.dimension_sql(c.dimension, fact) is not None]
    m = COMPARE_TO.search(prompt)
    beside = next((c for c in own_conditions if not c.negated and query.condition(c.dimension) is not None), None)
    if not (m and beside is not None and (not group or group == ["rule"] and beside.dimension == "device")):
        beside = None
    if beside is not None:
        # the last figure and the same figure there, side by side: one row per value of the dimension; one device's
        # failing checks beside another's: the checks they differ on
        before = query.condition(beside.dimension)
        values = list(dict.fromkeys([*(before.values if before else []), *beside.values]))
        conditions = [c for c in conditions if c.dimension != beside.dimension] + [
            Condition(dimension=beside.dimension, values=values)]
        if group:
            group, output, measures, bounds, order, limit = ["rule", "device"], "difference", ["failed_checks"], [], \
                None, None
        else:
            group, output = [beside.dimension], "table"
        spans.append(m.span())  # type: ignore[union-attr]  # a comparison was asked for
        said.append(f"beside {', '.join(beside.values)}")
    # the last answer was itself a follow-up whose words name none of its query's measures ("how does that compare to
    # last month" after a pass rate): asked again elsewhere, those words would lose the pass rate — the query is edited
    carried = previous.meta_intent == "followup_question" and bool(measures) and \
        not set(measure_words(previous.question, model)) & set(query.measures)
    # (a question that pointed back, "their pass rate", asked again there has nothing to point at: the query is edited)
    carried = carried or bool(OF_THEM.search(previous.question))
    if own_conditions and not said and not places and not carried and not (time.months or time.runs or time.relative) and all(
            c.dimension in ("site", "site_type") and not c.negated for c in own_conditions) and not OTHER.search(prompt) \
            and not ANY_OF_THEM.search(prompt):
        # only a new site or kind of site ("and at the data centers?"): the follow-up resolution asks it again there (a
        # region or a tier it does not carry: the edit sets it)
        return None
    among = AMONG_SHOWN.match(prompt)
    if among and own_conditions and group and group != ["device"] and previous.answer_rows and (
            limit is not None or query.offset):
        # "which of those are high severity" after the top 5 rules: those five rows, the ones that are — not the top 5
        # of the high ones
        conditions = [c for c in conditions if c.dimension != group[0]] + [
            Condition(dimension=group[0], values=list(previous.answer_rows))]
        limit, order, output, update["offset"] = None, None, "list", 0  # (those that are, not a ranking of them)
        bounds = [Bound(measure=measures[0], op=">", value=0)] if measures and model.measures[
            measures[0]].unit == "count" else bounds
        spans.append(among.span())
    for condition in own_conditions:
        if condition is beside:
            continue  # set beside the last one above
        held = next((c for c in conditions if c.dimension == condition.dimension and not c.negated), None)
        if condition.negated and held is not None and set(held.values) <= set(condition.values) and \
                DROP_FILTER.search(prompt):
            # "drop the switches" after the switches' figure per region: the filter taken off, every device again —
            # not the switches kept and left out at once (no rows)
            conditions = [c for c in conditions if c is not held]
            said.append(f"{condition.dimension} {', '.join(held.values)} dropped")
            continue
        if condition.negated:  # "leave out us-east": fewer rows of those kept, never a new place in place of the old
            conditions, changed = _excluded(conditions, condition)
            said += [condition.describe()] if changed else []
            continue
        other = OTHER.search(prompt)
        before = query.condition("site")
        if other and condition.dimension in PLACES - {"site"} and before is not None and not before.negated:
            # "and the other DC?" after DataCenter-1: the data centers but that one
            conditions = [c for c in conditions if c.dimension not in PLACES] + [
                condition, Condition(dimension="site", values=list(before.values), negated=True)]
            said.append(f"{condition.describe()} but {', '.join(before.values)}")
            spans.append(other.span())
            if m is not None:  # "how does that compare to the other stores": their figure, beside the last one
                spans.append(m.span())
            continue
        # a new place replaces the old ("same for DataCenter-1" after DataCenter-2, "at the stores" after a site)
        # (a kind of device replaces the kind before it: "what about switches?" after the ASAs)
        # (a region is no kind of site: "and us-west?" after the stores in us-east keeps the stores)
        replaced = PLACES if condition.dimension == "site" else {"site", "region"} if condition.dimension == "region" \
            else PLACES - {"region"} if condition.dimension in PLACES else DEVICE_KINDS \
            if condition.dimension in DEVICE_KINDS else {condition.dimension}
        if OF_THEM.search(prompt):  # "how many of them are in us-west" after the stores: those stores there, narrowed
            replaced = {condition.dimension}
        kept = [c for c in conditions if c.dimension not in replaced]
        if kept != conditions and condition.dimension != "device" and not model.on_rows(condition.dimension):
            # "what about staging" after the production devices listed: those devices were production's
            kept = [c for c in kept if not (c.dimension == "device" and len(c.values) > 1)]
        split = query.condition(condition.dimension)
        if split is not None and split.split:  # "and for the routers?" after the switches vs the rest: routers vs it
            condition = condition.model_copy(update={"split": True})
        if kept != conditions or condition not in conditions:
            said.append(condition.describe())
        conditions = kept + [condition]
    kind_count = KIND_COUNT.match(prompt)
    # (or of a place, after the releases they run: "how many of them are in us-west" — a release is in no region)
    if kind_count and group and group != ["device"] and any(
            (c.dimension in DEVICE_KINDS | {"role"} or group[0] in VALUE_ROWS and c.dimension in PLACES) and
            not c.negated for c in own_conditions):
        # "how many of them are switches" after the sites of some devices: those devices of that kind, counted (a
        # site is no switch)
        # (the devices the rows counted, when they counted devices: "how many of them are routers" after the sites
        # of the devices failing SSH-V2 counts those failing it)
        fact = model.measures[measures[0]].fact if measures else None
        counter = measures[0] if measures and model.counted_things(measures[0]) == "device" else next(
            (name for name, x in model.measures.items() if fact is not None and x.fact == fact and
             model.counted_things(name) == "device" and not x.where), "devices")
        measures, group, output, order, limit, bounds = [counter], [], "value", None, None, []
        spans.append(kind_count.span())
        said.append("the devices counted")
    elif kind_count and group[:1] == ["device"] and not measures and own_conditions and "devices" in model.measures:
        # "how many of them are in us-east" after the releases of some devices: those devices there, counted (not
        # their releases looked up again)
        measures, group, output, order, limit, bounds = ["devices"], [], "value", None, None, []
        spans.append(kind_count.span())
        said.append("the devices counted")
    counted_there = COUNT_THERE.match(prompt)
    if counted_there and group and limit == 1 and order is not None and measures and said and not KIND_COUNT.match(
            prompt):
        # "and how many at the stores" after the site with the most config changes: how many there, not which
        # store has the most
        group, output, order, limit, bounds = [], "value", None, None, []
        spans.append(counted_there.span())
    sides_split = {c.dimension for c in query.conditions if c.split}  # ("and for the routers?" after "switches vs the rest")
    kept_row = next((c for c in own_conditions if group and c.dimension == group[0] and not c.negated and
                     len(c.values) == 1 and c is not beside and c.dimension not in sides_split), None)
    things = model.counted_things(measures[0]) if measures else None
    ones = ONES_LISTED.match(prompt)
    if kept_row is not None and ones and things and things in model.dimensions and things != group[0]:
        # "list the ones in us-east" after the regions with the most devices failing a check: those devices there
        measures, group, output, order, limit = measures[:1], [things], "list", None, None
        bounds = [Bound(measure=measures[0], op=">", value=0)]
        spans.append(ones.span())
        said.append(f"the {things}s counted")
    elif (listing := ones or WHICH_OF.match(prompt)) and not group and things and things in model.dimensions and \
            output == "value":
        # "list the ones in us-west" after how many routers fail SNMP-V3-PRIV, "which of them are firewalls" after on
        # how many devices critical signatures matched: the devices counted, by name
        measures, group, output, order, limit = measures[:1], [things], "list", None, None
        bounds = [Bound(measure=measures[0], op=">", value=0)]
        spans.append(listing.span())
        said.append(f"the {things}s counted")
    if kept_row is not None and measures and not said[:-1] and output in ("table", "list"):
        # "just production" after the pass rate per environment: that row's figure, not a table of one row
        group, output, order, limit = [], "value", None, None
    elif kept_row is not None and counted_there and not measures and "devices" in model.measures:
        # "how many on 9.8(4)" after the releases the firewalls run: the devices on that one, counted (not the one
        # release named)
        measures, group, output, order, limit, bounds = ["devices"], [], "value", None, None, []
        spans.append(counted_there.span())
    if any(c.dimension == "severity" for c in own_conditions):
        # "and high?" after "critical findings": the failed checks of the severity now kept, not the critical ones
        bound_to = set(SEVERITY_BOUND)
        swap = {m: "failed_checks" for m in measures if m in bound_to}
        if swap:
            measures = list(dict.fromkeys(swap.get(m, m) for m in measures))
            order = order.model_copy(update={"measure": swap.get(order.measure, order.measure), "then": [
                t for t in order.then if t not in bound_to]}) if order is not None else None
            bounds = [b.model_copy(update={"measure": swap.get(b.measure, b.measure)}) for b in bounds]
    earlier = _the_one_before(query, time, runs) if ONE_BEFORE.search(prompt) else None
    if earlier is not None:
        # "and the month before?" after the site with the most failed logins in october: september, the month before
        # the one asked (not the one before the latest run)
        update.update(earlier)
        said.append("the one before: " + ", ".join(earlier.get("months") or earlier.get("runs") or []))
    elif (time.months or time.runs or time.relative or time.since or time.last_n or FIRST_RUN.search(prompt)) and (
            "runs" not in update or TIME_WORDS.search(prompt)):
        read, missing = _time(prompt, own, runs, model.measures[measures[0]].fact if measures else "devices", model)
        if missing:  # no run then: the answer says so and names the runs there are, never another run's figure
            notes.append("no run in " + ", ".join(missing))
            update["runs"] = read.get("runs", [])
        elif read.get("runs") and read["runs"] != query.runs:
            compared = COMPARE_TO.search(prompt)
            if compared and beside is None and group[:1] not in (["rule"], ["device"]):
                # "how does that compare to last month": the last figure beside the same figure then, oldest first;
                # per region, each region's change (checks or devices compared are the comparison tools' answer: the
                # total's change, then each device's)
                order_of = {r: i for i, (r, _) in enumerate(runs)}
                read["runs"] = sorted({*read["runs"], *query.runs}, key=lambda r: order_of.get(r, -1))
                output = "change" if group else "series"
                spans.append(compared.span())
            update["runs"] = read["runs"]
            said.append("runs " + " → ".join(read["runs"]))
            if len(read["runs"]) == 1 and output in ("series", "change"):
                output = "table" if group else "value"
        elif read.get("months") and read["months"] != query.months:
            update["months"] = read["months"]
            said.append("months " + ", ".join(read["months"]))
    now = NOW.search(prompt)
    latest = runs[-1][0]
    per_run = group == ["run"] and query.runs and latest not in query.runs  # ("and how many now" after the worst month)
    if now and not said and query.runs and query.runs != [latest] and (len(query.runs) == 1 or per_run) and \
            "runs" not in update and not TIME_WORDS.search(prompt[:now.start()] + " " + prompt[now.end():]):
        # "and how many fail it now" after a figure of august: the same figure in the latest run
        update["runs"] = [latest]
        if per_run:
            group, order, limit, output = [], None, None, "value"
        spans.append(now.span())
        said.append(f"runs {latest}")
    elif now and said and update.get("runs") in (None, [latest]) and output not in ("series", "change") and measures and \
            model.facts[model.measures[measures[0]].fact].run and \
            not TIME_WORDS.search(prompt[:now.start()] + " " + prompt[now.end():]):
        # "which branch is lowest right now" after the branches' series: the ranking in the latest run
        update["runs"] = [latest]
        spans.append(now.span())
    if not said and not notes:
        return None
    if ANY_OF_THEM.search(prompt) and output == "value" and not group and measures and \
            model.measures[measures[0]].unit == "count" and YES_NO_ASKED.match(prompt):
        output = "yes_no"  # "any of those at the datacenters?" after how many devices run 16.9.4: whether any is
        things = model.counted_things(measures[0])
        if things in ("device", "site") and things in model.dimensions:  # … and which: a yes is proved by its rows
            group, bounds = [things], [Bound(measure=measures[0], op=">", value=0)]
    # (the words ask whether, whatever else the frame took them for: "any of them in us-west?")
    if own.frame.ask in ("yes_no", "not_answerable") and own.frame.polar and output == "list" and \
            YES_NO_ASKED.match(prompt) and group[:1] in (["device"], ["site"], ["rule"]):
        output = "yes_no"  # "any of them in the lab?" after a list: whether any is, then which
    elif own.frame.ask == "list" and not own.frame.polar and output == "yes_no" and group and \
            LIST_ASKED.search(prompt):  # ("what about high" after "is it failing anything critical": whether, again)
        output = "list"  # "which ones are high" after "is any of it critical": which, not whether
    read_fact = model.facts[model.measures[measures[0]].fact] if measures else None
    if read_fact is not None and read_fact.run and not update.get("runs", query.runs) and not notes:
        update["runs"] = [runs[-1][0]]  # a list of the inventory sorted by failed checks: the latest run's
    # the words of what the query already counts ("and by high findings?" after critical findings ranked) are no ask
    # of their own
    failures = {"failed_checks", "critical_findings", "high_findings", "devices_failing", "sites_failing"}
    counted_now = set(measures) | (failures if set(measures) & failures else set())
    spans += [w.span() for word, name in model.measure_words if name in counted_now
              for w in model.word_patterns[word].finditer(prompt)]
    if set(measures) & failures:  # "and how many fail it now": the failing the query counts
        spans += [w.span() for w in re.finditer(r"\bfail(?:s|ed|ing)?\b", prompt, _I)]
        # ("fails the most checks": the checks failed are what it counts, not a list of checks)
        spans += [w.span(1) for w in re.finditer(r"\bfail(?:s|ed|ing)?\s+the\s+(?:most|fewest|least)\s+(checks)\b",
                                                 prompt, _I)]
    same = SAME_ONES.search(prompt)
    if same and group and group != ["device"] and previous.answer_rows and \
            any(c.dimension in ("device", "site") and not c.negated for c in own_conditions):
        # "does FW-EDGE-2 have the same ones" after FW-EDGE-1's high findings: those rows, asked of the other one
        conditions = [c for c in conditions if c.dimension != group[0]] + [
            Condition(dimension=group[0], values=list(previous.answer_rows))]
        spans += [same.span(), *(w.span() for w in HAS_VERB.finditer(prompt))]
        said.append(f"the same {group[0]}s")
    if group and OF_THEM.search(prompt):  # "which of those sites are in us-east" after sites: the rows' own noun
        spans += [w.span() for word, name in model.dimension_words if name == group[0]
                  for w in model.word_patterns[word].finditer(prompt)]
    if _leftover(prompt, spans, own_conditions):
        return None  # it asks something besides the edits: a question of its own
    if any(x.startswith("measured by") for x in said) and IT.search(prompt) and group in (["rule"], ["signature"]) and \
            measures and model.measures[measures[0]].unit != "count":
        # "and its pass rate?" after whether one device fails anything high: the device's figure — the checks it
        # failed (and their severity) were what the last answer listed, not a part of the device
        group, bounds, order, limit, output = [], [], None, None, "value"
        conditions = [c for c in conditions if not model.on_rows(c.dimension)]
    if measures:  # a bound on a figure of another fact than the one now measured ("list them" → "which has the best
        #           pass rate": the sites counted were its rows, not a figure of theirs) no longer bounds anything
        fact = model.measures[measures[0]].fact
        bounds = [b for b in bounds if b.measure in model.measures and model.measures[b.measure].fact == fact]
    edited = query.model_copy(update={"measures": measures, "group_by": group, "conditions": conditions,
                                      "bounds": bounds, "order": order, "limit": limit, "output": output, **update})
    # ("and is Lab-1 the one with the most" after whether HQ was: the ranking held to one row asks whether it leads)
    return QueryEdit(DataQuery.model_validate(edited.model_dump()).asked_of_its_row(), notes, said)


# what kind of device a condition keeps: a new one replaces the one before ("what about switches?" after the ASAs)
DEVICE_KINDS = frozenset({"device_type", "platform", "product_family", "model"})
# a figure asked of the one row the last answer named, with no measure of its own: "how many did it have in august",
# "what was it last month", "and what does that one score now"
FIGURE_OF_IT = re.compile(r"^\s*(?:and|so|ok|then)?[\s,]*(?:how many|how much|what)\s+(?:(?:did|does|do)\s+(?:it|that one|"
                          r"that)\s+(?:have|had|get|got|score|show|log|make|see|record|generate|throw)\b|(?<=how many )(?:did|does|do)\s+(?:it|that one|that)\s+fail(?:ed)?\b|(?:was|is|were)\s+(?:it|that one|that)\b(?=\s*(?:$|"
                          r"[?.!,]|(?:in|on|at|for|then|back|last|during)\b)))", _I)
# whether the row named last still leads: "was it also worst in august?", "is it still the lowest", "still the top one?"
STILL_LEADS = re.compile(r"^\s*(?:and|so|ok|then|but)?[\s,]*(?:(?P<it>(?:is|was|were|are)\s+(?:it|that one|that|they))\s+)?"
                         r"(?P<still>also|still|again)?\s*(?:the\s+)?(?P<which>worst|best|lowest|highest|most|fewest|"
                         r"top|first)\b(?:\s+(?:one|1))?", _I)
# whether what the last answer said of its row still holds: "was that also true in august?", "still the case?"
STILL_TRUE = re.compile(r"^\s*(?:and|so|ok|then|but)?[\s,]*(?:(?:is|was|were|are)\s+(?:it|that|this|they)\s+)?"
                        r"(?:also|still)\s+(?:true|the case|so)\b", _I)
# "the other DC", "the other stores": a place of the same kind as the one asked before, but not it
OTHER = re.compile(r"\b(?:the\s+)?other\b", _I)
# "how many of them fail OSPF-AUTH" after "how many nexus switches do we have": a question of its own, among those
# "whats their pass rate" after a count of core routers: a figure of those devices
# ("how many devices do they have between them" after the sites under 70%: those sites' devices)
OF_THEM = re.compile(r"\b(?:of|among|amongst|between)\s+(?:them|those|these|they)\b|\btheir\b|"
                     r"\b(?:do|did|does)\s+(?:they|those|these)\s+(?:have|hold|contain|run)\b", _I)


# the rows counted are devices: "more devices with a critical failure", "the most boxes failing NTP-AUTH"
DEVICES_WITH = re.compile(r"^\s*(?:devices|boxes|hosts)\s+(?:with|that|failing|having|which)\b", _I)
# "their pass rate" after a list of sites is each one's; "their average", "in total" one figure for them all
EACH_OF_THEIRS = re.compile(r"\b(?:their|each(?: of them)?|per (?:one|site|each))\b", _I)
EACH_DEVICE_AT_MOST = 20  # devices listed past this are one figure for them all: a table of 80 answers nothing
POOLED = re.compile(r"\b(?:average|avg|mean|overall|total|combined|together|in all|altogether|as a group)\b", _I)


def within_last(prompt: str, own: DataQuery, previous: PastTurn | None, model: SemanticModel,
                implied: bool = False) -> QueryEdit | None:
    """The question read on its own, asked of the devices the previous query was about ("of them", "among those"; or
    ``implied``: "how many fail OSPF-AUTH" after how many leaf switches there are): their conditions on devices and
    places added to its own (a check or a severity the previous query counted is not a condition on the devices);
    None when the previous query kept none it does not already have."""
    if previous is None or previous.query is None or not (implied or OF_THEM.search(prompt)):
        return None
    kept = [c for c in previous.query.conditions if not model.on_rows(c.dimension) and not c.in_measure
            and own.condition(c.dimension) is None]
    grouped = previous.query.group_by[:1]
    if grouped and grouped[0] not in ("device", "rule", "run") and not model.on_rows(grouped[0]) and \
            previous.answer_rows and own.condition(grouped[0]) is None and own.group_by[:1] != grouped:
        # "how many of those do we have" after "router has the lowest pass rate": the rows answered are "those" (after
        # a ranking whose lead named its first row, "which release runs on the most devices", that row)
        led = previous.query.order is not None and re.search(
            rf"^\*\*{re.escape(str(previous.answer_rows[0]))}\*\* (?:has|is)\b", previous.answer_excerpt, re.M)
        kept = [c for c in kept if c.dimension != grouped[0]] + [
            Condition(dimension=grouped[0], values=list(previous.answer_rows[:1] if led else previous.answer_rows))]
    if not kept:
        return None
    measures = list(own.measures)
    each = grouped and grouped[0] not in ("device", "rule", "run") and len(previous.answer_rows) > 1 and \
        not own.group_by and measures and EACH_OF_THEIRS.search(prompt) and not POOLED.search(prompt)
    if each:
        # "what was their pass rate in august" after the sites under 70%: each site's, not one figure for them all
        series = own.output in ("series", "change") and (OVER_TIME.search(prompt) or re.search(r"\bsince\b", prompt,
                                                                                              _I))
        # (a month said after the latest run is that month, not a series to now: "and their pass rate in september?")
        runs = own.runs if series or len(own.runs) < 2 else own.runs[:1]
        edited = own.model_copy(update={"conditions": [*own.conditions, *kept], "group_by": grouped, "runs": runs,
                                        "output": own.output if series else "table"})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"each {grouped[0]} listed"])
    thing = model.counted_things(previous.query.measures[0]) if previous.query.measures else None
    if thing in ("device", "site") and not own.group_by and ZERO.search(prompt):
        # "how many of them pass all their checks" after a count of firewalls: those failing none, named and counted
        edited = own.model_copy(update={"conditions": [*own.conditions, *kept], "measures": ["failed_checks"],
                                        "group_by": [thing], "output": "list",
                                        "bounds": [Bound(measure="failed_checks", op="=", value=0)]})
        return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], ["of them: " + "; ".join(
            c.describe() for c in kept)])
    if measures and thing and model.counted_things(measures[0]) != thing and own.group_by != [thing] and \
            model.measures[measures[0]].unit == "count" and (measures[0] not in measure_words(prompt, model) or
                                                              COUNT_AMONG.search(prompt)):
        # ("their pass rate" is a rate of their checks; "how many failed checks do they have" counts what it names)
        # "how many of them fail OSPF-AUTH" after a count of switches: switches are counted, not their failed checks
        was = measures[0]
        # ("how many of them have a critical finding" after how many tier 3 sites: the sites failing a critical check)
        held = own.condition("severity")
        severity = SEVERITY_BOUND.get(was) if held is None or held.values == [SEVERITY_BOUND.get(was)] else None
        measures[0] = _counting(was, thing, model) or (
            _counting("failed_checks", thing, model) if severity else None) or was
        if severity and measures[0] != was and held is None:
            own = own.model_copy(update={"conditions": [*own.conditions, Condition(dimension="severity",
                                                                                    values=[severity])]})
        if own.order is not None and own.order.measure == was:  # ("what do they fail most": ranked by that count)
            own = own.model_copy(update={"order": own.order.model_copy(update={"measure": measures[0]})})
    edited = own.model_copy(update={"conditions": [*own.conditions, *kept], "measures": measures})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], ["of them: " + "; ".join(
        c.describe() for c in kept)])


def among_listed(own: DataQuery, previous: PastTurn, model: SemanticModel, prompt: str = "") -> QueryEdit | None:
    """The question read on its own, asked of the devices the last answer listed ("their average pass rate" after the
    wan routers at the branches): the conditions that chose them when they were all the list was (so that "and the
    ones at the stores?" can move them), else the devices by name — each device's figure where ``prompt`` asks theirs
    of a short list; None when it names devices of its own."""
    devices, last = list(previous.answer_devices), previous.query
    if not devices or own.condition("device") is not None:
        return None
    chosen_by = [] if last is None or last.bounds or any(model.on_rows(c.dimension) or c.in_measure or c.of_devices
                                                         for c in last.conditions) else \
        [c for c in last.conditions if own.condition(c.dimension) is None]
    kept = chosen_by or [Condition(dimension="device", values=devices)]
    # "whats their pass rate" after three controllers listed: each one's, while a reader can take them one by one (a
    # rate: their counts add up to the total a count leads with; "overall", "average" pool them)
    each = 1 < len(devices) <= EACH_DEVICE_AT_MOST and not own.group_by and own.measures and \
        model.measures[own.measures[0]].unit == "percent" and \
        EACH_OF_THEIRS.search(prompt) is not None and not POOLED.search(prompt) and own.output == "value"
    edited = own.model_copy(update={"conditions": [*own.conditions, *kept],
                                    **({"group_by": ["device"], "output": "table"} if each else {})})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"of the {len(devices)} devices listed"])


# "which improved more", "which one is worse", "which of the two has more critical findings": a choice between the
# things the last two answers were about
WHICH_OF_TWO = re.compile(r"^\s*(?:and\s+|so\s+|ok(?:ay)?,?\s+)?which(?:\s+(?:one|of (?:the two|them|those|these|both)))?"
                          r"\s+(?P<rest>.*)$", _I)


# "how many fail both", "which devices have both" after two answers about two checks: the devices failing each
BOTH_CHECKS = re.compile(r"\bboth\b|\bin common\b|\bthe two of them\b", _I)


def both_checks(prompt: str, last: PastTurn, before: PastTurn | None) -> QueryEdit | None:
    """The devices failing both checks of the last two answers ("how many devices fail SNMP-RW" → "and SNMP-ACL?" →
    "how many fail both"): each device fails a check once a run, so failing both is failing two of the two."""
    if not BOTH_CHECKS.search(prompt) or before is None or last.query is None or before.query is None:
        return None
    q, p = last.query, before.query
    mine, theirs = q.condition("rule"), p.condition("rule")
    if mine is None or theirs is None or mine.negated or theirs.negated or mine.values == theirs.values or \
            [c for c in q.conditions if c is not mine] != [c for c in p.conditions if c is not theirs]:
        return None
    rules = list(dict.fromkeys([*theirs.values, *mine.values]))
    conditions = [c for c in q.conditions if c is not mine] + [Condition(dimension="rule", values=rules)]
    edited = DataQuery(measures=["failed_checks"], group_by=["device"], conditions=conditions, runs=q.runs[-1:],
                       bounds=[Bound(measure="failed_checks", op=">=", value=len(rules))], output="list")
    return QueryEdit(edited, [], [f"failing all of {', '.join(rules)}"])


def both_places(prompt: str, last: PastTurn, before: PastTurn | None) -> QueryEdit | None:
    """The checks failing at every place of the last two answers ("what fails at Branch-07" → "and at Branch-09?" →
    "which checks fail at both"): the two asked the same of one site or device each; a check fails at both when the
    sites (devices) failing it are all of them."""
    if not BOTH_CHECKS.search(prompt) or last.query is None:
        return None
    q = last.query
    for dim, counted in (("site", "sites_failing"), ("device", "devices_failing")):
        side = q.condition(dim)
        if side is not None and not side.negated and len(side.values) >= 2 and q.group_by == [dim] and q.runs:
            # "summarize Store-47" → "compare to Store-48" → "which checks fail at both": the two set side by side
            others = [c for c in q.conditions if c is not side]
            edited = DataQuery(measures=[counted], group_by=["rule"], runs=q.runs[-1:], output="list",
                               conditions=[*others, Condition(dimension=dim, values=list(side.values))],
                               bounds=[Bound(measure=counted, op=">=", value=len(side.values))])
            return QueryEdit(edited, [], [f"failing at all of {', '.join(side.values)}"])
    if before is None or before.query is None or q.group_by[:1] != ["rule"]:
        return None  # (what fails at each: "and in october for both" after failed logins is each one's figure)
    p = before.query
    for dim, counted in (("site", "sites_failing"), ("device", "devices_failing")):
        mine, theirs = q.condition(dim), p.condition(dim)
        if mine is None or theirs is None or mine.negated or theirs.negated or mine.values == theirs.values or \
                [c for c in q.conditions if c is not mine] != [c for c in p.conditions if c is not theirs]:
            continue
        places = list(dict.fromkeys([*theirs.values, *mine.values]))
        conditions = [c for c in q.conditions if c is not mine] + [Condition(dimension=dim, values=places)]
        edited = DataQuery(measures=[counted], group_by=["rule"], conditions=conditions, runs=q.runs[-1:],
                           bounds=[Bound(measure=counted, op=">=", value=len(places))], output="list")
        return QueryEdit(edited, [], [f"failing at all of {', '.join(places)}"])
    return None


# "for both", "for each of them", "for the two": each of the last two answers' values, side by side
FOR_BOTH = re.compile(r"\b(?:for|of|on|at|with)\s+(?:both|each|the two|the pair)(?:\s+of\s+(?:them|those))?\b", _I)


def for_both(prompt: str, last: PastTurn, before: PastTurn | None) -> tuple[str, PastTurn] | None:
    """The last answer's query over both values of the last two answers when they differ in one ("failed logins on
    FW-1 in september" → "and FW-2?" → "and in october for both"): one row per value, the words left to edit it
    further; None otherwise."""
    m = FOR_BOTH.search(prompt)
    if m is not None and last.query is not None and last.query.output in ("series", "change") and \
            WHICH_OF_TWO.match(prompt) and which_way(m.string[m.end():]) is not None:
        return None  # "which of the two improved more" after two series: the one that moved (``both_sides``)
    if m is None or before is None or last.query is None or before.query is None or \
            last.query.group_by != before.query.group_by or last.query.measures != before.query.measures:
        return None
    if last.query.group_by and not m.group(0).lower().startswith("for"):
        return None  # "which checks fail at both": those the two lists share (``both_lists``), not all of theirs
    q, p = last.query, before.query
    differ = [c for c in q.conditions if c not in p.conditions]
    if len(differ) != 1 or len(differ[0].values) != 1 or differ[0].negated:
        return None
    other = p.condition(differ[0].dimension)
    if other is None or len(other.values) != 1 or other.negated:
        return None
    dim = differ[0].dimension
    both = [c for c in q.conditions if c != differ[0]] + [Condition(dimension=dim, values=[*other.values,
                                                                                          *differ[0].values])]
    # two figures: one row each; two lists ("routers failing OSPF-AUTH in us-central" → "and in us-west" → "how many
    # in total for both"): the rows of both
    merged = q.model_copy(update={"conditions": both} if q.group_by else {"group_by": [dim], "conditions": both,
                                                                          "output": "table"})
    rest = (prompt[:m.start()] + prompt[m.end():]).strip()
    return rest, last.model_copy(update={"query": DataQuery.model_validate(merged.model_dump())})


def both_lists(prompt: str, last: PastTurn, before: PastTurn | None) -> QueryEdit | None:
    """The rows the last two answers both listed ("top 3 rules failing in us-east" → "and us-west?" → "which ones are in
    both"): the last query kept to the rows of its kind the answer before also showed; None when the two answers
    listed different kinds of rows."""
    if not BOTH_CHECKS.search(prompt) or before is None or last.query is None or before.query is None or \
            not last.query.group_by or last.query.group_by[:1] != before.query.group_by[:1] or \
            not last.answer_rows or not before.answer_rows:
        return None
    dim = last.query.group_by[0]
    common = [r for r in last.answer_rows if r in before.answer_rows]
    if not common:
        return None  # nothing in common: the edit would list every row (the reading of the words says "none")
    conditions = [c for c in last.query.conditions if c.dimension != dim] + [Condition(dimension=dim, values=common)]
    edited = last.query.model_copy(update={"conditions": conditions, "limit": None, "offset": 0, "order": None,
                                           "output": "list"})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"in both answers: {', '.join(common)}"])


# "so better or worse", "did it improve": the change between the runs of the last two answers
BETTER_OR_WORSE = re.compile(_LEAD + r"(?:(?:is|was)\s+(?:that|it)\s+|(?:did|has)\s+(?:it|that)\s+"
                             r"(?:get|got|gotten)?\s*)?(?:better or worse|worse or better|better|worse|improv\w*|"
                             r"up or down)\s*[?.!]*\s*$", _I)


def between_runs(prompt: str, last: PastTurn, before: PastTurn | None) -> QueryEdit | None:
    """"how did us-west do in september" → "and in november" → "so better or worse" (or "which is higher"): the same
    figures of the two runs, as a change; None unless the last two queries differ in their run alone."""
    which = WHICH_OF_TWO.match(prompt)
    judged = BETTER_OR_WORSE.match(prompt) or (which is not None and which_way(which.group("rest")) is not None)
    if not judged or before is None or last.query is None or before.query is None:
        return None
    q, p = last.query, before.query
    if q.group_by or q.measures != p.measures or q.conditions != p.conditions:
        return None
    # the runs, or the months of a fact timed by its own clock ("failed logins in september" → "and october?")
    field = "runs" if q.runs else "months"
    mine, theirs = getattr(q, field), getattr(p, field)
    if len(mine) != 1 or len(theirs) != 1 or mine == theirs:
        return None
    periods = sorted([theirs[0], mine[0]])  # (run ids and months sort by their date)
    # "which month had more": the one with more, first (a yes/no of two periods with no way of getting better says
    # which has more); "better or worse", "which improved": the change
    more_or_less = which is not None and which_way(which.group("rest")) in ("more", "less")
    output = "yes_no" if more_or_less else "change" if field == "runs" else "series"
    edited = q.model_copy(update={field: periods, "output": output})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"{periods[0]} → {periods[1]}"])


def changed_between(prompt: str, last: PastTurn, before: PastTurn | None, model: SemanticModel) -> QueryEdit | None:
    """"how many devices failed NTP-AUTH in august" → "and now" → "which ones got fixed": the things the figure counted
    (devices, sites) that fixed (or broke) what it counted between the two runs the last two answers were of; None
    unless the last two queries differ in their run alone."""
    m = CHANGED_WHAT.match(prompt)
    if m is None or before is None or last.query is None or before.query is None or \
            len(re.findall(r"[\w-]+", prompt[m.end():])) > 2:
        return None
    q, p = last.query, before.query
    if q.group_by or q.measures != p.measures or q.conditions != p.conditions or len(q.runs) != 1 or \
            len(p.runs) != 1 or q.runs == p.runs or not q.measures or _of_the_changes(q, model):
        return None
    fixed = m.group("how").lower().startswith(("fix", "resolv"))
    measure = "fixed_checks" if fixed else "new_failures"
    things = model.counted_things(q.measures[0])
    if measure not in model.measures or things not in model.dimensions:
        return None
    runs = sorted([p.runs[0], q.runs[0]])  # (run ids sort by their date)
    edited = q.model_copy(update={"measures": [measure], "group_by": [things], "runs": runs, "output": "list",
                                  "bounds": [Bound(measure=measure, op=">", value=0)], "order": None, "limit": None})
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [],
                     [f"the {things}s with {model.measures[measure].noun[1]} {runs[0]} → {runs[1]}"])


def both_sides(prompt: str, last: PastTurn, before: PastTurn | None, model: SemanticModel,
               own: DataQuery | None = None) -> QueryEdit | None:
    """The last two answers' query set side by side when they differ in one value ("pass rate trend at Store-40" →
    "and Store-41?" → "which improved more"): one row per value, ordered the way the words choose — by what they
    name when they name another figure of the same rows ("which one has fewer high findings", read as ``own``);
    None otherwise."""
    m = WHICH_OF_TWO.match(prompt)
    if m is None or before is None or last.query is None or before.query is None:
        return None
    rest = m.group("rest")
    way = which_way(rest)
    q, p = last.query, before.query
    if way is None or q.group_by != p.group_by or q.measures != p.measures or not q.measures or q.output != p.output:
        return None
    if q.group_by:  # what fails at HQ, then at Lab-1 → "which is worse": the two places by their totals
        if q.output in ("series", "change") or way not in ("better", "worse"):
            return None  # ("which has more" after two lists: more rows, another question)
        q = q.model_copy(update={"group_by": [], "bounds": [], "order": None, "limit": None, "output": "value"})
    differ = [c for c in q.conditions if c not in p.conditions]
    if len(differ) != 1 or len(differ[0].values) != 1 or differ[0].negated:
        return None
    other = p.condition(differ[0].dimension)
    if other is None or len(other.values) != 1 or other.negated or [c for c in p.conditions if c != other] != [
            c for c in q.conditions if c != differ[0]]:
        return None
    dim = differ[0].dimension
    noun = re.match(r"\s*([a-z][\w-]*)", rest, _I)
    kind = None if noun is None else _dimension(noun.group(1), model) or _dimension(noun.group(1) + "s", model)
    if kind not in (None, dim):  # ("which leaf has the lowest" after the spines and the leafs: a device)
        return None  # "which devices there have fewer failures" after two sites: rows of another kind, not one side
    conditions = [c for c in q.conditions if c != differ[0]] + [
        Condition(dimension=dim, values=[*other.values, *differ[0].values])]
    update: dict[str, Any] = {"group_by": [dim], "conditions": conditions}
    if q.output not in ("series", "change"):  # one figure each: the one the words choose first
        measure = q.measures[0]
        named = measure_words(rest, model)[:1]
        if named and named[0] != measure and model.measures[named[0]].fact == model.measures[measure].fact:
            measure = named[0]
            asked = [c for c in (own.conditions if own is not None else []) if model.on_rows(c.dimension) and
                     q.condition(c.dimension) is None]
            update.update(measures=[measure, *q.measures], conditions=[*conditions, *asked])
        lower_is_better = _better(model, measure) == "lower"
        descending = {"better": not lower_is_better, "worse": lower_is_better, "more": True, "less": False}[way]
        update.update(output="table", order=Order(measure=measure, descending=descending), limit=1)
    edited = q.model_copy(update=update)
    return QueryEdit(DataQuery.model_validate(edited.model_dump()), [], [f"{' and '.join(conditions[-1].values)} "
                                                                         f"side by side"])


# "there" as a place: "how many devices there" (not "how many devices are there")
THERE_ROW = re.compile(r"\bthere\b", _I)
THERE_ARE = re.compile(r"\b(?:are|is|were|was)\s+there\b|\bthere\s+(?:are|is|were|was)\b", _I)
# kinds of rows "it" stands for when the last answer was one of them; a device or site it names is carried as a name
# (a site led a ranking of sites: "its worst site" → "how many devices there")
ITS_ROW_KINDS = frozenset(DEVICE_ATTRIBUTES) - {"site"}


def of_its_row(query: DataQuery | None, prompt: str, last: PastTurn | None, model: SemanticModel) -> DataQuery | None:
    """"how many devices does it have" after "which tier is worst": the question held to the one row the last answer
    led with (tier3) — a kind of row no name carries over; "whats its failed checks count" after the devices of
    us-central: the one part the last answer was of. None when there is no such row to hold it to."""
    before = last.query if last is not None else None
    if query is None or before is None or last is None or len(before.group_by) > 1:
        return None
    # ("how many are there" is no place, unless the last answer led with a place it ranked: "how many devices are
    # there" after the site with the most failed checks)
    led_place = before.order is not None and before.group_by[:1] in (["site"], ["region"], ["site_type"], ["tier"])
    there = THERE_ROW.search(prompt) is not None and (not THERE_ARE.search(prompt) or led_place)
    if not (IT.search(prompt) or there) or tied_rows(last):  # (rows tied at the top: "it" is none of them alone)
        return None
    kinds = ITS_ROW_KINDS | ({"site"} if before.group_by == ["site"] and before.order is not None else set())
    if before.group_by:  # the row the last answer led with: the only one, or the first of a ranking
        dim = before.group_by[0]
        # (a change per row leads with the one that moved most: "which of the two improved more" → "its worst site")
        led = bool(last.answer_rows) and (before.limit == 1 or len(last.answer_rows) == 1 or before.order is not None
                                          or before.output == "change" or before.direction is not None)
        value = (before.leader or last.answer_rows[0]) if led else None
    else:
        parts = [c for c in before.conditions if c.dimension in ITS_ROW_KINDS and not c.negated and len(c.values) == 1]
        dim, value = (parts[0].dimension, parts[0].values[0]) if len(parts) == 1 else ("", None)
    held = query.condition(dim)  # (all the rows of the ranking, as "those" would be, are not the one it led with)
    if value is None or dim not in kinds or dim in query.group_by or dim not in model.dimensions or (
            held is not None and not (len(held.values) > 1 and set(held.values) == set(last.answer_rows))):
        return None
    return query.model_copy(update={"conditions": [*(c for c in query.conditions if c is not held),
                                                   Condition(dimension=dim, values=[value])]})


def ones_of_the_last(query: DataQuery | None, prompt: str, last: PastTurn | None,
                     model: SemanticModel) -> DataQuery | None:
    """"how many devices have critical ones" after the SLIC matches by severity: "ones" are the last answer's things
    (SLIC matches), not failed checks — the same count over the last answer's fact; None when it is the same fact."""
    before = last.query if last is not None else None
    if query is None or before is None or not SEVERITY_ONES.search(prompt) or not query.measures or \
            not before.measures:
        return None
    then, now = model.measures[before.measures[0]].fact, model.measures[query.measures[0]].fact
    thing = model.counted_things(query.measures[0])
    same = next((name for name, m in model.measures.items() if m.fact == then and not m.where and
                 model.counted_things(name) == thing), None)
    if then == now or same is None or any(model.dimension_sql(c.dimension, then) is None for c in query.conditions):
        return None
    return query.model_copy(update={"measures": [same], "runs": query.runs if model.facts[then].run else []})


def of_a_population(last: PastTurn | None, model: SemanticModel) -> bool:
    """Whether the last answer was about a set of devices kept by their kind or place ("how many leaf switches are
    there", "where are the devices on 17.3.4a"), which a question with no subject of its own is asked of."""
    query = last.query if last is not None else None
    if query is None or not any(not model.on_rows(c.dimension) and not c.in_measure and not c.negated
                                for c in query.conditions):
        return False
    return not query.measures or model.counted_things(query.measures[0]) == "device"


def keeps_ranking(asked: DataQuery, last: DataQuery) -> bool:
    """Whether a plain list of some of the devices a ranking by a count just listed ("which of those are in us-west"
    after the top 5 by failed checks) is those devices, each with that count."""
    return last.order is not None and last.order.descending and last.group_by == ["device"] and \
        bool(last.measures) and last.order.measure == last.measures[0] and \
        asked.group_by == ["device"] and asked.order is None and not asked.measures and not asked.bounds and \
        asked.output == "list"


# what a follow-up's frame cannot carry (its filters know sites, kinds of site, device types, platforms, releases,
# roles and environments, not these): a follow-up the history resolved keeps them from the last query
UNFRAMED = frozenset({"product_family", "model", "region", "tier", "criticality", "pci_scope"})


def carried_unframed(query: DataQuery | None, last: PastTurn | None) -> DataQuery | None:
    """"which ones" after "how many asrs fail something critical": the ASR 1000s still — the last query's conditions
    on what the frame has no filter for, added where the question set nothing of that kind itself (no place beside a
    place, no kind of device beside a kind); None when there is nothing to carry."""
    before = last.query if last is not None else None
    if query is None or before is None:
        return None
    own = {c.dimension for c in query.conditions}
    said = {c.dimension for c in query.conditions if c not in before.conditions}  # (not what it carried already)
    kinds = (PLACES, DEVICE_KINDS | {"role"})
    carried = [c for c in before.conditions if c.dimension in UNFRAMED and c.dimension not in own and
               not any(c.dimension in kind and said & kind for kind in kinds)]
    return query.model_copy(update={"conditions": [*query.conditions, *carried]}) if carried else None


def worst_by_the_last_measure(query: DataQuery | None, prompt: str, last: PastTurn | None,
                              model: SemanticModel) -> DataQuery | None:
    """"which pci store is worst right now" after pass rates set side by side: worst by the figure the conversation is
    about (the lowest pass rate), not by the severity ranking "worst" reads as on its own. None when the words name a
    figure, the ranking is not the severity one, or the last answer was of no single figure of the same results."""
    before = last.query if last is not None else None
    if query is None or before is None or query.order is None or measure_words(prompt, model) or \
            (query.measures, query.order) != severity_first(query.order.descending) or len(before.measures) != 1:
        return None
    measure = before.measures[0]
    if measure not in model.measures or model.measures[measure].fact != model.measures[query.measures[0]].fact or \
            measure in query.measures:
        return None
    worst_first = query.order.descending  # (the severity ranking puts the most critical first for "worst")
    descending = worst_first == (_better(model, measure) == "lower")
    return query.model_copy(update={"measures": [measure], "order": Order(measure=measure, descending=descending)})


def _counts_its_rows(measure: str, dimension: str, model: SemanticModel) -> bool:
    """Whether ``measure`` counts the rows of ``dimension`` themselves (the sites with a failure, per site: 1 or 0)."""
    m = model.measures[measure]
    column = (model.dimensions[dimension].sql_for(m.fact) or "").split(".")[-1] if dimension in model.dimensions else ""
    return m.count is not None and m.count.upper().startswith("DISTINCT") and bool(column) and \
        m.count.split(".")[-1].strip() == column


def rows_added_up(previous: PastTurn, before: Sequence[PastTurn]) -> PastTurn | None:
    """The earlier answer whose rows ``previous`` added up ("how many new failures is that altogether" after the
    routers with some): the same figure, filters and runs, per row; None when ``previous`` is no such total."""
    query = previous.query
    if query is None or query.group_by or not query.measures:
        return None
    return next((t for t in reversed(before) if t.query is not None and t.query.group_by and
                 t.query.measures[:1] == query.measures[:1] and t.query.conditions == query.conditions and
                 t.query.runs == query.runs), None)


def ranked_by_the_conversations_figure(previous: PastTurn, before: Sequence[PastTurn], prompt: str,
                                       model: SemanticModel, runs: Sequence[tuple[str, str]]) -> PastTurn:
    """"which of them is worst" after "list its sites", itself after the region with the lowest pass rate: a list
    with no figure of its own is ranked by the figure the conversation was about (the pass rate), in the run that
    figure was of — not by the severity ranking "worst" reads as alone. ``previous`` as it was when the list has a
    figure, the words name one or pick no end, or no earlier answer (``before``, oldest first) had a figure its rows
    can be counted by."""
    query = previous.query
    if OF_THEM.search(prompt) and (GROUP_EXTREME.match(prompt) or BARE_EXTREME.match(prompt)):
        # "which of them has the most" after the routers with new failures, then how many that is altogether: the
        # rows that total added up, ranked by it
        listed = rows_added_up(previous, before)
        if listed is not None:
            return listed
    if query is None or not query.group_by or query.measures or measure_words(prompt, model) or not (
            GROUP_EXTREME.match(prompt) or BARE_EXTREME.match(prompt)):
        return previous
    for turn in reversed(before):
        if turn.query is None:
            continue
        figure = turn.query.order.measure if turn.query.order else next(iter(turn.query.measures), None)
        if figure not in model.measures:
            continue
        fact = model.measures[figure].fact
        if model.dimension_sql(query.group_by[0], fact) is None:
            return previous
        timed = model.facts[fact].run and runs
        of_run = (turn.query.runs[-1:] or [runs[-1][0]]) if timed else []
        ranked = query.model_copy(update={"measures": [figure], "runs": of_run,
                                          "months": query.months if timed else turn.query.months})
        return previous.model_copy(update={"query": DataQuery.model_validate(ranked.model_dump())})
    return previous


# "how many does Lab-1 have", "how many at HQ now": a count that names no thing of its own
COUNT_UNNAMED = re.compile(_LEAD + r"how many\s+(?:does|do|did|has|have|had|at|in|on)\b", _I)


def count_of_the_last_figure(query: DataQuery | None, prompt: str, last: PastTurn | None, model: SemanticModel,
                             asked: Intent, runs: Sequence[tuple[str, str]]) -> DataQuery | None:
    """"how many does Lab-1 have right now" after the failed checks per month at HQ: the figure the conversation
    counts (failed checks), of what the words name, in the latest run unless they say a time ("how many did it make in
    september" after the device with the most config changes: its changes that month; events with no time said are
    counted in the months the last answer was of) — not its devices. None when
    the words name a thing or a figure, or the last answer counted no such figure (``asked``: the words read alone)."""
    before = last.query if last is not None else None
    if query is None or before is None or not COUNT_UNNAMED.match(prompt) or measure_words(prompt, model) or \
            query.measures not in (["devices"], ["failed_checks"]) or query.group_by or len(before.measures) != 1:
        return None  # (the devices, or the failed checks "how many did HQ have" reads alone, are the reader's guess)
    measure = before.measures[0]
    spec = model.measures.get(measure)
    if spec is None or spec.unit != "count" or measure == "devices":
        return None
    own = {c.dimension for c in query.conditions}
    placed = bool(own & PLACES)
    kept = [c for c in before.conditions if c.dimension not in own and not (placed and c.dimension in PLACES) and
            model.on_rows(c.dimension)]  # (what is counted: "critical" failures, a check — not where)
    t = asked.frame.time
    # (the words' time read again for the figure counted: the devices they were read as have none)
    read = _time(prompt, asked, runs, spec.fact, model)[0] if t.months or t.runs or t.relative or t.since else {}
    if not model.facts[spec.fact].run:  # events are the months': those said, else those the last answer counted in
        return query.model_copy(update={"measures": [measure], "conditions": [*query.conditions, *kept], "runs": [],
                                        "months": read.get("months") or query.months or before.months,
                                        "output": "value"})
    return query.model_copy(update={"measures": [measure], "conditions": [*query.conditions, *kept],
                                    "runs": read.get("runs") or query.runs or [runs[-1][0]] if runs else [],
                                    "months": [], "output": "value"})
