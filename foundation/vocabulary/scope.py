"""Scope: what a question asked for (``Scope``, on the intent) and what an answer covered (``AnswerScope``,
from the tool results). Entities become tool scope filters in one place, ``orchestration.tools.scope.scope_for``;
the Answer Composer states the covered scope and the Reflector compares the two."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

# a software version filter that names a whole train ("15.x", "17.9.x"): every release that starts with it
TRAIN_SUFFIX = ".x"


class Scope(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    site: str | None = None
    environment: str | None = None
    time_range: str | None = None
    targets: list[str] = Field(default_factory=list)


class AnswerScope(BaseModel):
    """What a data answer actually covered, from the tool results (not from the question): the Answer
    Composer states it in a fixed place and the Reflector compares it with the resolved intent."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    collection: str = "fleet"
    assessment_id: str | None = None
    assessment_date: str | None = None
    previous_assessment_id: str | None = None
    sites: list[str] = Field(default_factory=list)
    devices: list[str] = Field(default_factory=list)
    site_types: list[str] = Field(default_factory=list)
    environment: list[str] = Field(default_factory=list)  # several values of one filter are OR-ed
    device_type: list[str] = Field(default_factory=list)
    platform: list[str] = Field(default_factory=list)
    os_version: list[str] = Field(default_factory=list)
    role: list[str] = Field(default_factory=list)
    severity: str | None = None
    focus: str | None = None
    assets: int | None = None
    # values a typed query excluded ("outside DataCenter-1", "not on ios-xe"), by the scope key of their kind
    excluded: dict[str, list[str]] = Field(default_factory=dict)
    # values of the other dimensions a typed query kept ("region us-west", "tier tier1"), by the dimension's noun
    more: dict[str, list[str]] = Field(default_factory=dict)
    # the months of a count of logged events ("every month" for all of them): the log was read, not the inventory
    logged_months: list[str] = Field(default_factory=list)
    # the devices are those an earlier answer listed ("which of them are in us-central"): said so, not named again
    devices_listed_before: bool = False

    @field_validator("site_types", "environment", "device_type", "platform", "os_version", "role", mode="before")
    @classmethod
    def _several(cls, value: Any) -> list[str]:
        """A tool's scope holds one value (a string) or several (a list)."""
        if value is None or value == "":
            return []
        return [value] if isinstance(value, str) else list(value)
