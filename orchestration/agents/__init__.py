"""One module per agent; each is named after its contract file in ``contracts/agents/``.

Task agents expose ``run(state, task) -> TaskResult``; control agents expose ``run(state) -> dict``
of the top-level STATE fields they change. ``TASK_AGENTS`` is the registry the graph wires.
"""

from __future__ import annotations

from types import ModuleType

from orchestration.agents import (
    config_best_practice_agent,
    data_query_agent,
    knowledge_agent,
    security_assessment_agent,
    slic_agent,
)

TASK_AGENTS: dict[str, ModuleType] = {
    "knowledge_agent": knowledge_agent,
    "data_query_agent": data_query_agent,
    "slic_agent": slic_agent,
    "config_best_practice_agent": config_best_practice_agent,
    "security_assessment_agent": security_assessment_agent,
}
