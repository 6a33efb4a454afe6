"""Typed rows of the tool results (issue 29): one pydantic model per row shape, its fields exactly the columns of the
statement that writes it — the analysis tool's breakdowns, top rules, top devices, sample and exceptions, and each
SQL-path template's rows (``SQL_ROWS``: template → row model).

The answer forms read rows through these models (``row.failed``, ``row.pass_rate``), so a column renamed in a
statement fails validation in the registry — the call is recorded as the tool's defect — instead of a ``KeyError``
in an answer. Every text column is nullable, as in the warehouse (``contracts/warehouse.yaml``); counts are
integers. Dates and timestamps come as ``date``/``datetime`` from DuckDB and as ISO text from a stored turn, so
they are read as text of either (``day()`` gives the date part).

One template has no row model: ``attribute_listing``'s first column is the attribute asked about ("which OS
versions …"), so its rows stay mappings keyed by the result's ``columns``.
"""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, computed_field

from foundation.vocabulary.numbers import percent
from foundation.vocabulary.severity import Severity

When = date | datetime | str | None


def day(value: When) -> str:
    """The date part of a date, a timestamp or their ISO text ("2026-11-02")."""
    return str(value or "")[:10]


class RowModel(BaseModel):
    """A row: exactly its statement's columns."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- assessment_analysis_tool -----------------------------------------------------------------------------------
class BreakdownRow(RowModel):
    """Failed checks and failing devices under one key of a breakdown (a severity, a site, a technology …)."""

    key: str | None
    failures: int
    assets: int


class TopRule(RowModel):
    """A rule failing in scope, with the catalog's words and fix (per platform when several fail it)."""

    rule_id: str
    title: str | None
    severity: Severity | None
    category: str | None
    technology: str | None
    remediation: str | None
    rationale: str | None
    refs: str | None
    critical_assets: int
    failing_assets: int
    platforms: list[str] | None = None  # set with a per-platform remediation


class TopAsset(RowModel):
    asset_id: str
    site: str | None
    product_family: str | None
    criticality: str | None
    failures: int
    critical: int
    high: int


class SampleRow(RowModel):
    """One failed check with its evidence."""

    asset_id: str
    site: str | None
    criticality: str | None
    rule_id: str
    title: str | None
    severity: str | None
    evidence: str | None
    evidence_lines: str | None


class AppliedException(RowModel):
    exception_id: str
    rule_id: str
    assets: int
    reason: str | None
    expires_on: When
    source_document: str | None


# --- sql_path templates -----------------------------------------------------------------------------------------
class DeviceRow(RowModel):
    """``device_list``: a device in scope with its failed checks of the condition (``checks`` 0: not assessed)."""

    asset_id: str
    site: str | None
    device_type: str | None
    platform: str | None
    os_version: str | None
    environment: str | None
    failed: int
    critical: int
    high: int
    failing_rules: str | None
    checks: int
    total: int  # the devices the statement selects, past a ranking's LIMIT
    assessed: int  # the devices in scope the run assessed, failing or not
    judged: int = 0  # of those, the ones with a verdict on the checks asked (a rule applies to some platforms only):
    # what "2 of them" is out of

    @property
    def was_assessed(self) -> bool:
        return self.checks != 0

    @property
    def rule_ids(self) -> list[str]:
        return [r for r in (self.failing_rules or "").split(", ") if r]

    @property
    def software(self) -> str:
        return f"{self.platform} {self.os_version}"


class _Rates(RowModel):
    checks: int
    passed: int
    failed: int

    @computed_field  # type: ignore[prop-decorator]  # in the dump: the Reflector traces the figure
    @property
    def pass_rate(self) -> float:
        return percent(self.passed, self.checks)


class _OfRun(_Rates):
    assessment_id: str
    started_at: When
    devices: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def run_date(self) -> str:
        return day(self.started_at)


class GroupRunRow(_OfRun):
    """``group_series``: one group (role, kind of site, environment, site) in one run of the series."""

    group_key: str | None


class GroupRow(_Rates):
    """``group_compare``: one group (site, kind of site, device type, version …) side by side with the others."""

    group_key: str | None
    devices: int
    critical: int
    devices_failing: int
    total: int


class RunRow(_OfRun):
    """``run_series``: one assessment run of the series."""

    critical: int
    high: int
    devices_failing: int


class RuleChangeRow(RowModel):
    """``rule_changes``: the devices failing a rule in the first and in the last run of the time asked."""

    rule_id: str
    first_run: str
    last_run: str
    first_date: When
    last_date: When
    before_devices: int
    after_devices: int
    title: str | None
    severity: str | None
    change: int
    total: int


class SiteChangeRow(RowModel):
    """``site_changes``: a site's failed checks and pass rate in the first and in the last run of the time asked."""

    site: str
    first_run: str
    last_run: str
    first_date: When
    last_date: When
    before_failed: int
    after_failed: int
    before_rate: float
    after_rate: float
    change: int
    total: int


class CleanRuleRow(RowModel):
    """``clean_rules``: a check no device in scope fails, with the devices judged on it."""

    rule_id: str
    title: str | None
    severity: str | None
    judged: int
    total: int
    rules_judged: int


class ExceptionRow(RowModel):
    """``exception_list``: an approved exception and the devices it covers in the run."""

    exception_id: str
    rule_id: str
    title: str | None
    sites: str | None
    device_type: str | None
    expires_on: When
    approved_by: str | None
    reason: str | None
    source_document: str | None
    devices_covered: int
    covered_devices: str | None = None  # their names, comma-separated
    total: int


class DeviceRuleRow(RowModel):
    """``device_rules``: one device's verdict on one rule, with the exception that covers it."""

    asset_id: str
    platform: str | None
    rule_id: str
    title: str | None
    status: str
    severity: str | None
    evidence: str | None
    exception_id: str | None
    expires_on: When
    exception_reason: str | None


class SignatureMatchRow(RowModel):
    """``signature_matches``: a SLIC signature matched on a device in a run."""

    signature_id: str
    title: str | None
    kind: str | None
    severity: str | None
    asset_id: str
    site: str | None
    device_type: str | None
    evidence: str | None
    assessment_id: str
    started_at: When
    total: int


class ShareRow(RowModel):
    """``inventory_share``: the devices with the filter asked about, of those in scope."""

    part: int
    population: int


class TopicFailureRow(RowModel):
    """``devices_failing_topic``: a device failing one of a topic's rules, with the evidence."""

    asset_id: str
    site: str | None
    device_type: str | None
    rule_id: str
    title: str | None
    evidence: str | None


class InventoryCountRow(RowModel):
    """``inventory_count``: devices per site and type."""

    site: str | None
    device_type: str | None
    devices: int


class LastAssessedRow(RowModel):
    """``last_assessed``: a device of the inventory and the latest run that assessed it (None: never)."""

    asset_id: str
    site: str | None
    assessment_id: str | None
    started_at: When
    latest_run_at: When


SQL_ROWS: dict[str, type[RowModel]] = {
    "last_assessed": LastAssessedRow,
    "device_list": DeviceRow,
    "group_compare": GroupRow,
    "run_series": RunRow,
    "group_series": GroupRunRow,
    "rule_changes": RuleChangeRow,
    "site_changes": SiteChangeRow,
    "clean_rules": CleanRuleRow,
    "exception_list": ExceptionRow,
    "device_rules": DeviceRuleRow,
    "signature_matches": SignatureMatchRow,
    "inventory_share": ShareRow,
    "devices_failing_topic": TopicFailureRow,
    "inventory_count": InventoryCountRow,
}
