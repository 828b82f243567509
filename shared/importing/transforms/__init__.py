"""Every named transform, by the name the dialect table orders them with.

One module per construct family; ``ported`` holds the earlier passes under their names.
"""

from __future__ import annotations

from shared.importing.pipeline import Transform
from shared.importing.transforms import (
    alerts,
    containers,
    fence_meta,
    includes,
    live_fences,
    math,
    ported,
)

REGISTRY: dict[str, Transform] = {
    t.name: t
    for t in (
        Transform("live-fences", live_fences.run),
        Transform("includes", includes.run),
        Transform("snippets", ported.snippets),
        Transform("comments", ported.comments),
        Transform("block-count", ported.block_count),
        Transform("containers", containers.run),
        Transform("alerts", alerts.run),
        Transform("math", math.run),
        Transform("components", ported.components),
        Transform("termy", ported.termy),
        Transform("mkdocs-blocks", ported.mkdocs_blocks),
        Transform("fence-meta", fence_meta.run),
        Transform("dialect-lines", ported.dialect_lines),
        Transform("html", ported.html),
        Transform("inline", ported.inline),
    )
}
