"""The assessment engine: configuration rules (``contracts/rules/config_rules.yaml``) evaluated over
parsed configs. Every failing result carries its evidence lines and line numbers.

Results: ``pass``, ``fail`` or ``not_applicable`` (platform, device type or ``when`` condition does
not match). A ``require`` rule that fails has no line to point at: its evidence names what is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from orchestration.config import get_settings
from orchestration.contracts import ContractError
from orchestration.engines.config_parser import Line, ParsedConfig
from orchestration.vocabulary.severity import Severity

Status = Literal["pass", "fail", "not_applicable"]
SecurityCategory = Literal["insecure management services", "weak AAA", "exposure", "missing hardening"]


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["require", "require_all", "forbid", "block_require", "block_forbid", "iface_require",
                  "iface_forbid", "custom"]
    pattern: str | dict[str, str] | None = None
    patterns: list[str] = Field(default_factory=list)
    parent: str | None = None
    child: str | None = None
    parent_required: bool = False
    role: Literal["access", "trunk", "routed", "edge"] | None = None
    global_alternative: str | None = None
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
    platforms: list[Literal["ios-xe", "nx-os", "asa"]]
    rationale: str
    remediation: list[str] = Field(min_length=1)
    refs: str = ""
    device_types: list[str] = Field(default_factory=list)
    when: str | None = None
    check: Check

    @field_validator("topics")
    @classmethod
    def _topics_compile(cls, topics: list[str]) -> list[str]:
        for topic in topics:
            re.compile(topic)
        return topics


@dataclass(frozen=True)
class RuleResult:
    rule_id: str
    status: Status
    severity: str
    evidence: str = ""
    evidence_lines: tuple[int, ...] = ()


@dataclass
class _Finding:
    lines: list[Line] = field(default_factory=list)
    missing: str = ""


def _rx(pattern: str) -> re.Pattern[str]:
    return _compile(pattern)


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


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
    if not cfg.find(_rx(r"^snmp-server (group \S+ v3 priv|user \S+ \S+ (v3 )?auth .* priv )"), top_level=True):
        return _Finding(missing="no SNMPv3 group or user with 'priv'")
    return None


def _ospf_auth(cfg: ParsedConfig) -> _Finding | None:
    procs = cfg.blocks(_rx(r"^router ospf"))
    if any(p.child_matches(_rx(r"^area \S+ authentication")) for p in procs):
        return None
    if cfg.find(_rx(r"^ip ospf (authentication|message-digest-key)")):
        return None
    return _Finding(procs)


def _bgp_neighbors(cfg: ParsedConfig) -> tuple[str | None, dict[str, tuple[str, Line]], list[Line]]:
    proc = next(iter(cfg.blocks(_rx(r"^router bgp \d+"))), None)
    if proc is None:
        return None, {}, []
    local_as = proc.text.split()[2]
    all_lines = proc.all_children()
    neighbors: dict[str, tuple[str, Line]] = {}
    for ln in all_lines:
        m = re.match(r"neighbor (\S+) remote-as (\d+)", ln.text)
        if m:
            neighbors[m.group(1)] = (m.group(2), ln)
    return local_as, neighbors, all_lines


def _bgp_neighbor_auth(cfg: ParsedConfig) -> _Finding | None:
    _, neighbors, lines = _bgp_neighbors(cfg)
    bad = [ln for ip, (_, ln) in neighbors.items()
           if not any(x.text.startswith(f"neighbor {ip} password ") for x in lines)]
    return _Finding(bad) if bad else None


def _bgp_ebgp_filter(cfg: ParsedConfig) -> _Finding | None:
    local_as, neighbors, lines = _bgp_neighbors(cfg)
    bad = [ln for ip, (asn, ln) in neighbors.items() if asn != local_as and not any(
        re.match(rf"neighbor {re.escape(ip)} (prefix-list|route-map|filter-list|distribute-list) \S+ in$", x.text)
        for x in lines)]
    return _Finding(bad) if bad else None


def _hsrp_auth(cfg: ParsedConfig) -> _Finding | None:
    bad = [i.block for i in cfg.interfaces
           if i.block.child_matches(_rx(r"^standby \d+ ip")) and not i.block.child_matches(_rx(r"^standby \d+ authentication"))]
    return _Finding(bad) if bad else None


CUSTOM_CHECKS: dict[str, Callable[[ParsedConfig], _Finding | None]] = {
    "enable_secret": _enable_secret,
    "snmp_community_acl": _snmp_community_acl,
    "snmp_v3_priv": _snmp_v3_priv,
    "ospf_auth": _ospf_auth,
    "bgp_neighbor_auth": _bgp_neighbor_auth,
    "bgp_ebgp_filter": _bgp_ebgp_filter,
    "hsrp_auth": _hsrp_auth,
}


def _pattern_for(check: Check, platform: str) -> str | None:
    if isinstance(check.pattern, dict):
        return check.pattern.get(platform)
    return check.pattern


def _shown(pattern: str | None) -> str:
    """A check's regex as people read it: '^transport input ssh$' -> 'transport input ssh'."""
    return (pattern or "").strip("^$").replace(r"\S+", "<name>").replace(r"\d+", "<n>")


def _evaluate_check(check: Check, cfg: ParsedConfig) -> _Finding | None:
    kind = check.kind
    if kind == "require":
        pattern = _pattern_for(check, cfg.platform) or ""
        return None if cfg.find(_rx(pattern), check.top_level) else _Finding(missing=f"no '{_shown(pattern)}' line")
    if kind == "require_all":
        missing = [p for p in check.patterns if not cfg.find(_rx(p), check.top_level)]
        return _Finding(missing="no " + " and no ".join(f"'{_shown(p)}'" for p in missing) + " line") if missing else None
    if kind == "forbid":
        hits = cfg.find(_rx(_pattern_for(check, cfg.platform) or ""), check.top_level)
        return _Finding(hits) if hits else None
    if kind in ("block_require", "block_forbid"):
        blocks = cfg.blocks(_rx(check.parent or ""))
        if not blocks:
            return _Finding(missing=f"no '{_shown(check.parent)}' block") if check.parent_required else None
        child = _rx(check.child or "")
        if kind == "block_forbid":
            bad = [c for b in blocks for c in b.child_matches(child)]
            return _Finding(bad) if bad else None
        failing = [b for b in blocks if not b.child_matches(child)]
        if not failing:
            return None
        # the lines that are the deviation (e.g. 'transport input telnet'), else the block that lacks the child
        offending = [c for b in failing for c in b.child_matches(_rx(check.offending))] if check.offending else []
        lacking = [b for b in failing if not any(c.parent is b for c in offending)]
        return _Finding(offending + lacking, missing=f"'{_shown(check.child)}' under it" if lacking else "")
    if kind in ("iface_require", "iface_forbid"):
        if check.global_alternative and cfg.find(_rx(check.global_alternative), top_level=True):
            return None
        child = _rx(check.child or "")
        ifaces = [i for i in cfg.interfaces if i.role == check.role]
        if kind == "iface_require":
            bad = [i.block for i in ifaces if not i.block.child_matches(child)]
            return _Finding(bad, missing=f"'{_shown(check.child)}' under it") if bad else None
        bad = [c for i in ifaces for c in i.block.child_matches(child)]
        return _Finding(bad) if bad else None
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
    text = "\n".join(f"{ln.number}: {' ' * min(ln.indent, 4)}{ln.text}" for ln in shown)
    if len(finding.lines) > limit:
        text += f"\n… and {len(finding.lines) - limit} more"
    if finding.missing:
        text += ("\n" if text else "") + f"missing: {finding.missing}"
    return text


def evaluate_rule(rule: Rule, cfg: ParsedConfig, device_type: str | None = None) -> RuleResult:
    applicable = (cfg.platform in rule.platforms
                  and (not rule.device_types or device_type in rule.device_types)
                  and (rule.when is None or bool(cfg.find(_rx(rule.when)))))
    if not applicable:
        return RuleResult(rule.id, "not_applicable", rule.severity)
    finding = _evaluate_check(rule.check, cfg)
    if finding is None:
        return RuleResult(rule.id, "pass", rule.severity)
    return RuleResult(rule.id, "fail", rule.severity, evidence_text(finding), tuple(ln.number for ln in finding.lines))


def evaluate_config(rules: list[Rule], cfg: ParsedConfig, device_type: str | None = None) -> list[RuleResult]:
    return [evaluate_rule(rule, cfg, device_type) for rule in rules]


def load_rules(path: Path | None = None) -> list[Rule]:
    path = path or get_settings().contracts_dir / "rules" / "config_rules.yaml"
    try:
        data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
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


@lru_cache(maxsize=2)
def _cached_rules(path: str) -> tuple[Rule, ...]:
    return tuple(load_rules(Path(path)))


def get_rules() -> list[Rule]:
    return list(_cached_rules(str(get_settings().contracts_dir / "rules" / "config_rules.yaml")))
