"""`biblioteca import DIR`: Markdown folders to pages, one bad file never stops the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.bootstrap import open_store
from shared.cli import main
from shared.config import get_settings
from tests.fixtures.files import write


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    """A small folder: front matter or not, slug from the file or the path, one unknown key."""
    root = tmp_path / "wiki"
    write(
        root,
        "guias/Instalar.md",
        "---\ntitle: Instalar Biblioteca\ntype: guide\ntags: [Setup]\nsources: [Makefile]\n---\n"
        "# Otro título\n\nEjecuta `make run`.\n",
    )
    write(root, "notas/Primeros-Pasos.md", "# Primeros pasos { #first-steps }\n\nTexto.\n")
    write(
        root,
        "propio.md",
        "---\nslug: decision—propio\ntitle: Propio\ntype: decision\n---\nCuerpo.\n",
    )
    write(
        root, "extra.md", "---\ntitle: Extra\nautora: ana\ncolor: [rojo]\nauthor: x\n---\nCuerpo.\n"
    )
    write(root, ".oculto/nada.md", "# No se importa\n")
    write(root, "leeme.txt", "no es markdown")
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    """Run `biblioteca import … --json` in this process: (exit status, parsed report)."""
    status = main(["import", *args, "--json"])
    out = capsys.readouterr().out
    return status, json.loads(out) if out.strip() else None


def pages() -> Any:
    return open_store(get_settings()).pages


def test_import_creates_one_page_per_markdown_file(
    store_env: str, wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Slugs from front matter or path, titles from front matter or heading; dotfiles skipped."""
    status, report = run(capsys, str(wiki), "--type", "reference")
    assert status == 0
    assert (report["created"], report["updated"], report["unchanged"], report["failed"]) == (
        4,
        0,
        0,
        [],
    )
    instalar = pages().get("guias—instalar")
    assert instalar.front_matter["title"] == "Instalar Biblioteca"
    assert instalar.front_matter["type"] == "guide"  # the front matter wins over --type
    assert instalar.front_matter["tags"] == ["setup"]
    assert instalar.front_matter["sources"][0]["ref"] == "Makefile"
    assert instalar.content == "# Otro título\n\nEjecuta `make run`.\n"
    primeros = pages().get("notas—primeros-pasos")
    assert (primeros.front_matter["title"], primeros.front_matter["type"]) == (
        "Primeros pasos",
        "reference",
    )
    assert pages().get("decision—propio").front_matter["title"] == "Propio"
    assert pages().get("extra") is not None
    assert {p.slug for p in pages().list()} == {
        "guias—instalar",
        "notas—primeros-pasos",
        "decision—propio",
        "extra",
    }


def test_unknown_keys_are_dropped_and_counted_as_warnings(
    env: dict[str, str], wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """autora/color are not stored and each gives one warning naming the file and key;
    a generator's own ``author`` is dropped without one."""
    _, report = run(capsys, str(wiki), "--type", "guide")
    assert sorted((w["file"], w["warning"]) for w in report["warnings"]) == [
        ("extra.md", "dropped unknown key 'autora'"),
        ("extra.md", "dropped unknown key 'color'"),
    ]
    assert set(pages().get("extra").front_matter) <= {
        "title", "type", "status", "sources", "related", "tags", "category", "generated", "kind"
    }  # fmt: skip


def test_type_and_status_are_defaults_for_silent_files(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--type/--status apply where the front matter is silent; given values win."""
    write(tmp_path, "a.md", "# A")
    write(tmp_path, "b.md", "---\ntype: runbook\nstatus: active\n---\n# B")
    status, _ = run(capsys, str(tmp_path), "--type", "entity", "--status", "draft")
    assert status == 0
    a, b = pages().get("a").front_matter, pages().get("b").front_matter
    assert (a["type"], a["status"]) == ("entity", "draft")
    assert (b["type"], b["status"]) == ("runbook", "active")


def test_without_type_a_silent_file_gets_the_type_of_its_kind(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --type and no type in the file: never a failure; a reference page (under
    ``api/``) is ``reference``, a tutorial or plain page ``guide``, each with its kind;
    a generator's ``type: tutorial`` is the kind, not an error; a stated type wins."""
    write(tmp_path, "a.md", "# A")
    write(tmp_path, "api/cliente.md", "# Cliente\n\nTexto.")
    write(tmp_path, "tutorial/primero.md", "# Primero")
    write(tmp_path, "paso.mdx", "---\ntitle: Paso\ntype: tutorial\n---\nTexto.")
    write(tmp_path, "b.md", "---\ntype: concept\n---\n# B")
    status, report = run(capsys, str(tmp_path))
    assert (status, report["created"], report["failed"]) == (0, 5, [])
    stored = {p.slug: (p.front_matter["type"], p.front_matter.get("kind")) for p in pages().list()}
    assert stored == {
        "a": ("guide", "guide"),
        "api—cliente": ("reference", "reference"),
        "tutorial—primero": ("guide", "tutorial"),
        "paso": ("guide", "tutorial"),
        "b": ("concept", "guide"),
    }
    assert not [w for w in report["warnings"] if "type" in w["warning"]]


def test_bad_files_fail_alone_and_the_others_import(
    store_env: str, wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad YAML, an invalid field, non-UTF-8, a bad slug: each fails, the rest import, exit 1."""
    write(wiki, "mal/yaml.md", "---\ntitle: [sin cerrar\n---\nx")
    write(wiki, "mal/estado.md", "---\ntitle: T\nstatus: publicado\n---\nx")
    write(wiki, "mal/fuentes.md", "---\ntitle: T\ntype: guide\nsources: [a.py, true]\n---\nx")
    write(wiki, "mal/latin1.md", "# Canción\n".encode("latin-1"))
    write(wiki, "mal/slug.md", "---\nslug: Con Espacios\ntype: guide\n---\nx")
    status, report = run(capsys, str(wiki), "--type", "reference")
    assert status == 1
    assert report["created"] == 4
    failed = {f["file"]: f["field"] for f in report["failed"]}
    assert failed == {
        "mal/fuentes.md": "sources[1]",
        "mal/latin1.md": "",
        "mal/slug.md": "slug",
        "mal/estado.md": "status",
        "mal/yaml.md": "",
    }
    assert all(f["error"] for f in report["failed"])
    assert pages().get("mal—estado") is None


def test_reimporting_unchanged_files_writes_nothing(
    store_env: str, wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second import reports every page unchanged and no version or timestamp moves."""
    run(capsys, str(wiki), "--type", "reference")
    before = {p.slug: (p.version, p.updated_at) for p in pages().list()}
    status, report = run(capsys, str(wiki), "--type", "reference")
    assert status == 0
    assert (report["created"], report["updated"], report["unchanged"]) == (0, 0, 4)
    assert {p.slug: (p.version, p.updated_at) for p in pages().list()} == before


def test_a_changed_file_updates_its_page_only(
    env: dict[str, str], wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Editing one file and importing again updates that page to version 2, nothing else."""
    run(capsys, str(wiki), "--type", "reference")
    write(wiki, "notas/Primeros-Pasos.md", "# Primeros pasos\n\nTexto nuevo.\n")
    _, report = run(capsys, str(wiki), "--type", "reference")
    assert (report["created"], report["updated"], report["unchanged"]) == (0, 1, 3)
    changed = pages().get("notas—primeros-pasos")
    assert (changed.version, changed.content) == (2, "# Primeros pasos\n\nTexto nuevo.\n")
    assert open_store(get_settings()).chunks.vectors_for("notas—primeros-pasos")


def test_reimport_keeps_a_curators_status_and_clears_what_the_file_dropped(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file is the truth for what it states; status (promotion, archival) survives."""
    write(tmp_path, "a.md", "---\ntitle: A\ntype: guide\ntags: [x]\ncategory: c\n---\n# A")
    run(capsys, str(tmp_path), "--status", "draft")
    from shared.services.wiki import update_validated

    store = open_store(get_settings())
    update_validated("a", {"status": "active"}, None, None, store, _NoEmbedder(), actor="test")
    write(tmp_path, "a.md", "---\ntitle: A\ntype: guide\n---\n# A")
    _, report = run(capsys, str(tmp_path), "--status", "draft")
    assert report["updated"] == 1
    fm = pages().get("a").front_matter
    assert (fm["status"], fm["tags"], fm["category"]) == ("active", [], None)


class _NoEmbedder:
    """A metadata-only update re-embeds nothing: any call here would be a bug."""

    name = "local:use-m3@512"

    def embed_documents(self, texts: Any) -> Any:
        raise AssertionError("a metadata-only update must not embed")

    def embed_query(self, text: str) -> Any:
        raise AssertionError("a metadata-only update must not embed")


def test_human_output_summarizes_counts_and_problems(
    env: dict[str, str], wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --json: one summary line, then one line per failure and warning."""
    write(wiki, "mal.md", "---\nstatus: publicado\n---\nx")
    assert main(["import", str(wiki), "--type", "guide"]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "created 4, updated 0, unchanged 0, failed 1, warnings 2"
    assert any(line.strip().startswith("failed  mal.md:") and "(status)" in line for line in lines)
    assert sum("warning extra.md" in line for line in lines) == 2


@pytest.mark.parametrize(
    "args",
    [
        ["import"],
        ["import", "/no/such/dir"],
        ["import", ".", "--type", "blog"],
        ["import", ".", "--status", "x"],
    ],
)
def test_usage_errors_exit_2(
    env: dict[str, str], args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing or non-directory DIR, or a type/status outside the schema, is exit status 2."""
    try:
        status = main(args)
    except SystemExit as exc:  # argparse exits on its own usage errors
        status = int(exc.code or 0)
    assert status == 2
    assert capsys.readouterr().err


# -- the real corpus ------------------------------------------------------------------


def test_every_corpus_file_parses_to_a_distinct_valid_slug_and_a_title(corpus: Path) -> None:
    """All 122 FastAPI pages parse: slugs from their paths, titles from headings without anchors."""
    from shared.services.importer import markdown_files, parse_file
    from shared.text.slugs import is_valid_slug

    docs = corpus / "docs"
    parsed = [parse_file(path, docs) for path in markdown_files(docs)]
    assert len(parsed) == 122
    slugs = [p.slug for p in parsed]
    assert len(set(slugs)) == 122
    assert all(is_valid_slug(slug) for slug in slugs)
    by_slug = {p.slug: p for p in parsed}
    assert by_slug["tutorial—first-steps"].metadata["title"] == "Primeros Pasos"
    assert "advanced—security—oauth2-scopes" in by_slug
    assert not [p.slug for p in parsed if "{" in p.metadata["title"] or not p.metadata["title"]]
    assert [(p.slug, p.dropped_keys) for p in parsed if p.dropped_keys] == [
        ("index", ("include_yaml",))
    ]


@pytest.fixture(scope="module")
def imported_how_to(
    corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, Any, Path]:
    """The corpus's how-to/ folder (12 real pages) imported once into a module store.

    One folder rather than all 122 pages: embedding the whole corpus costs tens of
    seconds, and the parsing of all of it is checked above without a store.
    """
    import shutil

    from shared.providers.local_embedder import shared_local_embedder
    from shared.services.importer import import_directory
    from shared.store.sqlite import SqliteStore

    root = tmp_path_factory.mktemp("corpus-how-to") / "docs"
    shutil.copytree(corpus / "docs" / "how-to", root / "how-to")
    store = SqliteStore(root.parent / "store")
    report = import_directory(root, store, shared_local_embedder(), default_type="reference")
    assert (report.created, report.failed, report.warnings) == (12, [], [])
    return store, shared_local_embedder(), root


def test_real_pages_import_searchable_and_reimport_writes_nothing(
    imported_how_to: tuple[Any, Any, Path],
) -> None:
    """Imported corpus pages have their folder in the slug and chunks; a re-import is a no-op."""
    from shared.services.importer import import_directory

    store, embedder, root = imported_how_to
    records = store.pages.list()
    assert len(records) == 12
    assert all(r.slug.startswith("how-to—") for r in records)
    assert all(store.chunks.vectors_for(r.slug) for r in records)
    report = import_directory(root, store, embedder, default_type="reference")
    assert (report.created, report.updated, report.unchanged, report.failed) == (0, 0, 12, [])
    assert {r.version for r in store.pages.list()} == {1}


def test_an_import_leaves_the_search_index_snapshot_for_cold_ask_instances(
    store_env: str, wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a bulk import the stored snapshot holds every active chunk, so a cold `ask`
    instance loads it instead of reading the wiki inside a question (docs/scale.md)."""
    from shared.retrieval.snapshot import decode

    assert main(["import", str(wiki), "--type", "guide"]) == 0
    out = capsys.readouterr().out
    chunks = open_store(get_settings()).chunks
    stored = chunks.load_snapshot()
    assert stored is not None
    index = decode(stored.payload)
    assert index is not None
    assert len(index) == len(list(chunks.active_chunks())) > 0
    count = len(index)
    assert f"search index snapshot stored ({count} chunks)" in out


def test_an_import_stores_the_snapshot_once_and_leaves_no_save_running(
    env: dict[str, str], wiki: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import's own store of the snapshot is the only one: a cold read inside it starts
    no background save (that encoded the index twice, and a process exiting under it
    aborted now and then with 'terminate called without an active exception')."""
    import threading

    from shared.retrieval import hybrid

    encoded: list[int] = []
    real = hybrid.stored_index.encode
    monkeypatch.setattr(
        hybrid.stored_index,
        "encode",
        lambda index, dense=None: encoded.append(len(index)) or real(index, dense),
    )
    assert main(["import", str(wiki), "--type", "guide"]) == 0
    assert len(encoded) == 1
    assert not [t for t in threading.enumerate() if t.name == "index-snapshot"]


def test_sync_and_assets_flags_reach_the_report(
    store_env: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--assets DIR (repeatable) takes the files pages link; --sync reports retired pages;
    an --assets folder that does not exist is a usage error."""
    docs, public = tmp_path / "docs", tmp_path / "public"
    write(docs, "a.md", "# A\n\n![logo](/logo.png)\n")
    write(docs, "b.md", "# B\n")
    write(public, "logo.png", b"\x89PNG fake")
    status, report = run(capsys, str(docs), "--type", "guide", "--assets", str(public))
    assert (status, report["created"], report["assets"], report["retired"]) == (0, 2, 1, 0)
    (docs / "b.md").unlink()
    status, report = run(capsys, str(docs), "--sync")
    assert (status, report["retired"]) == (0, 1)
    assert main(["import", str(docs), "--assets", str(tmp_path / "nada")]) == 2
    capsys.readouterr()
    assert main(["import", str(docs), "--sync"]) == 0
    assert "retired 0" in capsys.readouterr().out


def test_colliding_slugs_fail_every_file_and_name_the_others(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``Guide.md``/``guide.md``, ``x.md``/``x.mdx``, ``canción.md``/``cancion.md`` and two
    ``slug: x``: each file fails naming the other (none silently stands for both); the
    rest import. Before, 11 files became 6 pages with no word."""
    docs = tmp_path / "docs"
    write(docs, "Guide.md", "# Guía grande")
    write(docs, "guide.md", "# guía pequeña")
    write(docs, "x.md", "# X md")
    write(docs, "x.mdx", "# X mdx")
    write(docs, "canción.md", "# Canción")
    write(docs, "cancion.md", "# Cancion")
    write(docs, "uno.md", "---\nslug: propio\n---\n# Uno")
    write(docs, "dos.md", "---\nslug: propio\n---\n# Dos")
    write(docs, "sola.md", "# Sola")
    status, report = run(capsys, str(docs))
    assert (status, report["created"]) == (1, 1)
    failed = {f["file"]: f for f in report["failed"]}
    assert set(failed) == {
        "Guide.md", "guide.md", "x.md", "x.mdx", "canción.md", "cancion.md", "uno.md", "dos.md"
    }  # fmt: skip
    assert {f["field"] for f in failed.values()} == {"slug"}
    assert "guide.md" in failed["Guide.md"]["error"]
    assert "Guide.md" in failed["guide.md"]["error"]
    assert "cancion.md" in failed["canción.md"]["error"]
    assert "dos.md" in failed["uno.md"]["error"]
    assert [p.slug for p in pages().list()] == ["sola"]


class CountingStore:
    """The real store, with every write through it counted (``part.method``): what a
    re-import writes, not just what it reports."""

    WRITES = frozenset(
        {
            "create", "update", "set_freshness", "set_freshness_many", "set_origins",
            "save_snapshot", "save_nav", "put_assets", "save_manifest", "record", "add",
        }
    )  # fmt: skip

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.writes: dict[str, int] = {}

    def __getattr__(self, part: str) -> Any:
        return _CountedPart(getattr(self.inner, part), part, self.writes, self.WRITES)


class _CountedPart:
    def __init__(self, inner: Any, name: str, writes: dict[str, int], names: frozenset[str]):
        self.inner, self.name, self.writes, self.names = inner, name, writes, names

    def __getattr__(self, method: str) -> Any:
        found = getattr(self.inner, method)
        if method not in self.names or not callable(found):
            return found

        def counted(*args: Any, **kwargs: Any) -> Any:
            key = f"{self.name}.{method}"
            self.writes[key] = self.writes.get(key, 0) + 1
            return found(*args, **kwargs)

        return counted


def test_an_unchanged_reimport_writes_nothing_but_its_outcome(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A tree with folders (a nav of its own), an image and front matter, imported twice:
    the second import makes no revision and no store write but the one outcome event
    ``status`` shows (the first one writes pages, chunks, nav, assets and origins)."""
    from shared.services.importer import import_directory
    from tests.fixtures.embedder import HashingEmbedder

    docs = tmp_path / "docs"
    write(docs, "index.md", "# Inicio\n\n[Uno](guias/uno.md)\n")
    write(docs, "guias/uno.md", "---\nsidebar_position: 2\n---\n# Uno\n\n![logo](logo.png)\n")
    write(docs, "guias/logo.png", b"\x89PNG fake")
    write(docs, "guias/dos.md", "---\ntitle: Dos\ntags: [x]\n---\nTexto.\n")
    store = open_store(get_settings())
    first = CountingStore(store)
    import_directory(docs, first, HashingEmbedder())
    assert {"pages.create", "site.save_nav", "site.put_assets", "pages.set_origins"} <= set(
        first.writes
    )
    revisions = {p.slug: len(store.revisions.history(p.slug)) for p in store.pages.list()}
    again = CountingStore(store)
    report = import_directory(docs, again, HashingEmbedder())
    assert (report.created, report.updated, report.unchanged) == (0, 0, 3)
    assert again.writes == {"events.record": 1}
    assert {p.slug: len(store.revisions.history(p.slug)) for p in store.pages.list()} == revisions
