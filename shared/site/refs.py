"""What the built HTML links to and which ids it holds: the truth ``broken_links`` reports.

Each built HTML file is scanned once, when it is written, for the internal addresses of
its tags (``href``, ``src``) and the ``id`` of every element; an incremental build keeps
the scan of the pages it did not write (the manifest holds it). ``broken`` then checks
every address against the files the site publishes and every ``#anchor`` against the
ids of its target, so the report is what a crawler of the published folder finds:
a page removed breaks the links into it, an anchor removed breaks the links to it,
a missing image is an ``asset``.

The scan reads only tags the renderer itself wrote: in its output a ``<`` inside text
or code is always escaped, so a tag pattern cannot match page text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from html import unescape
from posixpath import normpath
from typing import Literal
from urllib.parse import unquote, urlsplit

from shared.site.paths import INDEX
from shared.text.fold import fold

Kind = Literal["page", "anchor", "asset"]
_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)(\s[^<>]*)?>")
_ATTR = re.compile(r"""\s(href|src|id)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_PAGE_SUFFIXES = (".html", ".htm")


@dataclass(frozen=True, slots=True)
class Refs:
    """One HTML file's internal addresses (``(attribute, value)`` as written) and its ids."""

    links: tuple[tuple[str, str], ...] = ()
    ids: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, list[str] | list[list[str]]]:
        return {"l": [list(link) for link in self.links], "i": sorted(self.ids)}

    @classmethod
    def from_json(cls, data: object) -> Refs:
        if not isinstance(data, dict):
            raise ValueError("refs must be an object")
        links = tuple((str(a), str(v)) for a, v in data.get("l", ()))
        return cls(links, frozenset(str(i) for i in data.get("i", ())))


def scan(html: str) -> Refs:
    """The internal ``href``/``src`` values and the ids of one HTML file, in order."""
    links: list[tuple[str, str]] = []
    ids: set[str] = set()
    for tag in _TAG.finditer(html):
        attrs = tag.group(2)
        if not attrs:
            continue
        for attr in _ATTR.finditer(attrs):
            name = attr.group(1).lower()
            value = unescape(attr.group(2) if attr.group(2) is not None else attr.group(3))
            if name == "id":
                ids.add(value)
            elif internal(value):
                links.append((name, value))
    return Refs(tuple(dict.fromkeys(links)), frozenset(ids))


def anchor_key(anchor: str) -> str:
    """An anchor as generators agree on it: folded, letters and digits only.

    Each generator spells a heading's id its own way (``#páginas-de-astro`` keeps the
    accent, MkDocs folds it; ``astro:after-swap`` loses the colon or becomes a dash), and
    the links of a docs tree were written against its own generator."""
    return "".join(c for c in fold(anchor) if c.isalnum())


def matching_anchor(anchor: str, ids: Collection[str]) -> str:
    """``anchor`` when the page has that id, else the one id it means when spelled by
    another generator (same ``anchor_key``; unique), else ``anchor`` unchanged."""
    if not anchor or anchor in ids:
        return anchor
    key = anchor_key(anchor)
    found = [i for i in ids if anchor_key(i) == key] if key else []
    return found[0] if len(found) == 1 else anchor


def internal(url: str) -> bool:
    """Whether ``url`` points inside the site (not another site, ``mailto:``, ``data:``…)."""
    url = url.strip()
    return bool(url) and not url.startswith("//") and not _SCHEME.match(url)


def target_of(source: str, url: str) -> tuple[str, str]:
    """(file under the site root, anchor) that ``url`` on the file ``source`` points at.

    Site-absolute URLs are read from the site root; a folder means its ``index.html``.
    The file is ``""`` when the URL climbs out of the site.
    """
    parts = urlsplit(url.strip())
    path, anchor = unquote(parts.path), unquote(parts.fragment)
    if not path:
        return source, anchor
    folder = source.rpartition("/")[0]
    joined = path.lstrip("/") if path.startswith("/") else f"{folder}/{path}" if folder else path
    resolved = normpath(joined) if joined else "."
    if resolved == ".." or resolved.startswith("../"):
        return "", anchor
    if resolved == ".":
        resolved = ""
    if path.endswith("/") or not resolved:
        resolved = f"{resolved}/{INDEX}" if resolved else INDEX
    return resolved, anchor


def broken(
    scanned: Mapping[str, Refs],
    files: Collection[str],
    slug_of: Mapping[str, str],
) -> list[dict[str, str]]:
    """``[{slug, target, kind}]`` for every address of the scanned files that leads nowhere.

    ``scanned`` maps each built HTML file to its scan, ``files`` is every file the site
    publishes and ``slug_of`` names the page of a page file (other files are named by
    their path). One entry per distinct (file, target), sorted.
    """
    out: dict[tuple[str, str], str] = {}
    # Every page sits one folder deep and most addresses climb out of it (``../x/``):
    # resolved once per address and the folder above, not once per page (10,000 pages
    # hold some 200,000 addresses, a few thousand distinct).
    resolved: dict[tuple[str, str], tuple[str, str]] = {}
    for source in sorted(scanned):
        folder = source.rpartition("/")[0]
        above = folder.rpartition("/")[0]
        for attr, url in scanned[source].links:
            if url.startswith("/"):
                key = ("/", url)
            elif url.startswith("../"):
                key = (above, url)
            elif url.startswith("#"):
                key = (source, url)
            else:
                key = (folder + "/", url)
            found = resolved.get(key)
            if found is None:
                found = resolved[key] = target_of(source, url)
            path, anchor = found
            kind = _problem(attr, path, anchor, files, scanned)
            if kind is None:
                continue
            shown = _shown(path, slug_of) if path else url
            target = f"{shown}#{anchor}" if anchor and kind == "anchor" else shown
            out.setdefault((slug_of.get(source, source), target), kind)
    return [{"slug": s, "target": t, "kind": k} for (s, t), k in sorted(out.items())]


def _problem(
    attr: str, path: str, anchor: str, files: Collection[str], scanned: Mapping[str, Refs]
) -> Kind | None:
    if path and path in files:
        if not anchor:
            return None
        refs = scanned.get(path)
        if refs is None:
            return None  # an anchor into a file that is no page the build scanned (a PDF)
        return None if anchor in refs.ids else "anchor"
    if attr == "src":
        return "asset"
    last = path.rpartition("/")[2]
    if not path or last == INDEX or last.endswith(_PAGE_SUFFIXES) or "." not in last:
        return "page"
    return "asset"


def _shown(path: str, slug_of: Mapping[str, str]) -> str:
    """A page file as its slug (what a curator knows), any other file as its path."""
    slug = slug_of.get(path)
    if slug is not None:
        return slug
    if path.endswith(f"/{INDEX}"):
        return path.removesuffix(f"/{INDEX}")
    return path
