"""The bundled contracts directory read once, for tests that use its rules, signatures, ontology or contracts directly
(the product passes its catalog down from ``build_services``; a test may keep one at module level)."""

from __future__ import annotations

from assessment_engine.warehouse.sql_path import GuardedStatements
from foundation.config import PROJECT_ROOT
from orchestration.catalog import load_catalog

BUNDLED = load_catalog(PROJECT_ROOT / "contracts")
RULES = list(BUNDLED.rules.rules)
BY_ID = BUNDLED.rules.by_id
CONTRACTS = BUNDLED.contracts
ONTOLOGY = BUNDLED.ontology


def statements() -> GuardedStatements:
    """Guarded statements of the bundled ontology (each test its own: nothing kept between tests)."""
    return GuardedStatements(ONTOLOGY)
