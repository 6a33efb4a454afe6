"""Real captured configurations (../shared/realconfigs) and the files written here for how real networks configure
(tests/fixtures/ownconfigs, named ``own/…``: BGP through peer-groups, templates and neighbor-groups on three
platforms, SNMP off, a fragment, every vendor refused by name): every file's platform, acceptance, per-rule verdicts
and interface roles match the reviewed fixture; the reviewed verdicts are justified by the config line they quote
(or, for a feature that is off, by the line that is absent); the CLI assesses the whole corpus in one command with
a per-platform summary and a JSON form."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from assessment_engine.checks.judgement import judge
from assessment_engine.checks.rule_engine import interfaces
from foundation.config import PROJECT_ROOT
from tests.catalog import RULES
from tests.conftest import ASSESS, FIXTURES

CORPUS = PROJECT_ROOT.parent / "shared" / "realconfigs"
OWN = FIXTURES / "ownconfigs"
FIXTURE = FIXTURES / "realconfigs_verdicts.json"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/realconfigs is not beside this checkout")


def expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def path_of(name: str) -> Path:
    return OWN / name.removeprefix("own/") if name.startswith("own/") else CORPUS / name


def corpus_names() -> list[str]:
    shared = [str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.cfg")] if CORPUS.is_dir() else []
    own = [f"own/{p.relative_to(OWN)}" for p in OWN.rglob("*") if p.is_file() and p.name != "README.md"]
    return sorted(shared + own)


def observed(name: str) -> dict[str, Any]:
    j = judge(name, path_of(name).read_text(), RULES)
    entry: dict[str, Any] = {"platform": j.platform, "accepted": j.accepted}
    if j.accepted and j.config is not None:
        by: dict[str, list[str]] = {}
        for r in j.results:
            by.setdefault(r.status, []).append(r.rule_id)
        entry.update({k: sorted(v) for k, v in sorted(by.items())})
        roles: dict[str, list[str]] = {}
        for i in interfaces(j.config):
            roles.setdefault(i.role, []).append(i.name)
        unconfigured = roles.pop("unconfigured", [])
        roles.pop("unused", None)
        entry["roles"] = dict(sorted(roles.items()))
        if unconfigured:
            entry["unconfigured_count"] = len(unconfigured)
    return entry


def test_the_fixture_covers_every_file_of_the_corpus() -> None:
    assert sorted(expected()["files"]) == corpus_names()


@pytest.mark.parametrize("name", corpus_names())
def test_verdicts_match_the_reviewed_fixture(name: str) -> None:
    assert observed(name) == expected()["files"][name]


@pytest.mark.parametrize("case", expected()["reviewed"] if FIXTURE.exists() else [], ids=lambda c: f"{c['file']}:{c['subject']}")
def test_reviewed_verdicts_are_justified_by_the_line_they_quote(case: dict[str, Any]) -> None:
    text = path_of(case["file"]).read_text().splitlines()
    if "absent" in case:  # a verdict justified by a line that is not there (SNMP off)
        assert not [t for t in text if re.match(case["absent"], t)]
    else:
        assert text[case["line"] - 1].strip() == case["quote"]
    j = judge(case["file"], "\n".join(text), RULES)
    subject, verdict = case["subject"], case["verdict"]
    if subject == "platform":
        assert j.platform == verdict
    elif subject.startswith("interface "):
        assert j.config is not None
        role = {i.name: i.role for i in interfaces(j.config)}[subject.split(" ", 1)[1]]
        assert role == verdict
    else:
        assert {r.rule_id: r.status for r in j.results}[subject] == verdict


def test_edge_roles_carry_their_reason_into_the_evidence() -> None:
    j = judge("iosxe_bgp_confederation/D2.cfg", (CORPUS / "iosxe_bgp_confederation/D2.cfg").read_text(), RULES)
    urpf = next(r for r in j.results if r.rule_id == "IF-URPF-EDGE")
    assert urpf.status == "fail"
    assert "interface GigabitEthernet3" in urpf.evidence
    assert "edge: eBGP neighbour 10.25.31.2 (AS 65105) is on its subnet" in urpf.evidence


def test_fixes_use_the_platforms_syntax_and_no_demo_addresses() -> None:
    rules = {r.id: r for r in RULES}
    assert rules["VTY-ACL"].fix_for("nx-os")[-2:] == ["line vty", " access-class MGMT-ONLY in"]
    assert rules["LOG-HOST"].fix_for("nx-os")[0].startswith("logging server ")
    assert rules["SSH-V2"].fix_for("ios-xr") == ["ssh server v2"]
    assert rules["SSH-V2"].fix_for("ios") == ["ip ssh version 2"]  # classic IOS shares IOS-XE's syntax
    assert any("named mode" in line for line in rules["EIGRP-AUTH"].default_fix)
    every_fix = [line for r in rules.values()
                 for fix in (r.remediation.values() if isinstance(r.remediation, dict) else [r.remediation])
                 for line in fix]
    assert not [line for line in every_fix if "10.250." in line]


def test_interface_role_overrides_win_over_inference(tmp_path: Path) -> None:
    text = (CORPUS / "iosxe_bgp_confederation/D1.cfg").read_text()
    inferred = judge("D1.cfg", text, RULES)
    forced = judge("D1.cfg", text, RULES, {"D1": {"GigabitEthernet1": "edge"}})
    assert inferred.config is not None and forced.config is not None
    before = {i.name: i for i in interfaces(inferred.config)}["GigabitEthernet1"]
    after = {i.name: i for i in interfaces(forced.config)}["GigabitEthernet1"]
    assert before.role == "routed" and after.role == "edge" and after.reason == "set in the interface-roles file"
    statuses = {r.rule_id: r.status for r in forced.results}
    assert statuses["IF-URPF-EDGE"] == "fail"  # now looked at, and it lacks uRPF


def test_the_whole_corpus_assesses_in_one_command_with_a_platform_summary(writable_warehouse: Path,
                                                                          tmp_path: Path) -> None:
    env = {**os.environ, "ASSESS_DATA_DIR": str(writable_warehouse.parent)}
    out = subprocess.run([ASSESS, "assess-configs", str(CORPUS)], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert "platform  Arista EOS: 0 assessed, 2 refused (Arista EOS configuration" in out.stdout
    assert "platform  ios-xr: 3 assessed" in out.stdout and "platform  ios: 2 assessed" in out.stdout
    assert "skip  eos_ceos_ebgp/r1.cfg: Arista EOS configuration" in out.stdout
    roles = tmp_path / "lab"
    roles.mkdir()
    (roles / "D1.cfg").write_text((CORPUS / "iosxe_bgp_confederation/D1.cfg").read_text())
    (roles / "r1.cfg").write_text((CORPUS / "eos_ceos_ebgp/r1.cfg").read_text())
    (roles / "interface-roles.yaml").write_text("D1:\n  GigabitEthernet1: edge\n")
    out = subprocess.run([ASSESS, "assess-configs", str(roles), "--json"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    files = {f["file"]: f for f in json.loads(out.stdout)["files"]}
    assert files["r1.cfg"]["accepted"] is False and files["r1.cfg"]["platform"] == "Arista EOS"
    d1 = files["D1.cfg"]
    assert d1["accepted"] and d1["platform"] == "ios-xe" and d1["hostname"] == "D1"
    urpf = [r for r in d1["results"] if r["rule_id"] == "IF-URPF-EDGE"]
    assert urpf == [{"rule_id": "IF-URPF-EDGE", "status": "fail", "interface": "GigabitEthernet1",
                     "interface_role": "edge", "role_reason": "set in the interface-roles file", "lines": [urpf[0]["lines"][0]]}]
    device_level = next(r for r in d1["results"] if r["rule_id"] == "SSH-V2")
    assert device_level["interface"] is None and device_level["status"] == "pass"
    assert {r["status"] for r in d1["results"]} <= {"pass", "fail", "not_applicable", "exception"}
    snmp = next(r for r in d1["results"] if r["rule_id"] == "SNMP-V3-PRIV")
    assert snmp["status"] == "not_applicable" and snmp["reason"].startswith("SNMP is not in use")
    out = subprocess.run([ASSESS, "assess-configs", str(roles), "--json", "--fixes"], capture_output=True, text=True,
                         env=env, timeout=600)
    fixes = {f["rule_id"]: f for f in next(f for f in json.loads(out.stdout)["files"] if f["file"] == "D1.cfg")["fixes"]}
    assert fixes["IF-URPF-EDGE"] == {"rule_id": "IF-URPF-EDGE", "commands": [
        "interface GigabitEthernet1", " ip verify unicast source reachable-via rx"], "verified": True, "note": ""}
    assert all(f["verified"] for f in fixes.values()), [f for f in fixes.values() if not f["verified"]]
