"""The eval's answer checks (``orchestration/answer_checks.py``) can fail: a lead that names the row asked for among a
crowd of others does not answer "which one" (a 150-device tie once passed ``lead_any``)."""

from __future__ import annotations

from typing import Any

from orchestration.answer_checks import _one, figures
from orchestration.state import AssessmentState


def _query(rows: list[tuple[Any, ...]]) -> Any:
    return lambda sql: rows


def test_lead_any_passes_the_row_and_its_ties_and_fails_a_crowd() -> None:
    state = AssessmentState.model_validate({"input": {"user_prompt": "which device"}})
    expected = _query([("RTR-CORE-2",), ("RTR-HQ-EDGE-2",)])
    tie = "**RTR-CORE-2** and **RTR-HQ-EDGE-2** tie with the most configuration changes: 8 (2026-10)."
    assert _one("lead_any", "SQL", tie, tie, state, expected) is None
    top = "Top 10: " + ", ".join(f"SW-ST{n}-1" for n in range(30, 39)) + ", RTR-CORE-2."
    assert _one("lead_any", "SQL", top, top, state, expected) is None  # a ranking's lead names its rows
    crowd = "**150 devices** tie with the most devices: 1 — " + ", ".join(f"SW-ST{n}-1" for n in range(150)) + \
        ", RTR-CORE-2."
    assert _one("lead_any", "SQL", crowd, crowd, state, expected) == "the lead names 150 other rows besides"
    assert _one("lead_any", "SQL", "**SW-ST30-1** leads.", "**SW-ST30-1** leads.", state, expected) is not None


def test_the_parts_of_a_release_are_no_figures_of_an_answer() -> None:
    lead = "**21** devices failing (SSH-V2, release 17.9.4, 17.6.5, 9.8(4), 9.3(10), ASMT-2026-11-02)."
    assert figures(lead) == {"21"}  # not 5, 4 or 10 from the releases, nor 2026 from the run
    assert {"4", "3"} <= figures("AAA-LOGIN-DEFAULT (4), OSPF-AUTH (3)")  # a count in brackets after a name is one
