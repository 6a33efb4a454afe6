"""A fast, tolerant parser for Cisco-style running configurations (IOS, IOS-XE, NX-OS, ASA, IOS-XR).

Indentation builds the parent/child tree (as ciscoconfparse2 does — the tests cross-check the two);
line numbers are kept for evidence. Real captures parse without crashing: "Building configuration…"
and "Current configuration" headers, multi-line banners with any delimiter, certificate chains,
NX-OS ``feature`` lines and ASA syntax. Text that is not a device configuration is reported by
``looks_like_config`` rather than raising. ``identify_platform`` names the operating system from the text
itself, including the ones the engine does not assess (Arista EOS, Junos, …), so those are refused by name.
Interface roles are judged in ``interfaces.py`` from the whole configuration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from re import _parser as _re_parser  # type: ignore[attr-defined]  # the parser behind re.compile
from typing import Any, Literal

Platform = Literal["ios", "ios-xe", "nx-os", "asa", "ios-xr"]
SUPPORTED: tuple[Platform, ...] = ("ios", "ios-xe", "nx-os", "asa", "ios-xr")

_HEADER = re.compile(r"^(Building configuration|Current configuration\s*:|Last configuration change|NVRAM config last)", re.I)
# Only a control character (^C) or punctuation delimits a multi-line banner; ASA's
# "banner login Some text" is one line per line.
_BANNER = re.compile(r"^banner\s+(?:motd|login|exec|incoming|prompt-timeout|slip-ppp)\s+(\^C|\x03|[^\w\s])(.*)$", re.I)
_CONFIG_MARKERS = re.compile(
    r"^(hostname|interface|version|line (vty|con|default|template)|ip route|router (ospf|bgp|eigrp)|feature|snmp-server|"
    r"logging|ntp|aaa|username|access-list|ip access-list|service|enable|boot|nameif|crypto|vlan|spanning-tree|"
    r"set (system|interfaces|protocols)|system \{|config system)\b",
    re.I,
)


class LineStarts:
    """A MULTILINE pattern whose every match starts a line ('^a|^b'), searched as a newline and the pattern over a
    newline and the text: a literal ``re`` scans for, where a leading '^' is tried at every character (2–3× faster
    over a configuration's first 20 KB, which every upload is searched for 20 such patterns). Matches and groups are
    the pattern's own; a pattern not anchored so is searched as it is."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self._lined = (re.compile("\n(?:" + pattern.pattern + ")", pattern.flags)
                       if pattern.flags & re.MULTILINE and _anchored(_tokens(pattern)) else None)

    def search(self, text: str) -> re.Match[str] | None:
        return self._lined.search("\n" + text) if self._lined else self.pattern.search(text)


def _anchored(tokens: list[tuple[Any, Any]]) -> bool:
    """Every match starts with '^' (the parser factors it out of '^a|^b')."""
    return bool(tokens) and tokens[0] == (_re_parser.AT, _re_parser.AT_BEGINNING)


def _tokens(pattern: re.Pattern[str]) -> list[tuple[Any, Any]]:
    """What ``re`` compiles ``pattern`` from; none when this Python's parser cannot say (no shortcut is taken)."""
    try:
        return list(_re_parser.parse(pattern.pattern, pattern.flags))
    except Exception:  # noqa: BLE001 - a parser of another Python
        return []


# Operating systems recognised only to be refused by name: (name, evidence in the text). Order matters where two
# systems share words: VyOS's set form before Junos's, Comware (sysname indented) before Huawei VRP.
_OTHER_PLATFORMS: list[tuple[str, LineStarts]] = [(name, LineStarts(evidence)) for name, evidence in [
    ("Arista EOS", re.compile(r"^! device: \S+ \((?:v|c)?EOS|^! device: .*\bEOS-\d|^management (?:api|ssh|security|console|"
                              r"cvx)\b|^daemon TerminAttr|^service routing protocols model|^vrf instance \S+|"
                              r"^(?:no )?aaa root\b|^transceiver qsfp default-mode|^username \S+ .*\bsecret sha512 ", re.M)),
    ("VyOS", re.compile(r"(?:vyos|vyatta)-config-version|^set interfaces (?:ethernet|bonding|wireguard) |"
                        r"^\s*ethernet eth\d+ \{", re.M)),
    ("Juniper Junos", re.compile(r"^set (?:system|interfaces|protocols|security|policy-options) |^system \{|"
                                 r"^## Last commit:|^version \d+\.\d+[RXDI]\S*;$", re.M)),
    ("Fortinet FortiOS", re.compile(r"^config (?:system (?:global|interface)|firewall (?:policy|address)|router static)$|"
                                    r"^#config-version=F", re.M)),
    ("Cisco AireOS WLC", re.compile(r"^config (?:sysname|wlan (?:create|ssid)|network (?:webmode|telnet)|radius auth) ",
                                    re.M)),
    ("Cisco Small Business (SG/CBS)", re.compile(r"^config-file-header$", re.M)),
    ("Brocade/Ruckus ICX", re.compile(r"^ver \d+\.\d+|^module \d+ icx", re.M)),
    ("Palo Alto PAN-OS", re.compile(r"^<config version=|^set deviceconfig |^set rulebase |^set network "
                                    r"(?:interface|virtual-router) ", re.M)),
    ("F5 BIG-IP", re.compile(r"^#TMSH-VERSION|^(?:ltm|gtm) (?:virtual|pool|node|profile|monitor) |"
                             r"^sys (?:global-settings|management-ip|provision|db) |^net (?:self|vlan|route-domain) ",
                             re.M)),
    ("A10 ACOS", re.compile(r"^slb (?:server|service-group|virtual-server|template) |^!\s*(?:A10|ACOS)\b|^vrrp-a ", re.M)),
    ("HP ProCurve/ArubaOS-Switch", re.compile(r"^; \S+ Configuration Editor|^hostname \"[^\"]*\"$|"
                                              r"^\s+(?:un)?tagged (?:\d|[A-H]\d|Trk)", re.M)),
    ("HP/H3C Comware", re.compile(r"^ sysname \S+|^ irf (?:mac-address|member)|^ version \d+\.\d+, Release ", re.M)),
    ("Huawei VRP", re.compile(r"^sysname \S+|^ ?return$", re.M)),
    ("Cumulus Linux", re.compile(r"^(?:net add|nv set) |^(?:auto|iface) swp\d|^\s+bridge-ports .*\bswp\d", re.M)),
    ("MikroTik RouterOS", re.compile(r"^/(?:interface|ip address|system identity) ", re.M)),
    ("Extreme EXOS", re.compile(r"^configure snmp sysName |^create vlan \S+|^configure vlan \S+ ipaddress", re.M)),
]]
# RANCID's first line names what it collected: '!RANCID-CONTENT-TYPE: cisco-nx'
_RANCID = re.compile(r"^[!#;]RANCID-CONTENT-TYPE: (\S+)", re.M)
_RANCID_TYPES: dict[str, str] = {
    "cisco-nx": "nx-os", "cisco-xr": "ios-xr", "cisco-asa": "asa", "arista": "Arista EOS", "juniper": "Juniper Junos",
    "junos": "Juniper Junos", "fortigate": "Fortinet FortiOS", "fortigate-full": "Fortinet FortiOS",
    "paloalto": "Palo Alto PAN-OS", "bigip": "F5 BIG-IP", "f5": "F5 BIG-IP", "a10": "A10 ACOS",
    "hp": "HP ProCurve/ArubaOS-Switch", "procurve": "HP ProCurve/ArubaOS-Switch", "h3c": "HP/H3C Comware",
    "comware": "HP/H3C Comware", "huawei": "Huawei VRP", "vrp": "Huawei VRP", "vyos": "VyOS", "vyatta": "VyOS",
    "cumulus": "Cumulus Linux", "mikrotik": "MikroTik RouterOS", "extreme": "Extreme EXOS", "foundry": "Brocade/Foundry",
    "force10": "Dell Force10", "netscreen": "Juniper ScreenOS", "cat5": "Cisco CatOS", "cisco-wlc4": "Cisco WLC",
    "cisco-wlc5": "Cisco WLC", "cisco-wlc8": "Cisco WLC",
}
_IOS_XR = LineStarts(re.compile(r"^!! IOS XR Configuration|^interface (?:GigabitEthernet|TenGigE|HundredGigE|FortyGigE)"
                                r"\d+/\d+/\d+/\d+|^interface MgmtEth0/|^end-policy$|^ssh server v2$|^RP/0/", re.M))
_ASA = LineStarts(re.compile(r"^(ASA|PIX|FWSM) Version|^\s*nameif \S+|^same-security-traffic", re.M))
_VERSION = LineStarts(re.compile(r"^version (\d+)\.", re.M))
_XE_HINTS = LineStarts(re.compile(r"^license udi pid (?:CSR|C8|C9|ISR4|ASR1|C1[01]\d\d)|^platform |"
                                  r"^ip vrf forwarding Mgmt-intf|^vrf definition Mgmt-", re.M))


@dataclass(frozen=True)
class PlatformVerdict:
    """What operating system a configuration is from, and whether the engine assesses it."""

    platform: str  # one of SUPPORTED, the refused system's name ("Arista EOS"), "fragment" or "unknown"
    supported: bool
    reason: str = ""


@dataclass
class Line:
    number: int
    text: str
    indent: int
    children: list[Line] = field(default_factory=list)
    parent: Line | None = field(default=None, repr=False)

    def child_matches(self, pattern: re.Pattern[str]) -> list[Line]:
        return [c for c in self.children if pattern.search(c.text)]

    def all_children(self) -> list[Line]:
        out: list[Line] = []
        for c in self.children:
            out.append(c)
            out.extend(c.all_children())
        return out


@dataclass
class ParsedConfig:
    lines: list[Line]
    top: list[Line]
    platform: Platform
    hostname: str | None
    role_overrides: dict[str, str] = field(default_factory=dict)  # interface name -> role, from the user
    cache: dict[str, Any] = field(default_factory=dict, repr=False)  # facts derived once per config
    found: dict[tuple[re.Pattern[str], bool], list[Line]] = field(default_factory=dict, repr=False)
    by_word: dict[bool, dict[str, list[Line]]] = field(default_factory=dict, repr=False)

    def find(self, pattern: re.Pattern[str], top_level: bool = False) -> list[Line]:
        """The lines ``pattern`` matches. Kept per pattern: the rules and signatures ask the same patterns of one
        configuration again and again (six calls in ten were repeats). A pattern that starts with literal words
        ('^ip ssh version 2$', most of the catalog's) is tried only on the lines that start with its first word,
        not on every line: a tenth of an upload's time was this loop."""
        found = self.found.get((pattern, top_level))
        if found is None:
            found = self.found[(pattern, top_level)] = [line for line in self._candidates(pattern, top_level)
                                                        if pattern.search(line.text)]
        return list(found)  # the caller's own list

    def _candidates(self, pattern: re.Pattern[str], top_level: bool) -> list[Line]:
        """The lines ``pattern`` can match, in order: those whose first word starts as every match must (compared
        in lower case: the catalog's patterns ignore case), and any line with a non-ASCII first word (Unicode case
        rules match 'ſ' to 's'; such a line is always tried)."""
        pool = self.top if top_level else self.lines
        start = literal_start(pattern).lower()
        if not start:
            return pool
        index = self.by_word.get(top_level)
        if index is None:
            index = self.by_word[top_level] = {}
            for line in pool:
                word = line.text.split(" ", 1)[0]
                index.setdefault(word.lower() if word.isascii() else _NOT_ASCII, []).append(line)
        if " " in start:  # the first word is whole: 'ip ssh …' can match only lines whose first word is 'ip'
            words = [start.split(" ", 1)[0]]
        else:  # 'feature' → 'feature', 'features'…
            words = [word for word in index if word.startswith(start)]
        words = [word for word in (*words, _NOT_ASCII) if word in index]
        if len(words) == 1:
            return index[words[0]]
        return sorted((line for word in words for line in index[word]), key=lambda line: line.number)

    def blocks(self, parent: re.Pattern[str]) -> list[Line]:
        return self.find(parent, top_level=True)


_NOT_ASCII = "\0"  # the index's key for the lines whose first word is not ASCII


@lru_cache(maxsize=4096)  # a pure function of a compiled pattern (as re's own cache of them)
def literal_start(pattern: re.Pattern[str]) -> str:
    """The text every match of ``pattern`` in a line starts with: the literal ASCII characters after a leading
    ``^`` ('^logging (host )?\\d' → 'logging '), or '' when there are none. Under IGNORECASE the line may have
    them in any case."""
    tokens = _tokens(pattern)
    if not (_anchored(tokens) or tokens[:1] == [(_re_parser.AT, _re_parser.AT_BEGINNING_STRING)]):
        return ""
    chars = []
    for op, value in tokens[1:]:
        if op is not _re_parser.LITERAL:
            break
        chars.append(chr(value))
    start = "".join(chars)
    return start if start.isascii() else ""


_MIN_COMMANDS = 3  # top-level configuration commands below which a Cisco-looking text is a fragment


def identify_platform(text: str) -> PlatformVerdict:
    """The operating system, from the configuration's own words — RANCID's content-type header, then the marks of
    other systems, then Cisco syntax — before anything decides whether the text is a configuration at all: a
    Comware or F5 file is refused by its name, a few Cisco lines are refused as a fragment, and only text that is
    none of these is "not a network device configuration"."""
    head = text[:20000]
    rancid = _RANCID.search(head[:2000])
    named = _RANCID_TYPES.get(rancid.group(1).lower()) if rancid else None
    if named and named not in SUPPORTED:
        return _refused(named)
    if named is None:
        other = next((name for name, evidence in _OTHER_PLATFORMS if evidence.search(head)), None)
        if other:
            return _refused(other)
    commands = _cisco_commands(text)
    if commands == 0 and named is None:
        return PlatformVerdict("unknown", False, "not a network device configuration (no hostname/interface/line/"
                                                 "service commands found)")
    if commands < _MIN_COMMANDS:
        return PlatformVerdict("fragment", False, f"a fragment of a configuration ({commands} top-level command"
                                                  f"{'s' if commands != 1 else ''}): too little to assess — upload the "
                                                  "whole running configuration ('show running-config')")
    return PlatformVerdict(named or detect_platform(text), True)


def _refused(name: str) -> PlatformVerdict:
    return PlatformVerdict(name, False, f"{name} configuration: only Cisco IOS, IOS-XE, NX-OS, ASA and IOS-XR are "
                                        "assessed")


def _cisco_commands(text: str, enough: int = _MIN_COMMANDS) -> int:
    hits = 0
    for raw in text.splitlines()[:5000]:
        if raw[:1].islower() and _CONFIG_MARKERS.match(raw):  # commands are lower case; 'Service windows…' is prose
            hits += 1
            if hits >= enough:
                break
    return hits


def detect_platform(text: str) -> Platform:
    """The Cisco platform of a configuration; plain IOS-style text with no other marker is IOS-XE."""
    head = text[:20000]
    if _ASA.search(head):
        return "asa"
    if _IOS_XR.search(head):
        return "ios-xr"
    if re.search(r"^feature \S+|^!Command: show running-config|NX-OS|^version \d+\.\d+\(\d+\)", head, re.M):
        return "nx-os"
    version = _VERSION.search(head)
    if version and int(version.group(1)) < 16 and not _XE_HINTS.search(head):
        return "ios"  # classic IOS 12.x/15.x (IOS-XE 3.x also says 15.x, but carries platform lines)
    return "ios-xe"


def looks_like_config(text: str) -> bool:
    """A configuration of any system ``identify_platform`` knows — assessed or refused by name (a Junos file in
    braces has few IOS-like lines and is a configuration all the same) — as opposed to prose. A fragment is not:
    a text document that quotes two commands stays a document; a ``.cfg`` file is refused with the fragment's
    reason."""
    return identify_platform(text).platform not in ("unknown", "fragment")


def parse_config(text: str, platform: Platform | None = None) -> ParsedConfig:
    """Parse config text into an indentation tree; never raises on odd input."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines: list[Line] = []
    top: list[Line] = []
    stack: list[Line] = []
    banner_end: str | None = None
    banners: dict[int, list[str]] = {}  # banner line number -> its body lines as written (kept to re-emit the text)
    for number, raw in enumerate(text.split("\n"), start=1):
        if banner_end is not None:  # inside a multi-line banner: plain text, not commands
            banners[lines[-1].number].append(raw)
            if banner_end in raw:
                banner_end = None
            continue
        stripped = raw.rstrip()
        content = stripped.strip()
        if not content or content.startswith(("!", ":")) or _HEADER.match(content) or content == "end":
            continue
        indent = len(stripped) - len(stripped.lstrip(" \t"))
        line = Line(number=number, text=content, indent=indent)
        banner = _BANNER.match(content) if indent == 0 else None
        if banner:
            delim, rest = banner.group(1), banner.group(2)
            if delim not in rest:
                banner_end = delim
                banners[number] = []
        while stack and stack[-1].indent >= indent:
            stack.pop()
        if stack:
            line.parent = stack[-1]
            stack[-1].children.append(line)
        else:
            top.append(line)
        stack.append(line)
        lines.append(line)
    hostname = next((ln.text.split()[1] for ln in top if ln.text.startswith("hostname ") and len(ln.text.split()) > 1),
                    None)
    parsed = ParsedConfig(lines=lines, top=top, platform=platform or detect_platform(text), hostname=hostname)
    parsed.cache["banner_bodies"] = banners
    return parsed
