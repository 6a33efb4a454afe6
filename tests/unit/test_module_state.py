"""Module-level mutable state and caches, read from the source (nothing is imported: importing the chat app starts
its turn workers).

Issue 33 moves what a process holds — settings, models, stores, caches — into the ``Services`` one
``build_services(settings)`` builds, so that tests and a second configuration in one process cannot see each other's.
Until then this test keeps the list from growing: it finds every

- cache: a module-level function decorated with ``functools.lru_cache`` or ``cache``;
- slot: a name a function rebinds with ``global``;
- mutated container: a module-level dict, list, set, deque … that the module changes (``X[k] = v``, ``X.append``…);
- object built at import: a module-level instance of one of the product's own classes,

and compares them with the list below, which may only shrink. A new one fails with where it is; one that is gone
fails until it is struck from the list (so the figure in the issue's note stays true).
"""

from __future__ import annotations

import ast
from pathlib import Path

from foundation.config import PROJECT_ROOT

PACKAGES = ("foundation", "assessment_engine", "orchestration", "knowledge_base", "chat_app", "command_line")
_MUTATORS = {"append", "extend", "add", "update", "setdefault", "pop", "popitem", "clear", "remove", "discard",
             "insert", "appendleft", "move_to_end"}
# classes whose module-level instances hold no state: compiled patterns, a sentinel
STATELESS = {"LineStarts", "_NotApplicable"}
_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter", "WeakValueDictionary",
               "WeakKeyDictionary", "WeakSet"}

# Memos: bounded caches of a function of its arguments alone — it reads no settings, environment or file and keeps
# nothing else (checked below) — like ``re``'s cache of compiled patterns: nothing a second configuration, a test or
# a changed file can make stale.
MEMOS = {
    ('cache', 'chat_app.charts', '_template'),  # Plotly's default template, from the installed package
    ('cache', 'assessment_engine.checks.config_parser', 'literal_start'),  # of a compiled pattern
    ('cache', 'assessment_engine.checks.rule_engine', '_compile'),  # a pattern's compiled form
    ('cache', 'orchestration.interpretation.enterprise', 'without_orders'),  # of a text
    ('cache', 'orchestration.interpretation.markdown', '_parser'),  # a CommonMark parser, used read-only
    ('cache', 'assessment_engine.warehouse.sql_text', 'pretty_sql'),  # of a statement and a dialect
    ('cache', 'assessment_engine.warehouse.store', 'transpile'),  # of a statement and a dialect
}
# What reads the outside world and is kept by a module: none (what a process holds is its ``Services``').
KNOWN = MEMOS


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _names(elt)]
    return []


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in _CONTAINERS
    return False


def _decorated_as_cache(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
        if name in ("lru_cache", "cache"):
            return True
    return False


def module_state(path: Path, module: str, own_classes: set[str]) -> set[tuple[str, str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[tuple[str, str, str]] = set()
    containers: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _decorated_as_cache(node):
            found.add(("cache", module, node.name))
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names = [n for t in targets for n in _names(t)]
        branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]  # X = A() if c else None
        for branch in branches:
            if _is_container(branch):
                containers.update(names)
            elif isinstance(branch, ast.Call):
                func = branch.func
                called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if called in own_classes - STATELESS:
                    found.update(("object", module, n) for n in names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.update(("slot", module, n) for n in node.names)
        target = None
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            for t in (node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]):
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    target = t.value.id
                    if target in containers:
                        found.add(("mutated container", module, target))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in containers:
            found.add(("mutated container", module, node.func.value.id))
    # a name rebound inside a function without ``global`` is that function's own: only module-level names count
    return {entry for entry in found if entry[0] != "mutated container" or _bound_at_module_level(tree, entry[2])}


def _bound_at_module_level(tree: ast.Module, name: str) -> bool:
    return any(name in [n for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                        for n in _names(t)]
               for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign))


def _sources() -> list[tuple[Path, str]]:
    out = []
    for package in PACKAGES:
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            rel = path.relative_to(PROJECT_ROOT).with_suffix("")
            out.append((path, ".".join(rel.parts).removesuffix(".__init__")))
    return out


def _own_classes() -> set[str]:
    return {node.name for path, _ in _sources() for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, ast.ClassDef)}


def current() -> set[tuple[str, str, str]]:
    classes = _own_classes()
    return {entry for path, module in _sources() for entry in module_state(path, module, classes)}


# a memo that names one of these reads something besides its arguments
IMPURE_NAMES = {"get_settings", "environ", "getenv", "open", "read_text", "read_bytes", "read_yaml", "load_yaml",
                "connect", "time", "now", "today", "random"}


def _impure_functions() -> set[str]:
    """The product's functions that read the settings, the environment, a file or the clock, themselves or through
    another (``load_catalog``, ``assess_files`` …), by name."""
    calls: dict[str, set[str]] = {}
    for path, _ in _sources():
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(fn, ast.FunctionDef):
                calls.setdefault(fn.name, set()).update(
                    n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name))
    readers = set(IMPURE_NAMES)
    while grown := {name for name, called in calls.items() if called & readers} - readers:
        readers |= grown
    return readers


def test_a_memo_reads_nothing_but_its_arguments_and_is_bounded() -> None:
    sources = dict((module, path) for path, module in _sources())
    impure = _impure_functions()
    assert {"load_ontology", "load_catalog", "load_rules", "build_services", "assess_files"} <= impure
    for _, module, name in sorted(MEMOS):
        tree = ast.parse(sources[module].read_text(encoding="utf-8"))
        (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
        called = {n.func.id if isinstance(n.func, ast.Name) else n.func.attr for n in ast.walk(fn)
                  if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)}
        environment = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute) and n.attr == "environ"}
        read = called & impure | environment
        assert not read, f"{module}.{name} reads {sorted(read)}: not a memo"
        assert not any(isinstance(n, ast.Global | ast.Nonlocal) for n in ast.walk(fn)), f"{module}.{name} keeps state"
        bounded = [d for d in fn.decorator_list if isinstance(d, ast.Call) and any(
            k.arg == "maxsize" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, int)
            for k in d.keywords)]
        assert bounded, f"{module}.{name}: a memo is an lru_cache with a maxsize"


def test_no_module_level_state_or_cache_is_added_and_the_list_only_shrinks() -> None:
    now = current()
    added, gone = sorted(now - KNOWN), sorted(KNOWN - now)
    assert not added, ("module-level state added — keep it on Services (orchestration/services.py) instead: "
                       + "; ".join(f"{kind} {module}.{name}" for kind, module, name in added))
    assert not gone, ("gone from the source — strike it from KNOWN: "
                      + "; ".join(f"{kind} {module}.{name}" for kind, module, name in gone))


def test_the_reader_finds_each_kind(tmp_path: Path) -> None:
    source = '''
import functools
from functools import lru_cache
CACHE: dict[str, int] = {}
TABLE = {"a": 1}
_POOL = None
LIMITS = Limits()
POOL = Limits(2) if TABLE else None

@lru_cache(maxsize=8)
def cached(x): return x

@functools.cache
def also(x): return x

def remember(k, v):
    CACHE[k] = v

def start():
    global _POOL
    _POOL = 1

def local():
    seen = {}
    seen["x"] = 1
    TABLE.get("a")
'''
    path = tmp_path / "sample.py"
    path.write_text(source, encoding="utf-8")
    assert module_state(path, "sample", {"Limits"}) == {
        ("cache", "sample", "cached"), ("cache", "sample", "also"), ("mutated container", "sample", "CACHE"),
        ("slot", "sample", "_POOL"), ("object", "sample", "LIMITS"), ("object", "sample", "POOL")}


# The front ends read the settings (each is a process's start); below them, only the composition root does.
FRONT_ENDS = ("chat_app", "command_line", "benchmarks")


def _reads_settings(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("get_settings", "Settings")
               for n in ast.walk(node))


def test_the_settings_are_read_by_the_composition_root_and_the_front_ends_only() -> None:
    readers = set()
    for path, module in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        readers |= {(module, fn.name) for fn in ast.walk(tree)
                    if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and _reads_settings(fn)}
        readers |= {(module, "<import>") for stmt in tree.body
                    if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and _reads_settings(stmt)}
    below = {(m, f) for m, f in readers if not m.startswith(FRONT_ENDS)}
    assert below == {("orchestration.services", "build_services"), ("foundation.config", "get_settings")}, below
    assert ("chat_app.app", "<import>") in readers  # the test sees a read where there is one
