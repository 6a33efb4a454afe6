"""Cold turn latency over the language eval's dev questions (evals/language/questions.yaml) and the prompts of
`assess bench turns`, each asked once in a new thread on the configured data directory — the questions that reach
the typed-query path (issue 52), which the bench prompts seldom do. Run: `.venv/bin/python -m benchmarks.language_turns`
(ASSESS_DATA_DIR picks the data). Beside older code: `PYTHONPATH=<older tree> .venv/bin/python
benchmarks/language_turns.py evals/language/questions.yaml` times that code on this tree's questions."""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

import yaml

from benchmarks.turns import p95, prompts, time_turn
from foundation.config import PROJECT_ROOT
from orchestration.services import build_services
from orchestration.turn_pool import warm_up


def main(questions_file: Path = PROJECT_ROOT / "evals" / "language" / "questions.yaml") -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    questions = [c["q"] for c in yaml.safe_load(questions_file.read_text())]
    services = build_services()
    if not services.settings.warehouse_path.exists():  # without data every turn is a quick refusal, not an answer
        raise SystemExit(f"no warehouse at {services.settings.warehouse_path}: build it first (assess demo build, "
                         "or assess bench data --devices N) and point ASSESS_DATA_DIR at its data directory")
    warm_up(services)  # as the chat server's turn workers warm theirs before their first turn
    time_turn("warm up", services)  # loads the model, router, index and names
    totals = [time_turn(p, services, cold=True)[1] for p in prompts() + questions]
    print(f"{len(totals)} cold turns: p50 {statistics.median(totals):.1f} ms, p95 {p95(totals):.1f} ms, "
          f"max {max(totals):.1f} ms")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else PROJECT_ROOT / "evals" / "language" / "questions.yaml")
