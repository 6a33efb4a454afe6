"""Deterministic entity extraction (DESIGN §4): user-facing entities only, never invented.

Patterns canonicalize what engineers type ("dc1", "data center 1" -> DataCenter-1; "rtr-core-1"
-> RTR-CORE-1). When the warehouse inventory is known (a ``Gazetteer``), names are also matched
against it, including site and device names no pattern knows.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from orchestration.state import Entity

_I = re.IGNORECASE

DEVICE_PREFIXES = (
    "RTR|R|SW|FW|ASA|WLC|AP|NX|N9K|N7K|CORE|EDGE|DIST|ACC|LEAF|SPINE|VPN|GW|CE|PE|BR|DC|WAN|LAN|MGMT|CSR|ISR|ASR|CAT"
)
_DEVICE = re.compile(rf"\b((?:{DEVICE_PREFIXES})(?:-[A-Z0-9]{{1,12}}){{0,3}}-\d{{1,4}}[A-Z]?)\b", _I)

_SITE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b(?:hq|headquarters|head office)\b", _I), "HQ"),
    (re.compile(r"\bdata[\s-]?cent(?:er|re)[\s-]?(\d{1,2})\b", _I), "DataCenter-{n}"),
    (re.compile(r"\bdc[\s-]?(\d{1,2})\b(?!-)", _I), "DataCenter-{n}"),
    (re.compile(r"\bbranch[\s-]?(?:office[\s-]?)?(\d{1,3})\b", _I), "Branch-{n:02d}"),
    (re.compile(r"\bsite[\s-]([a-hj-z])\b|\bsite-(i)\b", _I), "Site-{L}"),
]
_STORE_RANGE = re.compile(
    r"\bstores?[\s-]?(\d{1,3})\s*(?:-|–|…|\.\.\.?|to|through|thru)\s*(?:store[\s-]?)?(\d{1,3})\b", _I
)
_STORE = re.compile(r"\bstores?[\s-]?(\d{1,3})\b", _I)

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
_ASSESSMENT_ID = re.compile(r"\b(ASMT-\d{4}(?:-\d{2}){1,2}(?:-[A-Z0-9]{1,8})?)\b", _I)
_IPV4 = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3})(?:/(\d{1,2}))?\b")
_VLAN = re.compile(r"\bvlan[\s-]?(\d{1,4})\b", _I)
_PRIORITY: list[tuple[str, str]] = [(r"\bP([1-4])\b", "P{n}"), (r"\b(?:urgent|asap|immediately|emergency)\b", "urgent")]

MAX_STORE_RANGE = 60


@dataclass(frozen=True)
class Gazetteer:
    """Known names from the warehouse inventory: lower-cased alias -> canonical name."""

    sites: dict[str, str] = field(default_factory=dict)
    devices: dict[str, str] = field(default_factory=dict)


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


def _sites(text: str, gaz: Gazetteer, out: _Collector) -> None:
    for alias, canonical in sorted(gaz.sites.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", text, _I):
            out.add("site", canonical, 1.0, "inventory")
    consumed: list[tuple[int, int]] = []
    for m in _STORE_RANGE.finditer(text):
        lo, hi = sorted((int(m.group(1)), int(m.group(2))))
        if hi - lo <= MAX_STORE_RANGE:
            for n in range(lo, hi + 1):
                out.add("site", _known(f"Store-{n:02d}", gaz), 0.95)
            consumed.append(m.span())
    for m in _STORE.finditer(text):
        if not any(a <= m.start() < b for a, b in consumed):
            out.add("site", _known(f"Store-{int(m.group(1)):02d}", gaz), 0.95)
    for pattern, template in _SITE_PATTERNS:
        for m in pattern.finditer(text):
            out.add("site", _known(_fill(template, m), gaz), 0.95)


def _known(name: str, gaz: Gazetteer) -> str:
    return gaz.sites.get(name.lower(), name)


def _devices(text: str, gaz: Gazetteer, out: _Collector) -> None:
    for alias, canonical in gaz.devices.items():
        if re.search(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", text, _I):
            out.add("device", canonical, 1.0, "inventory")
    for m in _DEVICE.finditer(text):
        name = m.group(1).upper()
        if not re.fullmatch(r"DC-?\d+", name):  # "DC-1" is a site alias, not a host
            out.add("device", gaz.devices.get(name.lower(), name), 0.9)


def _severity(text: str, out: _Collector) -> None:
    for m in _SEVERITY.finditer(text):
        value = m.group(1).lower()
        out.add("severity", {"moderate": "medium", "informational": "info"}.get(value, value))
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
    for m in _ASSESSMENT_ID.finditer(text):
        out.add("assessment_id", m.group(1).upper())


def extract_entities(text: str, gazetteer: Gazetteer | None = None) -> list[Entity]:
    """All entities the text names, in a stable order; nothing that the text does not say."""
    gaz = gazetteer or Gazetteer()
    out = _Collector()
    _sites(text, gaz, out)
    _devices(text, gaz, out)
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
    return out.entities
