"""The runtime dependencies in pyproject.toml are exactly what bot/ and digests/ import."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Declared although no module imports them, and why.
DECLARED_UNIMPORTED = {
    "psycopg": "SQLAlchemy loads it for postgresql+psycopg:// URLs",
    "sniffio": "httpcore imports it on every request (see pyproject.toml)",
}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {normalized(re.match(r"[\w.-]+", spec)[0]) for spec in project["dependencies"]}


# Imported only by `digestbot train`, whose packages are the `train` extra's.
TRAINING = ROOT / "digests" / "topics" / "training.py"


def imported_modules(paths: list[Path] | None = None) -> set[str]:
    """Top-level names of every absolute import in `paths` (by default bot/ and digests/,
    the training module aside), lazy ones included."""
    if paths is None:
        paths = [p for pkg in ("bot", "digests") for p in (ROOT / pkg).rglob("*.py")]
        paths = [p for p in paths if p != TRAINING]
    found = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.partition(".")[0])
    return found - set(sys.stdlib_module_names) - {"bot", "digests"}


def imported(paths: list[Path] | None = None) -> set[str]:
    """The distributions that provide the imported modules (PIL is pillow)."""
    providers = packages_distributions()
    return {
        normalized(dist)
        for module in imported_modules(paths)
        for dist in providers.get(module, [module])
    }


def test_every_imported_package_is_declared():
    assert imported() - declared() == set()


def test_the_training_modules_packages_are_the_runtime_ones_or_the_train_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["train"]
    train = {normalized(re.match(r"[\w.-]+", spec)[0]) for spec in extra}
    assert imported([TRAINING]) - declared() - train == set()


def test_every_declared_package_is_imported_or_said_why_not():
    assert declared() - imported() - DECLARED_UNIMPORTED.keys() == set()
