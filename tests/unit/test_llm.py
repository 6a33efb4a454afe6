"""The optional LLM, exercised with LangChain's fake chat model: its output is used only when it passes
the same guards as deterministic text, and the deterministic path is kept otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from orchestration import llm
from orchestration.agents.intent_classifier import classify
from orchestration.runtime import handle_turn
from orchestration.services import Services, build_services


class Replies:
    """The fake model's message source: replies queued by the test, one per call (no reply: the call fails), and
    the services that use the fake model."""

    def __init__(self, services: Services) -> None:
        self.queue: list[str] = []
        self.services = build_services(services.settings, reuse=services,
                                       chat_model=GenericFakeChatModel(messages=self))

    def append(self, text: str) -> None:
        self.queue.append(text)

    def __iter__(self) -> Replies:
        return self

    def __next__(self) -> AIMessage:
        if not self.queue:
            raise StopIteration
        return AIMessage(content=self.queue.pop(0))


@pytest.fixture()
def fake_llm(services: Services) -> Replies:
    return Replies(services)


def test_no_llm_by_default(services: Services) -> None:
    assert services.chat_model() is None and llm.ask(services.chat_model(), "anything") is None


def test_a_real_model_is_never_built_in_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASSESS_LLM_PROVIDER", "openai")
    monkeypatch.setenv("ASSESS_LLM_MODEL", "gpt-4o-mini")
    with pytest.raises(RuntimeError, match="fake"):
        build_services().chat_model()


def test_llm_breaks_a_tie_only_with_a_valid_label(fake_llm: Replies) -> None:
    prompt = "what is BGP"
    deterministic = classify(prompt, services=fake_llm.services)
    assert deterministic.intent_class == "unknown_or_needs_clarification" and 0.3 <= deterministic.confidence < 0.5
    fake_llm.append("cbp_generic")
    assert classify(prompt, services=fake_llm.services).domain_details.skill == "cbp_generic"
    fake_llm.append("make up something")
    assert classify(prompt, services=fake_llm.services).intent_class == "unknown_or_needs_clarification"


def test_llm_narrative_is_used_when_grounded_and_dropped_when_not(demo_warehouse: Path, fake_llm: Replies) -> None:
    prompt = "Summarize configuration best practice findings for HQ"
    plain = handle_turn(prompt, services=fake_llm.services)
    summary = plain.plan.tasks[-1].outputs.model_dump()["summary"]
    fake_llm.append("In short, for HQ: " + summary)
    grounded = handle_turn(prompt, services=fake_llm.services)
    assert grounded.final.answer.startswith("**Scope:**") and not grounded.final.partial
    assert grounded.final.answer.split("\n\n")[1].startswith("In short, for HQ:")  # the scope line stays first
    fake_llm.append("HQ has 987654 failed checks and is doomed.")
    invented = handle_turn(prompt, services=fake_llm.services)
    assert invented.final.answer == plain.final.answer  # the deterministic answer is kept
