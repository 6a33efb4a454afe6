"""Fixes derived from a failing result's evidence and proven by re-judging the patched configuration.

The catalog's remediation is a pattern ("line vty 0 15 / transport input ssh", "neighbor <ip> password <secret>").
A device needs *its* fix: the lines its evidence shows negated or replaced (``no telnet 10.0.0.0 255.0.0.0 inside``,
not ``no telnet 0.0.0.0 0.0.0.0 inside``), its own VTY ranges, interfaces, BGP neighbours (or the peer-group that
holds them), VRFs, AS number and AAA server group. ``derive_fix`` writes that; ``verify_fix`` applies it to the
configuration text in memory (``apply_commands``: a ``no`` line removes what it names, a command replaces the
sibling that sets the same thing — ``exec-timeout 0 0`` by ``exec-timeout 10 0``) and judges the result with every
rule: the fix is *verified* when its rule no longer fails and no other rule is worse than before. What the user must
fill in (a new secret, the management subnet) stays a ``<placeholder>``; secrets the device already has are shown
masked. hier_config (its ``future()``) was evaluated for the patching: its IOS idempotency rules left
``exec-timeout 0 0`` beside ``exec-timeout 10 0`` and both method lists of an ``aaa authentication login`` in place,
and it has no ASA driver — so the few replacement rules a fix needs are written here (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from assessment_engine.checks.access import keeps_access, ways_in
from assessment_engine.checks.bgp import bgp_view
from assessment_engine.checks.config_parser import Line, ParsedConfig, parse_config
from assessment_engine.checks.interfaces import carries_default_route, faces_external_peer, networks_of
from assessment_engine.checks.rule_engine import (
    Rule,
    RuleResult,
    evaluate_config,
    family,
    interfaces,
    undefined_references,
)
from foundation.secrets import mask_line

# Commands that set one value: a new one replaces the old (the key is what the line sets, not its value)
_SETS_ONE = [re.compile(p) for p in (
    r"^(exec-timeout) ", r"^(transport input) ", r"^(transport output) ", r"^(access-class) \S+ (in|out)",
    r"^(access-class ingress) ", r"^(ip ssh (?:time-out|authentication-retries|version)) ", r"^(ssh server v2)$",
    r"^(aaa authentication (?:login|enable|ssh \S+|dot1x) \S+) ", r"^(aaa accounting (?:exec|commands \d+|commands) \S+) ",
    r"^(logging (?:buffered|source-interface|trap)) ", r"^(service timestamps log) ", r"^(username \S+) ",
    r"^(enable (?:secret|password|algorithm-type)) ", r"^(ssh version) ", r"^(ssl server-version) ", r"^(ssl cipher \S+) ",
    r"^(standby \d+ authentication) ", r"^(ip verify unicast) ", r"^(switchport mode) ", r"^(banner \S+) ",
    r"^(snmp-server community \S+) ", r"^(snmp-server group \S+ v3) ", r"^(password) ", r"^(secret) ",
    r"^(neighbor \S+ password) ", r"^(vtp mode) ", r"^(spanning-tree portfast bpduguard) ",
    r"^(?:no )?(login)(?: local| authentication \S+)?$",
    r"^((?:ntp )?server (?:vrf \S+ )?\d[\d.:]*)(?: |$)",  # an NTP server given again with its key replaces the old
)]


@dataclass
class Fix:
    """The commands for one device (``shown``: secrets masked), and whether re-judging proved them."""

    rule_id: str
    commands: list[str]
    shown: list[str] = field(default_factory=list)
    verified: bool = False
    note: str = ""

    @property
    def label(self) -> str:
        return ("verified on the patched configuration: the check passes, no other check is worse and a way in is kept"
                + (f" — {self.note}" if self.note else "") if self.verified
                else f"not verified: {self.note}")


# --- applying commands to configuration text -----------------------------------------------------------------
def _tree(commands: list[str]) -> list[tuple[str, list]]:  # type: ignore[type-arg]
    """Indented command lines as (text, children) pairs; '!' comments dropped."""
    root: list[tuple[str, list]] = []  # type: ignore[type-arg]
    stack: list[tuple[int, list]] = [(-1, root)]  # type: ignore[type-arg]
    for raw in commands:
        text = raw.strip()
        if not text or text.startswith("!"):
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        node: tuple[str, list] = (text, [])  # type: ignore[type-arg]
        stack[-1][1].append(node)
        stack.append((depth, node[1]))
    return root


@dataclass
class _Node:
    text: str
    children: list[_Node] = field(default_factory=list)
    body: list[str] = field(default_factory=list)  # a multi-line banner's text, written back as it was


def _nodes(lines: list[Line], banners: dict[int, list[str]]) -> list[_Node]:
    return [_Node(ln.text, _nodes(ln.children, banners), banners.get(ln.number, [])) for ln in lines]


def _sets(text: str) -> str | None:
    """What a command sets ('exec-timeout', 'access-class in', 'username bob'), or None for a list entry."""
    return next((" ".join(g for g in m.groups() if g) for rx in _SETS_ONE if (m := rx.match(text))), None)


def _merge(siblings: list[_Node], commands: list[tuple[str, list]],  # type: ignore[type-arg]
           stored: frozenset[str]) -> None:
    for text, children in commands:
        if text.startswith(("no ", "default ")) and not children:
            target = text.split(None, 1)[1]
            kept = [s for s in siblings if not (s.text == target or s.text.startswith(target + " "))]
            if (len(kept) == len(siblings) or text in stored) and text.startswith("no ") and not any(
                    s.text == text for s in kept):
                kept.append(_Node(text))  # a default-on service switched off is stored as its 'no' form
            siblings[:] = kept
            continue
        same = next((s for s in siblings if s.text == text), None)
        if same is None:
            key = _sets(text)
            siblings[:] = [s for s in siblings if s.text != f"no {text}"
                           and (key is None or s.children or _sets(s.text) != key)]
            same = _Node(text)
            siblings.append(same)
        _merge(same.children, children, stored)


def apply_commands(cfg: ParsedConfig, commands: list[str], stored: frozenset[str] = frozenset()) -> str:
    """The configuration text after ``commands`` (indented as typed) are applied, as the device would store it.
    A ``no X`` line removes what X names; when X was not there (a default-on service) — or it is one of ``stored``,
    the 'no' forms the device shows once a default-on service is off (``no service pad``) — the line stays."""
    top = _nodes(cfg.top, cfg.cache.get("banner_bodies", {}))
    _merge(top, _tree(commands), stored)
    out: list[str] = []

    def emit(nodes: list[_Node], depth: int) -> None:
        for n in nodes:
            out.append(" " * depth + n.text)
            out.extend(n.body)
            emit(n.children, depth + 1)

    emit(top, 0)
    return "\n".join(out) + "\n"


# --- deriving the device's own fix ---------------------------------------------------------------------------
def _server_group(cfg: ParsedConfig) -> str | None:
    """The AAA server group the device already uses (or defines), to put in place of the catalog's 'tacacs+'."""
    for ln in cfg.top:
        m = re.match(r"^aaa (?:authentication|authorization|accounting) .*\bgroup (\S+)", ln.text)
        if m:
            return m.group(1)
    m2 = next((re.match(r"^aaa group server (?:tacacs\+|radius) (\S+)", ln.text) for ln in cfg.top
               if ln.text.startswith("aaa group server ")), None)
    return m2.group(1) if m2 else None


def _in_context(lines: list[Line], negate: bool) -> list[str]:
    """Each line under its parents, negated when asked: the commands that remove exactly these lines."""
    out: list[str] = []
    for ln in lines:
        chain: list[Line] = []
        parent = ln.parent
        while parent is not None:
            chain.insert(0, parent)
            parent = parent.parent
        for depth, p in enumerate(chain):
            if " " * depth + p.text not in out:
                out.append(" " * depth + p.text)
        text = ln.text[3:] if negate and ln.text.startswith("no ") else (f"no {ln.text}" if negate else ln.text)
        out.append(" " * len(chain) + text)
    return out


def _split_under(fix: list[str], parent: re.Pattern[str]) -> tuple[list[str], list[str]]:
    """The catalog's lines under its top-level lines that match ``parent`` ('interface <if>' → ' no ip proxy-arp'),
    and the lines outside them (the ACL a VTY fix refers to)."""
    under: list[str] = []
    outside: list[str] = []
    inside = False
    for line in fix:
        if not line.startswith(" "):
            inside = bool(parent.search(line))
            if inside:
                continue
        (under if inside else outside).append(line)
    return under, outside


def _evidence_lines(cfg: ParsedConfig, result: RuleResult) -> list[Line]:
    by_number = {ln.number: ln for ln in cfg.lines}
    return [by_number[n] for n in result.evidence_lines if n in by_number]


def _blocks_fix(blocks: list[Line], children: list[str]) -> list[str]:
    out: list[str] = []
    for b in blocks:
        out += _in_context([b], negate=False) + [" " * _depth(b) + c for c in children]
    return out


def _depth(line: Line) -> int:
    depth, parent = 0, line.parent
    while parent is not None:
        depth, parent = depth + 1, parent.parent
    return depth


def _bgp_fix(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """Per failing neighbour — or the peer-group / template it takes its session from — in its VRF."""
    view = bgp_view(cfg)
    failing = set(result.evidence_lines)
    targets = [n for n in view.neighbors if n.line.number in failing or any(ln.number in failing for ln in n.lines)]
    nested = family(cfg.platform) in ("nx-os", "ios-xr")
    at = next((i for i, ln in enumerate(fix) if ln.startswith("router bgp ")), 0)
    preamble, body = fix[:at], fix[at + 1:]  # what the neighbour lines refer to (the filter), then the neighbours
    out = [f"router bgp {view.local_as}"]
    done: set[tuple[str, str | None]] = set()
    for n in targets:
        group = next((g.split(" ", 1)[1] for g in n.inherits if g.startswith("peer-group ")), None)
        who = group if group and not nested else n.address
        if (who, n.vrf) in done:
            continue
        done.add((who, n.vrf))
        lines = [ln.replace("<ip>", who) for ln in body]
        if nested:
            prefix = [f" vrf {n.vrf}"] if n.vrf else []
            out += prefix + [(" " if n.vrf else "") + ln for ln in lines]
        else:
            af = f" address-family ipv4 vrf {n.vrf}" if n.vrf else " address-family ipv4"
            flat = [ln for ln in lines if ln.strip().startswith("neighbor ")]
            in_af = any(ln.startswith(" address-family") for ln in lines)
            out += ([af] if in_af or n.vrf else []) + [("  " if in_af or n.vrf else " ") + ln.strip() for ln in flat]
    return preamble + out if len(out) > 1 else fix


def _fix_method_none(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    return [re.sub(r"\s+none\b", "", ln.text) for ln in evidence]  # the same method list without its 'none'


def _fix_user_hash(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """The same users with a strong hash (and a new password: the old one is known)."""
    if family(cfg.platform) == "ios-xe":
        return [re.sub(r"\b(?:password|secret) [07] \S+.*$", "algorithm-type scrypt secret <password>", ln.text)
                for ln in evidence]
    return [x for ln in evidence for x in _in_context([ln], negate=True) + [" secret 10 <password>"]]


def _fix_asa_management(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """Each line open to any address removed. Where the device already admits the service from a network of its own
    ('http 10.250.0.0 255.255.0.0 management'), that is the way in kept and nothing is added; else the same service on
    the same interface (its own nameif — 'mgmt', not the catalog's 'management', which the ASA refuses where no
    interface has that name) is opened to the management network first."""
    restricted = {ln.text.split()[0] for ln in cfg.top
                  if re.match(r"^(?:http|ssh) \d+\.\d+\.\d+\.\d+ \d+\.\d+\.\d+\.\d+ \S+$", ln.text)
                  and ln.text.split()[1] != "0.0.0.0"}
    added = [f"{ln.text.split()[0]} <MGMT-SUBNET> <MASK> {ln.text.split()[-1]}" for ln in evidence
             if ln.text.split()[0] not in restricted]
    return added + [f"no {ln.text}" for ln in evidence]


def _fix_log_source(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """Logs sourced from the device's own loopback — IOS refuses an interface it does not have — else from the
    interface the engineer names."""
    loopback = next((ln.text.split()[1] for ln in cfg.top if re.match(r"^interface Loopback\d+$", ln.text, re.I)), None)
    return [f"logging source-interface {loopback or '<source-interface>'}"]


def _fix_asa_aaa_ssh(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """SSH authenticated by the device's own AAA server group with the local users behind it — or by the local users
    alone where it has none (the catalog's 'TACACS' group does not exist there, and the ASA refuses the line)."""
    group = next((ln.text.split()[1] for ln in cfg.top if re.match(r"^aaa-server \S+ protocol (?:tacacs\+|radius)", ln.text)),
                 None)
    return [f"aaa authentication ssh console {group} LOCAL" if group else "aaa authentication ssh console LOCAL"]


def _fix_asa_telnet(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """Telnet removed — after SSH is opened from the same addresses on the same interface where it was not, so the
    administrators who came in by telnet still have a way in (its prerequisites follow from the access model)."""
    ssh = {ln.text for ln in cfg.top if ln.text.startswith("ssh ")}
    out = [f"ssh {ln.text.split(None, 1)[1]}" for ln in evidence if f"ssh {ln.text.split(None, 1)[1]}" not in ssh]
    # no SSH line at all: no sign the ASA has a key to offer (it is not in the running configuration)
    keys = ["crypto key generate rsa modulus 2048"] if out and not any(re.match(r"^ssh \d", t) for t in ssh) else []
    return keys + list(dict.fromkeys(out)) + [f"no {ln.text}" for ln in evidence]


def _fix_fhrp(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """Each HSRP/VRRP group of each interface the evidence shows, by its own number."""
    out: list[str] = []
    for b in evidence:
        out.append(b.text)
        for c in b.children:
            if re.match(r"^(standby|vrrp) \d+ (ip|address)\b", c.text):
                out.append(f" {' '.join(c.text.split()[:2])} authentication md5 key-string <key>")
            elif re.match(r"^hsrp \d+$", c.text):
                out += [f" {c.text}", "  authentication md5 key-string <key>"]
    return out


def _fix_snmp_acl(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    return ["ip access-list standard SNMP-MGMT", " permit <MGMT-SUBNET> <WILDCARD>",
            *(f"{ln.text} SNMP-MGMT" for ln in evidence)]  # the same communities, restricted


def _fix_snmp_rw(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """The same communities read-only (their ACL kept) — not removed: the pollers that use them keep working."""
    return [re.sub(r"\bgroup network-admin\b", "group network-operator", re.sub(r"\b(?:RW|rw)\b", "RO", ln.text))
            for ln in evidence]


def _fix_snmp_v3(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """v3 with AES privacy added; v1/v2c communities and DES users removed, v3 groups raised to 'priv'."""
    if not evidence:
        return fix
    weak = re.compile(r"\bpriv (des|3des|des56)\b|\bpriv 0x")
    return ([ln for ln in fix if not ln.startswith("no ")]
            + [f"no {ln.text}" if "community" in ln.text or weak.search(ln.text)
               else re.sub(r" v3 (noauth|auth)\b", " v3 priv", ln.text) for ln in evidence])


def _fix_line_auth(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """The device's own lines, authenticated locally — or by the default list where they named a missing one."""
    blocks = _blocks_of(evidence)
    return [x for b in blocks for x in (b.text, " no login authentication" if any(
        c.text.startswith("login authentication ") for c in b.children) else " login local")] or fix


def _fix_forbidden(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """The offending lines negated in their context, with the catalog's top-level additions (not its 'no' forms)."""
    positive = [ln for ln in fix if not ln.strip().startswith("no ") and "<string>" not in ln]
    if any(ln.startswith(" ") for ln in fix):
        positive = []
    return _in_context(evidence, negate=True) + positive


def _fix_blocks(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """The catalog's line settings under each of the device's own line blocks the evidence shows."""
    blocks = _blocks_of(evidence)
    under, outside = _split_under(fix, re.compile(r"^line "))
    children = list(dict.fromkeys(under))  # vty and console alike
    return outside + _blocks_fix(blocks, children) if blocks and children else fix


def _fix_interfaces(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """The catalog's interface settings under each failing interface — for a routing protocol's keys, under each
    interface that runs it (a key on an interface without an adjacency protects nothing, and the adjacency left
    without one drops once its area asks for authentication). None found: the catalog's ``<if>`` stays, for the
    engineer to fill in, and the fix is not verified."""
    failing = [v.interface for v in result.interfaces if v.status == "fail"]
    names = failing or (routing_interfaces(cfg, "ospf") if result.rule_id == "OSPF-AUTH" else [])
    children = _split_under(fix, re.compile(r"^interface <if>"))[0]
    before = fix[:next(i for i, ln in enumerate(fix) if "<if>" in ln)]  # 'router ospf 1' / ' area 0 authentication …'
    blocks = {i.name: i.block for i in interfaces(cfg)}
    per_if = [line for name in names for line in [f"interface {name}", *_for_interface(cfg, blocks.get(name), children)]]
    return before + per_if if names else fix


def _for_interface(cfg: ParsedConfig, block: Line | None, children: list[str]) -> list[str]:
    """Strict uRPF drops a packet whose source the device routes back out of another interface. Facing an eBGP peer
    (routes learned there, several ways out) that is legitimate traffic: there uRPF is loose ('reachable-via any':
    drops sources with no route at all, BCP 38's spoofed bogons). Where the default route leaves, every source
    is reached only by it: there strict uRPF allows the default route."""
    if block is None:
        return children
    strict = re.compile(r"verify unicast source reachable-via rx$")
    if faces_external_peer(cfg, block):
        return [strict.sub("verify unicast source reachable-via any", c) for c in children]
    if carries_default_route(cfg, block):
        return [f"{c} allow-default" if strict.search(c) else c for c in children]
    return children


def routing_interfaces(cfg: ParsedConfig, protocol: str, process: str | None = None) -> list[str]:
    """The interfaces that run OSPF or EIGRP (``protocol``; of ``process`` when given): 'ip ospf N area' (IOS),
    'ip router ospf|eigrp TAG' (NX-OS), or an address inside a 'network' statement of the process (its wildcard, or
    the classful mask EIGRP assumes without one); a passive interface forms no adjacency and is left out."""
    procs = [ln for ln in cfg.top if ln.text.startswith(f"router {protocol} ")
             and (process is None or ln.text.split()[2] == process)]
    statements: list[ipaddress.IPv4Network] = []
    passive: set[str] = set()
    active: set[str] = set()
    passive_default = False
    for proc in procs:
        for c in proc.all_children():
            m = re.match(r"^network (\d+\.\d+\.\d+\.\d+)(?: (\d+\.\d+\.\d+\.\d+))?(?: area \S+)?$", c.text)
            if m:
                statements += _network_statement(m.group(1), m.group(2))
            passive_default |= c.text == "passive-interface default"
            if c.text.startswith("passive-interface ") and c.text != "passive-interface default":
                passive.add(c.text.split(None, 1)[1].lower())
            if c.text.startswith("no passive-interface "):
                active.add(c.text.split(None, 2)[2].lower())
    tag = re.escape(process) if process else r"\S+"
    own = re.compile(rf"^ip (?:{protocol} {tag} area |router {protocol} {tag}\b)")
    out = []
    for i in interfaces(cfg):
        runs = any(own.match(c.text) for c in i.block.children) or any(
            n.ip in net for n in networks_of(i.block) for net in statements)
        lowered = i.name.lower()
        if lowered.startswith("loopback"):
            continue  # advertised, but no neighbour is ever met on it
        if runs and lowered not in passive and not (passive_default and lowered not in active):
            out.append(i.name)
    return out


def _network_statement(address: str, wildcard: str | None) -> list[ipaddress.IPv4Network]:
    try:
        if wildcard:
            return [ipaddress.IPv4Network(f"{address}/{wildcard}", strict=False)]
        first = int(address.split(".")[0])  # classful: A /8, B /16, C /24
        return [ipaddress.IPv4Network(f"{address}/{8 if first < 128 else 16 if first < 192 else 24}", strict=False)]
    except ValueError:
        return []


def _fix_ntp_auth(cfg: ParsedConfig, result: RuleResult, fix: list[str], evidence: list[Line]) -> list[str]:
    """The catalog's key and 'authenticate' lines, and the device's own servers (their VRF and options kept) given
    that key — not a placeholder server: once 'ntp authenticate' is on, a server without the key is not trusted."""
    nested = any(ln.text == "ntp" for ln in cfg.top)  # IOS-XR: servers under an 'ntp' block
    servers = ([c for b in cfg.top if b.text == "ntp" for c in b.children if c.text.startswith("server ")] if nested
               else [ln for ln in cfg.top if ln.text.startswith("ntp server ")])
    if not servers:
        return fix
    keyed = []
    for ln in servers:
        words = ln.text.split()
        at = words.index("server") + 1
        at += 2 if words[at:at + 1] == ["vrf"] else 0  # the address follows 'server' and its VRF
        if "key" not in words and at < len(words):
            words = words[: at + 1] + ["key", "1"] + words[at + 1:]
        keyed.append((" " if nested else "") + " ".join(words))
    kept = [ln for ln in fix if not re.search(r"server <NTP-SERVER", ln)]
    return kept + keyed


def _blocks_of(evidence: list[Line]) -> list[Line]:
    """The line blocks evidence lines are (or sit in), each once."""
    parents = [ln if ln.text.startswith("line ") else ln.parent for ln in evidence]
    return [b for i, b in enumerate(parents) if b is not None and b not in parents[:i]]


Deriver = Callable[[ParsedConfig, RuleResult, list[str], list[Line]], list[str]]
# by rule id or custom-check name; rules not named here are derived by their check kind
_DERIVERS: dict[str, Deriver] = {
    "AAA-METHOD-NONE": _fix_method_none, "PWD-USER-HASH": _fix_user_hash, "ASA-MGMT-ANY": _fix_asa_management,
    "undefined_references": lambda cfg, result, fix, evidence: _define_missing(cfg),
    "bgp_neighbor_auth": _bgp_fix, "bgp_ebgp_filter": _bgp_fix, "hsrp_auth": _fix_fhrp,
    "eigrp_auth": lambda cfg, result, fix, evidence: _eigrp_fix(cfg, evidence),
    "snmp_community_acl": _fix_snmp_acl, "snmp_v3_priv": _fix_snmp_v3,
    "vty_auth": _fix_line_auth, "con_auth": _fix_line_auth, "exec_timeout": _fix_blocks,
    "ASA-TELNET": _fix_asa_telnet, "ASA-AAA-SSH": _fix_asa_aaa_ssh,
    "LOG-SOURCE-IF": _fix_log_source, "ntp_auth": _fix_ntp_auth, "SNMP-RW": _fix_snmp_rw,
}


def derive_fix(rule: Rule, cfg: ParsedConfig, result: RuleResult) -> list[str]:
    """The commands that fix ``result`` on this device, written from its evidence and its own names: the catalog's
    pattern with the device's OSPF process and AAA server group, shaped by the rule (``_DERIVERS``) or its check."""
    fix = _own_process(cfg, list(rule.fix_for(cfg.platform)))
    group = _server_group(cfg)
    if group:
        fix = [ln.replace("group tacacs+", f"group {group}") for ln in fix]
    evidence = _evidence_lines(cfg, result)
    check = rule.check
    deriver = _DERIVERS.get(rule.id) or _DERIVERS.get(check.function or "")
    if deriver is None and check.kind in ("forbid", "block_forbid", "iface_forbid") and evidence:
        deriver = _fix_forbidden
    elif deriver is None and check.kind == "block_require":
        deriver = _fix_blocks
    elif deriver is None and "<if>" in " ".join(fix):
        deriver = _fix_interfaces
    commands = deriver(cfg, result, fix, evidence) if deriver else fix
    if rule.check.function == "bgp_ebgp_filter":
        commands = _without_own_space(cfg, commands)
    return _for_release(cfg, _removals_last(_once(_with_aaa(cfg, commands))))


def _with_aaa(cfg: ParsedConfig, commands: list[str]) -> list[str]:
    """IOS takes 'aaa authentication|authorization|accounting' only once AAA is on: 'aaa new-model' first; and a
    list that names 'group tacacs+' on a device with no TACACS+ or RADIUS server asks a server nobody defined: its
    definition (the engineer's address and key) comes first."""
    if family(cfg.platform) != "ios-xe":
        return commands
    aaa = any(re.match(r"^aaa (?:authentication|authorization|accounting) ", c) for c in commands)
    servers = any(re.match(r"^(?:tacacs-server host|tacacs server|radius-server host|radius server) ", ln.text)
                  for ln in cfg.top)
    first: list[str] = []
    server = aaa and not servers and any("group tacacs+" in c for c in commands)
    if server and not any(re.match(r"^username \S+ .*\b(?:password|secret)\b", ln.text) for ln in cfg.top):
        first.append(_ADMIN_USER)  # the new server is not known to answer yet: 'local' needs a user behind it
    if aaa and not any(ln.text == "aaa new-model" for ln in cfg.top) and "aaa new-model" not in commands:
        first.append("aaa new-model")
    if server:
        first += ["tacacs server <TACACS-SERVER-NAME>", " address ipv4 <TACACS-SERVER>", " key <key>"]
    return first + commands


def _removals_last(commands: list[str]) -> list[str]:
    """A top-level 'no …' that removes what the fix replaces comes after the new line ('enable secret' before
    'no enable password', the restricted 'http' before the open one is removed): were the new line refused, the
    old one still stands. A 'no' whose target the fix then adds again (a server given anew) keeps its place."""
    removals = [c for c in commands if c.startswith("no ") and not c.startswith(" ")
                and not any(a.startswith(c[3:]) for a in commands if not a.startswith(("no ", " ")))]
    if not removals or all(c.startswith("no ") for c in commands if not c.startswith(" ")):
        return commands
    return [c for c in commands if c not in removals] + removals


# Syntax a release must have: (what the fix says, the first IOS release that accepts it, what an older one takes).
# Type 9 (scrypt) secrets came with IOS 15.3(3)M / IOS-XE 3.10S; a 12.2 switch refuses the line — and where the
# old line was removed first, keeps neither.
_RELEASE_GATES: list[tuple[re.Pattern[str], tuple[int, int], str]] = [
    (re.compile(r"\balgorithm-type scrypt secret\b"), (15, 3), "secret"),
]


def release_of(cfg: ParsedConfig) -> tuple[int, int] | None:
    """The IOS release a configuration names ('version 12.2' → (12, 2)); None when it names none."""
    for ln in cfg.top[:40]:
        m = re.match(r"^version (\d+)\.(\d+)", ln.text)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def _for_release(cfg: ParsedConfig, commands: list[str]) -> list[str]:
    release = release_of(cfg) if family(cfg.platform) == "ios-xe" else None
    for rx, first, older in _RELEASE_GATES:
        if release is not None and release < first:
            commands = [rx.sub(older, c) for c in commands]
    return commands


def _own_space(cfg: ParsedConfig) -> list[ipaddress.IPv4Network]:
    """The address space the device lives in: its interfaces' subnets and its BGP neighbours' addresses."""
    nets = [n.network for i in interfaces(cfg) for n in networks_of(i.block)]
    for n in bgp_view(cfg).neighbors:
        try:
            nets.append(ipaddress.IPv4Network(n.address, strict=False))
        except ValueError:
            continue
    return nets


def _without_own_space(cfg: ParsedConfig, commands: list[str]) -> list[str]:
    """A bogon filter that drops no route of the device's own address space: RFC 1918 is a bogon on the Internet,
    but the fabric of a data centre numbered in 10.0.0.0/8 peers and routes inside it."""
    own = _own_space(cfg)

    def drops_own(line: str) -> bool:
        m = re.match(r"^\s*(?:ip prefix-list \S+ seq \d+ deny )?(\d+\.\d+\.\d+\.\d+/\d+) le 32,?$", line)
        if not m or (not line.startswith("ip prefix-list") and not line.startswith(" ")):
            return False
        prefix = ipaddress.IPv4Network(m.group(1), strict=False)
        return prefix.prefixlen > 0 and any(prefix.overlaps(n) for n in own)

    kept = [c for c in commands if not drops_own(c)]
    # an IOS-XR prefix-set: its last element carries no comma
    return [c.rstrip(",") if i + 1 < len(kept) and kept[i + 1] == "end-set" else c for i, c in enumerate(kept)]


_ADMIN_USER = "username <admin-user> privilege 15 algorithm-type scrypt secret <password>"


def _prerequisites(cfg: ParsedConfig, needs: Collection[str]) -> list[str]:
    """What must be in place before the fix, for the ways in it would close otherwise: a local user before a line
    asks for one, keys and a domain name before SSH is the only transport, 'login local' where SSH needs a user name,
    the ASA's SSH authentication method."""
    out: list[str] = []
    if "user" in needs:
        out.append(_ADMIN_USER)
    if "asa-user" in needs:
        out.append("username <admin-user> password <password> privilege 15")
    if "asa-ssh-aaa" in needs:
        out.append("aaa authentication ssh console LOCAL")
    if "ssh-keys" in needs:
        if not any(ln.text.startswith(("ip domain name ", "ip domain-name ")) for ln in cfg.top):
            out.append("ip domain name <domain-name>")
        out += ["crypto key generate rsa modulus 2048", "ip ssh version 2"]
    out += ["feature ssh"] if "nx-ssh" in needs else []
    out += ["ssh server v2"] if "xr-ssh" in needs else []
    for need in needs:
        if need.startswith("login-local:"):
            out += [need.split(":", 1)[1], " login local"]
    return out


def _once(commands: list[str]) -> list[str]:
    """A top-level command given twice (the catalog's and the one written from the evidence) kept once; lines in a
    block are kept as they are (the same setting under two VTY ranges is two commands); a block opened again after
    other blocks only (a prerequisite's 'line vty 0 4 / login local', then the fix's 'line vty 0 4 / transport
    input ssh') is one block, its lines in the order given."""
    out: list[str] = []
    for i, line in enumerate(commands):
        opens_block = i + 1 < len(commands) and commands[i + 1].startswith(" ")
        if not line.startswith(" ") and not opens_block and line in out:
            continue
        out.append(line)
    return _blocks_merged(out)


def _blocks_merged(commands: list[str]) -> list[str]:
    groups: list[tuple[str, list[str]]] = []
    for line in commands:
        if line.startswith(" ") and groups:
            groups[-1][1].append(line)
        else:
            groups.append((line, []))
    merged: list[tuple[str, list[str]]] = []
    for head, body in groups:
        earlier = next((g for g in reversed(merged) if g[0] == head and g[1]), None) if body else None
        between = merged[merged.index(earlier) + 1:] if earlier is not None else []
        if earlier is not None and all(g[1] for g in between):
            earlier[1].extend(b for b in body if b not in earlier[1])
        else:
            merged.append((head, list(body)))
    return [x for head, body in merged for x in (head, *body)]


# What each missing list becomes: the behaviour the device has today made explicit where that is safe (an undefined
# route-map or prefix-list denies every route in BGP), else a definition whose entries the user writes.
_STUBS = {
    "route-map": ["route-map {name} deny 10", " ! today's behaviour (deny every route) made explicit: write the entries you meant"],
    "prefix-list": ["ip prefix-list {name} seq 5 deny 0.0.0.0/0 le 32", "! write the prefixes you meant to allow"],
    "access-list": ["ip access-list {acl} {name}", " permit <the traffic {name} was meant to allow>"],
    "class-map": ["class-map match-any {name}", " match <the traffic of class {name}>"],
    "policy-map": ["policy-map {name}", " class class-default"],
}


def _define_missing(cfg: ParsedConfig) -> list[str]:
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for line, kind, name in undefined_references(cfg):
        if (kind, name) in seen:
            continue
        seen.add((kind, name))
        acl = "extended" if "access-group" in line.text else "standard"
        out += [x.format(name=name, acl=acl) for x in _STUBS[kind]]
    return out


def _eigrp_fix(cfg: ParsedConfig, evidence: list[Line]) -> list[str]:
    """Classic mode: a key chain and the interfaces' authentication for the process's AS; named mode: the
    address family's default af-interface."""
    out: list[str] = []
    for proc in evidence:
        name = proc.text.split()[2]
        routed = routing_interfaces(cfg, "eigrp", name) or ["<if>"]
        family_line = next((c.text for c in proc.children if c.text.startswith("address-family ")), None)
        if family_line:
            out += [proc.text, f" {family_line}", "  af-interface default", "   authentication mode hmac-sha-256 <key>"]
            continue
        out += ["key chain EIGRP-KEYS", " key 1", "  key-string <key>"]
        for iface in routed:
            out += [f"interface {iface}", f" ip authentication mode eigrp {name} md5",
                    f" ip authentication key-chain eigrp {name} EIGRP-KEYS"]
    return out


def _own_process(cfg: ParsedConfig, lines: list[str]) -> list[str]:
    """'router ospf 1' / 'router ospf <process>' as the device numbers its process."""
    proc = next((ln.text for ln in cfg.top if ln.text.startswith("router ospf ")), None)
    return [proc if proc and ln.startswith("router ospf ") else ln for ln in lines]


# What the user fills in, replaced for judging by values of the right form (documentation addresses)
_SAMPLES = [(re.compile(r"<(?:LOG-SERVER|NTP-SERVER(?:-\d)?|SNMP-COLLECTOR|MGMT-SUBNET|TACACS-SERVER)>"), "192.0.2.10"),
            (re.compile(r"<WILDCARD>"), "0.0.0.255"), (re.compile(r"<MASK>"), "255.255.255.0"),
            (re.compile(r"<PREFIX-LENGTH>"), "24"),
            (re.compile(r"<(?![A-Za-z-]*-masked-\d+>)[A-Za-z-]+>"), "PLACEHOLDER")]  # a masked value is the device's own


def sample_values(line: str) -> str:
    """A fix line with what the user fills in given values of the right form, to judge the patched text."""
    for rx, value in _SAMPLES:
        line = rx.sub(value, line)
    return line


def _masked(line: str) -> str:
    """A fix line as shown: the device's secrets masked (also in a 'no …' that removes one); placeholders stay."""
    if "<" in line and ">" in line:
        return line
    body = line.lstrip(" ")
    indent = line[: len(line) - len(body)]
    if body.startswith("no "):
        return f"{indent}no {mask_line(body[3:])}"
    return indent + mask_line(body)


# --- proving it --------------------------------------------------------------------------------------------------
_RANK = {"pass": 0, "not_applicable": 0, "fail": 1}


def verify_fix(rule: Rule, cfg: ParsedConfig, result: RuleResult, rules: Collection[Rule],
               device_type: str | None = None, before: Mapping[str, str] | None = None) -> Fix:
    """Derive the fix, apply it to the configuration in memory and judge the patched text with every rule and with
    the access model: verified when the rule passes, no other rule is worse and every kind of way in the device had
    (console, remote) is kept. A fix that would close one first gets the prerequisites the closed door names (a
    local user, SSH keys, 'login local'); one that still cannot keep a way in says so instead of "verified".
    ``before``: the device's verdicts (rule id → status) when the caller has them — judged here otherwise."""
    commands = derive_fix(rule, cfg, result)
    patched = patched_config(rule, cfg, commands)
    locked = keeps_access(cfg, patched)
    if locked:
        needed = _prerequisites(cfg, ways_in(patched).needs_to_restore(ways_in(cfg)))
        if needed:
            commands = _for_release(cfg, _once(needed + commands))
            patched = patched_config(rule, cfg, commands)
            locked = keeps_access(cfg, patched)
    shown = [_masked(ln) for ln in commands]
    if locked:
        return Fix(rule.id, commands, shown, False, f"not safe to paste: {locked}")
    if any("<if>" in c for c in commands):
        return Fix(rule.id, commands, shown, False, "which interfaces it belongs on could not be read from the "
                                                    "configuration: put the interface lines under each one that needs it")
    if before is None:
        before = {r.rule_id: r.status for r in evaluate_config(rules, cfg, device_type)}
    after = {r.rule_id: r.status for r in evaluate_config(rules, patched, device_type)}
    if after.get(rule.id) == "fail":
        return Fix(rule.id, commands, shown, False, f"{rule.id} still fails on the patched configuration")
    worse = sorted(r for r, status in after.items() if _RANK[status] > _RANK[before.get(r, "pass")])
    if worse:
        return Fix(rule.id, commands, shown, False, f"the patched configuration fails {', '.join(worse)}")
    return Fix(rule.id, commands, shown, True, _CAUTION if any("<MGMT-SUBNET>" in c for c in commands) else "")


# a fix that admits management only from a network the engineer names: the model cannot know where they sit
_CAUTION = "if <MGMT-SUBNET> holds the address you manage it from (else the new filter shuts you out too)"


def patched_config(rule: Rule, cfg: ParsedConfig, commands: list[str]) -> ParsedConfig:
    """The configuration as the device would store it after ``commands``, placeholders given sample values."""
    required = rule.check.pattern if rule.check.kind == "require" and isinstance(rule.check.pattern, str) else None
    stored = frozenset(c.strip() for c in commands if required and c.strip().startswith("no ")
                       and re.search(required, c.strip()))
    patched = parse_config(apply_commands(cfg, [sample_values(c) for c in commands], stored), cfg.platform)
    patched.role_overrides = cfg.role_overrides
    return patched
