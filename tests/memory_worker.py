"""Helper process for the memory tests: writes turns to the real memory store until told to stop or killed."""

from __future__ import annotations

import json
import sys

from tests.stores import configured_memory


def record(thread: str, user: str, n: int) -> dict[str, object]:
    big = json.dumps({"turn": n, "payload": "x" * 200_000})  # a large STATE makes a kill mid-write likely
    return {"thread_id": thread, "user_id": user, "prompt": f"question {n}", "intent_class": "cbp_assessment",
            "meta_intent": "new_topic", "skill": "cbp_assessment", "scope": {}, "entities": [], "plan": {},
            "answer": f"answer {n}", "findings": [], "state": big, "started_at": "", "finished_at": "", "duration_ms": 1.0}


if __name__ == "__main__":
    thread, user, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = configured_memory()
    for n in range(1, count + 1):
        store.save_turn(record(thread, user, n))
        print(n, flush=True)
