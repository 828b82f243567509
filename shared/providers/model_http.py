"""One way to call a model's HTTP API: one deadline, retries, a streamed reply, our errors.

The Gemini REST API and every OpenAI-compatible server differ in their URLs, headers and
error bodies (a ``Dialect``), not in how a call must behave: an overall deadline that
holds while the body is read (a server dripping bytes cannot hold a request past it),
up to ``max_attempts`` on the retryable statuses with the server's own delay when it
gives one, and every failure translated by ``shared.providers.upstream``'s table.

A streamed call is retried like any other until its status line arrives; from the first
event on it is the caller's: a failure then is raised mid-stream (what was said is said).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from shared.errors import BibliotecaError, NotConfigured, Unavailable, UpstreamError
from shared.json_value import JsonObject, JsonValue
from shared.logs import get_logger
from shared.providers import upstream
from shared.providers.sse import events

DEFAULT_DEADLINE_S = 25.0  # Cloud Functions' default timeout is 60 s: answer well inside it
MAX_ATTEMPTS = 4
MAX_BODY_BYTES = 8 * 1024 * 1024
# One line of a streamed reply: an event's data is one chunk of text, a few KB at most.
MAX_LINE_BYTES = 1024 * 1024
_log = get_logger("model_http")


class Dialect(Protocol):
    """What one vendor's API says differently: names, headers, error bodies."""

    vendor: str  # how messages name it: "the Gemini API"
    key_variable: str  # the setting a refused key names

    def headers(self) -> dict[str, str]: ...

    def message(self, payload: Any, status: int) -> str: ...

    def key_refused(self, payload: Any, status: int) -> bool: ...

    def suggested_delay(self, payload: Any, headers: httpx.Headers) -> float | None: ...


def error_message(payload: Any, status: int) -> str:
    """``error.message`` of a JSON error body (Google's and OpenAI's shape), else the status."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])[:300]
    if isinstance(error, str):  # some compatible servers answer {"error": "text"}
        return error[:300]
    return f"HTTP {status}"


@dataclass
class ModelHttp:
    """POSTs JSON to ``{base_url}/{path}`` under one deadline (see the module docstring)."""

    dialect: Dialect
    base_url: str
    http: httpx.Client
    deadline_s: float = DEFAULT_DEADLINE_S
    max_attempts: int = MAX_ATTEMPTS
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[], float] = random.random

    def post(self, path: str, body: Mapping[str, JsonValue]) -> JsonObject:
        """The JSON object the API answered, or one of our errors."""
        deadline = time.monotonic() + self.deadline_s
        with ExitStack() as stack:
            response = self._open(path, body, deadline, stack)
            raw = self._read(response, deadline)
        try:
            payload = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise UpstreamError(f"{self.dialect.vendor} answered with malformed JSON") from exc
        if not isinstance(payload, dict):
            raise UpstreamError(f"{self.dialect.vendor} answered with something that is not JSON")
        return payload

    def stream(self, path: str, body: Mapping[str, JsonValue]) -> Iterator[JsonObject]:
        """Each server-sent event's JSON object, as it arrives, until the stream ends (or
        an OpenAI-style ``[DONE]``). The request is made when the first one is asked for."""
        deadline = time.monotonic() + self.deadline_s
        with ExitStack() as stack:
            response = self._open(path, body, deadline, stack)
            try:
                for _, data in events(self._lines(response, deadline)):
                    if data.strip() == "[DONE]":
                        return
                    try:
                        item = json.loads(data)
                    except ValueError as exc:
                        raise UpstreamError(
                            f"{self.dialect.vendor} streamed an event that is not JSON"
                        ) from exc
                    if not isinstance(item, dict):
                        raise UpstreamError(f"{self.dialect.vendor} streamed a non-object event")
                    if "error" in item and not item.get("choices") and not item.get("candidates"):
                        raise UpstreamError(
                            f"{self.dialect.vendor} failed mid-answer",
                            quoted=error_message(item, 200),
                        )
                    yield item
            except BibliotecaError:
                raise
            except httpx.HTTPError as exc:
                raise upstream.translate(exc, self.dialect.vendor) from exc

    # -- one attempt after another, until a 2xx status line ------------------------------

    def _open(
        self, path: str, body: Mapping[str, Any], deadline: float, stack: ExitStack
    ) -> httpx.Response:
        url = f"{self.base_url.rstrip('/')}/{path}"
        vendor = self.dialect.vendor
        status, payload = 0, None
        for attempt in range(1, self.max_attempts + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Unavailable(f"{vendor} did not answer in time")
            try:
                request = self.http.build_request(
                    "POST",
                    url,
                    json=dict(body),
                    headers=self.dialect.headers(),
                    timeout=httpx.Timeout(remaining),
                )
                response = self.http.send(request, stream=True)
            except httpx.HTTPError as exc:
                raise upstream.translate(exc, vendor) from exc
            status = response.status_code
            if 200 <= status < 300:
                stack.callback(response.close)
                return response
            try:
                raw = self._read(response, deadline)
            finally:
                response.close()
            payload = _json_or_none(raw)
            refused = self._refused(payload, status)
            if refused is not None:
                raise refused
            suggested = self.dialect.suggested_delay(payload, response.headers)
            wait = (
                suggested + self.jitter() * 0.25
                if suggested is not None
                else upstream.backoff(attempt, self.jitter)
            )
            _log.warning(
                "%s answered %d (attempt %d/%d)",
                vendor,
                status,
                attempt,
                self.max_attempts,
                extra={"upstream_status": status, "retry_in_s": round(wait, 2)},
            )
            if attempt == self.max_attempts or wait >= deadline - time.monotonic():
                break
            self.sleep(wait)
        raise Unavailable(
            f"{vendor} is unavailable now (HTTP {status}); try again later",
            quoted=self.dialect.message(payload, status),
        )

    def _refused(self, payload: Any, status: int) -> BibliotecaError | None:
        """The error of an answer that trying again cannot mend (a refused key, a 4xx)."""
        vendor, said = self.dialect.vendor, self.dialect.message(payload, status)
        if self.dialect.key_refused(payload, status):
            key = self.dialect.key_variable
            return NotConfigured(f"{vendor} refused the key: check {key}", quoted=said)
        if status not in upstream.RETRYABLE:
            return UpstreamError(f"{vendor} refused the request (HTTP {status})", quoted=said)
        return None

    def _read(self, response: httpx.Response, deadline: float) -> bytes:
        raw = bytearray()
        try:
            for part in response.iter_bytes():
                raw.extend(part)
                # A server that drips bytes never trips a per-read timeout: check ours.
                if time.monotonic() > deadline:
                    raise Unavailable(f"{self.dialect.vendor} did not answer in time")
                if len(raw) > MAX_BODY_BYTES:
                    raise UpstreamError(f"{self.dialect.vendor} answered with an oversized body")
        except BibliotecaError:
            raise
        except httpx.HTTPError as exc:
            raise upstream.translate(exc, self.dialect.vendor) from exc
        return bytes(raw)

    def _lines(self, response: httpx.Response, deadline: float) -> Iterator[str]:
        """The stream's lines, split here rather than by httpx: its ``iter_lines`` keeps a
        line growing for as long as the server sends no line break (one endless line took
        a worker to 3.5 GB), and yields nothing to check the deadline against meanwhile.
        Each piece read counts towards the total and the deadline; a line is cut short at
        ``MAX_LINE_BYTES``."""
        vendor = self.dialect.vendor
        pending = bytearray()
        size = 0
        for part in response.iter_bytes():
            size += len(part)
            if time.monotonic() > deadline:
                raise Unavailable(f"{vendor} did not finish in time")
            if size > MAX_BODY_BYTES:
                raise UpstreamError(f"{vendor} streamed an oversized answer")
            pending += part
            if b"\n" not in part and b"\r" not in part:
                if len(pending) > MAX_LINE_BYTES:
                    raise UpstreamError(f"{vendor} streamed a line over {MAX_LINE_BYTES} bytes")
                continue
            lines = bytes(pending).splitlines(keepends=True)  # CR, LF or CRLF, as SSE says
            # The last piece is unfinished, or a CR whose LF may be in the next read.
            keep = lines.pop() if not lines[-1].endswith(b"\n") else b""
            for line in lines:
                yield line.rstrip(b"\r\n").decode("utf-8", errors="replace")
            pending = bytearray(keep)
            if len(pending) > MAX_LINE_BYTES:
                raise UpstreamError(f"{vendor} streamed a line over {MAX_LINE_BYTES} bytes")
        if pending:
            yield bytes(pending).rstrip(b"\r").decode("utf-8", errors="replace")


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, ValueError):
        return None
