"""Every fix the product writes — on the real captured configurations (../shared/realconfigs), the configurations
of tests/fixtures, the demo fleet's templates of every platform and the rule cases — applied to its device's text:
a fix labelled "verified" makes its rule pass and keeps every kind of way in the device had (console, remote), as
the access model reads them from the patched text; a fix that adds a prerequisite puts it before the line needing it.
Also through the command line: ``assess assess-configs --fixes`` prints "verified" only for such fixes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from assessment_engine.checks.access import keeps_access, ways_in
from assessment_engine.checks.judgement import judge
from assessment_engine.checks.remediation import patched_config
from assessment_engine.checks.rule_engine import evaluate_rule
from assessment_engine.warehouse.config_templates import DeviceSpec, render
from assessment_engine.warehouse.demo_network import CONTROLS
from foundation.config import PROJECT_ROOT
from tests.catalog import RULES
from tests.conftest import ASSESS, FIXTURES
from tests.unit.test_rule_engine import CASES

CORPUS = PROJECT_ROOT.parent / "shared" / "realconfigs"
DEMO = [("ios-xe", "router", "wan-edge", "17.9.4"), ("ios-xe", "switch", "access", "17.6.5"),
        ("ios-xe", "switch", "core", "17.6.5"), ("nx-os", "switch", "leaf", "9.3(10)"),
        ("asa", "firewall", "perimeter", "9.16(4)")]


def _configurations() -> list[tuple[str, str]]:
    out = [(str(p.relative_to(CORPUS)), p.read_text()) for p in sorted(CORPUS.rglob("*.cfg"))] if CORPUS.is_dir() else []
    out += [(str(p.relative_to(FIXTURES)), p.read_text(errors="replace")) for p in sorted(FIXTURES.rglob("*"))
            if p.is_file() and p.suffix in (".cfg", ".conf", ".txt")]
    for platform, device_type, role, version in DEMO:
        for good in (False, True):
            spec = DeviceSpec(f"T-{device_type}", "HQ", "hq", "production", device_type, role, "fam", "model", platform,
                              "high", "10.250.0.9", 3)
            out.append((f"demo {platform} {role} {good}", render(spec, version, dict.fromkeys(CONTROLS, good), "now")))
    out += [(f"case {rule_id}", header + bad) for rule_id, (header, _t, bad, _g) in sorted(CASES.items())]
    return out


def test_every_verified_fix_passes_its_rule_and_keeps_a_way_in() -> None:
    checked = verified = 0
    for name, text in _configurations():
        j = judge(name, text, RULES)
        if not (j.accepted and j.config is not None):
            continue
        rules = {r.id: r for r in RULES}
        for fix in j.fixes(RULES):
            checked += 1
            patched = patched_config(rules[fix.rule_id], j.config, fix.commands)
            if not fix.verified:
                assert fix.note, (name, fix.rule_id)  # says why
                continue
            verified += 1
            assert keeps_access(j.config, patched) is None, (name, fix.rule_id, fix.commands)
            assert evaluate_rule(rules[fix.rule_id], patched, j.device_type).status != "fail", (name, fix.rule_id)
    assert checked > 1000 and verified > 0.95 * checked, (checked, verified)


def test_prerequisites_come_before_what_needs_them_on_a_device_with_none() -> None:
    # a device as small lab and branch switches are left: line passwords, telnet, no user, no SSH keys
    text = ("version 15.0\nhostname LAB-SW1\nenable password 7 0822455D0A16\nline con 0\nline vty 0 4\n password 7 0822455D0A16\n login\nline vty 5 15\n password 7 0822455D0A16\n login\n")
    j = judge("lab-sw1.cfg", text, RULES)
    assert j.config is not None
    fixes = {f.rule_id: f for f in j.fixes(RULES)}
    before = ways_in(j.config)
    assert before.console and before.remote
    for rule_id in ("AAA-NEW-MODEL", "CON-AUTH", "VTY-SSH-ONLY", "AAA-LOGIN-DEFAULT"):
        fix = fixes[rule_id]
        assert fix.verified, (rule_id, fix.note)
        users = [i for i, c in enumerate(fix.commands) if c.startswith("username ")]
        assert users and users[0] == 0, (rule_id, fix.commands)  # the user first, then what asks for one
        assert not any("scrypt" in c for c in fix.commands)  # 15.0 has no type 9 secrets


def test_the_command_line_prints_verified_only_for_fixes_that_keep_a_way_in(writable_warehouse: Path,
                                                                          tmp_path: Path) -> None:
    (tmp_path / "lab").mkdir()
    lab = tmp_path / "lab" / "lab-sw1.cfg"
    lab.write_text("version 15.0\nhostname LAB-SW1\nline con 0\nline vty 0 4\n password 7 0822455D0A16\n login\n"
                   " transport input telnet\n")
    out = subprocess.run([ASSESS, "assess-configs", str(lab.parent), "--fixes"], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "ASSESS_DATA_DIR": str(writable_warehouse.parent)})
    assert out.returncode == 0, out.stderr
    text = out.stdout
    con = text[text.index("fix CON-AUTH"):].split("  fix ")[0]
    assert "a way in is kept" in con and "username <admin-user>" in con
    assert con.index("username <admin-user>") < con.index("login local")
