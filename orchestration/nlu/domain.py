"""An intent's domain details (DESIGN §3: goal, scope, urgency, presentation) derived from its skill and
entities — shared by the Intent Classifier and the multi-turn resolution."""

from __future__ import annotations

from foundation.vocabulary.scope import Scope
from orchestration.state import DomainDetails, Entity

GOALS = {
    "cbp_assessment": "Interpret configuration best-practice assessment results",
    "cbp_expert_insights": "Interpret SLIC known-issue findings against enterprise policies",
    "cbp_generic": "Explain configuration best practice from standards",
    "sec_assessment": "Assess security posture from assessment data",
    "sec_expert_insights": "Interpret security signatures and vulnerabilities against policies",
    "sec_generic": "Explain security hardening practice from standards",
}


def _presentation(entities: list[Entity]) -> str:
    formats = [e.value for e in entities if e.type == "output_format"]
    return formats[0] if formats else "narrative"


def domain_details_for(skill: str | None, entities: list[Entity]) -> DomainDetails:
    def first(t: str) -> str | None:
        return next((e.value for e in entities if e.type == t), None)

    targets = [e.value for e in entities if e.type in ("device", "device_type", "asset_target")]
    sites = [e.value for e in entities if e.type == "site"]
    urgent = first("priority") in ("urgent", "P1") or first("severity") == "critical"
    return DomainDetails(
        assessment_goal=GOALS.get(skill or "", ""),
        skill=skill,  # type: ignore[arg-type]
        scope=Scope(site=sites[0] if sites else None, environment=first("environment"),
                    time_range=first("timeframe"), targets=sites[1:] + targets),
        urgency="high" if urgent else "normal",
        presentation_requirement=_presentation(entities),
    )
