"""Answers to how-to, why and what-do-we-do questions (skills *_generic) from the organization's documents (issues 29
and 54): the documents' own sentences, chosen by ``document_sentences.answering``, each line holding one chunk's
sentences and ending in that chunk's ``⟦chunk id⟧`` placeholder (the Answer Composer numbers it), grouped under the
question's parts; the asker's own upload first, a standard that says otherwise beside it with the disagreement said;
numbered steps where a procedure is asked for; "not found in the knowledge base" when no sentence speaks to the
question — then industry practice from the catalog, stated as such. Configuration lines pasted into the question ("is
this ok: ip http server") are judged first, by the checks that look at one line
(``assessment_engine.checks.pasted_lines``, by the runtime: ``TurnInput.pasted_lines``): Yes or No, each line with the
check it fails or meets and its fix."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from assessment_engine.checks.rule_engine import Rule
from orchestration.interpretation.document_sentences import (
    GENERIC,
    Sentence,
    Similarity,
    about,
    disagreement,
    ranked,
    shared,
    stem,
    terms,
    within,
)
from orchestration.interpretation.enterprise import applied
from orchestration.nlu.two_questions import parts
from orchestration.outputs import DomainOutputs, RetrievedChunk
from orchestration.state import AssessmentState, PastedLine, shown_document

_CODE = re.compile(r"```\w*\n(.*?)```", re.S)


def _catalog_rules(prompt: str, catalog: Sequence[Rule]) -> list[dict[str, Any]]:
    asked = terms(prompt)
    # a check named by its id ("what is the risk of SNMP-RW?") is the one asked about
    named = [r for r in catalog if re.search(rf"(?<![\w-]){re.escape(r.id)}(?![\w-])", prompt, re.I)]
    scored = [(1, r) for r in named]
    for r in [] if named else catalog:
        common = asked & (terms(r.title) | {stem(r.technology)})
        # one word in common is a match only when it is the rule's technology ("ntp"), not any title word ("guard")
        if len(common) >= 2 or stem(r.technology) in common:
            scored.append((len(common), r))
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
           pasted: Sequence[PastedLine] = (), similar: Similarity | None = None, carried: str = "") -> DomainOutputs:
    """The sentences of the documents that answer the question, each cited to the chunk it stands in, grouped under
    the question's parts; the user's own document first; a second document that also answers shown apart, with what
    they disagree on; nothing that answers: "not found". ``catalog``: the rules whose fix is offered where no document
    answers. ``pasted``: the configuration lines the question quotes, as the runtime judged them — answered first, the
    documents following as what our standards say. ``similar``: how close sentences are to a question in meaning (the
    embedding model); without it, words alone choose. ``carried``: what a follow-up's question means from the turns
    before ("high severity findings" for "how fast do we need to fix those")."""
    known = {r.id for r in catalog}
    verdicts = [v for v in pasted if v.rule_id in known]
    if verdicts:
        outputs = _documents(prompt, chunks, [], similar, carried)
        said = outputs.summary
        return outputs.evolve(
            summary=_pasted(verdicts, catalog) + (f"\n\n**What our documents say:**\n\n{said}" if "Not found" not in said
                                                  else ""),
            assumptions=[LINE_ALONE],
            statistics={**outputs.statistics, "lines_judged": len({v.line for v in verdicts}),
                        "rules_referenced": list(dict.fromkeys(v.rule_id for v in verdicts))})
    return _documents(prompt, chunks, _catalog_rules(prompt, catalog), similar, carried)


def carried_words(state: AssessmentState) -> str:
    """What the retrieval query of a follow-up added to its words from the turns before ("high severity findings"
    for "how fast do we need to fix those"), '' for a question of its own."""
    query = state.task_outputs("Knowledge Agent").retrieval_query
    if query is None or not query.query_metadata.is_followup:
        return ""
    return query.formulated_query.replace(state.prompt.strip(), " ").strip()


# a question for a procedure's steps ("who do I escalate to", "what's the escalation procedure for those", "what are
# the steps"): answered by the passage of the document that numbers them
PROCEDURAL = re.compile(r"\bwho (?:do|should|must|shall) (?:i|we)\b|\bprocedures?\b|\bprocess\b|\bsteps?\b|"
                        r"\bhow do (?:i|we) (?:escalate|report|raise|handle|open)\b|\bwhat do (?:i|we) do\b", re.I)
STEP = re.compile(r"(?m)^\s*\d+\.\s+")
STEPS_SHOWN = 5


def _steps(prompt: str, chunks: Sequence[RetrievedChunk], source: str,
           named: int = 2) -> tuple[RetrievedChunk, list[str]] | None:
    """The numbered steps of the answering document's passage that lists them, when the question asks for a procedure:
    each step as the document words it (its first paragraph); None otherwise. ``named``: how many words of the question
    another document's heading must hold to be the procedure asked for."""
    if not PROCEDURAL.search(prompt):
        return None
    # the passage that numbers steps and whose heading names the procedure asked for ("incident response": the
    # incident response runbook's, not the escalation procedure's); the answering document's on a tie
    numbered = [c for c in chunks if len(STEP.findall(c.content)) >= 2]
    asked = terms(prompt) - (_ANY_PROCEDURE if named < 2 else set())
    chunk = max(numbered, default=None, key=lambda c: (len(shared(asked, about(c))), c.metadata.source == source))
    if chunk is None or (chunk.metadata.source != source and len(shared(asked, about(chunk))) < named):
        return None
    return chunk, [" ".join(re.split(r"\n\s*\n", p)[0].split()) for p in STEP.split(chunk.content)[1:]]


# words that name a procedure of any kind, and kinds of results: a heading that shares only these names none asked for
_ANY_PROCEDURE = terms("procedure process steps step runbook workflow finding findings") | GENERIC
_ORDINAL = re.compile(r"\bstep (\d+)\b|\b(first|second|third|fourth|fifth|last) step\b", re.I)
_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


def _step_lines(part: str, chunk: RetrievedChunk, listed: list[str]) -> list[str]:
    """The steps, each cited; the one asked for alone when the question names it ("step 2", "the first step")."""
    cite = CITE.format(chunk.metadata.chunk_id)
    m = _ORDINAL.search(part)
    if m:
        n = int(m.group(1)) if m.group(1) else len(listed) if m.group(2).lower() == "last" else _NTH[m.group(2).lower()]
        if 1 <= n <= len(listed):
            return [f"Step {n} of {len(listed)}, from {_document_name(chunk)}:", f"{n}. {quoted(listed[n - 1])}{cite}"]
    numbered = [f"{n}. {quoted(step)}{cite}" for n, step in enumerate(listed[:STEPS_SHOWN], 1)]
    more = [f"({len(listed) - STEPS_SHOWN} more steps in the document.)"] if len(listed) > STEPS_SHOWN else []
    return [f"The steps, from {_document_name(chunk)}:", *numbered, *more]


_RULE_TAGS = re.compile(r"\s*\[((?:[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)(?:,\s*[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)*)\]")


def _item(sentence: Sentence) -> bool:
    """Whether ``sentence`` is an item of a list in its chunk (it follows a "- " or "1. " marker there)."""
    start = re.escape(sentence.text[:30])
    return re.search(rf"(?m)^\s*(?:[-*]|\d+\.)\s+{start}", sentence.chunk.content) is not None


def _config_line(text: str) -> bool:
    """Whether ``text`` is a line of a configuration block quoted whole ("`ip ssh authentication-retries 3`")."""
    return text.startswith("`") and text.endswith("`") and text.count("`") == 2


def quoted(sentence: str) -> str:
    """A document's sentence as the answer shows it: its rule tags ``[SNMP-ACL]`` as rule ids in code, never in the
    brackets of a citation marker, and ended as a sentence (a list item that goes on ends in ";" or ",")."""
    text = _RULE_TAGS.sub(lambda m: " (" + ", ".join(f"`{r.strip()}`" for r in m.group(1).split(",")) + ")", sentence)
    cut = text.rstrip(";, ")
    # (a line of configuration quoted whole, "`ip ssh authentication-retries 3`", is no sentence to end)
    ended = cut.endswith((".", ":", "?", "!")) or (cut.endswith(")") and cut == text) or _config_line(cut)
    return cut if ended else cut + "."


def _document_name(chunk: RetrievedChunk) -> str:
    meta = chunk.metadata
    if "/" in meta.source:  # the asker's own upload: only its owner retrieves it
        name = shown_document(meta.source).removesuffix(" (yours)")
        return f"your own *{meta.title}* ({name})" if meta.title and meta.title != name else f"your own {name}"
    return f"our *{meta.title or meta.source}*"


def _cited_lines(chosen: Sequence[Sentence]) -> list[str]:
    """One line per chunk: its chosen sentences in the chunk's own order, then the chunk's marker — a line never
    carries words of two chunks. A sentence that introduces a list ("Work the backlog in this order:") brings the
    list's items, each on its line with the same marker."""
    lines = []
    for chunk_id in dict.fromkeys(s.chunk.metadata.chunk_id for s in sorted(chosen, key=lambda s: s.rank)):
        mine = sorted((s for s in chosen if s.chunk.metadata.chunk_id == chunk_id), key=lambda s: s.position)
        # a sentence that ends in ":" ends its line (what follows it in the document is not what follows it here)
        runs: list[list[Sentence]] = [[]]
        for s in mine:
            # (an item of a list is no sentence after another: "brute-force login attempts …;" and "any critical
            # finding …", "**High**: …" and "**Low**: …" are items, each on its line; so is a configuration line)
            if runs[-1] and (s.text[:1].islower() or _config_line(s.text) or _config_line(runs[-1][-1].text)
                             or _item(s) or _item(runs[-1][-1])):
                runs.append([])
            runs[-1].append(s)
            if s.text.rstrip().endswith(":") and s is not mine[-1]:
                runs.append([])
        lines += ["- " + " ".join(quoted(s.text) for s in run) + CITE.format(chunk_id) for run in runs]
        if mine[-1].text.rstrip().endswith(":"):
            items = _list_after(mine[-1].text, mine[-1].chunk.content)
            lines += [f"  {n}. {quoted(item)}{CITE.format(chunk_id)}" for n, item in enumerate(items[:STEPS_SHOWN], 1)]
            if len(items) > STEPS_SHOWN:
                lines.append(f"  ({len(items) - STEPS_SHOWN} more in the document.)")
    return lines


_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s+")


def _list_after(sentence: str, content: str) -> list[str]:
    """The items of the list that follows ``sentence`` in ``content`` (wrapped lines joined), [] when none does."""
    words = sentence.split()
    at = re.search(r"\s+".join(map(re.escape, words[-4:])), content)
    if at is None:
        return []
    items: list[str] = []
    for line in content[at.end():].split("\n"):
        if _ITEM.match(line):
            items.append(_ITEM.sub("", line).strip())
        elif items and line.strip() and not line.lstrip().startswith(("#", "|", "```")):
            items[-1] += " " + line.strip()
        elif items:
            break
    return items


def _by_document(chosen: Sequence[Sentence]) -> list[list[Sentence]]:
    """The chosen sentences per document: the asker's own first, then the best-scored."""
    groups: dict[str, list[Sentence]] = {}
    for s in chosen:
        groups.setdefault(s.source, []).append(s)
    return sorted(groups.values(), key=lambda g: (not g[0].own, -max(x.score for x in g)))


DOCUMENTS_SHOWN = 2  # per part of a question: the one that answers best (or the asker's own) and one beside it


def _part_answer(part: str, chosen: list[Sentence]) -> tuple[list[str], list[RetrievedChunk]]:
    """The lines that answer one part: per document (at most two) where it comes from and its cited sentences; where
    they state different amounts or addresses, that said first."""
    documents = _by_document(chosen)[:DOCUMENTS_SHOWN]
    lines: list[str] = []
    if len(documents) == 2:
        # what each says in its best sentence for the question (side notes keep their own amounts)
        first_best, second_best = (max(g, key=lambda s: s.score).text for g in documents)
        mine = documents[0][0].own or bool(_COMPARED.search(part))
        # two shared documents disagree only about the same thing: their sentences share a word the question asks
        # about ("critical" — not a high finding's 5 days beside a critical one's 7); the asker's own document is set
        # against the standard whatever its wording
        same = bool(terms(first_best) & terms(second_best) & (terms(part) - GENERIC))
        rest = (" ".join(s.text for s in documents[0]), " ".join(s.text for s in documents[1]))
        differ = disagreement(part, first_best, second_best, addresses_too=mine, others=rest) if mine or same else None
        if differ:
            first, second = (_document_name(g[0].chunk) for g in documents)
            lines.append(f"**The documents disagree**: {first} says {differ[0]}, {second} {differ[1]}.")
    for i, group in enumerate(documents):
        cited = _cited_lines(group)
        if i == 0:
            # the answer first, where it comes from after it: the best document's first line leads, named after its
            # marker (words after a marker quote nothing), its other lines below it
            more = ", which also says:" if len(cited) > 1 else ""
            lines += [f"{cited[0].removeprefix('- ')} — {_document_name(group[0].chunk)}{more}", *cited[1:]]
        else:
            lines += ["", f"{'Beside it,' if lines else 'Also,'} {_document_name(group[0].chunk)} says:", *cited]
    return lines, [s.chunk for g in documents for s in g]


WIDE = 0.3  # below the best sentence by up to this, the asker's own document, or the other side asked for, still answers
# two documents set side by side by the question ("what does our runbook say vs the standard?")
_COMPARED = re.compile(r"\b(?:vs\.?|versus|compared? (?:to|with)|differ\w*|same as|disagree\w*|conflict\w*|both)\b", re.I)


def _chosen(part: str, context: str, chunks: Sequence[RetrievedChunk], similar: Similarity | None,
            carried: str = "") -> tuple[list[Sentence], list[Sentence]]:
    """The sentences that answer one part: the best ones; the asker's own document's best too when it answers a little
    less well (they uploaded it to be used); and, beside the asker's document or where the question compares, the
    best sentence of another document — a standard that says otherwise is shown, not hidden. Also: every sentence
    that speaks to the part, best first."""
    # "is 17.9.4 approved?" asks for the list of approved releases, words it does not use
    also = " ".join(filter(None, [carried, "approved releases" if RELEASE.search(part) and APPROVAL_ASKED.search(part)
                                  else ""]))
    scored = ranked(part, context, chunks, similar, also=also)
    picked = within(scored, part)
    if not picked:
        return [], scored
    pool = within(scored, part, margin=WIDE)
    picked += [s for s in pool if s.own and s not in picked][:2]
    if any(s.own for s in picked) or _COMPARED.search(part):
        sources = {s.source for s in picked}
        other = next((s for s in pool if s.source not in sources and not s.own), None)
        if other is not None and len(sources) < 2:
            picked.append(other)
    return picked, scored


def _heading_of(part: str) -> str:
    return "**" + part[:1].upper() + part[1:] + "**"


def _documents(prompt: str, chunks: list[RetrievedChunk], rules: list[dict[str, Any]],
               similar: Similarity | None = None, carried: str = "") -> DomainOutputs:
    """What the documents say (``rules``: the catalog's rules about the same thing, offered where none answers)."""
    asks = parts(prompt)
    context = " ".join(asks[:1])  # a later part that points back ("… and when does it expire") is about the first's
    chosen, scored = map(list, zip(*(_chosen(part, context if i else "", chunks, similar, carried)
                                     for i, part in enumerate(asks)), strict=True))
    used: list[RetrievedChunk] = []
    blocks: list[str] = []
    shown: list[set[str]] = []
    for i, (part, picked) in enumerate(zip(asks, chosen, strict=True)):
        # "what's step 2 of the incident runbook": the passage that numbers the steps says it, whatever sentence
        # shares a word with it
        steps = _steps(part, chunks, "", named=1) if not picked or _ORDINAL.search(part) else None
        if steps is not None:
            used.append(steps[0])
            blocks.append("\n".join([*([_heading_of(part), ""] if len(asks) > 1 else []), *_step_lines(part, *steps)]))
            chosen[i] = [Sentence(steps[0], 0, 0, steps[1][0])]  # answered (its sentences are the steps)
            continue
        if not picked:
            if len(asks) > 1:
                blocks.append(f"{_heading_of(part)}\n\n**Not found in the knowledge base** for this part.")
            continue
        texts = {s.text for s in picked}
        if any(texts <= earlier for earlier in shown):  # the sentences above answer this part too
            blocks[-1] = blocks[-1].replace("\n\n", f" {_heading_of(part)}\n\n", 1) if len(asks) > 1 else blocks[-1]
            continue
        shown.append(texts)
        lines, quoted_chunks = _part_answer(part, picked)
        unsaid = _unsaid_choice(part, [s.text for s in picked])
        if unsaid:
            lines = [unsaid, "", *lines]
        used += quoted_chunks
        best = picked[0]
        verdict = _release_verdict(part, [s.text for s in picked] + re.split(r"(?<=\.)\s+", best.chunk.content))
        steps = _steps(part, chunks[:5], best.source)
        if steps is not None:  # "who do I escalate to": the procedure's steps, then when it applies
            chunk, listed = steps
            # when it applies: the document's best sentences outside the steps' passage (not a step said twice)
            when = [x for x in within(scored[i], part, margin=1.0) if x.source == chunk.metadata.source and x.chunk is not chunk][:2]
            lines = [*_step_lines(part, chunk, listed), *(["", "When it applies:", *_cited_lines(when)] if when else [])]
            used += [chunk, *(x.chunk for x in when)]
        head = [_heading_of(part), ""] if len(asks) > 1 else []
        blocks.append("\n".join([*head, *([verdict, ""] if verdict else []), *lines]))
        if i == 0 and _HOW_TO.search(prompt):
            config, config_from = _configuration([c for c in chunks if c.metadata.source == best.source], terms(part))
            if config:
                label = f" (section \"{config_from}\")" if config_from else ""
                blocks.append(f"Reference configuration{label}:\n```\n{config}\n```")
    answered = any(chosen)
    if answered:
        summary = "\n\n".join(blocks)
        assumptions: list[str] = []
    else:
        summary = ("**Not found in the knowledge base**: no document you can use speaks to this question."
                   + (" Industry practice (CIS benchmarks):" if rules else ""))
        assumptions = ["No enterprise document answered; any guidance below is generic industry practice from the "
                       "rule catalog."] if rules else ["No enterprise document answered."]
    # a check named by its id ("what does NTP-AUTH check", "explain SNMP-V3-PRIV") is described by the catalog too:
    # what it wants configured is its fix
    named = [r for r in rules if re.search(rf"(?<![\w-]){re.escape(r['rule_id'])}(?![\w-])", prompt, re.I)]
    if rules and (not answered or _WHY.search(prompt) or named):
        why = " ".join(f"{r['rule_id']} ({_lower_first(r['title'])}): {r['rationale']}" for r in rules[:2])
        summary += f"\n\nWhy the assessment checks this: {why}"
        if not answered or named:
            summary += "\n\nFix:\n```\n" + rules[0]["remediation"] + "\n```"
    used = list({c.metadata.chunk_id: c for c in used}.values())
    return DomainOutputs(summary=summary, findings=[], assumptions=assumptions,
                         statistics={"chunks_used": len(used), "rules_referenced": [r["rule_id"] for r in rules]},
                         enterprise_context_applied=[applied(c) for c in used], prioritized_risks=[], chart_hints=[])


# a question of how to set something up is answered with the standard's reference configuration too
_HOW_TO = re.compile(r"\b(?:how (?:should|do|must|can|to) (?:i |we )?(?:configure|set ?up|enable|disable|apply)|"
                     r"best practice|recommended (?:config\w*|setup|way)|"
                     r"configur\w* (?:for|of|on)|commands?|syntax|config (?:for|of|on))\b", re.I)
# a question of why: the catalog's rationale for the rule about it is worth its line beside the documents
_WHY = re.compile(r"\b(?:why|risk\w*|dangerous|serious|matter)\b", re.I)


# a question that offers two ways ("can I jump straight there or do I need an intermediate release?"): each way after
# the asking words, up to its "or"
_CHOICE = re.compile(r"\b(?:can|could|may|should|must|do|does|is|are)\s+(?:i|we|you|it|they)\s+(?P<first>[^?]+?),?\s+"
                     r"or\s+(?:(?:do|does|should|must|can|is|are|will)\s+(?:i|we|you|it|they)\s+)?(?P<second>[^?,.]+)",
                     re.I)


def _unsaid_choice(part: str, quoted_texts: Sequence[str]) -> str | None:
    """"The documents do not say whether …" for a question offering two ways of which the quoted sentences name
    neither: their own words (not the question's subject, which both share) are in no sentence — what the documents
    do say follows, but it is not the choice asked for."""
    m = _CHOICE.search(part)
    if m is None:
        return None
    said = set().union(*(terms(t) for t in quoted_texts)) if quoted_texts else set()
    # each way without its verb when it has more words ("use tacacs", "need an intermediate release")
    ways = [terms(" ".join(w.split()[1:] or w.split())) - GENERIC for w in (m.group("first"), m.group("second"))]
    own = [ways[0] - ways[1], ways[1] - ways[0]]
    # a way is named when all its own words are ("intermediate release": "Releases past …" names a release, not an
    # intermediate one)
    if not all(own) or any(shared(w, said) == w for w in own):
        return None
    first, second = (m.group(k).strip() for k in ("first", "second"))
    return f"**The documents do not say** which: *{first}*, or *{second}*. What they say about it:"


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


def _configuration(chunks: list[RetrievedChunk], asked: set[str]) -> tuple[str, str]:
    """The first code block of the document's chunks — one under a heading the question names (a platform) beats
    it — and that heading."""
    config, config_from = "", ""
    for c in chunks:
        blocks = _CODE.findall(c.content)
        heading = _heading(c)
        if blocks and (not config or (heading and terms(heading) & asked and not terms(config_from) & asked)):
            config, config_from = blocks[0].strip(), heading
    return config, config_from
