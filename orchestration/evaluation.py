"""``assess eval``: run evaluation cases and score them (DESIGN §12).

Case format: that of ``shared/eval/upstream_cases.json`` (``eval_cases`` list, or a bare list).
Checks per case, each only when the case states it: intent_class, confidence bounds, expected entities
present, agents invoked, knowledge agent needed, tools called, expected outputs non-empty, chart hints,
trend mode, the clarification question, and ``answer`` — whether the answer answers the question in its
own form, against figures and names computed by SQL (``answer_checks.py``). For every answer, that its
Markdown renders as meant (markdown-it-py: fences closed, no citation marker in code, every marker listed
under Sources). Every case carries its full final STATE so others can score it themselves.

Agents invoked: the expected agents must all run, in the expected relative order (an ordered
subsequence of the plan's routing). Extra agents are allowed only when DESIGN §5 mandates them — e.g.
the SLIC Agent for expert-insight skills, which the upstream cases do not list — and are reported.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import yaml

from orchestration.answer_checks import Query, score_answer, warehouse_query
from orchestration.interpretation.markdown import markdown_problems
from orchestration.outputs import TaskOutputs
from orchestration.runtime import handle_turn
from orchestration.services import Services, build_services
from orchestration.state import AssessmentState


def load_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of a JSON file (upstream's form), or of a YAML file in the short form of ``evals/language``: ``q``
    for the prompt and ``a`` for its answer checks, per case or per turn."""
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)
    cases = data.get("eval_cases", data.get("cases")) if isinstance(data, dict) else data
    if not isinstance(cases, list):
        raise ValueError(f"{path}: expected a list of cases or an object with 'eval_cases'")
    return [_long_form(c) for c in cases]


def _long_form(case: dict[str, Any]) -> dict[str, Any]:
    if "turns" in case:
        return {**case, "turns": [_long_form(t) for t in case["turns"]]}
    if "q" not in case:
        return case
    out = {k: v for k, v in case.items() if k not in ("q", "a")}
    return {**out, "user_prompt": case["q"], "expected": {**case.get("expected", {}), "answer": case.get("a", [])}}


def _norm(value: str) -> str:
    return re.sub(r"[\s_-]+", "", str(value).lower())


def _is_subsequence(expected: list[str], actual: list[str]) -> bool:
    it = iter(actual)
    return all(any(a == e for a in it) for e in expected)


def invoked_agents(state: AssessmentState) -> list[str]:
    """Agents whose tasks ran, in plan routing order."""
    ran = {t.owner for t in state.plan.tasks if t.status in ("completed", "failed")}
    return [owner for owner in state.plan.routing if owner in ran]


def domain_outputs(state: AssessmentState) -> TaskOutputs:
    task = state.plan.domain_task()
    return task.outputs if task else TaskOutputs()


def query_tools(state: AssessmentState, services: Services) -> list[str]:
    """The turn's query tools (contract kind: query); supporting lookups (inventory, SLIC store) are not graded."""
    lookups = {name for name, tool in services.contracts.tools.items() if tool.kind == "lookup"}
    return sorted({c.tool_name for c in state.mcp.tool_calls} - lookups)


def score_case(expected: dict[str, Any], state: AssessmentState, services: Services,
               query: Query | None = None) -> dict[str, dict[str, Any]]:
    intent = state.intent
    checks: dict[str, dict[str, Any]] = {}

    def check(name: str, passed: bool, exp: Any, act: Any) -> None:
        checks[name] = {"passed": bool(passed), "expected": exp, "actual": act}

    # every answer, whatever the case expects: it must render as meant (fences, markers, sources, tables)
    problems = markdown_problems(state.final.answer, {c.number for c in state.final.citations})
    check("markdown", not problems, [], problems)

    if "intent_class" in expected:
        check("intent_class", intent.intent_class == expected["intent_class"], expected["intent_class"],
              intent.intent_class)
    lo, hi = expected.get("confidence_min", 0.0), expected.get("confidence_max", 1.0)
    if "confidence_min" in expected or "confidence_max" in expected:
        check("confidence", lo <= intent.confidence <= (hi if hi is not None else 1.0), [lo, hi], intent.confidence)
    have = {(e.type, _norm(e.value)) for e in intent.entities}
    want = [(e["type"], e["value"]) for e in expected.get("entities", [])]
    missing = [f"{t}={v}" for t, v in want if (t, _norm(v)) not in have]
    check("entities", not missing, [f"{t}={v}" for t, v in want], [f"{e.type}={e.value}" for e in intent.entities])
    agents = invoked_agents(state)
    if "agents_invoked" not in expected:
        if "clarification_question" in expected:
            wants = expected["clarification_question"] is not None
            check("clarification", wants == bool(intent.clarification_question), wants, intent.clarification_question)
        return _optional_checks(expected, state, checks, query, services)
    exp_agents = expected.get("agents_invoked", [])
    extras = sorted(set(agents) - set(exp_agents))
    allowed_extra = {"SLIC Agent"} if (intent.domain_details.skill or "").endswith("expert_insights") else set()
    check("agents_invoked", _is_subsequence(exp_agents, agents) and set(extras) <= allowed_extra, exp_agents, agents)
    if "knowledge_agent_needed" in expected:
        ka = "Knowledge Agent" in agents
        check("knowledge_agent_needed", ka == expected["knowledge_agent_needed"], expected["knowledge_agent_needed"], ka)
    tools = query_tools(state, services)
    check("tools", tools == sorted(set(expected.get("mcp_tools", []))), sorted(expected.get("mcp_tools", [])), tools)
    outputs = domain_outputs(state)
    grounded = state.final.risk_of_error != "high"
    empty = [o for o in expected.get("expected_outputs", []) if not getattr(outputs, o, None)]
    check("outputs", not empty and (grounded or not expected.get("expected_outputs")),
          expected.get("expected_outputs", []), {"empty": empty, "grounded_in_data": grounded})
    if expected.get("chart_hints_expected"):
        check("chart_hints", bool(outputs.chart_hints), True, len(outputs.chart_hints))
    if expected.get("trend_mode"):
        trend = bool(outputs.asset_trend) or any(f.delta_status for f in outputs.findings)
        check("trend_mode", trend, True, trend)
    if "clarification_question" in expected:
        wants_question = expected["clarification_question"] is not None
        has_question = bool(intent.clarification_question)
        check("clarification", wants_question == has_question, wants_question, intent.clarification_question)
    return _optional_checks(expected, state, checks, query, services)


def _optional_checks(expected: dict[str, Any], state: AssessmentState, checks: dict[str, dict[str, Any]],
                     query: Query | None, services: Services) -> dict[str, dict[str, Any]]:
    """Checks a case states only when it cares: meta-intent, follow-up handling, tools, skill, routing, and
    the answer itself (``orchestration/answer_checks.py``)."""
    intent = state.intent
    if expected.get("meta_intent"):
        checks["meta_intent"] = {"passed": intent.meta_intent == expected["meta_intent"],
                                 "expected": expected["meta_intent"], "actual": intent.meta_intent}
    if expected.get("resolution"):
        got = state.conversation.resolution
        checks["resolution"] = {"passed": got == expected["resolution"], "expected": expected["resolution"], "actual": got}
    if expected.get("skill"):
        skill = intent.domain_details.skill
        checks["skill"] = {"passed": skill == expected["skill"], "expected": expected["skill"], "actual": skill}
    if "routing" in expected:
        checks["routing"] = {"passed": state.plan.routing == expected["routing"], "expected": expected["routing"],
                             "actual": state.plan.routing}
    if "entities" in expected and "entities" not in checks:
        have = {(e.type, _norm(e.value)) for e in intent.entities}
        want = [(e["type"], e["value"]) for e in expected["entities"]]
        checks["entities"] = {"passed": all((t, _norm(v)) in have for t, v in want),
                              "expected": [f"{t}={v}" for t, v in want],
                              "actual": [f"{e.type}={e.value}" for e in intent.entities]}
    if "scope" in expected:  # what the answer says it covered (final.scope), field by field
        covered = state.final.scope.model_dump() if state.final.scope else {}
        def same(k: str, v: Any) -> bool:  # a filter of one value may be written as that value
            return covered.get(k) == v or (isinstance(covered.get(k), list) and covered[k] == [v])

        checks["scope"] = {"passed": bool(covered) and all(same(k, v) for k, v in expected["scope"].items()),
                           "expected": expected["scope"], "actual": covered}
    if "name_readings" in expected:  # how typed names were read: [{mention, status[, value]}]
        readings = [{"mention": r.mention, "status": r.status, "value": r.value} for r in intent.name_resolutions]
        wanted: list[dict[str, Any]] = expected["name_readings"]
        checks["name_readings"] = {
            "passed": all(any(all(g.get(k) == v for k, v in w.items()) for g in readings) for w in wanted),
            "expected": wanted, "actual": readings}
    if "mcp_tools" in expected and "tools" not in checks:
        tools = query_tools(state, services)
        checks["tools"] = {"passed": tools == sorted(set(expected["mcp_tools"])), "expected": expected["mcp_tools"],
                           "actual": tools}
    if "answer" in expected:
        checks["answer"] = score_answer(expected["answer"], state,
                                        query or warehouse_query(services.settings.warehouse_path))
    return checks


def _tally(totals: dict[str, list[int]], checks: dict[str, dict[str, Any]]) -> None:
    for name, c in checks.items():
        totals.setdefault(name, [0, 0])
        totals[name][0] += int(c["passed"])
        totals[name][1] += 1


def run_cases(cases: list[dict[str, Any]], services: Services | None = None) -> dict[str, Any]:
    """Single-turn cases, and conversation cases (``turns``) each in a fresh thread, over ``services`` (default:
    those of the current settings, built once for all cases)."""
    services = services or build_services()
    results: list[dict[str, Any]] = []
    totals: dict[str, list[int]] = {}
    for case in cases:
        thread = f"eval-{case['id']}-{uuid.uuid4().hex[:8]}"
        if "turns" in case:
            turns = []
            for turn in case["turns"]:
                state = handle_turn(turn["user_prompt"], thread_id=thread, user_id=thread, services=services)
                checks = score_case(turn.get("expected", {}), state, services)
                _tally(totals, checks)
                turns.append({"user_prompt": turn["user_prompt"], "checks": checks, "state": state.model_dump(mode="json")})
            results.append({"id": case["id"], "passed": all(c["passed"] for t in turns for c in t["checks"].values()),
                            "turns": turns})
            continue
        state = handle_turn(case["user_prompt"], thread_id=thread, user_id="eval", services=services)
        checks = score_case(case["expected"], state, services)
        _tally(totals, checks)
        results.append({"id": case["id"], "user_prompt": case["user_prompt"],
                        "passed": all(c["passed"] for c in checks.values()),
                        "checks": checks, "state": state.model_dump(mode="json")})
    lines = sorted(answer_lines(t["state"]["final"]["answer"]) for r in results for t in r.get("turns", [r]))
    conversations = [r for r in results if "turns" in r]
    summary = {
        "answer_lines": {"median": _quantile(lines, 0.5), "p90": _quantile(lines, 0.9)},
        "turns": {"passed": sum(all(c["passed"] for c in t["checks"].values()) for r in conversations for t in r["turns"]),
                  "total": sum(len(r["turns"]) for r in conversations)},
        # gated turns carry "confidence in any domain intent", not in the class they got: left out
        "calibration": calibration([(r["state"]["intent"]["confidence"], r["checks"]["intent_class"]["passed"])
                                    for r in results if "state" in r and "intent_class" in r["checks"]
                                    and r["state"]["intent"]["intent_class"] != "unknown_or_needs_clarification"]),
        "cases": len(results),
        "passed": sum(r["passed"] for r in results),
        "checks": {name: {"passed": p, "total": t} for name, (p, t) in totals.items()},
    }
    return {"cases": results, "summary": summary}


def answer_lines(answer: str) -> int:
    """How long an answer reads: its lines with text (a table row is a line)."""
    return sum(1 for line in answer.splitlines() if line.strip())


def _quantile(values: list[int], q: float) -> int:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0


def calibration(pairs: list[tuple[float, bool]], bins: int = 5) -> dict[str, float]:
    """Expected calibration error of the intent confidence against intent correctness."""
    if not pairs:
        return {"mean_confidence": 0.0, "intent_accuracy": 0.0, "ece": 0.0}
    ece = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        members = [(c, ok) for c, ok in pairs if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        if members:
            conf = sum(c for c, _ in members) / len(members)
            acc = sum(ok for _, ok in members) / len(members)
            ece += len(members) / len(pairs) * abs(conf - acc)
    return {"mean_confidence": round(sum(c for c, _ in pairs) / len(pairs), 3),
            "intent_accuracy": round(sum(ok for _, ok in pairs) / len(pairs), 3), "ece": round(ece, 3)}


def _failure_details(report: dict[str, Any]) -> list[str]:
    """Why each failed answer check failed (the other checks' table cells say enough)."""
    out: list[str] = []
    for r in report["cases"]:
        turns = r.get("turns") or [r]
        for i, t in enumerate(turns, start=1):
            check = t["checks"].get("answer")
            if check and not check["passed"]:
                label = f"{r['id']}.{i}" if "turns" in r else r["id"]
                out.append(f"  {label} {t['user_prompt']!r}: " + "; ".join(check["actual"]["failures"]))
                out.append(f"      lead: {check['actual']['lead']}")
    return ["", "answer checks that failed:", *out] if out else []


def render_scorecard(report: dict[str, Any]) -> str:
    names = list(report["summary"]["checks"])
    short = {n: n[:6] for n in names}
    width = max([10, *(len(r["id"]) + (3 if "turns" in r else 0) for r in report["cases"])])
    lines = [f"{'case':<{width}} " + " ".join(f"{short[n]:>6}" for n in names) + "  result"]

    def row(label: str, checks: dict[str, Any], passed: bool) -> str:
        marks = " ".join(f"{('ok' if checks[n]['passed'] else 'FAIL') if n in checks else '-':>6}" for n in names)
        return f"{label:<{width}} {marks}  {'PASS' if passed else 'fail'}"

    for r in report["cases"]:
        if "turns" in r:
            for i, t in enumerate(r["turns"], start=1):
                lines.append(row(f"{r['id']}.{i}", t["checks"], all(c["passed"] for c in t["checks"].values())))
        else:
            lines.append(row(r["id"], r["checks"], r["passed"]))
    lines += _failure_details(report)
    s = report["summary"]
    lines.append("")
    lines.append("totals: " + ", ".join(f"{n} {v['passed']}/{v['total']}" for n, v in s["checks"].items()))
    cal = s["calibration"]
    lines.append(f"intent confidence (routed cases): mean {cal['mean_confidence']}, accuracy {cal['intent_accuracy']}, "
                 f"expected calibration error {cal['ece']}")
    lines.append(f"cases passed: {s['passed']}/{s['cases']}"
                 + (f"; conversation turns passed: {s['turns']['passed']}/{s['turns']['total']}" if s["turns"]["total"]
                    else ""))
    lines.append(f"answer length in lines: median {s['answer_lines']['median']}, 90th percentile {s['answer_lines']['p90']}")
    return "\n".join(lines)
