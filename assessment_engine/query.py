"""A question about the warehouse as what executes (issue 52): the measures asked, what the rows are grouped by, the
conditions (each may be negated), bounds on a measure per row ("more than 40 failed checks", "zero failures"), the
runs or months, the order, the limit, and the form the answer takes. The reader fills it from the words, a follow-up
edits the previous one, ``warehouse/query_compiler.py`` turns it into one SQL statement — the semantic model
(``semantic_model.py``) names every measure and dimension it may use."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# "difference": the rows of the first dimension grouped by that differ between the sides of the second ("what does
# SW-1 fail that SW-2 doesn't": the checks failing on one of the two devices only); "since": the run from which the
# measure has been above zero in every run to the latest ("since when has RTR-1 been failing SSH-V2")
# "difference": what two sides (devices, sites) fail apart; "one_side": what the first fails and the others do not
# "same": whether the rows share one value of the dimension grouped by ("are they all at the same site")
Output = Literal["value", "list", "table", "yes_no", "series", "change", "difference", "one_side", "since", "same"]
Comparison = Literal[">", ">=", "<", "<=", "="]
OTHERS = "everything else"  # the other side of a split condition, as its rows are named


class QueryModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Condition(QueryModel):
    """Rows whose ``dimension`` is one of ``values`` (or none of them, ``negated``). ``in_measure``: the condition says
    what is counted, not which rows are grouped ("sites without any firewall": every site, its firewalls counted). A
    release ending in ``.x`` is a train ("16.x": every 16 release)."""

    dimension: str
    values: list[str]
    negated: bool = False
    in_measure: bool = False
    # the condition is on the devices, not on the rows: a device failing one of the values ("devices failing SNMP-RW
    # but not SNMP-ACL": negated, the devices failing none of them) — every row of such a device counts
    of_devices: bool = False
    passing: bool = False  # of the devices passing the values (judged and passed), not failing them: "but pass SNMP-ACL"
    # the condition splits the rows in two instead of keeping some ("the stores vs the rest"): its values on one side,
    # every other row on the other (named OTHERS); its dimension is grouped by
    split: bool = False

    def describe(self) -> str:
        values = ", ".join(self.values) if len(self.values) <= 6 else f"{', '.join(self.values[:3])} and " \
            f"{len(self.values) - 3} more"
        if self.split:
            return f"{self.dimension} {values} vs {OTHERS}"
        if self.of_devices:
            return f"devices {'not ' if self.negated else ''}{'passing' if self.passing else 'failing'} {values}"
        return f"{self.dimension}{' not' if self.negated else ''} {values}"


class Bound(QueryModel):
    """A row of the result counts only when its ``measure`` compares so with ``value``."""

    measure: str
    op: Comparison
    value: float

    def holds(self, actual: float | None) -> bool:
        number = float(actual or 0)
        return {">": number > self.value, ">=": number >= self.value, "<": number < self.value,
                "<=": number <= self.value, "=": number == self.value}[self.op]

    def describe(self) -> str:
        value = int(self.value) if float(self.value).is_integer() else self.value
        return f"{self.measure} {self.op} {value}"


class Order(QueryModel):
    """Rows by ``measure``, then by each of ``then`` (ties of the first), all the same way."""

    measure: str
    descending: bool = True
    then: list[str] = Field(default_factory=list)


class DataQuery(QueryModel):
    """``runs``: the assessment ids read, oldest first — one (a value, a list, a table), two (a change) or several (a
    series); ``months``: YYYY-MM for facts timed by their own clock (events). ``selected``: the rows of the previous
    answer the question is about (their key values), kept as a condition on the first dimension grouped by."""

    measures: list[str] = Field(default_factory=list)
    group_by: list[str] = Field(default_factory=list)
    conditions: list[Condition] = Field(default_factory=list)
    bounds: list[Bound] = Field(default_factory=list)
    runs: list[str] = Field(default_factory=list)
    months: list[str] = Field(default_factory=list)
    order: Order | None = None
    limit: int | None = None
    offset: int = 0  # ranked rows skipped before the limit: "the second worst store" is 1, limit 1
    output: Output = "value"
    # the row asked whether it leads the ranking ("is HQ the site with the most failed checks?", "was it also worst in
    # august?"): every row is ranked, and the answer says whether this one is within the limit, and where it stands
    leader: str | None = None
    # the rows that moved this way between the first and the last run ("which devices got worse since september"):
    # kept by the query, so that "how many of them are at the stores" still counts the ones that got worse; "either":
    # the rows that moved at all, the most either way first ("which one changed the most")
    direction: Literal["worse", "better", "either"] | None = None

    def condition(self, dimension: str) -> Condition | None:
        return next((c for c in self.conditions if c.dimension == dimension), None)

    def asked_of_its_row(self) -> DataQuery:
        """A ranking held to one row of its own kind ("is HQ the site with the most failed checks") ranks one row and
        always leads: it asks whether that row leads every row — the condition becomes the row asked about."""
        held = self.condition(self.group_by[0]) if self.group_by and self.order else None
        if held is None or held.negated or len(held.values) != 1 or self.output in ("difference", "one_side"):
            return self
        return self.model_copy(update={"conditions": [c for c in self.conditions if c is not held],
                                       "leader": held.values[0], "output": "yes_no", "limit": self.limit or 1})

    @property
    def bound_to_none(self) -> bool:
        """Whether every bound keeps the rows with none of their figure ("devices with no failed checks")."""
        return bool(self.bounds) and all(b.op == "=" and b.value == 0 for b in self.bounds)

    @property
    def asks_whether_some_pass(self) -> bool:
        """A yes/no over devices bound to none failing ("is snmp v3 used anywhere at HQ"): Yes when some device
        passes the checks asked, and which — what no verdict of failures says."""
        return self.output == "yes_no" and self.group_by == ["device"] and any(
            b.op == "=" and b.value == 0 for b in self.bounds)

    def describe(self) -> str:
        """One line for the trace: ``failed_checks by site · site_type store · runs ASMT-… · top 5``."""
        parts = [", ".join(self.measures) or "rows"]
        if self.group_by:
            parts[0] += " by " + ", ".join(self.group_by)
        parts += [c.describe() for c in self.conditions] + [b.describe() for b in self.bounds]
        if self.runs:
            parts.append("runs " + ", ".join(self.runs))
        if self.months:
            parts.append("months " + ", ".join(self.months))
        if self.order:
            parts.append(f"{'highest' if self.order.descending else 'lowest'} {self.order.measure} first")
        if self.limit:
            parts.append(f"top {self.limit}" + (f" after {self.offset}" if self.offset else ""))
        if self.leader:
            parts.append(f"whether {self.leader} is there")
        if self.direction:
            parts.append("the rows that changed" if self.direction == "either" else f"the rows that got {self.direction}")
        return " · ".join(parts) + f" → {self.output}"
