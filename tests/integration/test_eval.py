"""Evaluation cases: the upstream file (when it exists beside the checkout) and the project's own.

With the demo data every check must pass, expected outputs and chart hints included; without data
the control-plane checks (intent, confidence, entities, agents, tools, clarification) still must.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from orchestration.evaluation import load_cases, run_cases
from orchestration.services import Services
from tests.conftest import OWN_CASES, UPSTREAM_CASES  # noqa: F401

CONTROL_CHECKS = ("intent_class", "confidence", "entities", "agents_invoked", "knowledge_agent_needed", "tools",
                  "clarification", "meta_intent")


def assert_control_plane(path: Path, services: Services) -> dict:  # type: ignore[type-arg]
    report = run_cases(load_cases(path), services=services)
    failures = [(c["id"], name, check["expected"], check["actual"])
                for c in report["cases"] for name, check in c["checks"].items()
                if name in CONTROL_CHECKS and not check["passed"]]
    assert not failures, failures
    return report


def assert_every_check(path: Path, services: Services) -> dict:  # type: ignore[type-arg]
    report = run_cases(load_cases(path), services=services)
    failures = [(c["id"], name, check["expected"], check["actual"])
                for c in report["cases"] for turn in c.get("turns", [c])
                for name, check in turn["checks"].items() if not check["passed"]]
    assert not failures, failures
    return report


@pytest.mark.skipif(not UPSTREAM_CASES.exists(), reason="shared/eval/upstream_cases.json is not beside this checkout")
def test_upstream_cases_pass_the_control_plane_checks_without_data(services: Services) -> None:
    report = assert_control_plane(UPSTREAM_CASES, services=services)
    assert report["summary"]["cases"] == 20


@pytest.mark.skipif(not UPSTREAM_CASES.exists(), reason="shared/eval/upstream_cases.json is not beside this checkout")
def test_upstream_cases_pass_every_check_with_the_demo_data(demo_warehouse: Path, services: Services) -> None:
    report = assert_every_check(UPSTREAM_CASES, services=services)
    assert report["summary"]["passed"] == report["summary"]["cases"] == 20


def test_own_cases_pass_every_check_with_the_demo_data(demo_warehouse: Path, services: Services) -> None:
    assert_every_check(OWN_CASES, services=services)


def test_own_cases_cover_every_intent_class_and_meta_intent(services: Services) -> None:
    cases = load_cases(OWN_CASES)
    classes = {c["expected"]["intent_class"] for c in cases}
    assert classes == {"cbp_assessment", "cbp_expert_insights", "cbp_generic", "security_assessment",
                       "unknown_or_needs_clarification"}
    metas = {c["expected"].get("meta_intent") for c in cases} - {None}
    assert metas == {"new_topic", "followup_question", "clarification_request", "acknowledgement",
                     "confirmation", "cancellation", "escalation"}
    assert_control_plane(OWN_CASES, services=services)


def test_eval_json_includes_checks_and_full_state_per_case(tmp_path: Path) -> None:
    cases = load_cases(OWN_CASES)[:2]
    case_file = tmp_path / "two.json"
    case_file.write_text(json.dumps({"eval_cases": cases}))
    out = subprocess.run([sys.executable, "-m", "command_line.assess", "eval", str(case_file), "--json"],
                         capture_output=True, text=True, timeout=300, check=True)
    report = json.loads(out.stdout)
    assert [c["id"] for c in report["cases"]] == [c["id"] for c in cases]
    first = report["cases"][0]
    assert set(first) >= {"id", "passed", "checks", "state"}
    assert set(first["state"]) == {"input", "intent", "plan", "mcp", "trace", "conversation", "final"}
    assert report["summary"]["cases"] == 2 and "intent_class" in report["summary"]["checks"]


def test_eval_of_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "command_line.assess", "eval", str(tmp_path / "nope.json")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "nope.json" in out.stderr and "Traceback" not in out.stderr


def test_conversation_cases_run_in_fresh_threads_and_print_every_turn(demo_warehouse: Path) -> None:
    from tests.conftest import ASSESS, PROJECT_ROOT

    out = subprocess.run([ASSESS, "eval", str(PROJECT_ROOT / "evals" / "conversations.json"), "--json"],
                         capture_output=True, text=True, timeout=600, check=True)
    report = json.loads(out.stdout)
    for case in report["cases"]:
        assert set(case) == {"id", "passed", "turns"} and case["passed"], case["id"]
        threads = {t["state"]["input"]["thread_id"] for t in case["turns"]}
        assert len(threads) == 1
        for turn in case["turns"]:
            assert set(turn) >= {"checks", "state"} and turn["checks"]
    assert len({c["turns"][0]["state"]["input"]["thread_id"] for c in report["cases"]}) == len(report["cases"])


def test_faithful_scope_cases_pass_every_check_markdown_included(demo_warehouse: Path, services: Services) -> None:
    from tests.conftest import PROJECT_ROOT

    report = assert_every_check(PROJECT_ROOT / "evals" / "faithful_scope.json", services=services)
    assert report["summary"]["checks"]["markdown"]["passed"] == report["summary"]["checks"]["markdown"]["total"] >= 26
    assert report["summary"]["checks"]["name_readings"]["total"] >= 10


def test_answer_cases_pass_every_check_against_figures_computed_by_sql(demo_warehouse: Path, services: Services) -> None:
    from tests.conftest import PROJECT_ROOT

    report = assert_every_check(PROJECT_ROOT / "evals" / "answers.json", services=services)
    singles = [c for c in report["cases"] if "turns" not in c]
    conversations = [c for c in report["cases"] if "turns" in c]
    assert len(singles) >= 100 and len(conversations) >= 15
    assert report["summary"]["checks"]["answer"]["total"] >= 120


def test_an_answer_check_fails_when_the_answer_does_not_hold_what_sql_says(demo_warehouse: Path) -> None:
    """The checks can fail: an answer naming too few devices, the wrong yes/no, a figure not in the lead."""
    from foundation.config import get_settings
    from orchestration.answer_checks import score_answer, warehouse_query
    from orchestration.state import AssessmentState, Final

    query = warehouse_query(get_settings().warehouse_path)
    firewalls = "SELECT asset_id FROM assets WHERE device_type = 'firewall' AND collection = 'fleet'"
    (n,), = query("SELECT COUNT(*) FROM assets WHERE device_type = 'firewall' AND collection = 'fleet'")
    state = AssessmentState(final=Final(answer=f"**Scope:** all\n\n**Yes** — {n - 1} firewalls: FW-HQ-1."))
    result = score_answer([{"lead_count": firewalls}, {"lists": firewalls}, {"lead_yes": "SELECT FALSE"},
                           {"no_tools": True}], state, query)
    failures = result["actual"]["failures"]
    assert not result["passed"] and [f.split(":")[0] for f in failures] == ["lead_count", "lists", "lead_yes"]
    assert score_answer([{"lead_number": f"SELECT {n - 1}"}, {"lead_has": ["FW-HQ-1"]}], state, query)["passed"]


# The language eval of issue 52 (evals/language/README.md): written before any code of the issue, when it scored dev
# 82/142, 3/22 (41/69 turns), held out 40/70, 2/11 (16/35); now what the typed queries score. A change that answers
# fewer of them right fails here. Raised as the product learns more, never lowered.
LANGUAGE_FLOORS = {  # file: (cases right, conversation turns right, cases in the file)
    "questions.yaml": (141, 0, 142), "conversations.yaml": (22, 69, 22), "fresh.yaml": (20, 0, 20),
    "fresh_conversations.yaml": (5, 12, 5), "second.yaml": (20, 0, 20), "second_conversations.yaml": (4, 11, 4),
    "held_out/questions.yaml": (54, 0, 70), "held_out/conversations.yaml": (4, 23, 11),
    "held_out/second_questions.yaml": (9, 0, 10), "held_out/second_conversations.yaml": (1, 5, 2),
    "third.yaml": (20, 0, 20), "third_conversations.yaml": (6, 18, 6), "third_seen.yaml": (10, 0, 10),
    "held_out/third_conversations.yaml": (3, 9, 3), "fourth_conversations.yaml": (8, 23, 8),
    "held_out/fourth_conversations.yaml": (2, 9, 4), "fifth_conversations.yaml": (8, 23, 8),
    "held_out/fifth_conversations.yaml": (3, 11, 4), "seventh.yaml": (20, 0, 20),
    "held_out/seventh_questions.yaml": (9, 0, 10), "eighth_conversations.yaml": (8, 24, 8),
    "held_out/eighth_conversations.yaml": (4, 12, 4), "ninth_conversations.yaml": (8, 22, 8),
    "held_out/ninth_conversations.yaml": (1, 6, 4), "tenth_conversations.yaml": (7, 19, 8),
    "held_out/tenth_conversations.yaml": (3, 8, 4), "eleventh.yaml": (14, 0, 14),
    "held_out/eleventh_questions.yaml": (6, 0, 7), "eleventh_conversations.yaml": (8, 22, 8),
    "held_out/eleventh_conversations.yaml": (2, 7, 4), "twelfth.yaml": (10, 0, 10),
    "held_out/twelfth_questions.yaml": (5, 0, 5), "twelfth_conversations.yaml": (8, 21, 8),
    "held_out/twelfth_conversations.yaml": (1, 7, 4), "thirteenth.yaml": (10, 0, 10),
    "held_out/thirteenth_questions.yaml": (4, 0, 5), "thirteenth_conversations.yaml": (8, 20, 8),
    "held_out/thirteenth_conversations.yaml": (2, 8, 4), "fourteenth.yaml": (12, 0, 12),
    "held_out/fourteenth_questions.yaml": (5, 0, 6), "fourteenth_conversations.yaml": (9, 28, 10),
    "held_out/fourteenth_conversations.yaml": (2, 8, 4), "fifteenth.yaml": (11, 0, 12),
    "held_out/fifteenth_questions.yaml": (6, 0, 6), "fifteenth_conversations.yaml": (8, 21, 8),
    "held_out/fifteenth_conversations.yaml": (3, 8, 4), "sixteenth_conversations.yaml": (8, 21, 8),
    "held_out/sixteenth_conversations.yaml": (3, 7, 4), "seventeenth.yaml": (8, 0, 8),
    "held_out/seventeenth_questions.yaml": (3, 0, 4), "seventeenth_conversations.yaml": (6, 15, 6),
    "held_out/seventeenth_conversations.yaml": (2, 5, 3), "eighteenth.yaml": (4, 0, 4),
    "held_out/eighteenth_questions.yaml": (2, 0, 2), "eighteenth_conversations.yaml": (6, 16, 6),
    "held_out/eighteenth_conversations.yaml": (1, 5, 3), "nineteenth.yaml": (4, 0, 4),
    "held_out/nineteenth_questions.yaml": (2, 0, 2), "nineteenth_conversations.yaml": (6, 14, 6),
    "held_out/nineteenth_conversations.yaml": (1, 3, 2), "twentieth.yaml": (12, 0, 12),
    "held_out/twentieth_questions.yaml": (5, 0, 6), "twentieth_conversations.yaml": (8, 20, 8),
    "held_out/twentieth_conversations.yaml": (4, 11, 4), "twentyfirst.yaml": (6, 0, 6),
    "held_out/twentyfirst_questions.yaml": (3, 0, 3), "twentyfirst_conversations.yaml": (8, 22, 8),
    "held_out/twentyfirst_conversations.yaml": (1, 5, 4), "twentysecond.yaml": (6, 0, 6),
    "held_out/twentysecond_questions.yaml": (3, 0, 3), "twentysecond_conversations.yaml": (7, 17, 8),
    "held_out/twentysecond_conversations.yaml": (4, 10, 4), "twentythird.yaml": (4, 0, 4),
    "held_out/twentythird_questions.yaml": (2, 0, 2), "twentythird_conversations.yaml": (8, 19, 8),
    "held_out/twentythird_conversations.yaml": (1, 7, 4), "twentyfourth.yaml": (3, 0, 4),
    "held_out/twentyfourth_questions.yaml": (2, 0, 2), "twentyfourth_conversations.yaml": (8, 19, 8),
    "held_out/twentyfourth_conversations.yaml": (3, 9, 4), "twentyfifth.yaml": (4, 0, 4),
    "held_out/twentyfifth_questions.yaml": (1, 0, 2), "twentyfifth_conversations.yaml": (7, 19, 8),
    "held_out/twentyfifth_conversations.yaml": (3, 7, 4), "twentysixth.yaml": (2, 0, 2),
    "held_out/twentysixth_questions.yaml": (1, 0, 1), "twentysixth_conversations.yaml": (4, 9, 4),
    "held_out/twentysixth_conversations.yaml": (1, 3, 2), "twentyseventh.yaml": (10, 0, 10),
    "held_out/twentyseventh_questions.yaml": (3, 0, 5), "twentyseventh_conversations.yaml": (8, 23, 8),
    "held_out/twentyseventh_conversations.yaml": (2, 5, 4), "twentyeighth.yaml": (8, 0, 8),
    "held_out/twentyeighth_questions.yaml": (3, 0, 4), "twentyeighth_conversations.yaml": (6, 17, 6),
    "held_out/twentyeighth_conversations.yaml": (3, 6, 3), "twentyninth.yaml": (14, 0, 14),
    "held_out/twentyninth_questions.yaml": (7, 0, 7), "twentyninth_conversations.yaml": (6, 18, 6),
    "held_out/twentyninth_conversations.yaml": (3, 9, 3), "thirtieth.yaml": (14, 0, 14),
    "held_out/thirtieth_questions.yaml": (7, 0, 7), "thirtieth_conversations.yaml": (6, 18, 6),
    "held_out/thirtieth_conversations.yaml": (2, 8, 3), "thirtyfirst.yaml": (6, 0, 6),
    "held_out/thirtyfirst_questions.yaml": (3, 0, 3), "thirtyfirst_conversations.yaml": (7, 23, 8),
    # (thirtyfirst_conversations: 8/8 alone and in this module, 7/8 once in the whole suite — an order effect not yet
    # found; the floor holds what the whole suite scored)
    "held_out/thirtyfirst_conversations.yaml": (2, 10, 4), "thirtysecond.yaml": (4, 0, 4),
    "held_out/thirtysecond_questions.yaml": (1, 0, 2), "thirtysecond_conversations.yaml": (7, 23, 8),
    "held_out/thirtysecond_conversations.yaml": (4, 12, 4), "thirtythird.yaml": (6, 0, 6),
    "held_out/thirtythird_questions.yaml": (2, 0, 3), "thirtythird_conversations.yaml": (8, 24, 8),
    "held_out/thirtythird_conversations.yaml": (1, 8, 4), "thirtyfourth.yaml": (6, 0, 6),
    "held_out/thirtyfourth_questions.yaml": (3, 0, 3), "thirtyfourth_conversations.yaml": (8, 24, 8),
    "held_out/thirtyfourth_conversations.yaml": (4, 12, 4), "thirtyfifth.yaml": (6, 0, 6),
    "held_out/thirtyfifth_questions.yaml": (2, 0, 3), "thirtyfifth_conversations.yaml": (7, 23, 8),
    "held_out/thirtyfifth_conversations.yaml": (3, 11, 4), "thirtysixth.yaml": (6, 0, 6),
    "held_out/thirtysixth_questions.yaml": (2, 0, 3), "thirtysixth_conversations.yaml": (8, 24, 8),
    "held_out/thirtysixth_conversations.yaml": (2, 10, 4), "thirtyseventh.yaml": (8, 0, 8),
    "held_out/thirtyseventh_questions.yaml": (3, 0, 4), "thirtyseventh_conversations.yaml": (10, 30, 10),
    "held_out/thirtyseventh_conversations.yaml": (3, 11, 5), "thirtyeighth.yaml": (8, 0, 8),
    "held_out/thirtyeighth_questions.yaml": (4, 0, 4), "thirtyeighth_conversations.yaml": (9, 28, 10),
    "held_out/thirtyeighth_conversations.yaml": (1, 11, 5), "thirtyninth.yaml": (8, 0, 8),
    "held_out/thirtyninth_questions.yaml": (4, 0, 4), "thirtyninth_conversations.yaml": (10, 30, 10),
    "held_out/thirtyninth_conversations.yaml": (3, 13, 5), "fortieth.yaml": (8, 0, 8),
    "held_out/fortieth_questions.yaml": (3, 0, 4), "fortieth_conversations.yaml": (10, 30, 10),
    "fortieth_seen_conversations.yaml": (5, 15, 5), "fortyfirst_conversations.yaml": (8, 24, 8),
    "held_out/fortyfirst_conversations.yaml": (2, 9, 4), "fortysecond_conversations.yaml": (8, 24, 8),
    "held_out/fortysecond_conversations.yaml": (2, 10, 4), "fortythird_conversations.yaml": (7, 23, 8),
    "held_out/fortythird_conversations.yaml": (2, 10, 4), "fortyfourth_conversations.yaml": (8, 24, 8),
    "held_out/fortyfourth_conversations.yaml": (2, 9, 4), "fortyfifth_conversations.yaml": (8, 24, 8),
    "held_out/fortyfifth_conversations.yaml": (1, 7, 4), "fortysixth_conversations.yaml": (8, 24, 8),
    "held_out/fortysixth_conversations.yaml": (3, 10, 4), "fortyseventh_conversations.yaml": (8, 24, 8),
    "held_out/fortyseventh_conversations.yaml": (2, 9, 4), "fortyeighth_conversations.yaml": (7, 23, 8),
    "held_out/fortyeighth_conversations.yaml": (1, 8, 4), "fortyninth.yaml": (10, 0, 10),
    "held_out/fortyninth_questions.yaml": (5, 0, 5), "fiftieth_conversations.yaml": (8, 24, 8),
    "held_out/fiftieth_conversations.yaml": (0, 6, 4), "fiftyfirst_conversations.yaml": (8, 24, 8),
    "held_out/fiftyfirst_conversations.yaml": (2, 10, 4), "fiftysecond_conversations.yaml": (8, 24, 8),
    "held_out/fiftysecond_conversations.yaml": (3, 11, 4), "fiftythird_conversations.yaml": (7, 21, 8),
    "held_out/fiftythird_conversations.yaml": (1, 7, 4), "fiftyfourth.yaml": (10, 0, 10),
    "held_out/fiftyfourth_questions.yaml": (5, 0, 5), "fiftyfifth_conversations.yaml": (8, 24, 8),
    "held_out/fiftyfifth_conversations.yaml": (1, 7, 4), "fiftysixth_conversations.yaml": (8, 24, 8),
    "held_out/fiftysixth_conversations.yaml": (2, 10, 4), "fiftyseventh_conversations.yaml": (8, 24, 8),
    "held_out/fiftyseventh_conversations.yaml": (2, 7, 4), "fiftyeighth_conversations.yaml": (7, 22, 8),
    "held_out/fiftyeighth_conversations.yaml": (1, 8, 4), "fiftyninth.yaml": (10, 0, 10),
    "held_out/fiftyninth_questions.yaml": (5, 0, 5), "sixtieth_conversations.yaml": (8, 24, 8),
    "held_out/sixtieth_conversations.yaml": (2, 9, 4), "sixtyfirst_conversations.yaml": (8, 24, 8),
    "held_out/sixtyfirst_conversations.yaml": (1, 9, 4), "sixtysecond_conversations.yaml": (8, 24, 8),
    "held_out/sixtysecond_conversations.yaml": (3, 11, 4), "sixtythird_conversations.yaml": (8, 24, 8),
    "held_out/sixtythird_conversations.yaml": (3, 11, 4), "sixtyfourth_conversations.yaml": (7, 23, 8),
    "held_out/sixtyfourth_conversations.yaml": (2, 9, 4), "sixtyfifth_conversations.yaml": (8, 17, 8),
    "held_out/sixtyfifth_conversations.yaml": (3, 9, 4), "sixtysixth_conversations.yaml": (8, 24, 8),
    "held_out/sixtysixth_conversations.yaml": (1, 8, 4), "sixtyseventh_conversations.yaml": (8, 24, 8),
    "held_out/sixtyseventh_conversations.yaml": (1, 8, 4), "sixtyeighth.yaml": (10, 0, 10),
    "held_out/sixtyeighth_questions.yaml": (5, 0, 5), "sixtyeighth_conversations.yaml": (8, 24, 8),
    "held_out/sixtyeighth_conversations.yaml": (1, 8, 4), "sixtyninth_conversations.yaml": (8, 24, 8),
    "held_out/sixtyninth_conversations.yaml": (2, 9, 4), "seventieth.yaml": (10, 0, 10),
    "held_out/seventieth_questions.yaml": (5, 0, 5), "seventieth_conversations.yaml": (8, 24, 8),
    "held_out/seventieth_conversations.yaml": (2, 9, 4), "seventyfirst_conversations.yaml": (7, 23, 8),
    "held_out/seventyfirst_conversations.yaml": (2, 9, 4), "seventysecond.yaml": (10, 0, 10),
    "held_out/seventysecond_questions.yaml": (5, 0, 5), "seventythird_conversations.yaml": (8, 24, 8),
    "held_out/seventythird_conversations.yaml": (2, 8, 4), "seventyfourth_conversations.yaml": (8, 24, 8),
    "held_out/seventyfourth_conversations.yaml": (4, 12, 4), "seventyfifth.yaml": (10, 0, 10),
    "held_out/seventyfifth_questions.yaml": (5, 0, 5),
}


@pytest.mark.parametrize("part", sorted(LANGUAGE_FLOORS))
def test_the_language_eval_answers_at_least_as_many_as_it_did(part: str, demo_warehouse: Path, services: Services) -> None:
    from tests.conftest import PROJECT_ROOT

    cases = load_cases(PROJECT_ROOT / "evals" / "language" / part)
    report = run_cases(cases, services=services)
    right, turns, total = LANGUAGE_FLOORS[part]
    summary = report["summary"]
    # the held-out parts say how many, never which (their failures are not read while building); a dev part names
    # the cases and first lines that failed, so that a failure in CI can be read without running it again
    missed = [] if part.startswith("held_out/") else [
        f"{r['id']}: {(r.get('turns') or [r])[-1]['state']['final']['answer'][:160]!r}" for r in report["cases"]
        if not r["passed"]]
    assert summary["passed"] >= right, f"{part}: {summary['passed']}/{summary['cases']} right, floor {right} {missed}"
    assert summary["turns"]["passed"] >= turns, f"{part}: {summary['turns']['passed']} turns right, floor {turns}"
    assert len(cases) == total, f"{part}: {len(cases)} cases, {total} expected"
