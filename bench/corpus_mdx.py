"""An MDX docs tree imported and built whole: pages, raw syntax left, constructs, times.

Imports one of the real corpora (default ``astro-es``, the Starlight one) into a fresh
SQLite store with the tests' deterministic embedder (the real embedder's cost is
``bench/latency.py``'s subject, not this one), builds the whole site, and prints the
pages imported and built, how many built pages still show raw syntax
(``tests/fixtures/raw_syntax.py``, over pages, listings and home), the constructs met
by outcome, the nav's sections, and the import, MDX-pass and full rebuild times.
``--without-mdx`` reads the files but skips the MDX pass: the "before" of the raw count.

    .venv/bin/python bench/corpus_mdx.py [--corpus astro-es] [--without-mdx]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.config import Settings
from shared.dialects import mdx
from shared.dialects.constructs import Constructs
from shared.publish.local import LocalPublisher
from shared.publish.report import CuratorReport
from shared.services.importer import import_directory, markdown_files, split_front_matter
from shared.services.site_build import build_site
from shared.store.sqlite import SqliteStore
from tests.fixtures.corpora import CORPUS_SPECS
from tests.fixtures.embedder import HashingEmbedder
from tests.fixtures.raw_syntax import raw_pages


def _sections(items: list[Any]) -> int:
    return sum(1 + _sections(i["items"]) for i in items if "items" in i)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="astro-es", choices=sorted(CORPUS_SPECS))
    parser.add_argument("--without-mdx", action="store_true")
    args = parser.parse_args()
    spec = CORPUS_SPECS[args.corpus]
    if args.without_mdx:

        def unchanged(body: str, constructs: Constructs, **_: Any) -> str:
            return body

        mdx.to_stored = unchanged

    bodies = [split_front_matter(p.read_text("utf-8"))[1] for p in markdown_files(spec.docs_dir)]
    start = time.perf_counter()
    for body in bodies:
        mdx.to_stored(body, Constructs(), mdx=True)
    mdx_seconds = time.perf_counter() - start

    work = Path(tempfile.mkdtemp())
    store = SqliteStore(work / "data")
    start = time.perf_counter()
    report = import_directory(
        spec.docs_dir,
        store,
        HashingEmbedder(),
        default_type=spec.default_type,
        repo=spec.root / spec.repo if spec.repo else None,
        assets=[spec.root / folder for folder in spec.assets],
    )
    imported = time.perf_counter()
    settings = Settings(
        data_dir=work / "data", site_dir=str(work / "site"), report_dir=str(work / "report")
    )
    build_site(
        settings,
        True,
        store=store,
        publisher=LocalPublisher(str(work / "site")),
        curator_report=CuratorReport(str(work / "report"), str(work / "site")),
    )
    built = time.perf_counter()
    pages = sorted((work / "site").resolve().glob("*/index.html"))
    constructs = report.constructs.as_dict()
    raw = raw_pages(work / "site")
    nav = store.site.load_nav()
    print(
        json.dumps(
            {
                "corpus": args.corpus,
                "files": len(bodies),
                "imported": report.created,
                "failed": len(report.failed),
                "built": len(pages),
                "raw_pages": len(raw),
                # Which pages, and the first thing each shows: what to fix next.
                "raw": {page: str(found[0]) for page, found in sorted(raw.items())[:10]},
                "construct_kinds": len(constructs),
                "constructs": {
                    o: sum(v[o] for v in constructs.values())
                    for o in ("rendered", "mapped", "dropped")
                },
                "sections": _sections(nav["items"]) if nav else 0,
                "mdx_pass_s": round(mdx_seconds, 2),
                "import_s": round(imported - start, 2),
                "full_rebuild_s": round(built - imported, 2),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
