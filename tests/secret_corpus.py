"""Configurations with planted secrets, one per secret-bearing syntax of each platform (Cisco IOS/IOS-XE, NX-OS,
IOS-XR, ASA, Arista EOS; Junos as an attachment the product refuses to assess). Each ``{}`` in a template becomes a
distinct value (``SECRET_SHAPES`` gives the realistic forms: clear text, type-7, hashes, hex keys); the masking audit
searches every store for every value."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

IOS = """version 17.9
service timestamps log datetime msec
hostname {host}
enable secret 9 {hash}
enable password 7 {t7}
enable password level 15 {}
enable algorithm-type scrypt secret {}
username ops privilege 15 password 0 {}
username netadm privilege 15 secret 9 {hash}
username legacy password 7 {t7}
username api algorithm-type sha256 secret {}
key config-key password-encrypt {}
key config-key 1 {}
ip ftp username backup
ip ftp password 7 {t7}
ip http client password 0 {}
aaa new-model
aaa group server tacacs+ TAC
 server-private 10.9.9.11 key 7 {t7}
 server-private 10.9.9.12 port 49 timeout 5 key {}
tacacs-server host 10.9.9.9 key 0 {}
tacacs-server key 7 {t7}
tacacs server TAC1
 address ipv4 10.9.9.10
 key 7 {t7}
tacacs server TAC2
 address ipv4 10.9.9.13
 key {}
radius-server host 10.9.8.1 auth-port 1812 acct-port 1813 key 7 {t7}
radius-server key 0 {}
radius server RAD1
 address ipv4 10.9.8.2 auth-port 1812 acct-port 1813
 key 7 {t7}
 pac key {}
aaa server radius dynamic-author
 client 10.9.8.3 server-key 7 {t7}
 client 10.9.8.4 vrf MGMT server-key {}
 server-key 0 {}
ldap server LDAP1
 ipv4 10.9.7.1
 bind authenticated root-dn "cn=svc,dc=corp,dc=example" password 7 {t7}
snmp-server community {} RO 10
snmp-server community {} view ALL RW 10
snmp-server community {} RO ipv6 V6ACL
snmp-server host 10.1.1.1 version 2c {}
snmp-server host 10.1.1.2 traps version 2c {} udp-port 162
snmp-server host 10.1.1.3 informs version 2c {}
snmp-server host 10.1.1.4 vrf MGMT version 2c {}
snmp-server host 10.1.1.5 {}
snmp-server host collector.example.com version 2c {}
snmp-server host 10.1.1.6 version 3 priv NETOPS
snmp-server community-map {} context LAB
snmp-server group NETOPS v3 priv
snmp-server user mon NETOPS v3 auth sha {} priv aes 128 {}
snmp-server user mon2 NETOPS v3 auth md5 {} priv des {}
snmp-server user mon3 NETOPS v3 auth sha {} priv 3des {}
snmp-server user mon4 NETOPS v3 encrypted auth sha {} priv aes 256 {} access 10
key chain OSPF-KEYS
 key 1
  key-string 7 {t7}
  cryptographic-algorithm hmac-sha-256
 key 2
  key-string {}
ntp authentication-key 1 md5 {} 7
ntp authentication-key 2 hmac-sha2-256 {}
ntp authenticate
crypto isakmp key 6 {} address 192.0.2.1
crypto isakmp key {} hostname peer.example.com
crypto keyring KR1
 pre-shared-key address 192.0.2.2 key {}
 pre-shared-key address 192.0.2.0 255.255.255.0 key {}
 pre-shared-key hostname branch.example.com key {}
crypto ikev2 keyring IKEV2-KR
 peer HUB
  address 192.0.2.3
  pre-shared-key local {}
  pre-shared-key remote {}
 peer SPOKE
  address 192.0.2.4
  pre-shared-key 6 {}
crypto ikev2 profile IKEV2-PROF
 match identity remote address 192.0.2.3 255.255.255.255
 authentication local pre-share key {}
 authentication remote pre-share key {}
vpdn-group L2TP
 l2tp tunnel password 7 {t7}
mpls ldp neighbor 10.0.0.9 password 7 {t7}
mpls ldp password fallback {}
interface GigabitEthernet1
 description uplink to core
 ip address 10.0.0.1 255.255.255.0
 ip ospf message-digest-key 1 md5 7 {t7}
 ip ospf authentication-key {}
 ipv6 ospf authentication ipsec spi 500 md5 {hex}
 ipv6 ospf encryption ipsec spi 1001 esp aes-cbc 128 {hex} sha1 {hex}
 ospfv3 authentication ipsec spi 256 sha1 {hex}
 ospfv3 encryption ipsec spi 1002 esp null sha1 {hex}
 standby 1 ip 10.0.0.254
 standby 1 authentication md5 key-string 7 {t7}
 standby 2 authentication text {}
 standby 3 authentication {}
 vrrp 4 authentication text {}
 vrrp 5 authentication md5 key-string {}
 glbp 6 authentication md5 key-string 7 {t7}
 glbp 7 authentication text {}
 isis password {} level-1
 ip nhrp authentication {}
 ppp chap password 7 {t7}
 ppp pap sent-username branch password 0 {}
interface Dialer1
 ip address negotiated
 ppp chap hostname branch
 ppp chap password 0 {}
router ospf 1
 area 0 authentication message-digest
 area 1 virtual-link 10.255.0.2 message-digest-key 1 md5 {}
 network 10.0.0.0 0.0.0.255 area 0
router isis CORE
 area-password {}
 domain-password {} authenticate snp validate
router bgp 65001
 neighbor 192.0.2.9 remote-as 65002
 neighbor 192.0.2.9 password 7 {t7}
 neighbor PEERS peer-group
 neighbor PEERS password {}
 neighbor 2001:db8::9 password 0 {}
wlan CORP 1 CORP
 security wpa psk set-key ascii 0 {}
dot1x credentials SUPPLICANT
 username supplicant
 password 0 {}
line con 0
 password {}
line vty 0 4
 password 7 {t7}
 transport input ssh
end
"""

NXOS = """!Command: show running-config
version 9.3(8) Bios:version
hostname {host}
feature tacacs+
feature ospf
feature bgp
feature hsrp
username admin password 5 {sha256crypt}  role network-admin
username ops password {} role network-operator
snmp-server user admin network-admin auth md5 {hex} priv {hex} localizedkey
snmp-server user ops network-operator auth sha {} priv aes-128 {}
snmp-server community {} group network-operator
snmp-server community {} ro
snmp-server host 10.1.1.1 traps version 2c {}
snmp-server host 10.1.1.2 informs version 2c {} udp-port 162
snmp-server host 10.1.1.1 use-vrf management
tacacs-server key 7 "{t7}"
tacacs-server host 10.9.9.9 key 7 "{t7}"
radius-server key 7 "{t7}"
radius-server host 10.9.8.1 key 7 "{t7}" authentication accounting
ldap-server host 10.9.7.1 rootDN "cn=svc,dc=corp" password 7 {t7} port 389
ntp authentication-key 1 md5 {} 7
key chain BGP-KEYS
  key 0
    key-string 7 {t7}
interface Ethernet1/1
  no switchport
  ip address 10.0.0.1/30
  ip ospf authentication-key 3 {hex}
  ip ospf message-digest-key 1 md5 3 {hex}
interface Vlan10
  hsrp 10
    authentication md5 key-string {}
    ip 10.10.0.1
  hsrp 11
    authentication text {}
router bgp 65010
  template peer SPINES
    password 3 {hex}
  neighbor 10.0.0.2
    remote-as 65011
    password 3 {hex}
  neighbor 10.0.0.6
    inherit peer SPINES
    password {}
"""

IOSXR = """!! IOS XR Configuration 7.3.2
hostname {host}
username admin
 group root-lr
 secret 10 {sha512crypt}
username ops
 password 7 {t7}
username legacy
 secret 5 {md5crypt}
snmp-server community {} RO
snmp-server community encrypted {} RO
snmp-server community clear {} RW
snmp-server user mon NETOPS v3 auth sha encrypted {} priv aes 128 encrypted {}
snmp-server user mon2 NETOPS v3 auth md5 clear {} priv des56 clear {} SystemOwner
snmp-server host 10.1.1.1 traps version 2c {}
snmp-server host 10.1.1.2 traps encrypted {}
snmp-server host 10.1.1.3 traps version 2c encrypted {} udp-port 162
tacacs-server host 10.9.9.9 port 49
 key 7 {t7}
tacacs-server key 7 {t7}
radius-server host 10.9.8.1 auth-port 1812 acct-port 1813
 key 7 {t7}
aaa group server tacacs+ TAC
 server-private 10.9.9.10 port 49
  key 7 {t7}
key chain ISIS-KEYS
 key 1
  key-string password 7 {t7}
  cryptographic-algorithm HMAC-MD5
 key 2
  key-string clear {}
ntp
 authentication-key 1 md5 encrypted {t7}
 authentication-key 2 md5 clear {}
 authenticate
router ospf CORE
 area 0
  authentication message-digest
  message-digest-key 1 md5 encrypted {t7}
  interface GigabitEthernet0/0/0/0
   authentication-key encrypted {t7}
   message-digest-key 2 md5 {}
router isis CORE
 lsp-password hmac-md5 encrypted {t7} level 2
 lsp-password text clear {}
 interface GigabitEthernet0/0/0/1
  hello-password hmac-md5 encrypted {t7}
router bgp 65020
 neighbor-group RR
  password encrypted {t7}
 neighbor 192.0.2.9
  remote-as 65021
  password encrypted {t7}
 neighbor 192.0.2.10
  remote-as 65021
  password clear {}
 neighbor 192.0.2.11
  use neighbor-group RR
  password inheritance-disable
mpls ldp
 neighbor 10.0.0.9:0 password encrypted {t7}
router hsrp
 interface GigabitEthernet0/0/0/2
  address-family ipv4
   hsrp 1
    authentication {}
    address 10.20.0.1
end
"""

ASA = """: Saved
ASA Version 9.16(4)
hostname {host}
enable password {} encrypted
enable password {} level 15 pbkdf2
passwd {} encrypted
username admin password {} encrypted privilege 15
username ops password {} pbkdf2 privilege 3
names
interface GigabitEthernet0/0
 nameif outside
 security-level 0
 ip address 203.0.113.2 255.255.255.248
 ospf message-digest-key 1 md5 {}
 ospf authentication-key {}
interface GigabitEthernet0/1
 nameif inside
 security-level 100
 ip address 10.0.0.1 255.255.255.0
 authentication key eigrp 100 {} key-id 1
failover
failover key {}
failover key hex {hex}
failover ipsec pre-shared-key 0 {}
aaa-server TAC protocol tacacs+
aaa-server TAC (inside) host 10.9.9.9
 key {}
aaa-server LDAP protocol ldap
aaa-server LDAP (inside) host 10.9.7.1
 ldap-login-password {}
 ldap-login-dn cn=svc,dc=corp,dc=example
snmp-server host inside 10.1.1.1 community {} version 2c
snmp-server host inside 10.1.1.2 community 0 {} version 2c udp-port 162
snmp-server host outside 10.1.1.3 poll community {}
snmp-server host inside 10.1.1.4 version 3 NETOPS
snmp-server community {}
snmp-server user mon NETOPS v3 encrypted auth sha {} priv aes 256 {}
snmp-server user mon2 NETOPS v3 auth sha {} priv aes 128 {}
ntp authentication-key 1 md5 {}
tunnel-group 192.0.2.1 type ipsec-l2l
tunnel-group 192.0.2.1 ipsec-attributes
 ikev1 pre-shared-key {}
 ikev2 remote-authentication pre-shared-key {}
 ikev2 local-authentication pre-shared-key {}
vpdn username isp password {}
router bgp 65030
 address-family ipv4 unicast
  neighbor 203.0.113.1 remote-as 65031
  neighbor 203.0.113.1 password 0 {}
ssh 10.0.0.0 255.0.0.0 inside
"""

EOS = """! Command: show running-config
! device: {host} (cEOSLab, EOS-4.36.0.1F)
hostname {host}
aaa root secret sha512 {sha512crypt}
enable password sha512 {sha512crypt}
username admin privilege 15 role network-admin secret sha512 {sha512crypt}
username ops secret 0 {}
username legacy secret 5 {md5crypt}
snmp-server community {} ro
snmp-server community {} rw ACL-SNMP
snmp-server user mon NETOPS v3 auth sha {} priv aes {}
snmp-server user mon2 NETOPS v3 localized 0000000000 auth sha {} priv aes {}
snmp-server host 10.1.1.1 version 2c {}
snmp-server host 10.1.1.2 vrf MGMT version 2c {}
snmp-server host 10.1.1.3 informs version 2c {}
tacacs-server host 10.9.9.9 key 7 {t7}
tacacs-server host 10.9.9.10 vrf MGMT key 7 {t7}
tacacs-server key 7 {t7}
radius-server host 10.9.8.1 key 7 {t7}
radius-server key 7 {t7}
ntp authentication-key 1 md5 7 {t7}
ntp authentication-key 2 sha1 {}
interface Ethernet1
   no switchport
   ip address 10.0.0.0/31
   ip ospf authentication-key 7 {t7}
   ip ospf message-digest-key 1 md5 7 {t7}
   vrrp 1 peer authentication text {}
   vrrp 2 peer authentication ietf-md5 key-string 7 {t7}
router isis CORE
   authentication mode md5
   authentication key 0 {}
router bgp 65040
   neighbor 10.0.0.1 remote-as 65041
   neighbor 10.0.0.1 password 7 {t7}
   neighbor SPINES peer group
   neighbor SPINES password 0 {}
end
"""

JUNOS = """## Last commit: 2026-10-01 10:00:00 UTC by admin
system {{
    host-name {host};
    root-authentication {{
        encrypted-password "{sha512crypt}";
    }}
    login {{
        user ops {{
            authentication {{
                encrypted-password "{md5crypt}";
            }}
        }}
    }}
}}
snmp {{
    community {} {{
        authorization read-only;
    }}
}}
protocols {{
    bgp {{
        group PEERS {{
            authentication-key "{junos9}";
        }}
    }}
}}
security {{
    ike {{
        policy IKE-POL {{
            pre-shared-key ascii-text "{junos9}";
        }}
    }}
}}
"""

PLATFORMS = {"ios-xe": IOS, "nx-os": NXOS, "ios-xr": IOSXR, "asa": ASA, "eos": EOS, "junos": JUNOS}


@dataclass
class Planted:
    """Rendered configurations and every secret value planted in them."""

    configs: dict[str, str] = field(default_factory=dict)  # file name -> text
    values: list[str] = field(default_factory=list)

    def leaks(self, text: str) -> list[str]:
        return [v for v in self.values if v in text]


def plant(prefix: str = "Zq") -> Planted:
    """Every template rendered with distinct values (each unlikely to appear anywhere by chance)."""
    counter = itertools.count(1)
    planted = Planted()

    def value(shape: str) -> str:
        n = next(counter)
        tag = f"{prefix}{n:03d}x"
        made = {"": f"{tag}Pw9", "t7": f"0822{n:03d}5D0A16{prefix}", "hex": f"0x9f3a{n:04d}b7c1{prefix.lower()}e",
                "hash": f"$9$nhEmQVczB7dqsO$X{tag}Kv5mL2", "sha256crypt": f"$5$IMMIIC$6Uu5l{tag}QXDL373AQEPKZQI6",
                "sha512crypt": f"$6$Olt4GHZc$HhFkX{tag}Gi0Ww8G", "md5crypt": f"$1$mERr$hx5r{tag}Vp1",
                "junos9": f"$9$dkw2ZUjq{tag}.P5"}[shape]
        planted.values.append(made)
        return made

    for platform, template in PLATFORMS.items():
        host = f"{platform.upper().replace('-', '')}-SECRETS-1"
        parts = template.split("{}")
        text = ""
        for i, part in enumerate(parts):
            text += _fill(part, host, value) + (value("") if i < len(parts) - 1 else "")
        planted.configs[f"{host.lower()}.cfg"] = text
    return planted


def _fill(part: str, host: str, value: object) -> str:
    """Named placeholders ({t7}, {hash} …) in a part of a template, each a fresh value; ``{host}`` the host name."""
    import re

    def repl(m: re.Match[str]) -> str:
        name = m.group(1)
        return host if name == "host" else value(name)  # type: ignore[operator]

    return re.sub(r"\{(host|t7|hex|hash|sha256crypt|sha512crypt|md5crypt|junos9)\}", repl,
                  part.replace("{{", "\x00").replace("}}", "\x01")).replace("\x00", "{").replace("\x01", "}")
