"""The composition root: everything a node uses beyond STATE, built once per settings and passed in.

``build_graph(services)`` hands ``Services`` to every node; nodes never fetch contracts, tools, the
router, the knowledge base or memory from process globals. The heavy parts (the embedding model behind
the router and the retriever, the warehouse connection) are opened on first use and cached per path by
their own modules, so building ``Services`` is cheap and a test that points the settings at another data
directory gets services for that directory.
"""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_base.retrieval import HybridRetriever
from orchestration.config import Settings, get_settings
from orchestration.contracts import ContractSet, load_contracts_cached
from orchestration.memory.store import MemoryStore
from orchestration.nlu.inventory_names import inventory_gazetteer, visible_collections
from orchestration.nlu.names import Gazetteer
from orchestration.nlu.router import SemanticRouter, get_router
from orchestration.tools.builtin import BUILTIN_TOOLS
from orchestration.tools.registry import ToolRegistry
from orchestration.warehouse.store import get_warehouse


@dataclass(frozen=True)
class Services:
    settings: Settings
    contracts: ContractSet
    tools: ToolRegistry

    def router(self) -> SemanticRouter:
        return get_router(self.settings.contracts_dir)

    def names(self, viewer: str | None = None) -> Gazetteer:
        """The inventory's names (sites, devices, assessments …) as ``viewer`` may see them."""
        return inventory_gazetteer(self.settings, viewer)

    def collections(self, viewer: str | None = None) -> list[str]:
        """Upload collections ``viewer`` may see (newest first); the fleet is everyone's and not listed."""
        return visible_collections(self.settings, viewer)

    def retriever(self) -> HybridRetriever | None:
        """The knowledge retriever, or None when no knowledge index has been built."""
        from knowledge_base import service

        if not service.index_exists(self.settings.index_dir):
            return None
        return service.get_retriever(self.settings.index_dir)

    def memory(self) -> MemoryStore:
        return MemoryStore(url=self.settings.memory_url)


def build_services(settings: Settings | None = None) -> Services:
    settings = settings or get_settings()
    contracts = load_contracts_cached(settings.contracts_dir)
    return Services(settings=settings, contracts=contracts,
                    tools=ToolRegistry(contracts, BUILTIN_TOOLS, lambda: get_warehouse(settings)))
