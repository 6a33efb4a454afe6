"""The allowlisted tool registry (DESIGN §6.2): every warehouse read an agent makes is a call here.

Only tools with a contract in ``contracts/tools/`` can be called; parameters are validated against the
contract's JSON Schema before the implementation runs, and the result against its typed model
(``orchestration.tools.results``: the contract's ``returns`` with their types; a field the contract does not
declare, a required one missing or a value of the wrong type is an error, not a silent extra). An extension's
tool without a model is checked against ``returns`` by name.
Every call, failed or not, becomes a ``ToolCall`` record for ``mcp.tool_calls``. Implementations take the
warehouse as their first argument, and the catalog (rules, ontology) as ``catalog=`` and the SQL path's guarded
statements as ``statements=`` when they declare them; the composition root (``orchestration.services``) builds the
registry with the built-in implementations, the catalog and the warehouse it was configured with.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from jsonschema import Draft202012Validator
from pydantic import ValidationError

from assessment_engine.warehouse.sql_path import GuardedStatements
from assessment_engine.warehouse.store import RecordingWarehouse, Warehouse, WarehouseUnavailable
from orchestration.catalog import Catalog
from orchestration.contracts import ToolContract
from orchestration.state import ToolCall
from orchestration.tools.errors import ToolError
from orchestration.tools.results import RESULT_MODELS, ToolResult

ToolImpl = Callable[..., dict[str, Any]]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolOutcome:
    call: ToolCall
    result: dict[str, Any] | None
    typed: ToolResult | None = None  # the result as its tool's model validated it (None for a tool without one)


def _with_defaults(schema: dict[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    filled = dict(params)
    for key, spec in schema.get("properties", {}).items():
        if key not in filled and "default" in spec:
            filled[key] = spec["default"]
    return filled


def row_count(result: dict[str, Any]) -> int:
    """Rows a tool result stands on: its declared ``row_count``, else the length of its lists."""
    if isinstance(result.get("row_count"), int):
        return int(result["row_count"])
    return sum(len(v) for v in result.values() if isinstance(v, list))


def undeclared_fields(contract: ToolContract, result: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Fields the result has that ``returns`` does not declare, and declared fields it lacks."""
    return sorted(set(result) - set(contract.returns)), sorted(contract.required_returns() - set(result))


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text):,} characters)"


class ToolRegistry:
    """Contract-checked calls of registered implementations against one warehouse."""

    def __init__(self, catalog: Catalog, implementations: Mapping[str, ToolImpl],
                 warehouse: Callable[[], Warehouse], statements: GuardedStatements | None = None) -> None:
        self.contracts, self._warehouse = catalog.contracts, warehouse
        # what an implementation is given beside its parameters when it declares it
        self._given = {"catalog": catalog, "statements": statements or GuardedStatements(catalog.ontology)}
        self._implementations: dict[str, ToolImpl] = {}
        self._wants: dict[str, set[str]] = {}
        for name, implementation in implementations.items():
            self.register(name, implementation)

    def register(self, name: str, implementation: ToolImpl) -> None:
        """Add an extension's implementation (it needs a contract in contracts/tools/ to be callable)."""
        self._implementations[name] = implementation
        self._wants[name] = set(self._given) & set(inspect.signature(implementation).parameters)

    def call(self, name: str, params: Mapping[str, Any], task_id: str | None = None) -> ToolOutcome:
        """Validate and run one tool call; never raises for a user-facing problem."""
        started = time.perf_counter()
        warehouse: RecordingWarehouse | None = None

        def record(status: Literal["ok", "empty", "error"], rows: int = 0, error: str | None = None,
                   used: Mapping[str, Any] | None = None) -> ToolCall:
            return ToolCall(tool_name=name, input=dict(used if used is not None else params), status=status,
                            row_count=rows, duration_ms=round((time.perf_counter() - started) * 1000, 2),
                            error=error, task_id=task_id, queries=list(warehouse.statements) if warehouse else [],
                            query_params=list(warehouse.params) if warehouse else [])

        if not isinstance(params, Mapping):  # e.g. None from a model's malformed tool call
            params = {}
            return ToolOutcome(record("error", error="tool parameters must be an object"), None)
        contract = self.contracts.tools.get(name)
        if contract is None:
            return ToolOutcome(record("error", error=f"'{str(name)[:80]}' is not an allowlisted tool"), None)
        full = _with_defaults(contract.parameters, params)
        problems = sorted(Draft202012Validator(contract.parameters).iter_errors(full), key=lambda e: list(e.path))
        if problems:
            where = ".".join(str(p) for p in problems[0].path) or "parameters"
            message = problems[0].message  # it quotes the value: a megabyte of input must not become the error
            return ToolOutcome(record("error", error=f"invalid parameter {where[:80]}: {_short(message)}", used=full),
                               None)
        implementation = self._implementations.get(name)
        if implementation is None:
            return ToolOutcome(record("error", error=f"{name} has no registered implementation", used=full), None)
        try:
            warehouse = RecordingWarehouse(self._warehouse())
            result = implementation(warehouse, **full, **{k: self._given[k] for k in self._wants[name]})
        except (ToolError, WarehouseUnavailable) as exc:
            return ToolOutcome(record("error", error=_short(str(exc)), used=full), None)
        except Exception as exc:  # a defect must not take the turn down; the call is recorded as failed
            log.exception("tool %s failed", name)
            return ToolOutcome(record("error", error=f"internal error in {name}: {type(exc).__name__}", used=full), None)
        extra, missing = undeclared_fields(contract, result)
        model = RESULT_MODELS.get(name)
        wrong = ""
        typed: ToolResult | None = None
        if model is not None and not (extra or missing):
            try:  # the values' types too; what the agents read is the validated form
                typed = model.model_validate(result)
                result = typed.model_dump(exclude_unset=True)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])  # none: the model's own check (a row's template)
                wrong = f"wrong type at {where}: {first['msg']}" if where else first["msg"].removeprefix("Value error, ")
        if extra or missing or wrong:
            log.error("tool %s broke its contract: undeclared %s, missing %s, %s", name, extra, missing, wrong)
            detail = wrong or f"undeclared {extra}, missing {missing}"
            return ToolOutcome(record("error", error=f"internal error in {name}: result does not match "
                                      f"contracts/tools/{name}.yaml returns ({detail})", used=full), None)
        rows = row_count(result)
        return ToolOutcome(record("ok" if rows else "empty", rows=rows, used=full), result, typed)
