"""Names the user typed — sites, devices, assessment ids, platforms, software versions — found whether or
not they exist, then resolved against the inventory (DESIGN §4, §10: a scope is never widened silently).

Finding: known names through a token index (normalised keys, longest run of words first; the cost does
not grow with the inventory); site patterns ("dc1", "branch 5", "stores 45-52"); and name-shaped text
nobody knows yet — hostnames (hyphenated, ending in a number), "Word-NN" site names, names after "at" /
"in" / "site", assessment ids, platform words and version strings.

Resolving (rapidfuzz): an exact name is used as it is; one clear fuzzy match *with the same numbers* is
used and reported (``corrected``: the answer says how the name was read); several close matches are
``ambiguous`` and none ``unknown`` — both stop the turn with a question that lists the closest names.
A different number is never a typo: "Store-44" is not "Store-45". With no inventory loaded (no
warehouse yet) nothing can be checked, and pattern names pass through unresolved, as typed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz, process

from foundation.vocabulary.scope import TRAIN_SUFFIX
from orchestration.state import EntityType, NameResolution

_I = re.IGNORECASE
CLEAR_SCORE = 75.0  # rapidfuzz ratio (0-100) at which a same-number candidate counts as the name meant
MARGIN = 6.0  # a second same-number candidate this close makes the reading ambiguous
CANDIDATE_CUTOFF = 60.0
MAX_CANDIDATES = 5
MAX_STORE_RANGE = 60

COMPOUND = re.compile(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")
# Bounded by anything but a word character or hyphen, so that "HQ" inside "SW-HQ-ACC-9" is no site.
SITE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\w-])(?:hq|headquarters|head office)(?![\w-])", _I), "HQ"),
    (re.compile(r"(?<![\w-])data[\s-]?cent(?:er|re)[\s-]?(\d{1,2})(?![\w-])", _I), "DataCenter-{n}"),
    (re.compile(r"(?<![\w-])dc[\s-]?(\d{1,2})(?![\w-])", _I), "DataCenter-{n}"),
    (re.compile(r"(?<![\w-])branch[\s-]?(?:office[\s-]?)?(\d{1,3})(?![\w-])", _I), "Branch-{n:02d}"),
    (re.compile(r"(?<![\w-])site[\s-]([a-hj-z])(?![\w-])|(?<![\w-])site-(i)(?![\w-])", _I), "Site-{L}"),
]
STORE_RANGE = re.compile(
    r"(?<![\w-])stores?[\s-]?(\d{1,7})\s*(?:-|–|…|\.\.\.?|to|through|thru)\s*(?:stores?[\s-]?)?(\d{1,7})\b", _I)
STORE = re.compile(r"(?<![\w-])stores?[\s-]?(\d{1,3})(?![\w-])", _I)
DEVICE_PREFIXES = (
    "RTR|R|SW|FW|ASA|WLC|AP|NX|N9K|N7K|CORE|EDGE|DIST|ACC|LEAF|SPINE|VPN|GW|CE|PE|BR|DC|WAN|LAN|MGMT|CSR|ISR|ASR|CAT")
DEVICE_SHAPE = re.compile(rf"(?:{DEVICE_PREFIXES})(?:[-_][A-Z0-9]{{1,12}}){{0,3}}[-_]\d{{1,4}}[A-Z]?", _I)
HARDWARE_MODEL = re.compile(r"(?:ISR|ASR|CSR|CAT|N\dK|C)[-_]?\d{3,}\w*", _I)
# letters, a number, letters again: how hostnames are typed run together ("dc1border"); not "snmpv3", "sha256",
# "tier1" or "aes128", which end in their number
RUN_TOGETHER_HOST = re.compile(r"(?<![\w-])([a-z]{2,}\d{1,3}[a-z]{3,}\d{0,3})(?![\w-])", _I)
SITE_SHAPE = re.compile(r"([A-Za-z]{3,})[-_](\d{1,4})")
# identifiers of other kinds that look like names: rules, findings, signatures, CVEs, exceptions, tickets
ID_PREFIXES = frozenset(["cfg", "sec", "slic", "cve", "exc", "ra", "rfc", "inc", "chg", "req", "ticket", "case", "eval", "own", "conv", "ghsa", "psirt", "sa", "cis", "nist", "pci", "aes", "sha", "md", "tls", "ssl", "ipv", "snmpv", "vlan", "top", "p", "tier", "step", "phase", "section", "level", "priority", "group", "area", "type", "vty", "con", "aux", "line", "gi", "te", "po", "fa", "eth", "port", "channel", "loopback", "tunnel", "interface", "asn", "as", "acl", "iso", "fy", "q", "dot", "rule", "check", "finding"])
ASSESSMENT_SHAPE = re.compile(r"(?:asmt|assess(?:ment)?|audit|run|scan)[-_]?\d{1,4}(?:[-_][0-9a-z]{1,8}){0,4}", _I)
ASSESSMENT_BY_NOUN = re.compile(r"\b(?:assessment|audit|run|scan)\s+(?:id\s+)?#?(\d{2,4}(?:-\d{1,4}){1,3})\b", _I)
PLATFORM_WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\w-])ios[- ]?xe(?![\w-])", _I), "ios-xe"),
    (re.compile(r"(?<![\w-])ios[- ]?xr(?![\w-])", _I), "ios-xr"),
    (re.compile(r"(?<![\w-])(?:nx[- ]?os|nexus)(?![\w-])", _I), "nx-os"),
    (re.compile(r"(?<![\w-])asa(?:s)?(?![\w-])", _I), "asa"),
    (re.compile(r"(?<![\w-])junos(?![\w-])", _I), "junos"),
    (re.compile(r"(?<![\w-])(?:arista )?eos(?![\w-])", _I), "eos"),
    (re.compile(r"(?<![\w-])pan[- ]?os(?![\w-])", _I), "pan-os"),
    (re.compile(r"(?<![\w-])fortios(?![\w-])", _I), "fortios"),
    (re.compile(r"(?<![\w-])(?:cisco )?ios(?![\w-])", _I), "ios"),
]
PLATFORM_FAMILY = {"ios": "ios-xe"}  # classic IOS is read as IOS-XE when only IOS-XE is in the inventory
VERSION = re.compile(r"(?<![\w.(])(\d{1,2}\.\d{1,2}(?:\.\d{1,3}[a-z]?|\(\d{1,3}[a-z]?\)))(?![\w.])", _I)
# a whole train, as engineers write it: "15.x", "17.9.x", "16.*", "version 15", "ios-xe 17 train"
VERSION_WILD = re.compile(r"(?<![\w.(])(\d{1,2}(?:\.\d{1,2})?)\.[x*](?![\w.])|\b(?:version|release|train|code|"
                          r"ios(?:[- ]?x[er])?|nx[- ]?os|asa)\s+(\d{1,2})(?:\s+train)?(?![\w.(])", _I)
PROTOCOL_BEFORE = re.compile(r"\b(?:ssh|snmp|ntp|tls|ssl|http|https|ip|bgp|ospf|netflow|ipfix|vtp|rip|igmp|mld)\s*$",
                             _I)
NO_RELEASE = "the inventory runs no "  # how a train no device runs is resolved (its answer: interpretation.empty_scope)
VERSION_TRAIN = re.compile(r"\b(?:version|release|running|train|on|ios(?:[- ]?x[er])?|nx[- ]?os|asa|junos|eos)\s+"
                           r"(\d{1,2}\.\d{1,2})(?![\w.(])", _I)
# "the data center", "the branch": one site of a family the inventory has several of (or exactly one)
# ... as the whole noun phrase: "the store firewalls" are the stores' firewalls, not one store
SITE_FAMILY = re.compile(r"(?<![\w-])(?:at|in|of|for|on)\s+(?:the|that|this)\s+(data[\s-]?cent(?:er|re)|branch(?:\s+office)?|"
                         r"store)(?=\s*(?:$|[?.,;:!)]|\s(?:since|in|for|from|with|and|or|is|are|has|have|had|was|were|"
                         r"last|this|today|compared|versus|vs)\b))", _I)
FAMILY_LIMIT = 12
LOCATIVE = re.compile(r"(?<![\w-])(?:at|in|site)\s+(?:the\s+)?([A-Z][a-z]{3,}[A-Za-z]*)(?![\w-])")
# "the paris office": a place named by its town; not "the campus site", "the core site" (kinds of site, roles)
PLACE_NOUN = re.compile(r"(?<![\w-])(?:at|in)\s+(?:the\s+|our\s+)?([a-z][a-z]{2,})\s+(?:office|plant|facility|"
                        r"warehouse)s?\b", _I)
LOCATIVE_STOP = frozenset(["other", "same", "each", "every", "one", "branch", "store", "data", "lab", "detail", "general", "particular", "total", "summary", "short", "brief", "order", "case", "addition", "future", "practice", "place", "time", "terms", "production", "staging", "development", "cisco", "juniper", "arista", "fortinet", "palo", "nexus", "catalyst", "meraki", "english", "markdown", "json", "table", "chart", "charts", "excel", "which", "what", "where", "when", "there", "this", "that", "these", "those", "here", "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december", "sept"])


def key(name: str) -> str:
    """The form names are compared in: lower case, letters and digits only ("Branch 05" = "branch-05")."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _numbers(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


@dataclass(frozen=True)
class Gazetteer:
    """Known names from the inventory, each table keyed by ``key(name)``; ``aliases`` are a user's remembered
    corrections (key of the wrong name -> (entity type, right name))."""

    sites: dict[str, str] = field(default_factory=dict)
    devices: dict[str, str] = field(default_factory=dict)
    assessments: dict[str, str] = field(default_factory=dict)
    platforms: dict[str, str] = field(default_factory=dict)
    os_versions: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, tuple[str, str]] = field(default_factory=dict)
    rule_ids: frozenset[str] = frozenset()  # the rule catalog's ids: they look like names ("SSH-V2") and are not
    # values of the inventory's open dimensions as stored ("product_family": "Catalyst 9200", "model": "C9200L-48P")
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, sites: Iterable[str] = (), devices: Iterable[str] = (), assessments: Iterable[str] = (),
           platforms: Iterable[str] = (), os_versions: Iterable[str] = (),
           aliases: Iterable[tuple[str, str, str]] = (), values: dict[str, Iterable[str]] | None = None) -> Gazetteer:
        """From plain names; ``aliases`` as (entity type, wrong, right)."""
        return cls(sites={key(s): s for s in sites}, devices={key(d): d for d in devices},
                   assessments={key(a): a for a in assessments}, platforms={key(p): p for p in platforms},
                   os_versions={_version_key(v): v for v in os_versions},
                   aliases={key(wrong): (etype, right) for etype, wrong, right in aliases},
                   values={dim: tuple(sorted(set(v))) for dim, v in (values or {}).items()})

    def with_aliases(self, aliases: Iterable[tuple[str, str, str]]) -> Gazetteer:
        merged = dict(self.aliases)
        merged.update({key(wrong): (etype, right) for etype, wrong, right in aliases if key(wrong)})
        return dataclasses.replace(self, aliases=merged)

    def with_assessments(self, assessments: Iterable[str]) -> Gazetteer:
        """The same names plus more assessment ids (a user's own uploads)."""
        merged = {**self.assessments, **{key(a): a for a in assessments}}
        return dataclasses.replace(self, assessments=merged)

    def with_devices(self, names: Iterable[tuple[str, str]]) -> Gazetteer:
        """The same names plus more devices as (name, device id) — an upload's hostnames; a name the table holds
        already keeps its device (the fleet's RTR-1 is not an upload's RTR-1)."""
        merged = {**{key(name): device for name, device in names}, **self.devices}
        return dataclasses.replace(self, devices=merged)

    def pool(self, etype: str) -> dict[str, str]:
        return {"site": self.sites, "device": self.devices, "assessment_id": self.assessments,
                "platform": self.platforms, "os_version": self.os_versions}.get(etype, {})


@dataclass
class Reading:
    """What ``find_names`` read: resolutions in text order and the character spans they cover."""

    resolutions: list[NameResolution] = field(default_factory=list)
    unchecked: list[tuple[str, str]] = field(default_factory=list)  # (type, value) with no inventory to check
    spans: list[tuple[int, int]] = field(default_factory=list)  # names: blanked out for the other entities
    word_spans: list[tuple[int, int]] = field(default_factory=list)  # platform/version words: "ASA" is a firewall too

    def taken(self, start: int, end: int) -> bool:
        return any(a < end and start < b for a, b in self.spans + self.word_spans)

    def add(self, span: tuple[int, int], resolution: NameResolution | None = None,
            unchecked: tuple[str, str] | None = None) -> None:
        kind = resolution.entity_type if resolution is not None else (unchecked[0] if unchecked else "")
        (self.word_spans if kind in ("platform", "os_version") else self.spans).append(span)
        if resolution is not None and not any(
                r.mention.lower() == resolution.mention.lower() and r.entity_type == resolution.entity_type
                for r in self.resolutions):
            self.resolutions.append(resolution)
        if unchecked is not None and unchecked not in self.unchecked:
            self.unchecked.append(unchecked)


def _remembered(etype: str, mention: str, right: str) -> NameResolution:
    return NameResolution(entity_type=etype, mention=mention, status="corrected", value=right,  # type: ignore[arg-type]
                          candidates=[right], score=100.0, reason="as you told me earlier")


def _exact(etype: str, mention: str, value: str) -> NameResolution:
    return NameResolution(entity_type=etype, mention=mention, status="exact", value=value, score=100.0)  # type: ignore[arg-type]


def _fuzzy(mention: str, etypes: tuple[str, ...], gaz: Gazetteer) -> NameResolution:
    """Read an unknown name against the pools of the given entity types (best type wins)."""
    k, numbers = key(mention), _numbers(mention)
    scored: list[tuple[float, str, str]] = []
    for etype in etypes:
        pool = gaz.pool(etype)
        if not pool:
            continue
        for cand, score, _ in process.extract(k, list(pool), scorer=fuzz.ratio, limit=8, score_cutoff=CANDIDATE_CUTOFF):
            scored.append((float(score), etype, pool[cand]))
    scored.sort(key=lambda s: -s[0])
    same = [s for s in scored if _numbers(s[2]) == numbers]
    etype = (same or scored)[0][1] if scored else etypes[0]
    ranked = same + [s for s in scored if s not in same]
    candidates = list(dict.fromkeys(s[2] for s in ranked if s[1] == etype))[:MAX_CANDIDATES]
    if same and same[0][0] >= CLEAR_SCORE and (len(same) == 1 or same[0][0] - same[1][0] >= MARGIN):
        best = same[0]
        return NameResolution(entity_type=best[1], mention=mention, status="corrected", value=best[2],  # type: ignore[arg-type]
                              candidates=candidates, score=round(best[0], 1),
                              reason=f"the {best[1].replace('_', ' ')} in the inventory closest to what you typed")
    close = [s for s in same if s[0] >= CLEAR_SCORE]
    status = "ambiguous" if len(close) >= 2 else "unknown"
    return NameResolution(entity_type=etype, mention=mention, status=status, candidates=candidates,  # type: ignore[arg-type]
                          score=round(scored[0][0], 1) if scored else 0.0)


def _resolve(etype: str, mention: str, canonical: str, gaz: Gazetteer, reading: Reading,
             span: tuple[int, int], fuzzy_types: tuple[str, ...] | None = None) -> None:
    pool = gaz.pool(etype)
    alias = gaz.aliases.get(key(mention)) or gaz.aliases.get(key(canonical))
    if key(canonical) in pool:  # the inventory first: a remembered alias never hides a real name
        reading.add(span, _exact(etype, mention, pool[key(canonical)]))
    elif alias and alias[0] == etype:
        reading.add(span, _remembered(etype, mention, alias[1]))
    elif not any(gaz.pool(t) for t in (fuzzy_types or (etype,))):
        reading.add(span, unchecked=(etype, canonical))
    else:
        reading.add(span, _fuzzy(mention, fuzzy_types or (etype,), gaz))


def _fill(template: str, m: re.Match[str]) -> str:
    g = next((x for x in m.groups() if x), "")
    return template.format(n=int(g)) if "{n" in template else template.format(L=g.upper())


def _known_names(text: str, gaz: Gazetteer, reading: Reading) -> None:
    """Inventory names and remembered aliases, longest run of words first (e.g. "branch 05", "RTR-CORE-1")."""
    comps = [(m.start(), m.end(), m.group()) for m in COMPOUND.finditer(text)]
    used: set[int] = set()
    tables = (("device", gaz.devices), ("site", gaz.sites), ("assessment_id", gaz.assessments))
    for n in (3, 2, 1):
        for i in range(len(comps) - n + 1):
            run = comps[i:i + n]
            if used & set(range(i, i + n)) or any(b[0] - a[1] > 2 or text[a[1]:b[0]].strip()
                                                   for a, b in zip(run, run[1:], strict=False)):
                continue
            k = key("".join(c[2] for c in run))
            span, mention = (run[0][0], run[-1][1]), text[run[0][0]:run[-1][1]]
            hit = next(((etype, table[k]) for etype, table in tables if k in table), None)
            if hit:
                reading.add(span, _exact(hit[0], mention, hit[1]))
            elif k in gaz.aliases:  # a name this user corrected before ("sorry, I meant Site-A")
                etype, right = gaz.aliases[k]
                reading.add(span, _remembered(etype, mention, right))
            else:
                continue
            used.update(range(i, i + n))


def _store_ranges(text: str, gaz: Gazetteer, reading: Reading) -> None:
    """"Stores 45-52" means every store of the range; members the inventory lacks are left out, and said so."""
    for m in STORE_RANGE.finditer(text):
        if reading.taken(*m.span()):
            continue
        lo, hi = sorted((int(m.group(1)), int(m.group(2))))
        if hi - lo >= MAX_STORE_RANGE:  # asked about, never cut to its first store or widened to every site
            reading.add(m.span(), NameResolution(
                entity_type="site", mention=m.group(0), status="unknown", reason=(
                    f"'{m.group(0)}' spans {hi - lo + 1:,} stores; I answer about at most {MAX_STORE_RANGE} named "
                    "sites at a time. Which stores do you mean (for example Store-45 to Store-52), or all stores?")))
            continue
        names = [f"Store-{n:02d}" for n in range(lo, hi + 1)]
        known = [gaz.sites[key(s)] for s in names if key(s) in gaz.sites]
        if not gaz.sites:
            for s in names:
                reading.add(m.span(), unchecked=("site", s))
        elif not known:  # none of the range exists: ask, as for any unknown name
            reading.add(m.span(), NameResolution(entity_type="site", mention=m.group(0), status="unknown",
                                                 candidates=_fuzzy(names[0], ("site",), gaz).candidates))
        else:
            for s in names:
                res = _exact("site", s, gaz.sites[key(s)]) if key(s) in gaz.sites else NameResolution(
                    entity_type="site", mention=s, status="dropped")
                reading.add(m.span(), res)


def _site_patterns(text: str, gaz: Gazetteer, reading: Reading) -> None:
    for m in STORE.finditer(text):
        if not reading.taken(*m.span()):
            _resolve("site", m.group(0), f"Store-{int(m.group(1)):02d}", gaz, reading, m.span())
    for pattern, template in SITE_PATTERNS:
        for m in pattern.finditer(text):
            if not reading.taken(*m.span()):
                _resolve("site", m.group(0), _fill(template, m), gaz, reading, m.span())


def _is_other_id(name: str, rule_ids: frozenset[str]) -> bool:
    first = re.split(r"[-_]", name, maxsplit=1)[0].lower()
    return (name.upper() in rule_ids or first in ID_PREFIXES or bool(HARDWARE_MODEL.fullmatch(name))
            or any(p.fullmatch(name) for p, _ in PLATFORM_WORDS))


def _device_shaped(name: str) -> bool:
    if re.fullmatch(r"DC[-_]?\d+", name, _I):  # "DC-1" is a site alias, not a host
        return False
    parts = re.split(r"[-_]", name)
    generic = (len(parts) >= 3 and parts[0].isalpha() and bool(re.search(r"\d", parts[-1]))
               and any(re.search(r"[A-Za-z]", p) for p in parts[1:-1]))
    return bool(DEVICE_SHAPE.fullmatch(name)) or generic


def _unknown_shapes(text: str, gaz: Gazetteer, reading: Reading, rule_ids: frozenset[str]) -> None:
    """Name-shaped text that matched nothing known: hostnames, "Word-NN" sites, assessment ids."""
    for m in ASSESSMENT_BY_NOUN.finditer(text):
        if not reading.taken(*m.span(1)):
            _resolve("assessment_id", m.group(1), m.group(1), gaz, reading, m.span(1))
    for m in COMPOUND.finditer(text):
        name, span = m.group(0), m.span()
        if reading.taken(*span) or "-" not in name and "_" not in name:
            continue
        if ASSESSMENT_SHAPE.fullmatch(name):
            _resolve("assessment_id", name, name.upper(), gaz, reading, span)
        elif _is_other_id(name, rule_ids):
            continue
        elif _device_shaped(name):  # the shape decides the pool: a hostname is never read as a site
            _resolve("device", name, name.upper(), gaz, reading, span)
        elif (sm := SITE_SHAPE.fullmatch(name)) and sm.group(1).lower() not in ID_PREFIXES:
            _resolve("site", name, name, gaz, reading, span)
    for m in RUN_TOGETHER_HOST.finditer(text):  # "dc1border", "br08rtr": a hostname typed without separators
        if not reading.taken(*m.span(1)):
            _resolve("device", m.group(1), m.group(1).upper(), gaz, reading, m.span(1))


def _locative_names(text: str, gaz: Gazetteer, reading: Reading, vocabulary: frozenset[str]) -> None:
    """A capitalised word after "at" / "in" / "site", or any word between them and "office", that is no known word:
    a site name, maybe misspelled ("the paris office" is never the whole fleet)."""
    for m in [*LOCATIVE.finditer(text), *PLACE_NOUN.finditer(text)]:
        word = m.group(1)
        if reading.taken(*m.span(1)) or word.lower() in vocabulary or word.lower() in LOCATIVE_STOP:
            continue
        if gaz.sites:
            _resolve("site", word, word, gaz, reading, m.span(1))


def _site_families(text: str, gaz: Gazetteer, reading: Reading) -> None:
    """"The data center" when there are two: ask which; "the lab" when there is one: that one, said."""
    for m in SITE_FAMILY.finditer(text):
        if reading.taken(*m.span(1)) or not gaz.sites:
            continue
        family = re.sub(r"office$", "", key(m.group(1)).replace("centre", "center"))
        members = sorted(v for k, v in gaz.sites.items() if re.sub(r"\d+", "", k) == family)
        if len(members) == 1:
            reading.add(m.span(1), NameResolution(entity_type="site", mention=m.group(1), status="corrected",
                                                  value=members[0], candidates=members, score=90.0,
                                                  reason=f"the only {m.group(1).lower()} site in the inventory"))
        elif members:
            reading.add(m.span(1), NameResolution(entity_type="site", mention=f"the {m.group(1)}", status="ambiguous",
                                                  candidates=members[:FAMILY_LIMIT]))


def _version_key(version: str) -> str:
    return re.sub(r"\b0+(\d)", r"\1", version.lower().replace("(", ".").replace(")", ""))


def _platforms_and_versions(text: str, gaz: Gazetteer, reading: Reading) -> None:
    for pattern, canonical in PLATFORM_WORDS:
        for m in pattern.finditer(text):
            if reading.taken(*m.span()):
                continue
            if not gaz.platforms:
                reading.add(m.span(), unchecked=("platform", canonical))
            elif canonical in gaz.platforms.values():
                reading.add(m.span(), _exact("platform", m.group(0), canonical))
            elif PLATFORM_FAMILY.get(canonical) in gaz.platforms.values():
                reading.add(m.span(), NameResolution(entity_type="platform", mention=m.group(0), status="corrected",
                                                     value=PLATFORM_FAMILY[canonical], score=90.0,
                                                     reason="the IOS family in the inventory runs IOS-XE"))
            else:
                reading.add(m.span(), NameResolution(entity_type="platform", mention=m.group(0), status="unknown",
                                                     candidates=sorted(gaz.platforms.values())))
    for m in VERSION_WILD.finditer(text):
        group = 1 if m.group(1) else 2
        if group == 2 and PROTOCOL_BEFORE.search(text[:m.start()]):
            continue  # "ssh version 2", "snmp version 3": a protocol's version, a feature the checks judge
        if not reading.taken(*m.span(group)):
            _whole_train(m.group(0), m.group(group), m.span(), gaz, reading)
    for m in VERSION.finditer(text):
        if not reading.taken(*m.span(1)):
            _version(m.group(1), m.span(1), gaz, reading, train=False)
    for m in VERSION_TRAIN.finditer(text):
        if not reading.taken(*m.span(1)):
            _version(m.group(1), m.span(1), gaz, reading, train=True)


def _whole_train(mention: str, train: str, span: tuple[int, int], gaz: Gazetteer, reading: Reading) -> None:
    """"15.x": every release of the train, as one filter value ("15.x") — also when the inventory runs none of them
    (the answer is then "none", not a question back)."""
    value = train + TRAIN_SUFFIX
    releases = sorted(v for vk, v in gaz.os_versions.items() if vk.startswith(_version_key(train) + "."))
    # the train's releases; without any, every release the inventory runs (what the answer names instead)
    reading.add(span, NameResolution(entity_type="os_version", mention=mention, status="exact", value=value,
                                     candidates=releases or sorted(gaz.os_versions.values(), key=_numbers),
                                     score=100.0,
                                     reason=f"every {train} release in the inventory: {', '.join(releases)}"
                                     if releases else f"{NO_RELEASE}{train} release"))


def _version(mention: str, span: tuple[int, int], gaz: Gazetteer, reading: Reading, train: bool) -> None:
    pool = gaz.os_versions
    if not pool:
        reading.add(span, unchecked=("os_version", mention))
        return
    k = _version_key(mention)
    if k in pool:
        reading.add(span, _exact("os_version", mention, pool[k]))
        return
    in_train = sorted(v for vk, v in pool.items() if train and vk.startswith(k + "."))
    if len(in_train) == 1:
        reading.add(span, NameResolution(entity_type="os_version", mention=mention, status="corrected",
                                         value=in_train[0], candidates=in_train, score=90.0,
                                         reason=f"the only {mention} release in the inventory"))
        return
    major = _numbers(mention)[0]  # the closest trains first: 15.2 -> 16.x before 9.x
    near = sorted(pool.values(), key=lambda v: (abs(_numbers(v)[0] - major), -fuzz.ratio(k, _version_key(v))))[:MAX_CANDIDATES]
    reading.add(span, NameResolution(entity_type="os_version", mention=mention,
                                     status="ambiguous" if len(in_train) > 1 else "unknown",
                                     candidates=in_train or near))


def find_names(text: str, gaz: Gazetteer, rule_ids: frozenset[str] = frozenset(),
               vocabulary: frozenset[str] = frozenset()) -> Reading:
    """Every name-like mention of the text and how it reads against the inventory, in a stable order."""
    reading = Reading()
    _store_ranges(text, gaz, reading)
    _known_names(text, gaz, reading)
    _site_patterns(text, gaz, reading)
    _platforms_and_versions(text, gaz, reading)
    _unknown_shapes(text, gaz, reading, rule_ids)
    _site_families(text, gaz, reading)
    _locative_names(text, gaz, reading, vocabulary)
    return reading


def entity_type_label(etype: EntityType | str) -> str:
    return {"os_version": "software version", "assessment_id": "assessment", "platform": "platform"}.get(etype, etype)
