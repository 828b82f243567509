"""Parsing pages' Markdown bodies, on every core when there is enough to share, each
within a time budget: a page that cannot be parsed fails alone (``PageFailure``).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from shared.logs import get_logger
from shared.services.site_build.report import PageFailure
from shared.site.markdown import Body, RenderTimeout, render_body

PARALLEL_FROM = 1000  # pages to parse before worker processes pay for their start-up
MAX_WORKERS = 8
# One page's parse may take this long; past it the page fails alone (``failed``, field
# ``content``) instead of holding the whole build past the function's timeout. Ordinary
# pages take milliseconds; a 200 KB page of pathological Markdown about one second.
RENDER_BUDGET_SECONDS = 5.0
_log = get_logger("rebuild")


@dataclass
class Rendered:
    """Bodies parsed, and the pages that could not be."""

    bodies: dict[str, Body] = field(default_factory=dict)
    failed: dict[str, PageFailure] = field(default_factory=dict)


def render_bodies(contents: Mapping[str, str], budget: float | None = None) -> Rendered:
    """Markdown of many pages to HTML, on every core when there is enough to share.

    Parsing is most of a full build's CPU time and each body depends on its own text
    only, so big batches go to a pool of fresh processes (spawned, never forked: the
    caller may be a threaded server holding locks and store connections). A page that
    takes longer than ``budget`` seconds fails alone instead of stalling the build.
    """
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    seconds = RENDER_BUDGET_SECONDS if budget is None else budget
    jobs = [(slug, text, seconds) for slug, text in contents.items()]
    if len(contents) < PARALLEL_FROM or workers < 2:
        results = [_render_one(job) for job in jobs]
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            results = list(pool.map(_render_one, jobs, chunksize=64))
    out = Rendered()
    for slug, result in zip(contents, results, strict=True):
        if isinstance(result, Body):
            out.bodies[slug] = result
        else:
            _log.error("page '%s' left out of the site: %s", slug, result, extra={"slug": slug})
            out.failed[slug] = PageFailure(slug, "content", result)
    return out


def _render_one(job: tuple[str, str, float]) -> Body | str:
    """One page's body, or why it could not be rendered (a module-level function: the
    worker processes import it)."""
    slug, text, budget = job
    try:
        return render_body(text, slug, budget)
    except RenderTimeout:
        return (
            f"the page took longer than {budget:g} s to render; "
            "split it or simplify its Markdown (deep nesting, very long lines)"
        )
    except RecursionError:
        return "the page nests too deeply to render; simplify its structure"
