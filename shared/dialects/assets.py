"""The files an imported page links that are no page: images, downloads, diagrams.

A Markdown image (``![alt](x.png)``), an ``<img src>``, a link or a reference definition
to a file that is not a page is looked for relative to the page, or, written
site-absolutely (``/images/x.png``), under each ``--assets`` folder and the docs tree
itself, with or without the tree's locale prefix.
Only files inside the tree or an ``--assets`` folder are looked at (a relative link that
leaves the tree, a dotfile, a link out of those folders: left as written, never read).
A file found is *taken*: its bytes go to the store (``SiteState.put_assets``) so the
deployed ``rebuild`` can publish them, and the reference is rewritten to the address the
site publishes it at, ``_assets/<content hash>/<file name>`` (the same bytes, the same
address: a rebuild publishes only assets that changed). A file not found, or past the
limits below, is left as written, and the built site's crawl reports it (``asset``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

from shared.dialects import bounds
from shared.dialects.links import PAGE_SUFFIXES
from shared.text.safe_assets import safe_asset

ASSET_DIR = "_assets"  # where the site publishes them (no slug starts with "_")
MAX_ASSET_BYTES = 900 * 1024  # one file: under a Firestore document with its fields
MAX_IMPORT_ASSET_BYTES = 64 * 1024 * 1024  # every file one import takes
# From a page at ``<slug>/index.html`` (or ``<slug>/index.md``) the site root is one up.
_FROM_PAGE = "../"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_IMAGE = re.compile(
    r"(?P<head>!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\()(?P<url><[^<>\n]*>|[^()\s]+)"
    r"(?P<tail>(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\))"
)
_IMG_TAG = re.compile(r"<img\b[^<>]*>", re.I)
_ATTR = re.compile(r"""\b(src|alt|title)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_DEFINITION = re.compile(
    r"^(?P<head>[ ]{0,3}\[[^\]\n]+\]:[ \t]*)(?P<url><[^<>\n]*>|\S+)(?P<tail>.*)$"
)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


@dataclass(frozen=True, slots=True)
class Asset:
    """One file taken: where the site publishes it, its content hash and its bytes."""

    path: str  # ``_assets/<hash>/<name>``
    hash: str
    data: bytes


def asset_path(data: bytes, name: str) -> tuple[str, str]:
    """(published path, hash) of a file's bytes under its file name."""
    digest = hashlib.sha256(data).hexdigest()[:20]
    clean = re.sub(r"[^\w.-]+", "-", name).strip("-.") or "file"
    return f"{ASSET_DIR}/{digest}/{clean}", digest


@dataclass
class Assets:
    """The files one import's pages link, found and taken (see the module docstring)."""

    root: Path  # the docs tree (DIR)
    folders: Sequence[Path] = ()  # --assets folders, for site-absolute references
    locale: str = ""  # the tree's locale prefix of site-absolute references, if any
    taken: dict[str, Asset] = field(default_factory=dict)  # by published path
    refused: list[str] = field(default_factory=list)  # what the limits kept out, and why
    _by_source: dict[Path, Asset | None] = field(default_factory=dict)
    _total: int = 0

    def rewrite(self, line: str, page: str) -> str:
        """``line`` (outside code) with each reference to a file found as its address."""
        if "](" not in line and "<img" not in line.lower() and "]:" not in line:
            return line
        spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)]

        def in_code(start: int) -> bool:
            return any(a <= start < b for a, b in spans)

        def image(match: re.Match[str]) -> str:
            if in_code(match.start()):
                return match.group(0)
            address = self.address(match.group("url").strip("<>"), page)
            if address is None:
                return match.group(0)
            return f"{match.group('head')}{address}{match.group('tail')}"

        def tag(match: re.Match[str]) -> str:
            if in_code(match.start()):
                return match.group(0)
            attrs = {
                m.group(1).lower(): m.group(2) or m.group(3) or ""
                for m in _ATTR.finditer(match.group(0))
            }
            address = self.address(attrs.get("src", ""), page)
            if address is None:
                return match.group(0)
            alt = attrs.get("alt", "").replace("[", "").replace("]", "")
            return f"![{alt}]({address})"  # an image the site's Markdown renders

        line = _IMAGE.sub(image, line)
        line = _IMG_TAG.sub(tag, line)
        definition = _DEFINITION.match(line)
        if definition:
            address = self.address(definition.group("url").strip("<>"), page)
            if address is not None:
                line = f"{definition.group('head')}{address}{definition.group('tail')}"
        return line

    def address(self, url: str, page: str) -> str | None:
        """The published address of the file ``url`` names from ``page``, or None."""
        source = self.find(url, page)
        if source is None:
            return None
        asset = self._take(source)
        if asset is None:
            return None
        fragment = url.partition("#")[2]
        return _FROM_PAGE + quote(asset.path) + (f"#{fragment}" if fragment else "")

    def find(self, url: str, page: str) -> Path | None:
        """The file ``url`` (on the file ``page`` of the tree) names, when it is one that
        is no page: relative to the page, or site-absolute under the asset folders."""
        url = url.strip().strip("<>")
        if not url or url.startswith(("#", "//")) or _SCHEME.match(url):
            return None
        path = unquote(url.partition("#")[0].partition("?")[0])
        if not path or path.endswith("/") or PurePosixPath(path).suffix.lower() in PAGE_SUFFIXES:
            return None
        if not PurePosixPath(path).suffix:
            return None  # a route, not a file
        if path.startswith("/"):
            relative = path.lstrip("/")
            candidates = [folder / relative for folder in [*self.folders, self.root]]
            first, _, rest = relative.partition("/")
            if self.locale and first.lower() == self.locale.lower() and rest:
                candidates += [folder / rest for folder in [*self.folders, self.root]]
        else:
            candidates = [self.root / PurePosixPath(page).parent / path]
        # Only what the tree and the --assets folders hold, never a dotfile, never through
        # a link that leads elsewhere: ``../../.env`` or ``img.png -> /etc/passwd`` is not
        # published (``shared.dialects.bounds``).
        for candidate in candidates:
            found = bounds.inside(candidate, [*self.folders, self.root])
            if found is not None:
                return found
        return None

    def _take(self, source: Path) -> Asset | None:
        if source in self._by_source:
            return self._by_source[source]
        asset: Asset | None = None
        try:
            size = source.stat().st_size
            if size > MAX_ASSET_BYTES:
                self.refused.append(f"{source.name}: larger than {MAX_ASSET_BYTES // 1024} KiB")
            elif self._total + size > MAX_IMPORT_ASSET_BYTES:
                self.refused.append(
                    f"{source.name}: past {MAX_IMPORT_ASSET_BYTES // (1024 * 1024)} MiB of assets"
                )
            else:
                safe = safe_asset(source.name, source.read_bytes())
                if safe is None:
                    self.refused.append(
                        f"{source.name}: an SVG that cannot be read safely "
                        "(not well-formed XML, compressed, or declaring entities)"
                    )
                    self._by_source[source] = None
                    return None
                data = safe
                path, digest = asset_path(data, source.name)
                asset = Asset(path, digest, data)
                if path not in self.taken:
                    self._total += len(data)
                    self.taken[path] = asset
        except OSError as exc:
            self.refused.append(f"{source.name}: cannot read: {exc}")
        self._by_source[source] = asset
        return asset
