"""Importing a folder of Markdown files as pages (front matter optional).

One file is one page: created, updated, unchanged or failed. A failed file never
stops the others, and re-importing unchanged files writes nothing. A store or model
that is unavailable (down, full, damaged) is no file's fault: it stops the import.
MkDocs sources are stored in one form (``import_mkdocs``), and a ``mkdocs.yml`` nav
beside the folder is kept for the site.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from shared import mkdocs
from shared.api.models import MAX_CONTENT_BYTES
from shared.errors import BibliotecaError, InvalidInput, PayloadTooLarge, Unavailable
from shared.normalize import MAX_SOURCES
from shared.ports import Embedder, Store
from shared.schema import FRONT_MATTER_KEYS, parse_front_matter
from shared.services.embed_ahead import EmbedAhead, ahead
from shared.services.import_mkdocs import Tree, prepare, read_nav
from shared.services.indexing import chunk_hash, embedding_texts
from shared.services.wiki import create_validated, update_validated
from shared.slugs import slug_from_path, slug_problem

MARKDOWN_SUFFIXES = (".md", ".markdown")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?:(.*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")


@dataclass
class ImportReport:
    """Counts and per-file problems of one import."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    nav: int | None = None  # pages placed by mkdocs.yml's nav (None: no nav read)

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "failed": self.failed,
            "warnings": self.warnings,
            "nav": self.nav,
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
        heading = mkdocs.atx_heading(line)
        if heading and heading[0] == 1 and heading[1]:
            return heading[1]
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
    tree = tree_of(root)
    # The vectors of the next pages are computed while these are parsed and written.
    batched = EmbedAhead(embedder)
    try:
        files = stored_files(tree, report, progress)
        for name, parsed in ahead(files, lambda f: _new_texts(f[1], store, embedder), batched):
            try:
                status = _write(parsed, store, batched, default_type, default_status)
            except Unavailable:
                raise  # every other file would fail the same way: the command says it once
            except BibliotecaError as exc:
                report.failed.append({"file": name, "field": exc.field or "", "error": exc.message})
                continue
            setattr(report, status, getattr(report, status) + 1)
    finally:
        batched.close()
    nav, problems = read_nav(tree)
    report.warnings += [{"file": "mkdocs.yml", "warning": problem} for problem in problems]
    if nav is not None:
        store.site.save_nav(nav)
        report.nav = _count_pages(nav["items"])
    return report


def _new_texts(parsed: ParsedFile, store: Store, embedder: Embedder) -> list[str]:
    """The texts the write of ``parsed`` will ask the embedder for: its chunks' texts
    whose vectors the store does not hold already (an unchanged file asks for none)."""
    title = parsed.metadata.get("title")
    if not isinstance(title, str) or not title.strip():
        return []  # the write path finds the title; its chunks are embedded when written
    texts = embedding_texts(title.strip(), parsed.content)
    held = store.chunks.vectors_for(parsed.slug) if store.pages.get(parsed.slug) else {}
    return [t for t in texts if chunk_hash(embedder.name, t) not in held]


def tree_of(root: Path) -> Tree:
    """The folder's Markdown files and the slug each is imported as."""
    return Tree(root, _slugs(markdown_files(root), root))


def stored_files(
    tree: Tree,
    report: ImportReport,
    progress: Callable[[Iterable[Path]], Iterable[Path]] = lambda files: files,
) -> Iterator[tuple[str, ParsedFile]]:
    """Each file of the tree parsed into the stored form, by its relative name; files that
    cannot be read or parsed, and warnings, go to ``report``."""
    for path in progress(markdown_files(tree.root)):
        name = path.relative_to(tree.root).as_posix()
        try:
            parsed = _stored_form(parse_file(path, tree.root), name, tree, report)
        except BibliotecaError as exc:
            report.failed.append({"file": name, "field": exc.field or "", "error": exc.message})
            continue
        except OSError as exc:
            report.failed.append({"file": name, "field": "", "error": f"cannot read: {exc}"})
            continue
        for key in parsed.dropped_keys:
            report.warnings.append({"file": name, "warning": f"dropped unknown key '{key}'"})
        yield name, parsed


def _slugs(files: list[Path], root: Path) -> dict[str, str]:
    """Each readable file's slug by its path, so links between files can name pages."""
    out: dict[str, str] = {}
    for path in files:
        try:
            out[path.relative_to(root).as_posix()] = parse_file(path, root).slug
        except (BibliotecaError, OSError):
            continue  # reported when the file itself is imported
    return out


def _stored_form(parsed: ParsedFile, name: str, tree: Tree, report: ImportReport) -> ParsedFile:
    """The body in the stored form; example files not found become code sources."""
    room = MAX_CONTENT_BYTES - len(parsed.content.encode())
    prepared = prepare(parsed.content, name, tree, room)
    metadata = parsed.metadata
    if prepared.code_refs:
        stated = metadata.get("sources")
        sources = list(stated) if isinstance(stated, list) else ([stated] if stated else [])
        room_left = MAX_SOURCES - len(sources)
        added = [{"type": "code", "ref": ref} for ref in prepared.code_refs]
        if len(added) > room_left:
            report.warnings.append(
                {
                    "file": name,
                    "warning": f"{len(added) - room_left} example files not "
                    f"added to sources (at most {MAX_SOURCES})",
                }
            )
            added = added[: max(room_left, 0)]
        metadata = {**metadata, "sources": sources + added}
    return replace(parsed, metadata=metadata, content=prepared.content)


def _count_pages(items: list[Any]) -> int:
    return sum(_count_pages(i["items"]) if "items" in i else int("slug" in i) for i in items)


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
