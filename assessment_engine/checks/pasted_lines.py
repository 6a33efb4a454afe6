"""Configuration lines pasted into a question ("is this ok: snmp-server community public RO"), judged by the checks
that look at one line: a line a rule forbids fails it, a line a rule requires meets it. The catalog's own patterns
decide what a configuration line is, so a sentence that merely names a feature is not taken for one.

A line on its own is not a configuration: checks that need the rest of it (an ACL the line names, the blocks around
it, a custom check) are not judged here, and the answer says so. The text is the chat's masked prompt, so a secret
typed in the line is already a marker.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from assessment_engine.checks.rule_engine import Rule, compiled_pattern, shown_pattern

# where a pasted command may start inside a sentence: after a colon, a question mark, a quote or a backtick
_PASTE_START = re.compile(r"[:?`\"'>]\s*")
_CLOSING = "`\"'"
# or typed between the question's words: "is ip http server ok?", "would snmp-server community public RO be fine"
_JUDGED = re.compile(r"^(?:is|are|would|does|do)\s+(?:this\s+|the\s+(?:line\s+)?)?(?P<line>.+?)(?:\s+line)?\s+(?:be\s+)?(?:ok|okay|fine|"
                     r"bad|good|secure|safe|insecure|risky|right|correct|allowed|compliant|acceptable)\b", re.IGNORECASE)
# one line's checks: a line the rule forbids or requires, at the top level, in a block, or on an interface
_FORBIDS = {"forbid", "block_forbid", "iface_forbid"}
_REQUIRES = {"require", "block_require", "iface_require"}
# the prose around a pasted line that asks about the fleet instead ("do any of my devices have `ip http server`")
# "for a store router", "on this switch": the device the line is meant for, not the fleet's devices
_ONE_DEVICE = re.compile(r"\b(?:a|an|one|this|that|my|our new)\s+(?:[\w-]+\s+){0,2}?(?:devices?|routers?|"
                         r"switch(?:es)?|firewalls?|asas?)\b", re.IGNORECASE)
_ABOUT_THE_FLEET = re.compile(r"\b(?:which|how many|any of|devices?|routers?|switch(?:es)?|firewalls?|asas?|sites?|fleet|"
                              r"where|inventory|assessment|run)\b", re.IGNORECASE)


@dataclass(frozen=True)
class LineVerdict:
    line: str  # as pasted (the runtime masks it before it is kept or shown)
    rule: Rule
    fails: bool  # the rule forbids the line, or requires what its "no" takes away; else the line meets the rule
    under: str = ""  # the block or interface the rule looks for the line in ("line vty", "interface")


def _variants(source: str | dict[str, str] | None) -> list[str]:
    return list(dict.fromkeys(source.values())) if isinstance(source, dict) else [source] if source else []


def _line_patterns(rule: Rule) -> list[tuple[str, bool, str]]:
    """(pattern, forbids, where) of a rule that judges single lines; none for the other kinds."""
    check = rule.check
    kind = check.kind
    if kind not in _FORBIDS | _REQUIRES:
        return []
    if kind.startswith("block"):
        where = shown_pattern(_variants(check.parent)[0]) if check.parent else ""
        offending = [(check.offending, True, where)] if check.offending else []
        return [(p, kind in _FORBIDS, where) for p in _variants(check.child)] + offending
    if kind.startswith("iface"):
        where = f"{check.role} interface" if check.role else "interface"
        return [(p, kind in _FORBIDS, where) for p in _variants(check.child or check.pattern)]
    return [(p, kind in _FORBIDS, "") for p in _variants(check.pattern)]


def candidate_lines(text: str) -> list[str]:
    """What may be configuration in a message: each line of its own, and each line's rest after a colon, a question
    mark, a quote or a backtick (closing quotes taken off), or between "is" and "ok"."""
    out: list[str] = []
    for line in text.split("\n"):
        pieces = [line] + [line[m.end():] for m in _PASTE_START.finditer(line)]
        if judged := _JUDGED.match(line.strip()):
            pieces.append(judged.group("line"))
        for piece in pieces:
            piece = piece.split("`")[0] if piece.count("`") else piece
            piece = piece.strip().rstrip(_CLOSING).strip()
            if piece and piece not in out:
                out.append(piece)
    return out


def judge_lines(text: str, rules: Iterable[Rule]) -> list[LineVerdict]:
    """The rules that judge a line pasted into ``text``, each with the line: forbidden lines first. Empty when no
    line of it is one a check looks at, or when the prose around the lines asks about the fleet."""
    candidates = candidate_lines(text)
    verdicts: list[LineVerdict] = []
    for rule in rules:
        for pattern, forbids, where in _line_patterns(rule):
            rx = compiled_pattern(pattern)
            line = next((c for c in candidates if rx.match(c)), None)
            if line is not None:
                verdicts.append(LineVerdict(line, rule, forbids, where))
                break
            # "no service password-encryption" takes away what a rule requires; "no ip http server" what it forbids
            negated = next((c for c in candidates if c.lower().startswith("no ") and rx.match(c[3:])), None)
            if negated is not None:
                verdicts.append(LineVerdict(negated, rule, not forbids, where))
                break
    if not verdicts:
        return []
    # a block rule whose block was pasted too ("line vty 0 4" above the line) judges it; the others do not
    pasted_blocks = {v.rule.id for v in verdicts if v.under and v.rule.check.parent and any(
        compiled_pattern(p).match(c) for p in _variants(v.rule.check.parent) for c in candidates)}
    if pasted_blocks:
        verdicts = [v for v in verdicts if not v.under or v.rule.id in pasted_blocks or not v.rule.check.parent]
    prose = text
    for v in verdicts:
        prose = prose.replace(v.line, " ")
    if _ABOUT_THE_FLEET.search(_ONE_DEVICE.sub(" ", prose)):
        return []
    return sorted(verdicts, key=lambda v: (not v.fails, v.line))
