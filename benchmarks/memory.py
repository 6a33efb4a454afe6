"""``assess bench memory``: per-turn latency on a long thread against a short one, measured in one run.

The long thread gets its turns through the real runtime (so its memory holds full STATEs, summaries
and preferences); then the same follow-up is timed on it and on a one-turn thread, alternating.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from orchestration.runtime import handle_turn
from orchestration.services import build_services

PROMPTS = ["Summarize configuration best practice findings for {site}", "What about security?",
           "Focus only on firewalls", "Which critical deviations remain open at {site}?"]
SITES = ["HQ", "DataCenter-1", "Branch-05", "Site-A", "Store-47"]


def run(turns: int = 200, samples: int = 15, report: Callable[[str], None] = print) -> dict[str, Any]:
    long_thread, user = f"bench-long-{uuid.uuid4().hex[:6]}", "bench"
    services = build_services()
    started = time.perf_counter()
    for n in range(turns):
        handle_turn(PROMPTS[n % len(PROMPTS)].format(site=SITES[n % len(SITES)]), thread_id=long_thread, user_id=user, services=services)
    report(f"built a {turns}-turn thread in {time.perf_counter() - started:.1f} s")
    probe = "What about security at {site}?"
    long_ms: list[float] = []
    short_ms: list[float] = []
    for i in range(samples):
        site = SITES[i % len(SITES)]
        short_thread = f"bench-short-{uuid.uuid4().hex[:6]}"
        handle_turn(PROMPTS[0].format(site=site), thread_id=short_thread, user_id=user, services=services)
        for thread, bucket in ((long_thread, long_ms), (short_thread, short_ms)):
            t0 = time.perf_counter()
            handle_turn(probe.format(site=site), thread_id=thread, user_id=user, services=services)
            bucket.append((time.perf_counter() - t0) * 1000)
    result = {"turns": turns, "long_median_ms": round(statistics.median(long_ms), 1),
              "short_median_ms": round(statistics.median(short_ms), 1)}
    result["ratio"] = round(result["long_median_ms"] / result["short_median_ms"], 2)
    report(f"follow-up turn latency, median of {samples}: {turns}-turn thread {result['long_median_ms']} ms, "
           f"1-turn thread {result['short_median_ms']} ms (ratio {result['ratio']})")
    return result
