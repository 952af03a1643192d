"""The layers of docs/architecture.md, held against the code's own imports (read with `ast`, so
imports made inside functions and under TYPE_CHECKING count too):

    bot/                 the entry points and chat adapters; bot/app.py is the composition root
    digests.usecases     read from the store, let the core decide, write, in one unit of work
    digests.store        the only SQL; may use the core's types
    the core             every other module of digests/: plain data in, plain data out

An import may point down or sideways, never up, and no modules (nor the core's packages) may
import each other in a circle."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "digests")
LAYERS = ("core", "store", "usecases", "bot")
SQL_LIBRARIES = ("sqlmodel", "sqlalchemy", "alembic")
CHAT_AND_SCHEDULER_LIBRARIES = ("discord", "telegram", "slack_sdk", "slack_bolt", "apscheduler")
COMPOSITION_ROOT = "bot.app"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def our_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


MODULES = our_modules()


def imported_names(name: str, path: Path) -> Iterator[str]:
    """Every module the file names in an import statement, wherever the statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def internal_imports(name: str) -> set[str]:
    return {
        imported
        for imported in imported_names(name, MODULES[name])
        if imported in MODULES and imported != name
    }


def layer(name: str) -> str:
    if name.startswith("bot"):
        return "bot"
    for inner in ("store", "usecases"):
        if name == f"digests.{inner}" or name.startswith(f"digests.{inner}."):
            return inner
    return "core"


def room(name: str) -> str:
    """The core's packages count as one room each: digests.follows, digests.messages, …"""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == "digests" else name


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


GRAPH = {name: internal_imports(name) for name in MODULES}


def test_the_probe_sees_imports_of_every_kind():
    """Guards the test itself: a module-level, a lazy and a relative-free `from` import."""
    assert "digests.store.engine" in GRAPH["bot.app"]
    assert "digests.usecases.momenta" in GRAPH["bot.cli"]  # imported inside a command
    assert layer("digests.store.repo") == "store" and layer("digests.signals.spikes") == "core"


def test_no_import_points_up_a_layer():
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        for target in targets
        if LAYERS.index(layer(target)) > LAYERS.index(layer(name))
    )
    assert upward == []


def test_no_modules_import_each_other_in_a_circle():
    assert circles(GRAPH) == []


def test_the_cores_packages_import_each_other_in_no_circle():
    rooms: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        if layer(name) == "core":
            rooms.setdefault(room(name), set()).update(
                room(target) for target in targets if room(target) != room(name)
            )
    assert circles(rooms) == []


def external_imports(libraries: tuple[str, ...]) -> dict[str, list[str]]:
    found = {
        name: sorted({i for i in imported_names(name, path) if i.split(".")[0] in libraries})
        for name, path in MODULES.items()
    }
    return {name: names for name, names in found.items() if names}


def test_only_the_store_the_use_cases_and_the_composition_root_import_sql_libraries():
    outside = {
        name: found
        for name, found in external_imports(SQL_LIBRARIES).items()
        if layer(name) not in ("store", "usecases") and name != COMPOSITION_ROOT
    }
    assert outside == {}


def test_digests_imports_no_chat_library_and_no_scheduler():
    found = external_imports(CHAT_AND_SCHEDULER_LIBRARIES)
    assert {name: libs for name, libs in found.items() if name.startswith("digests")} == {}


TESTS = ROOT / "tests"


def imported_test_modules(name: str, path: Path) -> set[str]:
    """The modules named test_* under tests/ that the file of module `name` imports."""
    return {
        ".".join(parts[:2])
        for parts in (imported.split(".") for imported in imported_names(name, path))
        if parts[0] == "tests" and len(parts) > 1 and parts[1].startswith("test_")
    }


def test_the_probe_sees_a_test_module_imported_in_any_form(tmp_path: Path):
    """Guards the next test, on a file written for it."""
    tests = tmp_path / "tests"
    tests.mkdir()
    sample = tests / "test_sample.py"
    sample.write_text(
        "from tests.test_a import x\nimport tests.test_b\nfrom .test_c import y\n"
        "from tests.fakes.discord_bot import Bot\nfrom tests import test_d\n"
    )
    found = imported_test_modules("tests.test_sample", sample)
    assert found == {"tests.test_a", "tests.test_b", "tests.test_c", "tests.test_d"}


def test_no_test_module_imports_another():
    """Shared fixtures live in tests/conftest.py, shared helpers in modules not named test_*."""
    importing = {
        path.relative_to(ROOT).as_posix(): sorted(found)
        for path in sorted(TESTS.rglob("test_*.py"))
        if (found := imported_test_modules(module_name(path), path))
    }
    assert importing == {}


CORE_TESTS_MAY_NOT_IMPORT = ("digests.store", "digests.usecases", "bot", *SQL_LIBRARIES)


def test_the_cores_tests_need_no_database():
    """tests/core runs without a database, so it imports no store, use case, entry point or SQL
    library (nor the test helpers built on them)."""
    found = {
        path.name: sorted(
            name
            for name in imported_names(module_name(path), path)
            if any(name == f or name.startswith(f"{f}.") for f in CORE_TESTS_MAY_NOT_IMPORT)
            or (name.startswith("tests.") and not name.startswith("tests.core."))
        )
        for path in sorted((TESTS / "core").glob("*.py"))
    }
    assert {name: names for name, names in found.items() if names} == {}
