"""Bounded waits for conditions that another task or process makes true."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; returns its last value."""
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.05)
    return condition()
