"""The one error tree of Biblioteca; ``shared.http`` maps it to the contract's body.

Every error a caller can cause is a ``BibliotecaError`` carrying the HTTP status,
the contract's ``code`` and, when one input field is at fault, its ``field`` path::

    BibliotecaError (500 internal_error)
    ├── InvalidInput (400 validation_error)
    │   ├── InvalidJson (400 invalid_json)
    │   └── InvalidBody (400 invalid_body): the body's framing is broken (chunks, length)
    ├── Unauthorized (401 unauthorized)
    │   └── Forbidden (403 unauthorized): a web page's Origin the settings do not allow
    │       └── RoleForbidden (403 forbidden): the token's role may not do this (names it)
    ├── NotFound (404 not_found)
    ├── MethodNotAllowed (405 method_not_allowed)
    ├── RequestTimeout (408 request_timeout): the body stopped arriving
    ├── Conflict (409 conflict)
    │   ├── VersionConflict (409 version_conflict)
    │   └── RebuildInProgress (409 rebuild_in_progress)
    ├── PayloadTooLarge (413 payload_too_large)
    │   ├── UriTooLong (414 payload_too_large): the request line is over its limit
    │   └── HeadersTooLarge (431 payload_too_large): a header, or all of them, over the limit
    ├── UnsupportedMediaType (415 unsupported_media_type)
    ├── RateLimited (429 rate_limited, with retry_after seconds)
    ├── UpstreamError (502 upstream_error): a provider answered nonsense
    └── Unavailable (503 upstream_unavailable): a provider or the store cannot be reached
        ├── NotConfigured (503 not_configured): a setting is missing; names the variable
        └── ReindexRequired (503 reindex_required)

Adapters translate vendor exceptions into these ``from`` the original, so nothing
above the adapters ever sees an ``httpx`` or ``google.api_core`` exception.
"""

from __future__ import annotations

from typing import Literal

# The contract's error codes (API.md): the ``code`` of every class below is one of them.
ErrorCode = Literal[
    "invalid_json",
    "invalid_body",
    "validation_error",
    "unsupported_media_type",
    "payload_too_large",
    "request_timeout",
    "unauthorized",
    "forbidden",
    "not_configured",
    "not_found",
    "conflict",
    "version_conflict",
    "method_not_allowed",
    "rate_limited",
    "upstream_error",
    "upstream_unavailable",
    "reindex_required",
    "rebuild_in_progress",
    "internal_error",
]


class BibliotecaError(Exception):
    """Base of every error the project raises on purpose."""

    status: int = 500
    code: ErrorCode = "internal_error"

    def __init__(
        self, message: str, *, field: str | None = None, quoted: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        # What a provider said in its own words (an upstream error's message). It may
        # echo our request (the system prompt, the passages), so it is shown to the
        # operator and to callers with credentials, never to an anonymous one.
        self.quoted = quoted

    @property
    def full_message(self) -> str:
        """The message with the provider's own words, for the operator and the log."""
        return f"{self.message} ({self.quoted})" if self.quoted else self.message

    def body(self, *, quoting: bool = False) -> dict[str, str]:
        """The contract's error body; ``quoting``: with the provider's own words."""
        out = {"error": self.full_message if quoting else self.message, "code": self.code}
        if self.field is not None:
            out["field"] = self.field
        return out


class InvalidInput(BibliotecaError):
    status = 400
    code: ErrorCode = "validation_error"


class InvalidJson(InvalidInput):
    code: ErrorCode = "invalid_json"


class InvalidBody(InvalidInput):
    code: ErrorCode = "invalid_body"


class Unauthorized(BibliotecaError):
    status = 401
    code: ErrorCode = "unauthorized"


class Forbidden(Unauthorized):
    status = 403


class RoleForbidden(Forbidden):
    code: ErrorCode = "forbidden"


class NotFound(BibliotecaError):
    status = 404
    code: ErrorCode = "not_found"


class MethodNotAllowed(BibliotecaError):
    status = 405
    code: ErrorCode = "method_not_allowed"

    def __init__(self, message: str, *, allowed: tuple[str, ...] = ("POST",)) -> None:
        super().__init__(message)
        self.allowed = allowed


class RequestTimeout(BibliotecaError):
    status = 408
    code: ErrorCode = "request_timeout"


class Conflict(BibliotecaError):
    status = 409
    code: ErrorCode = "conflict"


class VersionConflict(Conflict):
    code: ErrorCode = "version_conflict"


class RebuildInProgress(Conflict):
    code: ErrorCode = "rebuild_in_progress"


class PayloadTooLarge(BibliotecaError):
    status = 413
    code: ErrorCode = "payload_too_large"


class UriTooLong(PayloadTooLarge):
    status = 414


class HeadersTooLarge(PayloadTooLarge):
    status = 431


class UnsupportedMediaType(BibliotecaError):
    status = 415
    code: ErrorCode = "unsupported_media_type"


class RateLimited(BibliotecaError):
    status = 429
    code: ErrorCode = "rate_limited"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


class UpstreamError(BibliotecaError):
    status = 502
    code: ErrorCode = "upstream_error"


class Unavailable(BibliotecaError):
    status = 503
    code: ErrorCode = "upstream_unavailable"


class NotConfigured(Unavailable):
    code: ErrorCode = "not_configured"


class ReindexRequired(Unavailable):
    code: ErrorCode = "reindex_required"


def proposal_closed(proposal_id: str) -> Conflict:
    """Accepting a proposal someone closed first: nothing was written."""
    return Conflict(
        f"proposal {proposal_id} was closed by someone else meanwhile: nothing was applied",
        field="target",
    )
