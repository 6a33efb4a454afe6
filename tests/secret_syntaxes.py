"""Every secret-bearing syntax docs/SECURITY.md lists, in the forms of each platform that has it (Cisco IOS/IOS-XE,
NX-OS, IOS-XR, ASA, Arista EOS, Junos), planted with each encryption type the syntax takes (none, ``0``, ``7``,
``5``/``8``/``9`` hashes, ``hex``, ``encrypted``/``clear``, ``sha512``) and in each shape a value takes (a word,
one with signs, two words where IOS reads to the end of the line, quoted, ``$9$``): over 400 distinct values.

``plant_syntaxes()`` renders one configuration per platform, each variant under the block headers it needs (a
``key`` is a secret under ``tacacs server X``); ``Variant.pasted`` is the same line as a user would paste it into a
question. Every planted value is a unique token (``Zq0123x…``): a test searches stores, files and answers for all.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

# the shape of the value each encryption type takes
BY_TYPE = {"": ("word", "sign"), "0 ": ("word",), "7 ": ("t7",), "3 ": ("hex",), "5 ": ("md5crypt",),
           "6 ": ("aes6",), "8 ": ("pbkdf2",), "9 ": ("scrypt",), "10 ": ("sha512crypt",), "hex ": ("hex",),
           "encrypted ": ("t7",), "clear ": ("word",), "sha512 ": ("sha512crypt",)}


@dataclass(frozen=True)
class Syntax:
    platform: str  # ios | nxos | xr | asa | eos | junos
    line: str  # with {t} (the encryption type, where the syntax has one) and {v} (each value)
    block: str = ""  # the headers above the line, outermost first, separated by " | "
    types: tuple[str, ...] = ("",)
    shapes: tuple[str, ...] = ()  # instead of the type's shapes
    line_end: bool = False  # IOS reads the value to the end of the line: also two words
    quoted: bool = False  # the value may be quoted, with a space in it


S = Syntax
IOS_LINE = {"line_end": True}
SYNTAXES: list[Syntax] = [
    # --- Cisco IOS / IOS-XE -------------------------------------------------------------------------------------
    S("ios", "enable secret {t}{v}", types=("", "0 ", "5 ", "8 ", "9 "), **IOS_LINE),
    S("ios", "enable password {t}{v}", types=("", "0 ", "7 "), **IOS_LINE),
    S("ios", "enable password level 15 {t}{v}", types=("", "7 ")),
    S("ios", "enable algorithm-type scrypt secret {v}"),
    S("ios", "username ops privilege 15 password {t}{v}", types=("", "0 ", "7 "), **IOS_LINE),
    S("ios", "username adm privilege 15 secret {t}{v}", types=("", "0 ", "5 ", "8 ", "9 ")),
    S("ios", "username api algorithm-type sha256 secret {v}"),
    S("ios", "username vw view OPS password {t}{v}", types=("0 ", "7 ")),
    S("ios", " password {t}{v}", "line vty 0 4", types=("", "0 ", "7 "), **IOS_LINE),
    S("ios", " password {t}{v}", "line con 0", types=("", "7 ")),
    S("ios", "key config-key password-encrypt {v}"),
    S("ios", "ip ftp password {t}{v}", types=("", "0 ", "7 ")),
    S("ios", "ip http client password {t}{v}", types=("", "0 ", "7 ")),
    S("ios", "vtp password {v}"),
    S("ios", "vtp password {v} hidden"),
    S("ios", "tacacs-server host 10.9.9.9 key {t}{v}", types=("", "0 ", "7 ")),
    S("ios", "tacacs-server key {t}{v}", types=("", "0 ", "7 "), **IOS_LINE),
    S("ios", " key {t}{v}", "tacacs server TAC1", types=("", "0 ", "6 ", "7 ")),
    S("ios", " server-private 10.9.9.11 key {t}{v}", "aaa group server tacacs+ TAC", types=("", "0 ", "7 ")),
    S("ios", " server-private 10.9.8.11 auth-port 1812 acct-port 1813 key {t}{v}", "aaa group server radius RAD",
      types=("", "7 ")),
    S("ios", "radius-server host 10.9.8.1 auth-port 1812 acct-port 1813 key {t}{v}", types=("", "0 ", "7 ")),
    S("ios", "radius-server key {t}{v}", types=("", "0 ", "7 ")),
    S("ios", " key {t}{v}", "radius server RAD1", types=("", "0 ", "7 ")),
    S("ios", " pac key {t}{v}", "radius server RAD1", types=("", "7 ")),
    S("ios", " client 10.9.8.3 server-key {t}{v}", "aaa server radius dynamic-author", types=("", "7 ")),
    S("ios", " client 10.9.8.4 key {t}{v}", "aaa server radius dynamic-author", types=("", "7 ")),
    S("ios", " server-key {t}{v}", "aaa server radius dynamic-author", types=("", "0 ")),
    S("ios", ' bind authenticated root-dn "cn=svc,dc=corp" password {t}{v}', "ldap server LDAP1", types=("", "7 ")),
    S("ios", "snmp-server community {v} RO"),
    S("ios", "snmp-server community {v} view ALL RW 10"),
    S("ios", "snmp-server host 10.1.1.1 version 2c {v}"),
    S("ios", "snmp-server host 10.1.1.2 traps version 2c {v} udp-port 162"),
    S("ios", "snmp-server host 10.1.1.3 informs version 2c {v}"),
    S("ios", "snmp-server host 10.1.1.4 vrf MGMT version 2c {v}"),
    S("ios", "snmp-server host 10.1.1.5 {v}"),
    S("ios", "snmp-server community-map {v} context LAB"),
    S("ios", "snmp-server user mon NETOPS v3 auth sha {v} priv aes 128 {v}"),
    S("ios", "snmp-server user mon2 NETOPS v3 auth md5 {v} priv des {v}"),
    S("ios", "  key-string {t}{v}", "key chain KC1 | key 1", types=("", "0 ", "7 "), **IOS_LINE),
    S("ios", "ntp authentication-key 1 md5 {v} 7", shapes=("t7",)),
    S("ios", "ntp authentication-key 2 md5 {v}"),
    S("ios", "ntp authentication-key 3 hmac-sha256 {v}"),
    S("ios", "sntp authentication-key 4 md5 {v}"),
    S("ios", "crypto isakmp key {t}{v} address 192.0.2.1", types=("", "0 ", "6 ")),
    S("ios", "crypto isakmp key {v} hostname peer.example.com"),
    S("ios", " pre-shared-key address 192.0.2.2 key {t}{v}", "crypto keyring KR1", types=("", "0 ", "6 ")),
    S("ios", " pre-shared-key hostname branch.example.com key {v}", "crypto keyring KR1"),
    S("ios", "  pre-shared-key local {t}{v}", "crypto ikev2 keyring IKR | peer HUB", types=("", "0 ", "6 ")),
    S("ios", "  pre-shared-key remote {v}", "crypto ikev2 keyring IKR | peer HUB"),
    S("ios", "  pre-shared-key {t}{v}", "crypto ikev2 keyring IKR | peer SPOKE", types=("", "6 ")),
    S("ios", " authentication local pre-share key {t}{v}", "crypto ikev2 profile IPROF", types=("", "6 ")),
    S("ios", " authentication remote pre-share key {v}", "crypto ikev2 profile IPROF"),
    S("ios", " key {t}{v}", "crypto isakmp client configuration group EZ", types=("", "0 ", "6 ")),
    S("ios", " group EZ key {t}{v}", "crypto ipsec client ezvpn EZC", types=("", "0 ", "6 ")),
    S("ios", "crypto pki token default user-pin {t}{v}", types=("", "0 ", "7 ")),
    S("ios", " database archive pkcs12 password {t}{v}", "crypto pki server CA1", types=("", "0 ", "7 ")),
    S("ios", " database archive pem password {v}", "crypto pki server CA1"),
    S("ios", " password {t}{v}", "crypto pki trustpoint TP1", types=("", "7 ")),
    S("ios", " path ftp://backup:{v}@192.0.2.50/$h-$t", "archive"),
    S("ios", "  destination address http https://ops:{v}@callhome.example.com/post", "call-home | profile CH"),
    S("ios", " l2tp tunnel password {t}{v}", "vpdn-group L2TP", types=("", "0 ", "7 ")),
    S("ios", " digest secret {t}{v} hash sha1", "l2tp-class L2C", types=("", "0 ", "7 ")),
    S("ios", " password {t}{v}", "l2tp-class L2C", types=("", "7 ")),
    S("ios", "mpls ldp neighbor 10.0.0.9 password {t}{v}", types=("", "0 ", "7 ")),
    S("ios", "mpls ldp password fallback {t}{v}", types=("", "7 ")),
    S("ios", " ip ospf message-digest-key 1 md5 {t}{v}", "interface GigabitEthernet1", types=("", "7 ")),
    S("ios", " ip ospf authentication-key {t}{v}", "interface GigabitEthernet1", types=("", "7 ")),
    S("ios", " ipv6 ospf authentication ipsec spi 500 md5 {t}{v}", "interface GigabitEthernet1", types=("", "7 "),
      shapes=("hex",)),
    S("ios", " ipv6 ospf encryption ipsec spi 1001 esp aes-cbc 128 {v} sha1 {v}", "interface GigabitEthernet1",
      shapes=("hex",)),
    S("ios", " ospfv3 authentication ipsec spi 256 sha1 {v}", "interface GigabitEthernet1", shapes=("hex",)),
    S("ios", " standby 1 authentication md5 key-string {t}{v}", "interface GigabitEthernet1", types=("", "7 ")),
    S("ios", " standby 2 authentication text {v}", "interface GigabitEthernet1", quoted=True),
    S("ios", " standby 3 authentication {v}", "interface GigabitEthernet1"),
    S("ios", " vrrp 4 authentication text {v}", "interface GigabitEthernet1"),
    S("ios", " vrrp 5 authentication md5 key-string {t}{v}", "interface GigabitEthernet1", types=("", "7 ")),
    S("ios", " glbp 6 authentication md5 key-string {t}{v}", "interface GigabitEthernet1", types=("", "7 ")),
    S("ios", " glbp 7 authentication text {v}", "interface GigabitEthernet1"),
    S("ios", " isis password {v} level-1", "interface GigabitEthernet1"),
    S("ios", " ip nhrp authentication {v}", "interface Tunnel0"),
    S("ios", " ip rsvp authentication key {t}{v}", "interface GigabitEthernet2", types=("", "0 ", "7 ")),
    S("ios", " ppp chap password {t}{v}", "interface Dialer1", types=("", "0 ", "7 ")),
    S("ios", " ppp pap sent-username branch password {t}{v}", "interface Dialer1", types=("", "0 ", "7 ")),
    S("ios", " area 1 virtual-link 10.255.0.2 message-digest-key 1 md5 {t}{v}", "router ospf 1", types=("", "7 ")),
    S("ios", " area 2 virtual-link 10.255.0.3 authentication-key {t}{v}", "router ospf 1", types=("", "7 ")),
    S("ios", " area-password {v}", "router isis CORE"),
    S("ios", " domain-password {v} authenticate snp validate", "router isis CORE"),
    S("ios", "   authentication mode hmac-sha-256 {t}{v}",
      "router eigrp NAMED | address-family ipv4 unicast autonomous-system 100 | af-interface default",
      types=("", "0 ", "7 ")),
    S("ios", " neighbor 192.0.2.9 password {t}{v}", "router bgp 65001", types=("", "0 ", "7 ")),
    S("ios", " neighbor PEERS password {v}", "router bgp 65001"),
    S("ios", " neighbor 2001:db8::9 password {t}{v}", "router bgp 65001", types=("", "7 ")),
    S("ios", "ip msdp password peer 10.0.0.7 {t}{v}", types=("", "0 ", "7 ")),
    S("ios", "cts sxp default password {t}{v}", types=("", "0 ", "6 ", "7 ")),
    S("ios", " password {t}{v}", "dot1x credentials SUP", types=("", "0 ", "7 ")),
    S("ios", " security wpa psk set-key ascii {t}{v}", "wlan CORP 1 CORP", types=("0 ", "8 ")),
    S("ios", " security wpa psk set-key hex {t}{v}", "wlan CORP 1 CORP", types=("0 ", "8 "), shapes=("hex",)),
    S("ios", " wpa-psk ascii {t}{v}", "dot11 ssid CORP", types=("", "0 ", "7 ")),
    S("ios", " wpa-psk hex {t}{v}", "dot11 ssid CORP", types=("", "0 ", "7 "), shapes=("hex",)),
    S("ios", "event manager environment _email_pass {v}"),
    S("ios", "event manager environment _login_secret {v}"),
    # --- Cisco NX-OS --------------------------------------------------------------------------------------------
    S("nxos", "username admin password {t}{v} role network-admin", types=("", "0 ", "5 ")),
    S("nxos", "username ops password {v}  role network-operator"),
    S("nxos", "snmp-server user admin network-admin auth md5 {v} priv {v} localizedkey", shapes=("hex",)),
    S("nxos", "snmp-server user ops network-operator auth sha {v} priv aes-128 {v}"),
    S("nxos", "snmp-server community {v} group network-operator"),
    S("nxos", "snmp-server community {v} ro"),
    S("nxos", "snmp-server host 10.1.1.1 traps version 2c {v}"),
    S("nxos", "snmp-server host 10.1.1.2 informs version 2c {v} udp-port 162"),
    S("nxos", "tacacs-server key {t}{v}", types=("0 ", "7 "), shapes=("dq",), quoted=True),
    S("nxos", "tacacs-server host 10.9.9.9 key {t}{v} port 49", types=("0 ", "7 "), shapes=("dq",)),
    S("nxos", "radius-server key {t}{v}", types=("0 ", "7 "), shapes=("dq",)),
    S("nxos", "radius-server host 10.9.8.1 key {t}{v} authentication accounting", types=("0 ", "7 "), shapes=("dq",)),
    S("nxos", 'ldap-server host 10.9.7.1 rootDN "cn=svc,dc=corp" password {t}{v} port 389', types=("", "7 ")),
    S("nxos", "ntp authentication-key 1 md5 {v} 7", shapes=("t7",)),
    S("nxos", "ntp authentication-key 2 md5 {v} 0"),
    S("nxos", "    key-string {t}{v}", "key chain BGP-KEYS | key 0", types=("", "7 ")),
    S("nxos", "  ip ospf authentication-key {t}{v}", "interface Ethernet1/1", types=("", "3 ", "7 ")),
    S("nxos", "  ip ospf message-digest-key 1 md5 {t}{v}", "interface Ethernet1/1", types=("", "3 ", "7 ")),
    S("nxos", "  bfd authentication keyed-sha1 key-id 1 key {v}", "interface Ethernet1/2"),
    S("nxos", "  bfd authentication keyed-sha1 key-id 2 hex-key {v}", "interface Ethernet1/2", shapes=("hex",)),
    S("nxos", "    authentication md5 key-string {v}", "interface Vlan10 | hsrp 10"),
    S("nxos", "    authentication text {v}", "interface Vlan10 | hsrp 11", quoted=True),
    S("nxos", "    authentication text {v}", "interface Vlan20 | vrrp 20"),
    S("nxos", "    password {t}{v}", "router bgp 65010 | template peer SPINES", types=("", "3 ", "7 ")),
    S("nxos", "    password {t}{v}", "router bgp 65010 | neighbor 10.0.0.2", types=("", "3 ", "7 ")),
    S("nxos", "ip msdp password 10.0.0.8 {v}"),
    # --- Cisco IOS-XR -------------------------------------------------------------------------------------------
    S("xr", " secret {t}{v}", "username admin", types=("5 ", "8 ", "9 ", "10 ")),
    S("xr", " password {t}{v}", "username ops", types=("", "0 ", "7 ")),
    S("xr", "snmp-server community {v} RO"),
    S("xr", "snmp-server community encrypted {v} RO", shapes=("t7",)),
    S("xr", "snmp-server community clear {v} RW"),
    S("xr", "snmp-server user mon NETOPS v3 auth sha encrypted {v} priv aes 128 encrypted {v}", shapes=("t7",)),
    S("xr", "snmp-server user mon2 NETOPS v3 auth md5 clear {v} priv des56 clear {v} SystemOwner"),
    S("xr", "snmp-server host 10.1.1.1 traps version 2c {v}"),
    S("xr", "snmp-server host 10.1.1.2 traps encrypted {v}", shapes=("t7",)),
    S("xr", " key {t}{v}", "tacacs-server host 10.9.9.9 port 49", types=("", "7 ")),
    S("xr", "tacacs-server key {t}{v}", types=("", "7 ")),
    S("xr", " key {t}{v}", "radius-server host 10.9.8.1 auth-port 1812 acct-port 1813", types=("", "7 ")),
    S("xr", "  key {t}{v}", "aaa group server tacacs+ TAC | server-private 10.9.9.10 port 49", types=("", "7 ")),
    S("xr", " client 10.9.8.5 vrf MGMT server-key {t}{v}", "aaa server radius dynamic-author", types=("", "7 ")),
    S("xr", "  key-string password {t}{v}", "key chain ISIS-KEYS | key 1", types=("", "7 ")),
    S("xr", "  key-string clear {v}", "key chain ISIS-KEYS | key 2"),
    S("xr", " authentication-key 1 md5 encrypted {v}", "ntp", shapes=("t7",)),
    S("xr", " authentication-key 2 md5 clear {v}", "ntp"),
    S("xr", "  message-digest-key 1 md5 encrypted {v}", "router ospf CORE | area 0", shapes=("t7",)),
    S("xr", "  message-digest-key 2 md5 {v}", "router ospf CORE | area 0"),
    S("xr", "   authentication-key encrypted {v}", "router ospf CORE | area 0 | interface GigabitEthernet0/0/0/0",
      shapes=("t7",)),
    S("xr", " lsp-password hmac-md5 encrypted {v} level 2", "router isis CORE", shapes=("t7",)),
    S("xr", " lsp-password text clear {v}", "router isis CORE"),
    S("xr", "  hello-password hmac-md5 encrypted {v}", "router isis CORE | interface GigabitEthernet0/0/0/1",
      shapes=("t7",)),
    S("xr", "  password encrypted {v}", "router bgp 65020 | neighbor-group RR", shapes=("t7",)),
    S("xr", "  password clear {v}", "router bgp 65020 | neighbor 192.0.2.10"),
    S("xr", "  password encrypted {v}", "router bgp 65020 | session-group SG", shapes=("t7",)),
    S("xr", " neighbor 10.0.0.9:0 password encrypted {v}", "mpls ldp", shapes=("t7",)),
    S("xr", "    authentication {v}", "router hsrp | interface GigabitEthernet0/0/0/2 | address-family ipv4 | hsrp 1"),
    S("xr", "    text-authentication {t}{v}",
      "router vrrp | interface GigabitEthernet0/0/0/3 | address-family ipv4 | vrrp 1", types=("", "7 ")),
    # --- Cisco ASA ----------------------------------------------------------------------------------------------
    S("asa", "enable password {v} encrypted"),
    S("asa", "enable password {v} level 15 pbkdf2"),
    S("asa", "enable password {v}"),
    S("asa", "passwd {v} encrypted"),
    S("asa", "passwd {v}"),
    S("asa", "username admin password {v} encrypted privilege 15"),
    S("asa", "username ops password {v} pbkdf2 privilege 3"),
    S("asa", "username nt password {v} nt-encrypted"),
    S("asa", " ospf message-digest-key 1 md5 {v}", "interface GigabitEthernet0/0"),
    S("asa", " ospf authentication-key {v}", "interface GigabitEthernet0/0"),
    S("asa", " authentication key eigrp 100 {v} key-id 1", "interface GigabitEthernet0/1"),
    S("asa", "failover key {v}"),
    S("asa", "failover key hex {v}", shapes=("hex",)),
    S("asa", "failover ipsec pre-shared-key {t}{v}", types=("", "0 ", "8 ")),
    S("asa", " key {v}", "aaa-server TAC (inside) host 10.9.9.9"),
    S("asa", " key {v}", "aaa-server RAD (inside) host 10.9.8.9"),
    S("asa", " radius-common-pw {v}", "aaa-server RAD (inside) host 10.9.8.9"),
    S("asa", " ldap-login-password {v}", "aaa-server LDAP (inside) host 10.9.7.1"),
    S("asa", "aaa-server OLD (inside) host 10.9.9.8 {v} timeout 5"),
    S("asa", "snmp-server host inside 10.1.1.1 community {t}{v} version 2c", types=("", "0 ", "8 ")),
    S("asa", "snmp-server host outside 10.1.1.3 poll community {v}"),
    S("asa", "snmp-server community {t}{v}", types=("", "0 ", "8 ")),
    S("asa", "snmp-server user mon NETOPS v3 encrypted auth sha {v} priv aes 256 {v}"),
    S("asa", "snmp-server user mon2 NETOPS v3 auth sha {v} priv aes 128 {v}"),
    S("asa", "ntp authentication-key 1 md5 {t}{v}", types=("", "8 ")),
    S("asa", " ikev1 pre-shared-key {t}{v}", "tunnel-group 192.0.2.1 ipsec-attributes", types=("", "0 ", "8 ")),
    S("asa", " ikev2 remote-authentication pre-shared-key {t}{v}", "tunnel-group 192.0.2.1 ipsec-attributes",
      types=("", "0 ", "8 ")),
    S("asa", " ikev2 local-authentication pre-shared-key {v}", "tunnel-group 192.0.2.1 ipsec-attributes"),
    S("asa", " pre-shared-key {v}", "tunnel-group 192.0.2.5 ipsec-attributes"),
    S("asa", "isakmp key {v} address 192.0.2.6 netmask 255.255.255.255"),
    S("asa", "vpdn username isp password {v}"),
    S("asa", "vpdn username isp2 password {v} store-local"),
    S("asa", "  neighbor 203.0.113.1 password {t}{v}", "router bgp 65030 | address-family ipv4 unicast",
      types=("", "0 ", "8 ")),
    S("asa", " area 1 virtual-link 10.255.0.9 authentication-key {v}", "router ospf 1"),
    # --- Arista EOS ---------------------------------------------------------------------------------------------
    S("eos", "aaa root secret {t}{v}", types=("sha512 ", "0 ")),
    S("eos", "enable password {t}{v}", types=("sha512 ", "0 ")),
    S("eos", "username admin privilege 15 role network-admin secret sha512 {v}", shapes=("sha512crypt",)),
    S("eos", "username ops secret {t}{v}", types=("0 ", "5 ", "7 ")),
    S("eos", "snmp-server community {v} ro"),
    S("eos", "snmp-server community {v} rw ACL-SNMP"),
    S("eos", "snmp-server user mon NETOPS v3 auth sha {v} priv aes {v}"),
    S("eos", "snmp-server user mon2 NETOPS v3 localized 0000000000 auth sha {v} priv aes {v}"),
    S("eos", "snmp-server host 10.1.1.1 version 2c {v}"),
    S("eos", "snmp-server host 10.1.1.2 vrf MGMT version 2c {v}"),
    S("eos", "tacacs-server host 10.9.9.9 key {t}{v}", types=("0 ", "7 ")),
    S("eos", "tacacs-server host 10.9.9.10 vrf MGMT key 7 {v}", shapes=("t7",)),
    S("eos", "tacacs-server key {t}{v}", types=("0 ", "7 ")),
    S("eos", "radius-server host 10.9.8.1 key {t}{v}", types=("0 ", "7 ")),
    S("eos", "radius-server key 7 {v}", shapes=("t7",)),
    S("eos", "ntp authentication-key 1 md5 {t}{v}", types=("0 ", "7 ")),
    S("eos", "ntp authentication-key 2 sha1 {v}"),
    S("eos", "   ip ospf authentication-key {t}{v}", "interface Ethernet1", types=("0 ", "7 ")),
    S("eos", "   ip ospf message-digest-key 1 md5 {t}{v}", "interface Ethernet1", types=("0 ", "7 ")),
    S("eos", "   vrrp 1 peer authentication text {v}", "interface Ethernet1"),
    S("eos", "   vrrp 2 peer authentication ietf-md5 key-string {t}{v}", "interface Ethernet1", types=("0 ", "7 ")),
    S("eos", "   isis authentication key {t}{v}", "interface Ethernet2", types=("0 ", "7 ")),
    S("eos", "   isis authentication key 7 {v} level-2", "interface Ethernet3", shapes=("t7",)),
    S("eos", "   authentication key {t}{v}", "router isis CORE", types=("0 ", "7 ")),
    S("eos", "   authentication key 7 {v} level-1", "router isis CORE", shapes=("t7",)),
    S("eos", "   neighbor 10.0.0.1 password {t}{v}", "router bgp 65040", types=("0 ", "7 ")),
    S("eos", "   neighbor SPINES password 0 {v}", "router bgp 65040"),
    # --- Junos (braces and set forms; kept masked, not assessed) -------------------------------------------------
    S("junos", '        encrypted-password "{v}";', "system { | root-authentication {", shapes=("sha512crypt",)),
    S("junos", '                encrypted-password "{v}";', "system { | login { | user ops { | authentication {",
      shapes=("md5crypt",)),
    S("junos", '        secret "{v}"; ## SECRET-DATA', "system { | radius-server 10.9.8.1 {", shapes=("junos9",)),
    S("junos", '        secret "{v}"; ## SECRET-DATA', "system { | tacacs-server 10.9.9.9 {", shapes=("junos9",)),
    S("junos", '        authentication-key 1 type md5 value "{v}"; ## SECRET-DATA', "system { | ntp {",
      shapes=("junos9",)),
    S("junos", "    community {v} {{", "snmp {"),
    S("junos", '            authentication-key "{v}"; ## SECRET-DATA', "protocols { | bgp { | group PEERS {",
      shapes=("junos9",)),
    S("junos", '                    md5 1 key "{v}"; ## SECRET-DATA',
      "protocols { | ospf { | area 0.0.0.0 { | interface ge-0/0/0.0 { | authentication {", shapes=("junos9",)),
    S("junos", '            pre-shared-key ascii-text "{v}"; ## SECRET-DATA', "security { | ike { | policy IKE-POL {",
      shapes=("junos9",)),
    S("junos", 'set system ntp authentication-key 2 type sha256 value "{v}"', shapes=("junos9",)),
    S("junos", "set snmp community {v} authorization read-only"),
    S("junos", 'set system radius-server 10.9.8.2 secret "{v}"', shapes=("junos9",)),
    S("junos", 'set protocols bgp group EBGP authentication-key "{v}"', shapes=("junos9",)),
    S("junos", 'set security ike policy P2 pre-shared-key ascii-text "{v}"', shapes=("junos9",)),
    S("junos", 'set snmp v3 usm local-engine user mon authentication-sha authentication-key "{v}"',
      shapes=("junos9",)),
]

HEADERS = {
    "ios": "version 17.9\nservice timestamps log datetime msec\nhostname {host}\n",
    "nxos": "!Command: show running-config\nversion 9.3(8) Bios:version\nhostname {host}\nfeature tacacs+\n",
    "xr": "!! IOS XR Configuration 7.3.2\nhostname {host}\n",
    "asa": ": Saved\nASA Version 9.16(4)\nhostname {host}\n",
    "eos": "! Command: show running-config\n! device: {host} (cEOSLab, EOS-4.36.0.1F)\nhostname {host}\n",
    "junos": "## Last commit: 2026-10-01 10:00:00 UTC by admin\nversion 21.4R3;\n",
}


@dataclass
class Variant:
    syntax: Syntax
    line: str  # rendered
    values: list[str]  # each planted token (a value of two words or quoted is two tokens)
    markers: int  # how many values the line holds (each becomes one marker)

    @property
    def pasted(self) -> str:
        """The line as a user pastes it: its block headers above it (Junos: the set form stands alone)."""
        headers = [h for h in self.syntax.block.split(" | ") if h] if self.syntax.platform != "junos" else []
        return "\n".join([*headers, self.line])


@dataclass
class PlantedSyntaxes:
    variants: list[Variant] = field(default_factory=list)
    configs: dict[str, str] = field(default_factory=dict)  # file name -> text

    @property
    def values(self) -> list[str]:
        return [v for variant in self.variants for v in variant.values]

    def leaks(self, text: str) -> list[str]:
        return [v for v in self.values if v in text]


def _shape(shape: str, tag: str) -> tuple[str, list[str]]:
    """A value of ``shape`` made from the unique ``tag``: its text in the configuration, and its searchable tokens."""
    one = {"word": f"{tag}Pw9", "sign": f"{tag}#%&Pw", "t7": f"0822{tag[2:6]}5D0A16{tag}", "hex": f"9F3A{tag}B7C1",
           "md5crypt": f"$1$mERr$hx5r{tag}Vp1", "aes6": f"ZQ[TB]{tag}Fe_dHGLWAAB", "pbkdf2": f"$8$dsYGNam3{tag}K",
           "scrypt": f"$9$nhEmQVczB7dqsO$X{tag}Kv5", "sha512crypt": f"$6$Olt4GHZc$HhFkX{tag}Gi0Ww8G",
           "junos9": f"$9$dkw2ZUjq{tag}.P5"}
    if shape in one:
        return one[shape], [one[shape]]
    if shape == "dq":
        return f'"{tag}Dq7"', [f"{tag}Dq7"]
    if shape == "quoted":
        return f'"{tag}Qa {tag}Qb"', [f"{tag}Qa", f"{tag}Qb"]
    if shape == "line":
        return f"{tag}La {tag}Lb", [f"{tag}La", f"{tag}Lb"]
    raise ValueError(shape)


def _variants(syntax: Syntax, tags: Callable[[], str]) -> Iterator[Variant]:
    for kind in syntax.types:
        shapes = list(syntax.shapes or BY_TYPE[kind])
        if kind in ("", "0 ") and syntax.line_end:
            shapes.append("line")
        if kind == "" and syntax.quoted:
            shapes.append("quoted")
        for shape in shapes:
            values: list[str] = []
            line = syntax.line.replace("{t}", kind)
            while "{v}" in line:
                text, tokens = _shape(shape, tags())
                line = line.replace("{v}", text, 1)
                values += tokens
            yield Variant(syntax, line.replace("{{", "{"), values, syntax.line.count("{v}"))


def _block(syntax: Syntax, line: str) -> str:
    headers = [h for h in syntax.block.split(" | ") if h]
    if syntax.platform == "junos":
        return "\n".join([*(("    " * i) + h for i, h in enumerate(headers)), line,
                          *(("    " * i) + "}" for i in reversed(range(len(headers))))])
    return "\n".join([*headers, line, "!" if syntax.platform in ("ios", "asa", "xr") else ""]).rstrip("\n")


def plant_syntaxes(prefix: str = "Zq") -> PlantedSyntaxes:
    counter = itertools.count(1)
    planted = PlantedSyntaxes()
    bodies: dict[str, list[str]] = {}
    for syntax in SYNTAXES:
        for variant in _variants(syntax, lambda: f"{prefix}{next(counter):04d}x"):
            planted.variants.append(variant)
            bodies.setdefault(syntax.platform, []).append(_block(syntax, variant.line))
    for platform, blocks in bodies.items():
        host = f"{platform.upper()}-SYNTAXES-1"
        planted.configs[f"{host.lower()}.cfg"] = HEADERS[platform].format(host=host) + "\n".join(blocks) + "\nend\n"
    return planted
