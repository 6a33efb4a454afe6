"""``assess bench turns``: end-to-end turn latency at demo scale — time to the first streamed step and to
the final answer — over the project's own evaluation prompts (and the upstream ones when present)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from orchestration.config import PROJECT_ROOT
from orchestration.evaluation import load_cases
from orchestration.runtime import handle_turn, iter_turn
from orchestration.state import AssessmentState


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(round(0.95 * len(ordered))) - 1)]


def run(rounds: int = 2, report: Callable[[str], None] = print) -> dict[str, float]:
    files = [PROJECT_ROOT / "evals" / "cases.json", PROJECT_ROOT.parent / "shared" / "eval" / "upstream_cases.json"]
    prompts = [c["user_prompt"] for f in files if Path(f).exists() for c in load_cases(Path(f))]
    handle_turn(prompts[0])  # warm-up: model, index and warehouse are loaded once per process
    first: list[float] = []
    total: list[float] = []
    for _ in range(rounds):
        for prompt in prompts:
            started = time.perf_counter()
            seen_first = False
            for item in iter_turn(prompt):
                if not seen_first:
                    first.append((time.perf_counter() - started) * 1000)
                    seen_first = True
                if isinstance(item, AssessmentState):
                    total.append((time.perf_counter() - started) * 1000)
    result = {"turns": len(total), "first_step_p50_ms": round(statistics.median(first), 1),
              "first_step_p95_ms": round(_p95(first), 1), "turn_p50_ms": round(statistics.median(total), 1),
              "turn_p95_ms": round(_p95(total), 1), "turn_max_ms": round(max(total), 1)}
    report(f"{result['turns']} turns: first step p50 {result['first_step_p50_ms']} ms, p95 {result['first_step_p95_ms']} ms; "
           f"whole turn p50 {result['turn_p50_ms']} ms, p95 {result['turn_p95_ms']} ms, max {result['turn_max_ms']} ms")
    return result
