"""Cold turn latency over the language eval's dev questions (evals/language/questions.yaml) and the prompts of
`assess bench turns`, each asked once in a new thread on the configured data directory — the questions that reach
the typed-query path (issue 52), which the bench prompts seldom do. Run: `.venv/bin/python -m benchmarks.language_turns` (ASSESS_DATA_DIR picks the data)."""

from __future__ import annotations

import os
import statistics

import yaml

from benchmarks.turns import p95, prompts, time_turn
from foundation.config import PROJECT_ROOT
from orchestration.services import build_services


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    questions = [c["q"] for c in yaml.safe_load((PROJECT_ROOT / "evals" / "language" / "questions.yaml").read_text())]
    services = build_services()
    if not services.settings.warehouse_path.exists():  # without data every turn is a quick refusal, not an answer
        raise SystemExit(f"no warehouse at {services.settings.warehouse_path}: build it first (assess demo build, "
                         "or assess bench data --devices N) and point ASSESS_DATA_DIR at its data directory")
    time_turn("warm up", services)  # loads the model, router, index and names
    totals = [time_turn(p, services, cold=True)[1] for p in prompts() + questions]
    print(f"{len(totals)} cold turns: p50 {statistics.median(totals):.1f} ms, p95 {p95(totals):.1f} ms, "
          f"max {max(totals):.1f} ms")


if __name__ == "__main__":
    main()
