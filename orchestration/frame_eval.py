"""``assess eval-frames``: how well the question frame is read, per slot, on the corpus's held-out questions.

The reader is fitted on the training part only; filters, time, targets and limit are read from the words the
same way a turn reads them (spelling normalised, names resolved against the warehouse's inventory). The corpus
was written on 2026-11-24 against the demo network: month names resolve against that date.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from orchestration.nlu.frame import LabelledQuestion, load_corpus
from orchestration.services import Services
from orchestration.state import QuestionFrame

CORPUS_DATE = date(2026, 11, 24)
SLOTS = ("ask", "subject", "cannot", "filters", "time", "targets", "limit")


@dataclass
class SlotScore:
    right: int = 0
    wrong: list[tuple[str, object, object]] = field(default_factory=list)  # (question, expected, read)

    @property
    def accuracy(self) -> float:
        total = self.right + len(self.wrong)
        return self.right / total if total else 1.0


def compare(expected: QuestionFrame, read: QuestionFrame) -> dict[str, tuple[object, object]]:
    """The slots where ``read`` differs from ``expected`` (filter and target values compared as sets)."""
    out: dict[str, tuple[object, object]] = {}
    for slot in SLOTS:
        want, got = getattr(expected, slot), getattr(read, slot)
        if slot in ("filters", "targets"):
            want = {k: sorted(v) for k, v in want.model_dump().items() if v}
            got = {k: sorted(v) for k, v in got.model_dump().items() if v}
        elif slot == "time":
            want, got = want.model_dump(exclude_defaults=True), got.model_dump(exclude_defaults=True)
        if want != got:
            out[slot] = (want, got)
    return out


def evaluate(questions: Sequence[LabelledQuestion], services: Services, split: str = "test",
             today: date = CORPUS_DATE) -> dict[str, SlotScore]:
    from orchestration.agents.intent_classifier import frame_of

    scores = {slot: SlotScore() for slot in SLOTS}
    for q in (q for q in questions if q.split == split):
        diff = compare(q.frame, frame_of(q.question, services, today=today))
        for slot in SLOTS:
            if slot in diff:
                scores[slot].wrong.append((q.question, *diff[slot]))
            else:
                scores[slot].right += 1
    return scores


def render(scores: dict[str, SlotScore], split: str, verbose: bool = False) -> str:
    total = scores["ask"].right + len(scores["ask"].wrong)
    lines = [f"Question frames, {split} split: {total} questions", "", "| slot | accuracy | wrong |", "|---|---|---|"]
    lines += [f"| {slot} | {s.accuracy:.1%} | {len(s.wrong)} |" for slot, s in scores.items()]
    if verbose:
        for slot, s in scores.items():
            for question, want, got in s.wrong:
                lines.append(f"- {slot}: {question!r}: expected {want}, read {got}")
    return "\n".join(lines)


__all__ = ["CORPUS_DATE", "compare", "evaluate", "load_corpus", "render"]
