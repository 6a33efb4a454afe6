"""Deterministic demo enterprise network: sites, devices, hygiene drift across assessment runs, events.

Everything is derived from a seed, so the same seed and size always give the same network. The
story the data tells (documented in docs/DATA.md): data centers improve run over run, stores drift
worse, a few scripted changes give the newest run fresh critical findings (an emergency change on
RTR-CORE-1 re-enabled SNMP 'public' and the HTTP server) — the kind of mix an engineer meets on a
Monday morning.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from assessment_engine.warehouse.config_templates import DeviceSpec

ASSESSMENT_DATES = ["2026-08-03", "2026-09-07", "2026-10-05", "2026-11-02"]

# control -> difficulty (p_good = base ** difficulty): easy controls are usually right, hard ones often not.
CONTROLS: dict[str, float] = {
    "aaa": 0.4, "aaa_login": 0.6, "aaa_enable": 1.0, "aaa_no_none": 0.5, "aaa_accounting": 1.2, "enable_secret": 0.4,
    "user_hash": 0.8, "spe": 0.5, "vty_ssh": 0.7, "vty_acl": 1.0, "exec_timeout": 0.8, "aux_off": 1.2,
    "ssh_v2": 0.4, "ssh_limits": 1.3, "no_http": 0.9, "banner": 0.6, "archive": 1.5, "snmp_no_public": 0.3,
    "snmp_no_rw": 0.4, "snmp_acl": 1.0, "snmp_v3": 2.2, "snmp_traps": 0.8, "log_host": 0.5, "log_buffered": 0.6,
    "timestamps": 0.5, "log_source": 1.2, "ntp_server": 0.3, "ntp_auth": 2.4, "no_pad": 0.9, "no_small_servers": 0.2,
    "no_finger": 0.3, "no_bootp": 1.0, "no_service_config": 0.3, "no_vstack": 1.0, "keepalive": 1.2,
    "no_source_route": 0.9, "copp": 2.0, "ospf_auth": 1.4, "bgp_auth": 1.1, "bgp_filter": 1.3, "hsrp_auth": 1.6,
    "if_no_redirects": 1.5, "if_no_directed_bcast": 0.3, "if_no_proxy_arp": 1.3, "urpf": 2.2, "cdp_off_edge": 1.4,
    "bpduguard": 0.9, "trunk_noneg": 1.6, "dhcp_snooping": 1.3, "vtp_transparent": 0.8, "nx_no_telnet": 0.5,
    "nx_pwd_strength": 0.6, "asa_no_telnet": 0.6, "asa_ssh_v2": 0.5, "asa_mgmt_restricted": 0.4, "asa_tls12": 1.1,
    "asa_aaa": 0.7, "asa_logging": 0.3,
}
SITE_HYGIENE = {"datacenter": 0.9, "hq": 0.86, "campus": 0.8, "branch": 0.74, "store": 0.64, "lab": 0.5}
# per-run probability that a bad control is fixed / a good one breaks, by site type
DRIFT = {"datacenter": (0.30, 0.01), "hq": (0.22, 0.015), "campus": (0.15, 0.02), "branch": (0.12, 0.025),
         "store": (0.05, 0.04), "lab": (0.05, 0.05)}
# scripted changes: (hostname, run index, control, good?)
SCRIPTED = [
    ("RTR-CORE-1", 3, "snmp_no_public", False), ("RTR-CORE-1", 3, "no_http", False),
    ("RTR-CORE-1", 1, "enable_secret", False), ("RTR-CORE-1", 3, "ntp_auth", False),
    ("FW-EDGE-2", 2, "asa_mgmt_restricted", False), ("FW-EDGE-1", 2, "asa_tls12", True),
]

VERSIONS = {
    "ios-xe": [("17.9.4", 4), ("17.6.5", 4), ("17.3.4a", 2), ("16.12.4", 2), ("16.9.4", 1)],
    "nx-os": [("10.2(5)", 3), ("9.3(10)", 3), ("9.3(8)", 2)],
    "asa": [("9.18(3)", 3), ("9.16(4)", 3), ("9.12(4)", 2), ("9.8(4)", 1)],
}


@dataclass(frozen=True)
class Site:
    name: str
    site_type: str
    tier: str
    region: str
    pci_scope: bool
    environment: str = "production"


@dataclass(frozen=True)
class DemoDevice:
    spec: DeviceSpec
    versions: tuple[str, ...]  # OS version per assessment run
    present: tuple[bool, ...]  # in inventory at each run


def _rng(*parts: object) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big"))


# (role, device_type, product_family, model, platform, name template, count)
LAYOUTS: dict[str, list[tuple[str, str, str, str, str, str, int]]] = {
    "datacenter": [
        ("core", "router", "ASR 1000", "ASR1001-HX", "ios-xe", "RTR-{c}CORE-{n}", 2),
        ("edge", "firewall", "ASA 5500-X", "ASA5555", "asa", "FW-{c}EDGE-{n}", 2),
        ("spine", "switch", "Nexus 9000", "N9K-C9364C", "nx-os", "NX-{c}SPINE-{n}", 2),
        ("leaf", "switch", "Nexus 9000", "N9K-C93180YC-FX", "nx-os", "NX-{c}LEAF-{n}", 6),
        ("management", "switch", "Catalyst 9300", "C9300-48T", "ios-xe", "SW-{c}MGMT-{n}", 1),
    ],
    "hq": [
        ("edge", "router", "Catalyst 8300", "C8300-1N1S-6T", "ios-xe", "RTR-{c}EDGE-{n}", 2),
        ("edge", "firewall", "Firepower 2100 (ASA)", "FPR2130", "asa", "FW-{c}{n}", 2),
        ("distribution", "switch", "Catalyst 9500", "C9500-24Y4C", "ios-xe", "SW-{c}CORE-{n}", 2),
        ("access", "switch", "Catalyst 9300", "C9300-48P", "ios-xe", "SW-{c}ACC-{n}", 8),
        ("wlc", "wireless_controller", "Catalyst 9800", "C9800-40", "ios-xe", "WLC-{c}{n}", 1),
    ],
    "campus": [
        ("wan", "router", "ISR 4000", "ISR4451-X", "ios-xe", "RTR-{c}{n}", 1),
        ("distribution", "switch", "Catalyst 9500", "C9500-16X", "ios-xe", "SW-{c}CORE-{n}", 1),
        ("access", "switch", "Catalyst 9200", "C9200-48P", "ios-xe", "SW-{c}ACC-{n}", 4),
        ("wlc", "wireless_controller", "Catalyst 9800", "C9800-L", "ios-xe", "WLC-{c}{n}", 1),
    ],
    "branch": [
        ("wan", "router", "ISR 4000", "ISR4331", "ios-xe", "RTR-{c}{n}", 1),
        ("access", "switch", "Catalyst 9200", "C9200-24P", "ios-xe", "SW-{c}ACC-{n}", 2),
    ],
    "store": [
        ("wan", "router", "ISR 1100", "C1111-8P", "ios-xe", "RTR-{c}{n}", 1),
        ("edge", "firewall", "ASA 5500-X", "ASA5506", "asa", "FW-{c}{n}", 1),
        ("access", "switch", "Catalyst 9200", "C9200-24P", "ios-xe", "SW-{c}{n}", 1),
    ],
    "lab": [
        ("wan", "router", "ISR 4000", "ISR4331", "ios-xe", "RTR-{c}{n}", 1),
        ("access", "switch", "Catalyst 9300", "C9300-24T", "ios-xe", "SW-{c}{n}", 2),
        ("leaf", "switch", "Nexus 9000", "N9K-C93180YC-FX", "nx-os", "NX-{c}{n}", 1),
        ("edge", "firewall", "ASA 5500-X", "ASA5516", "asa", "FW-{c}{n}", 1),
    ],
}
CORE_SITES = [
    Site("DataCenter-1", "datacenter", "tier1", "us-east", False),
    Site("DataCenter-2", "datacenter", "tier1", "us-west", False),
    Site("HQ", "hq", "tier1", "us-east", False),
    Site("Site-A", "campus", "tier2", "us-east", False),
    Site("Site-B", "campus", "tier2", "us-central", False),
    Site("Lab-1", "lab", "tier3", "us-east", False, "lab"),
]


def _site_code(site: Site) -> str:
    if site.name == "DataCenter-1":
        return ""  # the flagship data center keeps the short names: RTR-CORE-1, FW-EDGE-2
    number = "".join(ch for ch in site.name if ch.isdigit())
    return {"datacenter": f"DC{number}-", "hq": "HQ-", "campus": f"{site.name.replace('-', '').upper()}-",
            "branch": f"BR{number}-", "store": f"ST{number}-", "lab": f"LAB{number}-"}[site.site_type]


def sites_for(size: int) -> list[Site]:
    """Core sites, then branches and stores interleaved until the network reaches ``size`` devices."""
    sites = list(CORE_SITES)
    total = sum(sum(c[-1] for c in LAYOUTS[s.site_type]) for s in sites)
    branch, store = 1, 45
    store_numbers = list(range(45, 53)) + list(range(30, 45)) + list(range(53, 100000))
    regions = ["us-east", "us-central", "us-west"]
    i = 0
    while total < size:
        if i % 3 == 0:
            site = Site(f"Branch-{branch:02d}", "branch", "tier2", regions[branch % 3], False)
            branch += 1
        else:
            store = store_numbers.pop(0)
            site = Site(f"Store-{store:02d}", "store", "tier3", regions[store % 3], True)
        sites.append(site)
        total += sum(c[-1] for c in LAYOUTS[site.site_type])
        i += 1
    return sites


def _criticality(site: Site, role: str, device_type: str) -> str:
    if site.site_type == "lab":
        return "low"
    if site.tier == "tier1" and role in ("core", "edge", "spine", "distribution"):
        return "critical"
    if site.tier == "tier1" or role in ("wan", "edge") or (site.pci_scope and device_type == "firewall"):
        return "high"
    return "medium"


def devices_for(sites: list[Site], seed: int, runs: int) -> Iterator[DemoDevice]:
    for site_index, site in enumerate(sites):
        code = _site_code(site)
        for role, dtype, family, model, platform, template, count in LAYOUTS[site.site_type]:
            for n in range(1, count + 1):
                hostname = template.format(c=code, n=n)
                rng = _rng(seed, hostname)
                env = site.environment
                if site.site_type == "datacenter" and site.name != "DataCenter-1" and role == "leaf" and n > 4:
                    env = "staging"
                spec = DeviceSpec(hostname, site.name, site.site_type, env, dtype, role, family, model, platform,
                                  _criticality(site, role, dtype),
                                  f"10.250.{site_index % 250}.{10 + n + 20 * (role == 'access')}", site_index)
                choices, weights = zip(*VERSIONS[platform], strict=True)
                if site.site_type == "store" and platform == "asa":  # legacy POS firewalls (approved exception)
                    choices, weights = ("9.8(4)", "9.12(4)"), (3, 1)
                version = rng.choices(choices, weights)[0]
                versions = []
                for run in range(runs):
                    if run and rng.random() < 0.12:  # an upgrade between runs
                        version = rng.choices(choices, weights)[0]
                    versions.append(version)
                present = [True] * runs
                roll = rng.random()
                if roll < 0.03 and runs > 1:  # added in a later run
                    start = 1 + int(rng.random() * (runs - 1))
                    present = [r >= start for r in range(runs)]
                elif roll < 0.05 and runs > 1:  # decommissioned before the last run
                    end = int(rng.random() * (runs - 1))
                    present = [r <= end for r in range(runs)]
                if hostname in {h for h, *_ in SCRIPTED}:
                    present = [True] * runs
                yield DemoDevice(spec, tuple(versions), tuple(present))


def hygiene_runs(device: DemoDevice, seed: int, runs: int) -> list[dict[str, bool]]:
    """Control state per run: an initial draw, then per-run fixes and regressions, then scripted changes."""
    spec = device.spec
    rng = _rng(seed, spec.hostname, "hygiene")
    base = SITE_HYGIENE[spec.site_type] + (0.04 if spec.criticality == "critical" else 0.0)
    state = {c: rng.random() < min(base, 0.97) ** difficulty for c, difficulty in CONTROLS.items()}
    p_fix, p_break = DRIFT[spec.site_type]
    out = []
    for run in range(runs):
        if run:
            state = {c: (rng.random() < p_fix) if not good else (rng.random() >= p_break) for c, good in state.items()}
        for host, at, control, good in SCRIPTED:
            if host == spec.hostname and run >= at:
                state[control] = good
        out.append(dict(state))
    return out


def assessment_ids(runs: int) -> list[tuple[str, datetime]]:
    dates = ASSESSMENT_DATES[-runs:] if runs <= len(ASSESSMENT_DATES) else [
        (datetime(2026, 11, 2) - timedelta(days=28 * (runs - 1 - i))).strftime("%Y-%m-%d") for i in range(runs)]
    return [(f"ASMT-{d}", datetime.fromisoformat(d) + timedelta(hours=2)) for d in dates]


EVENT_TEMPLATES = [
    (5, "SYS-5-CONFIG_I", "Configured from console by netops on vty0 (10.250.10.40)"),
    (3, "LINK-3-UPDOWN", "Interface GigabitEthernet1/0/{p}, changed state to down"),
    (5, "LINEPROTO-5-UPDOWN", "Line protocol on Interface GigabitEthernet1/0/{p}, changed state to up"),
    (6, "SEC_LOGIN-5-LOGIN_SUCCESS", "Login Success [user: netops] [Source: 10.250.10.40] [localport: 22]"),
]


def events_for(device: DemoDevice, hygiene: dict[str, bool], seed: int, end: datetime,
               days: int = 30) -> Iterator[tuple[datetime, int, str, str]]:
    """Syslog-like events over the ``days`` before ``end``: routine noise plus conditions that SLIC
    signatures look for (login failures where management is exposed, adjacency flaps, memory and
    power failures)."""
    spec = device.spec
    rng = _rng(seed, spec.hostname, "events", end.isoformat())
    start = end - timedelta(days=days)

    def at() -> datetime:
        return start + timedelta(seconds=rng.randint(0, days * 86400))

    for _ in range(rng.randint(6, 16)):
        sev, mnemonic, text = rng.choice(EVENT_TEMPLATES)
        yield at(), sev, mnemonic, text.format(p=rng.randint(1, 12))
    exposed = not hygiene.get("vty_ssh", True) or not hygiene.get("asa_mgmt_restricted", True) or not hygiene.get(
        "vty_acl", True)
    if exposed and rng.random() < 0.5:
        burst = at()
        for i in range(rng.randint(20, 60)):
            yield (burst + timedelta(seconds=7 * i), 4, "SEC_LOGIN-4-LOGIN_FAILED",
                   f"Login failed [user: admin] [Source: 185.220.{rng.randint(0, 255)}.{rng.randint(1, 254)}] "
                   "[localport: 23] [Reason: Login Authentication Failed]")
    if spec.device_type == "router" and rng.random() < 0.12:
        for _ in range(rng.randint(5, 12)):
            yield (at(), 5, "OSPF-5-ADJCHG",
                   f"Process 1, Nbr 10.255.{spec.site_index % 250}.{rng.randint(1, 254)} on GigabitEthernet0/0/1 "
                   "from FULL to DOWN, Neighbor Down: Dead timer expired")
    version = device.versions[-1]
    if version.startswith("16.") and rng.random() < 0.4:
        yield (at(), 2, "SYS-2-MALLOCFAIL",
               "Memory allocation of 65536 bytes failed from 0x7F3A2C10, alignment 0 Pool: Processor Free: 41232")
    if rng.random() < 0.02:
        yield at(), 1, "PLATFORM_ENV-1-PWR", "Power supply 2 has failed or been removed"

