"""Only Cisco judged as Cisco: a configuration is assessed when it carries Cisco's own marks (its version line,
boot markers, console and VTY lines, ASA/IOS-XR/NX-OS headers …), not merely when no other vendor's mark was found;
other systems are named right — many copy IOS syntax and name themselves only in a banner or a few commands — and
``show`` outputs and fragments are refused as such. Each case quotes the lines that identify it, as public device
backups and test fixtures of those systems have them (oxidized's and batfish's fixtures, Apache-2.0), shortened."""

from __future__ import annotations

import pytest

from assessment_engine.checks.config_parser import identify_platform

IOS_BODY = "hostname SW1\ninterface GigabitEthernet0/1\n switchport mode access\n shutdown\nsnmp-server community x RO\n" \
           "logging host 10.0.0.5\nntp server 10.0.0.1\n"

# (what the file is, its text, the name the refusal must carry)
OTHERS: list[tuple[str, str, str]] = [
    ("ArubaOS-CX banner", "! ArubaOS-CX\n! Version      : PL.10.13.0005\n" + IOS_BODY, "ArubaOS-CX"),
    ("AOS-CX syntax", "hostname core1\nuser admin group administrators password ciphertext AQBapX\n"
                      "ssh server vrf mgmt\ninterface 1/1/1\n    no shutdown\n    vlan access 10\n", "ArubaOS-CX"),
    ("FRR", "frr version 10.5.1\nfrr defaults traditional\nhostname r1\nlog syslog informational\n"
            "interface eth0\n ip address 10.0.0.1/24\nrouter bgp 65001\n neighbor 10.0.0.2 remote-as 65002\n", "FRR"),
    ("Quagga", "! -*- bgp -*-\nhostname bgpd\npassword zebra\nlog file /var/log/quagga/bgpd.log\n"
               "router bgp 65001\n neighbor 10.0.0.2 remote-as 65002\n", "Quagga"),
    ("NETGEAR", "!COMMAND: show running-config\nSYSTEM CONFIG FILE ::= BEGIN\n! System Description: NETGEAR 48-Port "
                "Gigabit Smart Managed Pro Switch\n" + IOS_BODY, "NETGEAR"),
    ("Netgate TNSR", "! Version: 23.02-3+tnsr-v23.02-3+jammy\nconfiguration history enable\nnacm disable\n"
                     "interface GigabitEthernet0/14/0\n enable\n ip address 10.0.0.1/24\n", "TNSR"),
    ("FS.com", "! Fiberstore Co., Limited Internetwork Operating System Software\n! Copyright (c) 2019 by FS.COM\n"
               + IOS_BODY, "FS.com"),
    ("Garderos", "# grs-gwuz-armel/003_005_068 (Garderos; 2021-04-30 16:19:35)\n"
                 "acl.ipv4.input.1.action=ACCEPT\ninterface.eth.1.description=WAN\nsystem.hostname=gw1\n", "Garderos"),
    ("Aruba Instant", "# Aruba Operating System Software.\n# ArubaOS (MODEL: 515), Version 8.10.0.6 LSR\n"
                      "virtual-controller-country US\nname instant-1\nntp-server 10.0.0.1\n" + IOS_BODY, "Aruba"),
    ("TP-Link JetStream", "!  Bootloader Version   - TP-LINK BOOTUTIL(v1.0.0)\n!DS-P7001-08\nvlan 1921\n name \"Klienti\"\n"
                          "hostname \"RT_02-TPLink_OLT\"\ninterface gigabitEthernet 1/0/1\n switchport general allowed vlan "
                          "1921 untagged\n", "TP-Link"),
    ("TP-Link without its banner", "hostname \"SW-2\"\nuser name admin privilege admin secret 5 $1$x\n"
                                   "interface gigabitEthernet 1/0/1\n switchport general allowed vlan 10 untagged\n"
                                   "interface gigabitEthernet 1/0/2\n", "TP-Link"),
    ("Broadcom EFOS", "!System Description \"EFOS, 3.12.0.1, Linux 5.4.2\"\nhostname \"Metro_Switch_A_1\"\n"
                      "serviceport protocol none\nserviceport ip 10.0.0.37 255.255.255.0 10.0.0.1\nvlan database\n", "EFOS"),
    ("HPE Comware banner", "# HPE Comware Software, Version 7.1.070, Release 3507P18\n#\n sysname core-1\n#\n"
                           "interface GigabitEthernet1/0/1\n port link-mode bridge\n", "Comware"),
    ("Citrix NetScaler", "#NS13.0 Build 88.14\nset ns config -IPAddress 10.0.0.10 -netmask 255.255.255.0\n"
                         "enable ns feature LB SSL\nset system user nsroot -timeout 900\nadd ns ip 10.0.0.11 "
                         "255.255.255.0\n", "NetScaler"),
    ("Arista by its image", "boot system flash:/EOS-4.19.1F.swi\nhostname leaf1\ninterface Ethernet1\n"
                            "   no switchport\n   ip address 10.0.0.1/31\nrouter bgp 65001\n", "Arista"),
    ("A10 in a batfish snapshot", "!BATFISH_FORMAT: a10_acos\nhostname lb1\ninterface ethernet 1\n  enable\n"
                                  "ip route 0.0.0.0 /0 10.100.4.4\n", "A10"),
    ("Ciena SAOS", "! SAOS 10.6.1\nsystem config hostname ce1\nport set port 1 max-frame-size 9216\n"
                   "vlan create vlan 100\n", "Ciena"),
    ("Perle console server", "! Perle IOLAN SCG Series Console Server, Version 6.2.G3\n" + IOS_BODY, "Perle"),
    ("an IOS look-alike", "hostname testsw\nline con 0\nssh-server enable\ntelnet-server enable\n"
                          "interface gigabitEthernet0/1\n switchport access vlan 2480\n", "not Cisco"),
    ("Nokia SR OS", "# TiMOS-B-26.3.R1 both/x86_64 Nokia 7750 SR-1\n# Configuration format version 26.3 revision 0\n"
                    "configure {\n    system {\n        name \"pe1\"\n    }\n}\n", "Nokia"),
    ("Check Point Gaia", "#\n# Configuration of gw1\n# Language version: 13.4v1\n#\nset hostname gw1\n"
                         "set interface eth0 ipv4-address 10.0.0.1 mask-length 24\n", "Check Point"),
    ("NVIDIA Onyx", "## Product release:   3.9.2504\n##\n## Running database \"initial\"\n##\nhostname sw1\n"
                    "   interface ethernet 1/1 speed 100G\n", "Onyx"),
    ("pfSense", "<?xml version=\"1.0\"?>\n<pfsense>\n\t<version>23.3</version>\n\t<system>\n", "pfSense"),
    ("Cisco AireOS WLC", "config sysname WLC-1\nconfig network telnet disable\nconfig wlan create 1 corp corp\n"
                         "config radius auth add 1 10.0.0.5 1812 ascii x\n", "AireOS"),
]


@pytest.mark.parametrize("what, text, name", OTHERS, ids=[c[0] for c in OTHERS])
def test_other_systems_are_refused_by_their_own_name(what: str, text: str, name: str) -> None:
    verdict = identify_platform(text)
    assert not verdict.supported, (what, verdict)
    assert name.lower() in verdict.platform.lower(), (what, verdict)


def test_ios_like_text_with_no_mark_of_cisco_is_not_judged_as_cisco() -> None:
    # an 'industry standard CLI' switch that names itself nowhere: the same words, none of Cisco's own lines
    text = ("hostname testsw\nlogging console 6\nspanning-tree enable\ninterface GigabitEthernet0/1\n"
            " switchport access vlan 2480\nsnmp-server community public ro\n")
    verdict = identify_platform(text)
    assert not verdict.supported and "names no system" in verdict.reason, verdict


@pytest.mark.parametrize("text, platform", [
    ("version 15.2\nservice timestamps debug datetime msec\nhostname SW1\nline con 0\nline vty 0 4\n", "ios"),
    ("!RANCID-CONTENT-TYPE: cisco\nhostname R1\ninterface GigabitEthernet0/0\n ip address 10.0.0.1 255.255.255.0\n"
     "router ospf 1\n", "ios-xe"),
    ("Building configuration...\nCurrent configuration : 1234 bytes\nhostname R2\ninterface Loopback0\n"
     " ip address 10.0.0.2 255.255.255.255\nrouter bgp 65001\n", "ios-xe"),
    ("ASA Version 9.16(4)\nhostname FW1\ninterface Management0/0\n nameif mgmt\nlogging enable\n", "asa"),
    ("!! IOS XR Configuration 7.3.2\nhostname PE1\ninterface MgmtEth0/RP0/CPU0/0\nntp\n server 10.0.0.1\n"
     "logging 10.0.0.5\n", "ios-xr"),
], ids=["ios-version-line", "rancid-cisco", "show-run-header", "asa", "ios-xr"])
def test_cisco_is_accepted_on_its_own_marks(text: str, platform: str) -> None:
    verdict = identify_platform(text)
    assert verdict.supported and verdict.platform == platform, verdict


def test_an_nx_os_day_0_configuration_is_nx_os_not_ios_xe() -> None:
    day0 = ("hostname switch\nvdc switch id 1\nusername admin password 5 $5$ABC role network-admin\n"
            "no password strength-check\nip domain-lookup\ncopp profile strict\nvrf context management\n"
            "interface mgmt0\n  vrf member management\nline console\nline vty\n")
    verdict = identify_platform(day0)
    assert verdict.supported and verdict.platform == "nx-os", verdict


def test_a_show_output_is_refused_as_one() -> None:
    asa_acl = ("access-list cached ACL log flows: total 0, denied 0 (deny-flow-max 4096)\n"
               "access-list OUTSIDE_IN; 3 elements; name hash: 0x7b2c1e2a\n"
               "access-list OUTSIDE_IN line 1 extended permit tcp any host 10.0.0.5 eq https (hitcnt=1234) 0x5c1b\n"
               "access-list OUTSIDE_IN line 2 extended permit icmp any any echo-reply (hitcnt=0) 0x1b2c\n"
               "access-list OUTSIDE_IN line 3 extended deny ip any any log (hitcnt=99) 0x9a8b\n")
    verdict = identify_platform(asa_acl)
    assert not verdict.supported and "show" in verdict.reason, verdict


def test_one_section_repeated_is_a_fragment() -> None:
    snmp = ("snmp-server user admin network-admin auth md5 0x1 priv 0x2 localizedkey\n"
            "snmp-server host 10.0.0.5 traps version 2c public\nsnmp-server enable traps callhome\n"
            "snmp-server enable traps link\nsnmp-server community public group network-operator\n")
    verdict = identify_platform(snmp)
    assert not verdict.supported and verdict.platform == "fragment", verdict


def test_an_unindented_ios_configuration_is_refused_with_that_reason() -> None:
    flat = ("version 16.9\nservice timestamps log datetime msec\nhostname CSR1\ninterface GigabitEthernet1\n"
            "ip address 10.0.0.1 255.255.255.0\nno shutdown\ninterface GigabitEthernet2\ndescription uplink\n"
            "ip address 10.0.1.1 255.255.255.0\nshutdown\nline vty 0 4\ntransport input ssh\n")
    verdict = identify_platform(flat)
    assert not verdict.supported and "indent" in verdict.reason, verdict


def test_another_vendor_named_below_the_first_command_is_not_the_collectors_header() -> None:
    text = ("version 17.9\nservice timestamps log datetime msec\nhostname EDGE-1\nbanner motd ^C\n"
            "! Replaced the Dell and Huawei boxes of the old DC in 2024\n^C\ninterface GigabitEthernet1\n"
            " ip address 10.0.0.1 255.255.255.0\nline vty 0 4\n transport input ssh\n")
    verdict = identify_platform(text)
    assert verdict.supported and verdict.platform == "ios-xe", verdict
