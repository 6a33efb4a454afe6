"""The composition root: everything a node uses beyond STATE, built by ``build_services(settings)`` and passed in.

``build_graph(services)`` hands ``Services`` to every node; nodes never fetch contracts, rules, signatures, the
ontology, tools, the model, the router, the question-frame reader, the inventory's names, the knowledge base, the chat
model or memory from process globals. A ``Services`` owns what it builds, each on first use: the embedding model, the
router and the frame reader (shared with ``reuse``: they depend on the model and the bundled contracts, not on the
data), the knowledge base, the names of its warehouse (kept per warehouse version), the optional chat model and the
graph compiled over it (``kept``, by the runtime) — so two ``Services`` of two settings in one process (tests, a second
data directory) never see each other's. The catalog (``orchestration.catalog``: agent and tool contracts, rules,
signatures, ontology) is read when the services are built, once per contracts directory (shared with ``reuse`` of the
same directory), and handed down to the engines, tools and builders that use it. A process builds one and passes it
down: the CLI in its command, the chat server at start-up, each turn worker before its first turn.

The services keep their warehouse readers (``warehouse()``, closed by ``close()``), their database pools and the
stores migrated in them (``databases``): no module keeps state of its own (``tests/unit/test_module_state.py``), and
settings are read by ``build_services`` and the front ends. (The chat server's own parts are one object of the chat
layer: chat_app/server_parts.py.)
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from assessment_engine.warehouse.store import Warehouse, Warehouses
from foundation.config import Settings, get_settings
from foundation.database import Databases
from knowledge_base.embeddings import Embedder, SentenceVectors, load_embedder
from knowledge_base.retrieval import HybridRetriever
from knowledge_base.service import Knowledge, seed_vocabulary
from orchestration.catalog import Catalog, load_catalog
from orchestration.contracts import ContractSet
from orchestration.memory.store import MemoryStore
from orchestration.nlu.inventory_names import NameCache, inventory_gazetteer, visible_collections
from orchestration.nlu.names import Gazetteer
from orchestration.nlu.router import SemanticRouter
from orchestration.tools.builtin import BUILTIN_TOOLS
from orchestration.tools.registry import ToolImpl, ToolRegistry

if TYPE_CHECKING:
    from orchestration.nlu.frame import FrameReader

T = TypeVar("T")


@dataclass
class _Readers:
    """The embedding model, the router and the frame reader: built from the model and the bundled contracts and
    frames corpus, not from the data — ``build_services(settings, reuse=...)`` shares them between services of two
    data directories."""

    key: tuple[str, ...]
    threads: int | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    embedder: Embedder | None = None
    router: SemanticRouter | None = None
    reader: FrameReader | None = None


@dataclass
class _Kept:
    """What a layer above built over these services (``Services.kept``)."""

    # re-entrant: what is being built may itself ask for something kept (the graph's nodes, the knowledge base)
    lock: threading.RLock = field(default_factory=threading.RLock)
    made: dict[str, Any] = field(default_factory=dict)


def _readers_key(settings: Settings, threads: int | None) -> tuple[str, ...]:
    return (str(settings.contracts_dir), str(settings.frames_corpus), str(settings.model_path),
            settings.embedding_runtime, str(threads))


@dataclass(frozen=True)
class Services:
    settings: Settings
    catalog: Catalog  # what the contracts directory declares: contracts, rules, signatures, ontology
    tools: ToolRegistry
    readers: _Readers
    warehouses: Warehouses = field(repr=False, compare=False)  # the warehouse readers (``warehouse()``), kept with the services and closed with them
    # task agents beside the built-in ones (orchestration.agents.TASK_AGENTS), by graph node: the graph wires them
    agents: Mapping[str, ModuleType] = field(default_factory=dict)
    given_chat_model: Any = field(default=None, repr=False, compare=False)
    name_cache: NameCache = field(default_factory=NameCache, repr=False, compare=False)
    # the database pools (PostgreSQL) and the stores migrated in them, kept with the services
    databases: Databases = field(default_factory=Databases, repr=False, compare=False)
    _kept: _Kept = field(default_factory=_Kept, repr=False, compare=False)

    @property
    def contracts(self) -> ContractSet:
        return self.catalog.contracts

    def warehouse(self) -> Warehouse:
        """The configured warehouse's reader, opened on first use (``WarehouseUnavailable`` says why it cannot)."""
        return self.warehouses.get(self.settings)

    def close(self) -> None:
        """Close the warehouse readers (a test's services, a benchmark's data directory); the next use reopens."""
        self.warehouses.close()

    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use (a few seconds; ``EmbeddingUnavailable`` says why it cannot)."""
        with self.readers.lock:
            if self.readers.embedder is None:
                self.readers.embedder = load_embedder(self.settings, self.readers.threads)
            return self.readers.embedder

    def sentence_vectors(self) -> SentenceVectors:
        """How close sentences of the retrieved chunks are to a question, each sentence encoded once per process."""
        return self.kept("sentence_vectors", lambda s: SentenceVectors(s.embedder()))

    def router(self) -> SemanticRouter:
        """The intent router (its route examples embedded once; the embeddings are kept on disk between processes)."""
        embedder = self.embedder()
        with self.readers.lock:
            if self.readers.router is None:
                self.readers.router = SemanticRouter(self.settings.contracts_dir / "routes" / "intent_routes.yaml",
                                                     embedder, seed_vocabulary())
            return self.readers.router

    def reader(self) -> FrameReader:
        """The question-frame reader fitted on the frames corpus (the fit is kept on disk between processes)."""
        from orchestration.nlu.frame import FrameReader, load_corpus

        embedder = self.embedder()
        with self.readers.lock:
            if self.readers.reader is None:
                self.readers.reader = FrameReader(load_corpus(self.settings.frames_corpus), embedder)
            return self.readers.reader

    def kept(self, name: str, build: Callable[[Services], T]) -> T:
        """What ``build`` makes of these services, made once and kept with them — for a layer above this one (the
        runtime keeps the compiled graph here: the graph is built over services, so they cannot build it)."""
        with self._kept.lock:
            if name not in self._kept.made:
                self._kept.made[name] = build(self)
            return cast(T, self._kept.made[name])

    def chat_model(self) -> Any | None:
        """The optional LLM (a LangChain chat model): the one given to ``build_services``, else the configured one,
        built on first use; None without one."""
        from orchestration.llm import build_chat_model

        if self.given_chat_model is not None:
            return self.given_chat_model
        return self.kept("chat model", lambda s: build_chat_model(s.settings))

    def names(self, viewer: str | None = None) -> Gazetteer:
        """The inventory's names (sites, devices, assessments …) as ``viewer`` may see them, and the rule ids (never
        read as a name)."""
        return dataclasses.replace(inventory_gazetteer(self.settings, self.warehouse, viewer, self.name_cache),
                                   rule_ids=self.catalog.rules.ids)

    def collections(self, viewer: str | None = None) -> list[str]:
        """Upload collections ``viewer`` may see (newest first); the fleet is everyone's and not listed."""
        return visible_collections(self.settings, self.warehouse, viewer)

    def knowledge(self) -> Knowledge:
        """The configured knowledge base (its index opened on first use)."""
        return self.kept("knowledge", lambda s: Knowledge(
            s.settings.index_dir, s.settings.knowledge_url, s.embedder,
            (s.settings.parse_timeout_seconds, s.settings.parse_memory_mb), s.databases))

    def retriever(self) -> HybridRetriever | None:
        """The knowledge retriever, or None when no knowledge index has been built."""
        knowledge = self.knowledge()
        return knowledge.retriever if knowledge.exists() else None

    def memory(self) -> MemoryStore:
        """The conversation memory, through these services' database pools (migrated once by them)."""
        return MemoryStore(url=self.settings.memory_url, quota_bytes=self.settings.memory_quota_mb * 1024 * 1024,
                           databases=self.databases)


def build_services(settings: Settings | None = None, reuse: Services | None = None,
                   chat_model: Any | None = None, threads: int | None = None,
                   embedder: Embedder | None = None, agents: Mapping[str, ModuleType] | None = None,
                   tools: Mapping[str, ToolImpl] | None = None) -> Services:
    """Services over ``settings`` (default: the process's, from the environment). Cheap: what is slow is built on
    first use. ``reuse``: services whose model, router and frame reader these may share when they are built from the
    same model, contracts and corpus (tests over many data directories: the model loads once). ``chat_model``: an LLM to
    use instead of the configured one (tests give a fake). ``threads``: the model's share of the cores (a turn
    worker's). ``embedder``: a model to use instead of loading the configured one (a test's fake). ``agents`` and
    ``tools``: implementations beside the built-in ones, by graph node and tool name (each needs its contract in the
    configured contracts directory)."""
    settings = settings or get_settings()
    # the catalog is read once per contracts directory: services built with ``reuse`` of the same directory share it
    catalog = reuse.catalog if reuse is not None and reuse.catalog.directory == settings.contracts_dir \
        else load_catalog(settings.contracts_dir)
    key = _readers_key(settings, threads)
    if embedder is not None:  # readers of their own: the router and frame reader embed with the given model
        readers = _Readers((*key, f"given {id(embedder)}"), threads, embedder=embedder)
    elif reuse is not None and reuse.readers.key == key:
        readers = reuse.readers
    else:
        readers = _Readers(key, threads)
    warehouses = Warehouses(catalog.ontology)
    return Services(settings=settings, catalog=catalog, readers=readers, given_chat_model=chat_model,
                    agents=dict(agents or {}), warehouses=warehouses,
                    tools=ToolRegistry(catalog, {**BUILTIN_TOOLS, **(tools or {})}, lambda: warehouses.get(settings)))
