"""Importing a folder of Markdown files as pages (front matter optional).

One file is one page: created, updated, unchanged or failed. A failed file never
stops the others, and re-importing unchanged files writes nothing. A store or model
that is unavailable (down, full, damaged) is no file's fault: it stops the import.
MkDocs sources are stored in one form (``import_mkdocs``), and a ``mkdocs.yml`` nav
beside the folder is kept for the site. Every page keeps its origin (the tree and the
file's path in it), which is what ``--sync`` reads to retire pages whose file is gone.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from shared import mkdocs
from shared.api.models import MAX_CONTENT_BYTES
from shared.dialects import mdx, mkdocs_config, mkdocstrings, sidebar
from shared.dialects.constructs import Constructs
from shared.errors import BibliotecaError, InvalidInput, PayloadTooLarge, Unavailable
from shared.logs import get_logger
from shared.normalize import MAX_SOURCES
from shared.ports import Embedder, Store
from shared.records import Origin
from shared.schema import FRONT_MATTER_KEYS, MAX_DESCRIPTION, PAGE_TYPES, parse_front_matter
from shared.services.embed_ahead import EmbedAhead, ahead
from shared.services.import_mkdocs import Tree, documented_objects, prepare, read_nav
from shared.services.indexing import chunk_hash, embedding_texts
from shared.services.wiki import create_validated, update_validated
from shared.text.slugs import slug_from_path, slug_problem

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?:(.*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_MDX_ID_TAIL = re.compile(r"[ \t]*\{/\*[^*{}\n]{0,200}\*/\}$")
IMPORT_ACTOR = "import"  # an import's writes are attributed to import:<tree>
_log = get_logger("import")


@dataclass
class ImportReport:
    """Counts and per-file problems of one import."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    nav: int | None = None  # pages placed by mkdocs.yml's nav (None: no nav read)
    retired: int = 0  # pages of this tree whose file is gone, archived by --sync
    assets: int = 0  # files the pages link, taken to be published with the site
    constructs: Constructs = field(default_factory=Constructs)  # source syntax met, by kind

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "failed": self.failed,
            "warnings": self.warnings,
            "nav": self.nav,
            "retired": self.retired,
            "assets": self.assets,
            "constructs": self.constructs.as_dict(),
        }


@dataclass(frozen=True, slots=True)
class ParsedFile:
    slug: str
    metadata: dict[str, Any]
    content: str
    dropped_keys: tuple[str, ...]
    hint: sidebar.Hint = field(default_factory=sidebar.Hint)  # nav label and order stated
    titled: bool = True  # the title is the front matter's or the first H1's, not a fallback
    notes: tuple[str, ...] = ()  # values read otherwise than written, for the warnings


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
    """The first ``# `` heading, without a trailing MkDocs ``{ #anchor }`` or MDX
    ``{/*id*/}`` (a heading's id, not its text).

    Lines inside fenced code are skipped: a shell comment is not a title. Character
    references are decoded, as Markdown shows them (the title is text, not Markdown).
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
        text = _MDX_ID_TAIL.sub("", heading[1]) if heading else ""
        if heading and heading[0] == 1 and text:
            # Markdown decodes character references: ``# &lt;pointer&gt;`` reads
            # ``<pointer>``, which the site then escapes once.
            return html.unescape(text)
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
    name = path.relative_to(root).as_posix()
    notes: list[str] = []
    slug_value = front_matter.pop("slug", None)
    slug = str(slug_value).strip() if slug_value is not None else ""
    if "/" in slug:
        # Docusaurus' and Starlight's ``slug`` is a route (``/``, ``guides/x``), never ours.
        notes.append(f"slug '{slug[:60]}' is a route: the slug comes from the file's path")
        slug = ""
    if not slug:
        slug = slug_from_path(name)
    problem = slug_problem(slug)
    if problem:
        raise InvalidInput(f"slug '{slug}': {problem}", field="slug")
    notes += _dialect_values(front_matter, mdx.is_mdx(name, body))
    hint = sidebar.hint_of(front_matter)
    dropped = tuple(
        sorted(
            str(k) for k in front_matter if k not in FRONT_MATTER_KEYS and k not in sidebar.NAV_KEYS
        )
    )
    metadata = {k: v for k, v in front_matter.items() if k in FRONT_MATTER_KEYS}
    titled = bool(metadata.get("title"))
    if not titled:
        heading = title_of(body)
        titled = heading is not None
        metadata["title"] = heading or hint.label or file_title(path)
    return ParsedFile(
        slug=slug,
        metadata=metadata,
        content=body,
        dropped_keys=dropped,
        hint=hint,
        titled=titled,
        notes=tuple(notes),
    )


def file_title(path: Path | str) -> str:
    """The last resort of a title: the file's name, its dashes and underscores as spaces."""
    return Path(path).stem.replace("-", " ").replace("_", " ")


def _dialect_values(front_matter: dict[str, Any], is_mdx: bool) -> list[str]:
    """Front-matter values a generator writes for itself, made to fit the schema in place:
    an MDX page's ``type`` that is no page type (Starlight sites sort guides by their own
    ``type: cms``) is dropped so ``--type`` applies; a ``description`` past the schema's
    cap is cut at a word. The notes say what was changed."""
    notes: list[str] = []
    kind = front_matter.get("type")
    if is_mdx and isinstance(kind, str) and kind.strip().lower() not in PAGE_TYPES:
        notes.append(f"dropped 'type: {kind[:40]}': not a page type")
        del front_matter["type"]
    description = front_matter.get("description")
    if description is not None and not isinstance(description, str):
        notes.append("dropped 'description': not text")
        del front_matter["description"]
    elif isinstance(description, str) and len(" ".join(description.split())) > MAX_DESCRIPTION:
        text = " ".join(description.split())
        front_matter["description"] = text[: MAX_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"
        notes.append(f"description cut to {MAX_DESCRIPTION} characters")
    return notes


def import_directory(
    root: Path,
    store: Store,
    embedder: Embedder,
    *,
    default_type: str | None = None,
    default_status: str | None = None,
    repo: Path | None = None,
    code_url: str | None = None,
    progress: Callable[[Iterable[Path]], Iterable[Path]] = lambda files: files,
    assets: Sequence[Path] = (),
    sync: bool = False,
    by: str | None = None,
) -> ImportReport:
    """Import every Markdown file under ``root``; each page written keeps its origin (this
    tree and the file's path). ``repo`` is the repository root includes, snippets and API
    references resolve against (None: ``mkdocs_config.repository_root``); ``code_url``
    (``BIBLIOTECA_CODE_URL``) links the stand-in of an API object not found. The files the
    pages link are taken from the tree or the ``assets`` folders into the store, for the
    site (``shared.dialects.assets``). ``sync``: pages this tree imported earlier whose
    files are gone are archived (``retired``); no other page is touched. Its writes are
    attributed to ``import:<tree folder>``, and ``by`` (who ran it: the command line's actor,
    a CI job's name) is kept with the import's outcome."""
    report = ImportReport()
    tree = tree_of(root, repo, code_url, assets)
    name_of_tree = tree_name(root)
    origins: dict[str, Origin] = {}
    actor = import_actor(root)
    nav, problems = read_nav(tree)
    placed: list[sidebar.Placed] = []
    # The vectors of the next pages are computed while these are parsed and written.
    batched = EmbedAhead(embedder)
    try:
        files = stored_files(tree, report, progress, _nav_labels(nav))
        for name, parsed in ahead(files, lambda f: _new_texts(f[1], store, embedder), batched):
            placed.append(sidebar.Placed(name, parsed.slug, parsed.metadata["title"], parsed.hint))
            try:
                status = _write(parsed, store, batched, default_type, default_status, actor)
            except Unavailable:
                raise  # every other file would fail the same way: the command says it once
            except BibliotecaError as exc:
                report.failed.append({"file": name, "field": exc.field or "", "error": exc.message})
                continue
            setattr(report, status, getattr(report, status) + 1)
            origins[parsed.slug] = Origin(name_of_tree, name)
    finally:
        batched.close()
    taken = tree.assets.taken
    if taken:
        held = store.site.held_assets(taken.keys())
        store.site.put_assets({p: a.data for p, a in taken.items() if p not in held})
    report.assets = len(taken)
    report.warnings += [
        {"file": "", "warning": f"asset left out: {r}"} for r in tree.assets.refused
    ]
    known = store.pages.origins(name_of_tree)
    moved = {slug: o for slug, o in origins.items() if known.get(slug) != o.path}
    if moved:
        store.pages.set_origins(moved)
    if sync:
        present = set(tree.files)
        gone = {s: p for s, p in known.items() if p not in present and s not in origins}
        report.retired = _retire(gone, store, embedder, report, actor)
    report.warnings += [{"file": tree.config.name, "warning": problem} for problem in problems]
    if nav is not None:
        store.site.save_nav(nav)
        report.nav = _count_pages(nav["items"])
    else:
        _save_tree_nav(tree, placed, store)
    record_import(store, actor, root, report, by)
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


def _save_tree_nav(tree: Tree, placed: list[sidebar.Placed], store: Store) -> None:
    """Without a ``mkdocs.yml`` nav, the nav the folders and front matter state
    (``shared.dialects.sidebar``), kept beside what the stored nav holds of other trees.
    A flat folder without hints states nothing: the stored nav is left as it is."""
    folders = {str(Path(p.path).parent) for p in placed} - {"."}
    categories = {
        folder: category
        for folder in folders
        if (category := sidebar.category_of(tree.root / folder)) is not None
    }
    if not placed or not sidebar.states_structure(placed, categories):
        return
    nav = sidebar.tree_nav(placed, categories)
    store.site.save_nav(sidebar.merged(store.site.load_nav(), nav, set(tree.slugs.values())))


def _nav_labels(nav: dict[str, Any] | None) -> dict[str, str]:
    """Each page's label in a nav, by slug: the title of a page with none of its own."""
    labels: dict[str, str] = {}

    def walk(items: list[Any]) -> None:
        for item in items:
            if "items" in item:
                walk(item["items"])
            elif item.get("slug") and item.get("title"):
                labels.setdefault(item["slug"], item["title"])

    walk(nav["items"] if nav else [])
    return labels


def tree_of(
    root: Path,
    repo: Path | None = None,
    code_url: str | None = None,
    assets: Sequence[Path] = (),
) -> Tree:
    """The folder's Markdown files and the slug each is imported as, its MkDocs
    configuration, the repository root, where each API object is documented, and the
    folders site-absolute files are looked for in."""
    config = mkdocs_config.find_config(root)
    every = markdown_files(root)
    left_out = mkdocs_config.excluded(config, [p.relative_to(root).as_posix() for p in every])
    files = [p for p in every if p.relative_to(root).as_posix() not in left_out]
    slugs = _slugs(files, root)
    repo_root = repo if repo is not None else mkdocs_config.repository_root(root, config)
    library = mkdocstrings.Library.of(repo_root, config.data, config.folder)
    tree = Tree(
        root,
        slugs,
        files=tuple(p.relative_to(root).as_posix() for p in files),
        asset_folders=tuple(assets),
        repo=repo_root,
        config=config,
        code_url=code_url,
        library=library,
        excluded=frozenset(left_out),
    )
    return replace(tree, refs=documented_objects(tree, files))


def tree_name(root: Path) -> str:
    """The name a docs tree is known by in its pages' origins, the same from any clone:
    its path from the repository holding it (``docs-repo/docs/es``: the folder with
    ``.git`` and the path below it), else its absolute path."""
    resolved = root.resolve()
    for folder in (resolved, *resolved.parents):
        if (folder / ".git").exists():
            below = resolved.relative_to(folder).as_posix()
            return folder.name if below == "." else f"{folder.name}/{below}"
    return resolved.as_posix()


def _retire(
    gone: dict[str, str], store: Store, embedder: Embedder, report: ImportReport, actor: str
) -> int:
    """Archive (unpublish, never delete) the pages whose files left the tree; how many."""
    retired = 0
    for slug, path in sorted(gone.items()):
        record = store.pages.get(slug)
        if record is None or record.front_matter.get("status") == "archived":
            continue  # deleted meanwhile, or retired by an earlier sync
        try:
            update_validated(
                slug,
                {"status": "archived"},
                None,
                None,
                store,
                embedder,
                field="",
                known=record,
                actor=actor,
            )
        except Unavailable:
            raise
        except BibliotecaError as exc:
            report.failed.append({"file": path, "field": exc.field or "", "error": exc.message})
            continue
        retired += 1
    return retired


def import_actor(root: Path) -> str:
    """``import:<folder>``: who an import's revisions name (the tree's own folder name;
    ``tree_name`` is the longer, clone-independent name its pages' origins keep)."""
    return f"{IMPORT_ACTOR}:{root.resolve().name or 'root'}"


def record_import(
    store: Store, actor: str, root: Path, report: ImportReport, by: str | None = None
) -> None:
    """The ``import_outcome`` event ``biblioteca status`` shows as the last sync; a store
    that cannot take it costs the import nothing (its pages are written)."""
    data = {
        "actor": actor,
        "by": by,
        "tree": tree_name(root),
        "created": report.created,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "failed": len(report.failed),
        **{k: v for k, v in report.as_dict().items() if k in ("retired", "sync")},
    }
    try:
        store.events.record("import_outcome", data)
    except Exception:
        _log.exception("could not record the import outcome")


def stored_files(
    tree: Tree,
    report: ImportReport,
    progress: Callable[[Iterable[Path]], Iterable[Path]] = lambda files: files,
    labels: Mapping[str, str] | None = None,
) -> Iterator[tuple[str, ParsedFile]]:
    """Each file of the tree parsed into the stored form, by its relative name; files that
    cannot be read or parsed, and warnings, go to ``report``. ``labels`` (a nav's, by slug)
    title the pages whose front matter and body name none."""
    if tree.excluded:
        report.warnings.append(
            {
                "file": tree.config.name,
                "warning": f"{len(tree.excluded)} files left out by its exclude rules",
            }
        )
    files = [p for p in markdown_files(tree.root) if _relative(p, tree) not in tree.excluded]
    for path in progress(files):
        name = path.relative_to(tree.root).as_posix()
        try:
            parsed = _stored_form(parse_file(path, tree.root), name, tree, report, labels or {})
        except BibliotecaError as exc:
            report.failed.append({"file": name, "field": exc.field or "", "error": exc.message})
            continue
        except OSError as exc:
            report.failed.append({"file": name, "field": "", "error": f"cannot read: {exc}"})
            continue
        for key in parsed.dropped_keys:
            report.warnings.append({"file": name, "warning": f"dropped unknown key '{key}'"})
        for note in parsed.notes:
            report.warnings.append({"file": name, "warning": note})
        yield name, parsed


def _relative(path: Path, tree: Tree) -> str:
    return path.relative_to(tree.root).as_posix()


def _slugs(files: list[Path], root: Path) -> dict[str, str]:
    """Each readable file's slug by its path, so links between files can name pages."""
    out: dict[str, str] = {}
    for path in files:
        try:
            out[path.relative_to(root).as_posix()] = parse_file(path, root).slug
        except (BibliotecaError, OSError):
            continue  # reported when the file itself is imported
    return out


def _stored_form(
    parsed: ParsedFile, name: str, tree: Tree, report: ImportReport, labels: Mapping[str, str]
) -> ParsedFile:
    """The body in the stored form; example files not found become code sources. A page
    whose front matter and first H1 give no title takes its label in ``mkdocs.yml``'s nav
    (``labels``) before its sidebar label and its file's name."""
    room = MAX_CONTENT_BYTES - len(parsed.content.encode())
    prepared = prepare(parsed.content, name, tree, room)
    report.constructs.merge(prepared.constructs)
    metadata = parsed.metadata
    if not parsed.titled and labels.get(parsed.slug):
        metadata = {**metadata, "title": labels[parsed.slug]}
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
    actor: str,
) -> str:
    existing = store.pages.get(parsed.slug)
    if existing is None:
        defaults = {"type": default_type, "status": default_status}
        metadata = {k: v for k, v in defaults.items() if v} | parsed.metadata
        if "type" not in metadata:
            raise InvalidInput(
                f"no type in the front matter: add one or pass --type ({', '.join(PAGE_TYPES)})",
                field="type",
            )
        front_matter = parse_front_matter(metadata, "")
        return create_validated(
            parsed.slug, front_matter, parsed.content, store, embedder, actor=actor
        ).status
    metadata = _CLEARED_WHEN_ABSENT | parsed.metadata
    result = update_validated(
        parsed.slug,
        metadata,
        parsed.content,
        None,
        store,
        embedder,
        actor=actor,
        field="",
        known=existing,
    )
    return result.status
