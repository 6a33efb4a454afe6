"""The config parser on complete captures of each platform style, odd real-world syntax, and non-configs."""

from __future__ import annotations

import pytest
from ciscoconfparse2 import CiscoConfParse

from assessment_engine.checks.config_parser import detect_platform, looks_like_config, parse_config
from assessment_engine.checks.interfaces import interfaces_of
from assessment_engine.warehouse.config_templates import DeviceSpec, render
from assessment_engine.warehouse.demo_network import CONTROLS

ALL_GOOD = dict.fromkeys(CONTROLS, True)
ALL_BAD = dict.fromkeys(CONTROLS, False)


def spec(platform: str, device_type: str, role: str) -> DeviceSpec:
    return DeviceSpec(f"TEST-{platform.upper()}-1", "HQ", "hq", "production", device_type, role, "fam", "model",
                      platform, "high", "10.250.0.9", 3)


REAL_CAPTURE = """Building configuration...

Current configuration : 2310 bytes
!
! Last configuration change at 09:14:11 UTC Mon Nov 2 2026 by admin
!
version 17.9
service timestamps log datetime msec
hostname EDGE-R1
!
banner motd ^C
  *** Property of Example Corp ***
  interface GigabitEthernet9 is not a command here
^C
banner login #
Authorized users only
#
crypto pki certificate chain TP-self-signed-101
 certificate self-signed 01
  3082022B 30820194 A0030201 02020101 300D0609 2A864886 F70D0101 05050030
  \tquit
!
interface GigabitEthernet1
 description to ISP (internet)
 ip address 198.51.100.2 255.255.255.252
 no ip redirects
!
interface GigabitEthernet2
 switchport mode access
 spanning-tree bpduguard enable
!
line vty 0 4
 transport input ssh
end
"""


@pytest.mark.parametrize(("platform", "device_type", "role"), [
    ("ios-xe", "router", "edge"), ("ios-xe", "switch", "access"), ("nx-os", "switch", "leaf"), ("asa", "firewall", "edge"),
])
def test_complete_configs_parse_like_ciscoconfparse2(platform: str, device_type: str, role: str) -> None:
    text = render(spec(platform, device_type, role), {"ios-xe": "17.6.5", "nx-os": "9.3(10)", "asa": "9.16(4)"}[platform],
                  ALL_BAD, "now")
    cfg = parse_config(text)
    assert cfg.platform == platform
    assert cfg.hostname == f"TEST-{platform.upper()}-1"
    ours = {b.text: [c.text for c in b.children] for b in cfg.top if b.text.startswith("interface ")}
    syntax = {"ios-xe": "ios", "nx-os": "nxos", "asa": "asa"}[platform]
    reference = CiscoConfParse(text.splitlines(), syntax=syntax)
    theirs = {o.text.strip(): [c.text.strip() for c in o.children] for o in reference.find_objects(r"^interface ")}
    assert ours == theirs
    assert len(ours) >= 3


def test_real_capture_headers_banners_and_certificates() -> None:
    cfg = parse_config(REAL_CAPTURE)
    texts = [line.text for line in cfg.lines]
    assert not any(t.startswith(("Building", "Current configuration")) for t in texts)
    assert "interface GigabitEthernet9 is not a command here" not in texts  # banner body is not config
    assert "Authorized users only" not in texts
    vty = next(b for b in cfg.top if b.text == "line vty 0 4")
    assert [c.text for c in vty.children] == ["transport input ssh"]
    roles = {i.name: i.role for i in interfaces_of(cfg)}
    assert roles == {"GigabitEthernet1": "edge", "GigabitEthernet2": "access"}
    cert = next(b for b in cfg.top if b.text.startswith("crypto pki certificate chain"))
    assert cert.children[0].text == "certificate self-signed 01"
    assert next(line for line in cfg.lines if line.text == "interface GigabitEthernet1").number == 23


@pytest.mark.parametrize(("text", "platform"), [
    ("ASA Version 9.16(4)\nhostname FW\ninterface G1\n nameif outside\n", "asa"),
    ("version 9.3(10) Bios:version 05.45\nhostname NX\nfeature telnet\n", "nx-os"),
    ("version 17.6\nhostname R1\ninterface Gi1\n", "ios-xe"),
])
def test_platform_detection(text: str, platform: str) -> None:
    assert detect_platform(text) == platform


@pytest.mark.parametrize("text", [
    "Roses are red,\nviolets are blue.\n", '{"hostname": "R1", "interfaces": []}', "", "\x00\x01\x02 binary",
    "Dear team,\nplease find attached the configuration.\nRegards\n",
])
def test_non_configs_are_recognised_and_never_crash_the_parser(text: str) -> None:
    assert not looks_like_config(text)
    parse_config(text)  # must not raise


def test_garbage_indentation_and_crlf_parse() -> None:
    cfg = parse_config("hostname X\r\n   weird indent\r\n\tinterface Gi1\r\n ip address 1.1.1.1 255.255.255.0\r\n")
    assert cfg.hostname == "X"
    assert len(cfg.lines) == 4


def test_platform_is_identified_before_deciding_what_is_a_configuration() -> None:
    from assessment_engine.checks.config_parser import identify_platform
    fragment = identify_platform("interface Gi0/1\n ip address 10.0.0.1 255.255.255.252\n")
    assert (fragment.platform, fragment.supported) == ("fragment", False) and "fragment" in fragment.reason
    assert identify_platform("#\n sysname SW1\n#\nvlan 1\n#\nreturn\n").platform == "HP/H3C Comware"
    assert identify_platform("#\nsysname SW1\n#\nvlan 1\n#\nreturn\n").platform == "Huawei VRP"
    assert identify_platform("!RANCID-CONTENT-TYPE: cisco-nx\nhostname L1\ninterface Ethernet1/1\n  switchport\n"
                             "line vty\n").platform == "nx-os"
    prose = "Service windows are on Sundays.\nLogging must go to the SIEM.\nVersion 2 of this standard.\n"
    assert identify_platform(prose).platform == "unknown" and not looks_like_config(prose)


@pytest.mark.parametrize("text, platform", [
    ("hostname leaf1\nusername admin privilege 15 role network-admin secret sha512 $6$x\ninterface Ethernet1\n"
     "   no switchport\n", "Arista EOS"),
    ("config firewall policy\n    edit 1\n        set srcintf \"port1\"\n    next\nend\n", "Fortinet FortiOS"),
    ("config sysname WLC-1\nconfig wlan create 1 CORP CORP\nconfig network telnet disable\n", "Cisco AireOS WLC"),
    ("config-file-header\nswitch01\nv1.4.8.6 / R800_NIK_1_4_194_194\nhostname switch01\ninterface vlan 1\n",
     "Cisco Small Business (SG/CBS)"),
    ("ver 08.0.95bT213\nstack unit 1\n  module 1 icx7150-48p-poe-port-management-module\nhostname icx1\n",
     "Brocade/Ruckus ICX"),
])
def test_more_systems_are_refused_by_their_name(text: str, platform: str) -> None:
    from assessment_engine.checks.config_parser import identify_platform
    verdict = identify_platform(text)
    assert (verdict.platform, verdict.supported) == (platform, False)
