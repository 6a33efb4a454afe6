"""One configuration file judged on its own: which platform it is, whether the engine assesses it, and every
rule's verdict (per interface for interface rules) — the facts the warehouse stores, as plain data for
``assess assess-configs --json``, for scripts and for comparison with other auditors."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from assessment_engine.checks.config_parser import (
    ParsedConfig,
    PlatformVerdict,
    identify_platform,
    parse_config,
)
from assessment_engine.checks.interfaces import ROLES
from assessment_engine.checks.remediation import Fix, verify_fix
from assessment_engine.checks.rule_engine import Rule, RuleResult, evaluate_config

ROLE_FILE = re.compile(r"(^|/)interface-roles\.ya?ml$", re.I)


@dataclass
class Judgement:
    file: str
    platform: str
    accepted: bool
    reason: str = ""
    hostname: str | None = None
    device_type: str = "unknown"
    version: str = "unknown"
    config: ParsedConfig | None = None
    results: list[RuleResult] = field(default_factory=list)

    def fixes(self, catalog: Sequence[Rule]) -> list[Fix]:
        """Each failing rule's fix for this device, written from its evidence and proven by re-judging with
        ``catalog`` (the rules it was judged with)."""
        if self.config is None:
            return []
        rules = {r.id: r for r in catalog}
        before = {r.rule_id: r.status for r in self.results}  # judged once, not again per fix
        return [verify_fix(rules[r.rule_id], self.config, r, catalog, self.device_type, before)
                for r in self.results if r.status == "fail" and r.rule_id in rules]

    def as_dict(self, fixes_from: Sequence[Rule] | None = None) -> dict[str, Any]:
        """As plain data; with ``fixes_from`` (the rules it was judged with), each failing rule's proven fix too."""
        results: list[dict[str, Any]] = []
        for r in self.results:
            if r.interfaces:
                results += [{"rule_id": r.rule_id, "status": v.status, "interface": v.interface,
                             "interface_role": v.role, "role_reason": v.role_reason, "lines": list(v.lines)}
                            for v in r.interfaces]
            else:
                results.append({"rule_id": r.rule_id, "status": r.status, "interface": None, "interface_role": None,
                                "role_reason": None, "lines": list(r.evidence_lines),
                                **({"reason": r.reason} if r.reason else {})})
        out = {"file": self.file, "hostname": self.hostname, "platform": self.platform, "accepted": self.accepted,
               "reason": self.reason, "device_type": self.device_type, "version": self.version, "results": results}
        if fixes_from is not None:
            out["fixes"] = [{"rule_id": f.rule_id, "commands": f.shown, "verified": f.verified, "note": f.note}
                            for f in self.fixes(fixes_from)]
        return out


# Device types the engine tells by the platform alone: a firewall is an ASA, and an ASA is a firewall. (A router may be
# IOS-XE or IOS-XR, a switch IOS-XE or NX-OS: those are told by the configuration below.)
PLATFORMS_OF_TYPE = {"firewall": ("asa",)}


def fits(platform: str, device_type: str) -> bool:
    """Whether a device of ``device_type`` can run ``platform`` (an ASA is a firewall, and only an ASA is)."""
    return (platform in PLATFORMS_OF_TYPE["firewall"]) == (device_type == "firewall")


def all_fit(platforms: Iterable[str], device_types: Sequence[str]) -> bool:
    """Whether every platform can run on one of the device types (none named: they all fit)."""
    return not device_types or all(any(fits(p, t) for t in device_types) for p in platforms)


# what only a wireless controller configures (a Catalyst 9800's top-level wireless and WLAN commands, its model) —
# never a word in a VLAN name or a description ('of-wireless' on an access switch)
_WIRELESS_CONTROLLER = re.compile(r"^(?:wireless (?:management|mobility|profile|tag|country|rf-network)\b|"
                                  r"wlan \S+ \d+ \S+$|ap dot11 |license udi pid C9800)")


def device_type(cfg: ParsedConfig) -> str:
    """Firewall and router from the platform; a wireless controller from the commands only one has; else a switch
    where switchports are configured (or NX-OS), a router otherwise."""
    if cfg.platform in PLATFORMS_OF_TYPE["firewall"]:
        return "firewall"
    if cfg.platform == "ios-xr":
        return "router"
    texts = " ".join(line.text for line in cfg.lines[:4000])
    if any(_WIRELESS_CONTROLLER.match(ln.text) for ln in cfg.top):
        return "wireless_controller"
    if re.search(r"\brouter (ospf|bgp|eigrp)\b", texts) and "switchport mode access" not in texts:
        return "router"
    return "switch" if "switchport" in texts or cfg.platform == "nx-os" else "router"


def software_version(text: str, platform: str) -> str:
    patterns = {"asa": r"^ASA Version (\S+)", "ios-xr": r"^!! IOS XR Configuration version = (\S+)|^version (\S+)"}
    m = re.search(patterns.get(platform, r"^version (\S+)"), text, re.M)
    return next((g for g in m.groups() if g), "unknown") if m else "unknown"


def load_role_overrides(text: str, name: str) -> dict[str, dict[str, str]]:
    """``interface-roles.yaml``: hostname → interface → role. Raises ValueError with a message for the user."""
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{name}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{name}: expected 'HOSTNAME: {{INTERFACE: ROLE}}' mappings")
    out: dict[str, dict[str, str]] = {}
    for host, interfaces in data.items():
        for iface, role in interfaces.items():
            if role not in ROLES:
                raise ValueError(f"{name}: {host} {iface}: unknown role {role!r} (one of {', '.join(ROLES)})")
            out.setdefault(str(host).upper(), {})[str(iface)] = str(role)
    return out


def judge(name: str, text: str, rules: Sequence[Rule], overrides: dict[str, dict[str, str]] | None = None,
          verdict: PlatformVerdict | None = None) -> Judgement:
    """Parse and judge one configuration with ``rules`` (``verdict``: ``identify_platform(text)`` when the caller
    has it)."""
    verdict = verdict or identify_platform(text)
    if not verdict.supported:
        return Judgement(name, verdict.platform, False, f"{name}: {verdict.reason}")
    cfg = parse_config(text, verdict.platform)  # type: ignore[arg-type]  # supported: one of SUPPORTED
    hostname = (cfg.hostname or Path(name).stem).upper()
    cfg.role_overrides = (overrides or {}).get(hostname, {})
    kind = device_type(cfg)
    return Judgement(name, cfg.platform, True, hostname=hostname, device_type=kind,
                     version=software_version(text, cfg.platform), config=cfg,
                     results=evaluate_config(rules, cfg, kind))
