"""Knowledge Agent (DESIGN §6.1): formulates the retrieval query and retrieves enterprise knowledge.
Contract: contracts/agents/knowledge_agent.yaml.

The query is built only from what STATE holds: the prompt, the intent's entities and skill, and
for follow-ups the carried-over scope. Retrieval is hybrid (knowledge_base.retrieval); an empty result
is reported as such and no chunk is ever fabricated.
"""

from __future__ import annotations

import re

from foundation.database import DatabaseUnavailable
from foundation.vocabulary.text import HOW_LONG
from orchestration.enforcement import TaskResult
from orchestration.nlu.two_questions import parts, points_back
from orchestration.outputs import (
    EnterpriseContext,
    QueryMetadata,
    RetrievalQuery,
    RetrievedChunk,
    TaskOutputs,
)
from orchestration.services import Services
from orchestration.state import AssessmentState, Task

TOP_K = 5
TOP_K_INSIGHTS = 8  # policies, exceptions and procedures all matter when interpreting SLIC results
# a question of time about remediation is about the deadlines, a word it does not use ("how long" and "deadline"
# share nothing for the keyword index)
_REMEDIATION = re.compile(r"\b(?:fix\w*|remediat\w*|patch\w*|clos\w*|resolv\w*|findings?|deviations?|issues?)\b", re.I)
_APPROVED_RELEASE = re.compile(r"\b(?:releases?|versions?|code|images?|trains?|\d+\.\d+[\w.()]*)\s+(?:\w+\s+){0,3}?"
                               r"(?:approved|allowed|permitted|sanctioned|supported)\b|\b(?:approved|allowed|permitted)\s+"
                               r"(?:to\s+(?:run|use|keep)\s+)?(?:\w+\s+){0,2}?\d+\.\d+", re.I)
SKILL_CUES = {
    "cbp_assessment": "configuration standard approved exceptions",
    "cbp_expert_insights": "policy approved exceptions escalation procedure",
    "cbp_generic": "configuration standard",
    "sec_assessment": "security policy hardening standard approved exceptions",
    "sec_expert_insights": "security policy escalation procedure vulnerability",
    "sec_generic": "hardening standard",
}


def formulate_query(state: AssessmentState) -> RetrievalQuery:
    """``retrieval_query`` per DESIGN §6.1: initial, generic or follow-up augmented."""
    intent, conv = state.intent, state.conversation
    skill = intent.domain_details.skill or ""
    scope = intent.domain_details.scope
    terms = [state.prompt.strip()]
    terms += [e.value for e in intent.entities if e.type in ("site", "device_type", "device") and e.value not in terms[0]
              and e.source != "conversation"]
    is_followup = intent.meta_intent == "followup_question" and conv.previous_intent is not None
    augmented_from: list[str] = []
    if is_followup:
        listed = sum(e.type == "device" for e in conv.carried_entities)
        for entity in conv.carried_entities:  # what the history added to this turn, named in the query
            if entity.type == "device" and listed > 2:
                continue  # the devices of a list name no passage, and drown the words that do
            augmented_from.append(f"{entity.type}={entity.value}")
            if entity.value not in " ".join(terms):
                terms.append(entity.value)
        if listed > 2:
            augmented_from.append(f"the {listed} devices of the last list (not put in the query)")
        if conv.history and conv.effective_prompt:
            augmented_from.append(f"turn {conv.history[-1].turn_number}: previous request")
        severities = conv.history[-1].query.condition("severity") if conv.history and conv.history[-1].query else None
        if severities is not None and not severities.negated and not any(v in terms[0] for v in severities.values):
            # "how fast must we fix those" after the high findings: the policy's line for that severity
            terms.append(" or ".join(severities.values) + " severity findings")
            augmented_from.append(f"turn {conv.history[-1].turn_number}: severity {' or '.join(severities.values)}")
    if HOW_LONG.search(state.prompt) and _REMEDIATION.search(state.prompt):
        terms.append("remediation deadlines")
    if _APPROVED_RELEASE.search(state.prompt):  # "is 16.12.4 approved?": the lifecycle policy's list of releases
        terms.append("approved software releases lifecycle")
    if not skill.endswith("_generic"):
        terms.append(SKILL_CUES.get(skill, ""))
    return RetrievalQuery(
        formulated_query=" ".join(t for t in terms if t).strip(),
        query_metadata=QueryMetadata(
            intent_class=intent.intent_class, skill=skill, scope=scope, is_followup=is_followup,
            augmented_from=augmented_from,
            query_kind="followup" if is_followup else ("generic" if skill.endswith("_generic") else "initial"),
        ),
    )


def run(state: AssessmentState, task: Task, services: Services) -> TaskResult:
    query = formulate_query(state)
    try:
        return _retrieve(state, query, services)
    except DatabaseUnavailable as exc:  # the shared knowledge base's server went away: the rest of the turn goes on
        return TaskResult("failed", TaskOutputs(retrieval_query=query),
                          error=f"the knowledge base at {exc.where} cannot be used ({exc.reason}); {exc.remedy}",
                          summary="query formulated; the knowledge base cannot be reached")


def _retrieve(state: AssessmentState, query: RetrievalQuery, services: Services) -> TaskResult:
    retriever = services.retriever()
    if retriever is None:
        return TaskResult("failed", TaskOutputs(retrieval_query=query),
                          error="no knowledge index is available (run 'assess demo build' or 'assess ingest')",
                          summary="query formulated; no knowledge index to search")
    skill = state.intent.domain_details.skill or ""
    chosen = state.conversation.documents
    # no topic filter: uploaded documents often carry no topic, and a filter would hide them; the skill's
    # cue words in the query steer retrieval towards standards, exceptions or procedures instead
    # a question for the documents alone reads sentences, not passages: a few more passages cost little and hold the
    # sentence that answers more often ("from where can asa management be reached": the standard's fourth section)
    k = TOP_K_INSIGHTS if "expert_insights" in skill or skill.endswith("_generic") else TOP_K
    chunks = retriever.search(query.formulated_query, k=k,
                              viewer=state.input.user_id,  # a user's uploads are theirs; shared documents everyone's
                              sources=chosen or None)  # the thread's chosen documents only
    asks = parts(state.prompt) if skill.endswith("_generic") else []
    if len(asks) > 1:
        # a question of two asks ("what is the SSH idle timeout and where must syslog go?"): the passages of each
        # ask too, so that the second is not crowded out by the first's
        for ask in asks:
            found = retriever.search(f"{ask} {asks[0]}" if points_back(ask) else ask, k=3,
                                     viewer=state.input.user_id, sources=chosen or None)
            chunks += [c for c in found if c.metadata["chunk_id"] not in {x.metadata["chunk_id"] for x in chunks}]
    context = EnterpriseContext(
        retrieved_chunks=[RetrievedChunk.model_validate(c.as_dict()) for c in chunks],
        query_used=query.formulated_query,
        retrieval_mode="hybrid (dense + BM25, reciprocal rank fusion)",
        latency_ms=round(retriever.last_latency_ms, 1),
        note=("" if chunks else "the knowledge base holds nothing relevant to this question") + (
            f"{'; ' if not chunks else ''}this conversation cites only: {', '.join(chosen)}" if chosen else ""),
    )
    sources = sorted({c.metadata["source"] for c in chunks})
    summary = f"{len(chunks)} chunk{'' if len(chunks) == 1 else 's'} from {', '.join(sources)}" if chunks else \
        "no relevant chunk found"
    if chosen:
        summary += f" (this conversation cites only {', '.join(chosen)})"
    return TaskResult("completed", TaskOutputs(retrieval_query=query, enterprise_context=context), summary=summary)
