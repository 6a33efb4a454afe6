"""Running-configuration text for demo devices (IOS-XE, NX-OS, ASA styles).

A device's hygiene is a dict of control -> bool (True = good practice). Everything else in the text
(addresses, keys, interface counts) is seeded by the hostname, so two snapshots of one device differ
only where a control changed — as real drift does. The assessment engine then judges the text; no
result is decided here.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceSpec:
    hostname: str
    site: str
    site_type: str
    environment: str
    device_type: str
    role: str
    product_family: str
    model: str
    platform: str
    criticality: str
    mgmt_ip: str
    site_index: int


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _hexkey(rng: random.Random, n: int = 14) -> str:
    return "".join(rng.choice("0123456789ABCDEF") for _ in range(n))


def _cert(rng: random.Random) -> list[str]:
    rows = [" ".join(_hexkey(rng, 8) for _ in range(8)) for _ in range(6)]
    return [" certificate self-signed 01", *[f"  {r}" for r in rows], "  \tquit"]


def render(device: DeviceSpec, version: str, ok: dict[str, bool], captured: str) -> str:
    if device.platform == "nx-os":
        return _nxos(device, version, ok, captured)
    if device.platform == "asa":
        return _asa(device, version, ok, captured)
    return _iosxe(device, version, ok, captured)


def _iosxe(d: DeviceSpec, version: str, ok: dict[str, bool], captured: str) -> str:
    r = _rng(d.hostname)
    lo = f"10.255.{d.site_index % 250}.{r.randint(1, 254)}"
    is_switch = d.device_type in ("switch", "wireless_controller")
    edge = d.role in ("edge", "wan")
    L: list[str] = ["Building configuration...", "", f"Current configuration : {r.randint(6000, 14000)} bytes", "!",
                    f"! Last configuration change at {captured} by netops", "!", f"version {'.'.join(version.split('.')[:2])}",
                    "service timestamps debug datetime msec"]
    L.append("service timestamps log datetime msec localtime show-timezone" if ok["timestamps"] else "service timestamps log uptime")
    if ok["spe"]:
        L.append("service password-encryption")
    if ok["no_pad"]:
        L.append("no service pad")
    if ok["keepalive"]:
        L += ["service tcp-keepalives-in", "service tcp-keepalives-out"]
    if not ok["no_small_servers"]:
        L += ["service tcp-small-servers", "service udp-small-servers"]
    if not ok["no_service_config"]:
        L.append("service config")
    L += ["!", f"hostname {d.hostname}", "!", "boot-start-marker", "boot-end-marker", "!",
          "vrf definition Mgmt-intf", " !", " address-family ipv4", " exit-address-family", "!"]
    if ok["log_buffered"]:
        L.append("logging buffered 64000 informational")
    L.append("no logging console")
    L.append(f"enable secret 9 $9${_hexkey(r, 12)}${_hexkey(r, 30)}" if ok["enable_secret"]
             else f"enable password 7 {_hexkey(r, 12)}")
    L.append("!")
    if ok["aaa"]:
        L += ["aaa new-model", "!", "aaa group server tacacs+ ISE", " server name ISE-1", " server name ISE-2", "!"]
        if ok["aaa_login"]:
            L.append("aaa authentication login default group ISE local" + ("" if ok["aaa_no_none"] else " none"))
        elif not ok["aaa_no_none"]:
            L.append("aaa authentication login CONSOLE local none")
        if ok["aaa_enable"]:
            L.append("aaa authentication enable default group ISE enable")
        L.append("aaa authorization exec default group ISE if-authenticated")
        if ok["aaa_accounting"]:
            L += ["aaa accounting exec default start-stop group ISE", "aaa accounting commands 15 default start-stop group ISE"]
        L += ["!", "aaa session-id common"]
    L += ["clock timezone UTC 0 0", "!"]
    if ok["no_source_route"]:
        L.append("no ip source-route")
    if ok["no_bootp"]:
        L.append("no ip bootp server")
    if not ok["no_finger"]:
        L.append("ip finger")
    L.append("ip domain name corp.example.net")
    if is_switch and d.device_type == "switch":
        if ok["dhcp_snooping"]:
            L += ["ip dhcp snooping vlan 10-40", "ip dhcp snooping"]
        L.append("vtp mode transparent" if ok["vtp_transparent"] else "vtp mode server")
        if ok["no_vstack"]:
            L.append("no vstack")
        L.append("spanning-tree mode rapid-pvst")
        if ok["bpduguard"]:
            L.append("spanning-tree portfast bpduguard default")
        L.append("spanning-tree extend system-id")
    L.append("!")
    L.append(f"username netops privilege 15 secret 9 $9${_hexkey(r, 12)}${_hexkey(r, 30)}" if ok["user_hash"]
             else f"username netops privilege 15 password 7 {_hexkey(r, 16)}")
    L.append("username breakglass privilege 15 secret 9 $9$" + _hexkey(r, 40))
    if ok["aaa_login"]:  # login enhancements go with central login on a well-kept device
        L += ["login block-for 120 attempts 3 within 60", "login on-failure log", "security passwords min-length 12"]
    L += ["!", f"crypto pki trustpoint TP-self-signed-{r.randint(10**9, 4 * 10**9)}", " enrollment selfsigned",
          " revocation-check none", "!", f"crypto pki certificate chain TP-self-signed-{r.randint(10**9, 4 * 10**9)}",
          *_cert(r), "!"]
    if ok["archive"]:
        L += ["archive", " log config", "  logging enable", "  notify syslog contenttype plaintext", " hidekeys", "!"]
    if ok["ssh_v2"]:
        L.append("ip ssh version 2")
    if ok["ssh_limits"]:
        L += ["ip ssh time-out 60", "ip ssh authentication-retries 3"]
    L.append("ip http server" if not ok["no_http"] else "no ip http server")
    # the web UI (secure server) stays on where it is needed (wireless controllers) or where hygiene is poor
    web_ui = d.device_type == "wireless_controller" or not ok["no_http"]
    L += ["ip http secure-server" if web_ui else "no ip http secure-server", "ip http authentication local"]
    L += ["ip http access-class ipv4 MGMT-ONLY", "!"] if web_ui and ok["no_http"] else ["!"]
    L += _iosxe_interfaces(d, ok, r, lo, is_switch, edge)
    L += _iosxe_routing(d, ok, r, lo, edge)
    L += ["!", "ip access-list standard MGMT-ONLY", " permit 10.250.0.0 0.0.255.255", " deny any log",
          "ip access-list standard SNMP-MGMT", " permit 10.250.10.0 0.0.0.255", "!"]
    if edge:
        L += ["ip prefix-list ISP-IN seq 5 deny 0.0.0.0/8 le 32", "ip prefix-list ISP-IN seq 10 deny 10.0.0.0/8 le 32",
              "ip prefix-list ISP-IN seq 100 permit 0.0.0.0/0 le 24", "!"]
    if ok["log_source"]:
        L.append("logging source-interface Loopback0")
    if ok["log_host"]:
        L += ["logging host 10.250.10.21", "logging host 10.250.10.22"]
    L.append("!")
    if not ok["snmp_no_public"]:
        L.append("snmp-server community public RO")
    if not ok["snmp_v3"]:
        L.append("snmp-server community N3tM0n-r0 RO" + (" SNMP-MGMT" if ok["snmp_acl"] else ""))
    if not ok["snmp_no_rw"]:
        L.append("snmp-server community Wr1te-Acc3ss RW")
    L += ["snmp-server group NETOPS v3 priv" if ok["snmp_v3"] else "snmp-server group NETOPS v3 auth",
          "snmp-server location " + d.site, "snmp-server contact noc@example.net"]
    if ok["snmp_traps"]:
        L += ["snmp-server enable traps snmp linkdown linkup coldstart", "snmp-server enable traps config",
              "snmp-server host 10.250.10.20 version 3 priv netmon"]
    L.append("!")
    if ok["copp"] and d.device_type == "router":
        L += ["class-map match-any COPP-MGMT", " match access-group name MGMT-ONLY", "policy-map COPP-POLICY",
              " class COPP-MGMT", "  police 512000 conform-action transmit exceed-action drop", "control-plane",
              " service-policy input COPP-POLICY", "!"]
    else:
        L += ["control-plane", "!"]
    L += ["banner exec ^C", f"{d.hostname} - {d.site} - managed by NetOps", "^C"]
    if ok["banner"]:
        L += ["banner login ^C", "Authorized access only. Activity on this device is monitored and logged.",
              "Disconnect immediately if you are not an authorized user.", "^C"]
    L += ["!", "line con 0", " exec-timeout " + ("10 0" if ok["exec_timeout"] else "0 0"), " logging synchronous",
          " stopbits 1", "line aux 0"]
    if ok["aux_off"]:
        L += [" no exec", " transport input none"]
    else:
        L.append(" stopbits 1")
    for first, last in ((0, 4), (5, 15)):
        L.append(f"line vty {first} {last}")
        if ok["vty_acl"]:
            L.append(" access-class MGMT-ONLY in")
        L.append(" exec-timeout " + ("10 0" if ok["exec_timeout"] else "0 0"))
        L.append(" transport input ssh" if ok["vty_ssh"] else " transport input telnet ssh")
    L.append("!")
    if ok["ntp_server"]:
        if ok["ntp_auth"]:
            L += [f"ntp authentication-key 1 hmac-sha256 7 {_hexkey(r, 20)}", "ntp authenticate", "ntp trusted-key 1",
                  "ntp server 10.250.10.5 key 1", "ntp server 10.250.10.6 key 1"]
        else:
            L += ["ntp server 10.250.10.5", "ntp server 10.250.10.6"]
    L += ["!", "!", "end", ""]
    return "\n".join(L)


def _iosxe_interfaces(d: DeviceSpec, ok: dict[str, bool], r: random.Random, lo: str, is_switch: bool,
                      edge: bool) -> list[str]:
    L = ["interface Loopback0", f" ip address {lo} 255.255.255.255", "!"]
    base = f"10.{d.site_index % 250}.{r.randint(0, 250)}"
    if d.device_type == "router":
        prefix = "GigabitEthernet0/0/"
        if edge:
            isp = f"203.0.{113 + d.site_index % 2}.{r.randint(1, 62) * 4 + 1}"
            L += [f"interface {prefix}0", " description WAN uplink to ISP-A (internet)" if d.role == "edge"
                  else " description WAN to MPLS provider", f" ip address {isp} 255.255.255.252"]
            L += [" no ip redirects"] if ok["if_no_redirects"] else []
            L += [" no ip proxy-arp"] if ok["if_no_proxy_arp"] else []
            L += [" ip verify unicast source reachable-via rx"] if ok["urpf"] else []
            L += [" no cdp enable"] if ok["cdp_off_edge"] else []
            L += [" negotiation auto", "!"]
        for i in range(1, 3 + r.randint(0, 2)):
            L += [f"interface {prefix}{i}", f" description Core link {i} to {d.site} distribution",
                  f" ip address {base}.{i * 4 + 1} 255.255.255.252"]
            L += [" no ip redirects"] if ok["if_no_redirects"] else []
            L += [" ip directed-broadcast"] if not ok["if_no_directed_bcast"] and i == 1 else []
            if ok["ospf_auth"]:
                L.append(f" ip ospf message-digest-key 1 md5 7 {_hexkey(r, 14)}")
            L += [" ip ospf network point-to-point", "!"]
        if d.role in ("core", "wan"):
            L += [f"interface {prefix}9", " description User gateway VLAN", f" ip address {base}.129 255.255.255.128",
                  " standby version 2", f" standby 10 ip {base}.130", " standby 10 priority 110", " standby 10 preempt"]
            L += [f" standby 10 authentication md5 key-string 7 {_hexkey(r, 16)}"] if ok["hsrp_auth"] else []
            L += [" no ip redirects"] if ok["if_no_redirects"] else []
            L.append("!")
        L += ["interface GigabitEthernet0", " vrf forwarding Mgmt-intf", f" ip address {d.mgmt_ip} 255.255.255.0"]
        L += [" no ip redirects"] if ok["if_no_redirects"] else []
        L += [" negotiation auto", "!"]
        return L
    # switches and wireless controllers
    ports = 12 if d.role == "access" else 6
    for p in range(1, ports + 1):
        name = f"interface GigabitEthernet1/0/{p}"
        if p > ports - 2 and d.role == "access":
            L += [name, " shutdown", "!"]
            continue
        L += [name, f" description User port {p}", f" switchport access vlan {10 + p % 3 * 10}",
              " switchport mode access", " spanning-tree portfast"]
        L += [" spanning-tree bpduguard enable"] if (not ok["bpduguard"] and p % 2 == 0) else []
        L.append("!")
    for p in (1, 2):
        L += [f"interface TenGigabitEthernet1/1/{p}", f" description Uplink {p} to distribution",
              " switchport trunk allowed vlan 10,20,30,99", " switchport mode trunk"]
        L += [" switchport nonegotiate"] if ok["trunk_noneg"] else []
        L.append("!")
    L += ["interface Vlan99", " description Management", f" ip address {d.mgmt_ip} 255.255.255.0"]
    L += [" no ip redirects"] if ok["if_no_redirects"] else []
    L += [" ip directed-broadcast"] if not ok["if_no_directed_bcast"] else []
    L += ["!", "ip default-gateway 10.250.0.1", "!"]
    return L


def _iosxe_routing(d: DeviceSpec, ok: dict[str, bool], r: random.Random, lo: str, edge: bool) -> list[str]:
    if d.device_type != "router":
        return []
    L = ["router ospf 1", f" router-id {lo}"]
    if ok["ospf_auth"]:
        L.append(" area 0 authentication message-digest")
    L += [" passive-interface default", " no passive-interface GigabitEthernet0/0/1",
          " no passive-interface GigabitEthernet0/0/2", f" network 10.{d.site_index % 250}.0.0 0.0.255.255 area 0", "!"]
    if edge:
        asn, peer = 65000 + d.site_index % 100, f"203.0.{113 + d.site_index % 2}.{r.randint(1, 62) * 4 + 2}"
        ibgp = f"10.255.{d.site_index % 250}.{r.randint(1, 254)}"
        L += [f"router bgp {asn}", " bgp log-neighbor-changes", f" neighbor {peer} remote-as 64500",
              f" neighbor {peer} description ISP-A"]
        L += [f" neighbor {peer} password 7 {_hexkey(r, 18)}"] if ok["bgp_auth"] else []
        L += [f" neighbor {ibgp} remote-as {asn}", f" neighbor {ibgp} update-source Loopback0",
              f" neighbor {ibgp} password 7 {_hexkey(r, 18)}", " !", " address-family ipv4",
              f"  network 198.51.{100 + d.site_index % 50}.0 mask 255.255.255.0", f"  neighbor {peer} activate"]
        L += [f"  neighbor {peer} prefix-list ISP-IN in", f"  neighbor {peer} maximum-prefix 1000"] if ok["bgp_filter"] else []
        L += [f"  neighbor {ibgp} activate", " exit-address-family", "!"]
    return L


def _nxos(d: DeviceSpec, version: str, ok: dict[str, bool], captured: str) -> str:
    r = _rng(d.hostname)
    L = ["!Command: show running-config", f"!Running configuration last done at: {captured}", "",
         f"version {version} Bios:version 05.47", f"hostname {d.hostname}", f"vdc {d.hostname} id 1",
         "  limit-resource vlan minimum 16 maximum 4094", ""]
    if not ok["nx_no_telnet"]:
        L.append("feature telnet")
    L += ["feature tacacs+", "feature ospf", "feature interface-vlan", "feature lacp", "feature lldp", ""]
    if not ok["nx_pwd_strength"]:
        L.append("no password strength-check")
    L += [f"username admin password 5 $5${_hexkey(r, 12)}${_hexkey(r, 40)}  role network-admin",
          "ip domain-lookup", f'tacacs-server host 10.250.10.30 key 7 "{_hexkey(r, 12)}"',
          "aaa group server tacacs+ ISE", "    server 10.250.10.30", "    use-vrf management",
          "aaa authentication login default group ISE"]
    if not ok["snmp_no_public"]:
        L.append("snmp-server community public group network-operator")
    if not ok["snmp_no_rw"]:
        L.append("snmp-server community Wr1te-Acc3ss RW")
    if ok["snmp_v3"]:
        L.append(f"snmp-server user netmon network-operator auth sha {_hexkey(r, 20)} priv aes-128 {_hexkey(r, 20)} localizedkey")
    else:
        L.append("snmp-server community N3tM0n-r0 group network-operator")
    if ok["ntp_server"]:
        L += ["ntp server 10.250.10.5 use-vrf management", "ntp server 10.250.10.6 use-vrf management"]
    if ok["log_host"]:
        L.append("logging server 10.250.10.21 5 use-vrf management")
    if ok["banner"]:
        L.append("banner motd #Authorized access only. Activity is monitored.#")
    if ok["bpduguard"]:
        L.append("spanning-tree port type edge bpduguard default")
    L += ["", "vlan 1,10,20,30,99", "vrf context management", "  ip route 0.0.0.0/0 10.250.0.1", ""]
    for p in range(1, 5):
        L += [f"interface Ethernet1/{p}", f"  description Fabric link {p}", "  no switchport", "  mtu 9216",
              f"  ip address 10.{200 + d.site_index % 50}.{r.randint(0, 250)}.{p * 2}/31",
              "  ip router ospf 1 area 0.0.0.0"]
        if ok["ospf_auth"]:  # the key from the name, not the generator: the rest of the device stays as it was
            L += ["  ip ospf authentication message-digest",
                  f"  ip ospf message-digest-key 1 md5 3 {hashlib.sha256(d.hostname.encode()).hexdigest()[:16]}"]
        L += ["  no shutdown", ""]
    for p in range(10, 16):
        L += [f"interface Ethernet1/{p}", f"  description Server port {p}", "  switchport mode access",
              f"  switchport access vlan {10 + p % 3 * 10}", "  spanning-tree port type edge", "  no shutdown", ""]
    L += ["interface mgmt0", "  vrf member management", f"  ip address {d.mgmt_ip}/24", "",
          "line console", "  exec-timeout 10", "line vty", "  exec-timeout 10"]
    if ok["vty_acl"]:
        L.append("  access-class MGMT-ONLY in")
    L += ["router ospf 1", f"  router-id 10.255.{d.site_index % 250}.{r.randint(1, 254)}", ""]
    return "\n".join(L)


def _asa(d: DeviceSpec, version: str, ok: dict[str, bool], captured: str) -> str:
    r = _rng(d.hostname)
    outside = f"198.51.{100 + d.site_index % 100}.{r.randint(1, 30) * 8 + 2}"
    L = [": Saved", ":", f": Serial Number: JAD{r.randint(10**7, 10**8 - 1)}",
         f": Hardware:   {d.model}, 8192 MB RAM, CPU Atom C3000 series 2200 MHz, 1 CPU (8 cores)", ":",
         f"ASA Version {version}", "!", f"hostname {d.hostname}", "domain-name corp.example.net",
         f"enable password {_hexkey(r, 24)} pbkdf2", "names", "!",
         "interface GigabitEthernet1/1", " nameif outside", " security-level 0", f" ip address {outside} 255.255.255.248", "!",
         "interface GigabitEthernet1/2", " nameif inside", " security-level 100",
         f" ip address 10.{d.site_index % 250}.1.1 255.255.255.0", "!",
         "interface Management1/1", " management-only", " nameif management", " security-level 100",
         f" ip address {d.mgmt_ip} 255.255.255.0", "!", "ftp mode passive",
         "object network OBJ-WEB", f" host 10.{d.site_index % 250}.1.10",
         "access-list OUTSIDE-IN extended permit tcp any object OBJ-WEB eq https",
         "access-list OUTSIDE-IN extended deny ip any any log", "pager lines 24"]
    if ok["asa_logging"]:
        L += ["logging enable", "logging timestamp", "logging trap informational"]
    if ok["log_host"]:
        L.append("logging host management 10.250.10.21")
    L += ["mtu outside 1500", "mtu inside 1500", "icmp unreachable rate-limit 1 burst-size 1",
          "access-group OUTSIDE-IN in interface outside", f"route outside 0.0.0.0 0.0.0.0 {outside[:-1]}1 1",
          "aaa-server TACACS protocol tacacs+", "aaa-server TACACS (management) host 10.250.10.30",
          f" key {_hexkey(r, 16)}"]
    if ok["asa_aaa"]:
        L += ["aaa authentication ssh console TACACS LOCAL", "aaa authentication enable console TACACS LOCAL"]
    L += ["http server enable", "http 10.250.0.0 255.255.0.0 management"]
    if not ok["asa_mgmt_restricted"]:
        L += ["http 0.0.0.0 0.0.0.0 outside", "ssh 0.0.0.0 0.0.0.0 outside"]
    L.append("ssh 10.250.0.0 255.255.0.0 management")
    if ok["asa_ssh_v2"]:
        L.append("ssh version 2")
    L += ["ssh timeout 10", "ssh key-exchange group dh-group14-sha256"]
    if not ok["asa_no_telnet"]:
        L.append("telnet 10.0.0.0 255.0.0.0 inside")
    L.append("ssl server-version " + ("tlsv1.2" if ok["asa_tls12"] else "tlsv1"))
    if ok["ntp_server"]:
        L += ["ntp server 10.250.10.5 source management", "ntp server 10.250.10.6 source management"]
    if ok["banner"]:
        L += ["banner login Authorized access only.", "banner login Activity is monitored."]
    L += ["snmp-server host management 10.250.10.20 version 3 netmon", "snmp-server location " + d.site,
          f"Cryptochecksum:{_hexkey(r, 32).lower()}", ": end", ""]
    return "\n".join(L)
