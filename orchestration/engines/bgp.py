"""BGP neighbours as the configuration defines them, on every supported syntax.

IOS/IOS-XE write ``neighbor A remote-as N`` lines (also inside ``address-family ipv4 vrf V``, and through peer
groups); NX-OS and IOS-XR nest ``neighbor A`` blocks with ``remote-as N`` inside (also under ``vrf V``). A neighbour
is external when its AS is neither the router's own nor a member AS of its confederation: confederation peers
exchange routes like internal peers and are not the Internet edge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from orchestration.engines.config_parser import Line, ParsedConfig

_ROUTER = re.compile(r"^router bgp (\d+(?:\.\d+)?)$")
_FLAT = re.compile(r"^neighbor (\S+) remote-as (\d+(?:\.\d+)?)")
_NESTED = re.compile(r"^neighbor (\S+)$")
_IN_FILTER = re.compile(r"^(?:neighbor \S+ )?(prefix-list|route-map|filter-list|distribute-list|route-policy) \S+ in$")


@dataclass
class Neighbor:
    address: str
    remote_as: str
    line: Line  # the line that defines it (evidence)
    lines: list[Line] = field(default_factory=list)  # every line that configures it (nested block or flat lines)
    external: bool = False

    @property
    def authenticated(self) -> bool:
        return any(re.match(r"^(?:neighbor \S+ )?password ", ln.text) for ln in self.lines)

    @property
    def inbound_filter(self) -> bool:
        return any(_IN_FILTER.match(ln.text) for ln in self.lines)


@dataclass
class BgpView:
    local_as: str | None
    confederation_peers: set[str]
    neighbors: list[Neighbor]

    @property
    def external(self) -> list[Neighbor]:
        return [n for n in self.neighbors if n.external]


def bgp_view(cfg: ParsedConfig) -> BgpView:
    proc = next((b for b in cfg.top if _ROUTER.match(b.text)), None)
    if proc is None:
        return BgpView(None, set(), [])
    local_as = _ROUTER.match(proc.text).group(1)  # type: ignore[union-attr]
    body = proc.all_children()
    confed: set[str] = set()
    for ln in body:
        m = re.match(r"^(?:bgp )?confederation peers\s*(.*)$", ln.text)
        if m:
            confed.update(m.group(1).split())
            confed.update(c.text.strip() for c in ln.children if re.fullmatch(r"\d+(?:\.\d+)?", c.text.strip()))
    neighbors: dict[str, Neighbor] = {}
    groups: dict[str, list[Line]] = {}  # IOS peer-group name -> its lines
    for ln in body:
        flat = _FLAT.match(ln.text)
        if flat:
            nested_lines = [ln, *ln.all_children()] if ln.children else []  # NX-OS: 'neighbor A remote-as N' + block
            neighbors.setdefault(flat.group(1), Neighbor(flat.group(1), flat.group(2), ln, nested_lines))
            continue
        nested = _NESTED.match(ln.text)
        if nested and ln.children:
            remote = next((re.match(r"^remote-as (\S+)", c.text) for c in ln.all_children()
                           if c.text.startswith("remote-as ")), None)
            if remote:
                neighbors.setdefault(nested.group(1), Neighbor(nested.group(1), remote.group(1), ln, [ln, *ln.all_children()]))
    for ln in body:
        m = re.match(r"^neighbor (\S+) (.*)$", ln.text)
        if m and not ln.children:
            groups.setdefault(m.group(1), []).append(ln)
    for n in neighbors.values():
        if n.lines:
            continue
        own = groups.get(n.address, [])
        group = next((re.match(r"^neighbor \S+ peer-group (\S+)$", x.text).group(1)  # type: ignore[union-attr]
                      for x in own if re.match(r"^neighbor \S+ peer-group \S+$", x.text)), None)
        n.lines = own + (groups.get(group, []) if group else [])
    for peer_group, lines in groups.items():  # 'neighbor PG remote-as N' gives its members their AS
        remote = next((re.match(r"^neighbor \S+ remote-as (\S+)", x.text) for x in lines if " remote-as " in x.text), None)
        if remote and peer_group in neighbors:
            continue
        for x in lines:
            member = re.match(rf"^neighbor (\S+) peer-group {re.escape(peer_group)}$", x.text)
            if member and remote and member.group(1) not in neighbors:
                neighbors[member.group(1)] = Neighbor(member.group(1), remote.group(1), x,
                                                      groups.get(member.group(1), []) + lines)
    for n in neighbors.values():
        n.external = n.remote_as != local_as and n.remote_as not in confed
    return BgpView(local_as, confed, [n for n in neighbors.values() if _is_address(n.address)])


def _is_address(text: str) -> bool:
    return bool(re.fullmatch(r"[0-9a-fA-F:.]+(?:/\d+)?", text)) and any(ch.isdigit() for ch in text)
