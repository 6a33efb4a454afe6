"""Security Assessment Agent (DESIGN §7.2), skills sec_assessment, sec_expert_insights, sec_generic.
Contract: contracts/agents/security_assessment_agent.yaml.

Groups security-relevant deviations into insecure management services, weak AAA, exposure and
missing hardening, states its exposure assumptions, and claims a vulnerability only when a SLIC
result carries version evidence and the catalog's CVE mapping — otherwise it says that it cannot be
determined from configuration data.
"""

from __future__ import annotations

from collections.abc import Mapping

from assessment_engine.checks.rule_engine import Rule
from orchestration.agents.config_best_practice_agent import focused, interpret_assessment, with_gaps
from orchestration.agents.evidence import gather, qualified_outputs
from orchestration.enforcement import TaskResult
from orchestration.interpretation import findings, generic_answers, slic_insights
from orchestration.interpretation.empty_scope import train_not_run
from orchestration.interpretation.findings import devices
from orchestration.nlu.domain import GOALS
from orchestration.outputs import DomainOutputs, SlicContext, TaskOutputs
from orchestration.services import Services
from orchestration.state import AssessmentState, Task

EXPOSURE_ASSUMPTIONS = [
    "Internet exposure is inferred from the configuration: an interface is edge on topology evidence (an external "
    "eBGP neighbour on its subnet, NAT outside, a default route through it, a dial-up/PPP/DHCP provider link, an "
    "outside zone, VRF, ACL or ASA nameif, or an Internet/ISP description on a public address); no reachability "
    "scan or ACL simulation was available.",
    "Management services are assumed reachable from wherever the device's access classes allow; devices without a VTY "
    "access class are assumed reachable from any internal address.",
]
NO_VULN_DATA = ("Software vulnerabilities cannot be determined from configuration checks alone: no SLIC version "
                "matches were part of this question. Ask about SLIC or vulnerability findings to check releases against "
                "the advisory mapping.")
DEFAULT_CATEGORY = "missing hardening"


def category_of(rule_id: str, rules: Mapping[str, Rule]) -> str:
    """The rule's security category from the rule catalog (``security_category`` in config_rules.yaml)."""
    rule = rules.get(rule_id)
    return rule.security_category if rule else DEFAULT_CATEGORY


def _security_view(outputs: DomainOutputs, rules: Mapping[str, Rule]) -> DomainOutputs:
    # per category, per rule: devices affected — the larger of the stated count and the devices named, so that
    # device-level findings (one per device) are counted once per device, not listed once per row
    groups: dict[str, dict[str, tuple[int, set[str]]]] = {}
    categorized = [f.evolve(security_category=category_of(f.rule_id, rules)) for f in outputs.findings]
    for f in categorized:
        category = f.security_category or DEFAULT_CATEGORY
        count, named = groups.setdefault(category, {}).get(f.rule_id, (0, set()))
        groups[category][f.rule_id] = (max(count, f.assets_affected), named | set(f.entities_referenced))
    summary = outputs.summary
    if groups:
        detail = " ".join(
            f"{name[0].upper() + name[1:]}: "
            + ", ".join(f"{rid} ({devices(max(n, len(named)))})" for rid, (n, named) in list(rules.items())[:4]) + "."
            for name, rules in groups.items())
        summary = f"{summary}\n\nSecurity view — {detail}" if "\n" in summary else f"{summary} Security view — {detail}"
    return outputs.evolve(findings=categorized, summary=summary, exposure_assumptions=list(EXPOSURE_ASSUMPTIONS),
                          assumptions=[*outputs.assumptions, NO_VULN_DATA])


def run(state: AssessmentState, task: Task, services: Services) -> TaskResult:
    evidence = gather(state, task)
    goal = GOALS[task.skill]
    outputs: DomainOutputs | None
    if task.skill == "sec_generic":
        outputs = generic_answers.answer(state.prompt, evidence.chunks, task.skill, services.catalog.rules.rules,
                                         state.input.pasted_lines, services.sentence_vectors().similarities,
                                         generic_answers.carried_words(state))
        outputs = outputs.evolve(exposure_assumptions=[])
    elif evidence.missing_required:
        outputs = qualified_outputs(evidence, goal).evolve(exposure_assumptions=list(EXPOSURE_ASSUMPTIONS))
    elif task.skill == "sec_expert_insights":
        limit = findings.top_n(state.intent.domain_details.presentation_requirement, 6)
        outputs = slic_insights.insights(evidence.slic_context or SlicContext(), evidence.chunks,
                                         state.intent.facets.mentions_pci, limit, prefix="SEC", security_only=True,
                                         signatures=state.intent.frame.targets.signature)
        outputs = outputs.evolve(exposure_assumptions=list(EXPOSURE_ASSUMPTIONS))
    elif (outputs := train_not_run(state.intent)) is not None:
        pass  # "anything still on 15.x?": No, with the releases the inventory runs
    else:
        outputs = interpret_assessment(state, evidence, "SEC", services.catalog)
        if outputs is None:
            outputs = qualified_outputs(evidence, goal, "the assessment holds no results for this scope")
            outputs = outputs.evolve(exposure_assumptions=list(EXPOSURE_ASSUMPTIONS))
        elif state.intent.query is None:  # a query's answer is its figures, not a security review
            outputs = _security_view(outputs, services.catalog.rules.by_id)
    outputs = with_gaps(focused(outputs, state, evidence), evidence)
    return TaskResult("completed", TaskOutputs.of(outputs), summary=outputs.summary[:200])
