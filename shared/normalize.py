"""Friendly normalization of ``sources``, ``related`` and ``tags`` (pure; the contract's rules).

Each function accepts any JSON value and returns a normalized list, or raises
``InvalidInput`` whose ``field`` names the caller's entry (``front_matter.sources[2]``).
Each is idempotent: a normalized list comes back unchanged. Each costs linear time and
stops at the contract's cap: one entry past it is a ``PayloadTooLarge`` at the list's
field, whatever the length of the rest of the list.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from shared import clock
from shared.errors import InvalidInput, PayloadTooLarge
from shared.text.slugs import slug_problem

SOURCE_TYPES = ("code", "commit", "doc", "wiki", "memory", "query")
_REF_KEYS = ("ref", "path", "file")
_RELATED_KEYS = ("slug", "ref")
# Per page, from the contract: every list is copied wherever the page goes (the store,
# each of its chunks, the site), so its length must be bounded at the door.
MAX_SOURCES = 200
MAX_RELATED = 200
MAX_TAGS = 200
# A tag is a label, and each is copied into every chunk of its page (Firestore filters on
# it there): 64 characters is past any real one (the corpora's longest is under 30).
MAX_TAG_CHARS = 64


def today() -> str:
    """Today's UTC date as ``YYYY-MM-DD``."""
    return clock.now().date().isoformat()


def _scalar_text(value: object) -> str | None:
    """Trimmed text of a string or number; None for anything else (booleans included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else None
    return None


def _first_text(entry: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        text = _scalar_text(entry.get(key))
        if text:
            return text
    return None


def as_utc_date(value: object) -> str | None:
    """``YYYY-MM-DD`` (UTC) of an ISO date/datetime string or object; None if not a date."""
    if isinstance(value, datetime):
        try:
            moment = value if value.tzinfo is None else value.astimezone(UTC)
        except OverflowError:  # an offset pushes the UTC date outside years 1..9999
            return None
        return moment.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        return as_utc_date(datetime.fromisoformat(text))
    except ValueError:
        return None


def _require_list(value: object, field: str, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(f"{what} must be a list, got {type(value).__name__}", field=field)
    return value


def _past_cap(kept: int, cap: int, field: str, what: str) -> None:
    """Refuse as soon as one more distinct entry than ``cap`` was kept (the rest is unread)."""
    if kept > cap:
        raise PayloadTooLarge(f"too many {what}: at most {cap} are accepted", field=field)


def normalize_sources(
    value: object, field: str = "front_matter.sources", cap: int = MAX_SOURCES
) -> list[dict[str, str]]:
    """Normalize a caller's ``sources`` into ``[{type, ref, last_seen?}]`` (at most ``cap``)."""
    out: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(_require_list(value, field, "sources")):
        where = f"{field}[{i}]"
        if isinstance(entry, str) and not entry.strip():
            continue
        text = _scalar_text(entry)
        if text is not None:
            source = {"type": "code", "ref": text, "last_seen": today()}
        elif isinstance(entry, dict):
            source = _source_object(entry, where)
        else:
            raise InvalidInput(
                f"a source is a path string or an object with 'type' and 'ref', "
                f"got {type(entry).__name__}",
                field=where,
            )
        key = (source["type"], source["ref"])
        if key not in seen:
            seen.add(key)
            out.append(source)
            _past_cap(len(out), cap, field, "sources")
    return out


def _source_object(entry: dict[str, Any], where: str) -> dict[str, str]:
    ref = _first_text(entry, _REF_KEYS)
    if not ref:
        raise InvalidInput(
            "a source object needs a non-empty 'ref' (or 'path', 'file')", field=where
        )
    kind = entry.get("type")
    kind = kind.strip().lower() if isinstance(kind, str) else "code"
    source = {"type": kind if kind in SOURCE_TYPES else "code", "ref": ref}
    if entry.get("last_seen") is not None:
        seen_on = as_utc_date(entry["last_seen"])
        if seen_on is None:
            raise InvalidInput(
                "last_seen must be an ISO date (YYYY-MM-DD) or datetime", field=where
            )
        source["last_seen"] = seen_on
    return source


def normalize_related(
    value: object, field: str = "front_matter.related", cap: int = MAX_RELATED
) -> list[str]:
    """Normalize a caller's ``related`` into a list of distinct valid slugs (at most ``cap``)."""
    out: list[str] = []
    seen: set[str] = set()
    for i, entry in enumerate(_require_list(value, field, "related")):
        where = f"{field}[{i}]"
        text = _first_text(entry, _RELATED_KEYS) if isinstance(entry, dict) else _scalar_text(entry)
        if text is None:
            raise InvalidInput(
                f"a related page is a slug or an object with 'slug', got {type(entry).__name__}",
                field=where,
            )
        if not text:
            continue
        problem = slug_problem(text)
        if problem is not None:
            shown = text if len(text) <= 60 else f"{text[:60]}…"
            raise InvalidInput(f"'{shown}' is not a valid slug: {problem}", field=where)
        if text not in seen:
            seen.add(text)
            out.append(text)
            _past_cap(len(out), cap, field, "related pages")
    return out


def normalize_tags(
    value: object, field: str = "front_matter.tags", cap: int = MAX_TAGS
) -> list[str]:
    """Trimmed, lower-cased, distinct tags; empty ones dropped (at most ``cap``)."""
    out: list[str] = []
    seen: set[str] = set()
    for i, entry in enumerate(_require_list(value, field, "tags")):
        text = _scalar_text(entry)
        if text is None:
            raise InvalidInput(
                f"a tag is a string, got {type(entry).__name__}", field=f"{field}[{i}]"
            )
        tag = text.lower()
        if len(tag) > MAX_TAG_CHARS:
            raise PayloadTooLarge(
                f"a tag is at most {MAX_TAG_CHARS} characters, got {len(tag)}",
                field=f"{field}[{i}]",
            )
        if tag and tag not in seen:
            seen.add(tag)
            out.append(tag)
            _past_cap(len(out), cap, field, "tags")
    return out
