"""Device secrets masked before a configuration or its evidence is stored, for Cisco IOS/IOS-XE, NX-OS, IOS-XR, ASA,
Arista EOS and (for attachments) Junos: passwords and secrets, SNMP communities and user keys, TACACS+/RADIUS/LDAP
keys, key chains and the master key, routing-protocol keys (OSPF, OSPFv3 IPsec, EIGRP, IS-IS, BGP, LDP), FHRP keys,
IKE and failover pre-shared keys, NTP keys, FTP/HTTP client passwords, wireless PSKs, PPP and NHRP secrets.

Masking is line-preserving (line numbers in evidence stay right) and keeps what the rules judge: the command and
its encryption type stay, only the value becomes a marker naming its kind (``<password type 0 masked>``), so a
finding still says that a clear-text password exists and on which line. The rules run on the original text in
memory; nothing but the masked text is written anywhere. ``docs/SECURITY.md`` lists every syntax below, and
``tests/integration/test_secrets_audit.py`` plants one value per syntax and searches every store for it.

Each rule names the secret ``value`` (and a second one, ``value2``, where a line holds two keys) and the encryption
``type`` before it where the syntax has one; a rule with a ``context`` applies only under a block whose header
matches it (``key 7 …`` is a secret under ``tacacs server X`` and an id under ``key chain X``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_V = r"(?P<value>\"[^\"]*\"|\S+)"
_V2 = r"(?P<value2>\"[^\"]*\"|\S+)"
# A value IOS reads to the end of the line (``LINE``: ``enable secret 0 two words``), up to the options other systems
# write after it (NX-OS ``role``, ASA ``encrypted``/``privilege``, a server's ``timeout``/``port``)
_AFTER = (r"role|privilege|encrypted|pbkdf2|nt-encrypted|level|timeout|port|auth-port|acct-port|single-connection|"
          r"vrf|use-vrf|key-id")
_VL = rf"(?P<value>\"[^\"]*\"|\S+(?: (?!(?:{_AFTER})\b)\S+)*)"
_NUM = r"(?P<type>\d{1,2} )?"  # an encryption type before the value: 0, 5, 6, 7, 8, 9, 10 …
_WORD = r"(?P<type>(?:\d{1,2}|encrypted|clear|sha512|hex|ascii|unencrypted|hidden) )?"  # also XR, EOS and ASA forms
_ALG = r"(?:md5|sha\S*|hmac-\S+|cmac-\S+|aes-\S+|des\S*|3des|text)"


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    context: re.Pattern[str] | None = None
    certain: bool = False  # the value is a secret even in a sentence (a URL's password, a Junos "$9$…")


def _r(kind: str, pattern: str, context: str | None = None, certain: bool = False) -> Rule:
    return Rule(kind, re.compile(pattern, re.I), re.compile(context, re.I) if context else None, certain)


RULES: list[Rule] = [
    # passwords and secrets of the device and its users
    _r("password", rf"\benable (?:algorithm-type \S+ )?(?:password|secret)(?: level \d+)? {_WORD}{_VL}"),
    _r("password", rf"\b(?:username|user) \S+ (?:.*? )?(?:password|secret) {_WORD}{_VL}"),
    _r("password", rf"^\s*(?:password|secret)(?: (?:encrypted|clear|hidden))? (?!inheritance-disable$|strength-check$){_WORD}{_VL}"),
    _r("password", rf"\bpasswd {_V}"),
    _r("password", rf"\baaa root secret {_WORD}{_V}"),
    _r("password", rf"\bencrypted-password {_V}"),
    _r("password", rf"\b(?:ip ftp|ip http client|vpdn username \S+) password {_NUM}{_V}"),
    _r("password", rf"\bppp (?:chap|pap) (?:password|sent-username \S+ password) {_NUM}{_V}"),
    _r("password", rf"\bl2tp tunnel password {_NUM}{_V}"),
    _r("password", rf"\bbind authenticated root-dn (?:\"[^\"]*\"|\S+) password {_NUM}{_V}"),
    _r("password", rf"\bldap-server host \S+ .*?\bpassword {_NUM}{_V}"),
    _r("password", rf"^\s*ldap-login-password {_V}"),
    _r("password", rf"\bradius-common-pw {_V}"),
    _r("password", rf"\bvtp password {_V}"),
    _r("password", rf"\bdatabase archive (?:pkcs12|pem) password {_NUM}{_V}"),  # crypto pki server
    _r("password", rf"\bcts sxp default password {_NUM}{_V}"),
    _r("password", r"://[^\s/@:\"]+:(?P<value>[^\s@\"]+)@", certain=True),  # credentials in a URL: archive path, boot, call-home
    _r("PIN", rf"\bcrypto pki token \S+ user-pin {_NUM}{_V}"),
    _r("secret", rf"^\s*digest secret {_NUM}{_V}"),  # l2tp-class
    _r("master key", rf"\bkey config-key (?:password-encrypt|\d+) {_V}"),
    # SNMP (hosts: ``_snmp_host_values``)
    _r("community", rf"\bsnmp-server community (?:(?P<type>clear |encrypted |[08] (?=\S)))?{_V}"),  # ASA: 0 and 8
    _r("community", rf"\bsnmp-server community-map {_V}"),
    _r("community", rf"\bsnmp (?:mib )?community-map {_V}"),
    _r("community", rf"(?:^\s*|\bset snmp )community {_V}(?= \{{| authorization|$)"),
    _r("SNMP auth key", rf"\bsnmp-server user \S+ .*?\bauth {_ALG} {_WORD}{_V}"),
    _r("SNMP privacy key", rf"\bsnmp-server user \S+ .*?\bpriv (?:(?:aes|des|3des|des56|aes-\d+)(?: \d+)? )?{_WORD}{_V}"),
    # AAA servers
    _r("server key", rf"\b(?:tacacs-server|radius-server)(?: host \S+)?.*?\bkey {_NUM}{_VL}"),
    _r("server key", rf"^\s*(?:key|pac key) {_NUM}{_V}",
       context=r"^(?:tacacs server|radius server|aaa-server \S+ .*host|tacacs-server host|radius-server host|"
               r"aaa group server|\s*server-private)"),
    _r("server key", rf"\bserver-private \S+ .*?\bkey {_NUM}{_V}"),
    _r("server key", rf"\bserver-key {_NUM}{_V}"),
    _r("server key", rf"^\s*client \S+ (?:vrf \S+ )?key {_NUM}{_V}", context=r"^aaa server radius"),
    # ASA's one-line form: ``aaa-server TAG [(if)] host ADDRESS [key] [timeout N]`` — the key is the word itself
    _r("server key", r"\baaa-server \S+ (?:\(\S+\) )?host \S+ (?P<value>(?!timeout\b|key\b)\S+)"),
    # key chains and routing protocols
    _r("key", rf"\bkey-string (?:(?P<type>(?:\d{{1,2}} |password \d{{1,2}} |password |clear |encrypted |7 )))?{_VL}"),
    _r("NTP key", rf"\bauthentication-key \d+ {_ALG} {_WORD}{_V}"),
    _r("key", rf"\bmessage-digest-key \d+ md5 {_WORD}{_V}"),
    _r("key", rf"\b(?:ip |ipv6 )?(?:ospf )?authentication-key (?!\d+ {_ALG} |\d+ type ){_WORD}{_V}"),
    _r("key", rf"\b(?:ipv6 ospf|ospfv3) authentication ipsec spi \d+ (?:md5|sha1) {_NUM}{_V}"),
    _r("key", rf"\b(?:ipv6 ospf|ospfv3) encryption ipsec spi \d+ esp \S+(?: \d+)? {_NUM}{_V} (?:md5|sha1) (?:\d )?{_V2}"),
    _r("key", rf"\b(?:ipv6 ospf|ospfv3) (?:encryption|authentication) ipsec spi \d+ esp null (?:md5|sha1) (?:\d )?{_V}"),
    _r("key", rf"\bauthentication key eigrp \d+ {_V}"),
    _r("key", rf"\b(?:isis password|area-password|domain-password) {_V}"),
    _r("key", rf"\b(?:lsp|hello)-password (?:hmac-md5|text) {_WORD}{_V}"),
    _r("key", rf"^\s*authentication key {_NUM}{_V}", context=r"^router isis"),
    _r("key", rf"\bisis authentication key {_NUM}{_V}"),  # EOS, per interface
    _r("key", rf"\bauthentication mode hmac-sha-256 {_NUM}{_V}"),  # EIGRP named mode
    _r("key", rf"\b(?:ip )?rsvp authentication key {_NUM}{_V}"),
    _r("key", rf"\bip msdp (?:vrf \S+ )?password (?:peer )?\S+ {_NUM}{_V}"),
    _r("key", rf"\bbfd authentication \S+ key-id \d+ (?:hex-key|key) {_V}"),
    _r("BGP password", rf"\bneighbor \S+ password {_WORD}{_V}"),
    _r("LDP password", rf"\bmpls ldp (?:neighbor \S+ password|password fallback) {_NUM}{_V}"),
    _r("LDP password", rf"^\s*neighbor (?:\S+ )?password {_WORD}{_V}", context=r"^mpls ldp"),
    # first-hop redundancy
    _r("key", rf"\b(?:standby|vrrp|glbp) \d+ (?:peer )?authentication (?:md5 |ietf-md5 )?key-string {_NUM}{_V}"),
    _r("key", r"\b(?:standby|vrrp|glbp) \d+ authentication (?:text )?(?P<value>\"[^\"]*\"|(?!md5\b|key-string\b|text\b)\S+)$"),
    _r("key", rf"\bvrrp \d+ peer authentication text {_V}"),
    _r("key", r"^\s*authentication (?:text )?(?P<value>\"[^\"]*\"|(?!md5\b|key-chain\b|text\b)\S+)$",
       context=r"^\s*(?:hsrp|vrrp)"),
    _r("key", rf"\btext-authentication {_NUM}{_V}"),  # IOS-XR VRRP
    # IKE, IPsec, failover, NHRP
    _r("pre-shared key", rf"\b(?:crypto )?isakmp key {_NUM}{_V}"),
    _r("pre-shared key", rf"^\s*(?:key|group \S+ key) {_NUM}{_V}",
       context=r"^crypto (?:isakmp client configuration group|ipsec client ezvpn)"),  # Easy VPN group keys
    _r("pre-shared key", rf"\bpre-shared-key (?!ascii-text |hexadecimal |key-chain )(?:local |remote )?(?:address \S+ (?:\S+ )?key |"
                         rf"hostname \S+ key )?{_NUM}{_V}"),
    _r("pre-shared key", rf"\bikev[12] (?:(?:local|remote)-authentication )?pre-shared-key {_NUM}{_V}"),
    _r("pre-shared key", rf"\bauthentication (?:local|remote) pre-share key {_NUM}{_V}"),
    _r("pre-shared key", rf"\bpre-shared-key (?:ascii-text|hexadecimal) {_V}"),
    _r("failover key", rf"\bfailover key (?:hex )?{_V}"),
    _r("NHRP key", rf"\bip nhrp authentication {_V}"),
    # wireless
    _r("pre-shared key", rf"\bwpa-psk (?:ascii|hex) {_NUM}{_V}"),
    _r("pre-shared key", rf"\bpsk set-key (?:ascii|hex) {_NUM}{_V}"),
    # EEM: an applet's environment variables hold what its scripts log in with (every value: their names are free)
    _r("EEM variable", r"\bevent manager environment \S+ (?P<value>\S.*?)\s*$"),
    # Junos quoted secrets (attachments; the platform is not assessed): a "$9$…" (or crypt "$1$ $5$ $6$") value on a
    # line that names a secret, wherever it stands (NTP's ``value "$9$…"`` comes after the key's number and type)
    _r("secret", r"\b(?:secret|passw\S*|key|authentication\S*|psk|community)\b[^\"]*?(?P<value>\"\$\d+\$[^\"]*\")",
       certain=True),
]

_SNMP_HOST = re.compile(r"\bsnmp-server host (?P<rest>.*)$", re.I)
_ADDRESS = re.compile(r"\d+\.\d+\.\d+\.\d+|[0-9a-f]*:[0-9a-f:]*")
_HOST_OPTIONS = {"traps", "informs", "trap", "inform", "poll"}
_HOST_ARGUMENT = {"vrf", "use-vrf", "udp-port", "source-interface", "filter-vrf", "port"}


def _snmp_host_values(line: str) -> list[tuple[int, int, str]]:
    """The community in an ``snmp-server host`` line of any platform: after ``community`` (ASA), else the first token
    after the address that is not an option (IOS, NX-OS, EOS, IOS-XR); none for SNMPv3 (it names a user)."""
    m = _SNMP_HOST.search(line)
    if not m:
        return []
    tokens = [(t.group(0), m.start("rest") + t.start()) for t in re.finditer(r"\S+", m.group("rest"))]
    words = [t.lower() for t, _ in tokens]
    if "community" in words:
        at = words.index("community") + 1
        if at < len(tokens) and re.fullmatch(r"\d", words[at]) and at + 1 < len(tokens):
            at += 1
        return [(tokens[at][1], tokens[at][1] + len(tokens[at][0]), "")] if at < len(tokens) else []
    i, kind = 1, ""  # tokens[0] is the address
    if len(tokens) > 1 and _ADDRESS.fullmatch(words[1]) and not _ADDRESS.fullmatch(words[0]):
        i = 2  # ASA without 'community': interface name, then address
    while i < len(tokens):
        word = words[i]
        if word in _HOST_OPTIONS:
            i += 1
        elif word in _HOST_ARGUMENT:
            i += 2
        elif word == "version":
            if i + 1 < len(tokens) and words[i + 1] == "3":
                return []
            i += 2
        elif word in ("encrypted", "clear"):
            kind = word
            i += 1
        else:
            return [(tokens[i][1], tokens[i][1] + len(tokens[i][0]), kind)]
    return []


def _marker(kind: str, kind_type: str) -> str:
    return f"<{kind} type {kind_type} masked>" if kind_type else f"<{kind} masked>"


# Every rule above, and an ``snmp-server host`` line, needs one of these words in the line: a line without any of
# them (nine in ten lines of a configuration) holds no secret, and skipping the ~55 patterns for it makes masking
# about 5× faster (tests/integration/test_secrets_audit.py checks that each rule's pattern names one of them).
TRIGGER = re.compile(r"passw|secret|key|community|snmp|ipsec|authentication|psk|user-pin|common-pw|"
                     r"manager environment|aaa-server|://", re.I)
# the same words in lower case, for ASCII text lowered first (offsets unchanged): ``re`` skips ahead on the first
# letters of a case-sensitive pattern, and tries every character of an ignore-case one (7× slower over a config)
_TRIGGER_LOWER = re.compile(TRIGGER.pattern)


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    marker: str
    command: int  # where the command that holds the value starts in the line
    typed: bool  # an encryption type stands before the value ("password 0 …", "secret 5 …")


def _words(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower() for m in TRIGGER.finditer(text))


# the trigger's words each rule's pattern names: a line is tried only against the rules that name a word it has (a
# rule's literal words are in every line it matches; tests/integration/test_secrets_audit.py checks it on every planted syntax)
_RULE_WORDS = [(rule, _words(rule.pattern.pattern)) for rule in RULES]


def _spans(line: str, context: tuple[str, ...]) -> list[_Span]:
    spans: list[_Span] = []
    words = _words(line)
    for rule, needs in _RULE_WORDS:
        if not needs & words:
            continue
        if rule.context is not None and not any(rule.context.search(header) for header in context):
            continue
        for m in rule.pattern.finditer(line):
            kind_type = (m.groupdict().get("type") or "").strip().split(" ")[-1]
            for group in ("value", "value2"):
                if m.groupdict().get(group) is not None and not m.group(group).startswith("<"):
                    spans.append(_Span(m.start(group), m.end(group), _marker(rule.kind, kind_type),
                                       m.start(), bool(kind_type) or rule.certain))
    host = _SNMP_HOST.search(line)
    spans += [_Span(a, b, _marker("community", t), host.start() if host else 0, True)
              for a, b, t in _snmp_host_values(line)]
    return spans


def _masked(line: str, spans: list[_Span]) -> str:
    out, at = [], 0
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        if span.start < at:  # two rules found the same value
            continue
        out += [line[at:span.start], span.marker]
        at = span.end
    return "".join(out) + line[at:]


def mask_line(line: str, context: tuple[str, ...] = ()) -> str:
    """One configuration line with its secrets replaced; ``context``: the headers of the blocks it sits in."""
    if not TRIGGER.search(line):
        return line
    return _masked(line, _spans(line, context))


_QUOTED = re.compile(r"(?:^|[:`\"'>])\s*$")  # what may stand before a command pasted into a sentence


def mask_prompt(text: str) -> str:
    """A question typed in the chat with the secrets it quotes masked. A configuration line pasted into it ("is this
    ok: snmp-server community Zq9Secret RO", a line of its own, or in quotes) is masked as in a configuration; a
    command named in a sentence only where its value is typed ("password 0 …") or looks like a secret (a digit, a
    capital or a sign in it) — "what is the enable password policy" asks about a policy, it quotes no password."""
    if not TRIGGER.search(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if TRIGGER.search(line):
            # a block pasted whole keeps its headers ("tacacs server X" above " key 0 …")
            cut = [replace(s, end=_end_in_sentence(line, s)) for s in _spans(line, _headers_above(lines, i))]
            lines[i] = _masked(line, [s for s in cut if s.typed or _QUOTED.search(line[:s.command])
                                      or _secret_like(line[s.start:s.end])])
    return "\n".join(lines)


def _end_in_sentence(line: str, span: _Span) -> int:
    """Where a value found in a question ends: at the sentence's closing quote (``does "… password cisco" pass?``),
    after its first word unless the line is a configuration line (pasted alone, or after a colon), and before the
    sentence's closing sign."""
    value = line[span.start:span.end]
    if not value.startswith('"'):
        closing = re.search(r"[\"'`]", value)
        value = value[:closing.start()] if closing else value
        if line[:span.command].strip() and not line[:span.command].rstrip().endswith(":"):
            value = value.split(" ", 1)[0]
    return span.start + len(_unquoted(value))


def _unquoted(value: str) -> str:
    return value.rstrip("\"'`.,;:!?)") or value


def _secret_like(value: str) -> bool:
    word = _unquoted(value).lstrip("\"'`")
    return bool(word) and not re.fullmatch(r"[a-z]+(?:-[a-z]+)*", word)


def mask_config(text: str) -> str:
    """The whole configuration, line for line, with every secret masked. Only the lines that name a trigger word are
    looked at, each with the headers of the blocks it sits in (found by walking up to lesser indents)."""
    lines = text.split("\n")
    line_no, at, done = 0, 0, -1
    for m in _TRIGGER_LOWER.finditer(text.lower()) if text.isascii() else TRIGGER.finditer(text):
        line_no += text.count("\n", at, m.start())
        at = m.start()
        if line_no != done:  # a line may name several trigger words
            lines[line_no] = mask_line(lines[line_no], _headers_above(lines, line_no))
            done = line_no
    return "\n".join(lines)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _headers_above(lines: list[str], i: int) -> tuple[str, ...]:
    """The headers of the blocks line ``i`` sits in: each earlier line (not blank, not a comment) less indented than
    the last one found. A blank or comment line sits in every block open above it."""
    stripped = lines[i].strip()
    indent = _indent(lines[i]) if stripped and not stripped.startswith(("!", "#")) else 1 << 30
    headers = []
    for j in range(i - 1, -1, -1):
        if indent == 0:
            break
        above = lines[j].strip()
        if above and not above.startswith(("!", "#")) and _indent(lines[j]) < indent:
            headers.append(above)
            indent = _indent(lines[j])
    return tuple(reversed(headers))


def mask_evidence(evidence: str, masked_lines: list[str]) -> str:
    """Evidence lines ('12:  text') rewritten from the masked configuration's line of the same number."""
    def repl(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return f"{m.group(1)}: {m.group(2)}{masked_lines[n - 1].strip()}" if 0 < n <= len(masked_lines) else m.group(0)

    return "\n".join(mask_line(ln) if not re.match(r"\d+: ", ln) else re.sub(r"^(\d+): (\s*)(.*)$", repl, ln)
                     for ln in evidence.split("\n"))
