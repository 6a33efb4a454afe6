"""Intent Classifier on prompts beyond the eval files: paraphrases, typos, case, several entities,
out-of-domain prompts, meta-intents, and bad input. Uses the real bundled embedding model."""

from __future__ import annotations

import pytest

from orchestration.agents.intent_classifier import classify
from orchestration.services import Services

CLEAR = [
    # paraphrases
    ("Could you recap the findings of the newest config compliance audit?", "cbp_assessment", "cbp_assessment"),
    ("How did we score on the best-practice checks this time?", "cbp_assessment", "cbp_assessment"),
    ("List the five most frequent misconfigurations on our switches", "cbp_assessment", "cbp_assessment"),
    ("Which devices regressed between the last two assessments?", "cbp_assessment", "cbp_assessment"),
    ("What do the known issue signatures found at Store-47 mean for us under company policy?",
     "cbp_expert_insights", "cbp_expert_insights"),
    ("What is our standard for configuring NTP authentication?", "cbp_generic", "cbp_generic"),
    ("Why does the rule about the HTTP server fail?", "cbp_generic", "cbp_generic"),
    ("Where are we exposed through insecure management protocols?", "security_assessment", "sec_assessment"),
    ("How should we lock down SNMP on the edge routers to be secure?", "security_assessment", "sec_generic"),
    # typos and case
    ("sumarize my lastest configuraton assesment", "cbp_assessment", "cbp_assessment"),
    ("HOW MANY CHECKS FAILED AT BRANCH-05?", "cbp_assessment", "cbp_assessment"),
    ("is our datacenter 1 securly hardend?", "security_assessment", "sec_assessment"),
]


@pytest.mark.parametrize(("prompt", "intent_class", "skill"), CLEAR)
def test_clear_prompts_route_confidently(prompt: str, intent_class: str, skill: str, services: Services) -> None:
    intent = classify(prompt, services=services)
    assert (intent.intent_class, intent.domain_details.skill) == (intent_class, skill), intent.route_scores
    assert intent.confidence >= 0.6
    assert intent.clarification_question is None


@pytest.mark.parametrize("prompt", [
    "What's the weather like in Berlin?", "Tell me a joke about cats", "Who won the match yesterday?",
    "Recommend a pizza place nearby", "Show me stuff", "Tell me about Store-48", "hmm",
])
def test_out_of_domain_and_vague_prompts_hit_the_gate(prompt: str, services: Services) -> None:
    intent = classify(prompt, services=services)
    assert intent.intent_class == "unknown_or_needs_clarification"
    assert intent.confidence < 0.5
    assert intent.clarification_question and "?" in intent.clarification_question


@pytest.mark.parametrize("prompt", [
    "Please add this document.", "Here is the file", "Here are my configs", "I've attached the updated standard",
    "upload these files to the knowledge base, thanks", "Process the attached configurations",
])
def test_a_message_that_only_hands_over_files_is_not_answered_as_a_question(prompt: str, services: Services) -> None:
    """Without a file there is nothing to add: say so (the similarity router took these for a fleet summary)."""
    intent = classify(prompt, services=services)
    assert intent.intent_class == "unknown_or_needs_clarification" and intent.confidence == 0.0
    assert intent.clarification_question is not None and "don't see a file" in intent.clarification_question


@pytest.mark.parametrize("prompt", [
    "Here is the file, which devices fail the SSH checks?",
    "Please add this document and tell me our standard for NTP authentication",
])
def test_a_file_handoff_with_a_question_is_answered(prompt: str, services: Services) -> None:
    assert classify(prompt, services=services).clarification_question is None


def test_gate_question_is_targeted_at_the_named_scope(services: Services) -> None:
    intent = classify("Tell me about Store-48", services=services)
    assert "Store-48" in (intent.clarification_question or "")


def test_several_entities_in_one_prompt(services: Services) -> None:
    intent = classify("What percentage of production firewalls at DataCenter-1 have high severity findings in the last 30 days?", services=services)
    got = {(e.type, e.value) for e in intent.entities}
    assert {("environment", "production"), ("device_type", "firewall"), ("site", "DataCenter-1"),
            ("severity", "high"), ("timeframe", "last_30_days")} <= got
    scope = intent.domain_details.scope
    assert (scope.site, scope.environment, scope.time_range) == ("DataCenter-1", "production", "last_30_days")


@pytest.mark.parametrize(("prompt", "meta"), [
    ("Thanks a lot!", "acknowledgement"),
    ("ok, got it", "acknowledgement"),
    ("cancel that", "cancellation"),
    ("yes please do", "confirmation"),
    ("What do you mean by that?", "clarification_request"),
    ("Please escalate the critical firewall findings to the SOC", "escalation"),
    ("And what about the switches?", "followup_question"),
    ("Summarize the latest assessment", "new_topic"),
])
def test_meta_intent(prompt: str, meta: str, services: Services) -> None:
    assert classify(prompt, services=services).meta_intent == meta


def test_bare_followup_without_history_asks_instead_of_guessing(services: Services) -> None:
    intent = classify("Focus only on firewalls", services=services)
    assert intent.intent_class == "unknown_or_needs_clarification"
    assert "follow-up" in (intent.clarification_question or "")


@pytest.mark.parametrize(("prompt", "needle"), [("", "empty"), ("   \n\t ", "empty"), ("x" * 100_000, "100,000")])
def test_bad_input_gets_a_clear_message(prompt: str, needle: str, services: Services) -> None:
    intent = classify(prompt, services=services)
    assert intent.intent_class == "unknown_or_needs_clarification"
    assert needle in (intent.clarification_question or "")


def test_never_emits_table_or_tool_names_as_entities(services: Services) -> None:
    intent = classify("Run assessment_analysis_tool on the results table for HQ", services=services)
    assert all("tool" not in e.value and e.value != "results" for e in intent.entities)


def test_classification_is_deterministic(services: Services) -> None:
    a = classify("Which critical deviations remain open at HQ?", services=services)
    b = classify("Which critical deviations remain open at HQ?", services=services)
    assert a == b
