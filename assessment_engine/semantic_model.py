"""The warehouse as people ask about it (``contracts/semantic_model.yaml``, issue 52): the facts a measure counts rows
of, the measures (what is counted or rated, its SQL, its unit, which way is better) and the dimensions (what rows are
grouped, filtered or ranked by, their SQL per fact and the words people use). The query reader, the compiler
(``warehouse/query_compiler.py``) and the answer read it; nothing else lists them."""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from foundation.yaml_files import ContractError, read_yaml

Unit = Literal["count", "percent", "average"]


class Fact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    from_: str = Field(alias="from")  # the fact's table joined to its device (a) and site (s)
    run: str | None = None  # its assessment column: its rows belong to one run
    baseline: str | None = None  # the mark in ``from`` the earlier run its rows are set beside is bound to
    at: str | None = None  # its timestamp: its rows belong to a month
    collection: str | None = None  # the column that keeps the fleet apart from uploads
    rows: str | None = None  # the dimension that names one of its rows ("what are they" after a count of them)

    @model_validator(mode="after")
    def _baseline_of_a_run(self) -> Fact:
        if self.baseline and (not self.run or self.baseline not in self.from_):
            raise ValueError("a fact set beside a baseline run is of a run itself, and marks where the baseline goes")
        return self


class Measure(BaseModel):
    """``count`` (``*`` or ``DISTINCT column``) of the rows ``where`` keeps — divided by the count ``per`` of every row
    read for an average — or the ``rate`` in percent of those rows meeting a condition; the compiler adds the
    question's conditions on checks to ``where``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    fact: str
    count: str | None = None
    rate: str | None = None
    where: str | None = None
    per: str | None = None  # an average: the count divided by this count over every row read ("DISTINCT r.asset_id")
    unit: Unit = "count"
    better: Literal["lower", "higher"] | None = None
    noun: tuple[str, str]  # one, several
    words: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_aggregate(self) -> Measure:
        if (self.count is None) == (self.rate is None):
            raise ValueError("a measure is a count or a rate")
        return self

    def sql(self, extra: list[str] | None = None) -> str:
        """The aggregate, with the conditions ``extra`` (the question's conditions on checks) on the rows it reads."""
        rows = [c for c in [self.where, *(extra or [])] if c]
        if self.rate is not None:
            hits, of = self.rate_parts(extra)
            return f"ROUND(100.0 * {hits} / NULLIF({of}, 0), 1)"
        counted = f"COUNT({self.count})" + (f" FILTER (WHERE {' AND '.join(rows)})" if rows else "")
        if self.per is not None:  # "avg failed checks per device": over every device read, failing or not
            # (a share in percent: "what % of the stores have a critical finding", of every store read)
            return f"ROUND({'100.0' if self.unit == 'percent' else '1.0'} * {counted} / NULLIF(COUNT({self.per}), 0), 1)"
        return counted

    def rate_parts(self, extra: list[str] | None = None) -> tuple[str, str]:
        """A rate's numerator and denominator, each a count of the rows it reads (pooled over several rows, the rate
        of them all: "the pass rate of those three devices")."""
        assert self.rate is not None
        rows = [c for c in [self.where, *(extra or [])] if c]
        within = f" FILTER (WHERE {' AND '.join(rows)})" if rows else ""
        return f"COUNT(*) FILTER (WHERE {' AND '.join([self.rate, *rows])})", f"COUNT(*){within}"

    def named(self, value: float | int | None) -> str:
        """``value`` with its noun: "43 failed checks", "62.3% pass rate"."""
        if value is None:
            return f"no {self.noun[1]}"
        if self.unit == "percent":
            return f"{value:.1f}% {self.noun[0]}"
        if self.unit == "average":
            return f"{value:.1f} {self.noun[1]}"
        return f"{int(value):,} {self.noun[0] if value == 1 else self.noun[1]}"


class Dimension(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)  # the SQL per fact: ``results: r.rule_id``
    default: str | None = None
    noun: str
    values: list[str] = Field(default_factory=list)
    words: list[str] = Field(default_factory=list)
    join: dict[str, str] = Field(default_factory=dict)  # per fact: a table the dimension needs
    match: Literal["equals", "contains", "boolean"] = "equals"  # boolean: values "true"/"false", bound as booleans
    optional: bool = False  # a row may have none (NULL, "no exception"): such rows are no group of the dimension

    def sql_for(self, fact: str) -> str | None:
        """The dimension's column on ``fact``'s rows, or None when the fact has no such thing."""
        extra = self.model_extra or {}
        own = extra.get(fact)
        return str(own) if own else self.default


class SemanticModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    facts: dict[str, Fact]
    measures: dict[str, Measure]
    dimensions: dict[str, Dimension]

    @model_validator(mode="after")
    def _consistent(self) -> SemanticModel:
        for name, measure in self.measures.items():
            if measure.fact not in self.facts:
                raise ValueError(f"measure {name}: no fact {measure.fact!r}")
        for name, dim in self.dimensions.items():
            for fact in (dim.model_extra or {}):
                if fact not in self.facts:
                    raise ValueError(f"dimension {name}: no fact {fact!r}")
        return self

    def dimension_sql(self, name: str, fact: str) -> str | None:
        return self.dimensions[name].sql_for(fact)

    def adds_up(self, measure: str, dimension: str) -> bool:
        """Whether ``measure`` per ``dimension`` sums to the whole: a count of rows does; a count of distinct devices
        only over a dimension each device has one value of (a site, a platform — not a check: a device fails many)."""
        m = self.measures[measure]
        if m.unit != "count" or not (m.count or "").upper().startswith("DISTINCT"):
            return m.unit == "count"
        return (self.dimension_sql(dimension, m.fact) or "").startswith(("a.", "s."))

    def on_rows(self, dimension: str) -> bool:
        """A dimension of a fact's own rows (a check's rule or severity, a signature), not of the device or site."""
        return bool(self.dimensions[dimension].model_extra)

    def of_changes(self, measure: str) -> bool:
        """Whether ``measure`` counts the changes between two runs (its fact sets each row beside a baseline run's)."""
        return self.facts[self.measures[measure].fact].baseline is not None

    def counted_things(self, measure: str) -> str | None:
        """The dimension that names what ``measure`` counts: the devices of ``DISTINCT r.asset_id``, the checks of a
        count of results rows (its fact's ``rows``) — "what are they" after "38 critical failed checks"."""
        m = self.measures[measure]
        if m.count is None or not (m.unit == "count" or m.unit == "percent" and m.per is not None):
            return None  # (a share counts things too: "the stores with a critical failure", of every store)
        if m.count.upper().startswith("DISTINCT"):
            column = m.count.split(".")[-1].strip()
            return next((name for name, d in self.dimensions.items()
                         if (d.sql_for(m.fact) or "").split(".")[-1] == column), None)
        return self.facts[m.fact].rows

    @cached_property
    def measure_words(self) -> list[tuple[str, str]]:
        """Every word of every measure, longest first (so "failed logins" is read before "failed"): (word, measure)."""
        pairs = [(w.lower(), name) for name, m in self.measures.items() for w in m.words]
        return sorted(pairs, key=lambda p: -len(p[0]))

    @cached_property
    def dimension_words(self) -> list[tuple[str, str]]:
        pairs = [(w.lower(), name) for name, d in self.dimensions.items() for w in d.words]
        return sorted(pairs, key=lambda p: -len(p[0]))

    @cached_property
    def word_patterns(self) -> dict[str, re.Pattern[str]]:
        """Each measure and dimension word as a whole word (not inside "sub-sites" or "sites2"), compiled once: the
        reader tries a few hundred of them on every question."""
        # a phrase naming rows counted one by one is read in the singular too ("a config change", "the most failed
        # check"); not a count of distinct things ("the most common software version" is not the releases counted)
        one_by_one = {w for w, name in self.measure_words if " " in w and self.measures[name].count == "*"}
        words = {w for w, _ in self.measure_words} | {w for w, _ in self.dimension_words}
        return {w: re.compile(rf"(?<![\w-]){_one_or_many(w) if w in one_by_one else re.escape(w)}(?![\w-])",
                              re.IGNORECASE) for w in words}


def _one_or_many(word: str) -> str:
    """``word`` as a pattern that also reads its last noun in the singular."""
    if word.endswith("s") and not word.endswith("ss"):
        return re.escape(word[:-1]) + "s?"
    return re.escape(word)


def load_semantic_model(path: Path) -> SemanticModel:
    """The model of ``path``; a missing or malformed file is a ``ContractError`` naming it."""
    data = read_yaml(path)
    try:
        return SemanticModel.model_validate(data)
    except ValidationError as exc:
        raise ContractError(f"{path.name}: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}") from None
