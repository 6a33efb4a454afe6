"""What the engine checks against and lays its tables out by — the rules, the SLIC signatures, the warehouse
ontology and the approved exceptions' file — as a protocol: the orchestration's ``Catalog`` (which also holds the
agents' contracts) is one, and the engine needs nothing else of it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from assessment_engine.checks.rule_engine import RuleCatalog
from assessment_engine.checks.slic_engine import Signature
from assessment_engine.ontology import Ontology


class EngineCatalog(Protocol):
    @property
    def rules(self) -> RuleCatalog: ...

    @property
    def signatures(self) -> tuple[Signature, ...]: ...

    @property
    def ontology(self) -> Ontology: ...

    @property
    def exceptions_file(self) -> Path: ...
