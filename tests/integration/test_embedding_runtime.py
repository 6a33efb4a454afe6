"""The embedding runtime's quality gate (issue 32): ONNX Runtime on the model exported at install time gives torch's
vectors, the same top-5 documents on the knowledge eval, and the same route for every evaluation prompt — each
side computed from scratch by its own runtime (route examples and the knowledge index included), with the real
model on both sides."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from foundation.config import PROJECT_ROOT, get_settings, using_data_dir
from knowledge_base.embeddings import Embedder, OnnxEmbedder, SentenceTransformerEmbedder
from knowledge_base.evaluation import load_questions
from orchestration.nlu.router import SemanticRouter
from orchestration.services import build_services
from tests.conftest import UPSTREAM_CASES


def _prompts() -> list[str]:
    prompts: list[str] = []
    for name in ("cases", "answers", "faithful_scope", "conversations"):  # single prompts and conversations' turns
        for case in json.loads((PROJECT_ROOT / "evals" / f"{name}.json").read_text())["eval_cases"]:
            prompts += [t["user_prompt"] for t in case.get("turns", [case])]
    if UPSTREAM_CASES.exists():
        prompts += [c["user_prompt"] for c in json.loads(UPSTREAM_CASES.read_text())["eval_cases"]]
    lines = (PROJECT_ROOT / "evals" / "question_frames.jsonl").read_text().splitlines()
    prompts += [json.loads(line)["question"] for line in lines if line.strip()]
    return list(dict.fromkeys(prompts))


@pytest.fixture(scope="module")
def runtimes() -> tuple[OnnxEmbedder, SentenceTransformerEmbedder]:
    settings = get_settings()
    assert settings.onnx_model_path.exists(), "no export: 'assess model export' (make install runs it)"
    return (OnnxEmbedder(settings.model_path, settings.onnx_model_path),
            SentenceTransformerEmbedder(settings.model_path))


@pytest.fixture(scope="module")
def prompt_vectors(runtimes: tuple[Embedder, Embedder]) -> tuple[np.ndarray, np.ndarray]:
    """Every evaluation prompt embedded by each runtime, in one batch each."""
    prompts = _prompts()
    return runtimes[0].embed(prompts), runtimes[1].embed(prompts)


def test_the_export_gives_torchs_vectors_for_every_evaluation_prompt(
        runtimes: tuple[Embedder, Embedder], prompt_vectors: tuple[np.ndarray, np.ndarray]) -> None:
    prompts = _prompts()
    assert len(prompts) > 500
    onnx, torch = prompt_vectors
    assert onnx.shape == torch.shape == (len(prompts), 384)
    assert float(np.abs(onnx - torch).max()) < 1e-4
    single = runtimes[0].embed([prompts[0]])  # one question alone (its own session, one thread) is the same vector
    assert float(np.abs(single[0] - torch[0]).max()) < 1e-4


def test_every_evaluation_prompt_routes_the_same_on_both_runtimes(
        runtimes: tuple[Embedder, Embedder], prompt_vectors: tuple[np.ndarray, np.ndarray]) -> None:
    routes_file = get_settings().contracts_dir / "routes" / "intent_routes.yaml"
    prompts = _prompts()
    onnx, torch = (SemanticRouter(routes_file, _Embedded(runtime, prompts, vectors))
                   for runtime, vectors in zip(runtimes, prompt_vectors, strict=True))
    texts = [t for name in onnx.route_names for t in _route_examples(routes_file)[name]]
    onnx._examples, torch._examples = runtimes[0].embed(texts), runtimes[1].embed(texts)  # not the shared disk cache
    differ = [(p, a.skill, b.skill) for p in prompts
              if (a := onnx.route(p)).skill != (b := torch.route(p)).skill or a.intent_class != b.intent_class]
    assert differ == []


class _Embedded:
    """A runtime's vectors of the prompts, embedded in one batch (a question alone gives the same vector: above)."""

    def __init__(self, runtime: Embedder, prompts: list[str], vectors: np.ndarray) -> None:
        self.name, self.dimension = runtime.name, runtime.dimension
        self._vectors = dict(zip(prompts, vectors, strict=True))

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vectors[t] for t in texts])


def _route_examples(routes_file: Path) -> dict[str, list[str]]:
    import yaml

    return dict(yaml.safe_load(routes_file.read_text(encoding="utf-8"))["routes"])


def _top5(runtime: Embedder, data_dir: Path) -> list[list[str]]:
    """The seed knowledge base indexed by ``runtime`` and searched with it: each eval question's top-5 chunks."""
    from knowledge_base.ingest import ensure_seed_index

    with using_data_dir(data_dir):
        knowledge = build_services(embedder=runtime).knowledge()
        ensure_seed_index(knowledge)
        retriever = knowledge.retriever
        return [[c.metadata["chunk_id"] for c in retriever.search(q["question"], k=5)] for q in load_questions()]


def test_the_knowledge_eval_finds_the_same_top_five_on_both_runtimes(runtimes: tuple[Embedder, Embedder],
                                                                    tmp_path: Path) -> None:
    onnx, torch = _top5(runtimes[0], tmp_path / "onnx"), _top5(runtimes[1], tmp_path / "torch")
    assert len(onnx) == len(load_questions()) >= 50
    assert onnx == torch


def test_answering_a_question_imports_neither_torch_nor_transformers(demo_warehouse: Path) -> None:
    script = ("import sys; from orchestration.runtime import handle_turn; "
              "s = handle_turn('What does our SNMPv3 standard require?'); assert s.final.citations, s.final.answer; "
              "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr[-2000:]
