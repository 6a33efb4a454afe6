"""Configuration lines pasted into a question are judged by the checks that look at one line — not answered with the
fleet's failures of the same checks — and a question about the fleet that quotes a command still asks the fleet."""

from __future__ import annotations

from pathlib import Path

import pytest

from assessment_engine.checks.pasted_lines import judge_lines
from orchestration.runtime import handle_turn
from orchestration.services import Services
from tests.catalog import RULES
from tests.unit.test_answers import LATEST, sql


def _judged(text: str) -> list[tuple[str, str, bool]]:
    return [(v.line, v.rule.id, v.fails) for v in judge_lines(text, RULES)]


@pytest.mark.parametrize(("text", "expected"), [
    ("is this ok: snmp-server community public RO", [("snmp-server community public RO", "SNMP-DEFAULT-COMM", True)]),
    ("is this config line fine? ip http server", [("ip http server", "HTTP-SERVER", True)]),
    ("is ip ssh version 2 ok?", [("ip ssh version 2", "SSH-V2", False)]),
    # the block pasted above the line decides which block rule judges it (not the AUX port's)
    ("review this:\nline vty 0 4\n transport input telnet", [("transport input telnet", "VTY-SSH-ONLY", True)]),
    ("is this secure: no ip redirects", [("no ip redirects", "IF-REDIRECTS", False)]),
    # a "no" takes away what a rule requires (a failure) or what it forbids (met)
    ("is this line fine: no service password-encryption", [("no service password-encryption", "PWD-SERVICE-ENC", True)]),
    ("is this ok: no ip http server", [("no ip http server", "HTTP-SERVER", False)]),
    # the device a line is meant for is no question about the fleet
    ("would this be fine on a branch router? ip http server", [("ip http server", "HTTP-SERVER", True)]),
])
def test_a_pasted_line_is_judged_by_the_checks_that_look_at_it(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert _judged(text) == expected


@pytest.mark.parametrize("text", [
    "do any of my devices have `ip http server`?",  # the fleet is asked about, the command is what it looks for
    "which devices have: snmp-server community public",
    "how do I configure ip ssh version 2",  # a how-to names the command, it does not paste it to be judged
    "what is the enable password policy",
    "is the hq router ok?",
])
def test_a_question_that_only_names_a_command_pastes_nothing(text: str) -> None:
    assert _judged(text) == []


def test_a_pasted_line_is_answered_no_with_its_check_and_fix_not_with_the_fleet(demo_warehouse: Path,
                                                                                services: Services) -> None:
    state = handle_turn("is this ok: snmp-server community public RO", services=services)
    assert "Data Query Agent" not in state.plan.routing  # nothing of the warehouse is asked
    (pasted,) = state.input.pasted_lines
    # judged on what was typed, stored masked: the community never reaches STATE
    assert (pasted.line, pasted.rule_id, pasted.fails) == ("snmp-server community <community masked> RO",
                                                           "SNMP-DEFAULT-COMM", True)
    answer = state.final.answer
    assert answer.startswith("**No** — this line fails a check of the catalog:"), answer[:200]
    assert "fails **SNMP-DEFAULT-COMM** (critical)" in answer and "`no snmp-server community public`" in answer
    assert " public RO" not in answer and "devices fail" not in answer
    assert "judged by the checks that look at that line alone" in answer  # what a line alone cannot show


def test_lines_that_meet_their_checks_are_a_yes_and_the_fleet_question_still_asks_the_fleet(
        demo_warehouse: Path, services: Services) -> None:
    yes = handle_turn("is ip ssh version 2 ok?", services=services)
    assert yes.final.answer.startswith("**Yes** — as far as the checks that look at one line go:")
    assert "is what **SSH-V2** requires" in yes.final.answer
    fleet = handle_turn("do any of my devices have `ip http server`?", services=services)
    assert fleet.input.pasted_lines == [] and "Data Query Agent" in fleet.plan.routing
    failing = sql(demo_warehouse, f"""SELECT COUNT(DISTINCT asset_id) FROM results WHERE assessment_id = {LATEST}
        AND rule_id = 'HTTP-SERVER' AND status = 'fail'""")[0][0]
    assert failing > 0 and fleet.final.answer.split("\n\n")[1].startswith("**Yes** — ")


def test_a_line_right_in_one_block_and_wrong_in_another_depends_on_the_block() -> None:
    from orchestration.interpretation.generic_answers import _pasted
    from orchestration.state import PastedLine

    verdicts = [PastedLine(line=v.line, rule_id=v.rule.id, fails=v.fails, under=v.under)
                for v in judge_lines("is this ok: transport input ssh", RULES)]
    assert {(v.rule_id, v.fails) for v in verdicts} == {("AUX-DISABLED", True), ("VTY-SSH-ONLY", False)}
    assert _pasted(verdicts, RULES).startswith("**It depends on the block**")
