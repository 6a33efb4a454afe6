"""What each interface is, judged from the configuration's own topology evidence, with the reason.

Port type first: loopbacks, tunnels and the like are ``virtual``; management ports ``management``; a member of a
port-channel/bundle ``member`` (the channel carries its configuration); an administratively shut port
``unused``; a switchport ``access`` or ``trunk``; a port with an address (physical, sub-interface, SVI or routed
port-channel) ``routed``; a port with nothing configured ``unconfigured`` (a router port with no address, or an
NX-OS/Catalyst port left at its defaults) — L2 rules look only at ports configured as switchports.

A routed port is ``edge`` (faces another organisation or the Internet) on any of these signals: an external
eBGP neighbour (not a confederation member) on its subnet; ``ip nat outside``; a security zone or VRF named
outside/untrust/internet; an inbound ACL named for traffic from outside; the next hop of a default route on its
subnet when the hop or the port's address is outside the organisation's own space (RFC 1918) — a default route to
the site's firewall inside leads inside — or the default route out of it; ASA ``security-level 0``; the forms an Internet link takes on a branch
router — a Dialer or Cellular interface (PPP/PPPoE or mobile to a provider), an address negotiated by PPP, or an
address from DHCP where no static default route exists (the provider's DHCP gives the way out). A description
word (Internet, ISP, transit, …) counts only beside another sign: a public address on the port. NX-OS FEX fabric
ports are fabric links (``trunk``), and a port whose sub-interfaces carry the configuration is their parent, not
an access port. An override file (``interface-roles.yaml``: hostname → interface → role) wins over all of it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Literal

from assessment_engine.checks.bgp import bgp_view
from assessment_engine.checks.config_parser import Line, ParsedConfig

InterfaceRole = Literal["access", "trunk", "routed", "edge", "virtual", "management", "member", "unused",
                        "unconfigured"]
ROLES: tuple[str, ...] = ("access", "trunk", "routed", "edge", "virtual", "management", "member", "unused",
                          "unconfigured")

_EDGE_WORDS = {"internet", "isp", "wan", "outside", "upstream", "inet", "transit", "provider", "untrust", "untrusted",
               "external", "public", "dmz-outside"}
_VIRTUAL = re.compile(r"^interface (loopback|null|tunnel|nve|virtual-|bdi|bvi|vasi)", re.I)
_DIAL = re.compile(r"^interface (dialer|cellular)\d", re.I)
_PRIVATE = [ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
                                                "169.254.0.0/16", "127.0.0.0/8")]
_MGMT = re.compile(r"^interface (mgmt\d|mgmteth|management\d)", re.I)
_SVI = re.compile(r"^interface (vlan|bdi)\d", re.I)
_CHANNEL = re.compile(r"^interface (port-channel|bundle-ether)", re.I)
_ADDRESS = re.compile(r"^(?:ip|ipv4) address (\d+\.\d+\.\d+\.\d+)(?:/(\d+)| (\d+\.\d+\.\d+\.\d+))?")


@dataclass(frozen=True)
class Interface:
    block: Line
    role: InterfaceRole
    reason: str

    @property
    def name(self) -> str:
        return self.block.text.split(None, 1)[1] if " " in self.block.text else self.block.text


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]


def _edge_name(name: str) -> bool:
    """An ACL, zone or VRF name about the outside: 'OUTSIDE_TO_INSIDE', 'INTERNET-IN', 'untrust' — but not
    'INSIDE_TO_OUTSIDE' (traffic from the inside)."""
    words = _words(name)
    if "to" in words:
        words = words[: words.index("to")]
    return any(w in _EDGE_WORDS for w in words)


def _networks(block: Line) -> list[ipaddress.IPv4Interface]:
    out = []
    for child in block.children:
        m = _ADDRESS.match(child.text)
        if not m:
            continue
        try:
            if m.group(2):
                out.append(ipaddress.IPv4Interface(f"{m.group(1)}/{m.group(2)}"))
            elif m.group(3):
                out.append(ipaddress.IPv4Interface(f"{m.group(1)}/{m.group(3)}"))
        except ValueError:
            continue
    return out


_DEFAULT_ROUTE = re.compile(r"^(?:ip route (?:vrf \S+ )?0\.0\.0\.0 0\.0\.0\.0|ip route 0\.0\.0\.0/0|0\.0\.0\.0/0) (\S+)"
                            r"(?: (\d+\.\d+\.\d+\.\d+))?")


def _default_routes(cfg: ParsedConfig) -> list[tuple[str, Line]]:
    """Next hops (addresses or interface names) of IPv4 default routes, on IOS, NX-OS and IOS-XR syntax."""
    out: list[tuple[str, Line]] = []
    for ln in cfg.lines:
        if not ln.text.startswith(("ip route ", "0.0.0.0/0 ")):  # three patterns tried on every line were a tenth
            continue  # of assessing an upload
        m = _DEFAULT_ROUTE.match(ln.text)
        if m:
            out.append((m.group(1), ln))
            if m.group(2):
                out.append((m.group(2), ln))
    return out


_INTERNAL = [ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
                                                "127.0.0.0/8")]


def _internal(address: ipaddress.IPv4Address) -> bool:
    """RFC 1918, link-local or loopback: an organisation's own space (documentation and CGN ranges are not)."""
    return any(address in n for n in _INTERNAL)


def networks_of(block: Line) -> list[ipaddress.IPv4Interface]:
    """The IPv4 addresses (with their subnets) an interface block configures."""
    return _networks(block)


def _default_route_out(block: Line, nets: list[ipaddress.IPv4Interface],
                       defaults: list[tuple[str, Line]]) -> tuple[str, Line, ipaddress.IPv4Address | None] | None:
    """The default route that leaves by this interface — named by it, or its next hop on its subnet — as (next hop,
    its line, the hop's address or None for an interface name)."""
    name = block.text.split(None, 1)[1].lower() if " " in block.text else ""
    for hop, line in defaults:
        try:
            hop_ip = ipaddress.IPv4Address(hop)
        except ValueError:
            if hop.lower() == name:
                return hop, line, None
            continue
        if any(hop_ip in n.network for n in nets):
            return hop, line, hop_ip
    return None


def external_peers(cfg: ParsedConfig) -> list[tuple[ipaddress.IPv4Network, str]]:
    """The eBGP neighbours as networks (an address is a /32, a 'bgp listen range' its prefix) with their AS."""
    out: list[tuple[ipaddress.IPv4Network, str]] = []
    for n in bgp_view(cfg).external:
        try:
            out.append((ipaddress.IPv4Network(n.address, strict=False), n.remote_as or "?"))
        except ValueError:
            continue
    return out


def faces_external_peer(cfg: ParsedConfig, block: Line) -> bool:
    """An eBGP neighbour (or a listen range) is on the interface's subnet."""
    nets = [n.network for n in _networks(block)]
    return any(peers.overlaps(net) for peers, _ in external_peers(cfg) for net in nets)


def carries_default_route(cfg: ParsedConfig, block: Line) -> bool:
    """The interface is where the device's IPv4 default route leaves (or its address and default route come from
    DHCP). Strict uRPF on it drops every packet from an address the device reaches only by that route."""
    defaults = _default_routes(cfg)
    if _default_route_out(block, _networks(block), defaults):
        return True
    return not defaults and any(c.text.lower() in ("ip address dhcp", "ip address negotiated") for c in block.children)


def _edge_reason(block: Line, cfg: ParsedConfig, external: list[tuple[ipaddress.IPv4Network, str]],
                 defaults: list[tuple[str, Line]]) -> str:
    texts = [c.text for c in block.children]
    lower = [t.lower() for t in texts]
    nets = _networks(block)
    for peers, asn in external:
        if any(peers.overlaps(n.network) and not (peers.num_addresses == 1 and peers.network_address == n.ip)
               for n in nets):
            who = peers.network_address if peers.num_addresses == 1 else f"range {peers}"
            return f"eBGP neighbour {who} (AS {asn}) is on its subnet"
    if "ip nat outside" in lower:
        return "ip nat outside"
    for t in texts:
        m = re.match(r"^(?:zone-member security|vrf forwarding|ip vrf forwarding|vrf member|vrf) (\S+)$", t)
        if m and _edge_name(m.group(1)):
            return f"'{t}'"
        m = re.match(r"^(?:ip access-group|access-group|ipv4 access-group) (\S+) (?:in|ingress)$", t)
        if m and _edge_name(m.group(1)):
            return f"inbound ACL {m.group(1)}"
    name = block.text.split(None, 1)[1] if " " in block.text else ""
    out = _default_route_out(block, nets, defaults)
    if out is not None:
        hop, line, hop_ip = out
        if hop_ip is None:
            return f"default route out of it (line {line.number})"
        # a default route to a private next hop on a private subnet leads inside: the site's own firewall, a
        # management gateway — an edge needs a public peer or address
        if not (_internal(hop_ip) and all(_internal(n.ip) for n in nets)):
            return f"default route via {hop} (line {line.number})"
    if cfg.platform == "asa" and "security-level 0" in lower:
        return "ASA security-level 0"
    if _DIAL.search(block.text):
        return f"{name.rstrip('0123456789/')} interface (PPP, PPPoE or mobile link to a provider)"
    if "ip address negotiated" in lower:
        return "address negotiated by PPP (a provider link)"
    if "ip address dhcp" in lower and not any(hop for hop, _ in defaults):
        return "address and default route from DHCP (no static default route)"
    description = " ".join(t for t in texts if t.startswith(("description", "nameif")))
    if any(w in _EDGE_WORDS for w in _words(description.split(None, 1)[1] if " " in description else "")):
        public = [n for n in nets if not any(n.ip in p for p in _PRIVATE)]
        if public or cfg.platform == "asa":  # an ASA nameif 'outside' is the firewall's own word for its edge
            return f"'{description}'" + (f" on public address {public[0].ip}" if public else "")
    return ""


def _subinterfaces(cfg: ParsedConfig) -> dict[str, list[str]]:
    """'interface ethernet1/1' -> ['Ethernet1/1.100', …]: the parents whose sub-interfaces carry the configuration."""
    if "subinterfaces" not in cfg.cache:
        parents: dict[str, list[str]] = {}
        for ln in cfg.top:
            m = re.match(r"^interface (\S+)\.\d+$", ln.text, re.I)
            if m:
                parents.setdefault(f"interface {m.group(1)}".lower(), []).append(ln.text.split(None, 1)[1])
        cfg.cache["subinterfaces"] = parents
    found: dict[str, list[str]] = cfg.cache["subinterfaces"]
    return found


def _is_switch(cfg: ParsedConfig) -> bool:
    return cfg.platform == "nx-os" or any(ln.text.startswith("switchport") for ln in cfg.lines)


def _port(block: Line, cfg: ParsedConfig) -> tuple[InterfaceRole, str]:
    """The port type, before any edge judgement."""
    texts = [c.text.lower() for c in block.children]
    if _VIRTUAL.search(block.text):
        return "virtual", "logical interface"
    if _MGMT.search(block.text) or any(re.match(r"^(?:ip )?vrf (?:forwarding|member) mgmt", t) for t in texts):
        return "management", "management port"
    if "shutdown" in texts:
        return "unused", "shutdown"
    if cfg.platform == "nx-os" and "no switchport" in texts and "no shutdown" not in texts:
        return "unused", "routed NX-OS port without 'no shutdown' (shut by default)"
    member = next((t for t in texts if t.startswith(("channel-group ", "bundle id "))), None)
    if member:
        return "member", f"member ('{member}')"
    if _SVI.search(block.text) and not _networks(block):
        return "virtual", "VLAN interface without an address"
    if "switchport mode trunk" in texts:
        return "trunk", "switchport mode trunk"
    if "switchport mode fex-fabric" in texts:
        return "trunk", "switchport mode fex-fabric (link to a fabric extender)"
    if "switchport mode access" in texts or any(t.startswith("switchport access vlan") for t in texts):
        return "access", "switchport access"
    if _DIAL.search(block.text) and (_networks(block) or any(t.startswith(("ip address", "ipv6 address"))
                                                              for t in texts)):
        return "routed", "dial-up interface with an address"
    children = _subinterfaces(cfg).get(block.text.lower(), [])
    if children and not _networks(block) and not any(t.startswith("switchport") for t in texts):
        return "unconfigured", f"parent of sub-interface{'s' if len(children) > 1 else ''} {', '.join(children[:3])}" \
                               " (they carry the configuration)"
    if _networks(block) or any(t.startswith(("ip address", "ipv4 address", "ip unnumbered", "ipv4 unnumbered"))
                               and t != "no ip address" for t in texts) or cfg.platform == "asa" and any(
            t.startswith("nameif ") for t in texts):
        kind = "routed port-channel" if _CHANNEL.search(block.text) else "address configured"
        return "routed", kind
    if "switchport" in texts or (cfg.platform == "nx-os" and "no switchport" not in texts and texts):
        return "access", "switchport (mode not set)"
    if _is_switch(cfg) and "no switchport" not in texts and "no ip address" not in texts:
        return "unconfigured", "switchport left at its defaults (nothing configured)"
    return "unconfigured", "no address and no switchport configuration"


def interfaces_of(cfg: ParsedConfig, overrides: dict[str, str] | None = None) -> list[Interface]:
    """Every interface with its role and the reason for it; ``overrides`` (interface name → role) win."""
    external = external_peers(cfg)
    defaults = _default_routes(cfg)
    lowered = {k.lower(): v for k, v in (overrides or {}).items()}
    out = []
    for block in cfg.top:
        if not block.text.lower().startswith("interface "):
            continue
        iface_name = block.text.split(None, 1)[1] if " " in block.text else ""
        forced = lowered.get(iface_name.lower())
        if forced in ROLES:
            out.append(Interface(block, forced, "set in the interface-roles file"))  # type: ignore[arg-type]
            continue
        role, reason = _port(block, cfg)
        if role == "routed":
            edge = _edge_reason(block, cfg, external, defaults)
            if edge:
                role, reason = "edge", edge
        out.append(Interface(block, role, reason))
    return out
