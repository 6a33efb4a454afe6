"""The allowlisted tool registry (DESIGN §6.2).

Only tools with a contract in ``contracts/tools/`` can be called; parameters are validated against
the contract's JSON Schema before the implementation runs; every call, failed or not, becomes a
``ToolCall`` record for ``mcp.tool_calls``. Implementations register through ``register`` — built-in
tools use the same call an extension would.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from orchestration.contracts import ContractSet, get_contracts
from orchestration.state import ToolCall
from orchestration.warehouse.store import WarehouseUnavailable

ToolImpl = Callable[..., dict[str, Any]]
log = logging.getLogger(__name__)


class ToolError(RuntimeError):
    """A tool could not answer (unknown assessment, unknown site, store unreachable…); the message is for users."""


@dataclass(frozen=True)
class ToolOutcome:
    call: ToolCall
    result: dict[str, Any] | None


_IMPLEMENTATIONS: dict[str, ToolImpl] = {}


def register(name: str, implementation: ToolImpl) -> None:
    _IMPLEMENTATIONS[name] = implementation


def _with_defaults(schema: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
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


def call_tool(name: str, params: dict[str, Any], task_id: str | None = None,
              contracts: ContractSet | None = None) -> ToolOutcome:
    """Validate and run one tool call; never raises for a user-facing problem."""
    contracts = contracts or get_contracts()
    started = time.perf_counter()

    def record(status: str, rows: int = 0, error: str | None = None, used: dict[str, Any] | None = None) -> ToolCall:
        return ToolCall(tool_name=name, input=used if used is not None else params, status=status,  # type: ignore[arg-type]
                        row_count=rows, duration_ms=round((time.perf_counter() - started) * 1000, 2),
                        error=error, task_id=task_id)

    contract = contracts.tools.get(name)
    if contract is None:
        return ToolOutcome(record("error", error=f"'{name}' is not an allowlisted tool"), None)
    full = _with_defaults(contract.parameters, params)
    problems = sorted(Draft202012Validator(contract.parameters).iter_errors(full), key=lambda e: list(e.path))
    if problems:
        where = ".".join(str(p) for p in problems[0].path) or "parameters"
        return ToolOutcome(record("error", error=f"invalid parameter {where}: {problems[0].message}", used=full), None)
    import orchestration.tools.builtin  # noqa: F401  (built-ins register on first use, like any extension)

    implementation = _IMPLEMENTATIONS.get(name)
    if implementation is None:
        return ToolOutcome(record("error", error=f"{name} has no registered implementation", used=full), None)
    try:
        result = implementation(**full)
    except (ToolError, WarehouseUnavailable) as exc:
        return ToolOutcome(record("error", error=str(exc), used=full), None)
    except Exception as exc:  # a defect must not take the turn down; the call is recorded as failed
        log.exception("tool %s failed", name)
        return ToolOutcome(record("error", error=f"internal error in {name}: {type(exc).__name__}", used=full), None)
    rows = row_count(result)
    return ToolOutcome(record("ok" if rows else "empty", rows=rows, used=full), result)
