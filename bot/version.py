"""digestbot's installed version, without importing the application (`digestbot --version`)."""

from __future__ import annotations


def installed_version() -> str | None:
    """digestbot's version as installed; None when run from a source tree never installed."""
    import importlib.metadata

    try:
        return importlib.metadata.version("digestbot")
    except importlib.metadata.PackageNotFoundError:
        return None
