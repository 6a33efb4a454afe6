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

from orchestration.config import PROJECT_ROOT

PACKAGES = ("orchestration", "knowledge_base", "chat_app")
_MUTATORS = {"append", "extend", "add", "update", "setdefault", "pop", "popitem", "clear", "remove", "discard",
             "insert", "appendleft", "move_to_end"}
# classes whose module-level instances hold no state: compiled patterns, a sentinel
STATELESS = {"LineStarts", "_NotApplicable"}
_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter", "WeakValueDictionary",
               "WeakKeyDictionary", "WeakSet"}

# What is there now (28; issue 33 moves them into Services): kind, module, name.
KNOWN = {
    ('cache', 'chat_app.charts', '_template'),
    ('cache', 'orchestration.config', 'get_settings'),
    ('cache', 'orchestration.contracts', '_cached'),
    ('cache', 'orchestration.engines.config_parser', 'literal_start'),
    ('cache', 'orchestration.engines.rule_engine', '_cached_rules'),
    ('cache', 'orchestration.engines.rule_engine', '_compile'),
    ('cache', 'orchestration.engines.slic_engine', '_cached'),
    ('cache', 'orchestration.interpretation.enterprise', 'without_orders'),
    ('cache', 'orchestration.interpretation.markdown', '_parser'),
    ('cache', 'orchestration.warehouse.schema', '_cached'),
    ('cache', 'orchestration.warehouse.sql_path', 'guarded'),
    ('cache', 'orchestration.warehouse.sql_text', 'pretty_sql'),
    ('cache', 'orchestration.warehouse.store', 'transpile'),
    ('mutated container', 'chat_app.app', 'FORGETTING'),
    ('mutated container', 'chat_app.files_dir', '_held'),
    ('mutated container', 'knowledge_base.service', '_open'),
    ('mutated container', 'orchestration.database', '_engines'),
    ('mutated container', 'orchestration.memory.store', '_migrated'),
    ('mutated container', 'orchestration.warehouse.migrate', '_checked'),
    ('mutated container', 'orchestration.warehouse.store', '_open'),
    ('object', 'chat_app.app', 'ELEMENTS'),
    ('object', 'chat_app.app', 'LIMITS'),
    ('object', 'chat_app.app', 'REVOKED'),
    ('object', 'chat_app.app', 'THROTTLE'),
    ('object', 'chat_app.app', 'UPLOADS'),
    ('slot', 'knowledge_base.embeddings', '_embedder'),
    ('slot', 'knowledge_base.embeddings', '_threads'),
    ('slot', 'orchestration.warehouse.store', '_statements'),
}


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
