"""A fast, tolerant parser for Cisco-style running configurations (IOS-XE, NX-OS, ASA).

Indentation builds the parent/child tree (as ciscoconfparse2 does — the tests cross-check the two);
line numbers are kept for evidence. Real captures parse without crashing: "Building configuration…"
and "Current configuration" headers, multi-line banners with any delimiter, certificate chains,
NX-OS ``feature`` lines and ASA syntax. Text that is not a device configuration is reported by
``looks_like_config`` rather than raising.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

Platform = Literal["ios-xe", "nx-os", "asa"]
InterfaceRole = Literal["access", "trunk", "routed", "edge", "virtual", "unused"]

_HEADER = re.compile(r"^(Building configuration|Current configuration\s*:|Last configuration change|NVRAM config last)", re.I)
# Only a control character (^C) or punctuation delimits a multi-line banner; ASA's
# "banner login Some text" is one line per line.
_BANNER = re.compile(r"^banner\s+(?:motd|login|exec|incoming|prompt-timeout|slip-ppp)\s+(\^C|\x03|[^\w\s])(.*)$", re.I)
_CONFIG_MARKERS = re.compile(
    r"^(hostname|interface|version|line (vty|con)|ip route|router (ospf|bgp|eigrp)|feature|snmp-server|"
    r"logging|ntp|aaa|username|access-list|ip access-list|service|enable|boot|nameif|crypto|vlan|spanning-tree)\b",
    re.I,
)
_EDGE_WORDS = re.compile(r"\b(internet|isp|wan|outside|upstream|inet|transit|provider|uplink-isp)\b", re.I)
_VIRTUAL_IF = re.compile(r"^interface (loopback|null|tunnel|port-channel|nve|mgmt|management)", re.I)


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
class Interface:
    block: Line
    role: InterfaceRole

    @property
    def name(self) -> str:
        return self.block.text.split(None, 1)[1] if " " in self.block.text else self.block.text


@dataclass
class ParsedConfig:
    lines: list[Line]
    top: list[Line]
    platform: Platform
    hostname: str | None

    def find(self, pattern: re.Pattern[str], top_level: bool = False) -> list[Line]:
        pool = self.top if top_level else self.lines
        return [line for line in pool if pattern.search(line.text)]

    def blocks(self, parent: re.Pattern[str]) -> list[Line]:
        return [line for line in self.top if parent.search(line.text)]

    @cached_property
    def interfaces(self) -> list[Interface]:
        return [Interface(b, interface_role(b, self.platform)) for b in self.top if b.text.lower().startswith("interface ")]


def interface_role(block: Line, platform: Platform) -> InterfaceRole:
    """Role heuristic: switchport mode decides access/trunk; an IP address makes it routed; an
    internet-facing description or ASA ``nameif outside`` makes a routed port an edge port."""
    texts = [c.text.lower() for c in block.children]
    if _VIRTUAL_IF.search(block.text):
        return "virtual"
    if "shutdown" in texts:
        return "unused"
    if "switchport mode trunk" in texts:
        return "trunk"
    if "switchport mode access" in texts or any(t.startswith("switchport access vlan") for t in texts):
        return "access"
    has_ip = any(t.startswith("ip address ") and not t.startswith("ip address dhcp") or t.startswith("ip address dhcp")
                 for t in texts)
    routed = has_ip and "switchport" not in texts
    if platform == "asa" and any(t.startswith("nameif ") for t in texts):
        routed = True
    if not routed:
        return "unused" if not texts or texts == ["no ip address"] else "access"
    descr = " ".join(t for t in texts if t.startswith(("description", "nameif")))
    return "edge" if _EDGE_WORDS.search(descr) else "routed"


def detect_platform(text: str) -> Platform:
    head = text[:20000]
    if re.search(r"^(ASA|PIX|FWSM) Version|^\s*nameif \S+|^same-security-traffic", head, re.M):
        return "asa"
    if re.search(r"^feature \S+|^!Command: show running-config|NX-OS|^version \d+\.\d+\(\d+\)", head, re.M):
        return "nx-os"
    return "ios-xe"


def looks_like_config(text: str) -> bool:
    """At least three lines that start like device configuration commands."""
    hits = 0
    for raw in text.splitlines()[:5000]:
        if _CONFIG_MARKERS.match(raw.strip()) and not raw.startswith((" ", "\t")):
            hits += 1
            if hits >= 3:
                return True
    return False


def parse_config(text: str, platform: Platform | None = None) -> ParsedConfig:
    """Parse config text into an indentation tree; never raises on odd input."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines: list[Line] = []
    top: list[Line] = []
    stack: list[Line] = []
    banner_end: str | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        if banner_end is not None:  # inside a multi-line banner: plain text, not commands
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
    return ParsedConfig(lines=lines, top=top, platform=platform or detect_platform(text), hostname=hostname)
