"""Importing a folder of Markdown files as pages (front matter optional).

One file is one page: created, updated, unchanged or failed. A failed file never
stops the others, and re-importing unchanged files writes nothing. A store or model
that is unavailable (down, full, damaged) is no file's fault: it stops the import.
MkDocs sources are stored in one form (``shared.importing``), and a ``mkdocs.yml`` nav
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
from shared.dialects import bounded_yaml, bounds, mkdocs_config, mkdocstrings, routes, sidebar
from shared.dialects.constructs import Constructs
from shared.dialects.links import Resolver
from shared.errors import BibliotecaError, InvalidInput, PayloadTooLarge, Unavailable
from shared.importing import dialects, titles
from shared.importing.prepare import prepare
from shared.importing.shards import Shard
from shared.importing.tree import Tree, documented_objects, read_nav
from shared.logs import get_logger
from shared.normalize import MAX_SOURCES
from shared.ports import Embedder, Store
from shared.records import Origin
from shared.schema import FRONT_MATTER_KEYS, MAX_DESCRIPTION, PAGE_TYPES, parse_front_matter
from shared.services import fidelity
from shared.services.embed_ahead import EmbedAhead, ahead
from shared.services.indexing import chunk_hash, embedding_texts
from shared.services.tree_identity import tree_name
from shared.services.wiki import create_validated, update_validated
from shared.text.kinds import KINDS, page_kind
from shared.text.slugs import slug_from_path, slug_problem

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
PARTIAL = (
    "a partial (its name begins with _): its generator makes no page of it, so neither"
    " does the import; its text is shown where a page imports it"
)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?:(.*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_MDX_ID_TAIL = re.compile(r"[ \t]*\{/\*[^*{}\n]{0,200}\*/\}$")
MAX_ROUTE = 300  # characters of a front-matter id or slug kept as a route
# Front-matter keys a generator writes for itself (Docusaurus, Starlight, VitePress,
# MkDocs Material): its layout, pagination, head tags, authors and dates. They are not
# our schema's and not the reader's mistake: dropped without a warning. (``id`` and
# ``slug`` are read as the page's route; the sidebar keys place it.)
GENERATOR_KEYS = frozenset(
    {
        "aside", "author", "authors", "banner", "contributors", "custom_edit_url", "date",
        "description_seo", "displayed_sidebar", "draft", "editLink", "editUrl", "features",
        "footer", "head", "hero", "hide", "hide_table_of_contents", "hide_title", "i18nReady",
        "icon", "image", "keywords", "lastUpdated", "last_update", "layout", "navbar", "next",
        "outline", "pageClass", "pagefind", "pagination_label", "pagination_next",
        "pagination_prev", "parse_number_prefixes", "prev", "search", "sidebar_class_name",
        "sidebar_custom_props", "social", "tableOfContents", "template", "titleTemplate",
        "toc", "toc_max_heading_level", "toc_min_heading_level", "unlisted", "updated",
    }
)  # fmt: skip
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
    dialect: dict[str, str] = field(default_factory=dict)  # {"name", "why"}: how it was read
    fidelity: fidelity.Fidelity = field(default_factory=fidelity.Fidelity)  # words kept, raw
    shard: Shard | None = None  # --shard: the counts are this shard's files only

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
            "dialect": self.dialect,
            "fidelity": self.fidelity.as_dict(),
            **({"shard": self.shard.as_dict()} if self.shard is not None else {}),
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
    stated_id: str | None = None  # front-matter ``id`` (Docusaurus: the route's last part)
    stated_slug: str | None = None  # front-matter ``slug`` as written (a route, or ours)


def markdown_files(root: Path) -> list[Path]:
    """The tree's Markdown files, sorted: dotfiles and links out of the tree left out."""
    return bounds.walk(root, MARKDOWN_SUFFIXES)[0]


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body) of a Markdown file; no front matter gives ``{}``."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        data = bounded_yaml.load(match.group(1) or "")
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
    """Read one file: its slug, the front matter it states, its body. A file that leads
    out of ``root`` (a link to ``/etc/passwd``), or a dotfile, is never read."""
    real = bounds.inside(path, [root])
    if real is None:
        raise InvalidInput("the file leads out of the tree, or is no regular file: not read")
    raw = real.read_bytes()
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
    stated_slug = slug[:MAX_ROUTE] or None
    id_value = front_matter.pop("id", None)
    stated_id = str(id_value).strip()[:MAX_ROUTE] or None if id_value is not None else None
    if "/" in slug:
        # Docusaurus' and Starlight's ``slug`` is a route (``/``, ``guides/x``), never ours:
        # it is kept as the page's route (``shared.dialects.routes``).
        slug = ""
    if not slug:
        slug = slug_from_path(name)
    problem = slug_problem(slug)
    if problem:
        raise InvalidInput(f"slug '{slug}': {problem}", field="slug")
    notes += _dialect_values(front_matter)
    hint = sidebar.hint_of(front_matter)
    dropped = tuple(
        sorted(
            str(k)
            for k in front_matter
            if k not in FRONT_MATTER_KEYS and k not in sidebar.NAV_KEYS and k not in GENERATOR_KEYS
        )
    )
    metadata = {k: v for k, v in front_matter.items() if k in FRONT_MATTER_KEYS}
    titled = bool(metadata.get("title"))
    if not titled:
        heading = title_of(body)
        titled = heading is not None
        metadata["title"] = heading or hint.label or hero_title(front_matter) or file_title(path)
    return ParsedFile(
        slug=slug,
        metadata=metadata,
        content=body,
        dropped_keys=dropped,
        hint=hint,
        titled=titled,
        notes=tuple(notes),
        stated_id=stated_id,
        stated_slug=stated_slug,
    )


def hero_title(front_matter: dict[str, Any]) -> str | None:
    """A landing page's headline, where its generator keeps it: the ``hero`` of a
    VitePress ``layout: home`` (``name``, else ``text``) or of a Starlight splash page
    (``title``); such a page has no heading of its own."""
    hero = front_matter.get("hero")
    if not isinstance(hero, dict):
        return None
    for key in ("title", "name", "text"):
        value = hero.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def file_title(path: Path | str) -> str:
    """The last resort of a title: the file's name, its dashes and underscores as spaces."""
    return Path(path).stem.replace("-", " ").replace("_", " ")


def _dialect_values(front_matter: dict[str, Any]) -> list[str]:
    """Front-matter values a generator writes for itself, made to fit the schema in place:
    a ``type`` that is no page type (Starlight's ``type: tutorial``, ``type: cms``) is the
    generator's, never a failed file: one that names a page kind (``shared.text.kinds``)
    becomes the page's ``kind``, any other is dropped with a note, and the type is
    inferred or ``--type``'s; a ``description`` past the schema's cap is cut at a word.
    The notes say what was changed."""
    notes: list[str] = []
    stated = front_matter.get("type")
    if stated is not None and not (
        isinstance(stated, str) and stated.strip().lower() in PAGE_TYPES
    ):
        del front_matter["type"]
        folded = stated.strip().lower() if isinstance(stated, str) else ""
        if folded in KINDS:
            front_matter.setdefault("kind", folded)
        else:
            notes.append(f"dropped 'type: {str(stated)[:40]}': not a page type")
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
    dialect: str | None = None,
    tree_label: str | None = None,
    shard: Shard | None = None,
) -> ImportReport:
    """Import every Markdown file under ``root``; each page written keeps its origin (this
    tree and the file's path). ``repo`` is the repository root includes, snippets and API
    references resolve against (None: ``mkdocs_config.repository_root``); ``code_url``
    (``BIBLIOTECA_CODE_URL``) links the stand-in of an API object not found. The files the
    pages link are taken from the tree or the ``assets`` folders into the store, for the
    site (``shared.dialects.assets``). ``sync``: pages this tree imported earlier whose
    files are gone are archived (``retired``); no other page is touched. The tree is
    known by ``tree_label`` (``--tree``) or its repository (``tree_identity``). Its writes are
    attributed to ``import:<tree folder>``, and ``by`` (who ran it: the command line's actor,
    a CI job's name) is kept with the import's outcome. ``shard`` (``--shard I/N``): only
    that shard's files are written (``shared.importing.shards``); what concerns the whole
    tree (slugs, links, routes, the nav) is read from the whole tree's listing, so the N
    shards together write what one import writes."""
    report = ImportReport(shard=shard)
    tree, listing = read_tree(root, repo, code_url, assets, dialect)
    report.dialect = tree.dialect.as_dict()
    run = _Run(tree, store, embedder, tree_name(root, tree_label), import_actor(root), shard)
    nav, problems = read_nav(tree)
    # The measure of each page runs beside the import, in worker processes when it pays.
    with fidelity.Measuring(report.fidelity, len(tree.files)):
        files = stored_files(tree, report, progress, _nav_labels(nav), shard)
        origins = _write_pages(run, files, report, default_type, default_status)
    _publish_assets(run, report)
    _keep_origins(run, origins, report, sync)
    report.warnings += _tree_warnings(tree, listing, problems)
    _save_tree_facts(store, run.tree_name, listing, tree.slugs)
    if nav is not None:
        _save_nav(store, nav)
        report.nav = _count_pages(nav["items"])
    else:
        _save_tree_nav(tree, listing.placed(tree.slugs), store)
    report.fidelity.unknown = fidelity.unknown(report.constructs)
    record_import(store, run.actor, run.tree_name, report, by, sync)
    return report


@dataclass(frozen=True)
class _Run:
    """What every step of one import is told: the tree, the store and embedder it writes
    with, the tree's name its origins keep, the actor its writes name, its shard."""

    tree: Tree
    store: Store
    embedder: Embedder
    tree_name: str
    actor: str
    shard: Shard | None


def _write_pages(
    run: _Run,
    files: Iterator[tuple[str, ParsedFile]],
    report: ImportReport,
    default_type: str | None,
    default_status: str | None,
) -> dict[str, Origin]:
    """Write each parsed file as its page, counting it in ``report``; the origin of each
    page written, by slug. The vectors of the next pages are computed while these are
    parsed and written."""
    origins: dict[str, Origin] = {}
    batched = EmbedAhead(run.embedder)
    try:
        for name, parsed in ahead(
            files, lambda f: _new_texts(f[1], run.store, run.embedder), batched
        ):
            try:
                status = _write(parsed, run.store, batched, default_type, default_status, run.actor)
            except Unavailable:
                raise  # every other file would fail the same way: the command says it once
            except BibliotecaError as exc:
                report.failed.append({"file": name, "field": exc.field or "", "error": exc.message})
                report.fidelity.discard(name)
                continue
            setattr(report, status, getattr(report, status) + 1)
            origins[parsed.slug] = Origin(run.tree_name, name)
    finally:
        batched.close()
    return origins


def _publish_assets(run: _Run, report: ImportReport) -> None:
    """Store the files the written pages link that the store does not hold yet (by their
    content's address: two shards taking the same file write the same bytes)."""
    taken = run.tree.assets.taken
    if taken:
        held = run.store.site.held_assets(taken.keys())
        new_assets = {p: a.data for p, a in taken.items() if p not in held}
        if new_assets:
            run.store.site.put_assets(new_assets)
    report.assets = len(taken)
    report.warnings += [
        {"file": "", "warning": f"asset left out: {r}"} for r in run.tree.assets.refused
    ]


def _keep_origins(
    run: _Run, origins: Mapping[str, Origin], report: ImportReport, sync: bool
) -> None:
    """Keep the origin of each page written where it changed; with ``sync``, archive the
    pages whose file is gone (``_gone``)."""
    known = run.store.pages.origins(run.tree_name)
    moved = {slug: o for slug, o in origins.items() if known.get(slug) != o.path}
    if moved:
        run.store.pages.set_origins(moved)
    if sync:
        gone = _gone(run, known, origins)
        report.retired = _retire(gone, run.store, run.embedder, report, run.actor)


def _tree_warnings(tree: Tree, listing: TreeRoutes, problems: list[str]) -> list[dict[str, str]]:
    """What the reader should know of the tree as a whole: its nav's problems, its routes'
    notes, the modules griffe could not parse (every shard says them alike)."""
    warnings = [{"file": tree.config.name, "warning": problem} for problem in problems]
    warnings += [{"file": "", "warning": note} for note in listing.facts.notes]
    warnings += [
        {
            "file": path,
            "warning": f"griffe could not parse this module ({why}): its directives are stand-ins",
        }
        for path, why in (tree.library.unparsed() if tree.library is not None else [])
    ]
    return warnings


def _gone(run: _Run, known: Mapping[str, str], origins: Mapping[str, Origin]) -> dict[str, str]:
    """The pages this tree imported earlier whose file is gone, by slug (their old path):
    for a shard, only those whose old path is its own (it hashes the same way), and never
    one whose slug a file of another shard now stands for (a page moved between shards)."""
    present = set(run.tree.files)
    shard = run.shard
    elsewhere: set[str] = set()
    if shard is not None:
        clashing = colliding(run.tree.slugs)
        elsewhere = {
            slug
            for path, slug in run.tree.slugs.items()
            if not shard.owns(path) and path not in clashing
        }
    return {
        slug: path
        for slug, path in known.items()
        if path not in present
        and slug not in origins
        and slug not in elsewhere
        and (shard is None or shard.owns(path))
    }


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
    _save_nav(store, sidebar.merged(store.site.load_nav(), nav, set(tree.slugs.values())))


def _save_tree_facts(
    store: Store, name: str, tree_routes: TreeRoutes, slugs: Mapping[str, str]
) -> None:
    """Keep what the site build needs of this tree beside the other trees': each page's
    addresses in its generator (a redirect page at each) and the generator's site name.
    Computed from the whole tree, so every shard of an import keeps the same."""
    facts = {
        "routes": tree_routes.by_slug(slugs),
        "site_name": tree_routes.facts.site_name,
        "generator": tree_routes.facts.generator,
    }
    stored = store.site.load_imports() or {}
    trees = dict(stored.get("trees") or {})
    if trees.get(name) == facts:
        return
    trees[name] = facts
    store.site.save_imports({**stored, "trees": trees})


def _save_nav(store: Store, nav: Mapping[str, Any]) -> None:
    """Keep ``nav`` for the site, unless the store holds it already: an unchanged
    re-import writes nothing."""
    if store.site.load_nav() != nav:
        store.site.save_nav(nav)


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
    dialect: str | None = None,
) -> Tree:
    """The folder's Markdown files and the slug each is imported as, its MkDocs
    configuration, the repository root, where each API object is documented, the
    folders site-absolute files are looked for in, and its dialect (``dialect``, from
    ``--dialect``, overrides what ``shared.importing.dialects.detect`` finds);
    ``read_tree`` without the routes."""
    return read_tree(root, repo, code_url, assets, dialect)[0]


@dataclass(frozen=True)
class TreeRoutes:
    """Where the tree's generator serves each file (``shared.dialects.routes``), and the
    whole tree's listing those routes and the sidebar are computed from."""

    facts: routes.SiteFacts
    by_path: dict[str, list[str]]  # file path (relative to DIR) -> its addresses
    # Each readable file's front matter and title, by path: the whole tree's listing, read
    # by every shard of an import (no body is converted for it).
    heads: Mapping[str, ParsedFile] = field(default_factory=dict)

    def by_slug(self, slugs: Mapping[str, str]) -> dict[str, list[str]]:
        """Each page's addresses by its slug, files that share a slug left out."""
        clashing = colliding(slugs)
        return {
            slugs[path]: addresses
            for path, addresses in sorted(self.by_path.items())
            if path in slugs and path not in clashing
        }

    def placed(self, slugs: Mapping[str, str]) -> list[sidebar.Placed]:
        """Where the folders and front matter place each page of the whole tree (files
        that share a slug left out, as they are not imported), titled as its page is."""
        clashing = colliding(slugs)
        return [
            sidebar.Placed(path, head.slug, _shown_title(head.metadata["title"]), head.hint)
            for path, head in self.heads.items()
            if path not in clashing
        ]


def _shown_title(title: Any) -> Any:
    """A title as its page shows it: components as their text (``<Badge>`` in a title)."""
    return titles.readable(title) if isinstance(title, str) else title


def read_tree(
    root: Path,
    repo: Path | None = None,
    code_url: str | None = None,
    assets: Sequence[Path] = (),
    dialect: str | None = None,
) -> tuple[Tree, TreeRoutes]:
    """``tree_of``'s tree, its links resolving the generator's routes too (a link written
    ``/docs/timeouts`` for ``Timeouts.md`` with ``id: timeouts``), and those routes."""
    config = mkdocs_config.find_config(root)
    every = markdown_files(root)
    left_out = mkdocs_config.excluded(config, [p.relative_to(root).as_posix() for p in every])
    files = [p for p in every if p.relative_to(root).as_posix() not in left_out]
    detected = dialects.detect(root, files, dialect, config.path)
    partials = frozenset(
        name for p in files if detected.dialect.is_partial(name := p.relative_to(root).as_posix())
    )
    files = [p for p in files if p.relative_to(root).as_posix() not in partials]
    heads = _heads(files, root)
    slugs = {path: head.slug for path, head in heads.items()}
    facts = routes.facts_of(root, config.data)
    by_path = {
        path: facts.routes_of(path, head.stated_id, head.stated_slug)
        for path, head in heads.items()
    }
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
        partials=partials,
        dialect=detected,
    )
    tree = replace(tree, refs=documented_objects(tree, files))
    found = TreeRoutes(facts, by_path, heads)
    aliases = {
        address: slug for slug, addresses in found.by_slug(slugs).items() for address in addresses
    }
    # The tree's resolver, told the generator's routes (its module is the body's; the
    # routes are the tree's, known only here).
    object.__setattr__(
        tree, "links", Resolver(slugs, locale=root.name, aliases=aliases, base=facts.base)
    )
    return tree, found


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
    ``tree_identity.tree_name`` is the repository's name its pages' origins keep)."""
    return f"{IMPORT_ACTOR}:{root.resolve().name or 'root'}"


def record_import(
    store: Store,
    actor: str,
    tree: str,
    report: ImportReport,
    by: str | None = None,
    sync: bool = False,
) -> None:
    """The ``import_outcome`` event ``biblioteca status`` shows as the last sync (whether
    ``--sync`` ran, what it retired, the pages' fidelity); a store that cannot take it
    costs the import nothing (its pages are written)."""
    data = {
        "actor": actor,
        "by": by,
        "tree": tree,
        "created": report.created,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "failed": len(report.failed),
        "sync": sync,
        "retired": report.retired,
        "fidelity": report.fidelity.summary(),
        **({"shard": report.shard.as_dict()} if report.shard is not None else {}),
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
    shard: Shard | None = None,
) -> Iterator[tuple[str, ParsedFile]]:
    """Each file of the tree parsed into the stored form, by its relative name; files that
    cannot be read or parsed, and warnings, go to ``report``. ``labels`` (a nav's, by slug)
    title the pages whose front matter and body name none. ``shard``: only its files."""
    found, refused = bounds.walk(tree.root, MARKDOWN_SUFFIXES)
    _warn_left_out(tree, refused, report, shard)
    files = [
        p
        for p in found
        if _relative(p, tree) not in tree.excluded | tree.partials
        and (shard is None or shard.owns(_relative(p, tree)))
    ]
    shared_slugs = colliding(tree.slugs)
    for path in progress(files):
        name = path.relative_to(tree.root).as_posix()
        if name in shared_slugs:
            others = ", ".join(shared_slugs[name][:3])
            report.failed.append(
                {
                    "file": name,
                    "field": "slug",
                    "error": f"slug '{tree.slugs[name]}' is also the slug of {others}: "
                    "rename one of them or give one a front-matter slug",
                }
            )
            continue
        try:
            source = parse_file(path, tree.root)
            parsed = _stored_form(source, name, tree, report, labels or {})
        except BibliotecaError as exc:
            report.failed.append({"file": name, "field": exc.field or "", "error": exc.message})
            continue
        except OSError as exc:
            report.failed.append({"file": name, "field": "", "error": f"cannot read: {exc}"})
            continue
        title = str(parsed.metadata.get("title") or "")
        report.fidelity.page(
            fidelity.PageText(name, source.content, parsed.content, parsed.slug, title)
        )
        for key in parsed.dropped_keys:
            report.warnings.append({"file": name, "warning": f"dropped unknown key '{key}'"})
        for note in parsed.notes:
            report.warnings.append({"file": name, "warning": note})
        yield name, parsed


def _warn_left_out(
    tree: Tree, refused: Sequence[bounds.Refused], report: ImportReport, shard: Shard | None
) -> None:
    """A warning for what the import does not read as pages: the files the config's
    exclude rules leave out, those the walk refused, and the dialect's partials."""
    if tree.excluded:
        report.warnings.append(
            {
                "file": tree.config.name,
                "warning": f"{len(tree.excluded)} files left out by its exclude rules",
            }
        )
    for left_out in refused:
        report.warnings.append({"file": left_out.name, "warning": f"not read: {left_out.why}"})
    for partial in sorted(tree.partials):
        if shard is None or shard.owns(partial):
            report.warnings.append({"file": partial, "warning": PARTIAL})


def colliding(slugs: Mapping[str, str]) -> dict[str, list[str]]:
    """The files that share their slug with another (``Guide.md``/``guide.md``,
    ``x.md``/``x.mdx``, ``canción.md``/``cancion.md``, two ``slug: x``), each with the
    others: none of them is imported, as one page would silently stand for both."""
    by_slug: dict[str, list[str]] = {}
    for path, slug in slugs.items():
        by_slug.setdefault(slug, []).append(path)
    return {
        path: sorted(p for p in paths if p != path)
        for paths in by_slug.values()
        if len(paths) > 1
        for path in paths
    }


def _relative(path: Path, tree: Tree) -> str:
    return path.relative_to(tree.root).as_posix()


def _heads(files: list[Path], root: Path) -> dict[str, ParsedFile]:
    """Each readable file parsed, by its path, so links between files can name pages and
    routes be computed for the whole tree."""
    out: dict[str, ParsedFile] = {}
    for path in files:
        try:
            out[path.relative_to(root).as_posix()] = parse_file(path, root)
        except (BibliotecaError, OSError):
            continue  # reported when the file itself is imported
    return out


def _stored_form(
    parsed: ParsedFile, name: str, tree: Tree, report: ImportReport, labels: Mapping[str, str]
) -> ParsedFile:
    """The body in the stored form, the page's kind (``shared.text.kinds``, from its path
    and its source body) where the file states none; example files not found become code
    sources. A page
    whose front matter and first H1 give no title takes its label in ``mkdocs.yml``'s nav
    (``labels``) before its sidebar label and its file's name."""
    room = MAX_CONTENT_BYTES - len(parsed.content.encode())
    prepared = prepare(parsed.content, name, tree, room)
    report.constructs.merge(prepared.constructs)
    report.warnings += [{"file": name, "warning": w} for w in prepared.warnings]
    metadata = parsed.metadata
    if "kind" not in metadata:
        stated = metadata.get("type")
        kind = page_kind(
            name, page_type=stated if isinstance(stated, str) else None, body=parsed.content
        )
        metadata = {**metadata, "kind": kind}
    if not parsed.titled and labels.get(parsed.slug):
        metadata = {**metadata, "title": labels[parsed.slug]}
    title = metadata.get("title")
    if isinstance(title, str):
        shown = titles.readable(title, report.constructs)  # ``<Badge>`` in a title
        if shown != title:
            metadata = {**metadata, "title": shown}
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


def inferred_type(parsed: ParsedFile) -> str:
    """The type of a file that states none and was given no ``--type``: a docs tree is
    never refused for it. Its kind decides: reference pages are ``reference``, the rest
    ``guide`` (the kinds a wiki type has no word for are guides that say their kind)."""
    return "reference" if parsed.metadata.get("kind") == "reference" else "guide"


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
        defaults = {"type": default_type or inferred_type(parsed), "status": default_status}
        metadata = {k: v for k, v in defaults.items() if v} | parsed.metadata
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
