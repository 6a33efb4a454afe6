"""SLIC engine: known-issue signatures (``contracts/rules/slic_signatures.yaml``) evaluated over a
device's software version, configuration and events. Each match carries signature id, severity,
hypothesis, the evidence that matched, the catalog's CVE mapping and advisory."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assessment_engine.checks.config_parser import ParsedConfig
from foundation.vocabulary.severity import Severity
from foundation.yaml_files import ContractError, read_yaml


class Signature(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    title: str
    kind: Literal["software", "config", "event"]
    category: Literal["security", "reliability", "lifecycle"]
    severity: Severity
    platforms: list[str]
    device_types: list[str] = Field(default_factory=list)
    affected_versions: list[str] = Field(default_factory=list)
    requires_config: str | None = None
    config_match: str | None = None
    config_absent: str | None = None
    event_mnemonic: str | None = None
    min_count: int = 1
    window_days: int = 30
    advisory: str = ""
    cves: list[str] = Field(default_factory=list)
    hypothesis: str
    recommendation: str
    words: list[str] = Field(default_factory=list)  # what engineers call it ("malloc failures", "ospf flaps")


@dataclass(frozen=True)
class SlicMatch:
    signature: Signature
    evidence: str


@dataclass(frozen=True)
class DeviceFacts:
    platform: str
    device_type: str
    os_version: str
    config: ParsedConfig
    events: list[tuple[datetime, str, str]]  # (ts, mnemonic, message)
    as_of: datetime


def _lines(cfg: ParsedConfig, pattern: str) -> list[str]:
    rx = re.compile(pattern, re.I)
    return [f"{ln.number}: {ln.text}" for ln in cfg.lines if rx.search(ln.text)]


def _as_command(pattern: str) -> str:
    """An anchored pattern read as the command it stands for ('^no vstack$' → "`no vstack` line"), so that evidence
    never shows a regular expression; a word pattern (``\\S+``, ``.*``) reads as "…"."""
    text = re.sub(r"\\[Ssdw]\+|\.[*+]", "…", pattern.removeprefix("^").removesuffix("$"))
    text = re.sub(r"\\(.)", r"\1", text)
    if re.search(r"[\[\](){}*+?|]", text):
        return "line the signature looks for"
    return f"`{text}` line" if "…" not in text else f"line like `{text}`"


def evaluate(signature: Signature, facts: DeviceFacts) -> SlicMatch | None:
    if facts.platform not in signature.platforms:
        return None
    if signature.device_types and facts.device_type not in signature.device_types:
        return None
    if signature.kind == "software":
        if facts.os_version not in signature.affected_versions:
            return None
        evidence = f"{facts.platform} {facts.os_version} is listed as affected by {signature.advisory or signature.id}"
        if signature.requires_config:
            hits = _lines(facts.config, signature.requires_config)
            if not hits:
                return None
            evidence += "; enabling configuration: " + "; ".join(hits[:3])
        return SlicMatch(signature, evidence)
    if signature.kind == "config":
        hits = _lines(facts.config, signature.config_match or "")
        if not hits or (signature.config_absent and _lines(facts.config, signature.config_absent)):
            return None
        if signature.config_absent:
            return SlicMatch(signature, f"no {_as_command(signature.config_absent)} in the configuration")
        return SlicMatch(signature, "; ".join(hits[:5]))
    since = facts.as_of - timedelta(days=signature.window_days)
    rx = re.compile(signature.event_mnemonic or "")
    matched = sorted((e for e in facts.events if rx.search(e[1]) and since <= e[0] <= facts.as_of), key=lambda e: e[0])
    if len(matched) < signature.min_count:
        return None
    first, last = matched[0], matched[-1]
    return SlicMatch(signature, f"{len(matched)} × {last[1]} between {first[0]:%Y-%m-%d %H:%M} and "
                                f"{last[0]:%Y-%m-%d %H:%M}; last: {last[2][:160]}")


def evaluate_device(signatures: list[Signature], facts: DeviceFacts) -> list[SlicMatch]:
    return [m for s in signatures if (m := evaluate(s, facts)) is not None]


def load_signatures(path: Path) -> list[Signature]:
    try:
        raw = read_yaml(path)["signatures"]
        return [Signature.model_validate(s) for s in raw]
    except (OSError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise ContractError(f"{path}: cannot be read: {exc}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ContractError(f"{path}: field 'signatures.{'.'.join(map(str, err['loc']))}': {err['msg']}") from None
