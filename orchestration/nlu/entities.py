"""Deterministic entity extraction (DESIGN §4): user-facing entities only, never invented.

Names (sites, devices, assessment ids, platforms, versions) are found and read against the inventory
by ``orchestration.nlu.names``, whether or not they exist; the rest — device types, environments,
timeframes, severities, formats, IPs, VLANs, priorities — by patterns over the text with the names
blanked out.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass

from foundation.vocabulary.text import latin_lookalikes, visible
from orchestration.nlu.names import Gazetteer, Reading, find_names
from orchestration.state import Entity, NameResolution

__all__ = ["EntityReading", "Gazetteer", "extract_entities", "read_entities"]

_I = re.IGNORECASE

# Bounded by non-word, non-hyphen characters so that "RTR" inside "RTR-CORE-1" is not a device type.
_DEVICE_TYPES: list[tuple[str, str]] = [
    (r"(?<![\w-])(?:routers?|rtrs?)(?![\w-])", "router"),
    (r"(?<![\w-])switch(?:es)?(?![\w-])", "switch"),
    (r"(?<![\w-])(?:firewalls?|asas?|fws?)(?![\w-])", "firewall"),
    (r"(?<![\w-])(?:(?:wireless|wlan|wi-?fi)\s+(?:lan\s+)?controllers?|wlcs?)(?![\w-])", "wireless_controller"),
    (r"(?<![\w-])(?:access[\s-]points?|aps)(?![\w-])", "access_point"),
]
_ENVIRONMENTS: list[tuple[str, str]] = [
    (r"\bproduction\b|\bprod\b", "production"),
    (r"\bstaging\b|\bstage\b", "staging"),
    (r"\blab\b|\blabs\b", "lab"),
    (r"\bdevelopment\b|\bdev\b", "development"),
]
_ASSESSMENT_NOUN = r"(?:assessments?|audits?|runs?|scans?|reviews?|results?|checks?)"
_TIMEFRAMES: list[tuple[str, str]] = [
    (rf"\bsince (?:my |the |our )?(?:last|latest|most recent) {_ASSESSMENT_NOUN}", "since_last_assessment"),
    (rf"\b(?:prior|previous|preceding|earlier|last two) {_ASSESSMENT_NOUN}", "since_prior_assessment"),
    (r"\b(?:last|past) (\d{1,3}) days?\b", "last_{n}_days"),
    (r"\b(?:last|past) (\d{1,2}) weeks?\b", "last_{n}_weeks"),
    (r"\b(?:last|past) (\d{1,2}) months?\b", "last_{n}_months"),
    (r"\b(?:last|past) (week|month|quarter|year)\b", "last_{w}"),
    (r"\bthis (week|month|quarter|year)\b", "this_{w}"),
    (r"\byesterday\b", "yesterday"),
    (r"\btoday\b", "today"),
    (rf"\b(?:latest|newest|most recent|current|last)\b(?:\s+\S+){{0,4}}?\s+{_ASSESSMENT_NOUN}", "latest"),
    (r"\b(?:latest|newest|most recent)\b", "latest"),
    (r"\brecent(?:ly)?\b", "recent"),
]
_ISSUE_WORDS = (
    r"(?:issues?|deviations?|findings?|risks?|vulnerabilit\w*|violations?|rules?|checks?|problems?|"
    r"misconfigurations?|ones|severity|items?|alerts?|gaps?|failures?)"
)
_SEVERITY = re.compile(
    rf"\b(critical|high|medium|moderate|low|informational|info)\b(?=(?:[\s-]+[\w/-]+){{0,3}}?[\s-]+{_ISSUE_WORDS}\b)", _I
)
_SEVERITY_PHRASES: list[tuple[str, str]] = [
    (r"\bseverity\s*(?:is|=|:|of)?\s*(critical|high|medium|low)\b", "{g}"),
    # "fail something high", "anything medium": a severity said of what fails
    (r"\b(?:something|anything|nothing)\s+(critical|high|medium|low)\b", "{g}"),
    (r"\b(?:most critical|critical[- ]severity)\b", "critical"),
    (r"\b(?:highest|high|biggest|greatest|top)[- ]risks?\b|\bmost severe\b|\bhigh[- ]severity\b", "high"),
]
_ASSESSMENT_TYPES: list[tuple[str, str]] = [
    (r"\bbest[- ]practices?\b|\bcbp\b|\bconfig(?:uration)?\s+(?:assessments?|audits?|compliance|deviations?|checks?|findings?|baseline)", "configuration_best_practice"),
    (r"\bsecurity\s+(?:assessments?|audits?|posture|review|findings?)\b", "security"),
]
_ASSET_TARGET = re.compile(
    r"\b(?:my|our|the|entire|whole|across (?:my|our|the))\s+(?:entire\s+|whole\s+)?(network|infrastructure|estate|fleet)\b", _I
)
_OUTPUT_FORMATS: list[tuple[str, str]] = [
    (r"\btop[\s-]?(\d{1,3})\b", "top_{n}"),
    (r"\b(\d{1,3}) (?:most|biggest|largest|worst|top)\b", "top_{n}"),
    (r"\bcharts?\b|\bgraphs?\b|\bplot\b|\bvisuali[sz]", "chart"),
    (r"\bbreak(?:down| down)\b|\bby (?:severity|technology|os|platform|product|criticality)", "chart"),
    (r"\btables?\b|\btabular\b", "table"),
    (r"\breport\b|\bdownload\b|\bexport\b|\bpdf\b|\bcsv\b", "report"),
]
_IPV4 = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3})(?:/(\d{1,2}))?\b")
_VLAN = re.compile(r"\bvlan[\s-]?(\d{1,4})\b", _I)
_PRIORITY: list[tuple[str, str]] = [(r"\bP([1-4])\b", "P{n}"), (r"\b(?:urgent|asap|immediately|emergency)\b", "urgent")]

@dataclass(frozen=True)
class EntityReading:
    """Entities of a prompt and how each name in it was read against the inventory."""

    entities: list[Entity]
    resolutions: list[NameResolution]


class _Collector:
    def __init__(self) -> None:
        self.entities: list[Entity] = []

    def add(self, etype: str, value: str, confidence: float = 0.95, source: str = "explicit") -> None:
        if any(e.type == etype and e.value.lower() == value.lower() for e in self.entities):
            return
        self.entities.append(Entity(type=etype, value=value, confidence=confidence, source=source))  # type: ignore[arg-type]

    def first_match(self, text: str, table: Iterable[tuple[str, str]], etype: str) -> None:
        for pattern, template in table:
            m = re.search(pattern, text, _I)
            if m:
                self.add(etype, _fill(template, m))
                return


def _fill(template: str, m: re.Match[str]) -> str:
    groups = [g for g in m.groups() if g]
    g = groups[0] if groups else ""
    if "{n" in template:
        return template.format(n=int(g))
    return template.format(w=g.lower(), g=g.lower(), L=g.upper())


def _names(reading: Reading, out: _Collector) -> None:
    """Resolved names become entities; unresolved ones stay visible (source ``unresolved``) so the
    classifier asks about them instead of answering for a wider scope."""
    for r in reading.resolutions:
        if r.status == "exact" and r.value:
            out.add(r.entity_type, r.value, 1.0, "inventory")
        elif r.status == "corrected" and r.value:
            out.add(r.entity_type, r.value, round(min(r.score, 99.0) / 100, 2), "inventory")
        elif r.status in ("ambiguous", "unknown"):
            out.add(r.entity_type, r.mention, 0.3, "unresolved")
    for etype, value in reading.unchecked:
        out.add(etype, value, 0.9)


def _as_typed(resolution: NameResolution, read: str, typed: str) -> NameResolution:
    """A name found only once look-alike letters were read as Latin: said as typed, and never taken silently."""
    at = read.find(resolution.mention)
    original = typed[at:at + len(resolution.mention)] if at >= 0 else resolution.mention
    if original == resolution.mention:
        return resolution
    status = "corrected" if resolution.status == "exact" else resolution.status
    return resolution.model_copy(update={"mention": original, "status": status, "reason": (
        "written with look-alike letters of another alphabet" if status == "corrected" else resolution.reason)})


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """Names blanked out, so that "Lab-1" is no environment and "FW-EDGE-1" no device type."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


# "which of those are high", "how many of them are high or critical": a severity said of the rows asked about
_RATED = re.compile(r"(?:\b(?:which|what|any|how many)\b(?:\s+[\w']+){0,3}?\s+(?:are|is|were|was)|"
                    # or asked the other way round: "are any of them high?", "is any of it critical"
                    r"^\s*(?:and\s+|so\s+)?(?:are|is|were|was)\s+(?:any|some|all|none)\b(?:\s+[\w']+){0,2}?)"
                    r"\s+(?:rated\s+)?"
                    r"(?P<values>(?:critical|high|medium|low)(?:\s*(?:,|/|or|and)\s*(?:critical|high|medium|low))*)"
                    r"(?:\s+(?:severity|ones))?\s*[?.!]*\s*$", _I)


def _severity(text: str, out: _Collector) -> None:
    for m in _SEVERITY.finditer(text):
        value = m.group(1).lower()
        out.add("severity", {"moderate": "medium", "informational": "info"}.get(value, value))
    rated = _RATED.search(text)
    if rated and not any(e.type == "severity" for e in out.entities):
        for value in re.findall(r"critical|high|medium|low", rated.group("values"), _I):
            out.add("severity", value.lower())
    if not any(e.type == "severity" for e in out.entities):
        out.first_match(text, _SEVERITY_PHRASES, "severity")


def _network_ids(text: str, out: _Collector) -> None:
    for m in _IPV4.finditer(text):
        try:
            ipaddress.ip_address(m.group(1))
        except ValueError:
            continue
        out.add("ip_address", m.group(0))
    for m in _VLAN.finditer(text):
        if 1 <= int(m.group(1)) <= 4094:
            out.add("vlan", str(int(m.group(1))))


def read_entities(text: str, gazetteer: Gazetteer | None = None,
                  vocabulary: frozenset[str] = frozenset()) -> EntityReading:
    """All entities the text names, in a stable order, and the reading of every name; nothing invented."""
    gaz = gazetteer or Gazetteer()
    typed = visible(text)  # full-width forms folded, control and right-to-left characters gone
    text = latin_lookalikes(typed)
    reading = find_names(text, gaz, gaz.rule_ids, vocabulary)
    if text != typed:
        reading.resolutions = [_as_typed(r, text, typed) for r in reading.resolutions]
    out = _Collector()
    _names(reading, out)
    text = _masked(text, reading.spans)
    for table, etype in ((_DEVICE_TYPES, "device_type"), (_ENVIRONMENTS, "environment")):
        for pattern, value in table:
            if re.search(pattern, text, _I):
                out.add(etype, value)
    out.first_match(text, _TIMEFRAMES, "timeframe")
    _severity(text, out)
    for pattern, value in _ASSESSMENT_TYPES:
        if re.search(pattern, text, _I):
            out.add("assessment_type", value)
    m = _ASSET_TARGET.search(text)
    if m:
        out.add("asset_target", {"estate": "network", "fleet": "network"}.get(m.group(1).lower(), m.group(1).lower()))
    for pattern, template in _OUTPUT_FORMATS:
        m2 = re.search(pattern, text, _I)
        if m2:
            out.add("output_format", _fill(template, m2))
    _network_ids(text, out)
    out.first_match(text, _PRIORITY, "priority")
    return EntityReading(out.entities, reading.resolutions)


def extract_entities(text: str, gazetteer: Gazetteer | None = None) -> list[Entity]:
    """The entities of ``read_entities`` (names unresolved against an empty inventory pass through as typed)."""
    return read_entities(text, gazetteer).entities

