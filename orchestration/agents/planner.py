"""Planner node (DESIGN §5): a deterministic plan from the domain agent's declared data dependencies.

The chosen skill's dependencies (``contracts/agents/<domain agent>.yaml``) and what other core agents declare
they provide for it (``provides`` in their own contracts: an extension agent) decide which core agents run;
``when:`` conditions come from ``planner_rules.conditions`` in ``contracts/agents/planner.yaml`` or from the
contract that declares them.
Dependencies between core agents come from their ``consumes`` lists. The planner declares
``required_data[]`` and does not check availability. Contract: contracts/agents/planner.yaml.
"""

from __future__ import annotations

from orchestration.contracts import ContractSet
from orchestration.nlu.facets import condition_holds
from orchestration.services import Services
from orchestration.state import AssessmentState, Intent, Plan, RequiredData, StateUpdate, Task


def _describe(template: str, intent: Intent) -> str:
    scope = intent.domain_details.scope
    where = ", ".join(x for x in [scope.site, scope.environment, *scope.targets] if x)
    return f"{template} ({where})" if where else template


def build_plan(intent: Intent, contracts: ContractSet) -> Plan:
    """The same intent always gives the same plan."""
    skill = intent.domain_details.skill
    if skill is None:
        raise ValueError("the planner needs a classified skill; the clarification gate should have answered")
    domain = contracts.agent(contracts.planner_rules.skill_owners[skill])
    conditions = contracts.conditions()
    deps = [
        d for d in [*domain.skills[skill].data_dependencies, *contracts.provisions(skill)]
        if d.when is None or condition_holds(d.when, conditions[d.when], intent)
    ]
    providers = [p for p in contracts.provider_order() if any(d.provider == p for d in deps)]
    ids = {name: f"T{i + 1}" for i, name in enumerate([*providers, domain.name])}

    tasks: list[Task] = []
    for name in providers:
        contract = contracts.agent(name)
        (skill_name,) = contract.skills  # core agents have one skill each
        tasks.append(Task(
            id=ids[name],
            description=_describe(contract.task_description, intent),
            owner=name,
            skill=skill_name,
            depends_on=[ids[c] for c in contract.consumes if c in ids],
            required_data=[],
        ))
    tasks.append(Task(
        id=ids[domain.name],
        description=_describe(f"{domain.task_description} — {skill}", intent),
        owner=domain.name,
        kind="domain",
        skill=skill,
        depends_on=[ids[p] for p in providers],
        required_data=[
            RequiredData(data_path=d.data_path, skill=skill, provider=d.provider, min_count=d.min_count, priority=d.priority,
                         required=d.required)
            for d in deps
        ],
    ))
    return Plan(tasks=tasks, routing=[t.owner for t in tasks], iteration=1)


def run(state: AssessmentState, services: Services) -> StateUpdate:
    return {"plan": build_plan(state.intent, services.contracts)}


def summarize(update: StateUpdate) -> str:
    plan: Plan = update["plan"]
    return " → ".join(f"{t.id} {t.owner} [{t.skill}]" + (f" after {','.join(t.depends_on)}" if t.depends_on else "")
                      for t in plan.tasks)
