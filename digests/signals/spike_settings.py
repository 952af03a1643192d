"""The thresholds of spike detection (`digests.signals.spikes`), checked once, when they are built.

The bot nests them in its settings, so that SPIKE_FDR_Q and the rest are refused at start;
this module imports pydantic alone, so reading settings loads no statistics.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator


class SpikeSettings(BaseModel):
    """When a topic alerts (docs/spikes.md). Values that make no sense, alone or together, are
    refused when built (a pydantic `ValidationError`, which is a `ValueError`)."""

    model_config = ConfigDict(frozen=True)

    # The expected share of false alerts among the alerts of one scan.
    fdr_q: float = Field(default=0.05, gt=0, lt=1)
    # Papers in the last four weeks.
    min_count: int = Field(default=10, ge=1)
    # Share now / share in the four weeks before.
    min_share_ratio: float = Field(default=1.5, gt=1)
    # At or below this an elevated topic has calmed down.
    rearm_share_ratio: float = Field(default=1.2, ge=1)
    # An elevated topic alerts again after this much more growth.
    realert_factor: float = Field(default=1.5, gt=1)
    # At least this long between two alerts of one topic.
    cooldown_days: int = Field(default=14, ge=0)

    @field_validator("rearm_share_ratio")
    @classmethod
    def _rearm_below_alerting(cls, value: float, info: ValidationInfo) -> float:
        # Re-arming above the alerting ratio would re-arm a topic that is still spiking.
        alerting = info.data.get("min_share_ratio")
        if alerting is not None and value > alerting:
            raise ValueError(f"must not exceed min_share_ratio ({alerting:g}), not {value:g}")
        return value
