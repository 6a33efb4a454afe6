"""Forms real configurations use that the rules and roles misread, each with the lines that showed it: a route-map
judged by all its entries, peers of a listen range, BPDU guard by default only where PortFast is on, NX-OS
read-write communities by role, IOS-XR's management plane open to all, an edge that needs a public peer or address,
and a device type from the platform — never from a VLAN's name."""

from __future__ import annotations

from assessment_engine.checks.config_parser import parse_config
from assessment_engine.checks.judgement import device_type
from assessment_engine.checks.rule_engine import evaluate_rule, interfaces
from tests.catalog import RULES

XE = "version 17.9\nhostname R1\n"
RULE = {r.id: r for r in RULES}


def _status(rule_id: str, text: str, kind: str = "router") -> str:
    return evaluate_rule(RULE[rule_id], parse_config(text), kind).status


def test_a_route_map_whose_later_entry_permits_without_a_match_accepts_every_route() -> None:
    bgp = XE + "router bgp 65001\n neighbor 203.0.113.1 remote-as 64500\n neighbor 203.0.113.1 route-map FROM-ISP in\n"
    leaky = bgp + ("ip prefix-list CUSTOMER seq 5 permit 198.51.100.0/24\nroute-map FROM-ISP permit 10\n"
                   " match ip address prefix-list CUSTOMER\n set local-preference 200\nroute-map FROM-ISP permit 20\n")
    assert _status("BGP-EBGP-FILTER", leaky) == "fail"
    denies_some = bgp + ("ip prefix-list BOGONS seq 5 permit 10.0.0.0/8 le 32\nroute-map FROM-ISP deny 10\n"
                         " match ip address prefix-list BOGONS\nroute-map FROM-ISP permit 20\n")
    assert _status("BGP-EBGP-FILTER", denies_some) == "pass"


def test_a_listen_range_is_a_neighbour_and_its_subnet_an_edge() -> None:
    text = XE + ("interface GigabitEthernet0/0/2\n description customers\n ip address 100.64.10.1 255.255.255.0\n"
                 "router bgp 65010\n bgp listen range 100.64.10.0/24 peer-group DYN_CUST\n"
                 " neighbor DYN_CUST peer-group\n neighbor DYN_CUST remote-as 65020\n")
    assert _status("BGP-NEIGHBOR-AUTH", text) == "fail"
    roles = {i.name: i.role for i in interfaces(parse_config(text))}
    assert roles["GigabitEthernet0/0/2"] == "edge"


def test_bpdu_guard_by_default_protects_only_ports_with_portfast() -> None:
    base = XE + "spanning-tree portfast bpduguard default\ninterface GigabitEthernet1/0/1\n switchport mode access\n" \
                " switchport access vlan 10\n"
    assert _status("L2-BPDUGUARD", base, "switch") == "fail"  # no PortFast: the default does not reach it
    assert _status("L2-BPDUGUARD", base + " spanning-tree portfast\n", "switch") == "pass"
    assert _status("L2-BPDUGUARD", base + "spanning-tree portfast default\n", "switch") == "pass"


def test_an_nx_os_community_with_the_admin_role_is_read_write() -> None:
    nx = "version 9.3(10)\nhostname NX1\nfeature lldp\nsnmp-server community Pr1vate group network-admin\n"
    assert _status("SNMP-RW", nx, "switch") == "fail"
    assert _status("SNMP-RW", nx.replace("network-admin", "network-operator"), "switch") == "pass"


def test_an_ios_xr_management_plane_that_allows_all_is_no_restriction() -> None:
    xr = "!! IOS XR Configuration version = 7.3.2\nhostname PE1\ncontrol-plane\n management-plane\n  inband\n" \
         "   interface all\n    allow all\n"
    assert _status("XR-MGMT-PLANE", xr) == "fail"
    restricted = xr.replace("    allow all\n", "    allow SSH peer\n     address ipv4 10.0.0.0/24\n")
    assert _status("XR-MGMT-PLANE", restricted) == "pass"


def test_a_default_route_to_the_sites_own_firewall_is_no_internet_edge() -> None:
    switch = XE + ("interface Vlan100\n description management\n ip address 10.20.100.5 255.255.255.0\n"
                   "interface Vlan900\n description to FW-ST01 inside\n ip address 10.20.254.2 255.255.255.248\n"
                   "ip route 0.0.0.0 0.0.0.0 10.20.254.1\n")
    roles = {i.name: i.role for i in interfaces(parse_config(switch))}
    assert roles["Vlan900"] != "edge" and roles["Vlan100"] != "edge", roles
    router = XE + ("interface GigabitEthernet0/0/0\n description uplink\n ip address 198.51.100.2 255.255.255.252\n"
                   "ip route 0.0.0.0 0.0.0.0 198.51.100.1\n")
    assert {i.name: i.role for i in interfaces(parse_config(router))}["GigabitEthernet0/0/0"] == "edge"


def test_a_vlan_named_for_wireless_does_not_make_a_switch_a_wireless_controller() -> None:
    switch = XE + ("vlan 120\n name of-wireless\ninterface GigabitEthernet1/0/1\n description AP uplink wireless\n"
                   " switchport mode access\n switchport access vlan 120\n")
    assert device_type(parse_config(switch)) == "switch"
    wlc = XE + "wireless management interface Vlan10\nwlan CORP 1 CORP\n security wpa psk set-key ascii 0 x\n"
    assert device_type(parse_config(wlc)) == "wireless_controller"


def test_a_read_write_community_is_made_read_only_not_removed() -> None:
    from assessment_engine.checks.remediation import verify_fix
    nx = "version 9.3(10)\nhostname NX1\nfeature lldp\nsnmp-server community Pr1vate group network-admin\n"
    cfg = parse_config(nx)
    fix = verify_fix(RULE["SNMP-RW"], cfg, evaluate_rule(RULE["SNMP-RW"], cfg, "switch"), RULES, "switch")
    assert fix.commands == ["snmp-server community Pr1vate group network-operator"] and fix.verified


def test_ios_xr_stamps_its_logs_by_default_and_fails_only_when_told_otherwise() -> None:
    xr = "!! IOS XR Configuration version = 7.3.2\nhostname PE1\nlogging 10.0.0.5 vrf default\n"
    assert _status("LOG-TIMESTAMPS", xr) == "pass"
    assert _status("LOG-TIMESTAMPS", xr + "service timestamps log uptime\n") == "fail"
    assert _status("LOG-TIMESTAMPS", XE + "logging host 10.0.0.5\n") == "fail"
