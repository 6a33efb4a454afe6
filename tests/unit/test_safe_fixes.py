"""Fixes an engineer can paste: a fix is "verified" only when the patched configuration keeps a way in for an
administrator (the ways in read from the configuration, apart from the rules), carries its prerequisites before the
line that needs them, and uses the device's own names and values. Each case is a device of a kind real networks
have, with the lines that made today's fixes unsafe; each would have been labelled "verified" before."""

from __future__ import annotations

import pytest

from assessment_engine.checks.access import lost_access, ways_in
from assessment_engine.checks.config_parser import parse_config
from assessment_engine.checks.remediation import Fix, apply_commands, sample_values, verify_fix
from assessment_engine.checks.rule_engine import evaluate_rule
from tests.catalog import RULES

IOS15 = "version 15.2\nservice password-encryption\nhostname SW-ACCESS-3\n"
IOS12 = "version 12.2\nservice password-encryption\nhostname OLD-ACCESS-1\n"
XE17 = "version 17.9\nhostname EDGE-R1\n"
ASA = "ASA Version 9.16(4)\nhostname FW1\n"
# the only way in of many small switches: a line password and telnet
TELNET_ONLY_VTY = "line con 0\n password 7 0822455D0A16\n login\nline vty 0 4\n password 7 0822455D0A16\n login\n" \
                  " transport input telnet\nline vty 5 15\n password 7 0822455D0A16\n login\n transport input telnet\n"


def _fix(rule_id: str, text: str, device_type: str = "switch") -> tuple[Fix, str]:
    rule = next(r for r in RULES if r.id == rule_id)
    cfg = parse_config(text)
    result = evaluate_rule(rule, cfg, device_type)
    assert result.status == "fail", result
    fix = verify_fix(rule, cfg, result, RULES, device_type)
    patched = apply_commands(cfg, [sample_values(c) for c in fix.commands])
    return fix, patched


def _kept(text: str, patched: str) -> list[str]:
    return lost_access(ways_in(parse_config(text)), ways_in(parse_config(patched)))


def _before(commands: list[str], first: str, then: str) -> bool:
    at = [i for i, c in enumerate(commands) if c.strip().startswith(first)]
    later = [i for i, c in enumerate(commands) if c.strip().startswith(then)]
    return bool(at) and bool(later) and max(at) < min(later)


# --- the access model on its own: what the configuration lets an administrator do ----------------------------
def test_a_line_password_with_login_is_a_way_in_and_login_local_without_a_user_is_not() -> None:
    assert ways_in(parse_config(IOS15 + TELNET_ONLY_VTY)).remote
    locked = ways_in(parse_config(IOS15 + "line con 0\n login local\nline vty 0 4\n login local\n"))
    assert not locked.console and not locked.remote
    assert any("no local user" in why for why in locked.closed)


def test_a_vty_without_a_password_refuses_and_a_console_without_login_lets_in() -> None:
    access = ways_in(parse_config(IOS15 + "line con 0\nline vty 0 4\n transport input telnet\n"))
    assert access.console and not access.remote


def test_ssh_needs_keys_and_a_username_login() -> None:
    no_keys = ways_in(parse_config(IOS15 + "username ops secret 9 $9$x$y\nline vty 0 4\n login local\n"
                                          " transport input ssh\n"))
    assert not no_keys.remote and any("SSH" in why for why in no_keys.closed)
    line_password = ways_in(parse_config(IOS15 + "ip domain name corp.example\nip ssh version 2\n"
                                                 "line vty 0 4\n password 7 0822455D0A16\n login\n transport input ssh\n"))
    assert not line_password.remote
    ok = ways_in(parse_config(IOS15 + "ip domain name corp.example\nip ssh version 2\nusername ops secret 9 $9$x$y\n"
                                      "line vty 0 4\n login local\n transport input ssh\n"))
    assert ok.remote


def test_aaa_new_model_without_a_default_list_asks_the_local_users() -> None:
    access = ways_in(parse_config(IOS15 + "aaa new-model\n" + TELNET_ONLY_VTY))
    assert not access.console and not access.remote  # the line passwords are no longer asked
    with_user = ways_in(parse_config(IOS15 + "username ops secret 9 $9$x$y\naaa new-model\n" + TELNET_ONLY_VTY))
    assert with_user.console and with_user.remote


def test_transport_input_none_closes_the_vty_but_not_the_console() -> None:
    access = ways_in(parse_config(IOS15 + "username ops secret 9 $9$x$y\nline con 0\n login local\n"
                                          "line vty 0 15\n login local\n transport input none\n"))
    assert access.console and not access.remote


def test_asa_management_lines_need_the_interface_name_the_device_has() -> None:
    asa = ASA + ("interface Management0/0\n nameif mgmt\n security-level 100\n ip address 10.1.1.1 255.255.255.0\n"
                 "http server enable\nhttp 10.1.1.0 255.255.255.0 management\n")
    assert not ways_in(parse_config(asa)).remote  # there is no interface called 'management'
    assert ways_in(parse_config(asa.replace("255.255.255.0 management", "255.255.255.0 mgmt"))).remote


# --- lockouts: one per way in; each fix was labelled "verified" before ----------------------------------------
def test_console_login_local_on_a_device_without_users_brings_a_user_first() -> None:
    text = IOS15 + "line con 0\nline vty 0 4\n password 7 0822455D0A16\n login\n transport input telnet\n"
    fix, patched = _fix("CON-AUTH", text)
    assert not _kept(text, patched), fix.commands
    assert fix.verified and _before(fix.commands, "username ", "login local")


def test_vty_login_local_on_a_device_without_users_brings_a_user_first() -> None:
    text = IOS15 + "line con 0\n password 7 0822455D0A16\n login\nline vty 0 4\n no login\n transport input telnet\n"
    fix, patched = _fix("VTY-AUTH", text)
    assert not _kept(text, patched), fix.commands
    assert fix.verified and _before(fix.commands, "username ", "login local")


def test_aaa_new_model_on_lines_with_passwords_keeps_a_way_in() -> None:
    text = IOS15 + TELNET_ONLY_VTY
    fix, patched = _fix("AAA-NEW-MODEL", text)
    assert not _kept(text, patched), fix.commands
    assert fix.verified and _before(fix.commands, "username ", "aaa new-model")


def test_ssh_only_on_a_telnet_only_switch_brings_keys_and_a_user_first() -> None:
    text = IOS15 + TELNET_ONLY_VTY
    fix, patched = _fix("VTY-SSH-ONLY", text)
    assert not _kept(text, patched), fix.commands
    assert fix.verified
    assert _before(fix.commands, "crypto key generate rsa", "transport input ssh")
    assert _before(fix.commands, "ip ssh version 2", "transport input ssh")
    assert _before(fix.commands, "username ", "transport input ssh")
    assert any(c.strip() == "login local" for c in fix.commands)  # SSH asks for a user name: the line password cannot


def test_asa_management_fix_uses_the_devices_own_interface_name_and_adds_before_it_removes() -> None:
    text = ASA + ("interface Management0/0\n nameif mgmt\n security-level 100\n ip address 10.1.1.1 255.255.255.0\n"
                  "http server enable\nhttp 0.0.0.0 0.0.0.0 mgmt\nssh 0.0.0.0 0.0.0.0 mgmt\n"
                  "aaa authentication ssh console LOCAL\nusername admin password $sha512$5000$x$y pbkdf2 privilege 15\n")
    fix, patched = _fix("ASA-MGMT-ANY", text, "firewall")
    assert not _kept(text, patched), fix.commands
    assert fix.verified
    assert not any(c.endswith(" management") for c in fix.commands)
    assert _before(fix.commands, "http <MGMT-SUBNET>", "no http 0.0.0.0")
    assert _before(fix.commands, "ssh <MGMT-SUBNET>", "no ssh 0.0.0.0")


def test_a_fix_that_cannot_keep_a_way_in_says_so_instead_of_verified() -> None:
    from assessment_engine.checks.access import keeps_access
    text = IOS15 + TELNET_ONLY_VTY
    cfg = parse_config(text)
    locked = parse_config(apply_commands(cfg, ["line vty 0 4", " transport input none", "line vty 5 15",
                                               " transport input none"]))
    reason = keeps_access(cfg, locked)
    assert reason and "remote" in reason


# --- forms stricter than the rule asked for -----------------------------------------------------------------
def test_transport_input_none_is_stricter_than_ssh_and_passes() -> None:
    rule = next(r for r in RULES if r.id == "VTY-SSH-ONLY")
    text = IOS15 + "line vty 0 4\n login local\n transport input ssh\nline vty 5 15\n transport input none\n"
    assert evaluate_rule(rule, parse_config(text), "switch").status == "pass"


# --- the device's own names, values and release ---------------------------------------------------------------
def test_ospf_keys_go_on_the_interfaces_that_run_ospf() -> None:
    text = XE17 + ("interface Vlan10\n ip address 10.10.0.1 255.255.255.0\ninterface Vlan29\n"
                   " ip address 10.29.0.2 255.255.255.252\ninterface Vlan30\n ip address 10.30.0.1 255.255.255.0\n"
                   "interface Vlan31\n ip address 10.31.0.1 255.255.255.0\ninterface Vlan32\n"
                   " ip address 10.32.0.1 255.255.255.0\nrouter ospf 10\n network 10.29.0.0 0.0.0.3 area 0\n"
                   " passive-interface default\n no passive-interface Vlan29\n")
    fix, _ = _fix("OSPF-AUTH", text, "switch")
    keyed = [fix.commands[i - 1] for i, c in enumerate(fix.commands) if "message-digest-key" in c]
    assert keyed == ["interface Vlan29"], fix.commands
    nx = ("version 9.3(10)\nhostname NX1\nfeature ospf\nrouter ospf UNDERLAY\ninterface Ethernet1/1\n"
          "  switchport\ninterface Ethernet1/3\n  no switchport\n  ip address 10.0.0.1/31\n"
          "  ip router ospf UNDERLAY area 0.0.0.0\ninterface Ethernet1/4\n  no switchport\n  ip address 10.0.0.3/31\n"
          "  ip router ospf UNDERLAY area 0.0.0.0\ninterface Ethernet1/5\n  no switchport\n  ip address 192.0.2.1/30\n")
    fix, _ = _fix("OSPF-AUTH", nx, "switch")
    keyed = [fix.commands[i - 1] for i, c in enumerate(fix.commands) if "message-digest-key" in c]
    assert keyed == ["interface Ethernet1/3", "interface Ethernet1/4"], fix.commands


def test_urpf_on_the_link_that_carries_the_default_route_allows_it() -> None:
    text = XE17 + ("interface GigabitEthernet0/0/0\n description WAN to ISP (internet)\n"
                   " ip address 203.0.113.2 255.255.255.252\n ip nat outside\n"
                   "ip route 0.0.0.0 0.0.0.0 203.0.113.1\n")
    fix, _ = _fix("IF-URPF-EDGE", text, "router")
    verify = [c.strip() for c in fix.commands if "verify unicast" in c]
    assert verify and all("allow-default" in c or "reachable-via any" in c for c in verify), fix.commands


def test_an_old_release_gets_syntax_it_accepts() -> None:
    text = IOS12 + "enable password 7 0822455D0A16\nusername ops password 7 0822455D0A16\n"
    for rule_id in ("PWD-ENABLE-SECRET", "PWD-USER-HASH"):
        fix, _ = _fix(rule_id, text)
        assert not any("scrypt" in c or "algorithm-type" in c for c in fix.commands), fix.commands
    fix, _ = _fix("NTP-AUTH", IOS12 + "ntp server 192.0.2.1\n")
    assert not any("hmac-sha" in c for c in fix.commands), fix.commands


def test_a_secret_is_added_before_the_old_one_is_removed() -> None:
    fix, _ = _fix("PWD-ENABLE-SECRET", IOS15 + "enable password 7 0822455D0A16\n")
    assert _before(fix.commands, "enable ", "no enable password"), fix.commands


def test_ntp_authentication_keys_the_devices_own_servers() -> None:
    xr = ("!! IOS XR Configuration version = 7.3.2\nhostname XR-PE1\nntp\n server vrf management 10.44.158.184\n"
          " server vrf management 10.44.158.185\n")
    fix, _ = _fix("NTP-AUTH", xr, "router")
    assert " server vrf management 10.44.158.184 key 1" in fix.commands, fix.commands
    assert not any("NTP-SERVER" in c for c in fix.commands)
    ios = IOS15 + "ntp server 10.0.0.5 prefer\nntp server vrf MGMT 10.0.0.6\n"
    fix, _ = _fix("NTP-AUTH", ios, "router")
    assert "ntp server 10.0.0.5 key 1 prefer" in fix.commands or "ntp server 10.0.0.5 prefer key 1" in fix.commands
    assert any(c.startswith("ntp server vrf MGMT 10.0.0.6") and "key 1" in c for c in fix.commands), fix.commands


def test_bgp_passwords_cover_the_peers_of_a_listen_range() -> None:
    text = XE17 + ("router bgp 65010\n bgp listen range 100.64.10.0/24 peer-group DYN_CUST\n"
                   " neighbor DYN_CUST peer-group\n neighbor DYN_CUST remote-as 65020\n"
                   " neighbor 192.0.2.9 remote-as 65001\n neighbor 192.0.2.9 password 7 0822455D0A16\n")
    rule = next(r for r in RULES if r.id == "BGP-NEIGHBOR-AUTH")
    assert evaluate_rule(rule, parse_config(text), "router").status == "fail"
    fix, _ = _fix("BGP-NEIGHBOR-AUTH", text, "router")
    assert any("neighbor DYN_CUST password" in c for c in fix.commands), fix.commands


def test_a_bogon_filter_never_drops_the_devices_own_address_space() -> None:
    text = XE17 + ("interface Ethernet1/1\n description fabric uplink\n ip address 10.20.0.1 255.255.255.254\n"
                   "router bgp 65101\n neighbor 10.20.0.0 remote-as 65000\n")
    fix, _ = _fix("BGP-EBGP-FILTER", text, "router")
    assert not any("deny 10.0.0.0/8" in c for c in fix.commands), fix.commands
    assert any("deny 192.168.0.0/16" in c for c in fix.commands)


@pytest.mark.parametrize("rule_id", ["CON-AUTH", "VTY-AUTH", "AAA-NEW-MODEL", "AAA-LOGIN-DEFAULT"])
def test_a_device_with_users_gets_no_new_one(rule_id: str) -> None:
    text = IOS15 + "username netops privilege 15 secret 9 $9$x$y\n" + TELNET_ONLY_VTY.replace(
        " password 7 0822455D0A16\n login\n", " no login\n") + "line con 0\n no login\n"
    fix, patched = _fix(rule_id, text)
    assert not any(c.startswith("username ") for c in fix.commands) and not _kept(text, patched)


def test_a_fix_opens_no_way_in_that_was_closed_before() -> None:
    # the VTY asks for a password it does not have: closed before the fix, and it stays closed
    text = IOS15 + "line con 0\nline vty 0 4\n login\n transport input telnet\n"
    fix, patched = _fix("CON-AUTH", text)
    assert fix.verified and not _kept(text, patched)
    assert ways_in(parse_config(patched)).remote == ()
    assert "line vty 0 4" not in fix.commands, fix.commands


def test_urpf_facing_an_ebgp_peer_is_loose() -> None:
    text = XE17 + ("interface GigabitEthernet0/0/1\n description transit\n ip address 198.51.100.2 255.255.255.252\n"
                   "router bgp 65001\n neighbor 198.51.100.1 remote-as 64500\n")
    fix, _ = _fix("IF-URPF-EDGE", text, "router")
    assert " ip verify unicast source reachable-via any" in fix.commands, fix.commands


def test_asa_ssh_authentication_uses_the_devices_own_server_group_or_local_users() -> None:
    asa = ASA + "aaa-server ISE protocol tacacs+\nusername admin password x pbkdf2 privilege 15\nnames\n"
    fix, _ = _fix("ASA-AAA-SSH", asa, "firewall")
    assert fix.commands == ["aaa authentication ssh console ISE LOCAL"] and fix.verified
    fix, _ = _fix("ASA-AAA-SSH", ASA + "username admin password x pbkdf2 privilege 15\nnames\nlogging enable\n",
                  "firewall")
    assert fix.commands == ["aaa authentication ssh console LOCAL"] and fix.verified


def test_a_method_list_naming_tacacs_on_a_device_without_a_server_brings_one_and_a_local_fallback() -> None:
    fix, patched = _fix("AAA-LOGIN-DEFAULT", IOS15 + TELNET_ONLY_VTY)
    assert fix.verified and not _kept(IOS15 + TELNET_ONLY_VTY, patched)
    assert _before(fix.commands, "tacacs server", "aaa authentication login default group tacacs+")
    assert _before(fix.commands, "username ", "aaa new-model")


def test_a_block_opened_twice_by_a_fix_and_its_prerequisites_is_one_block() -> None:
    fix, _ = _fix("VTY-SSH-ONLY", IOS15 + TELNET_ONLY_VTY)
    assert fix.commands.count("line vty 0 4") == 1, fix.commands
    at = fix.commands.index("line vty 0 4")
    assert fix.commands[at + 1:at + 3] == [" login local", " transport input ssh"], fix.commands


def test_logs_are_sourced_from_an_interface_the_device_has() -> None:
    fix, _ = _fix("LOG-SOURCE-IF", IOS15 + "interface Loopback10\n ip address 10.255.0.3 255.255.255.255\n"
                                    "logging host 10.0.0.9\n")
    assert fix.commands == ["logging source-interface Loopback10"], fix.commands
    fix, _ = _fix("LOG-SOURCE-IF", IOS15 + "logging host 10.0.0.9\n")
    assert fix.commands == ["logging source-interface <source-interface>"], fix.commands


def test_a_filter_on_the_engineers_own_subnet_is_verified_with_that_condition_said() -> None:
    fix, _ = _fix("VTY-ACL", IOS15 + "username ops secret 9 $9$x$y\nline vty 0 4\n login local\n transport input ssh\n"
                                    "ip ssh version 2\n", "switch")
    assert fix.verified and "<MGMT-SUBNET>" in fix.note and fix.note in fix.label


def test_an_asa_already_managed_from_its_own_network_just_closes_the_open_lines() -> None:
    text = ASA + ("interface Management0/0\n nameif management\n security-level 100\n ip address 10.250.1.1 255.255.0.0\n"
                  "interface GigabitEthernet0/0\n nameif outside\n security-level 0\n ip address 203.0.113.2 255.255.255.0\n"
                  "http server enable\nhttp 10.250.0.0 255.255.0.0 management\nhttp 0.0.0.0 0.0.0.0 outside\n"
                  "ssh 0.0.0.0 0.0.0.0 outside\nssh 10.250.0.0 255.255.0.0 management\n"
                  "aaa authentication ssh console LOCAL\nusername admin password x pbkdf2 privilege 15\n")
    fix, patched = _fix("ASA-MGMT-ANY", text, "firewall")
    assert fix.commands == ["no http 0.0.0.0 0.0.0.0 outside", "no ssh 0.0.0.0 0.0.0.0 outside"], fix.commands
    assert fix.verified and not _kept(text, patched)
