"""The product's own YAML files (rules, signatures, contracts, routes, the ontology), read with libyaml's parser, and
the error a malformed one raises.

PyYAML's pure-Python parser takes 60 ms for the rule catalog alone and 0.2 s for all of them, at every process
start (the page, each turn worker, each `assess` command); libyaml's takes a tenth of that. Its constructor is
the same safe one, so the data is the same (checked over every file in ``tests/unit/test_engine_shortcuts.py``). PyYAML
built without libyaml falls back to the pure-Python parser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ContractError(ValueError):
    """A contract file is missing, unreadable or malformed."""


def compiled(patterns: list[str]) -> list[str]:
    """The patterns, each checked to compile (``re.error`` names the bad one when a contract loads)."""
    for p in patterns:
        re.compile(p)
    return patterns


def load_yaml(text: str) -> Any:
    """The data of a YAML document, safely constructed (no Python objects)."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - CSafeLoader/SafeLoader: the safe constructor


def read_yaml(path: Path) -> Any:
    return load_yaml(path.read_text(encoding="utf-8"))
