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
# systems share words: NetScaler's and VyOS's set forms before Junos's, Comware (sysname indented) before Huawei VRP,
# the IOS look-alikes that quote their hostname (TP-Link, EFOS, NETGEAR) before ProCurve, Cumulus (whose
# files carry an frr.conf) before FRR.
_OTHER_PLATFORMS: list[tuple[str, LineStarts]] = [(name, LineStarts(evidence)) for name, evidence in [
    ("Arista EOS", re.compile(r"^!? ?boot system flash:?\S*\.swi\b|^! device: \S+ \((?:v|c)?EOS|^! device: .*\bEOS-\d|^management (?:api|ssh|security|console|"
                              r"cvx)\b|^daemon TerminAttr|^service routing protocols model|^vrf instance \S+|"
                              r"^(?:no )?aaa root\b|^transceiver qsfp default-mode|^username \S+ .*\bsecret sha512 ", re.M)),
    ("Citrix NetScaler", re.compile(r"^#NS\d|^set ns |^add ns |^enable ns ", re.M)),
    ("Nokia SR OS", re.compile(r"^# TiMOS-|^# Configuration format version \d|^exit all$|^echo \"System Configuration\"",
                               re.M)),
    ("Check Point Gaia", re.compile(r"^# Language version: \d|^set hostname \S+$|^set static-route ", re.M)),
    ("NVIDIA Onyx/MLNX-OS", re.compile(r"^## (?:Product release|Running database|Running-config temporary)", re.M)),
    ("OPNsense/pfSense", re.compile(r"^<(?:opnsense|pfsense)>", re.M)),
    ("Linux iptables", re.compile(r"^\*(?:filter|nat|mangle)$|^:(?:INPUT|OUTPUT|FORWARD) (?:ACCEPT|DROP)\b", re.M)),
    ("APC Network Management Card", re.compile(r"^; (?:Hardware Factory|Application Module)$|^\[NetworkTCP/IP\]", re.M)),
    ("VyOS", re.compile(r"^(?://|/\*)[^\n]*(?:vyos|vyatta)-config-version|^set interfaces (?:ethernet|bonding|wireguard) |"
                        r"^\s*ethernet eth\d+ \{", re.M)),
    ("Juniper Junos", re.compile(r"^set (?:system|interfaces|protocols|security|policy-options) |^system \{|"
                                 r"^## Last commit:|^version \d+\.\d+[RXDI]\S*;$", re.M)),
    ("Fortinet FortiOS", re.compile(r"^config (?:system (?:global|interface)|firewall (?:policy|address)|router static)$|"
                                    r"^#config-version=F", re.M)),
    ("Cisco AireOS WLC", re.compile(r"^config (?:sysname|wlan (?:create|ssid)|network (?:webmode|telnet)|radius auth) ",
                                    re.M)),
    ("Cisco Small Business (SG/CBS)", re.compile(r"^config-file-header$", re.M)),
    ("Brocade/Ruckus ICX", re.compile(r"^ver V?\d+\.\d+|^module \d+ icx", re.M)),
    ("Palo Alto PAN-OS", re.compile(r"^<config version=|^set deviceconfig |^set rulebase |^set network "
                                    r"(?:interface|virtual-router) |^set config devices |^\s*panorama \{$|"
                                    r"^\s*deviceconfig \{$", re.M)),
    ("F5 BIG-IP", re.compile(r"^#TMSH-VERSION|^(?:ltm|gtm) (?:virtual|pool|node|profile|monitor) |"
                             r"^sys (?:global-settings|management-ip|provision|db) |^net (?:self|vlan|route-domain) ",
                             re.M)),
    ("A10 ACOS", re.compile(r"^slb (?:server|service-group|virtual-server|template) |^!\s*(?:A10|ACOS)\b|^vrrp-a ", re.M)),
    ("ArubaOS-CX (Aruba AOS-CX)", re.compile(r"^user \S+ group \S+ password ciphertext |^interface \d+/\d+/\d+$|^! ?ArubaOS-CX", re.M)),
    ("Aruba ArubaOS (controller or Instant)", re.compile(r"^virtual-controller-|^wlan ssid-profile |^netservice |"
                                                        r"^ip access-list session |^aaa profile \"", re.M)),
    ("Netgate TNSR", re.compile(r"^nacm (?:disable|enable|group |read-default|write-default|exec-default)|"
                                r"^configuration history enable$", re.M)),
    ("Garderos GRS", re.compile(r"^(?:acl|interface|hardware|system|network|routing)\.[\w.-]+=", re.M)),
    ("TP-Link JetStream", re.compile(r"^user name \S+ privilege |^interface (?:gigabit|ten-gigabit|fast)Ethernet "
                                     r"\d+/\d+/\d+$", re.M)),
    ("Broadcom EFOS/FASTPATH", re.compile(r"^serviceport (?:protocol|ip) |^!System Description \"EFOS", re.M)),
    ("NETGEAR", re.compile(r"^SYSTEM CONFIG FILE ::= BEGIN$", re.M)),
    ("Ciena SAOS", re.compile(r"^port set port |^vlan create vlan |^system config hostname ", re.M)),
    ("HP ProCurve/ArubaOS-Switch", re.compile(r"^; \S+ Configuration Editor|^hostname \"[^\"]*\"$|"
                                              r"^\s+(?:un)?tagged (?:\d|[A-H]\d|Trk)", re.M)),
    ("HP/H3C Comware", re.compile(r"^ sysname \S+|^ irf (?:mac-address|member)|^ version \d+\.\d+, Release ", re.M)),
    ("Huawei VRP", re.compile(r"^sysname \S+|^ ?return$", re.M)),
    ("Cumulus Linux", re.compile(r"^(?:net add|nv set) |^iface \S+ inet|^### (?:start|end) (?:of )?/etc/network/|^(?:auto|iface) swp\d|^\s+bridge-ports .*\bswp\d", re.M)),
    ("FRRouting (FRR)", re.compile(r"^frr (?:version|defaults)\b", re.M)),
    ("FRRouting/Quagga (Linux interface names)", re.compile(r"^interface (?:eth|swp|ens|enp)\d+\S*$(?=[\s\S]*"
                                                            r"^router (?:ospf|bgp)\b)", re.M)),
    ("Quagga", re.compile(r"^! -\*- (?:bgp|zebra|ospf6?|ripn?g?|isis) -\*-|^log file /var/log/quagga|^password zebra$", re.M)),
    # switches that copy IOS's look but write what Cisco never does (its commands are never capitalised so)
    ("IOS look-alike (not Cisco)", re.compile(r"^(?:ssh|telnet|web)-server enable\b|^interface gigabitEthernet\d|"
                                              r"^ip dns name-server ", re.M)),
    ("MikroTik RouterOS", re.compile(r"^/(?:interface|ip address|system identity) ", re.M)),
    ("Extreme EXOS", re.compile(r"^configure snmp sysName |^create vlan \S+|^configure vlan \S+ ipaddress", re.M)),
]]
# What a backup's banner says it is: collectors (oxidized, RANCID) put the device's 'show version' above its
# configuration, as comments. Read only in the comment lines of the head, Cisco's own names first.
_SELF_NAMED: list[tuple[str, re.Pattern[str]]] = [
    ("ios-xr", re.compile(r"Cisco IOS XR Software|\bIOS XR\b")),
    ("nx-os", re.compile(r"Cisco Nexus Operating System|\bNX-OS\b")),
    ("asa", re.compile(r"Cisco Adaptive Security Appliance|Firepower Threat Defense")),
    ("cisco", re.compile(r"Cisco IOS(?: XE)? Software|Cisco Internetwork Operating System")),
    ("ArubaOS-CX (Aruba AOS-CX)", re.compile(r"ArubaOS-CX")),
    ("Aruba ArubaOS (controller or Instant)", re.compile(r"Aruba Operating System Software|ArubaOS \(MODEL")),
    ("HP/H3C Comware", re.compile(r"\bComware\b")),
    ("NETGEAR", re.compile(r"\bNETGEAR\b")),
    ("Netgate TNSR", re.compile(r"\btnsr\b", re.I)),
    ("FS.com FSOS", re.compile(r"Fiberstore|FS\.COM")),
    ("TP-Link JetStream", re.compile(r"TP-LINK|JetStream", re.I)),
    ("Broadcom EFOS/FASTPATH", re.compile(r"\bEFOS\b|FASTPATH")),
    ("Garderos GRS", re.compile(r"Garderos")),
    ("Perle IOLAN", re.compile(r"\bPerle\b")),
    ("Ciena SAOS", re.compile(r"\bSAOS\b|\bCiena\b")),
    ("Extreme NetIron", re.compile(r"NetIron")),
    ("MRV OptiSwitch", re.compile(r"OptiSwitch|MRV Communications")),
    ("Arista EOS", re.compile(r"\bArista\b|\bEOS-\d")),
    ("Juniper Junos", re.compile(r"\bJUNOS\b", re.I)),
    ("Huawei VRP", re.compile(r"\bHuawei\b|Versatile Routing Platform")),
    ("Fortinet FortiOS", re.compile(r"FortiGate|FortiOS")),
    ("NVIDIA Onyx/MLNX-OS", re.compile(r"MLNX-OS|\bOnyx\b|Mellanox")),
    ("Dell OS", re.compile(r"\bDell\b|Force10")),
    ("Brocade/Ruckus ICX", re.compile(r"\bRuckus\b|FastIron")),
    ("SonicWall SonicOS", re.compile(r"SonicOS|SonicWall", re.I)),
    ("V-SOL OLT", re.compile(r"Olt Device Model|\bV-SOL\b")),
]
_COMMENT = re.compile(r"^\s*[!#;]")
# one search tells a Cisco configuration (nine uploads in ten) that no other system's mark is in it
_ANY_OTHER = LineStarts(re.compile("|".join(f"(?:{e.pattern.pattern})" for _, e in _OTHER_PLATFORMS), re.M))
# RANCID's first line names what it collected: '!RANCID-CONTENT-TYPE: cisco-nx'; a batfish snapshot's: '!BATFISH_FORMAT:'
_RANCID = re.compile(r"^[!#;](?:RANCID-CONTENT-TYPE|BATFISH_FORMAT): (\S+)", re.M)
_RANCID_TYPES: dict[str, str] = {
    "cisco": "cisco", "cisco_ios": "cisco", "cisco_nxos": "nx-os", "cisco_asa": "asa",
    "cisco_xr": "ios-xr", "a10_acos": "A10 ACOS", "arista_eos": "Arista EOS", "cumulus_nclu": "Cumulus Linux",
    "palo_alto": "Palo Alto PAN-OS", "f5_bigip_structured": "F5 BIG-IP", "fortios": "Fortinet FortiOS",
    "cisco-nx": "nx-os", "cisco-xr": "ios-xr", "cisco-asa": "asa", "arista": "Arista EOS", "juniper": "Juniper Junos",
    "junos": "Juniper Junos", "fortigate": "Fortinet FortiOS", "fortigate-full": "Fortinet FortiOS",
    "paloalto": "Palo Alto PAN-OS", "bigip": "F5 BIG-IP", "f5": "F5 BIG-IP", "a10": "A10 ACOS",
    "hp": "HP ProCurve/ArubaOS-Switch", "procurve": "HP ProCurve/ArubaOS-Switch", "h3c": "HP/H3C Comware",
    "comware": "HP/H3C Comware", "huawei": "Huawei VRP", "vrp": "Huawei VRP", "vyos": "VyOS", "vyatta": "VyOS",
    "cumulus": "Cumulus Linux", "mikrotik": "MikroTik RouterOS", "extreme": "Extreme EXOS", "foundry": "Brocade/Foundry",
    "force10": "Dell Force10", "netscreen": "Juniper ScreenOS", "cat5": "Cisco CatOS", "cisco-wlc4": "Cisco WLC",
    "cisco-wlc5": "Cisco WLC", "cisco-wlc8": "Cisco WLC",
}
# Cisco's own lines: a configuration is judged as Cisco only with one of them (the look-alikes of IOS share its
# interface, logging and routing words, not these)
_CISCO_MARKS = LineStarts(re.compile(
    r"^version \d+\.\d+(?:\(\d+\)\S*)?\s*$|^boot-start-marker$|^service (?:timestamps|password-encryption|config|"
    r"compress-config|call-home|internal|tcp-keepalives|sequence-numbers)\b|^no service (?:pad|config|dhcp)\b|"
    r"^license udi pid |^line (?:con 0|vty \d+(?: \d+)?|aux 0|console|vty|default|template \S+)$|"
    r"^(?:ASA|PIX|FWSM) Version |^!! IOS XR|^RP/0/|^!Command: show running-config|^!Time: |^Building configuration|"
    r"^Current configuration\s*:\s*\d+ bytes|^feature \S+$|^\s+nameif \S+|^crypto pki trustpoint TP-self-signed|"
    r"^ip cef$|^vrf context \S+$|^interface mgmt0$|^copp profile |^vdc \S+ id |^end-policy$", re.M))
# the output of a show command, not a configuration: ASA 'show access-list' hit counts, a prompt, a table's heading
_SHOW_OUTPUT = LineStarts(re.compile(r"^.*\(hitcnt=\d+\)|^\S+[#>] ?show |^Interface\s+IP-Address\s+OK\?|"
                                     r"^Neighbor\s+V\s+AS\s+MsgRcvd|^Codes: [A-Z] - ", re.M))
# interface settings written at the start of the line, under an interface that is too
_FLAT_INTERFACE = re.compile(r"^interface \S+\n(?:ip address|description|shutdown|no shutdown|switchport|speed|"
                             r"duplex|negotiation|encapsulation|nameif|security-level|channel-group|mtu)\b", re.M)
_NX_OS = LineStarts(re.compile(r"^feature \S+|^!Command: show running-config|^version \d+\.\d+\(\d+\)|^vrf context |"
                               r"^interface mgmt0$|^username \S+ .*\brole network-(?:admin|operator)\b|^copp profile |"
                               r"^vdc \S+ id ", re.M))
_IOS_XR = LineStarts(re.compile(r"^!! IOS XR Configuration|^interface (?:GigabitEthernet|TenGigE|HundredGigE|FortyGigE)"
                                r"\d+/\d+/\d+/\d+|^interface MgmtEth0/|^end-policy$|^ssh server v2$|^RP/0/", re.M))
_ASA = LineStarts(re.compile(r"^(ASA|PIX|FWSM) Version|^\s*nameif \S+|^same-security-traffic", re.M))
_VERSION = LineStarts(re.compile(r"^version (\d+)\.", re.M))
_XE_HINTS = LineStarts(re.compile(r"^license udi pid (?:CSR|C8|C9|ISR4|ASR1|C1[01]\d\d)|^platform |"
                                  r"^ip vrf forwarding Mgmt-intf|^vrf definition Mgmt-", re.M))


@dataclass(frozen=True)
class PlatformVerdict:
    """What operating system a configuration is from, and whether the engine assesses it."""

    platform: str  # one of SUPPORTED, a refused system's name ("Arista EOS"), "fragment", "show output",
    # "unidentified" (IOS-like, no system named), "unindented" or "unknown"
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
    """The operating system, from the configuration's own words — RANCID's or a batfish snapshot's content-type
    header, the device's own banner, then the marks of other systems, then Cisco's own lines — before anything
    decides whether the text is a configuration at all: a Comware or F5 file is refused by its name, a 'show' output
    as one, a few Cisco lines as a fragment, IOS-like text with none of Cisco's own lines as a system it does not
    name, and only text that is none of these is "not a network device configuration". Identification is positive:
    a configuration is judged as Cisco on Cisco's marks, not on the absence of another vendor's."""
    head = text[:20000]
    rancid = _RANCID.search(head[:2000])
    named = _RANCID_TYPES.get(rancid.group(1).lower()) if rancid else None
    named = named or _self_named(head)
    if named and named not in SUPPORTED and named != "cisco":
        return _refused(named)
    if named is None:
        other = next((name for name, evidence in _OTHER_PLATFORMS if evidence.search(head)), None) \
            if _ANY_OTHER.search(head) else None
        if other:
            return _refused(other)
    if _SHOW_OUTPUT.search(head) and not _CISCO_MARKS.search(head):
        return PlatformVerdict("show output", False, "the output of a 'show' command, not a configuration: upload "
                                                     "the running configuration ('show running-config')")
    commands = _cisco_commands(text)
    if commands == 0 and named is None:
        return PlatformVerdict("unknown", False, "not a network device configuration (no hostname/interface/line/"
                                                 "service commands found)")
    if commands < _MIN_COMMANDS:
        return PlatformVerdict("fragment", False, f"a fragment of a configuration ({commands} kind"
                                                  f"{'s' if commands != 1 else ''} of top-level command): too little "
                                                  "to assess — upload the whole running configuration "
                                                  "('show running-config')")
    if named is None and not _CISCO_MARKS.search(head):
        return PlatformVerdict("unidentified", False, "an IOS-like configuration that names no system: none of "
                                                      "Cisco's own lines (a version line, boot markers, 'line con 0'/"
                                                      "'line vty', 'service …', an ASA, NX-OS or IOS-XR header) — "
                                                      "many switches copy this syntax. If it is Cisco, upload the "
                                                      "whole 'show running-config'")
    if len(_FLAT_INTERFACE.findall(head)) >= 2 and not re.search(r"^interface \S+\n[ \t]+\S", head, re.M):
        return PlatformVerdict("unindented", False, "its lines are not indented (interface settings start at the "
                                                    "beginning of the line), so which interface each belongs to "
                                                    "cannot be read: upload the configuration as the device shows it")
    return PlatformVerdict(named if named in SUPPORTED else detect_platform(text), True)


def _self_named(head: str) -> str | None:
    """The system the backup's banner names, if any: the comment lines above its first command (a comment further
    down — a note that mentions another vendor — is not the collector's header)."""
    comments: list[str] = []
    for ln in head.splitlines()[:200]:
        if _COMMENT.match(ln):
            comments.append(ln)
        elif ln.strip():
            break
    if not comments:
        return None
    text = "\n".join(comments)
    return next((name for name, rx in _SELF_NAMED if rx.search(text)), None)


def _refused(name: str) -> PlatformVerdict:
    return PlatformVerdict(name, False, f"{name} configuration: only Cisco IOS, IOS-XE, NX-OS, ASA and IOS-XR are "
                                        "assessed")


def _cisco_commands(text: str, enough: int = _MIN_COMMANDS) -> int:
    """How many kinds of top-level configuration command the text has (up to ``enough``): one section repeated —
    twenty 'snmp-server' lines — is still a fragment."""
    kinds: set[str] = set()
    for raw in text.splitlines()[:5000]:
        m = _CONFIG_MARKERS.match(raw) if raw[:1].islower() else None  # commands are lower case; 'Service…' is prose
        if m:
            kinds.add(m.group(1).split()[0].lower())
            if len(kinds) >= enough:
                break
    return len(kinds)


def detect_platform(text: str) -> Platform:
    """The Cisco platform of a configuration; plain IOS-style text with no other marker is IOS-XE."""
    head = text[:20000]
    if _ASA.search(head):
        return "asa"
    if _IOS_XR.search(head):
        return "ios-xr"
    if "NX-OS" in head or _NX_OS.search(head):
        return "nx-os"
    version = _VERSION.search(head)
    if version and int(version.group(1)) < 16 and not _XE_HINTS.search(head):
        return "ios"  # classic IOS 12.x/15.x (IOS-XE 3.x also says 15.x, but carries platform lines)
    return "ios-xe"


def looks_like_config(text: str) -> bool:
    """A configuration of any system ``identify_platform`` knows — assessed or refused by name (a Junos file in
    braces has few IOS-like lines and is a configuration all the same) — as opposed to prose. A fragment is not:
    a text document that quotes two commands stays a document; a ``.cfg`` file is refused with the fragment's
    reason. Nor is a ``show`` output: a support bundle of show commands is a document (masked like any), while a
    ``.cfg`` of one is refused as the show output it is."""
    return identify_platform(text).platform not in ("unknown", "fragment", "show output")


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
