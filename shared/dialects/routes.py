"""Where the tree's own generator serves each page: its routes, as the generator computes
them, read from its configuration as data (never executed).

- **Docusaurus** (``docusaurus.config.*`` in DIR or above): docs are served under
  ``/docs/``; a front-matter ``slug`` is the route (``/x`` from the docs root, ``x``
  beside the file), else an ``id`` replaces the file's name (``guias/Timeouts.md`` with
  ``id: timeouts`` is ``/docs/guias/timeouts``).
- **VitePress** (``.vitepress/config.*``): the folder holding ``.vitepress`` is the source
  root; ``rewrites`` (``{'en/:rest*': ':rest*'}``) move pages, applied to the path from
  there; ``cleanUrls`` only drops ``.html``, which links may carry either way.
- **Starlight** (``astro.config.*``) and any tree in a locale folder (``…/docs/es``):
  served under the locale (``/es/guides/x``); Starlight's ``slug`` is the route from the
  content root.
- Otherwise (MkDocs, plain folders) the file's path is the route (``links.route_of``).

``SiteFacts.routes_of`` gives each page's addresses, the one the generator serves first;
the import keeps them for the link resolver (a link written against the site's routes
resolves) and for the site build (a redirect page at each, ``shared.site.redirects``).
The site's name (``title`` / ``site_name``) is read on the way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from posixpath import normpath
from typing import Any

from shared.dialects import literal
from shared.dialects.links import route_of

CONFIG_SUFFIXES = (".ts", ".mts", ".js", ".mjs", ".cjs")
MAX_CONFIG_BYTES = 1024 * 1024
MAX_LEVELS = 4  # folders above DIR a generator's configuration is looked for in
_LOCALE = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z]{2,4})?$")
_PARAM = re.compile(r":(\w+)(\*)?|(\(\.\*\))")


@dataclass(frozen=True)
class SiteFacts:
    """The routing facts of one tree (module docstring) and what reading them met."""

    generator: str = ""  # docusaurus, vitepress, starlight, or "" (the path is the route)
    base: str = ""  # the prefix the generator serves the tree under ("docs", "es")
    src_prefix: str = ""  # DIR's path below the generator's source root (VitePress "en")
    rewrites: tuple[tuple[re.Pattern[str], str], ...] = ()
    site_name: str | None = None
    notes: tuple[str, ...] = field(default=())  # what could not be read, and the fallback

    def routes_of(
        self, path: str, stated_id: str | None = None, stated_slug: str | None = None
    ) -> list[str]:
        """The addresses (no leading or trailing ``/``) the generator serves the file at
        ``path`` (relative to DIR) under: the generator's own first, then the plain path
        route (a link may be written against either)."""
        route = self._route(path, stated_id, stated_slug)
        plain = route_of(path)
        out = [f"{self.base}/{route}".strip("/") if self.base else route, route, plain]
        return list(dict.fromkeys(r for r in out if r is not None))

    def _route(self, path: str, stated_id: str | None, stated_slug: str | None) -> str:
        folder = str(PurePosixPath(path).parent)
        folder = "" if folder == "." else folder
        if self.generator == "vitepress" and self.rewrites:
            return route_of(_rewritten(f"{self.src_prefix}/{path}".lstrip("/"), self.rewrites))
        if stated_slug:
            if self.generator == "starlight" or stated_slug.startswith("/"):
                route = stated_slug.strip("/")
                first, _, rest = route.partition("/")
                return rest if self.base and first == self.base else route
            return _joined(folder, stated_slug)
        if stated_id and self.generator in ("docusaurus", ""):
            return _joined(folder, stated_id)
        return route_of(path)


def _joined(folder: str, tail: str) -> str:
    joined = normpath(f"{folder}/{tail}" if folder else tail).strip("/")
    return "" if joined in (".", "..") or joined.startswith("../") else joined


def _rewritten(path: str, rewrites: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for pattern, target in rewrites:
        match = pattern.fullmatch(path)
        if match is not None:
            return _filled(target, match.groupdict()).lstrip("/")
    return path


def _filled(target: str, values: Mapping[str, str | None]) -> str:
    """A rewrite's target with the values its key matched (``:rest*`` -> ``guide/x.md``)."""

    def value(match: re.Match[str]) -> str:
        return values.get(match.group(1) or "") or ""

    return _PARAM.sub(value, target)


def _compiled(pattern: str) -> re.Pattern[str] | None:
    """A VitePress rewrite key as a regular expression (``:name``, ``:rest*``, ``(.*)``)."""
    out, last, groups = [], 0, 0
    for match in _PARAM.finditer(pattern):
        out.append(re.escape(pattern[last : match.start()]))
        if match.group(3):
            groups += 1
            out.append(f"(?P<g{groups}>.*)")
        elif match.group(2):
            out.append(f"(?P<{match.group(1)}>.*)")
        else:
            out.append(f"(?P<{match.group(1)}>[^/]+)")
        last = match.end()
    out.append(re.escape(pattern[last:]))
    try:
        return re.compile("".join(out))
    except re.error:
        return None


def facts_of(root: Path, mkdocs_data: Mapping[str, Any] | None = None) -> SiteFacts:
    """The routing facts of the tree at ``root`` (module docstring); ``mkdocs_data`` is
    its MkDocs configuration when one was found (its ``site_name`` names the site)."""
    resolved = root.resolve()
    locale = resolved.name if _LOCALE.match(resolved.name) else ""
    for folder in [resolved, *resolved.parents][: MAX_LEVELS + 1]:
        vitepress = _config(folder / ".vitepress", "config")
        if vitepress is not None:
            return _vitepress(vitepress, folder, resolved)
        docusaurus = _config(folder, "docusaurus.config")
        if docusaurus is not None:
            return _docusaurus(docusaurus)
        astro = _config(folder, "astro.config")
        if astro is not None:
            return SiteFacts("starlight", base=locale, site_name=_title(astro))
    name = mkdocs_data.get("site_name") if mkdocs_data else None
    return SiteFacts("", base=locale, site_name=_name(name))


def _config(folder: Path, stem: str) -> str | None:
    for suffix in CONFIG_SUFFIXES:
        path = folder / f"{stem}{suffix}"
        try:
            if path.is_file() and path.stat().st_size <= MAX_CONFIG_BYTES:
                return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return None


def _vitepress(text: str, source_root: Path, root: Path) -> SiteFacts:
    notes: list[str] = []
    try:
        prefix = root.relative_to(source_root).as_posix()
    except ValueError:
        prefix = ""
    rewrites: list[tuple[re.Pattern[str], str]] = []
    try:
        table = literal.value_at(text, "rewrites")
        if isinstance(table, dict):
            for key, value in table.items():
                compiled = _compiled(str(key))
                if compiled is not None and isinstance(value, str):
                    rewrites.append((compiled, value))
    except KeyError:
        if re.search(r"\brewrites\b", text):  # a method or a variable: code, not data
            notes.append("VitePress rewrites are code: pages keep their file routes")
    except literal.NotLiteral as exc:
        notes.append(f"VitePress rewrites are code ({exc}): pages keep their file routes")
    return SiteFacts(
        "vitepress",
        src_prefix="" if prefix == "." else prefix,
        rewrites=tuple(rewrites),
        site_name=_title(text),
        notes=tuple(notes),
    )


def _docusaurus(text: str) -> SiteFacts:
    return SiteFacts("docusaurus", base="docs", site_name=_title(text))


def _title(text: str) -> str | None:
    try:
        return _name(literal.value_at(text, "title"))
    except (KeyError, literal.NotLiteral):
        return None


def _name(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())[:100]
    return None
