"""The pages one build publishes, as it learns them: read this run, taken unread from the
manifest, parsed, or left out because they could not be parsed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from shared.schema import Page
from shared.services.site_build.bodies import render_bodies
from shared.services.site_build.merged import merged_targets
from shared.services.site_build.reading import Reading
from shared.services.site_build.report import PageFailure
from shared.site.manifest import UNRENDERED, Held, PageState, page_hash
from shared.site.markdown import Body


@dataclass
class Live:
    """``published`` pages were read this run, ``kept`` ones were not (unchanged since the
    manifest); ``hashes`` holds every one's content hash."""

    published: dict[str, Page]
    kept: set[str]
    hashes: dict[str, str]
    bodies: dict[str, Body] = field(default_factory=dict)
    failed: dict[str, PageFailure] = field(default_factory=dict)  # left out: not parsed
    merged: dict[str, str] = field(default_factory=dict)  # merged slug -> page it leads to

    @classmethod
    def of(cls, pages: Reading, before: Mapping[str, PageState]) -> Live:
        published = dict(pages.sorted.published)
        # Published pages this run did not read: unchanged since the manifest.
        kept = set() if pages.everything else set(before) - pages.read
        hashes = {slug: page_hash(page) for slug, page in published.items()}
        hashes.update((slug, before[slug].hash) for slug in kept)
        merged = merged_targets(pages.sorted.held, published.keys() | kept)
        return cls(published, kept, hashes, merged=merged)

    @property
    def slugs(self) -> set[str]:
        return self.published.keys() | self.kept

    def live_hashes(self) -> dict[str, str]:
        return {slug: self.hashes[slug] for slug in self.slugs}

    def parse(self, slugs: Collection[str]) -> bool:
        """Parse the bodies of ``slugs`` not parsed yet; whether every one could be. One
        that could not leaves the site, like a page failing the schema."""
        todo = [slug for slug in slugs if slug not in self.bodies]
        batch = render_bodies({slug: self.published[slug].content for slug in todo})
        self.bodies.update(batch.bodies)
        for slug, failure in batch.failed.items():
            self.published.pop(slug, None)
            self.failed[slug] = failure
        return not batch.failed

    def take(self, pages: Mapping[str, Page]) -> None:
        """Unchanged pages read after all (they are rendered again)."""
        self.published.update(pages)
        self.kept.difference_update(pages)

    def held(self) -> dict[str, Held]:
        """The pages left out, as the manifest remembers them (tried again next build)."""
        return {slug: Held(UNRENDERED, f.to_json()) for slug, f in self.failed.items()}
