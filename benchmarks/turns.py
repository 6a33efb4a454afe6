"""``assess bench turns``: end-to-end turn latency — time to the first streamed step and to the final
answer — over the project's own evaluation prompts (and the upstream ones when present), on warehouses of
several fleet sizes built in the same run, so that the demo size is the baseline beside the large one.

Every prompt is asked in a new thread. In the first round every ask is cold: agent memory holds no tool result
(the data query agent serves a repeated tool call from it for a few minutes); the rounds after it show what
repeats cost."""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from foundation.config import PROJECT_ROOT, using_data_dir
from orchestration.evaluation import load_cases
from orchestration.runtime import handle_turn, iter_turn
from orchestration.services import Services, build_services
from orchestration.state import AssessmentState
from orchestration.turn_pool import warm_up


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(round(0.95 * len(ordered))) - 1)]


def prompts() -> list[str]:
    files = [PROJECT_ROOT / "evals" / "cases.json", PROJECT_ROOT.parent / "shared" / "eval" / "upstream_cases.json"]
    return [c["user_prompt"] for f in files if Path(f).exists() for c in load_cases(Path(f))]


def time_turn(prompt: str, services: Services, cold: bool = False) -> tuple[float, float, dict[str, float], float]:
    """(ms to the first streamed step, ms to the final STATE, ms per node, CPU ms of this process) of one turn in a
    new thread;
    ``cold``: no tool result is served from agent memory and no question vector from the embedder's cache (as for
    a question nobody asked in the last minutes)."""
    if cold:
        services.memory().forget("tool:")
        getattr(services.embedder(), "forget", lambda: None)()
        if hasattr(services, "sentence_vectors"):  # the quoted sentences' vectors too (code before issue 54 has none)
            services.sentence_vectors().forget()
    started, cpu = time.perf_counter(), time.process_time()
    first = total = 0.0
    nodes: dict[str, float] = {}
    last = started
    for item in iter_turn(prompt, services=services):
        now = time.perf_counter()
        if not first:
            first = (now - started) * 1000
        if isinstance(item, AssessmentState):
            total = (now - started) * 1000
        else:
            nodes[item.node] = nodes.get(item.node, 0.0) + (now - last) * 1000
        last = now
    return first, total, nodes, (time.process_time() - cpu) * 1000


def _summary(label: str, first: list[float], total: list[float], cpu: list[float]) -> dict[str, Any]:
    return {"turns": len(total), "label": label, "first_step_p50_ms": round(statistics.median(first), 1),
            "first_step_p95_ms": round(p95(first), 1), "turn_p50_ms": round(statistics.median(total), 1),
            "turn_p95_ms": round(p95(total), 1), "turn_max_ms": round(max(total), 1),
            "cpu_p50_ms": round(statistics.median(cpu), 1), "cpu_p95_ms": round(p95(cpu), 1)}


def _measure(rounds: int, report: Callable[[str], None], services: Services | None = None) -> list[dict[str, Any]]:
    asks = prompts()
    started = time.perf_counter()
    # one per process, warmed as the chat server's turn workers warm theirs before their first turn
    services = warm_up(services or build_services())
    handle_turn(asks[0], services=services)  # warm-up: model, router, index, warehouse and its names load once per process
    report(f"  warm-up turn (loads model, router, index, names) {time.perf_counter() - started:.1f} s")
    rows = []
    per_node: dict[str, list[float]] = {}
    slowest: list[tuple[float, str]] = []
    for r in range(rounds):
        first, total, cpu = [], [], []
        for prompt in asks:
            f, t, nodes, c = time_turn(prompt, services, cold=r == 0)
            first.append(f)
            total.append(t)
            cpu.append(c)
            if r == 0:
                slowest.append((t, prompt))
            for node, ms in nodes.items():
                per_node.setdefault(node, []).append(ms)
        rows.append(_summary("cold asks" if r == 0 else f"repeat {r}", first, total, cpu))
    for row in rows:
        report(f"  {row['label']:<10} {row['turns']} turns: first step p50 {row['first_step_p50_ms']} ms, "
               f"p95 {row['first_step_p95_ms']} ms; whole turn p50 {row['turn_p50_ms']} ms, "
               f"p95 {row['turn_p95_ms']} ms, max {row['turn_max_ms']} ms; CPU p50 {row['cpu_p50_ms']} ms, "
               f"p95 {row['cpu_p95_ms']} ms")
    busiest = sorted(per_node.items(), key=lambda kv: -statistics.mean(kv[1]))[:5]
    report("  mean ms per node: " + ", ".join(f"{n} {statistics.mean(v):.1f}" for n, v in busiest))
    report("  slowest cold asks: " + "; ".join(f"{ms:.0f} ms {prompt[:60]!r}" for ms, prompt in sorted(slowest)[-3:]))
    return rows


def run(rounds: int = 2, devices: list[int] | None = None, runs: int = 4, workdir: Path | None = None,
        report: Callable[[str], None] = print) -> dict[int, list[dict[str, Any]]]:
    """Time the prompts on the configured data directory (``devices`` empty), or on a warehouse of each size
    built now in a throw-away data directory with the seed knowledge base (under ``workdir``, kept and reused by
    the next run: a 10,000-device build takes minutes)."""
    if not devices:
        return {0: _measure(rounds, report)}
    from assessment_engine.warehouse.build import build_demo_warehouse
    from knowledge_base.ingest import ensure_seed_index

    results: dict[int, list[dict[str, Any]]] = {}
    for n in devices:
        target = workdir / f"turns-{n}-{runs}" if workdir else Path(tempfile.mkdtemp(prefix=f"assess-turns-{n}-"))
        target.mkdir(parents=True, exist_ok=True)
        with using_data_dir(target) as data_dir:
            services = build_services()
            if not (data_dir / "warehouse.duckdb").exists():
                build = build_demo_warehouse(data_dir / "warehouse.duckdb", services.catalog, devices=n, runs=runs)
                report(f"built {build.devices:,} devices, {build.results:,} results over {runs} runs in {build.seconds:.1f} s")
            ensure_seed_index(services.knowledge())
            report(f"{n:,} devices ({data_dir}):")
            try:
                results[n] = _measure(rounds, report, services)
            finally:
                services.close()
    return results
