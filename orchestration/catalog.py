"""What a contracts directory declares, read once by whoever owns it: the agent and tool contracts, the rule catalog,
the SLIC signatures, the approved exceptions' file, the warehouse ontology and its semantic model.

``build_services`` loads one per contracts directory (services of the same directory share it through ``reuse``)
and hands it down; the engines, tools and builders take it, or the part they use, as an argument. Nothing here is
kept by a module: a second contracts directory in one process (a test, an extension) gets a catalog of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assessment_engine.checks.rule_engine import RuleCatalog, load_rule_catalog
from assessment_engine.checks.slic_engine import Signature, load_signatures
from assessment_engine.ontology import Ontology, load_ontology
from assessment_engine.semantic_model import SemanticModel, load_semantic_model
from orchestration.contracts import ContractSet, load_contracts


@dataclass(frozen=True)
class Catalog:
    directory: Path
    contracts: ContractSet
    rules: RuleCatalog
    signatures: tuple[Signature, ...]
    ontology: Ontology
    semantic_model: SemanticModel

    @property
    def exceptions_file(self) -> Path:
        """The approved exceptions the demo network is built with."""
        return self.directory / "rules" / "approved_exceptions.yaml"


def load_catalog(directory: Path) -> Catalog:
    """Read and validate every file of ``directory`` (``ContractError`` names the file and field at fault)."""
    return Catalog(directory, load_contracts(directory), load_rule_catalog(directory / "rules" / "config_rules.yaml"),
                   tuple(load_signatures(directory / "rules" / "slic_signatures.yaml")),
                   load_ontology(directory / "warehouse.yaml"), load_semantic_model(directory / "semantic_model.yaml"))
