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
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from shared.errors import BibliotecaError, NotConfigured, Unavailable, UpstreamError
from shared.logs import get_logger, register_secret

RETRYABLE = frozenset({408, 429, 500, 502, 503, 504})
DEFAULT_DEADLINE_S = 25.0  # Cloud Functions' default timeout is 60 s: answer well inside it
MAX_ATTEMPTS = 4
BASE_BACKOFF_S = 0.5
MAX_BODY_BYTES = 8 * 1024 * 1024
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_log = get_logger("gemini")


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


def _message(body: Any, status: int) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])[:300]
    return f"HTTP {status}"


def _key_refused(body: Any, status: int) -> bool:
    if status in (401, 403):
        return True
    text = json.dumps(body) if isinstance(body, dict) else ""
    return status == 400 and ("API_KEY_INVALID" in text or "API key not valid" in text)


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
        self._key = api_key
        self._base = base_url.rstrip("/")
        self._http = http
        self._deadline_s = deadline_s
        self._attempts = max_attempts
        self._sleep = sleep
        self._jitter = jitter

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON object the API answered, or one of our errors (see the module doc)."""
        deadline = time.monotonic() + self._deadline_s
        url = f"{self._base}/v1beta/{path}"
        for attempt in range(1, self._attempts + 1):
            status, payload = self._once(url, body, deadline)
            if 200 <= status < 300:
                if not isinstance(payload, dict):
                    raise UpstreamError("the Gemini API answered with something that is not JSON")
                return payload
            if _key_refused(payload, status):
                raise NotConfigured(
                    "the Gemini API refused the key: check GOOGLE_AI_API_KEY "
                    f"({_message(payload, status)})"
                )
            if status not in RETRYABLE:
                raise UpstreamError(
                    f"the Gemini API refused the request: {_message(payload, status)}"
                )
            wait = self._backoff(attempt, payload)
            remaining = deadline - time.monotonic()
            _log.warning(
                "gemini %s answered %d (attempt %d/%d)",
                path.split(":")[-1],
                status,
                attempt,
                self._attempts,
                extra={"upstream_status": status, "retry_in_s": round(wait, 2)},
            )
            if attempt == self._attempts or wait >= remaining:
                break
            self._sleep(wait)
        raise Unavailable(
            f"the Gemini API is unavailable now ({_message(payload, status)}); try again later"
        )

    def _backoff(self, attempt: int, payload: Any) -> float:
        suggested = retry_delay(payload)
        if suggested is not None:
            return suggested + self._jitter() * 0.25
        # Full jitter around an exponential base: 0.5, 1, 2 … seconds.
        return float(BASE_BACKOFF_S * 2.0 ** (attempt - 1) * (0.5 + self._jitter()))

    def _once(self, url: str, body: Mapping[str, Any], deadline: float) -> tuple[int, Any]:
        """One attempt: (status, parsed body or None). The whole read obeys the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Unavailable("the Gemini API did not answer in time")
        try:
            with self._http.stream(
                "POST",
                url,
                json=dict(body),
                headers={"x-goog-api-key": self._key, "Content-Type": "application/json"},
                timeout=httpx.Timeout(remaining),
            ) as response:
                raw = bytearray()
                for part in response.iter_bytes():
                    raw.extend(part)
                    # A server that drips bytes never trips a per-read timeout: check ours.
                    if time.monotonic() > deadline:
                        raise Unavailable("the Gemini API did not answer in time")
                    if len(raw) > MAX_BODY_BYTES:
                        raise UpstreamError("the Gemini API answered with an oversized body")
                status = response.status_code
        except BibliotecaError:
            raise
        except httpx.TimeoutException as exc:
            raise Unavailable("the Gemini API did not answer in time") from exc
        except (httpx.RemoteProtocolError, httpx.DecodingError) as exc:
            raise UpstreamError("the Gemini API sent a broken or truncated reply") from exc
        except httpx.TransportError as exc:
            raise Unavailable(f"the Gemini API cannot be reached ({type(exc).__name__})") from exc
        try:
            payload = json.loads(bytes(raw).decode("utf-8")) if raw else None
        except (UnicodeDecodeError, ValueError) as exc:
            if 200 <= status < 300:
                raise UpstreamError("the Gemini API answered with malformed JSON") from exc
            payload = None
        return status, payload
