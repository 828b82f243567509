"""Site build speed: Biblioteca's rebuild beside Hugo on the same Markdown, in the same run.

Builds the 122-page FastAPI corpus and a synthetic wiki (10,000 pages by default) in
full with ``build_site`` (SQLite store, local folder), then an incremental rebuild
after one edit, and Hugo (Debian's ``hugo``) on the same Markdown files. Prints
pages/s and the ratios. Pages are written straight to the store (no embedding), dated
a day ago as in a wiki built earlier; the incremental runs count the page records they
read from the store. The corpus is also built by the ``biblioteca rebuild --full``
command, start-up included, as Hugo's command is timed.

    .venv/bin/python bench/site.py [--pages 10000] [--repeat 3] [--no-hugo]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.bootstrap import open_store, reset, wiring  # noqa: E402
from shared.config import Settings, load_settings  # noqa: E402
from shared.records import PageRecord  # noqa: E402
from shared.schema import PAGE_TYPES  # noqa: E402
from shared.services.importer import markdown_files  # noqa: E402
from shared.services.site_build import BuildReport, build_site  # noqa: E402
from shared.text.slugs import slug_from_path  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "fastapi-es" / "docs"
_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t]*(?:\{[ \t]*#[^}]*\}[ \t]*)?$", re.M)
WORDS = """
servicio datos usuario sistema proceso configuración despliegue consulta respuesta
página índice caché clave valor función módulo paquete versión error registro evento
cola mensaje tarea trabajo equipo proyecto documento archivo carpeta ruta puerto red
servidor cliente base tabla campo esquema modelo prueba entorno variable secreto token
permiso rol cuenta grupo política regla límite tiempo fecha hora día semana mes año
rápido lento seguro simple nuevo viejo grande pequeño primero último siguiente anterior
crear leer actualizar borrar buscar filtrar ordenar validar guardar cargar enviar recibir
""".split()  # noqa: SIM905 - a word list reads better than 80 quoted strings


@dataclasses.dataclass
class Page:
    slug: str
    title: str
    type: str
    content: str
    tags: list[str]
    related: list[str]


def corpus_pages() -> list[Page]:
    pages = []
    for path in markdown_files(CORPUS):
        text = path.read_text(encoding="utf-8")
        match = _TITLE.search(text)
        slug = slug_from_path(path.relative_to(CORPUS).as_posix())
        title = match.group(1).strip() if match else slug
        pages.append(Page(slug, title[:200], "guide", text, [], []))
    return pages


def _sentence(rng: random.Random, n: int) -> str:
    words = rng.choices(WORDS, k=n)
    return " ".join(words).capitalize() + "."


def synthetic_pages(count: int, seed: int = 42) -> list[Page]:
    """``count`` pages of ~1.7 KB with lists, code, a table and 3 wiki links each."""
    rng = random.Random(seed)
    slugs = [f"{PAGE_TYPES[i % len(PAGE_TYPES)]}—tema-{i:05d}" for i in range(count)]
    hubs = slugs[: max(1, count // 100)]  # a few pages everyone links to, as in a real wiki
    pages = []
    for i, slug in enumerate(slugs):
        targets = [rng.choice(hubs), rng.choice(slugs), rng.choice(slugs)]
        content = "\n".join(
            [
                f"{_sentence(rng, 40)} Ver [[{targets[0]}]].",
                "",
                "## Contexto",
                "",
                f"{_sentence(rng, 50)} **{rng.choice(WORDS)}** y `{rng.choice(WORDS)}_id`.",
                "",
                f"- {_sentence(rng, 8)}",
                f"- {_sentence(rng, 8)} [[{targets[1]}|{rng.choice(WORDS)}]]",
                f"- {_sentence(rng, 8)}",
                "",
                "```python",
                f"def {rng.choice(WORDS)}_{i}(valor):",
                f"    return valor + {i}",
                "```",
                "",
                "| campo | valor |",
                "|---|---|",
                f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} |",
                "",
                "## Detalles",
                "",
                f"{_sentence(rng, 45)} También [[{targets[2]}]].",
            ]
        )
        title = f"Tema {i:05d}: {rng.choice(WORDS)} {rng.choice(WORDS)}"
        tags = rng.sample(WORDS[:30], 2)
        related = [rng.choice(slugs)]
        pages.append(Page(slug, title, slug.split("—")[0], content, tags, related))
    return pages


def settings_for(folder: Path) -> Settings:
    reset()
    return load_settings({"BIBLIOTECA_DATA_DIR": str(folder / "data")})


def fill_store(settings: Settings, pages: Iterable[Page]) -> None:
    store = open_store(settings)
    now = datetime.now(UTC) - timedelta(days=1)  # written before the builds below
    for page in pages:
        fm = {"title": page.title, "type": page.type, "tags": page.tags, "related": page.related}
        store.pages.create(PageRecord(page.slug, fm, page.content, 1, now, now), [])


def edit_one(settings: Settings, slug: str, *, title: str | None = None) -> None:
    store = open_store(settings)
    record = store.pages.get(slug)
    assert record is not None, slug
    fm = dict(record.front_matter)
    content = record.content
    if title is not None:
        fm["title"] = title
    else:
        content += "\n\nUna frase nueva."
    changed = dataclasses.replace(
        record,
        front_matter=fm,
        content=content,
        version=record.version + 1,
        updated_at=datetime.now(UTC),
    )
    store.pages.update(changed, None, expected_version=record.version)


# -- Hugo -----------------------------------------------------------------------------

HUGO_CONFIG = """
baseURL = "http://example.org/"
languageCode = "es"
title = "bench"
disableKinds = ["taxonomy", "term", "RSS"]
[markup.goldmark.renderer]
unsafe = false
"""
HUGO_SINGLE = (
    "<!doctype html><html lang=es><head><meta charset=utf-8><title>{{ .Title }}</title>"
    '<link rel="stylesheet" href="/static/widget.css"></head><body><main><h1>{{ .Title }}</h1>'
    '<p>{{ .Type }} · {{ delimit .Params.tags ", " }}</p>{{ .Content }}</main></body></html>\n'
)
HUGO_LIST = (
    "<!doctype html><html lang=es><head><meta charset=utf-8><title>{{ .Title }}</title></head>"
    '<body><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>'
    "{{ end }}</ul></body></html>\n"
)
HUGO_INDEX = (
    "<!doctype html><html lang=es><head><meta charset=utf-8><title>index</title></head><body>"
    '{{ range .Site.RegularPages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>'
    "{{ end }}</body></html>\n"
)


def hugo_site(folder: Path, pages: list[Page]) -> Path:
    """A Hugo site with the same Markdown bodies, one section per page type."""
    (folder / "layouts" / "_default").mkdir(parents=True)
    (folder / "config.toml").write_text(HUGO_CONFIG)
    (folder / "layouts" / "_default" / "single.html").write_text(HUGO_SINGLE)
    (folder / "layouts" / "_default" / "list.html").write_text(HUGO_LIST)
    (folder / "layouts" / "index.html").write_text(HUGO_INDEX)
    for page in pages:
        section = folder / "content" / page.type
        section.mkdir(parents=True, exist_ok=True)
        title = page.title.replace("\\", "\\\\").replace('"', '\\"')
        tags = ", ".join(f'"{t}"' for t in page.tags)
        front = f'---\ntitle: "{title}"\ntags: [{tags}]\n---\n'
        (section / f"{page.slug}.md").write_text(front + page.content, encoding="utf-8")
    return folder


def time_hugo(folder: Path, repeat: int, *, in_memory: bool = False) -> float:
    """Best wall time of ``hugo`` building ``folder`` (to disk, or rendered to memory)."""
    best = float("inf")
    for _ in range(repeat):
        shutil.rmtree(folder / "public", ignore_errors=True)
        command = [
            "hugo",
            "--quiet",
            "--source",
            str(folder),
            "--destination",
            str(folder / "public"),
        ]
        if in_memory:
            command.append("--renderToMemory")
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - started)
    return best


# -- runs -----------------------------------------------------------------------------


@dataclasses.dataclass
class Row:
    name: str
    pages: int  # pages on the site
    seconds: float  # wall time of the whole run
    built: int | None = None  # pages rendered (None: not reported)
    phases: dict[str, float] = dataclasses.field(default_factory=dict)  # ms
    reads: int | None = None  # page records read from the store

    def phase(self, name: str) -> str:
        return f"{self.phases[name] / 1000:.2f}" if name in self.phases else "—"


def build(settings: Settings, full: bool = False) -> BuildReport:
    """``build_site`` wired as the ``rebuild`` function wires it."""
    w = wiring(settings)
    return build_site(
        settings,
        full,
        store=w.store,
        publisher=w.publisher(),
        curator_report=w.curator_report(),
    )


def full_build(settings: Settings, repeat: int) -> tuple[float, BuildReport]:
    """The best of ``repeat`` full builds: its wall time and its own report (phases)."""
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        report = build(settings, full=True)
        runs.append((time.perf_counter() - started, report))
        assert report.status == "ok", report.response().body()
    return min(runs, key=lambda run: run[0])


@contextmanager
def counting_reads(settings: Settings) -> Iterator[list[int]]:
    """Count the page records the store returns (``PageStore.list`` and ``get``)."""
    pages = type(open_store(settings).pages)
    real_list, real_get = pages.list, pages.get
    count = [0]

    def counted_list(self: Any, **kwargs: Any) -> Any:
        out = real_list(self, **kwargs)
        count[0] += len(out)
        return out

    def counted_get(self: Any, slug: str) -> Any:
        out = real_get(self, slug)
        count[0] += out is not None
        return out

    pages.list, pages.get = counted_list, counted_get  # type: ignore[method-assign]
    try:
        yield count
    finally:
        pages.list, pages.get = real_list, real_get  # type: ignore[method-assign]


def incremental(
    settings: Settings, slug: str, *, title: str | None = None
) -> tuple[float, Any, int]:
    edit_one(settings, slug, title=title)
    with counting_reads(settings) as reads:
        started = time.perf_counter()
        report = build(settings)
        elapsed = time.perf_counter() - started
    assert report.status == "ok", report.response().body()
    assert not report.full
    return elapsed, report, reads[0]


def cli_full_build(settings: Settings, repeat: int) -> float:
    """Best wall time of the ``biblioteca rebuild --full`` command (start-up included)."""
    env = {**os.environ, "BIBLIOTECA_DATA_DIR": str(settings.data_dir)}
    command = [str(Path(sys.executable).with_name("biblioteca")), "rebuild", "--full"]
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        best = min(best, time.perf_counter() - started)
    return best


def interpreter_start(repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        best = min(best, time.perf_counter() - started)
    return best


def run_set(label: str, pages: list[Page], work: Path, repeat: int, hugo: bool) -> list[Row]:
    rows: list[Row] = []
    settings = settings_for(work / label)
    started = time.perf_counter()
    fill_store(settings, pages)
    took = time.perf_counter() - started
    print(f"[{label}] {len(pages)} pages written to the store in {took:.1f} s")
    n = len(pages)
    seconds, report = full_build(settings, repeat)
    rows.append(Row(f"{label}: biblioteca, full", n, seconds, report.built, report.timings_ms))
    if label == "corpus":
        rows.append(
            Row(f"{label}: `biblioteca rebuild --full`", n, cli_full_build(settings, repeat), n)
        )
        rows.append(Row(f"{label}: python start-up alone", n, interpreter_start(repeat), 0))
    # Incremental runs settle (a first one after a full build has no spare generation to
    # recycle, nor a manifest read time older than the margin), then are measured:
    # one body edit of a page that links to others, then a title edit of a hub page.
    for warm in range(3):
        incremental(settings, pages[n // 3 + warm].slug)
    seconds, report, reads = incremental(settings, pages[n // 2].slug)
    rows.append(
        Row(f"{label}: biblioteca, 1 body edit", n, seconds, report.built, report.timings_ms, reads)
    )
    seconds, report, reads = incremental(settings, pages[0].slug, title="Título cambiado")
    rows.append(
        Row(
            f"{label}: biblioteca, 1 title edit", n, seconds, report.built, report.timings_ms, reads
        )
    )
    if hugo:
        folder = hugo_site(work / f"{label}-hugo", pages)
        rows.append(Row(f"{label}: hugo, full", n, time_hugo(folder, repeat), n))
        memory = time_hugo(folder, repeat, in_memory=True)
        rows.append(Row(f"{label}: hugo, full, --renderToMemory", n, memory, n))
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| run | pages | rendered | reads | wall s | pages/s | load s | render s | publish s "
        "| cleanup s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        rate = f"{row.pages / row.seconds:,.0f}" if row.built == row.pages else "—"
        lines.append(
            f"| {row.name} | {row.pages} | {row.built if row.built is not None else '—'} "
            f"| {row.reads if row.reads is not None else '—'} | {row.seconds:.2f} | {rate} "
            f"| {row.phase('load')} | {row.phase('render')} | {row.phase('publish')} "
            f"| {row.phase('cleanup')} |"
        )
    return "\n".join(lines)


def ratios(rows: list[Row], label: str) -> list[str]:
    by_name = {
        row.name.removeprefix(f"{label}: "): row for row in rows if row.name.startswith(label)
    }
    ours, edit = by_name.get("biblioteca, full"), by_name.get("biblioteca, 1 body edit")
    disk, memory = by_name.get("hugo, full"), by_name.get("hugo, full, --renderToMemory")
    out = []
    if ours and disk and memory:
        render = ours.phases["render"] / 1000
        out.append(
            f"{label}: full build, biblioteca/hugo wall time: {ours.seconds / disk.seconds:.2f}; "
            f"biblioteca render phase / hugo in memory: {render / memory.seconds:.2f}"
        )
    if ours and edit:
        out.append(
            f"{label}: one edit rebuilds in {edit.seconds:.2f} s "
            f"({edit.phases['render'] / 1000:.3f} s rendering); full build / incremental: "
            f"{ours.seconds / edit.seconds:.1f}"
        )
    if edit and disk:
        touched = edit.built or 0
        out.append(
            f"{label}: hugo full build / incremental after one body edit: "
            f"{disk.seconds / edit.seconds:.1f} (target >= 10); store reads {edit.reads} "
            f"for {touched} pages touched (target <= {10 + touched})"
        )
    command, python = (
        by_name.get("`biblioteca rebuild --full`"),
        by_name.get("python start-up alone"),
    )
    if command and disk:
        out.append(
            f"{label}: `biblioteca rebuild --full` / hugo wall time: "
            f"{command.seconds / disk.seconds:.2f} "
            f"(python start-up alone: {python.seconds if python else 0:.2f} s)"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000, help="size of the synthetic wiki")
    parser.add_argument("--repeat", type=int, default=1, help="full builds per set (best kept)")
    parser.add_argument("--no-hugo", action="store_true", help="skip the Hugo baseline")
    args = parser.parse_args(argv)
    for name in list(os.environ):
        if name.startswith("BIBLIOTECA_"):
            del os.environ[name]
    hugo = not args.no_hugo
    if hugo and shutil.which("hugo") is None:
        print("note: hugo is not installed (apt-get install -y hugo); the Hugo rows are skipped")
        hugo = False
    if hugo:
        version = subprocess.run(["hugo", "version"], capture_output=True, text=True).stdout
        print(f"baseline: {version.strip()}")
    print(f"cpus: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    work = Path(tempfile.mkdtemp(prefix="bench-site-"))
    rows: list[Row] = []
    labels = []
    try:
        if CORPUS.is_dir():
            labels.append("corpus")
            rows += run_set("corpus", corpus_pages(), work, max(args.repeat, 3), hugo)
        else:
            print(f"note: the corpus is not at {CORPUS}: skipped")
        label = f"synthetic-{args.pages}"
        labels.append(label)
        rows += run_set(label, synthetic_pages(args.pages), work, args.repeat, hugo)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(table(rows))
    print()
    for label in labels:
        for line in ratios(rows, label):
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
