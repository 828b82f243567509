"""Hypothesis properties of normalization: total on any JSON value, idempotent, schema-valid."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.errors import InvalidInput
from shared.normalize import SOURCE_TYPES, normalize_related, normalize_sources
from shared.schema import Source
from shared.text.slugs import is_valid_slug

_offsets = st.builds(
    timezone,
    st.timedeltas(
        min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59)
    ),
)
# Strings that exercise the interesting branches: dates, datetimes (calendar edges
# included), slugs, padded text, and arbitrary unicode.
_texts = st.one_of(
    st.text(max_size=30),
    st.dates().map(str),
    st.datetimes(timezones=st.none() | _offsets).map(lambda d: d.isoformat()),
    # the calendar's edges, where an offset moves the UTC date out of years 1..9999
    st.datetimes(max_value=datetime(1, 1, 2), timezones=_offsets).map(lambda d: d.isoformat()),
    st.datetimes(min_value=datetime(9999, 12, 30), timezones=_offsets).map(lambda d: d.isoformat()),
    st.from_regex(r"\A[a-z0-9][a-z0-9_—-]{0,20}[a-z0-9]\Z"),
    st.sampled_from([" ", "", "code", "DOC", " wiki ", "query", "src/app.py", "ask"]),
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**18, max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    _texts,
)
_keys = st.one_of(
    st.sampled_from(["type", "ref", "path", "file", "last_seen", "slug"]), st.text(max_size=8)
)


def _json(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=6) | st.dictionaries(_keys, children, max_size=6)


JSON = st.recursive(_scalars, _json, max_leaves=25)
# Lists of plausible entries, so most examples get past the first entry.
_source_objects = st.fixed_dictionaries(
    {"ref": _scalars}, optional={"type": _scalars, "path": _scalars, "last_seen": _scalars}
)
SOURCE_LISTS = st.lists(
    st.one_of(_scalars, _source_objects, st.dictionaries(_keys, _scalars, max_size=5), JSON),
    max_size=8,
)


def _is_normalized_sources(result: object) -> bool:
    assert isinstance(result, list)
    keys = set()
    for source in result:
        Source.model_validate(source)  # the stored shape is schema-valid
        assert source["type"] in SOURCE_TYPES
        assert source["ref"] == source["ref"].strip()
        assert source["ref"]
        assert set(source) <= {"type", "ref", "last_seen"}
        keys.add((source["type"], source["ref"]))
    return len(keys) == len(result)


def _attempt(normalize: Callable[[Any, str], Any], value: Any, field: str) -> Any:
    """The function's result, or the InvalidInput it raised (any other exception escapes)."""
    try:
        return normalize(value, field)
    except InvalidInput as exc:
        return exc


@settings(deadline=None)
@given(JSON | SOURCE_LISTS)
def test_sources_of_any_json_value_normalize_or_raise_invalid_input(value: Any) -> None:
    """For any JSON value normalize_sources returns a normalized list or raises InvalidInput."""
    outcome = _attempt(normalize_sources, value, "front_matter.sources")
    if isinstance(outcome, InvalidInput):
        assert outcome.status == 400
        assert (outcome.field or "").startswith("front_matter.sources")
    else:
        assert _is_normalized_sources(outcome)


@settings(deadline=None)
@given(SOURCE_LISTS)
def test_sources_normalization_is_idempotent(value: Any) -> None:
    """Normalizing an already normalized sources list changes nothing."""
    try:
        once = normalize_sources(value)
    except InvalidInput:
        return
    assert normalize_sources(once) == once


RELATED_LISTS = st.lists(
    st.one_of(_scalars, st.dictionaries(_keys, _scalars, max_size=3), JSON), max_size=8
)


@settings(deadline=None)
@given(JSON | RELATED_LISTS)
def test_related_of_any_json_value_normalize_or_raise_invalid_input(value: Any) -> None:
    """For any JSON value normalize_related returns distinct valid slugs or raises InvalidInput."""
    outcome = _attempt(normalize_related, value, "update_metadata.related")
    if isinstance(outcome, InvalidInput):
        assert (outcome.field or "").startswith("update_metadata.related")
    else:
        assert isinstance(outcome, list)
        assert all(isinstance(slug, str) and is_valid_slug(slug) for slug in outcome)
        assert len(set(outcome)) == len(outcome)


@settings(deadline=None)
@given(RELATED_LISTS)
def test_related_normalization_is_idempotent(value: Any) -> None:
    """Normalizing an already normalized related list changes nothing."""
    try:
        once = normalize_related(value)
    except InvalidInput:
        return
    assert normalize_related(once) == once
