"""What agents hand each other: one pydantic model per task output (DESIGN §6–7).

A task agent returns a ``TaskOutputs``; the contract wrapper (``orchestration.enforcement``) re-validates it
and refuses any output its contract does not list, so a malformed hand-over fails where it is written, not
three agents later. Each contract names the model of every output it writes (``outputs:`` in
``contracts/agents/*.yaml``), checked against the fields here when contracts load.

Tool results inside ``AssessmentContext.report_data`` stay JSON objects: their shape is the tool's own
contract (``returns`` in ``contracts/tools/*.yaml``), checked by the tool registry on every call.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from foundation.vocabulary.scope import AnswerScope, Scope
from foundation.vocabulary.severity import Severity

_O = TypeVar("_O", bound="OutputModel")


class OutputModel(BaseModel):
    # revalidate_instances: a model built elsewhere (or changed after construction) is checked again at the
    # contract wrapper, not trusted because it already is an instance
    model_config = ConfigDict(extra="forbid", validate_assignment=True, revalidate_instances="always")

    def evolve(self: _O, **changes: Any) -> _O:
        """A copy with ``changes`` applied and validated (``model_copy(update=…)`` would accept anything)."""
        return type(self).model_validate({**{k: getattr(self, k) for k in self.model_fields_set}, **changes})


# --- Knowledge Agent ---------------------------------------------------------------------------
class ChunkMetadata(OutputModel):
    """A chunk's document metadata (front matter kept as the document states it) and its retrieval scores."""

    model_config = ConfigDict(extra="allow", validate_assignment=True, revalidate_instances="always")

    chunk_id: str
    source: str
    topic: str = ""
    title: str = ""
    domain: str = ""
    section: str = ""
    relevance_score: float = 0.0
    dense_score: float = 0.0
    bm25_score: float = 0.0
    rank: int = 0


class RetrievedChunk(OutputModel):
    content: str
    metadata: ChunkMetadata


class QueryMetadata(OutputModel):
    intent_class: str
    skill: str
    scope: Scope
    is_followup: bool
    augmented_from: list[str] = Field(default_factory=list)
    query_kind: Literal["initial", "generic", "followup"]


class RetrievalQuery(OutputModel):
    formulated_query: str
    query_metadata: QueryMetadata


class EnterpriseContext(OutputModel):
    retrieved_chunks: list[RetrievedChunk] = Field(default_factory=list)
    query_used: str = ""
    retrieval_mode: str = ""
    latency_ms: float = 0.0
    note: str = ""

    def chunk(self, chunk_id: str) -> RetrievedChunk | None:
        return next((c for c in self.retrieved_chunks if c.metadata.chunk_id == chunk_id), None)


# --- Data Query Agent --------------------------------------------------------------------------
class InventoryRow(OutputModel):
    asset_id: str
    site: str | None = None
    environment: str | None = None
    device_type: str | None = None
    role: str | None = None
    product_family: str | None = None
    platform: str | None = None
    os_version: str | None = None
    criticality: str | None = None


class ContextAssets(OutputModel):
    inventory: list[InventoryRow] = Field(default_factory=list)
    # DESIGN §6.2 names these parts of the canonical context; no tool fills them yet
    topology: list[dict[str, Any]] = Field(default_factory=list)
    configs: list[dict[str, Any]] = Field(default_factory=list)
    telemetry: list[dict[str, Any]] = Field(default_factory=list)
    events: list[dict[str, Any]] = Field(default_factory=list)


class ToolSelection(OutputModel):
    tool: str
    reason: str
    parameter_bindings: dict[str, str] = Field(default_factory=dict)


class Provenance(OutputModel):
    tool: str
    input: dict[str, Any]


class ToolNote(OutputModel):
    tool: str
    message: str


class AssessmentContext(OutputModel):
    """The canonical assessment context (DESIGN §6.2)."""

    context_id: str
    source_path: Literal["mcp", "sql"]
    timestamp_utc: str
    scope: Scope
    assets: ContextAssets = Field(default_factory=ContextAssets)
    report_data: dict[str, dict[str, Any]] = Field(default_factory=dict)  # tool name -> its result (tool contract)
    tool_selection: ToolSelection
    covered_scope: AnswerScope | None = None
    provenance: list[Provenance] = Field(default_factory=list)
    errors: list[ToolNote] = Field(default_factory=list)


# --- SLIC Agent --------------------------------------------------------------------------------
class SlicMatch(OutputModel):
    asset_id: str
    site: str | None = None
    criticality: str | None = None
    os_version: str | None = None
    pci_scope: bool | None = None
    signature_id: str
    title: str
    kind: str
    category: str
    severity: Severity
    hypothesis: str | None = None
    evidence: str | None = None
    cves: str | None = None
    advisory: str | None = None
    recommendation: str | None = None
    annotation: str | None = None


class SignatureTotal(OutputModel):
    signature_id: str
    title: str
    severity: Severity
    category: str
    assets: int
    pci_assets: int = 0
    pci_sites: list[str] = Field(default_factory=list)


class SlicContext(OutputModel):
    assessment_id: str | None = None
    collection: str = "fleet"
    scope: dict[str, Any] = Field(default_factory=dict)  # the tool scope filter that was applied
    source: str = "slic_results"
    total_matches: int = 0
    assets_affected: int = 0
    by_signature: list[SignatureTotal] = Field(default_factory=list)
    by_severity: dict[str, int] = Field(default_factory=dict)
    results: list[SlicMatch] = Field(default_factory=list)
    result_cap: int = 0
    errors: list[str] = Field(default_factory=list)


# --- domain agents -----------------------------------------------------------------------------
class AppliedContext(OutputModel):
    """An enterprise chunk a finding or answer stands on (cited by the Answer Composer)."""

    topic: str = ""
    source: str
    chunk_id: str
    title: str = ""
    content_excerpt: str = ""


DeltaStatus = Literal["new", "persistent"]


class Finding(OutputModel):
    id: str
    rule_id: str
    title: str
    control: str = ""
    signature_id: str | None = None
    severity: Severity
    original_severity: Severity | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    evidence_refs: list[str] = Field(default_factory=list)
    evidence: str | None = None
    evidence_device: str | None = None
    impact: str = ""
    recommendation: str = ""
    assumptions: list[str] = Field(default_factory=list)
    data_gaps: list[str] = Field(default_factory=list)
    enterprise_context_applied: list[AppliedContext] = Field(default_factory=list)
    entities_referenced: list[str] = Field(default_factory=list)
    applied_standards: list[str] = Field(default_factory=list)
    delta_status: DeltaStatus | None = None
    data_provenance: str = ""
    assets_affected: int = 0
    pci_assets: int | None = None
    cves: list[str] = Field(default_factory=list)
    pci_sites: list[str] = Field(default_factory=list)
    annotations: list[str] = Field(default_factory=list)
    security_category: str | None = None


class PrioritizedRisk(OutputModel):
    rank: int
    finding_id: str
    rule_id: str
    title: str
    severity: Severity
    assets_affected: int = 0
    why: str = ""
    action: str = ""


class ChartSeries(OutputModel):
    name: str
    data: list[float]


class ChartHint(OutputModel):
    chart_type: Literal["pie", "bar", "line"]
    title: str
    labels: list[str]
    series: list[ChartSeries]
    source_path: str


class AssetTrend(OutputModel):
    asset_id: str
    direction: Literal["worsened", "improved"]
    issues_delta: int


# --- an extension agent --------------------------------------------------------------------------
Cell = str | int | float | None


class DataTable(OutputModel):
    """What an extension core agent adds to an answer without a model of its own: a titled table, shown under the
    domain agent's answer and exported with it (the Answer Composer renders any planned task's table)."""

    title: str = Field(min_length=1, max_length=200)
    columns: list[str] = Field(min_length=1)
    rows: list[list[Cell]] = Field(default_factory=list)
    note: str = ""  # what the rows are and are not (a cap, a source), said under the table

    @model_validator(mode="after")
    def _rows_fit_columns(self) -> DataTable:
        wrong = next((i for i, r in enumerate(self.rows) if len(r) != len(self.columns)), None)
        if wrong is not None:
            raise ValueError(f"row {wrong} has {len(self.rows[wrong])} cells for {len(self.columns)} columns")
        return self


class DomainOutputs(OutputModel):
    """What a domain agent (Config Best Practice, Security Assessment) returns."""

    findings: list[Finding] = Field(default_factory=list)
    summary: str = ""
    prioritized_risks: list[PrioritizedRisk] = Field(default_factory=list)
    asset_trend: list[AssetTrend] = Field(default_factory=list)
    chart_hints: list[ChartHint] = Field(default_factory=list)
    statistics: dict[str, Any] = Field(default_factory=dict)  # the figures the summary states, from tool results
    data_gaps: list[str] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    enterprise_context_applied: list[AppliedContext] = Field(default_factory=list)
    exposure_assumptions: list[str] = Field(default_factory=list)


class TaskOutputs(DomainOutputs):
    """``plan.tasks[].outputs``: every output any task agent may write; each agent writes the ones its
    contract lists (``model_fields_set`` is what it wrote)."""

    retrieval_query: RetrievalQuery | None = None
    enterprise_context: EnterpriseContext | None = None
    assessment_context: AssessmentContext | None = None
    slic_context: SlicContext | None = None
    data_table: DataTable | None = None

    @classmethod
    def of(cls, domain: DomainOutputs) -> TaskOutputs:
        """A domain agent's outputs as task outputs, keeping exactly the fields it wrote."""
        return cls(**{name: getattr(domain, name) for name in domain.model_fields_set})

    def written(self) -> list[str]:
        return sorted(self.model_fields_set)


def type_name(annotation: Any) -> str:
    """``list[Finding]``, ``AssessmentContext | None`` → the name contracts use for an output's model."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in typing.get_args(annotation) if a is not type(None))
    if origin is not None:
        args = ", ".join(type_name(a) for a in typing.get_args(annotation))
        return f"{origin.__name__}[{args}]"
    return getattr(annotation, "__name__", str(annotation))


def output_models() -> dict[str, str]:
    """Output name → model name, as contracts must write it."""
    return {name: type_name(field.annotation) for name, field in TaskOutputs.model_fields.items()}
