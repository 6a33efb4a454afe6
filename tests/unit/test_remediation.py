"""Fixes derived from the evidence and proven: for every rule of the catalog, the fix written for a failing
configuration, applied to its text in memory, makes the rule pass and no other rule worse; device names (server
groups, VTY ranges, interfaces, BGP peer-groups, VRFs) come from the device, secrets it has stay masked."""

from __future__ import annotations

import pytest

from assessment_engine.checks.config_parser import parse_config
from assessment_engine.checks.remediation import apply_commands, derive_fix, verify_fix
from assessment_engine.checks.rule_engine import evaluate_rule
from tests.catalog import RULES
from tests.unit.test_rule_engine import CASES, IOS, NX, XR


def _failing(rule_id: str, text: str, device_type: str = "router"):  # type: ignore[no-untyped-def]
    rule = next(r for r in RULES if r.id == rule_id)
    cfg = parse_config(text)
    result = evaluate_rule(rule, cfg, device_type)
    assert result.status == "fail", result
    return rule, cfg, result


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_every_rules_fix_is_verified_by_re_judging_the_patched_text(rule_id: str) -> None:
    header, device_type, bad, _good = CASES[rule_id]
    rule, cfg, result = _failing(rule_id, header + bad, device_type)
    fix = verify_fix(rule, cfg, result, RULES, device_type)
    assert fix.verified, (fix.note, fix.commands)


def test_the_fix_negates_the_lines_the_evidence_shows() -> None:
    asa = "ASA Version 9.16(4)\nhostname FW1\ntelnet 10.0.0.0 255.0.0.0 inside\ntelnet 10.9.0.0 255.255.0.0 mgmt\n"
    rule, cfg, result = _failing("ASA-TELNET", asa, "firewall")
    assert derive_fix(rule, cfg, result) == ["crypto key generate rsa modulus 2048", "ssh 10.0.0.0 255.0.0.0 inside",
                                             "ssh 10.9.0.0 255.255.0.0 mgmt",
                                             "no telnet 10.0.0.0 255.0.0.0 inside", "no telnet 10.9.0.0 255.255.0.0 mgmt"]
    rule, cfg, result = _failing("AAA-METHOD-NONE", IOS + "aaa new-model\naaa authentication login CONSOLE local none\n")
    assert derive_fix(rule, cfg, result) == ["aaa authentication login CONSOLE local"]


def test_the_fix_uses_the_devices_own_names() -> None:
    text = IOS + ("aaa new-model\naaa authentication login default group ISE-TACACS local\n"
                  "line vty 0 4\n transport input telnet ssh\nline vty 5 15\n transport input ssh\n")
    rule, cfg, result = _failing("AAA-ACCOUNTING", text)
    assert all("group ISE-TACACS" in c for c in derive_fix(rule, cfg, result))
    rule, cfg, result = _failing("VTY-SSH-ONLY", text)
    fix = derive_fix(rule, cfg, result)
    assert fix == ["line vty 0 4", " transport input ssh"]
    assert "transport input telnet ssh" not in apply_commands(cfg, fix)


def test_bgp_fixes_go_to_the_peer_group_and_the_vrf() -> None:
    text = IOS + ("router bgp 65001\n neighbor EDGE peer-group\n neighbor EDGE remote-as 64500\n"
                  " neighbor 203.0.113.1 peer-group EDGE\n neighbor 203.0.113.5 peer-group EDGE\n"
                  " address-family ipv4 vrf RED\n  neighbor 192.0.2.2 remote-as 65100\n")
    rule, cfg, result = _failing("BGP-NEIGHBOR-AUTH", text)
    fix = verify_fix(rule, cfg, result, RULES)
    assert fix.commands == ["router bgp 65001", " neighbor EDGE password <secret>", " address-family ipv4 vrf RED",
                            "  neighbor 192.0.2.2 password <secret>"]
    assert fix.verified
    xr = XR + ("router bgp 65030\n vrf RED\n  neighbor 100.64.0.2\n   remote-as 65401\n   address-family ipv4 unicast\n"
               "    route-policy PASS in\nroute-policy PASS\n  pass\nend-policy\n")
    rule, cfg, result = _failing("BGP-EBGP-FILTER", xr)
    fix = verify_fix(rule, cfg, result, RULES)
    at = fix.commands.index("router bgp 65030")
    assert fix.commands[at:at + 3] == ["router bgp 65030", " vrf RED", "  neighbor 100.64.0.2"] and fix.verified
    assert "route-policy PEER-IN" in fix.commands[:at]  # the policy the neighbour is given is defined first


def test_a_fix_that_leaves_the_exposure_is_labelled_not_verified() -> None:
    rule, cfg, result = _failing("LINE-EXEC-TIMEOUT", NX + "line console\n  exec-timeout 0\nline vty\n")
    fix = verify_fix(rule, cfg, result, RULES, "switch")
    assert fix.verified, fix.note
    from assessment_engine.checks.remediation import Fix
    assert Fix("X", [], note="X still fails").label == "not verified: X still fails"


def test_secrets_the_device_has_are_masked_in_the_shown_fix() -> None:
    rule, cfg, result = _failing("SNMP-RW", IOS + "snmp-server community S3cr3tRW RW\n")
    fix = verify_fix(rule, cfg, result, RULES)
    assert fix.verified and "S3cr3tRW" in " ".join(fix.commands) and "S3cr3tRW" not in " ".join(fix.shown)


ASA = "ASA Version 9.16(4)\nhostname FW1\n"
# the per-platform fixes of the catalog, each on a failing configuration of that platform
PLATFORM_CASES: list[tuple[str, str, str, str]] = [
    ("VTY-ACL", NX, "switch", "line vty\n  exec-timeout 10\n"),
    ("VTY-ACL", XR, "router", "line default\n transport input ssh\n"),
    ("LINE-EXEC-TIMEOUT", XR, "router", "line default\n exec-timeout 0 0\n"),
    ("LINE-EXEC-TIMEOUT", NX, "switch", "line console\nline vty\n  exec-timeout 0\n"),
    ("BANNER", NX, "switch", "feature lldp\n"), ("BANNER", ASA, "firewall", "names\n"), ("BANNER", XR, "router", "ssh server v2\n"),
    ("LOG-HOST", NX, "switch", "logging level aaa 5\n"), ("LOG-HOST", ASA, "firewall", "logging enable\n"),
    ("LOG-HOST", XR, "router", "logging buffered 64000\n"),
    ("NTP-SERVER", NX, "switch", "clock timezone UTC 0 0\n"), ("NTP-SERVER", ASA, "firewall", "names\n"),
    ("NTP-SERVER", XR, "router", "clock timezone UTC\n"),
    ("NTP-AUTH", XR, "router", "ntp\n server 192.0.2.1\n"),
    ("SSH-V2", XR, "router", "ssh timeout 60\n"),
    ("AAA-ACCOUNTING", XR, "router", "aaa authentication login default group ISE local\n"),
    ("AAA-LOGIN-DEFAULT", XR, "router", "aaa accounting exec default start-stop group ISE\n"),
    ("PWD-USER-HASH", XR, "router", "username bob\n password 7 0822455D0A16\n"),
    ("SNMP-RW", NX, "switch", "snmp-server community Wr1te group network-admin\nsnmp-server community Wr1te RW\n"),
    ("SNMP-RW", XR, "router", "snmp-server community Wr1te RW\n"),
    ("SNMP-V3-PRIV", NX, "switch", "snmp-server user mon network-operator auth sha 0x1 priv 0x2 localizedkey\n"),
    ("SNMP-V3-PRIV", XR, "router", "snmp-server community N3tM0n RO\n"),
    ("SNMP-DEFAULT-COMM", NX, "switch", "snmp-server community public group network-operator\n"),
    ("OSPF-AUTH", NX, "switch", "feature ospf\nrouter ospf 1\ninterface Ethernet1/1\n  no switchport\n"
                                "  ip address 10.0.0.1/30\n  ip router ospf 1 area 0.0.0.0\n  no shutdown\n"),
    ("OSPF-AUTH", XR, "router", "router ospf 1\n area 0\n  interface GigabitEthernet0/0/0/1\n"),
    ("BGP-NEIGHBOR-AUTH", NX, "switch", "router bgp 65020\n  neighbor 203.0.113.9\n    remote-as 64500\n"),
    ("BGP-EBGP-FILTER", NX, "switch", "router bgp 65020\n  neighbor 203.0.113.9\n    remote-as 64500\n"
                                      "    address-family ipv4 unicast\n"),
    ("FHRP-AUTH", NX, "switch", "feature hsrp\ninterface Vlan10\n  no shutdown\n  ip address 10.1.10.2/24\n"
                                "  hsrp 10\n    ip 10.1.10.1\n"),
    ("L2-BPDUGUARD", NX, "switch", "interface Ethernet1/10\n  switchport mode access\n  spanning-tree port type edge\n"
                                   "  no shutdown\n"),
]


@pytest.mark.parametrize("rule_id, header, device_type, body", PLATFORM_CASES,
                         ids=[f"{c[0]}-{c[1].split()[0]}" for c in PLATFORM_CASES])
def test_each_platforms_fix_is_verified_too(rule_id: str, header: str, device_type: str, body: str) -> None:
    rule, cfg, result = _failing(rule_id, header + body, device_type)
    fix = verify_fix(rule, cfg, result, RULES, device_type)
    assert fix.verified, (fix.note, fix.commands)


def test_patching_keeps_a_multi_line_banner() -> None:
    text = IOS + "banner login ^C\nAuthorized access only.\nDisconnect now.\n^C\nline vty 0 4\n transport input telnet\n"
    rule, cfg, result = _failing("VTY-SSH-ONLY", text)
    patched = apply_commands(cfg, derive_fix(rule, cfg, result))
    assert "Authorized access only.\nDisconnect now.\n^C" in patched and " transport input ssh" in patched
    assert verify_fix(rule, cfg, result, RULES).verified


def test_asa_management_from_anywhere_is_closed_per_service_it_opened() -> None:
    asa = ASA + "http server enable\nhttp 0.0.0.0 0.0.0.0 outside\nssh 0.0.0.0 0.0.0.0 outside\n"
    rule, cfg, result = _failing("ASA-MGMT-ANY", asa, "firewall")
    fix = verify_fix(rule, cfg, result, RULES, "firewall")
    assert fix.commands == ["http <MGMT-SUBNET> <MASK> outside", "ssh <MGMT-SUBNET> <MASK> outside",
                            "no http 0.0.0.0 0.0.0.0 outside", "no ssh 0.0.0.0 0.0.0.0 outside"]
    assert fix.verified


def test_a_fix_on_a_masked_configuration_keeps_the_masked_values_as_the_devices_own() -> None:
    from orchestration.tools.device_fixes import _one_token_markers
    masked = IOS + "snmp-server community <community masked> RO\nsnmp-server group NETOPS v3 auth\n"
    cfg = parse_config(_one_token_markers(masked))
    rule = next(r for r in RULES if r.id == "SNMP-ACL")
    result = evaluate_rule(rule, cfg, "router")
    assert result.status == "fail"  # one word, as the value was: the line has no ACL
    fix = verify_fix(rule, cfg, result, RULES)
    assert "snmp-server community <community-masked-1> RO SNMP-MGMT" in fix.shown and fix.verified
