"""The assessment engine: configuration rules (``contracts/rules/config_rules.yaml``) evaluated over
parsed configs. Every failing result carries its evidence lines and line numbers.

Results: ``pass``, ``fail`` or ``not_applicable``: the platform, device type or ``when`` condition does not
match, or the rule has nothing to look at (no interface of its role, no block of its kind, no BGP neighbour of
the kind it checks) — such a rule neither passes nor fails, so it never lifts a pass rate. A ``require`` rule
that fails has no line to point at: its evidence names what is missing.

Platforms: a rule written for ``ios-xe`` covers classic IOS too (same syntax); pattern and remediation
mappings are looked up by platform with the same fallback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assessment_engine.checks.bgp import bgp_view, passes_everything
from assessment_engine.checks.config_parser import Line, ParsedConfig
from assessment_engine.checks.interfaces import Interface, interfaces_of
from foundation.vocabulary.severity import Severity
from foundation.yaml_files import ContractError, compiled, read_yaml

Status = Literal["pass", "fail", "not_applicable"]
SecurityCategory = Literal["insecure management services", "weak AAA", "exposure", "missing hardening"]


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["require", "require_all", "forbid", "block_require", "block_forbid", "iface_require",
                  "iface_forbid", "custom"]
    pattern: str | dict[str, str] | None = None
    patterns: list[str] = Field(default_factory=list)
    parent: str | dict[str, str] | None = None
    child: str | dict[str, str] | None = None
    parent_required: bool = False
    role: Literal["access", "trunk", "routed", "edge"] | None = None
    global_alternative: str | None = None
    # the interfaces the global alternative reaches: those with a child — or, globally, a line — matching this
    # ('spanning-tree portfast bpduguard default' guards only PortFast ports); none: every interface of the role
    alternative_covers: str | None = None
    offending: str | None = None
    function: str | None = None
    top_level: bool = False


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(pattern=r"^[A-Z0-9-]+$")
    title: str  # the control, as a passing device meets it
    deviation: str  # what a failing device does wrong: the title of findings
    category: str
    technology: str
    security_category: SecurityCategory = "missing hardening"
    topics: list[str] = Field(default_factory=list)  # how questions name what the rule checks (regexes)
    severity: Severity
    platforms: list[Literal["ios-xe", "nx-os", "asa", "ios-xr"]]
    rationale: str
    remediation: list[str] | dict[str, list[str]]
    refs: str = ""
    device_types: list[str] = Field(default_factory=list)
    when: str | None = None
    unless_when: str = ""  # why the rule does not apply when no line matches `when` ("SNMP is not in use …")
    check: Check

    def applies_to(self, platform: str) -> bool:
        return family(platform) in self.platforms

    def fix_for(self, platform: str) -> list[str]:
        """The commands that fix a failure on ``platform`` (the IOS-XE text for classic IOS)."""
        if isinstance(self.remediation, list):
            return self.remediation
        return self.remediation.get(family(platform)) or next(iter(self.remediation.values()))

    @property
    def default_fix(self) -> list[str]:
        return self.fix_for(self.platforms[0])

    @field_validator("remediation")
    @classmethod
    def _fix_present(cls, fix: list[str] | dict[str, list[str]]) -> list[str] | dict[str, list[str]]:
        if not fix or (isinstance(fix, dict) and not all(fix.values())):
            raise ValueError("a rule needs remediation commands (per platform when given as a mapping)")
        return fix

    @field_validator("topics")
    @classmethod
    def _topics_compile(cls, topics: list[str]) -> list[str]:
        return compiled(topics)


@dataclass(frozen=True)
class InterfaceVerdict:
    """An interface rule's outcome on one interface, with the role that made the rule look at it."""

    interface: str
    role: str
    role_reason: str
    status: Status
    lines: tuple[int, ...]


@dataclass(frozen=True)
class RuleResult:
    rule_id: str
    status: Status
    severity: str
    evidence: str = ""
    evidence_lines: tuple[int, ...] = ()
    interfaces: tuple[InterfaceVerdict, ...] = ()  # interface rules: one verdict per interface of the role
    reason: str = ""  # not_applicable: why, in the device's terms, when the rule says


@dataclass
class _Finding:
    lines: list[Line] = field(default_factory=list)
    missing: str = ""
    notes: dict[int, str] = field(default_factory=dict)  # line number -> why it was looked at (interface role)


class _NotApplicable:
    """A check with nothing to look at (no interface of its role, no block, no neighbour of its kind)."""


NOT_APPLICABLE = _NotApplicable()
Outcome = _Finding | _NotApplicable | None  # None: pass


def family(platform: str) -> str:
    """The rule-catalog platform a device platform is checked as: classic IOS shares IOS-XE's syntax."""
    return "ios-xe" if platform == "ios" else platform


def interfaces(cfg: ParsedConfig) -> list[Interface]:
    """The config's interfaces with roles, judged once per parsed config."""
    if "interfaces" not in cfg.cache:
        cfg.cache["interfaces"] = interfaces_of(cfg, cfg.role_overrides)
    found: list[Interface] = cfg.cache["interfaces"]
    return found


ROLE_MATCHES = {"routed": ("routed", "edge")}  # an edge port is a routed port facing outside


def _rx(pattern: str) -> re.Pattern[str]:
    return _compile(pattern)


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def compiled_pattern(pattern: str) -> re.Pattern[str]:
    """A check's pattern as the engine matches it (case-insensitive; compiled once)."""
    return _compile(pattern)


# --- custom checks: each returns None (pass) or a _Finding ------------------------------------
def _enable_secret(cfg: ParsedConfig) -> _Finding | None:
    bad = cfg.find(_rx(r"^enable password "), top_level=True)
    if bad:
        return _Finding(bad)
    if not cfg.find(_rx(r"^enable (secret|algorithm-type)"), top_level=True):
        return _Finding(missing="no 'enable secret' configured")
    return None


def _snmp_community_acl(cfg: ParsedConfig) -> _Finding | None:
    bad = [ln for ln in cfg.find(_rx(r"^snmp-server community \S+"), top_level=True)
           if len(ln.text.split()) < 5 and not re.search(r"\bview\b", ln.text)]
    return _Finding(bad) if bad else None


def _snmp_v3_priv(cfg: ParsedConfig) -> _Finding | None:
    communities = cfg.find(_rx(r"^snmp-server community "), top_level=True)
    weak_groups = cfg.find(_rx(r"^snmp-server group \S+ v3 (noauth|auth)\b"), top_level=True)
    if communities or weak_groups:
        return _Finding(communities + weak_groups)
    # IOS 'user NAME GROUP v3 auth … priv …', NX-OS 'user NAME [ROLE] auth md5|sha … priv …', XR 'user NAME GROUP v3 …'
    if not cfg.find(_rx(r"^snmp-server (group \S+ v3 priv|user \S+ (\S+ )?(v3 )?auth \S+ .*\bpriv )"), top_level=True):
        return _Finding(missing="no SNMPv3 group or user with 'priv'")
    return _snmp_v3_strong(cfg)


def _snmp_v3_strong(cfg: ParsedConfig) -> _Finding | None:
    """SNMPv3 users must encrypt with AES: IOS/XR 'priv des|3des|des56' and an NX-OS 'priv' without 'aes-128'
    (NX-OS's default privacy protocol is DES) are privacy in name only."""
    weak = [ln for ln in cfg.find(_rx(r"^snmp-server user \S+ .*\bpriv\b"), top_level=True)
            if re.search(r"\bpriv (?:des|3des|des56)\b", ln.text, re.I)
            or (cfg.platform == "nx-os" and not re.search(r"\bpriv aes-128\b", ln.text, re.I))]
    return _Finding(weak, notes={ln.number: "privacy is not AES" for ln in weak}) if weak else None


def _exec_timeout(cfg: ParsedConfig) -> Outcome:
    """Every console and VTY line (IOS-XR: line default, templates and console) times idle sessions out after at
    most 10 minutes: 'exec-timeout 0 0' never does, and a line without the command is flagged as CIS and the
    reference catalog do (NX-OS's own default is no timeout at all)."""
    parent = r"^line (default|template \S+|console)$" if cfg.platform == "ios-xr" else r"^line (vty|con)"
    blocks = cfg.blocks(_rx(parent))
    if not blocks:
        return NOT_APPLICABLE
    lines: list[Line] = []
    notes: dict[int, str] = {}
    for block in blocks:
        timeout = next((c for c in block.children if c.text.startswith("exec-timeout ")), None)
        if timeout is None:
            lines.append(block)
            notes[block.number] = "no exec-timeout under it"
            continue
        parts = [int(x) for x in timeout.text.split()[1:3] if x.isdigit()]
        seconds = parts[0] * 60 + (parts[1] if len(parts) > 1 else 0) if parts else 0
        if seconds == 0 or seconds > 600:
            lines.append(timeout)
            notes[timeout.number] = "never times out" if seconds == 0 else f"{seconds // 60} minutes is over 10"
    return _Finding(lines, notes=notes) if lines else None


def _ssh_limits(cfg: ParsedConfig) -> _Finding | None:
    """'ip ssh time-out' at most 60 seconds and 'ip ssh authentication-retries' at most 3, both set."""
    lines: list[Line] = []
    notes: dict[int, str] = {}
    missing = []
    for command, limit, unit in (("time-out", 60, "seconds"), ("authentication-retries", 3, "retries")):
        found = cfg.find(_rx(rf"^ip ssh {command} \d+"), top_level=True)
        if not found:
            missing.append(f"'ip ssh {command} <n>'")
        for ln in found:
            value = int(ln.text.split()[-1])
            if value > limit:
                lines.append(ln)
                notes[ln.number] = f"{value} {unit} is over {limit}"
    if not lines and not missing:
        return None
    return _Finding(lines, missing=" and ".join(missing) + " line" if missing else "", notes=notes)


def _login_lists(cfg: ParsedConfig) -> set[str]:
    return {ln.text.split()[3] for ln in cfg.find(_rx(r"^aaa authentication login \S+ "), top_level=True)}


def _line_auth(cfg: ParsedConfig, parent: str, needs_login: bool) -> Outcome:
    """Lines under ``parent`` that let a session in unauthenticated: without AAA new-model, 'no login' (and, where
    the line's default is no login — the console — a line without 'login local' or 'login' plus a password); with
    it, a 'login authentication LIST' naming a list that is not defined."""
    blocks = cfg.blocks(_rx(parent))
    if not blocks:
        return NOT_APPLICABLE
    aaa = bool(cfg.find(_rx(r"^aaa new-model$"), top_level=True))
    lists = _login_lists(cfg)
    lines: list[Line] = []
    notes: dict[int, str] = {}
    for block in blocks:
        texts = [c.text for c in block.children]
        named = next((c for c in block.children if c.text.startswith("login authentication ")), None)
        if aaa:
            if named is not None and named.text.split()[2] not in lists | {"default"}:
                lines.append(named)
                notes[named.number] = f"login list '{named.text.split()[2]}' is not defined"
            continue
        if "no login" in texts:
            lines.append(next(c for c in block.children if c.text == "no login"))
            continue
        has_password = any(t.startswith("password ") for t in texts)
        if needs_login and not ("login local" in texts or ("login" in texts and has_password)):
            lines.append(block)
            notes[block.number] = "no 'login local' (or 'login' with a password) and no AAA new-model"
    return _Finding(lines, notes=notes) if lines else None


def _vty_auth(cfg: ParsedConfig) -> Outcome:
    return _line_auth(cfg, r"^line vty", needs_login=False)  # a VTY's default is 'login': no password, no entry


def _con_auth(cfg: ParsedConfig) -> Outcome:
    return _line_auth(cfg, r"^line con", needs_login=True)  # the console's default is no login at all


# (kind, how a line refers to one by name); IOS/IOS-XE syntax, NX-OS and IOS-XR where they share it
_REFERENCES: list[tuple[str, re.Pattern[str]]] = [
    ("access-list", re.compile(r"^(?:ip |ipv6 )?access-group (?P<name>\S+) (?:in|out)$")),
    ("access-list", re.compile(r"^(?:ipv6 )?access-class (?P<name>\S+) (?:in|out)$")),
    ("access-list", re.compile(r"^ip http access-class (?:ipv4 )?(?P<name>\S+)$")),
    ("access-list", re.compile(r"^snmp-server community \S+ (?:RO|RW|ro|rw) (?:ipv6 \S+ )?(?P<name>[A-Za-z]\S*)$")),
    ("access-list", re.compile(r"^match (?:ip address|access-group name) (?P<name>[A-Za-z]\S*)$")),
    ("prefix-list", re.compile(r"^(?:neighbor \S+ )?prefix-list (?P<name>\S+) (?:in|out)$")),
    ("prefix-list", re.compile(r"^match ip address prefix-list (?P<name>\S+)")),
    ("route-map", re.compile(r"^(?:neighbor \S+ )?route-map (?P<name>\S+) (?:in|out)$")),
    ("route-map", re.compile(r"^redistribute \S+(?: \S+)*? route-map (?P<name>\S+)")),
    ("policy-map", re.compile(r"^service-policy (?:input|output|type \S+ input|type \S+ output) (?P<name>\S+)$")),
    ("class-map", re.compile(r"^class (?!class-default$)(?P<name>\S+)$")),
]
# a line that names none of them (nine in ten) is passed over with one match instead of eleven
_ANY_REFERENCE = re.compile("|".join("(?:" + re.sub(r"[(][?]P<\w+>", "(?:", rx.pattern) + ")" for _, rx in _REFERENCES))
_DEFINITIONS: list[tuple[str, re.Pattern[str]]] = [
    ("access-list", re.compile(r"^(?:ip|ipv6) access-list (?:standard |extended |role-based )?(?P<name>\S+)$")),
    ("access-list", re.compile(r"^access-list (?P<name>\S+) ")),
    ("prefix-list", re.compile(r"^(?:ip|ipv6) prefix-list (?P<name>\S+) ")),
    ("route-map", re.compile(r"^route-map (?P<name>\S+)")),
    ("policy-map", re.compile(r"^policy-map (?:type \S+ )?(?P<name>\S+)$")),
    ("class-map", re.compile(r"^class-map (?:type \S+ )?(?:match-any |match-all )?(?P<name>\S+)$")),
]


def undefined_references(cfg: ParsedConfig) -> list[tuple[Line, str, str]]:
    """(line, kind, name) of every line that names an ACL, prefix-list, route-map, policy-map or class-map the
    configuration does not define."""
    defined = {(kind, m.group("name")) for ln in cfg.top for kind, rx in _DEFINITIONS if (m := rx.match(ln.text))}
    out: list[tuple[Line, str, str]] = []
    for ln in cfg.lines:
        if not _ANY_REFERENCE.match(ln.text):
            continue
        for kind, rx in _REFERENCES:
            m = rx.match(ln.text)
            if m and (kind, m.group("name")) not in defined:
                out.append((ln, kind, m.group("name")))
                break
    return out


def _undefined_references(cfg: ParsedConfig) -> _Finding | None:
    """What the device does with an undefined reference depends on the feature (a route-map that does not exist
    denies every route in BGP, an ACL that does not exist permits everything on an interface) — never what the
    author meant."""
    found = undefined_references(cfg)
    return _Finding([ln for ln, _, _ in found], notes={ln.number: f"{kind} {name} is not defined"
                                                        for ln, kind, name in found}) if found else None


def _ntp_lines(cfg: ParsedConfig) -> list[Line]:
    """NTP commands on every syntax: top-level 'ntp …' lines, and IOS-XR's 'ntp' block children."""
    out = list(cfg.find(_rx(r"^ntp "), top_level=True))
    for block in cfg.blocks(_rx(r"^ntp$")):
        out += block.all_children()
    return out


def _ntp_server(cfg: ParsedConfig) -> _Finding | None:
    if any(re.match(r"^(ntp )?server \S+", ln.text) for ln in _ntp_lines(cfg)):
        return None
    return _Finding(missing="no 'ntp server' line")


def _ntp_auth(cfg: ParsedConfig) -> _Finding | None:
    texts = [re.sub(r"^ntp ", "", ln.text) for ln in _ntp_lines(cfg)]
    missing = [want for want, rx in (("ntp authenticate", r"^authenticate$"), ("ntp trusted-key <n>", r"^trusted-key \d+"))
               if not any(re.match(rx, t) for t in texts)]
    return _Finding(missing="no " + " and no ".join(f"'{m}'" for m in missing) + " line") if missing else None


def _log_timestamps(cfg: ParsedConfig) -> _Finding | None:
    """Log messages carry the date and time: IOS and the ASA only when told ('service timestamps log datetime',
    'logging timestamp'); IOS-XR stamps them by default, so there only a line that turns it off or to uptime fails."""
    if cfg.platform == "ios-xr":
        bad = cfg.find(_rx(r"^service timestamps log (disable|uptime)\b"), top_level=True)
        return _Finding(bad) if bad else None
    if cfg.platform == "asa":
        return None if cfg.find(_rx(r"^logging timestamp$"), top_level=True) else _Finding(
            missing="no 'logging timestamp' line")
    return None if cfg.find(_rx(r"^service timestamps log datetime"), top_level=True) else _Finding(
        missing="no 'service timestamps log datetime' line")


def _xr_management_plane(cfg: ParsedConfig) -> _Finding | None:
    """IOS-XR management-plane protection: a 'control-plane' / 'management-plane' block whose every 'allow' names the
    peers it admits ('address ipv4 …' under it). 'allow all' — or an allow without peers — opens the protocols to
    every address reaching those interfaces, as if there were no block."""
    planes = [c for b in cfg.blocks(_rx(r"^control-plane$")) for c in b.children if c.text == "management-plane"]
    if not planes:
        return _Finding(missing="no 'control-plane' / 'management-plane' block")
    allows = [ln for p in planes for ln in p.all_children() if ln.text.startswith("allow ")]
    if not allows:
        return _Finding(planes, notes={p.number: "no 'allow … peer' under it" for p in planes})
    open_to_all = [ln for ln in allows if not any(c.text.startswith("address ") for c in ln.all_children())]
    return _Finding(open_to_all, notes={ln.number: "no peer addresses: every address may connect"
                                        for ln in open_to_all}) if open_to_all else None


def _ospf_auth(cfg: ParsedConfig) -> Outcome:
    procs = cfg.blocks(_rx(r"^router ospf"))
    if not procs:
        return NOT_APPLICABLE
    # IOS 'area N authentication' / interface 'ip ospf authentication|message-digest-key'; XR nests
    # 'authentication message-digest' and 'message-digest-key' under areas and interfaces of the process
    if any(ln for p in procs for ln in p.all_children() if re.match(r"^(area \S+ )?authentication\b|^message-digest-key ",
                                                                      ln.text)):
        return None
    if cfg.find(_rx(r"^ip ospf (authentication|message-digest-key)")):
        return None
    return _Finding(procs)


def _bgp_neighbor_auth(cfg: ParsedConfig) -> Outcome:
    view = bgp_view(cfg)
    if not view.neighbors:
        return NOT_APPLICABLE
    bad = [n for n in view.neighbors if not n.authenticated]
    return _Finding([n.line for n in bad], notes={n.line.number: f"neighbour {n.described}: no password"
                                                  for n in bad if n.inherits}) if bad else None


def _bgp_ebgp_filter(cfg: ParsedConfig) -> Outcome:
    """External neighbours (not confederation members) need an inbound prefix filter that filters: a route-map,
    route-policy or prefix-list that accepts every route counts as none. IOS-XR accepts no routes from an eBGP
    neighbour without an inbound route-policy (RFC 8212), so there a missing policy is no leak — but a pass-all
    policy is."""
    external = bgp_view(cfg).external
    if not external:
        return NOT_APPLICABLE
    lines: list[Line] = []
    notes: dict[int, str] = {}
    for n in external:
        filters = n.inbound_filters
        if not filters:
            if cfg.platform != "ios-xr":
                lines.append(n.line)
                notes[n.line.number] = f"external neighbour {n.described}: no inbound filter"
            continue
        open_filters = [(kind, name, ln, passing) for kind, name, ln in filters
                        if (passing := passes_everything(cfg, kind, name)) is not None]
        if len(open_filters) == len(filters):
            kind, name, ln, passing = open_filters[0]
            lines += [ln, passing]
            notes[ln.number] = f"external neighbour {n.described}: its inbound {kind} {name} accepts every route"
    return _Finding(lines, notes=notes) if lines else None


def _hsrp_auth(cfg: ParsedConfig) -> Outcome:
    """HSRP ('standby N ip', NX-OS 'hsrp N') and VRRP ('vrrp N ip|address') groups carry authentication."""
    groups = [i.block for i in interfaces(cfg) if i.block.child_matches(_rx(r"^standby \d+ ip|^hsrp \d+|^vrrp \d+ (ip|address)"))]
    if not groups:
        return NOT_APPLICABLE
    bad = [b for b in groups
           if not any(_rx(r"^((standby|vrrp) \d+ )?authentication").search(c.text) for c in b.all_children())]
    return _Finding(bad) if bad else None


def _eigrp_auth(cfg: ParsedConfig) -> Outcome:
    """Classic mode: 'ip authentication mode eigrp N md5' on interfaces; named mode: 'authentication mode' under
    'af-interface' of 'router eigrp NAME'; NX-OS: 'ip authentication mode eigrp TAG md5'."""
    procs = cfg.blocks(_rx(r"^router eigrp \S+"))
    if not procs:
        return NOT_APPLICABLE
    missing = []
    for proc in procs:
        named = any(c.text.startswith("address-family ") for c in proc.children)
        if named:
            ok = any(re.match(r"^authentication mode (md5|hmac-sha-256)", ln.text) for ln in proc.all_children())
        else:
            tag = proc.text.split()[2]
            ok = bool(cfg.find(_rx(rf"^ip authentication mode eigrp {re.escape(tag)} md5$")))
        if not ok:
            missing.append(proc)
    return _Finding(missing) if missing else None


CUSTOM_CHECKS: dict[str, Callable[[ParsedConfig], Outcome]] = {
    "enable_secret": _enable_secret,
    "snmp_community_acl": _snmp_community_acl,
    "snmp_v3_priv": _snmp_v3_priv,
    "exec_timeout": _exec_timeout,
    "vty_auth": _vty_auth,
    "undefined_references": _undefined_references,
    "con_auth": _con_auth,
    "ssh_limits": _ssh_limits,
    "ospf_auth": _ospf_auth,
    "xr_management_plane": _xr_management_plane,
    "log_timestamps": _log_timestamps,
    "bgp_neighbor_auth": _bgp_neighbor_auth,
    "bgp_ebgp_filter": _bgp_ebgp_filter,
    "hsrp_auth": _hsrp_auth,
    "eigrp_auth": _eigrp_auth,
    "ntp_server": _ntp_server,
    "ntp_auth": _ntp_auth,
}


def _pattern_for(pattern: str | dict[str, str] | None, platform: str) -> str | None:
    if isinstance(pattern, dict):
        return pattern.get(platform, pattern.get(family(platform)))
    return pattern


def shown_pattern(pattern: str | None) -> str:
    """A check's regex as people read it: '^transport input ssh$' -> 'transport input ssh'."""
    return (pattern or "").strip("^$").replace(r"\S+", "<name>").replace(r"\d+", "<n>")


def _evaluate_check(check: Check, cfg: ParsedConfig) -> Outcome:
    kind = check.kind
    if kind == "require":
        pattern = _pattern_for(check.pattern, cfg.platform) or ""
        return None if cfg.find(_rx(pattern), check.top_level) else _Finding(missing=f"no '{shown_pattern(pattern)}' line")
    if kind == "require_all":
        missing = [p for p in check.patterns if not cfg.find(_rx(p), check.top_level)]
        return _Finding(missing="no " + " and no ".join(f"'{shown_pattern(p)}'" for p in missing) + " line") if missing else None
    if kind == "forbid":
        hits = cfg.find(_rx(_pattern_for(check.pattern, cfg.platform) or ""), check.top_level)
        return _Finding(hits) if hits else None
    if kind in ("block_require", "block_forbid"):
        parent = _pattern_for(check.parent, cfg.platform) or ""
        blocks = cfg.blocks(_rx(parent))
        if not blocks:
            return _Finding(missing=f"no '{shown_pattern(parent)}' block") if check.parent_required else NOT_APPLICABLE
        child_pattern = _pattern_for(check.child, cfg.platform) or ""
        child = _rx(child_pattern)
        if kind == "block_forbid":
            bad = [c for b in blocks for c in b.child_matches(child)]
            return _Finding(bad) if bad else None
        failing = [b for b in blocks if not b.child_matches(child)]
        if not failing:
            return None
        # the lines that are the deviation (e.g. 'transport input telnet'), else the block that lacks the child
        offending = [c for b in failing for c in b.child_matches(_rx(check.offending))] if check.offending else []
        lacking = [b for b in failing if not any(c.parent is b for c in offending)]
        return _Finding(offending + lacking, missing=f"'{shown_pattern(child_pattern)}' under it" if lacking else "")
    if kind in ("iface_require", "iface_forbid"):
        ifaces, child = _role_interfaces(check, cfg)
        if not ifaces:
            return NOT_APPLICABLE
        covered = _covered_by_alternative(check, cfg, ifaces)
        if check.global_alternative and len(covered) == len(ifaces):
            return None
        notes = {i.block.number: f"{i.role}: {i.reason}" for i in ifaces}
        if kind == "iface_require":
            bad = [i.block for i in ifaces if not i.block.child_matches(child) and i.name not in covered]
            return _Finding(bad, missing=f"'{shown_pattern(_pattern_for(check.child, cfg.platform))}' under it",
                            notes=notes) if bad else None
        bad = [c for i in ifaces for c in i.block.child_matches(child)]
        return _Finding(bad, notes=notes) if bad else None
    if kind == "custom":
        return CUSTOM_CHECKS[check.function or ""](cfg)
    raise ValueError(f"unknown check kind {kind!r}")


def _with_context(lines: list[Line]) -> list[Line]:
    """The offending lines in config order, each after the parent lines it sits under."""
    shown: list[Line] = []
    for ln in lines:
        chain, parent = [], ln.parent
        while parent is not None:
            chain.append(parent)
            parent = parent.parent
        for ctx in [*reversed(chain), ln]:
            if ctx not in shown:
                shown.append(ctx)
    return shown


def evidence_text(finding: _Finding, limit: int = 20) -> str:
    """Numbered config lines as they appear (indented under their parents), then what is missing."""
    shown = _with_context(finding.lines[:limit])
    text = "\n".join(f"{ln.number}: {' ' * min(ln.indent, 4)}{ln.text}"
                     + (f"\n   ↳ {finding.notes[ln.number]}" if ln.number in finding.notes else "") for ln in shown)
    if len(finding.lines) > limit:
        text += f"\n… and {len(finding.lines) - limit} more"
    if finding.missing:
        text += ("\n" if text else "") + f"missing: {finding.missing}"
    return text


def _role_interfaces(check: Check, cfg: ParsedConfig) -> tuple[list[Interface], re.Pattern[str]]:
    """The interfaces an interface rule looks at (an edge port is also a routed one) and the child it checks."""
    roles = ROLE_MATCHES.get(check.role or "", (check.role,))
    return [i for i in interfaces(cfg) if i.role in roles], _rx(_pattern_for(check.child, cfg.platform) or "")


def _covered_by_alternative(check: Check, cfg: ParsedConfig, ifaces: list[Interface]) -> set[str]:
    """The interfaces a global line satisfies the rule for: every one, or those ``alternative_covers`` names."""
    if not check.global_alternative or not cfg.find(_rx(check.global_alternative), top_level=True):
        return set()
    if not check.alternative_covers:
        return {i.name for i in ifaces}
    covers = _rx(check.alternative_covers)
    if cfg.find(covers, top_level=True):
        return {i.name for i in ifaces}
    return {i.name for i in ifaces if i.block.child_matches(covers)}


def _interface_verdicts(check: Check, cfg: ParsedConfig) -> tuple[InterfaceVerdict, ...]:
    if check.kind not in ("iface_require", "iface_forbid"):
        return ()
    ifaces, child = _role_interfaces(check, cfg)
    covered = _covered_by_alternative(check, cfg, ifaces)
    out = []
    for i in ifaces:
        hits = i.block.child_matches(child)
        failed = not (hits or i.name in covered) if check.kind == "iface_require" else bool(hits)
        lines = (i.block.number, *(h.number for h in hits)) if check.kind == "iface_forbid" else (i.block.number,)
        out.append(InterfaceVerdict(i.name, i.role, i.reason, "fail" if failed else "pass", lines))
    return tuple(out)


def evaluate_rule(rule: Rule, cfg: ParsedConfig, device_type: str | None = None) -> RuleResult:
    applicable = (rule.applies_to(cfg.platform)
                  and (not rule.device_types or device_type in rule.device_types))
    if not applicable:
        return RuleResult(rule.id, "not_applicable", rule.severity)
    if rule.when is not None and not cfg.find(_rx(rule.when)):
        return RuleResult(rule.id, "not_applicable", rule.severity, reason=rule.unless_when)
    finding = _evaluate_check(rule.check, cfg)
    if isinstance(finding, _NotApplicable):
        return RuleResult(rule.id, "not_applicable", rule.severity)
    per_interface = _interface_verdicts(rule.check, cfg)
    if finding is None:  # a global command (e.g. BPDU guard by default) covers every interface
        return RuleResult(rule.id, "pass", rule.severity,
                          interfaces=tuple(replace(v, status="pass") for v in per_interface))
    return RuleResult(rule.id, "fail", rule.severity, evidence_text(finding), tuple(ln.number for ln in finding.lines),
                      per_interface)


def evaluate_config(rules: Iterable[Rule], cfg: ParsedConfig, device_type: str | None = None) -> list[RuleResult]:
    return [evaluate_rule(rule, cfg, device_type) for rule in rules]


def load_rules(path: Path) -> list[Rule]:
    try:
        data: dict[str, Any] = read_yaml(path)
    except (OSError, yaml.YAMLError) as exc:
        raise ContractError(f"{path}: cannot be read: {exc}") from None
    rules = []
    for i, raw in enumerate(data.get("rules", [])):
        try:
            rule = Rule.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise ContractError(f"{path}: field 'rules.{i}.{'.'.join(map(str, err['loc']))}': {err['msg']}") from None
        if rule.check.kind == "custom" and rule.check.function not in CUSTOM_CHECKS:
            raise ContractError(f"{path}: field 'rules.{i}.check.function': unknown {rule.check.function!r}")
        rules.append(rule)
    ids = [r.id for r in rules]
    if len(ids) != len(set(ids)):
        raise ContractError(f"{path}: duplicate rule ids")
    return rules


@dataclass(frozen=True)
class RuleCatalog:
    """The rules of one catalog file, and the views of them that answers use (each made once per catalog: a view
    kept apart from its catalog went stale when the settings pointed at another one)."""

    rules: tuple[Rule, ...]

    @cached_property
    def by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}

    @cached_property
    def ids(self) -> frozenset[str]:
        return frozenset(self.by_id)


def load_rule_catalog(path: Path) -> RuleCatalog:
    """The rules of the catalog file ``path``, validated (``orchestration.catalog`` reads it once per directory)."""
    return RuleCatalog(tuple(load_rules(path)))
