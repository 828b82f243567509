"""The site's full-text search beside Pagefind, on the same built sites, in a real chromium.

For each corpus (fastapi-es, textual-en, astro-es) and for a 10,000-page wiki synthesised
from fastapi-es (each page a copy of a corpus page with its own title and a section of
its own words, as ``bench/scale.py`` does), the site is built once with the deterministic
``HashingEmbedder``; then:

- **index time**: ours, the passages, counted forms, shards and page files from the
  rendered bodies (what ``rebuild`` adds to a build; the Markdown is parsed anyway);
  Pagefind, the ``pagefind`` binary of the ``pagefind[bin]`` wheel over a plain copy of
  the site (it does not follow the page folders' links), on ``main`` without the
  breadcrumbs, metadata, pager and related links (our index leaves them out too);
- **first query bytes**: a fresh browser context per query types it (ours: the box of
  ``index.html``; Pagefind: its own ``pagefind.js`` API in a page of the site, then the
  ``data()`` of its first five results, what its UI shows) and the bytes of every
  search file it fetched are summed (raw; gzip of the same files beside);
- **right passage**: ``bench/search_queries.json``, ten queries per corpus written from
  the pages' content: the page in the first five results, and the passage the result
  opens (ours: the result's link; Pagefind: any of the three sub-results its UI shows
  for that page, those with most matches) among the headings that answer.

Our index runs with the cyclic garbage collector paused, as it does inside a build
(``shared.services.site_build.run``); ``--index-only`` measures the two index times alone
(no browser, no queries), for the 10,000-page row that takes minutes.

    .venv/bin/python bench/search.py [--pages 10000] [--corpora fastapi-es,textual-en]
    .venv/bin/python bench/search.py --index-only --pages 10000 --corpora fastapi-es
"""

from __future__ import annotations

import argparse
import functools
import gc
import gzip
import json
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.site import search  # noqa: E402
from shared.site.markdown import render_body  # noqa: E402

QUERIES = json.loads((Path(__file__).parent / "search_queries.json").read_text("utf-8"))
CHROMIUM = "/usr/bin/chromium"
# What our index leaves out of a page, left out of Pagefind's too (it indexes `main`).
PAGEFIND_EXCLUDE = "nav.crumbs, p.meta, p.page-md, nav.pager, aside.links, p.tags"
TOP = 5


# -- the sites ----------------------------------------------------------------------------


def build_folder(docs: Path, work: Path, default_type: str | None = None) -> tuple[Any, Path]:
    """Import ``docs`` into a fresh SQLite store and build the whole site."""
    from shared.config import Settings
    from shared.publish.local import LocalPublisher
    from shared.publish.report import CuratorReport
    from shared.services.importer import import_directory
    from shared.services.site_build import build_site
    from shared.store.sqlite import SqliteStore
    from tests.fixtures.embedder import HashingEmbedder

    settings = Settings(data_dir=work / "data", site_dir=str(work / "site"))
    store = SqliteStore(work / "data")
    import_directory(docs, store, HashingEmbedder(), default_type=default_type)
    report = build_site(
        settings,
        True,
        store=store,
        publisher=LocalPublisher(str(work / "site")),
        curator_report=CuratorReport(str(work / "report"), str(work / "site")),
    )
    assert report.status == "ok", report.response().body()
    return store, work / "site"


def corpus_docs(name: str, work: Path) -> tuple[Path, str | None]:
    """The corpus's Markdown folder (astro-es's .mdx copied as .md: this branch does not
    import .mdx; its components and imports stay as text, which both indexes see)."""
    from tests.fixtures.corpora import CORPUS_SPECS

    spec = CORPUS_SPECS[name]
    if name != "astro-es":
        return spec.docs_dir, spec.default_type
    copy = work / "astro-docs"
    for path in spec.docs_dir.rglob("*.mdx"):
        target = copy / path.relative_to(spec.docs_dir).with_suffix(".md")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text("utf-8"), "utf-8")
    return copy, "guide"


def synthetic_docs(count: int, work: Path) -> Path:
    """``count`` Markdown files: copies of the fastapi-es pages, each with its own title
    and a section of its own words (the search must tell 82 copies apart)."""
    from tests.fixtures.corpora import CORPUS_SPECS

    base = sorted(CORPUS_SPECS["fastapi-es"].docs_dir.rglob("*.md"))
    texts = [p.read_text("utf-8") for p in base]
    words = sorted({w for t in texts[:20] for w in search.words(t) if len(w) > 5})
    folder = work / "synthetic"
    for i in range(count):
        rng = random.Random(i)
        text = texts[i % len(texts)]
        title = f"{base[i % len(base)].stem.replace('-', ' ').capitalize()} {i}"
        extra = " ".join(rng.sample(words, 12))
        body = f"---\ntitle: {title}\ntype: guide\n---\n\n{text}\n\n## Variante {i}\n\n{extra}.\n"
        path = folder / f"s{i // 500:02d}" / f"p{i:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, "utf-8")
    return folder


def our_index_seconds(store: Any) -> float:
    """Our search work of a full build: passages, counted forms, page files, shards."""
    from shared.services.site_build.sorting import sort_records
    from shared.site.entries import entry_of

    published = sort_records(store.pages.list()).published
    bodies = {slug: render_body(page.content, slug) for slug, page in published.items()}
    entries = [entry_of(page) for page in published.values()]
    was_enabled = gc.isenabled()
    gc.disable()  # as builds do (site_build.run._collector_paused)
    try:
        started = time.perf_counter()
        terms = {}
        for slug, body in bodies.items():
            found = search.passages(body.html)
            terms[slug] = search.page_terms(found)
            search.page_script(slug, published[slug].title, found)
        index = search.build(entries, terms)
        for key, shard in index.shards.items():
            search.shard_script(key, shard)
        return time.perf_counter() - started
    finally:
        if was_enabled:
            gc.enable()


def pagefind(site: Path, work: Path) -> tuple[Path, float]:
    """A plain copy of the site with Pagefind's index in ``pagefind/``; its seconds."""
    plain = work / "plain"
    shutil.rmtree(plain, ignore_errors=True)
    shutil.copytree(site.resolve(), plain, symlinks=False)
    started = time.perf_counter()
    command = [sys.executable, "-m", "pagefind", "--site", str(plain), "--root-selector"]
    command += ["main", "--exclude-selectors", PAGEFIND_EXCLUDE, "--glob", "*/index.html"]
    subprocess.run([*command, "-k", "--quiet"], check=True)
    seconds = time.perf_counter() - started
    (plain / "pagefind-bench.html").write_text(
        "<!doctype html><html><head><meta charset=utf-8></head><body>"
        "<script type=module>window.pf = await import('./pagefind/pagefind.js');"
        "await window.pf.init(); window.ready = true;</script></body></html>",
        "utf-8",
    )
    return plain, seconds


# -- in the browser ---------------------------------------------------------------------------


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def served(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _fetched(page: Any, is_search: Any) -> list[str]:
    urls: list[str] = []

    def finished(request: Any) -> None:
        if is_search(request.url):
            urls.append(request.url)

    page.on("requestfinished", finished)
    return urls


def _bytes(folder: Path, base: str, urls: Sequence[str]) -> tuple[int, int]:
    raw = zipped = 0
    for url in dict.fromkeys(urls):
        data = (folder / unquote(urlparse(url).path.removeprefix("/"))).read_bytes()
        raw += len(data)
        zipped += len(gzip.compress(data, 6))
    return raw, zipped


def ours(browser: Any, folder: Path, base: str, query: str) -> tuple[list[str], int, int]:
    """Our box on a fresh page: result links (site-relative) and the bytes it fetched."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(base + "index.html")
    urls = _fetched(page, lambda u: "/search/" in u or u.endswith("/search.js"))
    page.locator("#search").fill(query)
    page.locator("#search-results li").first.wait_for()
    page.wait_for_load_state("networkidle")
    hrefs = page.locator("#search-results li[role=option] a").evaluate_all(
        "as => as.map(a => a.getAttribute('href'))"
    )
    context.close()
    return list(hrefs), *_bytes(folder, base, urls)


def theirs(browser: Any, folder: Path, base: str, query: str) -> tuple[list[Any], int, int]:
    """Pagefind's API on a fresh page: [url, [sub-result urls]] of its first results."""
    context = browser.new_context()
    page = context.new_page()
    urls = _fetched(page, lambda u: "/pagefind/" in u)
    page.goto(base + "pagefind-bench.html")
    page.wait_for_function("window.ready === true")
    found = page.evaluate(
        """async ([q, n]) => {
          const r = await window.pf.search(q);
          const top = await Promise.all(r.results.slice(0, n).map(x => x.data()));
          // Its UI's three sub-results: those with most of the words, as pagefind-ui sorts them.
          const best = (d) => d.sub_results.slice()
            .sort((a, b) => b.locations.length - a.locations.length).slice(0, 3);
          return top.map(d => [d.url, best(d).map(s => s.url)]);
        }""",
        [query, TOP],
    )
    page.wait_for_load_state("networkidle")
    context.close()
    return list(found), *_bytes(folder, base, urls)


def judge_ours(hrefs: Sequence[str], want: dict[str, Any]) -> tuple[bool, bool]:
    target = f"{quote(want['page'], safe='')}/index.html"
    for href in hrefs[:TOP]:
        path, _, anchor = href.partition("#")
        if path == target:
            passages = want["passages"]
            return True, passages is None or unquote(anchor) in passages
    return False, False


def judge_theirs(found: Sequence[Any], want: dict[str, Any]) -> tuple[bool, bool]:
    target = f"/{quote(want['page'], safe='')}/index.html"
    for url, subs in found[:TOP]:
        if unquote(url.split("#")[0]) == unquote(target):
            passages = want["passages"]
            anchors = {unquote(s.partition("#")[2]) for s in subs}
            return True, passages is None or bool(anchors & set(passages))
    return False, False


# -- the run ----------------------------------------------------------------------------


def measure(
    label: str, name: str | None, work: Path, pages: int | None, browser: Any
) -> dict[str, Any]:
    if name is None:
        docs, default_type = synthetic_docs(pages or 10_000, work), None
    else:
        docs, default_type = corpus_docs(name, work)
    started = time.perf_counter()
    store, site = build_folder(docs, work, default_type)
    built = time.perf_counter() - started
    count = len(list(site.glob("*/search.js")))
    our_seconds = our_index_seconds(store)
    plain, their_seconds = pagefind(site, work)
    queries = QUERIES[name] if name else [{"query": q} for q in SYNTHETIC_QUERIES]
    row: dict[str, Any] = {
        "label": label,
        "pages": count,
        "build_s": built,
        "ours_index_s": our_seconds,
        "pagefind_index_s": their_seconds,
        "ours_bytes": [],
        "pagefind_bytes": [],
        "ours_ok": [0, 0],
        "pagefind_ok": [0, 0],
        "misses": [],
    }
    if browser is None:  # --index-only
        return row
    with served(plain) as base:
        for want in queries:
            hrefs, raw, zipped = ours(browser, plain, base, want["query"])
            found, their_raw, their_zipped = theirs(browser, plain, base, want["query"])
            row["ours_bytes"].append((raw, zipped))
            row["pagefind_bytes"].append((their_raw, their_zipped))
            if "page" in want:
                mine, other = judge_ours(hrefs, want), judge_theirs(found, want)
                for key, (page_ok, passage_ok) in (("ours_ok", mine), ("pagefind_ok", other)):
                    row[key][0] += page_ok
                    row[key][1] += passage_ok
                if not all(mine) or not all(other):
                    row["misses"].append((want["query"], mine, other, hrefs[:3], found[:3]))
    return row


SYNTHETIC_QUERIES = ["subir archivos", "parametros de query", "dependencias", "middleware cors"]


def kb(n: float) -> str:
    return f"{n / 1000:.1f} KB"


def table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| site | pages | index: ours | index: Pagefind | first query: ours (gzip) | "
        "first query: Pagefind (gzip) | right page / passage: ours | Pagefind |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:

        def median(pairs: list[tuple[int, int]], i: int) -> float:
            values = sorted(p[i] for p in pairs)
            return values[len(values) // 2]

        ok = f"{r['ours_ok'][0]}/10 / {r['ours_ok'][1]}/10" if r["label"] != "synthetic" else "—"
        theirs_ok = (
            f"{r['pagefind_ok'][0]}/10 / {r['pagefind_ok'][1]}/10"
            if r["label"] != "synthetic"
            else "—"
        )
        lines.append(
            f"| {r['label']} | {r['pages']:,} | {r['ours_index_s']:.2f} s | "
            f"{r['pagefind_index_s']:.2f} s | {kb(median(r['ours_bytes'], 0))} "
            f"({kb(median(r['ours_bytes'], 1))}) | {kb(median(r['pagefind_bytes'], 0))} "
            f"({kb(median(r['pagefind_bytes'], 1))}) | {ok} | {theirs_ok} |"
        )
    return "\n".join(lines)


def index_table(rows: Sequence[dict[str, Any]]) -> str:
    """The index times alone, with their ratio (``--index-only``)."""
    lines = ["| site | pages | index: ours | index: Pagefind | ours / Pagefind |"]
    lines.append("|---|---:|---:|---:|---:|")
    for r in rows:
        ratio = r["ours_index_s"] / r["pagefind_index_s"]
        lines.append(
            f"| {r['label']} | {r['pages']:,} | {r['ours_index_s']:.2f} s | "
            f"{r['pagefind_index_s']:.2f} s | {ratio:.2f} |"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace, browser: Any) -> list[dict[str, Any]]:
    """One row per corpus and the synthetic wiki, each built in its own folder."""
    rows = []
    jobs: list[tuple[str, str | None]] = [(n, n) for n in args.corpora.split(",") if n]
    if args.pages:
        jobs.append(("synthetic", None))
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        for label, name in jobs:
            work = Path(tmp) / label
            work.mkdir()
            row = measure(label, name, work, args.pages, browser)
            rows.append(row)
            print(f"{label}: {row['pages']} pages, built in {row['build_s']:.1f} s", flush=True)
            for miss in row["misses"]:
                print("   miss", miss, flush=True)
            shutil.rmtree(work, ignore_errors=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--pages", type=int, default=10_000, help="synthetic wiki (0: none)")
    parser.add_argument("--corpora", default="fastapi-es,textual-en,astro-es")
    parser.add_argument(
        "--index-only", action="store_true", help="only the index times (no browser)"
    )
    args = parser.parse_args(argv)
    if args.index_only:
        rows = run(args, None)
        print()
        print(index_table(rows))
        return 0
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        rows = run(args, browser)
        browser.close()
    print()
    print(table(rows))
    print(index_table(rows))
    print("\nper query bytes (ours raw, Pagefind raw):")
    for r in rows:
        print(
            f"  {r['label']}: "
            + ", ".join(
                f"{kb(a[0])}/{kb(b[0])}"
                for a, b in zip(r["ours_bytes"], r["pagefind_bytes"], strict=True)
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
