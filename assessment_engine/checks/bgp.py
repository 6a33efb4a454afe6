"""One model of BGP per device: every neighbour with what it inherits, on every supported syntax.

Real networks rarely configure a neighbour on its own lines. They write:

- IOS/IOS-XE: ``neighbor A remote-as N`` lines, peer groups (``neighbor G peer-group`` defines G, ``neighbor A
  peer-group G`` makes A a member, and G's lines — remote-as, password, ``route-map X in`` — apply to A) and
  templates (``template peer-session S`` / ``template peer-policy P``, used by ``neighbor A inherit peer-session S``);
  VRF neighbours sit in ``address-family ipv4 vrf V``;
- NX-OS: ``neighbor A`` blocks (under ``vrf V`` too) that ``inherit peer T`` / ``inherit peer-session S`` /
  ``inherit peer-policy P n`` from ``template peer|peer-session|peer-policy`` blocks;
- IOS-XR: ``neighbor A`` blocks that ``use neighbor-group G`` / ``use session-group S`` / ``use af-group F``.

A neighbour's lines are its own followed by everything it inherits (templates inheriting templates too), so the
first ``remote-as`` found is the effective one: a neighbour's own value overrides its group's, as on the device.
A neighbour is external when its AS is neither the router's own nor a member AS of its confederation:
confederation peers exchange routes like internal peers and are not the Internet edge. The model is built once per
parsed configuration (``cfg.cache``); BGP rules and interface roles read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from assessment_engine.checks.config_parser import Line, ParsedConfig

_ROUTER = re.compile(r"^router bgp (\d+(?:\.\d+)?)$")
_FLAT = re.compile(r"^neighbor (\S+) (.+)$")
_NESTED = re.compile(r"^neighbor (\S+)(?: remote-as (\S+))?$")
_VRF_AF = re.compile(r"^address-family \S+ vrf (\S+)")
_NESTED_VRF = re.compile(r"^vrf (\S+)$")
# a template or group block, and the lines that pull one in: (kind of block, name)
_TEMPLATE = re.compile(r"^(?:template (peer|peer-session|peer-policy) (\S+)|(neighbor-group|session-group) (\S+)"
                       r"|(af-group) (\S+) address-family .*)$")
_USES = re.compile(r"^(?:neighbor \S+ )?(?:inherit (peer|peer-session|peer-policy) (\S+)(?: \d+)?"
                   r"|use (neighbor-group|session-group|af-group) (\S+))$")
_REMOTE_AS = re.compile(r"^(?:neighbor \S+ )?remote-as (\d+(?:\.\d+)?)\b")
_AUTH = re.compile(r"^(?:neighbor \S+ )?(?:password|keychain|ao|tcp-ao) \S+")
_IN_FILTER = re.compile(r"^(?:neighbor \S+ )?(prefix-list|route-map|filter-list|distribute-list|route-policy) (\S+)"
                        r"(?:\([^)]*\))? in$")


@dataclass
class Neighbor:
    address: str
    remote_as: str | None
    line: Line  # the line that defines it (evidence)
    lines: list[Line] = field(default_factory=list)  # its own lines, then every inherited one
    vrf: str | None = None
    inherits: tuple[str, ...] = ()  # the groups and templates it takes lines from, in order ("peer-group EDGE")
    external: bool = False

    @property
    def authenticated(self) -> bool:
        return any(_AUTH.match(ln.text) for ln in self.lines)

    @property
    def inbound_filters(self) -> list[tuple[str, str, Line]]:
        """(kind, name, line) of every inbound prefix filter: 'route-map', 'FROM-ISP', the line."""
        out = []
        for ln in self.lines:
            m = _IN_FILTER.match(ln.text)
            if m:
                out.append((m.group(1), m.group(2), ln))
        return out

    @property
    def inbound_filter(self) -> bool:
        return bool(self.inbound_filters)

    @property
    def described(self) -> str:
        """How evidence names it: '10.0.0.1 (AS 65001, vrf RED, from peer-group EDGE)'."""
        bits = [f"AS {self.remote_as}"] if self.remote_as else []
        bits += [f"vrf {self.vrf}"] if self.vrf else []
        bits += [f"from {', '.join(self.inherits)}"] if self.inherits else []
        return f"{self.address} ({', '.join(bits)})" if bits else self.address


@dataclass
class BgpView:
    local_as: str | None
    confederation_peers: set[str]
    neighbors: list[Neighbor]

    @property
    def external(self) -> list[Neighbor]:
        return [n for n in self.neighbors if n.external]


def bgp_view(cfg: ParsedConfig) -> BgpView:
    """The device's BGP model, built once per parsed configuration."""
    if "bgp" not in cfg.cache:
        cfg.cache["bgp"] = _build(cfg)
    view: BgpView = cfg.cache["bgp"]
    return view


def _build(cfg: ParsedConfig) -> BgpView:
    proc = next((b for b in cfg.top if _ROUTER.match(b.text)), None)
    if proc is None:
        return BgpView(None, set(), [])
    local_as = _ROUTER.match(proc.text).group(1)  # type: ignore[union-attr]
    confed: set[str] = set()
    for ln in proc.all_children():
        m = re.match(r"^(?:bgp )?confederation peers\s*(.*)$", ln.text)
        if m:
            confed.update(m.group(1).split())
            confed.update(c.text.strip() for c in ln.children if re.fullmatch(r"\d+(?:\.\d+)?", c.text.strip()))
    templates = {(_kind(m), _name(m)): ln for ln in proc.children if (m := _TEMPLATE.match(ln.text))}
    nested = _nested_neighbors(proc, templates)
    known = {(n.vrf, n.address) for n in nested}
    neighbors = nested + [n for n in _flat_neighbors(proc, templates) if (n.vrf, n.address) not in known]
    for n in neighbors:
        n.external = n.remote_as is not None and n.remote_as != local_as and n.remote_as not in confed
    return BgpView(local_as, confed, neighbors)


def _kind(m: re.Match[str]) -> str:
    kind = m.group(1) or m.group(3) or m.group(5)
    return kind


def _name(m: re.Match[str]) -> str:
    name = m.group(2) or m.group(4) or m.group(6)
    return name


def _inherited(lines: list[Line], templates: dict[tuple[str, str], Line], seen: set[tuple[str, str]]
               ) -> tuple[list[Line], list[str]]:
    """The lines the templates and groups named in ``lines`` contribute, recursively (a cycle is cut)."""
    out: list[Line] = []
    names: list[str] = []
    for ln in lines:
        m = _USES.match(ln.text)
        if not m:
            continue
        key = (m.group(1) or m.group(3), m.group(2) or m.group(4))
        block = templates.get(key)
        if block is None or key in seen:
            continue
        seen.add(key)
        names.append(f"{key[0]} {key[1]}")
        body = block.all_children()
        deeper, deeper_names = _inherited(body, templates, seen)
        out += body + deeper
        names += deeper_names
    return out, names


def _nested_neighbors(proc: Line, templates: dict[tuple[str, str], Line]) -> list[Neighbor]:
    """NX-OS and IOS-XR: ``neighbor A`` blocks, in the default VRF or under ``vrf V``."""
    out = []
    scopes = [(None, proc)] + [(m.group(1), c) for c in proc.children if (m := _NESTED_VRF.match(c.text))]
    for vrf, scope in scopes:
        for ln in scope.children:
            m = _NESTED.match(ln.text)
            if not m or not ln.children or not _is_address(m.group(1)):
                continue
            own = [ln, *ln.all_children()]
            inherited, names = _inherited(own, templates, set())
            lines = own + inherited
            remote = m.group(2) or next((r.group(1) for x in lines if (r := _REMOTE_AS.match(x.text))), None)
            out.append(Neighbor(m.group(1), remote, ln, lines, vrf, tuple(names)))
    return out


def _flat_neighbors(proc: Line, templates: dict[tuple[str, str], Line]) -> list[Neighbor]:
    """IOS/IOS-XE: ``neighbor A …`` lines, peer groups and session/policy templates, per VRF address family."""
    scopes: dict[str | None, list[Line]] = {None: []}
    for ln in proc.children:
        in_vrf = _VRF_AF.match(ln.text)
        if in_vrf:
            scopes.setdefault(in_vrf.group(1), []).extend(ln.children)
        elif ln.text.startswith("address-family "):
            scopes[None].extend(ln.children)
        elif not ln.children:
            scopes[None].append(ln)
    out = []
    for vrf, body in scopes.items():
        by_name: dict[str, list[Line]] = {}
        for ln in body:
            m = _FLAT.match(ln.text)
            if m and not ln.children:
                by_name.setdefault(m.group(1), []).append(ln)
        groups = {name for name, lines in by_name.items() if any(x.text == f"neighbor {name} peer-group" for x in lines)}
        global_groups = {} if vrf is None else _global_groups(scopes[None])
        for name, own in by_name.items():
            if name in groups or not _is_address(name):
                continue
            lines, names = list(own), []
            group = next((g.group(1) for x in own if (g := re.match(rf"^neighbor {re.escape(name)} peer-group (\S+)$",
                                                                     x.text))), None)
            if group:
                lines += by_name.get(group, []) if group in groups else global_groups.get(group, [])
                names.append(f"peer-group {group}")
            inherited, template_names = _inherited(lines, templates, set())
            lines += inherited
            names += template_names
            remote = next((r.group(1) for x in lines if (r := _REMOTE_AS.match(x.text))), None)
            if remote is None and not group and not template_names:
                continue  # 'neighbor A activate' for a neighbour defined elsewhere (nested syntax)
            defining = next((x for x in own if _REMOTE_AS.match(x.text) or " peer-group " in x.text), own[0])
            out.append(Neighbor(name, remote, defining, lines, vrf, tuple(names)))
        out += _listen_ranges(body, by_name, global_groups, vrf, templates)
    return out


def _listen_ranges(body: list[Line], by_name: dict[str, list[Line]], global_groups: dict[str, list[Line]],
                   vrf: str | None, templates: dict[tuple[str, str], Line]) -> list[Neighbor]:
    """Dynamic peers: 'bgp listen range 100.64.10.0/24 peer-group DYN_CUST' accepts a session from any address of
    the range with the group's settings — a neighbour like any other, named by its range."""
    out = []
    for ln in body:
        m = re.match(r"^bgp listen range (\S+) peer-group (\S+)$", ln.text)
        if not m:
            continue
        group = m.group(2)
        lines = [ln, *(by_name.get(group) or global_groups.get(group, []))]
        inherited, template_names = _inherited(lines, templates, set())
        lines += inherited
        remote = next((r.group(1) for x in lines if (r := _REMOTE_AS.match(x.text))), None)
        out.append(Neighbor(m.group(1), remote, ln, lines, vrf, (f"peer-group {group}", *template_names)))
    return out


def _global_groups(body: list[Line]) -> dict[str, list[Line]]:
    groups: dict[str, list[Line]] = {}
    defined = {m.group(1) for ln in body if (m := re.match(r"^neighbor (\S+) peer-group$", ln.text))}
    for ln in body:
        m = _FLAT.match(ln.text)
        if m and m.group(1) in defined:
            groups.setdefault(m.group(1), []).append(ln)
    return groups


def _is_address(text: str) -> bool:
    return bool(re.fullmatch(r"[0-9a-fA-F:.]+(?:/\d+)?", text)) and any(ch.isdigit() for ch in text) and (
        "." in text or ":" in text)


def passes_everything(cfg: ParsedConfig, kind: str, name: str) -> Line | None:
    """The line that makes an inbound filter accept every route, or None when it filters something.

    ``route-policy P`` whose only statement is ``pass``/``done``; a route-map that reaches a ``permit`` entry
    without a ``match`` before any entry denies (``permit 10`` with a match, then ``permit 20`` without one); a prefix-list whose first entry permits ``0.0.0.0/0 le 32`` (or ``::/0 le 128``); an
    as-path list whose first entry permits ``.*``. A filter that is not defined is not judged here (IOS denies
    everything through an undefined route-map; that is a reachability problem, not a leak)."""
    if kind == "route-policy":
        block = next((b for b in cfg.top if b.text == f"route-policy {name}"), None)
        body = [c.text for c in block.all_children()] if block else []
        return block if block and body and all(t in ("pass", "done") for t in body) else None
    if kind == "route-map":
        # entries in sequence: a route no entry matched reaches the next; the first entry without a 'match' takes
        # every route left — a permit there accepts them all, unless an entry before it denied some
        entries = sorted(((int(m.group(2)), m.group(1), b) for b in cfg.top
                          if (m := re.match(rf"^route-map {re.escape(name)} (permit|deny) (\d+)$", b.text))),
                         key=lambda e: e[0])
        for _, action, block in entries:
            matches = any(c.text.startswith("match ") for c in block.children)
            if not matches:
                return block if action == "permit" else None
            if action == "deny":
                return None
        return None
    if kind == "prefix-list":
        entry = _first_entry(cfg, rf"^(?:ip|ipv6) prefix-list {re.escape(name)} (?:seq \d+ )?(permit|deny) (\S+)(.*)$")
        if entry and entry[0].group(1) == "permit" and entry[0].group(2) in ("0.0.0.0/0", "::/0") and re.search(
                r"\ble (32|128)\b", entry[0].group(3)):
            return entry[1]
    if kind == "filter-list":
        entry = _first_entry(cfg, rf"^ip as-path access-list {re.escape(name)} (?:seq \d+ )?(permit|deny) (.*)$")
        if entry and entry[0].group(1) == "permit" and entry[0].group(2).strip() in (".*", "^.*$"):
            return entry[1]
    return None


def _first_entry(cfg: ParsedConfig, pattern: str) -> tuple[re.Match[str], Line] | None:
    for ln in cfg.top:
        m = re.match(pattern, ln.text)
        if m:
            return m, ln
    return None
