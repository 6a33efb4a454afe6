"""Two questions typed as one are answered in order, the second read after the first (issue 52, item 7): what is a
second question and what only narrows the first, and the answer of both through the runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestration.nlu.two_questions import split_questions
from orchestration.runtime import handle_turn
from orchestration.services import Services
from tests.unit.test_answers import LATEST, sql


@pytest.mark.parametrize(("prompt", "parts"), [
    ("which site is worst and what fails there most", ["which site is worst?", "what fails there most"]),
    ("how many firewalls are there? which release do most of them run",
     ["how many firewalls are there?", "which release do most of them run"]),
    ("list the spine switches; is any of them failing copp", ["list the spine switches?", "is any of them failing copp"]),
    # one question: a narrowing, a pair of things, the standard beside the data, a figure of the same things
    ("failed checks at HQ and only the critical ones", None),
    ("which switches and routers fail ssh-v2", None),
    ("is telnet enabled on any router at the stores and which ones", None),
    ("which switches at DataCenter-1 fail SNMP checks, and what does our SNMPv3 standard require?", None),
    ("how many routers in us-central, and what pass rate do they have", None),
    ("How many configuration best practice checks were performed in the latest assessment, and how many of those "
     "checks failed?", None),
    ("how many firewalls do we have and how many of them fail ASA-TELNET?",
     ["how many firewalls do we have?", "how many of them fail ASA-TELNET?"]),
    ("who can approve an emergency change and how quickly must it be documented?", None),
    ("Which approved exceptions cover SNMP at DataCenter-1 and what does our standard require?", None),
    ("what is the ssh idle timeout and where must syslog go?", ["what is the ssh idle timeout?", "where must syslog go?"]),
])
def test_a_second_question_is_split_off_only_where_it_asks_on_its_own(prompt: str, parts: list[str] | None) -> None:
    assert split_questions(prompt) == (parts or [prompt])


def test_both_questions_are_answered_in_order_the_second_after_the_first(demo_warehouse: Path,
                                                                         services: Services) -> None:
    # the worst site: the most critical failures, then high, then all (as the worst device)
    (worst, failed), = sql(demo_warehouse, f"""SELECT a.site, COUNT(*) n FROM results r JOIN assets a USING (asset_id)
        WHERE r.assessment_id = {LATEST} AND a.collection = 'fleet' AND r.status = 'fail' GROUP BY 1 ORDER BY
        COUNT(*) FILTER (WHERE r.severity = 'critical') DESC, COUNT(*) FILTER (WHERE r.severity = 'high') DESC, n DESC,
        1 LIMIT 1""")
    top = sql(demo_warehouse, f"""SELECT r.rule_id, COUNT(DISTINCT r.asset_id) n FROM results r JOIN assets a USING
        (asset_id) WHERE r.assessment_id = {LATEST} AND a.collection = 'fleet' AND r.status = 'fail' AND a.site =
        '{worst}' GROUP BY 1 ORDER BY n DESC""")
    answer = handle_turn("which site is worst and what fails there most", services=services).final.answer
    first, second = answer.split("\n---\n")
    assert f"**{worst}** is the worst: {failed} failed checks" in first, first[:300]
    assert "**what fails there most**" in second and worst in second, second[:400]  # "there" is the worst site
    assert any(f"**{rule}**" in second for rule, n in top if n == top[0][1]), second[:400]


def test_the_second_answers_sources_are_numbered_after_the_firsts(demo_warehouse: Path, services: Services) -> None:
    final = handle_turn("what is the ssh idle timeout and where must syslog go?", services=services).final
    numbers = [c.number for c in final.citations]
    assert numbers == sorted(set(numbers)) and len(numbers) >= 2, numbers  # one list, no number twice
    from orchestration.interpretation.markdown import markdown_problems

    assert not markdown_problems(final.answer, set(numbers)), final.answer


def test_the_second_question_asks_where_the_first_did_unless_it_asks_across_places(demo_warehouse: Path,
                                                                                   services: Services) -> None:
    (here,), = sql(demo_warehouse, f"""SELECT COUNT(*) FROM results r JOIN assets a USING (asset_id) WHERE
        r.assessment_id = {LATEST} AND a.collection = 'fleet' AND r.status = 'fail' AND r.severity = 'high' AND
        a.site = 'DataCenter-2'""")
    answer = handle_turn("pass rate at DataCenter-2 and how many high findings", services=services).final.answer
    second = answer.split("\n---\n")[1]
    assert "site DataCenter-2" in second and f"**{here}**" in second, second[:300]
    answer = handle_turn("pass rate at DataCenter-2 and which sites have the most high findings",
                         services=services).final.answer
    assert "site DataCenter-2" not in answer.split("\n---\n")[1].split("\n\n")[1], answer[-600:]  # across the sites
