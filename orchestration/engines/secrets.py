"""Device secrets masked before a configuration or its evidence is stored: passwords, secrets, SNMP communities
and keys, pre-shared keys, TACACS+/RADIUS keys, routing-protocol and FHRP keys, key-chain strings.

Masking is line-preserving (line numbers in evidence stay right) and keeps what the rules judge: the command and
its encryption type stay, only the value becomes a marker naming its kind (``<password type 0 masked>``), so a
finding still says that a clear-text password exists and on which line. The rules run on the original text in
memory; nothing but the masked text is written anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Masker = Callable[[re.Match[str]], str]


def _marker(kind: str, kind_type: str | None = None) -> str:
    return f"<{kind} type {kind_type} masked>" if kind_type else f"<{kind} masked>"


def _typed(kind: str) -> Masker:
    """'… password 7 0822455D0A16' → '… password 7 <password type 7 masked>' (the type stays for the rules)."""
    return lambda m: f"{m.group('head')}{m.group('type') or ''}{_marker(kind, (m.group('type') or '').strip() or None)}"


def _plain(kind: str) -> Masker:
    return lambda m: f"{m.group('head')}{_marker(kind)}"


_T = r"(?P<type>[0-9]{1,2} )?"  # an optional encryption type before the value
_V = r"(?P<value>\"[^\"]*\"|\S+)"
# (pattern, masker) in order; each pattern names the kept prefix 'head' and the secret 'value'
_RULES: list[tuple[re.Pattern[str], Masker]] = [
    (re.compile(rf"(?P<head>\benable (?:password|secret)(?: level \d+)? ){_T}{_V}"), _typed("password")),
    (re.compile(rf"(?P<head>\b(?:username|user) \S+ (?:.*? )?(?:password|secret) ){_T}{_V}"), _typed("password")),
    (re.compile(rf"(?P<head>^\s*(?:password|secret)(?: encrypted| clear)? ){_T}{_V}"), _typed("password")),
    (re.compile(rf"(?P<head>\bpasswd ){_V}"), _plain("password")),
    (re.compile(rf"(?P<head>\bneighbor \S+ password ){_T}{_V}"), _typed("BGP password")),
    (re.compile(rf"(?P<head>\bsnmp-server community ){_V}"), _plain("community")),
    (re.compile(r"(?P<head>\bsnmp-server host \S+ (?:(?:traps|informs) )?(?:version (?:1|2c) )?)(?P<value>(?!version\b)\S+)"),
     _plain("community")),
    (re.compile(rf"(?P<head>\bsnmp-server user \S+ .*?\bauth (?:md5|sha\S*) ){_V}"), _plain("SNMP auth key")),
    (re.compile(rf"(?P<head>\bsnmp-server user \S+ .*?\bpriv (?:(?:aes|des|3des)(?: \d+|-\d+)? )?){_V}"),
     _plain("SNMP privacy key")),
    (re.compile(rf"(?P<head>\b(?:tacacs-server|radius-server)(?: host \S+)?.*?\bkey ){_T}{_V}"), _typed("server key")),
    (re.compile(rf"(?P<head>\bkey-string ){_T}{_V}"), _typed("key")),
    (re.compile(rf"(?P<head>\bntp authentication-key \d+ \S+ ){_V}"), _plain("NTP key")),
    (re.compile(rf"(?P<head>\b(?:message-digest-key \d+ md5|(?<!ntp )authentication-key) ){_T}{_V}"), _typed("key")),
    (re.compile(rf"(?P<head>\bip authentication key-string ){_V}"), _plain("key")),
    (re.compile(r"(?P<head>\bstandby \d+ authentication (?:text )?)(?P<value>(?!md5\b)\S+)$"), _plain("key")),
    (re.compile(rf"(?P<head>\bauthentication (?:mode )?(?:hmac-sha-256|text) ){_T}{_V}"), _typed("key")),
    (re.compile(rf"(?P<head>\bcrypto isakmp key ){_T}{_V}"), _typed("pre-shared key")),
    (re.compile(rf"(?P<head>\bpre-shared-key (?:local |remote )?(?:address \S+ (?:\S+ )?key )?){_T}{_V}"),
     _typed("pre-shared key")),
    (re.compile(rf"(?P<head>\bikev[12] (?:local|remote)-authentication pre-shared-key ){_V}"), _plain("pre-shared key")),
    (re.compile(rf"(?P<head>\bwpa-psk ascii ){_T}{_V}"), _typed("pre-shared key")),
    (re.compile(rf"(?P<head>\bppp (?:chap|pap) (?:password|sent-username \S+ password) ){_T}{_V}"), _typed("password")),
]
# 'key 7 …' under a TACACS+/RADIUS server block (a key chain's 'key 1' is an id, not a secret)
_SERVER_BLOCK = re.compile(r"^(?:tacacs server|radius server|aaa-server \S+ .*host|tacacs-server host|radius-server host)")
_BLOCK_KEY = re.compile(rf"(?P<head>^\s+(?:key|server-private \S+ key) ){_T}{_V}")


def mask_line(line: str, parent: str = "") -> str:
    """One configuration line with its secrets replaced; ``parent`` is the top-level line it sits under."""
    for pattern, masker in _RULES:
        line = pattern.sub(masker, line)
    if parent and _SERVER_BLOCK.match(parent):
        line = _BLOCK_KEY.sub(_typed("server key"), line)
    return line


def mask_config(text: str) -> str:
    """The whole configuration, line for line, with every secret masked."""
    out = []
    parent = ""
    for raw in text.split("\n"):
        if raw and not raw[0].isspace():
            parent = raw.strip()
        out.append(mask_line(raw, parent if raw[:1].isspace() else ""))
    return "\n".join(out)


def mask_evidence(evidence: str, masked_lines: list[str]) -> str:
    """Evidence lines ('12:  text') rewritten from the masked configuration's line of the same number."""
    def repl(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return f"{m.group(1)}: {m.group(2)}{masked_lines[n - 1].strip()}" if 0 < n <= len(masked_lines) else m.group(0)

    return "\n".join(mask_line(ln) if not re.match(r"\d+: ", ln) else re.sub(r"^(\d+): (\s*)(.*)$", repl, ln)
                     for ln in evidence.split("\n"))
