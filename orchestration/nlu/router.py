"""Semantic router (DESIGN §4): route example utterances embedded with the bundled model, plus
lexical signals, both read from ``contracts/routes/intent_routes.yaml``.

Score of a route = mean of its two nearest example similarities + the boosts of matching signals.
Probabilities are a softmax over route scores at a fixed temperature; intent-class confidence
is the summed probability of the skills that make up the class (all three ``sec_*`` skills are
``security_assessment``). The temperature was chosen on the project's own labelled prompts
(``evals/``), see docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from foundation.yaml_files import ContractError, read_yaml
from knowledge_base.embedding_cache import embed_fixed
from knowledge_base.embeddings import Embedder
from orchestration.nlu.spelling import SpellingNormalizer

TEMPERATURE = 0.05
TOP_K = 2
OUT_OF_SCOPE = "out_of_scope"
VAGUE = "vague_request"
SKILL_TO_CLASS = {
    "cbp_assessment": "cbp_assessment",
    "cbp_expert_insights": "cbp_expert_insights",
    "cbp_generic": "cbp_generic",
    "sec_assessment": "security_assessment",
    "sec_expert_insights": "security_assessment",
    "sec_generic": "security_assessment",
    OUT_OF_SCOPE: "unknown_or_needs_clarification",
    VAGUE: "unknown_or_needs_clarification",
}


@dataclass(frozen=True)
class Signal:
    name: str
    pattern: re.Pattern[str]
    boost: dict[str, float]


@dataclass(frozen=True)
class RouteDecision:
    skill: str
    intent_class: str
    confidence: float
    skill_probabilities: dict[str, float]
    class_probabilities: dict[str, float]
    signals: list[str]
    max_similarity: float


class SemanticRouter:
    """Routes a prompt to a skill; build once per process (embeds the examples)."""

    def __init__(self, routes_file: Path, embedder: Embedder, vocabulary: Iterable[str] = ()) -> None:
        """``vocabulary``: real words beside the examples', never corrected (the bundled documents' words: "treated"
        was read as "related")."""
        try:
            data = read_yaml(routes_file)
            routes: dict[str, list[str]] = data["routes"]
            self.signals = [
                Signal(s["name"], re.compile(s["pattern"], re.IGNORECASE), dict(s["boost"])) for s in data["signals"]
            ]
        except (OSError, KeyError, TypeError, re.error, yaml.YAMLError) as exc:
            raise ContractError(f"{routes_file}: malformed routes file: {exc}") from None
        unknown = set(routes) - set(SKILL_TO_CLASS)
        if unknown:
            raise ContractError(f"{routes_file}: field 'routes': unknown routes {sorted(unknown)}")
        self.route_names = list(routes)
        self.embedder = embedder
        texts = [t for name in self.route_names for t in routes[name]]
        self._labels = np.array([i for i, name in enumerate(self.route_names) for _ in routes[name]])
        self._examples = embed_fixed(embedder, texts)  # the same examples in every process: kept on disk
        self.spelling = SpellingNormalizer((w for t in texts for w in re.findall(r"[A-Za-z]+", t)), vocabulary)

    def route(self, prompt: str) -> RouteDecision:
        query = self.embedder.embed([prompt])[0]
        sims = self._examples @ query
        scores = np.empty(len(self.route_names), dtype=np.float64)
        for i in range(len(self.route_names)):
            top = np.sort(sims[self._labels == i])[-TOP_K:]
            scores[i] = float(top.mean())
        fired = [s for s in self.signals if s.pattern.search(prompt)]
        for signal in fired:
            for route, boost in signal.boost.items():
                if route in self.route_names:
                    scores[self.route_names.index(route)] += boost
        logits = scores / TEMPERATURE
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        skill_p = {name: float(p) for name, p in zip(self.route_names, probs, strict=True)}
        class_p: dict[str, float] = {}
        for name, p in skill_p.items():
            cls = SKILL_TO_CLASS[name]
            class_p[cls] = class_p.get(cls, 0.0) + p
        intent_class = max(class_p, key=lambda c: class_p[c])
        members = [s for s in skill_p if SKILL_TO_CLASS[s] == intent_class]
        skill = max(members, key=lambda s: skill_p[s])
        return RouteDecision(
            skill=skill,
            intent_class=intent_class,
            confidence=class_p[intent_class],
            skill_probabilities=skill_p,
            class_probabilities=class_p,
            signals=[s.name for s in fired],
            max_similarity=float(sims.max()),
        )
