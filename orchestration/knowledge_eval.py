"""``assess eval-knowledge``: the knowledge eval of issue 54 (evals/knowledge/README.md) — answers built from documents,
scored for citation precision (every sentence that carries a marker is found in the chunk that marker cites) and
answer recall (the sentences a right answer must contain are there, cited).

The checker is written apart from the answer code on purpose: it normalizes text its own way (case, whitespace,
Markdown emphasis, brackets and code quotes aside) and never calls the product's sentence splitter, so an answer
cannot pass by sharing the product's own mistakes. The eval runs on a private copy of the data directory, with the
three uploads of ``evals/knowledge/uploads`` ingested as one user's own documents."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from orchestration.state import AssessmentState

UPLOADS_OWNER = "eval-engineer"  # the user whose own documents the uploads are
READER = "eval-reader"  # who asks a question that names no user: sees the shared documents only


def load(path: Path) -> list[dict[str, Any]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of questions")
    for case in data:  # a required piece YAML reads as a date or a number ("2027-06-30", "4455") is its text
        for key in ("must", "absent"):
            if case.get(key):
                case[key] = [str(piece) for piece in case[key]]
        if case.get("parts"):
            case["parts"] = [[str(piece) for piece in part] for part in case["parts"]]
    return data


def normalized(text: str) -> str:
    """Text as compared: lower case, one space, no Markdown emphasis or code quotes, no brackets (a rule tag
    ``[SNMP-ACL]`` and a rule id shown as `SNMP-ACL` are the same words), one kind of dash and quote."""
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = re.sub(r"[–—]", "-", text)
    text = re.sub(r"[*`\[\]()|>]", " ", text)
    text = re.sub(r"(?m)^\s*(?:[-+]|\d+\.)\s+", " ", text)  # list markers
    return re.sub(r" ([.,;:!?])", r"\1", " ".join(text.lower().split()))


_MARKER = re.compile(r"\[(\d{1,3})\]")
_LABEL_LINE = re.compile(r"^\s*(?:[-*]\s*)?\[\d{1,3}\]\s+\S")  # "[1] standard-snmpv3.md" under Sources
_LEAD_LABEL = re.compile(r"^\s*(?:[-*]\s+|\d+\.\s+)?\*\*[^*]{1,60}\*\*:?\s*")  # "**Retention:** …", a part's label
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*\"'(\[])")


@dataclass
class Cited:
    """One sentence of an answer and the chunks its marker cites."""
    sentence: str
    chunks: list[str]
    found: bool


def cited_sentences(answer: str, chunk_text: dict[int, tuple[str, str]]) -> list[Cited]:
    """Each sentence that carries a marker: the text before a marker back to the previous marker or the start of its
    line (a leading bold label aside), split into sentences, each looked for in the chunk its marker cites.
    ``chunk_text``: citation number → the chunk's content and its document's title. Words that end in the cited
    document's title ("Judged against *Switch Access Layer Standard*") name the document: they quote nothing."""
    out: list[Cited] = []
    body = re.sub(r"```.*?```", "\n", answer, flags=re.S)
    for line in body.split("\n"):
        # the Sources list names what is cited; a table's marker says which document applies to its row (a findings
        # table's "Context" column), it quotes nothing
        if _LABEL_LINE.match(line) or line.lstrip().startswith("|"):
            continue
        start = 0
        pending: tuple[str, list[int]] | None = None
        for m in _MARKER.finditer(line):
            text = line[start:m.start()]
            start = m.end()
            if not text.strip() and pending is not None:  # "… [1][2]": the same words cite a second chunk
                pending[1].append(int(m.group(1)))
                continue
            if pending is not None:
                out += _judge(*pending, chunk_text)
            pending = (text, [int(m.group(1))])
        if pending is not None:
            out += _judge(*pending, chunk_text)
    return out


def _judge(text: str, numbers: list[int], chunk_text: dict[int, tuple[str, str]]) -> list[Cited]:
    text = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", _LEAD_LABEL.sub("", text)).strip()  # a list item's marker
    titles = [normalized(chunk_text.get(n, ("", ""))[1]) for n in numbers]
    if all(t and normalized(text).rstrip(".:;, ").endswith(t) for t in titles):
        return []  # the document named, not quoted
    out = []
    for sentence in _SENTENCE_END.split(text):
        words = sentence.strip().rstrip(".;:, ")
        if not re.search(r"[A-Za-z0-9]", words):
            continue
        found = all(_in_chunk(words, chunk_text.get(n, ("", ""))[0]) for n in numbers)
        out.append(Cited(sentence.strip(), [str(n) for n in numbers], found))
    return out


def _in_chunk(sentence: str, chunk: str) -> bool:
    """A quoted sentence is in the chunk word for word (a shortened one piece by piece around "…"); a row of a table
    said as a sentence ("High — Internet-facing or PCI scope: 30 days; Internal: 60 days") has each of its cells in
    the chunk."""
    whole = normalized(chunk)
    pieces = [p for p in (normalized(x) for x in sentence.split("…")) if p]
    if pieces and all(p in whole for p in pieces):
        return True
    cells = [normalized(x) for x in re.split(r" [—-] |; |: ", sentence) if x.strip()]
    return "|" in chunk and len(cells) > 1 and all(c in whole for c in cells)


@dataclass
class Scored:
    case: dict[str, Any]
    answer: str
    cited: list[Cited]
    missing: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parts_answered: int = 0

    @property
    def passed(self) -> bool:
        return not self.missing and not self.problems and all(c.found for c in self.cited)


def retrieved(states: list[AssessmentState]) -> dict[str, tuple[str, str]]:
    """Chunk id → (content, its document's title) of every chunk the Knowledge Agent retrieved in these states (a
    message that answers two questions is two turns: the first's chunks are in the first's state)."""
    out: dict[str, tuple[str, str]] = {}
    for state in states:
        ctx = state.task_outputs("Knowledge Agent").enterprise_context
        out.update({c.metadata.chunk_id: (c.content, c.metadata.title) for c in ctx.retrieved_chunks} if ctx else {})
    return out


def score(case: dict[str, Any], state: AssessmentState, chunks: dict[str, tuple[str, str]] | None = None) -> Scored:
    """One question: its cited sentences, the required ones missing and what else is wrong. ``chunks``: what was
    retrieved (default: the final state's)."""
    chunks = chunks if chunks is not None else retrieved([state])
    citations = state.final.citations
    text_of = {c.number: chunks.get(c.chunk_id, (c.content, "")) for c in citations}
    answer = state.final.answer
    cited = cited_sentences(answer, text_of)
    said = normalized(" ".join(c.sentence for c in cited if c.found))
    result = Scored(case, answer, cited)
    parts = case.get("parts") or ([case["must"]] if case.get("must") else [])
    for part in parts:
        gone = [m for m in part if normalized(m) not in said]
        result.missing += gone
        result.parts_answered += not gone
    if case.get("none") and (citations or not re.search(r"not found|outside what i know|no document", answer, re.I)):
        result.problems.append("should say that no document answers, citing none")
    if case.get("first"):
        first = citations[0].source if citations else ""
        if not first.endswith(case["first"]):
            result.problems.append(f"first cited {first or 'nothing'}, not the user's own {case['first']}")
    if case.get("disagree") and "disagree" not in answer.lower():
        result.problems.append("does not say that the documents disagree")
    for gone in case.get("absent", []):
        if normalized(gone) in normalized(answer):
            result.problems.append(f"shows {gone!r}, from a document this user cannot see")
    return result


@contextmanager
def eval_data_dir(source: Path) -> Iterator[Path]:
    """A private copy of the data directory (warehouse and knowledge index) with the eval's uploads ingested as
    ``UPLOADS_OWNER``'s own documents; removed afterwards. The data directory itself is never written."""
    from foundation.config import using_data_dir
    from knowledge_base.ingest import ingest_paths
    from orchestration.services import build_services

    with tempfile.TemporaryDirectory(prefix="assess-knowledge-eval-") as tmp:
        target = Path(tmp)
        shutil.copy(source / "warehouse.duckdb", target / "warehouse.duckdb")
        shutil.copytree(source / "knowledge_index", target / "knowledge_index",
                        ignore=shutil.ignore_patterns("*-wal", "*-shm"))
        uploads = sorted((Path(__file__).resolve().parent.parent / "evals" / "knowledge" / "uploads").iterdir())
        with using_data_dir(target):
            services = build_services()
            report = ingest_paths(services.knowledge(), uploads, owner=UPLOADS_OWNER)
            failed = [f"{f.name}: {f.message}" for f in report.files if f.status in ("error", "cancelled")]
            services.close()
            if failed:
                raise RuntimeError(f"the eval's uploads could not be ingested: {failed}")
            yield target


def run(cases: list[dict[str, Any]]) -> list[Scored]:
    """Ask every question (each in a new thread, as its user) on the current data directory and score it."""
    from orchestration.runtime import iter_turn
    from orchestration.services import build_services

    services = build_services()
    out = []
    try:
        for case in cases:
            states = [x for x in iter_turn(case["q"], None, case.get("user", READER), False, services)
                      if isinstance(x, AssessmentState)]
            out.append(score(case, states[-1], retrieved(states)))
        return out
    finally:
        services.close()


def figures(results: list[Scored]) -> dict[str, Any]:
    cited = [c for r in results for c in r.cited]
    required = sum(len(m) for r in results for m in (r.case.get("parts") or ([r.case["must"]] if r.case.get("must") else [])))
    missing = sum(len(r.missing) for r in results)
    two = [r for r in results if len(r.case.get("parts") or []) > 1]
    return {
        "questions": len(results),
        "passed": sum(r.passed for r in results),
        "cited_sentences": len(cited),
        "cited_found": sum(c.found for c in cited),
        "precision": round(100 * sum(c.found for c in cited) / len(cited), 1) if cited else 100.0,
        "required": required,
        "recall": round(100 * (required - missing) / required, 1) if required else 100.0,
        "two_part": len(two),
        "two_part_both": sum(r.parts_answered == len(r.case["parts"]) for r in two),
    }


def render(name: str, results: list[Scored], verbose: bool = False) -> str:
    f = figures(results)
    lines = [f"{name}: {f['passed']}/{f['questions']} questions right; citation precision {f['precision']} % "
             f"({f['cited_found']}/{f['cited_sentences']} cited sentences in the chunk they cite); answer recall "
             f"{f['recall']} % ({f['required'] - sum(len(r.missing) for r in results)}/{f['required']}); two-part "
             f"questions with both parts answered {f['two_part_both']}/{f['two_part']}"]
    if verbose:
        for r in results:
            if r.passed:
                continue
            lines.append(f"\n✗ {r.case.get('id')}: {r.case['q']}")
            lines += [f"  missing: {m}" for m in r.missing] + [f"  {p}" for p in r.problems]
            lines += [f"  not in its chunk [{','.join(c.chunks)}]: {c.sentence}" for c in r.cited if not c.found]
            lines += ["  | " + ln for ln in r.answer.split("\n")[:25]]
    return "\n".join(lines)
