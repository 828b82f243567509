"""How the Firestore adapter names vendor failures: each maps to one of our errors."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as gexc
from google.auth import exceptions as auth_exc

from shared.errors import (
    BibliotecaError,
    Conflict,
    NotConfigured,
    PayloadTooLarge,
    Unavailable,
    VersionConflict,
)
from shared.store.firestore.db import _retryable, translate


@pytest.mark.parametrize(
    ("vendor", "ours", "status"),
    [
        (gexc.ServiceUnavailable("down"), Unavailable, 503),
        (gexc.DeadlineExceeded("slow"), Unavailable, 503),
        (gexc.InternalServerError("oops"), Unavailable, 503),
        (gexc.TooManyRequests("quota"), Unavailable, 503),
        (gexc.RetryError("Timeout of 1.0s exceeded", None), Unavailable, 503),
        (auth_exc.TransportError("metadata server"), Unavailable, 503),
        (gexc.PermissionDenied("no role"), NotConfigured, 503),
        (auth_exc.DefaultCredentialsError("no ADC"), NotConfigured, 503),
        (gexc.FailedPrecondition("The query requires an index"), NotConfigured, 503),
        (gexc.AlreadyExists("exists"), Conflict, 409),
        (gexc.ResourceExhausted("gRPC message exceeds maximum size 4194304"), PayloadTooLarge, 413),
        (gexc.InvalidArgument("Document exceeds the maximum size"), PayloadTooLarge, 413),
        (gexc.InvalidArgument("bad field path"), BibliotecaError, 500),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else None,
)
def test_vendor_errors_map_to_our_tree(vendor: Exception, ours: type, status: int) -> None:
    """Each vendor failure becomes the error (and HTTP status) the contract expects."""
    mapped = translate(vendor, "testing")

    assert type(mapped) is ours
    assert mapped.status == status
    assert not isinstance(mapped, VersionConflict)  # that one only the page writes decide


def test_a_too_large_request_is_not_retried() -> None:
    """Sending a too-large request again cannot help, unlike an overloaded server."""
    assert _retryable(gexc.ServiceUnavailable("down"))
    assert not _retryable(gexc.ResourceExhausted("gRPC message exceeds maximum size 4194304"))
