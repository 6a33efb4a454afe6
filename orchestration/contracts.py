"""Agent and tool contracts: YAML files in ``contracts/`` loaded and validated at start-up.

A contract says what an agent is (persona, skills), what it may read and write in STATE, the model
of each output it writes, and which data each skill depends on; the Planner builds plans from these dependencies and the
runtime refuses writes outside ``writes``. A malformed file fails fast with a message naming the
file and the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from foundation.yaml_files import ContractError, compiled, read_yaml
from orchestration.outputs import output_models

_WRITE_PATH = re.compile(r"^(input|intent|plan|mcp\.tool_calls|conversation|final|task\.(status|error|outputs\.[a-z_]+))$")


_M = TypeVar("_M", bound=BaseModel)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlannerCondition(Strict):
    description: str = Field(min_length=1)
    patterns: list[str] = Field(default_factory=list)
    entity_types: list[str] = Field(default_factory=list)

    @field_validator("patterns")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        return compiled(patterns)


class DataDependency(Strict):
    data_path: str = Field(min_length=1)
    provider: str = Field(min_length=1, description="Agent whose task produces this data.")
    required: bool = True
    min_count: int = Field(default=1, ge=0)
    priority: int = Field(default=1, ge=1)
    when: str | None = Field(default=None, description="Planner condition; absent = always.")


class SkillSpec(Strict):
    description: str = Field(min_length=1)
    data_dependencies: list[DataDependency] = Field(default_factory=list)


class Provision(Strict):
    """Data a core agent provides for domain skills: the Planner plans the agent wherever one of them runs (an
    extension agent says so in its own contract instead of an edit of the domain agents')."""

    skills: list[str] = Field(min_length=1)
    data_path: str = Field(min_length=1)
    required: bool = False
    min_count: int = Field(default=1, ge=0)
    priority: int = Field(default=2, ge=1)
    when: str | None = Field(default=None, description="Planner condition; absent = always.")

    def dependency(self, provider: str) -> DataDependency:
        return DataDependency(data_path=self.data_path, provider=provider, required=self.required,
                              min_count=self.min_count, priority=self.priority, when=self.when)


class AgentContract(Strict):
    name: str = Field(min_length=1)
    node: str = Field(pattern=r"^[a-z][a-z_]*$")
    kind: Literal["control", "core", "domain", "supporting"]
    persona: str = Field(min_length=1)
    reads: list[str] = Field(min_length=1)
    writes: list[str] = Field(min_length=1)
    skills: dict[str, SkillSpec] = Field(min_length=1)
    consumes: list[str] = Field(default_factory=list, description="Agents this one reads when both are planned.")
    outputs: dict[str, str] = Field(default_factory=dict, description="Model of each task output written.")
    task_description: str = ""
    provides: list[Provision] = Field(default_factory=list, description="Domain skills a core agent serves.")
    conditions: dict[str, PlannerCondition] = Field(default_factory=dict,
                                                    description="Planner conditions of its own, for provides[].when.")

    @field_validator("writes")
    @classmethod
    def _writes_are_state_paths(cls, writes: list[str]) -> list[str]:
        bad = [w for w in writes if not _WRITE_PATH.match(w)]
        if bad:
            raise ValueError(f"not a writable STATE path: {bad}")
        return writes

    @field_validator("outputs")
    @classmethod
    def _outputs_name_their_models(cls, outputs: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        written = {w.removeprefix("task.outputs.") for w in info.data.get("writes", []) if w.startswith("task.outputs.")}
        if set(outputs) != written:
            raise ValueError(f"must name exactly the task outputs in writes {sorted(written)}, not {sorted(outputs)}")
        models = output_models()
        for name, model in outputs.items():
            if name not in models:
                raise ValueError(f"{name}: no such task output in orchestration/outputs.py")
            if model != models[name]:
                raise ValueError(f"{name}: the model is {models[name]!r}, not {model!r}")
        return outputs

    def may_write_output(self, key: str) -> bool:
        return f"task.outputs.{key}" in self.writes


class PlannerRules(Strict):
    skill_owners: dict[str, str] = Field(min_length=1)
    provider_order: list[str] = Field(min_length=1)
    conditions: dict[str, PlannerCondition] = Field(default_factory=dict)


class ReturnField(Strict):
    description: str = Field(min_length=1)
    optional: bool = False  # present only for some calls (e.g. one query type)


class ToolContract(Strict):
    name: str = Field(pattern=r"^[a-z][a-z_]*$")
    # query: the one call the Data Query Agent picks to answer a question (what evaluations name as the
    # turn's tool); lookup: a supporting read (inventory rows, the SLIC store)
    kind: Literal["query", "lookup"]
    owner: str = Field(min_length=1)
    description: str = Field(min_length=1)
    parameters: dict[str, Any]
    returns: dict[str, str | ReturnField] = Field(min_length=1, description="Every field of the result, checked on every call.")
    # an extension's query tool: the Data Query Agent picks it, ahead of its built-in choice, when this condition holds
    selected_when: str | None = None
    conditions: dict[str, PlannerCondition] = Field(default_factory=dict,
                                                    description="Conditions of its own, for selected_when.")

    def required_returns(self) -> set[str]:
        return {k for k, v in self.returns.items() if not (isinstance(v, ReturnField) and v.optional)}

    @field_validator("parameters")
    @classmethod
    def _parameters_are_json_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        # imported where contracts are read, not by every module that names ContractError (the upload command)
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import SchemaError

        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        if schema.get("type") != "object":
            raise ValueError("parameters must be a JSON Schema of type 'object'")
        return schema


class ContractSet(Strict):
    agents: dict[str, AgentContract]
    tools: dict[str, ToolContract]
    planner_rules: PlannerRules

    def agent(self, name: str) -> AgentContract:
        try:
            return self.agents[name]
        except KeyError:
            raise ContractError(f"no contract for agent {name!r}") from None

    def by_node(self, node: str) -> AgentContract:
        for contract in self.agents.values():
            if contract.node == node:
                return contract
        raise ContractError(f"no contract for node {node!r}")

    def conditions(self) -> dict[str, PlannerCondition]:
        """Every named condition: the planner's and those an agent or tool contract declares for itself."""
        return {**self.planner_rules.conditions, **{n: c for a in self.agents.values() for n, c in a.conditions.items()},
                **{n: c for t in self.tools.values() for n, c in t.conditions.items()}}

    def extension_conditions(self) -> set[str]:
        """The conditions under which an agent or tool contract says it answers a question (``provides[].when``,
        ``selected_when``): where one holds, the question is not refused as outside what the product does."""
        return {p.when for a in self.agents.values() for p in a.provides if p.when} | {
            t.selected_when for t in self.tools.values() if t.selected_when}

    def provisions(self, skill: str) -> list[DataDependency]:
        """What core agents declare they provide for ``skill`` (``provides`` in their contracts)."""
        return [p.dependency(a.name) for a in self.agents.values() if a.kind == "core" for p in a.provides
                if skill in p.skills]

    def provider_order(self) -> list[str]:
        """Core agents in the order they run when several are planned: the planner's list, then the others by name."""
        listed = self.planner_rules.provider_order
        return [*listed, *sorted(a.name for a in self.agents.values() if a.kind == "core" and a.name not in listed)]

    def selectable_tools(self) -> list[ToolContract]:
        """Query tools the Data Query Agent picks by their own condition (``selected_when``), by name."""
        return [t for _, t in sorted(self.tools.items()) if t.selected_when]


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = read_yaml(path)
    except (OSError, yaml.YAMLError) as exc:
        raise ContractError(f"{path}: cannot be read as YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ContractError(f"{path}: expected a mapping at the top level")
    return data


def _parse(model: type[_M], data: dict[str, Any], path: Path) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise ContractError(f"{path}: field '{field}': {err['msg']}") from None


def load_contracts(contracts_dir: Path) -> ContractSet:
    """Load and cross-check every contract; raise ContractError naming the file and field."""
    agents: dict[str, AgentContract] = {}
    planner_rules: PlannerRules | None = None
    agent_files = sorted((contracts_dir / "agents").glob("*.yaml"))
    if not agent_files:
        raise ContractError(f"{contracts_dir / 'agents'}: no agent contracts found")
    for path in agent_files:
        data = _read_yaml(path)
        rules = data.pop("planner_rules", None)
        contract = _parse(AgentContract, data, path)
        if contract.node != path.stem:
            raise ContractError(f"{path}: field 'node': must equal the file name {path.stem!r}")
        agents[contract.name] = contract
        if rules is not None:
            planner_rules = _parse(PlannerRules, rules, path)
    if planner_rules is None:
        raise ContractError(f"{contracts_dir / 'agents'}: no contract carries 'planner_rules'")

    tools: dict[str, ToolContract] = {}
    for path in sorted((contracts_dir / "tools").glob("*.yaml")):
        tool = _parse(ToolContract, _read_yaml(path), path)
        if tool.name != path.stem:
            raise ContractError(f"{path}: field 'name': must equal the file name {path.stem!r}")
        tools[tool.name] = tool

    _cross_check(agents, tools, planner_rules, contracts_dir)
    return ContractSet(agents=agents, tools=tools, planner_rules=planner_rules)


def _cross_check(
    agents: dict[str, AgentContract], tools: dict[str, ToolContract], rules: PlannerRules, root: Path
) -> None:
    def fail(file: str, field: str, msg: str) -> None:
        raise ContractError(f"{root / file}: field '{field}': {msg}")

    for contract in agents.values():
        file = f"agents/{contract.node}.yaml"
        for skill_name, skill in contract.skills.items():
            for i, dep in enumerate(skill.data_dependencies):
                if dep.provider not in agents:
                    fail(file, f"skills.{skill_name}.data_dependencies.{i}.provider", f"unknown agent {dep.provider!r}")
                if dep.when and dep.when not in rules.conditions:
                    fail(file, f"skills.{skill_name}.data_dependencies.{i}.when", f"unknown condition {dep.when!r}")
        for i, consumed in enumerate(contract.consumes):
            if consumed not in agents:
                fail(file, f"consumes.{i}", f"unknown agent {consumed!r}")
    for owned_skill, owner in rules.skill_owners.items():
        if owner not in agents or owned_skill not in agents[owner].skills:
            fail("agents/planner.yaml", f"planner_rules.skill_owners.{owned_skill}",
                 f"{owner!r} has no skill {owned_skill!r}")
        if agents[owner].kind != "domain":
            fail("agents/planner.yaml", f"planner_rules.skill_owners.{owned_skill}",
                 f"{owner!r} is not a domain agent (kind: {agents[owner].kind})")
    for i, provider in enumerate(rules.provider_order):
        if provider not in agents or agents[provider].kind != "core":
            fail("agents/planner.yaml", f"planner_rules.provider_order.{i}", f"{provider!r} is not a core agent")
    named = dict(rules.conditions)
    for file, own in [*((f"agents/{a.node}.yaml", a.conditions) for a in agents.values()),
                      *((f"tools/{t.name}.yaml", t.conditions) for t in tools.values())]:
        for name, condition in own.items():
            if name in named:
                fail(file, f"conditions.{name}", "a condition of this name is declared elsewhere")
            named[name] = condition
    for contract in agents.values():
        for i, provision in enumerate(contract.provides):
            file = f"agents/{contract.node}.yaml"
            if contract.kind != "core":
                fail(file, "provides", f"only a core agent provides data for skills (this one is {contract.kind})")
            for served in provision.skills:
                if served not in rules.skill_owners:
                    fail(file, f"provides.{i}.skills", f"no domain agent owns a skill {served!r}")
            if provision.when and provision.when not in named:
                fail(file, f"provides.{i}.when", f"unknown condition {provision.when!r}")
    for tool in tools.values():
        if tool.owner not in agents:
            fail(f"tools/{tool.name}.yaml", "owner", f"unknown agent {tool.owner!r}")
        if tool.selected_when is not None:
            if tool.selected_when not in named:
                fail(f"tools/{tool.name}.yaml", "selected_when", f"unknown condition {tool.selected_when!r}")
            if tool.kind != "query" or agents[tool.owner].node != "data_query_agent":
                fail(f"tools/{tool.name}.yaml", "selected_when", "only a query tool of the Data Query Agent is selected")
