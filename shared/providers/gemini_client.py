"""One client for the Gemini REST API: key in a header, one deadline, retries, our errors.

Retries with jittered backoff on 408/429/500/502/503/504 (honouring the body's
``RetryInfo.retryDelay`` when it fits the deadline), none on other 4xx. The key is only
ever sent as ``x-goog-api-key``: URLs get logged, headers do not.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

from shared.json_value import JsonObject, JsonValue
from shared.logs import register_secret
from shared.providers.model_http import (
    DEFAULT_DEADLINE_S,
    MAX_ATTEMPTS,
    ModelHttp,
    error_message,
)
from shared.providers.upstream import RETRYABLE

__all__ = ["DEFAULT_DEADLINE_S", "RETRYABLE", "GeminiClient", "retry_delay"]
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def retry_delay(body: Any) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail of an error body, if any."""
    error = body.get("error") if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _DURATION.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def _key_refused(body: Any, status: int) -> bool:
    if status in (401, 403):
        return True
    text = json.dumps(body) if isinstance(body, dict) else ""
    return status == 400 and ("API_KEY_INVALID" in text or "API key not valid" in text)


class _Gemini:
    """The Gemini API's dialect: the key in ``x-goog-api-key``, ``RetryInfo`` delays."""

    vendor = "the Gemini API"
    key_variable = "GOOGLE_AI_API_KEY"

    def __init__(self, api_key: str) -> None:
        self._key = api_key

    def headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._key, "Content-Type": "application/json"}

    def message(self, payload: Any, status: int) -> str:
        return error_message(payload, status)

    def key_refused(self, payload: Any, status: int) -> bool:
        return _key_refused(payload, status)

    def suggested_delay(self, payload: Any, headers: httpx.Headers) -> float | None:
        return retry_delay(payload)


class GeminiClient:
    """POSTs JSON to ``{base_url}/v1beta/{path}`` within one overall deadline."""

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        http: httpx.Client,
        deadline_s: float = DEFAULT_DEADLINE_S,
        max_attempts: int = MAX_ATTEMPTS,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        register_secret(api_key)
        self._calls = ModelHttp(
            _Gemini(api_key),
            f"{base_url.rstrip('/')}/v1beta",
            http,
            deadline_s=deadline_s,
            max_attempts=max_attempts,
            sleep=sleep,
            jitter=jitter,
        )

    def post(self, path: str, body: Mapping[str, JsonValue]) -> JsonObject:
        """The JSON object the API answered, or one of our errors (see the module doc)."""
        return self._calls.post(path, body)

    def stream(self, path: str, body: Mapping[str, JsonValue]) -> Iterator[JsonObject]:
        """``path`` (a ``:streamGenerateContent``) with ``alt=sse``: each event's object."""
        return self._calls.stream(f"{path}?alt=sse", body)
