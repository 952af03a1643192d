"""The project's shared real data, kept beside the checkout in ../shared (CI has it there)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


def shared_dir(*parts: str, pattern: str = "*") -> Path:
    """A folder of ../shared holding files that match `pattern`; skips the calling test when
    it is missing, and fails it in CI."""
    folder = SHARED.joinpath(*parts)
    if folder.is_dir() and any(folder.glob(pattern)):
        return folder
    if os.environ.get("CI"):
        pytest.fail(f"shared data not found at {folder}")
    pytest.skip(f"shared data not found at {folder}")
