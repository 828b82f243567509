"""Importing a folder of Markdown files as pages (front matter optional).

One file is one page: created, updated, unchanged or failed. A failed file never
stops the others, and re-importing unchanged files writes nothing. A store or model
that is unavailable (down, full, damaged) is no file's fault: it stops the import.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from shared.api.models import MAX_CONTENT_BYTES
from shared.errors import BibliotecaError, InvalidInput, PayloadTooLarge, Unavailable
from shared.ports import Embedder, Store
from shared.schema import FRONT_MATTER_KEYS, parse_front_matter
from shared.services.wiki import create_validated, update_validated
from shared.slugs import slug_from_path, slug_problem

MARKDOWN_SUFFIXES = (".md", ".markdown")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?:(.*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t]*(?:\{[ \t]*#[^}]*\}[ \t]*)?#*[ \t]*$")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")


@dataclass
class ImportReport:
    """Counts and per-file problems of one import."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "failed": self.failed,
            "warnings": self.warnings,
        }


@dataclass(frozen=True, slots=True)
class ParsedFile:
    slug: str
    metadata: dict[str, Any]
    content: str
    dropped_keys: tuple[str, ...]


def markdown_files(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix.lower() in MARKDOWN_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body) of a Markdown file; no front matter gives ``{}``."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        data = yaml.safe_load(match.group(1) or "")
    except yaml.YAMLError as exc:
        raise InvalidInput(f"the front matter is not valid YAML: {exc}".splitlines()[0]) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidInput("the front matter must be a YAML mapping")
    return data, text[match.end() :]


def title_of(body: str) -> str | None:
    """The first ``# `` heading, without a trailing MkDocs ``{ #anchor }``.

    Lines inside fenced code are skipped: a shell comment is not a title.
    """
    fence = ""
    for line in body.splitlines():
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = ""
            continue
        if opening:
            fence = opening.group(1)
            continue
        match = _TITLE.match(line)
        if match:
            return match.group(1).strip()
    return None


def parse_file(path: Path, root: Path) -> ParsedFile:
    """Read one file: its slug, the front matter it states, its body."""
    raw = path.read_bytes()
    if len(raw) > 2 * MAX_CONTENT_BYTES:  # a bound on what is read; the body is checked below
        raise PayloadTooLarge(f"the file is larger than {2 * MAX_CONTENT_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput("the file is not UTF-8 text") from exc
    front_matter, body = split_front_matter(text)
    if len(body.encode("utf-8")) > MAX_CONTENT_BYTES:
        raise PayloadTooLarge(
            f"the page body is larger than {MAX_CONTENT_BYTES // 1024} KiB", field="content"
        )
    slug_value = front_matter.pop("slug", None)
    slug = str(slug_value).strip() if slug_value is not None else ""
    if not slug:
        slug = slug_from_path(path.relative_to(root).as_posix())
    problem = slug_problem(slug)
    if problem:
        raise InvalidInput(f"slug '{slug}': {problem}", field="slug")
    dropped = tuple(sorted(str(k) for k in front_matter if k not in FRONT_MATTER_KEYS))
    metadata = {k: v for k, v in front_matter.items() if k in FRONT_MATTER_KEYS}
    if not metadata.get("title"):
        metadata["title"] = title_of(body) or path.stem.replace("-", " ").replace("_", " ")
    return ParsedFile(slug=slug, metadata=metadata, content=body, dropped_keys=dropped)


def import_directory(
    root: Path,
    store: Store,
    embedder: Embedder,
    *,
    default_type: str | None = None,
    default_status: str | None = None,
    progress: Callable[[Iterable[Path]], Iterable[Path]] = lambda files: files,
) -> ImportReport:
    report = ImportReport()
    for path in progress(markdown_files(root)):
        name = path.relative_to(root).as_posix()
        try:
            parsed = parse_file(path, root)
            for key in parsed.dropped_keys:
                report.warnings.append({"file": name, "warning": f"dropped unknown key '{key}'"})
            status = _write(parsed, store, embedder, default_type, default_status)
        except Unavailable:
            raise  # every other file would fail the same way: the command says it once
        except BibliotecaError as exc:
            report.failed.append({"file": name, "field": exc.field or "", "error": exc.message})
            continue
        except OSError as exc:
            report.failed.append({"file": name, "field": "", "error": f"cannot read: {exc}"})
            continue
        setattr(report, status, getattr(report, status) + 1)
    return report


# What a re-imported file no longer states is cleared; status and type are kept, so a
# curator's promotion or archival survives a re-import of the same folder.
_CLEARED_WHEN_ABSENT: dict[str, Any] = {"sources": [], "related": [], "tags": [], "category": None}


def _write(
    parsed: ParsedFile,
    store: Store,
    embedder: Embedder,
    default_type: str | None,
    default_status: str | None,
) -> str:
    existing = store.pages.get(parsed.slug)
    if existing is None:
        defaults = {"type": default_type, "status": default_status}
        metadata = {k: v for k, v in defaults.items() if v} | parsed.metadata
        if "type" not in metadata:
            raise InvalidInput("no type in the front matter: add one or pass --type", field="type")
        front_matter = parse_front_matter(metadata, "")
        return create_validated(parsed.slug, front_matter, parsed.content, store, embedder).status
    metadata = _CLEARED_WHEN_ABSENT | parsed.metadata
    result = update_validated(
        parsed.slug, metadata, parsed.content, None, store, embedder, field="", known=existing
    )
    return result.status
