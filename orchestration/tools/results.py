"""Typed results of the allowlisted tools (issue 29): one pydantic model per tool, its fields exactly the contract's
``returns`` (``tests/unit/test_contracts.py`` holds them equal), nothing undeclared (``extra="forbid"``).

The registry validates every result against its tool's model before an agent sees it: a missing field, an
undeclared one or a wrong type (a count that is not an integer, a list that is a string) is the tool's defect and
fails the call, as the contract says. Code that reads a result reads it through its model
(``SlicResult.model_validate(report)``), so a renamed field breaks at the type check, not in a string key at run
time.

STATE keeps a result's JSON form (``AssessmentContext.report_data``: tool name → the validated result dumped):
the exported trace and the turns kept in memory stay plain JSON that any later version can read.

Rows are typed too (``orchestration/tools/rows.py``): the analysis tool's breakdowns, top rules, top devices and
sample are lists of row models; the SQL path's rows stay JSON objects keyed by ``columns`` in the result (that is
what the guard returned) and are validated against their template's row model here, so ``SqlPathResult.typed_rows()``
gives them typed (``rows_as(DeviceRow)``). Only ``attribute_listing`` rows, whose first column is the attribute asked about, stay mappings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from orchestration.outputs import InventoryRow, SignatureTotal, SlicMatch
from orchestration.tools.rows import (
    SQL_ROWS,
    AppliedException,
    BreakdownRow,
    RowModel,
    SampleRow,
    TopAsset,
    TopRule,
)

Row = dict[str, Any]
R = TypeVar("R", bound=RowModel)


class ToolResult(BaseModel):
    """A tool's result: exactly the contract's fields."""

    model_config = ConfigDict(extra="forbid")


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- assessment_analysis_tool -----------------------------------------------------------------------------------
class AnalysisMetrics(_Part):
    """The run's totals in scope (more figures when a severity or focus narrows the checks counted)."""

    assessment_id: str
    assessment_date: str
    scope: str
    assets_assessed: int
    checks_performed: int
    checks_failed: int
    checks_passed: int
    pass_rate_pct: float
    assets_with_failures: int
    assets_at_risk: int
    pct_assets_at_risk: float
    rules_evaluated: int
    exceptions_applied: int
    checks_in_scope: int | None = None  # a topic or product narrows the checks: how many the scope has in all
    severity_filter: str | None = None  # the figures of one severity's failures
    matching_failures: int | None = None
    assets_with_matching_failures: int | None = None
    pct_assets_with_matching_failures: float | None = None
    assets_named: list[str] = Field(default_factory=list)  # a scope of a few devices: which (NAMED_UP_TO or fewer)


class AnalysisResult(ToolResult):
    query_type: str
    collection: str
    metrics: AnalysisMetrics
    breakdowns: dict[str, list[BreakdownRow]]
    breakdown_keys: dict[str, int]
    top_rules: list[TopRule]
    top_assets: list[TopAsset]
    results_sample: list[SampleRow]
    sample_cap: int
    focus_area: str | list[str] | None
    scope_applied: dict[str, Any]
    row_count: int
    computed_from: str
    exceptions_applied: list[AppliedException] | None = None


# --- assessment_comparison_tool ---------------------------------------------------------------------------------
class ComparisonMetrics(_Part):
    previous_failures: int
    current_failures: int
    failures_delta: int
    previous_assets: int
    current_assets: int
    new_issues: int
    resolved_issues: int
    persistent_issues: int
    improved_assets: int
    worsened_assets: int
    new_assets: int
    removed_assets: int
    direction: Literal["improved", "worsened", "unchanged"]


class AssetChange(_Part):
    asset_id: str
    previous_failures: int
    current_failures: int
    issues_delta: int


class AssetChanges(_Part):
    improved: list[AssetChange]
    worsened: list[AssetChange]
    new: list[str]
    removed: list[str]


class ChangedIssue(_Part):
    asset_id: str
    rule_id: str
    severity: str
    site: str | None
    title: str


class DetailedFindings(_Part):
    new_issues: list[ChangedIssue]
    resolved_issues: list[ChangedIssue]
    persistent_issues: list[ChangedIssue]


class RunFailures(_Part):
    assessment_id: str
    date: str
    failures: int
    assets_assessed: int
    failures_per_asset: float


class ComparisonResult(ToolResult):
    comparison_focus: str
    collection: str
    current_assessment_id: str
    current_assessment_date: str
    previous_assessment_id: str
    previous_assessment_date: str
    scope: str
    scope_applied: dict[str, Any]
    rules_compared: list[str]
    metrics: ComparisonMetrics
    asset_level_changes: AssetChanges
    trend_analysis: list[RunFailures]
    detailed_findings: DetailedFindings
    sample_cap: int
    row_count: int
    computed_from: str


# --- issue_tracking_tool ----------------------------------------------------------------------------------------
class OpenIssue(_Part):
    asset_id: str
    rule_id: str
    severity: str
    site: str | None
    title: str
    open_for_assessments: int
    first_seen: str
    recurring: bool
    evidence: str | None


class PersistentRule(_Part):
    rule_id: str
    title: str
    severity: str
    assets: int
    max_open_for_assessments: int


class RiskAssessment(_Part):
    level: Literal["critical", "high", "medium", "low"]
    reasons: list[str]


class IssueTrackingResult(ToolResult):
    tracking_scope: str
    assessment_scope: str
    collection: str
    assessments_considered: list[str]
    latest_assessment_id: str
    latest_assessment_date: str
    scope: str
    scope_applied: dict[str, Any]
    total_unresolved: int
    unresolved_issues: list[OpenIssue]
    severity_breakdown: dict[str, int]
    most_persistent_rules: list[PersistentRule]
    risk_assessment: RiskAssessment
    sample_cap: int
    row_count: int


# --- slic_results_tool ------------------------------------------------------------------------------------------
class SlicResult(ToolResult):
    assessment_id: str
    collection: str
    scope_applied: dict[str, Any]
    total_matches: int
    assets_affected: int
    by_signature: list[SignatureTotal]
    by_severity: dict[str, int]
    results: list[SlicMatch]
    result_cap: int
    row_count: int


# --- inventory_tool ---------------------------------------------------------------------------------------------
class InventoryResult(ToolResult):
    assets: list[InventoryRow]
    row_count: int
    limit: int


# --- sql_path ---------------------------------------------------------------------------------------------------
class ScopeTotals(_Part):
    """The devices of an empty answer's scope: assessed in the run, and judged on the checks asked."""

    assessed: int
    judged: int


class DeviceFix(_Part):
    """A device's own fix for one failing rule, and whether re-judging its patched configuration proved it."""

    commands: list[str]
    verified: bool
    note: str = ""


class SqlPathResult(ToolResult):
    template: str
    description: str
    sql: str
    params: list[Any]
    assessment_id: str | None
    collection: str
    columns: list[str]
    rows: list[Row] = Field(description="the statement's rows, keyed by ``columns``")
    row_count: int
    row_cap_reached: bool
    fixes: dict[str, DeviceFix] = Field(default_factory=dict)
    scope: ScopeTotals | None = None
    scope_sql: str | None = None

    @model_validator(mode="after")
    def _rows_of_the_template(self) -> SqlPathResult:
        """Every row has its template's columns and types: a statement that drifted from its row model is the
        tool's defect, caught when the result is validated (the registry records the call as failed)."""
        model = SQL_ROWS.get(self.template)
        for i, row in enumerate(self.rows if model is not None else []):
            try:
                model.model_validate(row)  # type: ignore[union-attr]
            except ValidationError as exc:
                first = exc.errors()[0]
                raise ValueError(f"rows[{i}] does not fit the {self.template} template ({'.'.join(str(p) for p in first['loc'])}: "
                                 f"{first['msg']})") from None
        return self

    def rows_as(self, model: type[R]) -> list[R]:
        """The rows as ``model``, which must be the template's row model (a reader of the wrong template fails
        here, not at a missing column)."""
        if SQL_ROWS.get(self.template) is not model:
            raise TypeError(f"{self.template} rows are not {model.__name__}")
        return [model.model_validate(row) for row in self.rows]


RESULT_MODELS: dict[str, type[ToolResult]] = {
    "assessment_analysis_tool": AnalysisResult,
    "assessment_comparison_tool": ComparisonResult,
    "issue_tracking_tool": IssueTrackingResult,
    "slic_results_tool": SlicResult,
    "inventory_tool": InventoryResult,
    "sql_path": SqlPathResult,
}
TOOL_OF: dict[type[ToolResult], str] = {model: name for name, model in RESULT_MODELS.items()}
T = TypeVar("T", bound=ToolResult)


def result_of(report_data: Mapping[str, Mapping[str, Any]], model: type[T]) -> T | None:
    """The typed result of ``model``'s tool in a context's ``report_data`` (tool name → JSON), None when that tool
    was not called or returned nothing: how an agent reads what a tool returned."""
    data = report_data.get(TOOL_OF[model])
    return model.model_validate(data) if data else None

