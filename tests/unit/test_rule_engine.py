"""The assessment engine rule by rule: a snippet that fails and one that passes for every rule in the
catalog, evidence with line numbers, role heuristics, applicability, and complete configs per platform."""

from __future__ import annotations

import pytest

from assessment_engine.checks.config_parser import parse_config
from assessment_engine.checks.rule_engine import evaluate_rule
from assessment_engine.warehouse.config_templates import DeviceSpec, render
from assessment_engine.warehouse.demo_network import CONTROLS
from tests.catalog import RULES

IOS, NX, ASA = "version 17.6\nhostname R1\n", "version 9.3(10)\nhostname NX1\nfeature lldp\n", "ASA Version 9.16(4)\nhostname FW1\n"
XR = "!! IOS XR Configuration version = 6.2.2\nhostname XR1\n"
EDGE_IF = "interface Gi0/0/0\n description WAN to ISP (internet)\n ip address 203.0.113.1 255.255.255.252\n"
ROUTED_IF = "interface Gi0/0/1\n description core link\n ip address 10.0.0.1 255.255.255.252\n"
ACCESS_IF = "interface Gi1/0/1\n switchport access vlan 10\n switchport mode access\n"
TRUNK_IF = "interface Te1/1/1\n switchport mode trunk\n"
BGP = "router bgp 65001\n neighbor 203.0.113.2 remote-as 64500\n"

# rule id -> (platform header, device type, failing config body, passing config body)
CASES: dict[str, tuple[str, str, str, str]] = {
    "AAA-NEW-MODEL": (IOS, "router", "no aaa new-model\n", "aaa new-model\n"),
    "AAA-LOGIN-DEFAULT": (IOS, "router", "aaa new-model\n", "aaa authentication login default group ISE local\n"),
    "AAA-ENABLE-DEFAULT": (IOS, "router", "aaa new-model\n", "aaa authentication enable default group ISE enable\n"),
    "AAA-METHOD-NONE": (IOS, "router", "aaa authentication login default group ISE local none\n",
                        "aaa authentication login default group ISE local\n"),
    "AAA-ACCOUNTING": (IOS, "router", "aaa new-model\n", "aaa accounting exec default start-stop group ISE\n"),
    "PWD-ENABLE-SECRET": (IOS, "router", "enable password 7 0822455D0A16\n", "enable secret 9 $9$abc$def\n"),
    "PWD-USER-HASH": (IOS, "router", "username bob privilege 15 password 0 cisco123\n",
                      "username bob privilege 15 secret 9 $9$abc\n"),
    "PWD-SERVICE-ENC": (IOS, "router", "no service password-encryption\n", "service password-encryption\n"),
    "VTY-SSH-ONLY": (IOS, "router", "line vty 0 4\n transport input telnet ssh\n", "line vty 0 4\n transport input ssh\n"),
    "VTY-ACL": (IOS, "router", "line vty 0 4\n transport input ssh\n", "line vty 0 4\n access-class MGMT in\n"),
    "LINE-EXEC-TIMEOUT": (IOS, "router", "line vty 0 4\n exec-timeout 0 0\n", "line vty 0 4\n exec-timeout 10 0\n"),
    "AUX-DISABLED": (IOS, "router", "line aux 0\n stopbits 1\n", "line aux 0\n no exec\n"),
    "SSH-V2": (IOS, "router", "ip ssh version 1\n", "ip ssh version 2\n"),
    "SSH-LIMITS": (IOS, "router", "ip ssh time-out 60\n", "ip ssh time-out 60\nip ssh authentication-retries 3\n"),
    "HTTP-SERVER": (IOS, "router", "ip http server\n", "no ip http server\nip http secure-server\n"),
    "BANNER": (IOS, "router", "hostname only\n", "banner login ^C\nAuthorized only\n^C\n"),
    "CFG-ARCHIVE-LOG": (IOS, "router", "archive\n path flash:\n", "archive\n log config\n  logging enable\n"),
    "SNMP-DEFAULT-COMM": (IOS, "router", "snmp-server community public RO\n", "snmp-server community Xk9 RO SNMP-ACL\n"),
    "SNMP-RW": (IOS, "router", "snmp-server community Xk9 RW\n", "snmp-server community Xk9 RO SNMP-ACL\n"),
    "SNMP-ACL": (IOS, "router", "snmp-server community Xk9 RO\n", "snmp-server community Xk9 RO SNMP-ACL\n"),
    "SNMP-V3-PRIV": (IOS, "router", "snmp-server community Xk9 RO SNMP-ACL\n", "snmp-server group NETOPS v3 priv\n"),
    "VTY-AUTH": (IOS, "router", "line vty 0 4\n no login\n transport input ssh\n", "line vty 0 4\n login\n password 7 0822455D0A16\n"),
    "CON-AUTH": (IOS, "router", "line con 0\n logging synchronous\n", "line con 0\n login local\n"),
    "LOGIN-HARDEN": (IOS, "router", "login on-failure log\n", "login block-for 120 attempts 3 within 60\nlogin on-failure log\n"
                                                            "security passwords min-length 12\n"),
    "HTTP-ACCESS-CLASS": (IOS, "router", "ip http secure-server\n", "ip http secure-server\nip http access-class ipv4 MGMT-ONLY\n"),
    "REF-UNDEFINED": (IOS, "router", "router bgp 65001\n neighbor 203.0.113.2 remote-as 64500\n neighbor 203.0.113.2 route-map FROM-ISP in\n",
                      "router bgp 65001\n neighbor 203.0.113.2 remote-as 64500\n neighbor 203.0.113.2 route-map FROM-ISP in\n"
                      "route-map FROM-ISP permit 10\n match ip address prefix-list ISP\nip prefix-list ISP seq 5 permit 0.0.0.0/0\n"),
    "SNMP-TRAPS": (IOS, "router", "snmp-server community Xk9 RO SNMP-ACL\n", "snmp-server community Xk9 RO SNMP-ACL\nsnmp-server enable traps\n"),
    "LOG-HOST": (IOS, "router", "logging buffered 64000\n", "logging host 10.250.10.21\n"),
    "LOG-BUFFERED": (IOS, "router", "no logging console\n", "logging buffered 64000 informational\n"),
    "LOG-TIMESTAMPS": (IOS, "router", "service timestamps log uptime\n", "service timestamps log datetime msec\n"),
    "LOG-SOURCE-IF": (IOS, "router", "logging host 10.1.1.1\n", "logging source-interface Loopback0\n"),
    "ASA-LOGGING": (ASA, "firewall", "no logging enable\n", "logging enable\n"),
    "NTP-SERVER": (IOS, "router", "clock timezone UTC 0 0\n", "ntp server 10.250.10.5\n"),
    "NTP-AUTH": (IOS, "router", "ntp server 10.250.10.5\n",
                 "ntp authenticate\nntp trusted-key 1\nntp server 10.250.10.5 key 1\n"),
    "SVC-PAD": (IOS, "router", "service pad\n", "no service pad\n"),
    "SVC-SMALL-SERVERS": (IOS, "router", "service tcp-small-servers\n", "no service tcp-small-servers\n"),
    "SVC-FINGER": (IOS, "router", "ip finger\n", "no ip finger\n"),
    "SVC-BOOTP": (IOS, "router", "ip bootp server\n", "no ip bootp server\n"),
    "SVC-CONFIG-AUTOLOAD": (IOS, "router", "service config\n", "no service config\n"),
    "SVC-SMART-INSTALL": (IOS, "switch", "vstack\n", "no vstack\n"),
    "SVC-TCP-KEEPALIVE": (IOS, "router", "service tcp-keepalives-out\n", "service tcp-keepalives-in\n"),
    "IP-SOURCE-ROUTE": (IOS, "router", "ip source-route\n", "no ip source-route\n"),
    "COPP": (IOS, "router", "control-plane\n", "control-plane\n service-policy input COPP\n"),
    "OSPF-AUTH": (IOS, "router", "router ospf 1\n network 10.0.0.0 0.255.255.255 area 0\n" + ROUTED_IF,
                  "router ospf 1\n area 0 authentication message-digest\n"),
    "EIGRP-AUTH": (IOS, "router", "router eigrp 100\n network 10.0.0.0\n" + ROUTED_IF,
                   "router eigrp 100\ninterface Gi1\n ip authentication mode eigrp 100 md5\n"),
    "BGP-NEIGHBOR-AUTH": (IOS, "router", BGP, BGP + " neighbor 203.0.113.2 password 7 ABC\n"),
    "BGP-EBGP-FILTER": (IOS, "router", BGP, BGP + " address-family ipv4\n  neighbor 203.0.113.2 prefix-list IN in\n"),
    "FHRP-AUTH": (IOS, "router", "interface Gi1\n standby 10 ip 10.0.0.1\n",
                  "interface Gi1\n standby 10 ip 10.0.0.1\n standby 10 authentication md5 key-string 7 X\n"),
    "IF-REDIRECTS": (IOS, "router", ROUTED_IF, ROUTED_IF + " no ip redirects\n"),
    "IF-DIRECTED-BCAST": (IOS, "router", ROUTED_IF + " ip directed-broadcast\n", ROUTED_IF),
    "IF-PROXY-ARP": (IOS, "router", EDGE_IF, EDGE_IF + " no ip proxy-arp\n"),
    "IF-URPF-EDGE": (IOS, "router", EDGE_IF, EDGE_IF + " ip verify unicast source reachable-via rx\n"),
    "IF-CDP-EDGE": (IOS, "router", EDGE_IF, EDGE_IF + " no cdp enable\n"),
    "L2-BPDUGUARD": (IOS, "switch", ACCESS_IF, "spanning-tree portfast default\nspanning-tree portfast bpduguard default\n"
                     + ACCESS_IF),
    "L2-TRUNK-NONEGOTIATE": (IOS, "switch", TRUNK_IF, TRUNK_IF + " switchport nonegotiate\n"),
    "L2-DHCP-SNOOPING": (IOS, "switch", ACCESS_IF, "ip dhcp snooping\n" + ACCESS_IF),
    "L2-VTP": (IOS, "switch", "vtp mode server\n", "vtp mode transparent\n"),
    "NXOS-TELNET": (NX, "switch", "feature telnet\n", "feature ssh\n"),
    "NXOS-PWD-STRENGTH": (NX, "switch", "no password strength-check\n", "password strength-check\n"),
    "ASA-TELNET": (ASA, "firewall", "telnet 10.0.0.0 255.0.0.0 inside\n", "ssh 10.250.0.0 255.255.0.0 management\n"),
    "ASA-SSH-V2": (ASA, "firewall", "ssh version 1\n", "ssh version 2\n"),
    "ASA-MGMT-ANY": (ASA, "firewall", "ssh 0.0.0.0 0.0.0.0 outside\n", "ssh 10.250.0.0 255.255.0.0 management\n"),
    "ASA-TLS": (ASA, "firewall", "ssl server-version tlsv1\n", "ssl server-version tlsv1.2\n"),
    "XR-TELNET": (XR, "router", "telnet vrf default ipv4 server max-servers 10\n", "ssh server v2\n"),
    "XR-MGMT-PLANE": (XR, "router", "control-plane\n", "control-plane\n management-plane\n  inband\n   interface all\n"
                                                        "    allow SSH peer\n     address ipv4 10.0.0.0/24\n"),
    "ASA-AAA-SSH": (ASA, "firewall", "aaa-server TACACS protocol tacacs+\n", "aaa authentication ssh console TACACS LOCAL\n"),
}


def test_every_rule_has_a_case_and_the_catalog_is_large_enough() -> None:
    ids = {r.id for r in RULES}
    assert len(ids) >= 40
    assert ids == set(CASES)


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fails_and_passes(rule_id: str) -> None:
    rule = next(r for r in RULES if r.id == rule_id)
    header, device_type, bad, good = CASES[rule_id]
    failing = evaluate_rule(rule, parse_config(header + bad), device_type)
    passing = evaluate_rule(rule, parse_config(header + good), device_type)
    assert failing.status == "fail", failing
    assert failing.evidence
    assert passing.status in ("pass", "not_applicable") and passing.status == "pass" or rule.when, passing


def test_failing_lines_carry_their_line_numbers() -> None:
    rule = next(r for r in RULES if r.id == "SNMP-DEFAULT-COMM")
    result = evaluate_rule(rule, parse_config(IOS + "!\nsnmp-server community public RO\n"), "router")
    assert result.evidence_lines == (4,) and result.evidence == "4: snmp-server community public RO"


def test_switchport_rules_do_not_flag_routed_ports_and_l3_rules_skip_access_ports() -> None:
    """A rule with no interface of its role has nothing to look at: not applicable, never a pass."""
    rules = {r.id: r for r in RULES}
    routed_only = parse_config(IOS + ROUTED_IF + " no ip redirects\n")
    assert evaluate_rule(rules["L2-BPDUGUARD"], routed_only, "switch").status == "not_applicable"
    access_only = parse_config(IOS + ACCESS_IF + " spanning-tree bpduguard enable\n")
    assert evaluate_rule(rules["IF-REDIRECTS"], access_only, "switch").status == "not_applicable"
    assert evaluate_rule(rules["IF-URPF-EDGE"], parse_config(IOS + ROUTED_IF), "router").status == "not_applicable"


def test_rules_outside_their_scope_are_not_applicable() -> None:
    rules = {r.id: r for r in RULES}
    assert evaluate_rule(rules["NXOS-TELNET"], parse_config(IOS), "router").status == "not_applicable"
    assert evaluate_rule(rules["SVC-SMART-INSTALL"], parse_config(IOS), "router").status == "not_applicable"
    assert evaluate_rule(rules["OSPF-AUTH"], parse_config(IOS), "router").status == "not_applicable"


@pytest.mark.parametrize(("platform", "device_type", "role", "min_fail"), [
    ("ios-xe", "router", "edge", 30), ("ios-xe", "switch", "access", 25), ("nx-os", "switch", "leaf", 6),
    ("asa", "firewall", "edge", 7),
])
def test_complete_configs_per_platform(platform: str, device_type: str, role: str, min_fail: int) -> None:
    spec = DeviceSpec("T-1", "HQ", "hq", "production", device_type, role, "f", "m", platform, "high", "10.250.0.2", 1)
    version = {"ios-xe": "17.6.5", "nx-os": "9.3(10)", "asa": "9.16(4)"}[platform]
    rules = RULES

    def failures(good: bool) -> list[str]:
        cfg = parse_config(render(spec, version, dict.fromkeys(CONTROLS, good), "now"))
        return [r.id for r in rules if evaluate_rule(r, cfg, device_type).status == "fail"]

    assert len(failures(False)) >= min_fail
    assert failures(True) == []


def test_bgp_model_resolves_groups_templates_and_overrides() -> None:
    from assessment_engine.checks.bgp import bgp_view
    text = IOS + ("router bgp 65001\n template peer-session A\n  inherit peer-session B\n template peer-session B\n"
                  "  inherit peer-session A\n  remote-as 64999\n neighbor G peer-group\n neighbor G remote-as 64500\n"
                  " neighbor 192.0.2.1 peer-group G\n neighbor 192.0.2.2 peer-group G\n neighbor 192.0.2.2 remote-as 65001\n"
                  " neighbor 192.0.2.3 inherit peer-session A\n")
    by = {n.address: n for n in bgp_view(parse_config(text)).neighbors}
    assert (by["192.0.2.1"].remote_as, by["192.0.2.1"].external) == ("64500", True)
    assert (by["192.0.2.2"].remote_as, by["192.0.2.2"].external) == ("65001", False)  # its own line wins
    assert by["192.0.2.3"].remote_as == "64999" and by["192.0.2.3"].inherits == ("peer-session A", "peer-session B")
    assert "G" not in by  # a peer-group is not a neighbour


@pytest.mark.parametrize("policy, status", [
    ("ip prefix-list IN seq 5 permit 0.0.0.0/0 le 32\n", "fail"),
    ("ip prefix-list IN seq 5 deny 10.0.0.0/8 le 32\nip prefix-list IN seq 10 permit 0.0.0.0/0 le 32\n", "pass"),
    ("ip prefix-list IN seq 5 permit 0.0.0.0/0\n", "pass"),  # the default route only
])
def test_an_inbound_filter_that_accepts_everything_is_no_filter(policy: str, status: str) -> None:
    rule = next(r for r in RULES if r.id == "BGP-EBGP-FILTER")
    text = IOS + BGP + " neighbor 203.0.113.2 prefix-list IN in\n" + policy
    result = evaluate_rule(rule, parse_config(text), "router")
    assert result.status == status
    if status == "fail":
        assert "accepts every route" in result.evidence and "permit 0.0.0.0/0 le 32" in result.evidence


def test_a_feature_that_is_off_is_not_judged_and_the_result_says_why() -> None:
    rules = {r.id: r for r in RULES}
    cfg = parse_config(IOS + "logging host 10.0.0.1\n")
    for rule_id in ("SNMP-V3-PRIV", "SNMP-TRAPS"):
        result = evaluate_rule(rules[rule_id], cfg, "router")
        assert result.status == "not_applicable" and "SNMP is not in use" in result.reason
    assert evaluate_rule(rules["BGP-NEIGHBOR-AUTH"], cfg, "router").reason.startswith("BGP is not running")


@pytest.mark.parametrize("header, block, role, reason", [
    (IOS, "interface Dialer1\n ip address negotiated\n encapsulation ppp\n dialer pool 1\n", "edge", "Dialer interface"),
    (IOS, "interface Cellular0/2/0\n ip address negotiated\n", "edge", "Cellular interface"),
    (IOS, "interface Gi0/0/0\n ip address dhcp\n", "edge", "from DHCP"),
    (IOS + "ip route 0.0.0.0 0.0.0.0 10.9.9.9\n", "interface Gi0/0/0\n ip address dhcp\n", "routed", "address"),
    (IOS, "interface Gi0/0/1\n description transit to DC2\n ip address 10.1.1.1 255.255.255.252\n", "routed", "address"),
    (IOS, "interface Gi0/0/1\n description transit AS174\n ip address 198.18.1.1 255.255.255.252\n", "edge", "public"),
    (NX, "interface Ethernet1/47\n  switchport mode fex-fabric\n  fex associate 101\n", "trunk", "fex-fabric"),
    (NX, "interface Ethernet1/5\n  mtu 9216\ninterface Ethernet1/5.100\n  encapsulation dot1q 100\n"
         "  ip address 10.5.0.1/30\n", "unconfigured", "parent of sub-interface Ethernet1/5.100"),
])
def test_internet_facing_forms_and_fabric_ports_get_their_roles(header: str, block: str, role: str, reason: str) -> None:
    from assessment_engine.checks.rule_engine import interfaces
    first = interfaces(parse_config(header + block))[0]
    assert (first.role, reason in first.reason) == (role, True), first


@pytest.mark.parametrize("header, body, status", [
    (IOS, "line con 0\n exec-timeout 10 0\nline vty 0 4\n exec-timeout 5 0\n", "pass"),
    (IOS, "line con 0\n exec-timeout 10 0\nline vty 0 4\n exec-timeout 30 0\n", "fail"),
    (IOS, "line con 0\n exec-timeout 10 0\nline vty 0 4\n transport input ssh\n", "fail"),
    (IOS, "line con 0\n exec-timeout 0 0\nline vty 0 4\n exec-timeout 10 0\n", "fail"),
    (NX, "line console\n  exec-timeout 10\nline vty\n  exec-timeout 15\n", "fail"),
])
def test_exec_timeout_is_judged_by_its_value(header: str, body: str, status: str) -> None:
    rule = next(r for r in RULES if r.id == "LINE-EXEC-TIMEOUT")
    assert evaluate_rule(rule, parse_config(header + body), "router").status == status


@pytest.mark.parametrize("body, status", [
    ("ip ssh time-out 60\nip ssh authentication-retries 3\n", "pass"),
    ("ip ssh time-out 120\nip ssh authentication-retries 3\n", "fail"),
    ("ip ssh time-out 30\nip ssh authentication-retries 5\n", "fail"),
])
def test_ssh_limits_are_compared_with_the_limits(body: str, status: str) -> None:
    rule = next(r for r in RULES if r.id == "SSH-LIMITS")
    assert evaluate_rule(rule, parse_config(IOS + body), "router").status == status


@pytest.mark.parametrize("header, line, status", [
    (XR, "snmp-server user mon NETOPS v3 auth sha encrypted 0A1B priv aes 128 encrypted 0C1D\n", "pass"),
    (XR, "snmp-server user mon NETOPS v3 auth sha encrypted 0A1B priv des56 encrypted 0C1D\n", "fail"),
    (NX, "snmp-server user mon network-operator auth sha 0x1 priv aes-128 0x2 localizedkey\n", "pass"),
    (NX, "snmp-server user mon network-operator auth sha 0x1 priv 0x2 localizedkey\n", "fail"),
])
def test_snmpv3_privacy_must_be_aes(header: str, line: str, status: str) -> None:
    rule = next(r for r in RULES if r.id == "SNMP-V3-PRIV")
    assert evaluate_rule(rule, parse_config(header + line), "router").status == status


@pytest.mark.parametrize("body, status", [
    ("aaa new-model\naaa authentication login VTY group ISE local\nline vty 0 4\n login authentication VTY\n", "pass"),
    ("aaa new-model\nline vty 0 4\n login authentication NOSUCH\n", "fail"),
    ("line vty 0 4\n no login\n", "fail"),
    ("line vty 0 4\n transport input ssh\n", "pass"),  # a VTY's default is 'login': without a password, no entry
])
def test_vty_authentication_is_judged_from_the_aaa_lists_and_the_line(body: str, status: str) -> None:
    rule = next(r for r in RULES if r.id == "VTY-AUTH")
    assert evaluate_rule(rule, parse_config(IOS + body), "router").status == status
