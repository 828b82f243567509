"""firestore.indexes.json declares every index the Firestore adapter's queries need."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from deploy.firestore_indexes import override_commands

INDEXES = Path(__file__).resolve().parents[2] / "firestore.indexes.json"
DIMENSIONS = (512, 768)  # local:use-m3@512 and gemini-embedding-001 at 768


def _load() -> dict[str, Any]:
    return dict(json.loads(INDEXES.read_text()))


def _shape(index: dict[str, Any]) -> tuple[str, frozenset[str], int | None]:
    """(collection, the filtered fields, the vector dimension or None)."""
    fields, dim = set(), None
    for field in index["fields"]:
        if "vectorConfig" in field:
            dim = field["vectorConfig"]["dimension"]
        else:
            fields.add(field["fieldPath"])
    return index["collectionGroup"], frozenset(fields), dim


@pytest.mark.parametrize("dim", DIMENSIONS)
def test_every_search_filter_combination_has_a_vector_index(dim: int) -> None:
    """Each pre-filter set ``nearest`` can send (status, embedder + any of three) is indexed."""
    shapes = {_shape(i) for i in _load()["indexes"]}

    for n in range(4):
        for extra in itertools.combinations(("type", "category", "tags"), n):
            wanted = ("chunks", frozenset({"status", "embedder", *extra}), dim)
            assert wanted in shapes, wanted


def test_vector_fields_come_last_and_tags_are_array_contains() -> None:
    """Firestore wants the vector field last; ``tags`` is queried with array-contains."""
    for index in _load()["indexes"]:
        kinds = ["vectorConfig" in f for f in index["fields"]]
        assert not any(kinds[:-1])
        for field in index["fields"]:
            if field["fieldPath"] == "tags":
                assert field == {"fieldPath": "tags", "arrayConfig": "CONTAINS"}


def test_list_and_recent_queries_have_their_composite_indexes() -> None:
    """pages by status + updated_at, events by kind newest first."""
    shapes = {_shape(i) for i in _load()["indexes"]}

    assert ("pages", frozenset({"status", "updated_at"}), None) in shapes
    assert ("events", frozenset({"kind", "at"}), None) in shapes


def test_long_text_fields_are_exempt_from_single_field_indexes() -> None:
    """Page content, chunk text and vectors, event payloads, revisions' and proposals'
    text are never indexed one by one."""
    exempt = {
        (o["collectionGroup"], o["fieldPath"])
        for o in _load()["fieldOverrides"]
        if not o["indexes"]
    }

    assert {
        ("pages", "content"),
        ("pages", "front_matter"),
        ("chunks", "text"),
        ("chunks", "vector"),
        ("events", "data"),
        ("revisions", "content"),  # a version's whole text, once per write
        ("revisions", "front_matter"),
        ("proposals", "content"),
        ("proposals", "metadata"),
    } <= exempt


def test_answer_traces_expire_by_a_ttl_policy_the_build_enables() -> None:
    """answer_traces.expires_at is a TTL field: the index helper enables the policy."""
    ttl = [o for o in _load()["fieldOverrides"] if o.get("ttl") is True]
    commands = override_commands(_load(), "(default)")

    assert ("answer_traces", "expires_at") in [(o["collectionGroup"], o["fieldPath"]) for o in ttl]
    assert [
        "gcloud",
        "firestore",
        "fields",
        "ttls",
        "update",
        "expires_at",
        "--database=(default)",
        "--collection-group=answer_traces",
        "--enable-ttl",
    ] in commands


def test_the_change_log_expires_and_the_snapshot_bytes_are_not_indexed() -> None:
    """``changes`` entries carry a TTL field (a reader idle past half of it reloads), and
    the stored index snapshot's parts (up to 900 KB each) are never indexed."""
    from shared.store.firestore import changes, snapshots

    overrides = {(o["collectionGroup"], o["fieldPath"]): o for o in _load()["fieldOverrides"]}
    assert overrides[(changes.COLLECTION, "expire_at")]["ttl"] is True
    assert overrides[(snapshots.PARTS, "bytes")]["indexes"] == []
    assert overrides[(snapshots.HEAD, "cursor")]["indexes"] == []


def test_votes_expire_by_a_ttl_policy_like_events() -> None:
    """``feedback`` documents carry ``expire_at`` (BIBLIOTECA_TRACE_DAYS): a TTL field."""
    from shared.store.firestore import events, feedback

    overrides = {(o["collectionGroup"], o["fieldPath"]): o for o in _load()["fieldOverrides"]}
    assert overrides[(feedback.FEEDBACK, "expire_at")]["ttl"] is True
    assert overrides[(events.COLLECTION, "expire_at")]["ttl"] is True
