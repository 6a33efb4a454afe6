"""Answers to how-to and why questions (skills *_generic) from the organization's standards, plus the
rule catalog's rationale where a rule is about the same thing. Extractive and attributed (issue 29): whole
sentences of the one document that answers best, cited where they stand (``⟦chunk id⟧`` placeholders the Answer
Composer numbers); a second document that also answers is shown apart with its own citation, and amounts they
disagree on ("14 vs 30 days") are named; when no retrieved sentence speaks to the question's own words, "not found
in the knowledge base" — then industry practice from the catalog, stated as such. Configuration lines pasted into
the question ("is this ok: ip http server") are judged first, by the checks that look at one line
(``assessment_engine.checks.pasted_lines``, by the runtime: ``TurnInput.pasted_lines``): Yes or No, each line with
the check it fails or meets and its fix."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assessment_engine.checks.rule_engine import Rule
from foundation.vocabulary.text import HOW_LONG, singular
from orchestration.interpretation.enterprise import applied, sentences
from orchestration.outputs import DomainOutputs, RetrievedChunk
from orchestration.state import PastedLine

_CODE = re.compile(r"```\w*\n(.*?)```", re.S)
_WORD = re.compile(r"[a-z0-9][a-z0-9+.-]{2,}")
NORMATIVE = re.compile(r"\b(?:must|shall|required|requires|never|only|all (?:network )?devices)\b", re.I)
_STOP = frozenset(["the", "and", "for", "our", "what", "how", "why", "should", "with", "does", "are", "this", "that", "from", "into", "when", "which", "best", "practice", "configure", "configuring", "configuration", "according", "company", "standards", "standard", "flagged", "deviation"])


# words that name kinds of devices or of results: a passage that shares only these with the question does not
# answer it
_GENERIC = frozenset(singular(w) for w in ["router", "switch", "switches", "firewall", "device", "network", "cisco",
                                           "edge", "core", "access", "branch", "store", "site", "finding",
                                           "issue", "deviation", "problem"])


# how a question asks for a document, not what it is about ("where is the escalation process written down")
_ASKING = frozenset(["where", "written", "down", "documented", "document", "find", "kept", "described", "describe",
                     "say", "says", "tell", "there", "have", "any", "who", "team"])
_SAME = {"process": "procedure", "processe": "procedure", "workflow": "procedure",  # one word for one thing
         "owns": "own", "owned": "own", "owner": "own", "ownership": "own", "responsible": "own"}


def _terms(text: str) -> set[str]:
    words = (singular(w) for w in _WORD.findall(text.lower()) if w not in _STOP and w not in _ASKING)
    return {_stem(_SAME.get(w, w)) for w in words}


def _stem(word: str) -> str:
    """One form for a verb's forms, on both sides of a match: "upgrade", "upgraded" and "upgrading" are "upgrad",
    "fixing" and "fixed" "fix" (short words are left alone: "used" is not "us")."""
    for end in ("ing", "ed", "e"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[:-len(end)]
    return word


_GENERIC = frozenset(_stem(w) for w in _GENERIC)  # compared with the stems of a question's words


def _catalog_rules(prompt: str, catalog: Sequence[Rule]) -> list[dict[str, Any]]:
    terms = _terms(prompt)
    # a check named by its id ("what is the risk of SNMP-RW?") is the one asked about
    named = [r for r in catalog if re.search(rf"(?<![\w-]){re.escape(r.id)}(?![\w-])", prompt, re.I)]
    scored = [(1, r) for r in named]
    for r in [] if named else catalog:
        shared = terms & (_terms(r.title) | {_stem(r.technology)})
        # one word in common is a match only when it is the rule's technology ("ntp"), not any title word ("guard")
        if len(shared) >= 2 or _stem(r.technology) in shared:
            scored.append((len(shared), r))
    scored.sort(key=lambda x: -x[0])
    best = scored[0][0] if scored else 0
    return [{"rule_id": r.id, "title": r.title, "severity": r.severity, "rationale": r.rationale,
             "remediation": "\n".join(r.default_fix), "refs": r.refs} for n, r in scored if n == best][:3]


def _lower_first(title: str) -> str:
    """'NTP authentication…' stays, 'Telnet is disabled' → 'telnet is disabled' (acronyms keep their case)."""
    return title if title[1:2].isupper() else title[:1].lower() + title[1:]


def _heading(chunk: RetrievedChunk) -> str:
    """The chunk's own heading (the last part of its section path), '' when it is the document title."""
    tail = chunk.metadata.section.split(" › ")[-1].strip()
    return "" if tail in ("", chunk.metadata.title) else tail


# "is 16.12.4 approved?": a release asked about, and the trains a sentence lists as approved ("17.9.x", "9.16.x")
RELEASE = re.compile(r"(?<![\w.])\d{1,2}\.\d{1,2}(?:\.\d{1,2}[a-z]?|\(\d+\)\w*)?(?![\w.])")
TRAIN = re.compile(r"(?<![\w.])(\d{1,2}\.(?:\d{1,2}|x))(?:\.(\d{1,2}|x))?(?![\w])")
APPROVAL_ASKED = re.compile(r"\b(?:approved|allowed|permitted|sanctioned|supported|ok to run|compliant)\b", re.I)
CITE = " ⟦{}⟧"  # a chunk's citation placeholder: the Answer Composer numbers it ([n]) where it stands
CITE_MARK = re.compile(r" ?⟦([^⟧]+)⟧")
_AMOUNT = re.compile(r"\b(\d+)[\s-]*(day|hour|minute|second|week|month|character|year)s?\b", re.I)


def _about(chunk: RetrievedChunk) -> set[str]:
    return _terms(chunk.metadata.section or chunk.metadata.title)


def _scored(chunk: RetrievedChunk, terms: set[str]) -> list[tuple[int, int, str]]:
    """(score, position, sentence) of each quotable sentence that shares words with the question. The section path
    says what a chunk is about even where its sentences word it differently ("SNMP version 3" under "SNMPv3 …"); what
    the standard requires scores above its side notes (orders are never among them)."""
    about = _about(chunk)
    out = []
    for position, sentence in enumerate(sentences(chunk.content)):
        overlap = len((_terms(sentence) | about) & terms)
        if overlap:
            # a question of time ("how long …", a "deadline" in its terms) is answered by a sentence with an amount
            timed = "deadline" in terms and bool(_AMOUNT.search(sentence))
            out.append((overlap + int(bool(NORMATIVE.search(sentence))) + int(timed), position, sentence))
    return out


def _quote(scored: list[tuple[int, int, int, str]], n: int) -> list[str]:
    """The ``n`` best whole sentences, read in document order (rank of their chunk, then position); a sentence two
    points below the best one is left out (it shares a word with the question, not its subject)."""
    top = max((x[0] for x in scored), default=0)
    best = sorted((x for x in scored if x[0] >= top - 1), key=lambda x: (-x[0], x[1], x[2]))[:n]
    picked = [s for _, _, _, s in sorted(best, key=lambda x: (x[1], x[2]))]
    quoted = []
    for s in dict.fromkeys(picked):
        cut = s.rstrip(";, ")  # a list item ends in ";" or "," where the list goes on: the quote ends it itself
        ended = cut.endswith((".", ":")) or (cut.endswith(")") and cut == s)
        quoted.append(cut if ended else cut + ".")
    return quoted


def _amounts(text: str) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for number, unit in _AMOUNT.findall(text):
        found.setdefault(unit.lower(), set()).add(int(number))
    return found


def _disagreement(first: str, second: str) -> str:
    """'14 days' in one document where the other says '30 days' about the same question: the unit and both
    amounts, else ''."""
    a, b = _amounts(first), _amounts(second)
    for unit in sorted(set(a) & set(b)):
        if a[unit] != b[unit]:
            return (f"{' or '.join(str(n) for n in sorted(a[unit]))} vs {' or '.join(str(n) for n in sorted(b[unit]))} "
                    f"{unit}s")
    return ""


LINE_ALONE = ("Each line was judged by the checks that look at that line alone; checks that need the rest of the "
              "configuration (the platform, an ACL it names, the blocks and interfaces around it) were not. Upload the "
              "running configuration for the whole assessment.")


def _pasted(verdicts: Sequence[PastedLine], catalog: Sequence[Rule]) -> str:
    """The verdict on pasted configuration lines: Yes or No first, then each line with its check."""
    by_id = {r.id: r for r in catalog}
    failing = list(dict.fromkeys(v.line for v in verdicts if v.fails))
    # "transport input ssh" alone: what the VTY lines require and what the AUX port forbids — the block decides
    both = [line for line in failing if any(v.line == line and not v.fails for v in verdicts)]
    if both and len(both) == len(failing):
        lead = (f"**It depends on the block** — {'this line is' if len(both) == 1 else 'these lines are'} right in "
                "one block and wrong in another; paste the block header above it (`line vty 0 4`) for one verdict:")
    elif failing:
        lead = (f"**No** — {'this line fails' if len(failing) == 1 else f'{len(failing)} lines fail'} "
                f"{'a check' if len(failing) == 1 else 'checks'} of the catalog:")
    else:
        lead = "**Yes** — as far as the checks that look at one line go:"
    out = [lead, ""]
    for v in verdicts:
        where = f" (under `{v.under}`)" if v.under else ""
        rule = by_id[v.rule_id]
        if v.fails:
            fix = "; ".join(f"`{c.strip()}`" for c in rule.default_fix)
            out.append(f"- `{v.line}`{where} fails **{rule.id}** ({rule.severity}): {rule.deviation}. {rule.rationale} "
                       f"Fix: {fix}")
        else:
            out.append(f"- `{v.line}`{where} is what **{rule.id}** requires ({_lower_first(rule.title)}).")
    return "\n".join(out)  # what a line alone cannot show is the answer's assumption (LINE_ALONE)


def answer(prompt: str, chunks: list[RetrievedChunk], skill: str, catalog: Sequence[Rule],
           pasted: Sequence[PastedLine] = ()) -> DomainOutputs:
    """Whole sentences of the one document that answers best, cited where they stand; a second document that also
    answers is shown apart and cited, with its disagreement named; nothing that answers: "not found". ``catalog``:
    the rules whose fix is offered where no document answers. ``pasted``: the configuration lines the question
    quotes, as the runtime judged them — answered first, the documents following as what our standards say."""
    known = {r.id for r in catalog}
    verdicts = [v for v in pasted if v.rule_id in known]
    if verdicts:
        outputs = _documents(prompt, chunks, [])
        said = outputs.summary
        return outputs.evolve(
            summary=_pasted(verdicts, catalog) + (f"\n\n**What our documents say:** {said}" if "Not found" not in said else ""),
            assumptions=[LINE_ALONE],
            statistics={**outputs.statistics, "lines_judged": len({v.line for v in verdicts}),
                        "rules_referenced": list(dict.fromkeys(v.rule_id for v in verdicts))})
    return _documents(prompt, chunks, _catalog_rules(prompt, catalog))


# a question for a procedure's steps ("who do I escalate to", "what's the escalation procedure for those", "what are
# the steps"): answered by the passage of the document that numbers them
PROCEDURAL = re.compile(r"\bwho (?:do|should|must|shall) (?:i|we)\b|\bprocedures?\b|\bprocess\b|\bsteps?\b|"
                        r"\bhow do (?:i|we) (?:escalate|report|raise|handle|open)\b|\bwhat do (?:i|we) do\b", re.I)
STEP = re.compile(r"(?m)^\s*\d+\.\s+")


def _steps(prompt: str, chunks: Sequence[RetrievedChunk], source: str,
           quoted: Sequence[RetrievedChunk]) -> tuple[RetrievedChunk, list[str]] | None:
    """The numbered steps of the answering document's passage that lists them, when the question asks for a procedure
    and the quote did not already hold them: each step as one line, at most five; None otherwise."""
    if not PROCEDURAL.search(prompt):
        return None
    chunk = next((c for c in chunks if c.metadata.source == source and len(STEP.findall(c.content)) >= 2), None)
    if chunk is None or chunk in quoted:
        return None
    parts = STEP.split(chunk.content)[1:]
    listed = [f"{i}. " + " ".join(re.split(r"\n\s*\n", p)[0].split()) for i, p in enumerate(parts[:5], 1)]
    return chunk, [s if s.endswith((".", ":")) else s + "." for s in listed]


def _release_verdict(prompt: str, lines: Sequence[str]) -> str | None:
    """**Yes**/**No** for a release the question asks is approved, read against the approved trains the quoted
    sentence lists ("Approved releases: IOS-XE 17.9.x and 17.6.x …"); None when the question names no release or no
    quoted sentence lists approved ones."""
    asked = RELEASE.findall(prompt)
    if len(asked) != 1 or not APPROVAL_ASKED.search(prompt):
        return None
    # the sentence that lists the approved trains ("Approved releases: …"), not one that mentions an approved exception
    listing = next((t for t in lines if re.search(r"\bapproved\s+(?:releases?|versions?|trains?|software|images?)\b",
                                                   t, re.I) and TRAIN.search(t)), None)
    if listing is None:
        return None
    head = listing.split(".", 1)[0] if ":" not in listing else listing.split(":", 1)[1]
    trains = [m.group(0) for m in TRAIN.finditer(re.split(r"(?<=[a-z)])\.\s", head)[0])]
    release = asked[0]

    def within(train: str) -> bool:
        parts, got = train.split("."), re.split(r"[.(]", release)
        return all(p == "x" or (i < len(got) and got[i] == p) for i, p in enumerate(parts))
    if not trains:
        return None
    if any(within(t) for t in trains):
        return f"**Yes** — {release} is in an approved train ({', '.join(t for t in trains if within(t))})."
    return f"**No** — {release} is not in any approved train ({', '.join(trains)})."


def _documents(prompt: str, chunks: list[RetrievedChunk], rules: list[dict[str, Any]]) -> DomainOutputs:
    """What the documents say (``rules``: the catalog's rules about the same thing, offered where none answers)."""
    terms = _terms(prompt) | (_terms("deadline") if HOW_LONG.search(prompt) else set()) | (
        _terms("approved releases") if RELEASE.search(prompt) and APPROVAL_ASKED.search(prompt) else set())
    topic = terms - _GENERIC or terms  # what the question is about, beyond the kind of device
    # a question of three or more words of its own ("our process for requesting an exception") is answered by a
    # passage that shares two of them, not by one that only names the same thing ("Approved Exception EXC-…")
    # … except a duration asked ("how fast do they need fixing"): a passage about the deadlines answers it
    needed = 2 if len(topic) >= 3 and not HOW_LONG.search(prompt) else 1

    def answering_in(used: list[RetrievedChunk], own_words: bool = False) \
            -> list[tuple[int, RetrievedChunk, list[tuple[int, int, str]]]]:
        scored = [(rank, c, [x for x in _scored(c, terms) if _terms(x[2]) & topic or _about(c) & topic])
                  for rank, c in enumerate(used)]
        return [(rank, c, sc if any(len(_terms(x[2]) & topic if own_words else (_terms(x[2]) | _about(c)) & topic)
                                    >= needed for x in sc) else [])
                for rank, c, sc in scored]

    # the three best passages; the next two only when none of those answers, and then by a sentence's own words (the
    # owner of the stores is in the fourth passage for "who owns the store firewalls", after three of an exception)
    scored = answering_in(chunks[:3])
    if not any(sc for _, _, sc in scored):
        scored = answering_in(chunks[:5], own_words=True)
    answering = [(max(s for s, _, _ in sc), -rank, c) for rank, c, sc in scored if sc]
    quoted: list[RetrievedChunk] = []
    if answering:
        top_score, _, best = max(answering, key=lambda x: (x[0], x[1]))
        source = best.metadata.source
        own = [(s, rank, p, text) for rank, c, sc in scored if c.metadata.source == source for s, p, text in sc]
        quoted = [c for _, c, sc in scored if c.metadata.source == source and sc]
        lines = _quote(own, 5)
        summary = f"According to our {best.metadata.title or source}: " + " ".join(lines) + CITE.format(
            best.metadata.chunk_id)
        # the list of approved trains may be a sentence of the passage the quote left out
        verdict = _release_verdict(prompt, [*lines, *re.split(r"(?<=\.)\s+", best.content)])
        if verdict:
            summary = f"{verdict}\n\n{summary}"
        steps = _steps(prompt, chunks[:5], source, quoted)
        if steps is not None:  # "who do I escalate to": the procedure's steps first, then when it applies
            chunk, listed = steps
            summary = (f"According to our {best.metadata.title or source}, the steps: " + " ".join(listed)
                       + CITE.format(chunk.metadata.chunk_id) + "\n\nIt applies when: " + " ".join(lines)
                       + CITE.format(best.metadata.chunk_id))
            quoted.append(chunk)
        config, config_from = _configuration([c for _, c, _ in scored if c.metadata.source == source], terms)
        if config:
            label = f" (section \"{config_from}\")" if config_from else ""
            summary += f"\n\nReference configuration{label}:\n```\n{config}\n```"
        others = [(max(s for s, _, _ in sc), -rank, c, sc) for rank, c, sc in scored
                  if sc and c.metadata.source != source]
        if others:
            score, _, other, osc = max(others, key=lambda x: (x[0], x[1]))
            if score >= max(2, top_score - 1):  # it answers too: shown apart, each document cited for its own words
                said = " ".join(_quote([(s, 0, p, t) for s, p, t in osc], 2))
                title = other.metadata.title or other.metadata.source
                # what each says in its best sentence for the question (side notes keep their own amounts)
                differ = _disagreement(min(own, key=lambda x: (-x[0], x[1], x[2]))[3],
                                       min(osc, key=lambda x: (-x[0], x[1]))[2])
                summary += (f"\n\n**The documents disagree** ({differ}): our {title} says: " if differ
                            else f"\n\nOur {title} also says: ") + said + CITE.format(other.metadata.chunk_id)
                quoted.append(other)
        assumptions: list[str] = []
    else:
        summary = ("**Not found in the knowledge base**: no document you can use speaks to this question."
                   + (" Industry practice (CIS benchmarks):" if rules else ""))
        assumptions = ["No enterprise document answered; any guidance below is generic industry practice from the "
                       "rule catalog."] if rules else ["No enterprise document answered."]
    if rules:
        why = " ".join(f"{r['rule_id']} ({_lower_first(r['title'])}): {r['rationale']}" for r in rules[:2])
        summary += f"\n\nWhy the assessment checks this: {why}"
        if not answering:
            summary += "\n\nFix:\n```\n" + rules[0]["remediation"] + "\n```"
    return DomainOutputs(summary=summary, findings=[], assumptions=assumptions,
                         statistics={"chunks_used": len(quoted), "rules_referenced": [r["rule_id"] for r in rules]},
                         enterprise_context_applied=[applied(c) for c in quoted], prioritized_risks=[], chart_hints=[])


def _configuration(chunks: list[RetrievedChunk], terms: set[str]) -> tuple[str, str]:
    """The first code block of the document's chunks — one under a heading the question names (a platform) beats
    it — and that heading."""
    config, config_from = "", ""
    for c in chunks:
        blocks = _CODE.findall(c.content)
        heading = _heading(c)
        if blocks and (not config or (heading and _terms(heading) & terms and not _terms(config_from) & terms)):
            config, config_from = blocks[0].strip(), heading
    return config, config_from
