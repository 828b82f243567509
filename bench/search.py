"""Search payload at 10,000 pages: what the site's search box downloads on a first search.

Builds the search shards (``shared/site/search.py``) for two wikis of 10,000 pages and
prints, beside the baseline of one whole index file (``search-index.json``, what a
naive client would load) measured in the same run:

- the synthetic wiki of ``bench/site.py`` (``Tema 00001: …`` titles, two headings);
- the FastAPI corpus repeated to 10,000 pages (same titles and headings again and
  again: the worst case for shards by prefix, every shard grows with the copies).

For each: the number of shards, the biggest shard, the shard of a few Spanish queries
(raw and gzip bytes), and ``nav.js`` (the sidebar's tree, loaded on every page).

    .venv/bin/python bench/search.py [--pages 10000]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.site import renderer, search  # noqa: E402
from shared.site.entries import Entry, SiteView  # noqa: E402
from shared.slugs import slugify  # noqa: E402

# bench/site.py's wikis ("site" is also a standard module: load it by path)
_spec = importlib.util.spec_from_file_location("bench_site", ROOT / "bench" / "site.py")
assert _spec is not None
assert _spec.loader is not None
bench_site = importlib.util.module_from_spec(_spec)
sys.modules["bench_site"] = bench_site
_spec.loader.exec_module(bench_site)

QUERIES = ("parametros de query", "seguridad oauth2", "despliegue docker", "tema", "configuracion")
_HEADING = re.compile(r"^#{2,3}[ \t]+(.+?)[ \t]*(?:\{[ \t]*#([^}\s]+)[^}]*\})?[ \t]*$", re.M)


def headings_of(content: str) -> tuple[search.Heading, ...]:
    found = [(m.group(2) or slugify(m.group(1)), m.group(1)) for m in _HEADING.finditer(content)]
    return search.clip(found)


def wiki(pages: Sequence[object]) -> tuple[SiteView, dict[str, tuple[search.Heading, ...]]]:
    entries = {}
    headings = {}
    for page in pages:
        slug, title, content = page.slug, page.title, page.content  # type: ignore[attr-defined]
        entries[slug] = Entry(slug, title, "guide", (), None, "2026-01-01", "es", "x" * 200)
        headings[slug] = headings_of(content)
    return SiteView(entries, {s: [] for s in entries}), headings


def repeated_corpus(count: int) -> list[object]:
    base = bench_site.corpus_pages()
    out = []
    for i in range(count):
        page = base[i % len(base)]
        out.append(type(page)(f"{page.slug}-{i}", page.title, "guide", page.content, [], []))
    return out


def kb(n: int) -> str:
    return f"{n / 1000:,.1f} KB"


def report(label: str, site: SiteView, headings: dict[str, tuple[search.Heading, ...]]) -> None:
    started = time.perf_counter()
    files, split = renderer.render_search_shards(site, headings)
    seconds = time.perf_counter() - started
    sizes = {path: len(text.encode()) for path, text in files.items()}
    gz = {path: len(gzip.compress(text.encode())) for path, text in files.items()}
    whole = renderer.render_search_index(site).encode()
    nav_js = renderer.render_nav_script(site, split).encode()
    biggest = max(sizes, key=sizes.__getitem__)
    print(f"\n{label}: {len(site.entries)} pages, shards built in {seconds:.2f} s")
    print(
        f"  baseline search-index.json   {kb(len(whole)):>10}  gzip {kb(len(gzip.compress(whole)))}"
    )
    print(f"  shards {len(files)}, split prefixes {len(split)}, total {kb(sum(sizes.values()))}")
    print(
        f"  biggest shard {biggest:<22} {kb(sizes[biggest]):>10}  gzip {kb(gz[biggest])}"
        f"  ({len(whole) / sizes[biggest]:.0f}x smaller than the baseline)"
    )
    for query in QUERIES:
        terms = search.words(query)
        longest = max(terms, key=len)
        key = longest[:3]
        while key in split and len(key) < len(longest):
            key = longest[: len(key) + 1]
        path = search.shard_path(key)
        size = sizes.get(path, 0)
        print(f"  first search {query!r:24} {path:<20} {kb(size):>10}  gzip {kb(gz.get(path, 0))}")
    nav_gz = kb(len(gzip.compress(nav_js)))
    print(f"  nav.js (every page, cached)  {kb(len(nav_js)):>10}  gzip {nav_gz}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000)
    args = parser.parse_args(argv)
    print(f"search shard limit: {kb(search.MAX_SHARD_BYTES)} (shared/site/search.py)")
    report("synthetic wiki (bench/site.py)", *wiki(bench_site.synthetic_pages(args.pages)))
    report("FastAPI corpus repeated", *wiki(repeated_corpus(args.pages)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
