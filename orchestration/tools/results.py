"""Typed results of the allowlisted tools (issue 29): one pydantic model per tool, its fields exactly the contract's
``returns`` (``tests/test_contracts.py`` holds them equal), nothing undeclared (``extra="forbid"``).

The registry validates every result against its tool's model before an agent sees it: a missing field, an
undeclared one or a wrong type (a count that is not an integer, a list that is a string) is the tool's defect and
fails the call, as the contract says. Code that reads a result reads it through its model
(``SlicResult.model_validate(report)``), so a renamed field breaks at the type check, not in a string key at run
time.

STATE keeps a result's JSON form (``AssessmentContext.report_data``: tool name → the validated result dumped):
the exported trace and the turns kept in memory stay plain JSON that any later version can read.

Rows whose columns are the statement's own (the SQL path's templates, the analysis tool's breakdowns and samples)
stay mappings: their columns are listed in the result (``columns``) and vary with the template.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from orchestration.outputs import InventoryRow, SignatureTotal, SlicMatch

Row = dict[str, Any]


class ToolResult(BaseModel):
    """A tool's result: exactly the contract's fields."""

    model_config = ConfigDict(extra="forbid")


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- assessment_analysis_tool -----------------------------------------------------------------------------------
class AnalysisMetrics(BaseModel):
    """The run's totals in scope (more figures when a severity or focus narrows the checks counted)."""

    model_config = ConfigDict(extra="allow")

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


class AnalysisResult(ToolResult):
    query_type: str
    collection: str
    metrics: AnalysisMetrics
    breakdowns: dict[str, list[Row]]
    breakdown_keys: dict[str, int]
    top_rules: list[Row]
    top_assets: list[Row]
    results_sample: list[Row]
    sample_cap: int
    focus_area: str | list[str] | None
    scope_applied: dict[str, Any]
    row_count: int
    computed_from: str
    exceptions_applied: list[Row] | None = None


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


RESULT_MODELS: dict[str, type[ToolResult]] = {
    "assessment_analysis_tool": AnalysisResult,
    "assessment_comparison_tool": ComparisonResult,
    "issue_tracking_tool": IssueTrackingResult,
    "slic_results_tool": SlicResult,
    "inventory_tool": InventoryResult,
    "sql_path": SqlPathResult,
}

