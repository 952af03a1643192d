"""Settings from the environment (and an optional `.env` file), checked on start."""

from __future__ import annotations

import difflib
import hashlib
import re
from pathlib import Path
from typing import Annotated
from urllib.parse import unquote, urlsplit

from dotenv import dotenv_values
from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from digests.errors import ConfigurationError
from digests.signals.spike_settings import SpikeSettings

DEFAULT_CATEGORIES = ("cs.AI", "cs.LG", "cs.CL", "cs.CV", "cs.RO", "cs.MA", "stat.ML")
ENV_FILE = ".env"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DATABASE_SCHEMES = ("sqlite", "postgresql", "postgres")
# Unknown names in `.env` starting so are taken for misspelt settings.
OUR_PREFIXES = (
    "ARXIV_", "DATABASE_", "DELIVERY_", "DIGEST_", "DISCORD_", "HEALTH_", "INSTANCE",
    "LOG_", "SCHEDULER_", "SLACK_", "SPIKE_", "TELEGRAM_", "TERMINAL_", "TOPICS_",
)  # fmt: skip


class SettingsError(ConfigurationError, ValueError):
    """A setting has a value digestbot cannot use; the message is one line per problem."""


class Settings(BaseSettings):
    # SPIKE_FDR_Q is `spike.fdr_q`: one "_" after the group's name leads into it.
    model_config = SettingsConfigDict(
        env_file=ENV_FILE,
        env_file_encoding="utf-8",
        extra="ignore",
        env_nested_delimiter="_",
        env_nested_max_split=1,
    )

    database_url: str = "sqlite:///digestbot.db"
    arxiv_api_url: str = "https://export.arxiv.org/api/query"
    arxiv_rss_url: str = "https://rss.arxiv.org/rss"
    arxiv_categories: Annotated[tuple[str, ...], NoDecode] = DEFAULT_CATEGORIES
    # arXiv asks for one request every 3 seconds; lower values are for local fakes only.
    arxiv_request_interval: float = Field(default=3.0, ge=0)
    arxiv_timeout: float = Field(default=30.0, gt=0)
    arxiv_max_retries: int = Field(default=5, ge=0, le=20)
    arxiv_page_size: int = Field(default=2000, ge=1, le=2000)
    # An e-mail address arXiv can reach the operator at; sent in the User-Agent as arXiv asks.
    arxiv_contact: str | None = None
    topics_file: Path | None = None
    digest_papers_per_topic: int = Field(default=5, ge=1, le=50)
    # A digest missed by less than this (downtime) is sent late; older ones are skipped.
    digest_grace_hours: float = Field(default=24.0, ge=0, le=24 * 7)
    # Topics whose weekly digest `digestbot run` prints when no chat platform is configured.
    terminal_follows: Annotated[tuple[str, ...], NoDecode] = ("RL for LLM Agents",)
    log_level: str = "INFO"

    # Spike alerts (SPIKE_FDR_Q, SPIKE_MIN_COUNT, ...; see docs/spikes.md).
    spike: SpikeSettings = SpikeSettings()

    # This process's name among replicas (default: the host name). A restarted instance with the
    # same name resumes its unfinished deliveries at once; others wait for their lease to expire.
    instance_name: str | None = Field(default=None, max_length=64)
    # The scheduler lease: one replica plans digests and alerts, renewing it every tick; if it
    # dies another takes over once the lease expires (≤ lease + tick seconds).
    scheduler_lease_seconds: float = Field(default=45.0, ge=2)
    scheduler_tick_seconds: float = Field(default=15.0, ge=0.5)
    # A delivery a dead process was sending is taken over after this many seconds.
    delivery_lease_seconds: float = Field(default=60.0, ge=2)

    # Serve /healthz and /metrics on this port (off when unset).
    health_port: int | None = Field(default=None, ge=1, le=65535)
    health_host: str = "0.0.0.0"
    # Serve the topic pages on this port (off when unset); HEALTH_PORT may be the same port.
    web_port: int | None = Field(default=None, ge=1, le=65535)
    web_host: str = "0.0.0.0"
    # Where readers reach the pages (https://digests.example.org): digests link to them.
    public_url: str | None = None

    # /ask's optional written answer: an OpenAI-compatible endpoint (…/v1) and model; off
    # unless both are set, and then it is given the question and the five abstracts found.
    ask_llm_url: str | None = None
    ask_llm_model: str | None = Field(default=None, min_length=1, max_length=200)
    ask_llm_api_key: SecretStr | None = None
    ask_llm_timeout: float = Field(default=20.0, gt=0, le=120)

    telegram_token: SecretStr | None = None
    telegram_api_url: str = "https://api.telegram.org"
    # When set, Telegram pushes updates to this public URL instead of being long-polled.
    telegram_webhook_url: str | None = None
    telegram_webhook_listen: str = "0.0.0.0:8443"
    # Long-poll for updates when no webhook is set. Only one process per bot token may poll:
    # set this to false on the other replicas (they still send).
    telegram_polling: bool = True
    # The bot's @username, for the follow links `digestbot links` prints (t.me/<username>)
    # and the topic pages' "Follow in Telegram" button.
    telegram_bot_username: str | None = Field(default=None, pattern=r"^@?[A-Za-z0-9_]{5,32}$")

    discord_token: SecretStr | None = None
    discord_api_url: str = "https://discord.com/api/v10"
    discord_gateway_url: str = "wss://gateway.discord.gg"
    # A server id: commands are also synced there at once (global sync takes a while).
    discord_dev_guild: int | None = None
    # The application id (Developer Portal → General Information), for the install link
    # (`digestbot links`, the topic pages' "Add to Discord" button).
    discord_application_id: int | None = None

    # Slack (docs/slack.md): the bot token (xoxb-) turns the adapter on. With an app-level
    # token (xapp-) it receives over Socket Mode; else with the signing secret it serves the
    # Events API, slash commands and buttons at http://SLACK_EVENTS_LISTEN/slack/events.
    slack_bot_token: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_events_listen: str = "0.0.0.0:3000"
    slack_api_url: str = "https://slack.com/api/"
    # A user group's id (S0123ABCD): its members may also change what any channel follows.
    slack_manager_group: str | None = Field(default=None, pattern=r"^S[A-Z0-9]{2,20}$")
    # The app's install (or share) link, for `digestbot links`.
    slack_install_url: str | None = None

    @field_validator("arxiv_categories", mode="before")
    @classmethod
    def _split_categories(cls, value: object) -> object:
        if isinstance(value, str):
            value = [part for part in value.replace(",", " ").split() if part]
        if not value:
            raise ValueError("needs at least one arXiv category, e.g. cs.LG")
        return value

    @field_validator("terminal_follows", mode="before")
    @classmethod
    def _split_follows(cls, value: object) -> object:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("telegram_webhook_listen", "slack_events_listen")
    @classmethod
    def _host_port(cls, value: str) -> str:
        host, _, port = value.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"expected HOST:PORT, got {value!r}")
        return value

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        scheme = value.partition(":")[0].partition("+")[0].lower()
        if scheme not in DATABASE_SCHEMES or "://" not in value:
            raise ValueError(
                "expected sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE, "
                f"not {scheme or value[:20]!r}"
            )
        return value

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        if value.strip().upper() not in LOG_LEVELS:
            raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}, not {value[:20]!r}")
        return value.strip().upper()

    @field_validator(
        "arxiv_api_url", "arxiv_rss_url", "telegram_api_url", "discord_api_url",
        "slack_api_url",
    )
    @classmethod
    def _http_url(cls, value: str) -> str:
        return _url(value, ("http", "https"))

    @field_validator("public_url", "slack_install_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        return None if not value else _url(value, ("http", "https")).rstrip("/")

    @field_validator("discord_gateway_url")
    @classmethod
    def _websocket_url(cls, value: str) -> str:
        return _url(value, ("ws", "wss"))

    @field_validator("topics_file")
    @classmethod
    def _topics_file_exists(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_file():
            raise ValueError(f"no such file: {value}")
        return value

    def telegram_webhook_secret(self) -> str:
        """Telegram sends it with every webhook call; requests without it are refused."""
        token = self.telegram_token.get_secret_value() if self.telegram_token else ""
        return hashlib.sha256(b"digestbot-webhook:" + token.encode()).hexdigest()

    def secrets(self) -> list[str]:
        """What must never be shown: bot tokens, the webhook secret, the database password."""
        tokens = (self.telegram_token, self.discord_token, self.slack_bot_token)
        tokens += (self.slack_app_token, self.slack_signing_secret)
        found = [t.get_secret_value() for t in tokens if t]
        if self.telegram_token:
            found.append(self.telegram_webhook_secret())
        if password := urlsplit(self.database_url).password:
            found += [password, unquote(password)]  # as written, and as the server sees it
        return [secret for secret in found if secret]

    @field_validator("ask_llm_url")
    @classmethod
    def _ask_llm_url(cls, value: str | None) -> str | None:
        return None if value is None else _url(value, ("http", "https"))

    @model_validator(mode="after")
    def _ask_llm_both_or_neither(self) -> Settings:
        if (self.ask_llm_url is None) != (self.ask_llm_model is None):
            raise ValueError("ASK_LLM_URL and ASK_LLM_MODEL go together: set both, or neither")
        return self

    @model_validator(mode="after")
    def _lease_outlives_tick(self) -> Settings:
        # The leader renews its lease (and every replica its send presence) once a tick.
        lease, tick = self.scheduler_lease_seconds, self.scheduler_tick_seconds
        if lease <= tick:
            raise ValueError(
                f"SCHEDULER_LEASE_SECONDS ({lease:g}) must exceed SCHEDULER_TICK_SECONDS "
                f"({tick:g}), or the lease lapses between two renewals"
            )
        return self


def _url(value: str, schemes: tuple[str, ...]) -> str:
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in schemes or not parts.hostname:
        raise ValueError(f"expected a {' or '.join(s + '://' for s in schemes)} URL")
    return value.strip()


def load_settings(**overrides: object) -> Settings:
    """Read settings from the environment; raise SettingsError with a readable message."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise SettingsError("; ".join(_problem(error) for error in exc.errors())) from None


def _problem(error: dict) -> str:
    """"NAME: what is wrong", the name (and any other named in the message) as set."""
    message = error["msg"].removeprefix("Value error, ")
    loc = [str(part) for part in error["loc"]]
    group = _group(loc[0]) if loc else None
    if group is not None:  # ("spike", "fdr_q") is SPIKE_FDR_Q
        prefix = loc[0]
        loc[:2] = ["_".join(loc[:2])]
        fields = "|".join(group.model_fields)
        message = re.sub(rf"\b({fields})\b", lambda m: f"{prefix}_{m[1]}".upper(), message)
    name = ".".join(loc).upper()
    return f"{name}: {message}" if name else message


def _group(name: str) -> type[BaseModel] | None:
    """The model of a group of settings (SPIKE_*), None for a setting of its own."""
    field = Settings.model_fields.get(name)
    model = field.annotation if field else None
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def setting_names() -> list[str]:
    """Every setting's environment variable, SPIKE_FDR_Q for `spike.fdr_q`."""
    names = []
    for name in Settings.model_fields:
        group = _group(name)
        inner = [f"{name}_{field}" for field in group.model_fields] if group else [name]
        names += [each.upper() for each in inner]
    return names


def unknown_env_keys(path: Path = Path(ENV_FILE)) -> list[str]:
    """Warnings for names in a `.env` file that look like settings but are none, with the
    closest setting's name where one is near."""
    if not path.is_file():
        return []
    known = setting_names()
    warnings = []
    for key in dotenv_values(path):
        name = key.strip().upper()
        if name in known:
            continue
        closest = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        if closest:
            warnings.append(f"{path}: {key} is not a setting; did you mean {closest[0]}?")
        elif name.startswith(OUR_PREFIXES):
            warnings.append(f"{path}: {key} is not a setting (.env.example lists them all)")
    return warnings

