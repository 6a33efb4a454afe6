"""Security Assessment Agent (DESIGN §7.2), skills sec_assessment, sec_expert_insights, sec_generic.
Contract: contracts/agents/security_assessment_agent.yaml.

Groups security-relevant deviations into insecure management services, weak AAA, exposure and
missing hardening, states its exposure assumptions, and claims a vulnerability only when a SLIC
result carries version evidence and the catalog's CVE mapping — otherwise it says that it cannot be
determined from configuration data.
"""

from __future__ import annotations

from typing import Any

from orchestration.agents.config_best_practice_agent import interpret_assessment, with_gaps
from orchestration.agents.evidence import gather, qualified_outputs
from orchestration.enforcement import TaskResult
from orchestration.interpretation import findings, generic_answers, slic_insights
from orchestration.interpretation.findings import devices
from orchestration.nlu.domain import GOALS
from orchestration.state import AssessmentState, Task

CATEGORIES = {
    "insecure management services": {"HTTP-SERVER", "VTY-SSH-ONLY", "NXOS-TELNET", "ASA-TELNET", "ASA-MGMT-ANY",
                                      "ASA-TLS", "SNMP-DEFAULT-COMM", "SNMP-RW", "SNMP-V3-PRIV", "SNMP-ACL", "VTY-ACL",
                                      "SSH-V2", "ASA-SSH-V2", "SVC-SMART-INSTALL"},
    "weak AAA": {"AAA-NEW-MODEL", "AAA-LOGIN-DEFAULT", "AAA-ENABLE-DEFAULT", "AAA-METHOD-NONE", "AAA-ACCOUNTING",
                 "PWD-ENABLE-SECRET", "PWD-USER-HASH", "PWD-SERVICE-ENC", "ASA-AAA-SSH", "NXOS-PWD-STRENGTH",
                 "LINE-EXEC-TIMEOUT"},
    "exposure": {"IF-URPF-EDGE", "IF-PROXY-ARP", "IF-CDP-EDGE", "BGP-EBGP-FILTER", "BGP-NEIGHBOR-AUTH"},
}
EXPOSURE_ASSUMPTIONS = [
    "Internet exposure is inferred from the configuration: interfaces whose description or ASA nameif says "
    "internet/ISP/WAN/outside are treated as edge; no reachability scan or ACL simulation was available.",
    "Management services are assumed reachable from wherever the device's access classes allow; devices without a VTY "
    "access class are assumed reachable from any internal address.",
]
NO_VULN_DATA = ("Software vulnerabilities cannot be determined from configuration checks alone: no SLIC version "
                "matches were part of this question. Ask about SLIC or vulnerability findings to check releases against "
                "the advisory mapping.")


def category_of(rule_id: str) -> str:
    return next((name for name, ids in CATEGORIES.items() if rule_id in ids), "missing hardening")


def _security_view(outputs: dict[str, Any]) -> dict[str, Any]:
    # per category, per rule: devices affected — the larger of the stated count and the devices named, so that
    # device-level findings (one per device) are counted once per device, not listed once per row
    groups: dict[str, dict[str, tuple[int, set[str]]]] = {}
    for f in outputs.get("findings", []):
        f["security_category"] = category_of(f["rule_id"])
        count, named = groups.setdefault(f["security_category"], {}).get(f["rule_id"], (0, set()))
        groups[f["security_category"]][f["rule_id"]] = (max(count, int(f.get("assets_affected", 0))),
                                                        named | set(f.get("entities_referenced") or []))
    if groups:
        detail = " ".join(
            f"{name[0].upper() + name[1:]}: "
            + ", ".join(f"{rid} ({devices(max(n, len(named)))})" for rid, (n, named) in list(rules.items())[:4]) + "."
            for name, rules in groups.items())
        outputs["summary"] = f"{outputs['summary']} Security view — {detail}"
    outputs["exposure_assumptions"] = list(EXPOSURE_ASSUMPTIONS)
    outputs.setdefault("assumptions", []).append(NO_VULN_DATA)
    return outputs


def run(state: AssessmentState, task: Task) -> TaskResult:
    evidence = gather(state, task)
    goal = GOALS[task.skill]
    outputs: dict[str, Any] | None
    if task.skill == "sec_generic":
        outputs = generic_answers.answer(state.prompt, evidence.chunks, task.skill)
        outputs["exposure_assumptions"] = []
    elif evidence.missing_required:
        outputs = qualified_outputs(evidence, goal)
        outputs["exposure_assumptions"] = list(EXPOSURE_ASSUMPTIONS)
    elif task.skill == "sec_expert_insights":
        limit = findings.top_n(state.intent.domain_details.presentation_requirement, 6)
        outputs = slic_insights.insights(evidence.slic_context, evidence.chunks, state.prompt, limit,
                                         prefix="SEC", security_only=True)
        outputs["exposure_assumptions"] = list(EXPOSURE_ASSUMPTIONS)
    else:
        outputs = interpret_assessment(state, evidence, "SEC")
        if outputs is None:
            outputs = qualified_outputs(evidence, goal, "the assessment holds no results for this scope")
            outputs["exposure_assumptions"] = list(EXPOSURE_ASSUMPTIONS)
        else:
            outputs = _security_view(outputs)
    if state.conversation.referenced_finding and outputs.get("findings") is not None and not evidence.missing_required:
        outputs = findings.focus_on(outputs, state.conversation.referenced_finding)
    outputs = with_gaps(outputs, evidence)
    return TaskResult("completed", outputs, summary=str(outputs["summary"])[:200])
