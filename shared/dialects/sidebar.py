"""The navigation a docs tree states without a nav file: its folders and its front matter.

Docusaurus and Starlight build their sidebars from the folders: a folder is a section, its
``index`` page the section's landing page, and each page may say where it goes —
Docusaurus with ``sidebar_position`` / ``sidebar_label`` (and a folder with
``_category_.json`` or ``_category_.yml``: ``label``, ``position``), Starlight with
``sidebar: {order, label}``. ``tree_nav`` turns that into the nav the site keeps
(``SiteState.save_nav``: ``{"items": [...]}``, the shape ``read_nav`` gives for
``mkdocs.yml``). Starlight's own sidebar file is TypeScript and is never executed or read:
its groups are folders too, and ``sidebar.order`` orders them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, cast

import yaml

from shared.dialects import bounded_yaml, bounds
from shared.records import NavItem, NavPageItem, NavSectionItem, StoredNav
from shared.text.sections import INDEX_NAMES, MAX_DEPTH, humanize

# Front-matter keys that place a page in the nav: read here, not dropped as unknown.
NAV_KEYS = frozenset({"sidebar", "sidebar_position", "sidebar_label"})
CATEGORY_FILES = ("_category_.json", "_category_.yml", "_category_.yaml")
MAX_LABEL = 200


@dataclass(frozen=True, slots=True)
class Hint:
    """Where a page's front matter puts it: its nav label and its order among siblings."""

    label: str | None = None
    order: float | None = None


def hint_of(front_matter: Mapping[str, Any]) -> Hint:
    """The nav hint of a page's front matter (Docusaurus' and Starlight's spellings)."""
    sidebar = front_matter.get("sidebar")
    sidebar = sidebar if isinstance(sidebar, Mapping) else {}
    label = sidebar.get("label", front_matter.get("sidebar_label"))
    order = sidebar.get("order", front_matter.get("sidebar_position"))
    return Hint(_label(label), _number(order))


def _label(value: object) -> str | None:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = " ".join(str(value).split())[:MAX_LABEL]
        return text or None
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


@dataclass(frozen=True, slots=True)
class Category:
    """A folder's own ``_category_`` file: its section's label and position."""

    label: str | None = None
    position: float | None = None


def category_of(folder: Path) -> Category | None:
    """The ``_category_.json``/``.yml`` of ``folder`` (JSON and YAML read as data only)."""
    for name in CATEGORY_FILES:
        path = bounds.inside(folder / name, [folder])  # never a link out of the tree
        if path is None:
            continue
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if name.endswith(".json") else bounded_yaml.load(text)
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError):
            return None
        if isinstance(data, Mapping):
            return Category(_label(data.get("label")), _number(data.get("position")))
    return None


@dataclass(frozen=True, slots=True)
class Placed:
    """One imported file: its path in the tree, its slug, title and hint."""

    path: str  # relative to the tree's root (posix)
    slug: str
    title: str
    hint: Hint = Hint()


@dataclass
class _Folder:
    name: str
    index: Placed | None = None
    pages: list[Placed] = field(default_factory=list)
    folders: dict[str, _Folder] = field(default_factory=dict)
    category: Category | None = None


def states_structure(files: list[Placed], categories: Mapping[str, Category]) -> bool:
    """Whether the tree says more than a flat list: folders, hints or category files."""
    return bool(categories) or any(
        "/" in f.path or f.hint.label or f.hint.order is not None for f in files
    )


def tree_nav(files: list[Placed], categories: Mapping[str, Category]) -> StoredNav:
    """The nav of the tree (module docstring): sections nested as the folders, each
    folder's index page first, then pages and subsections by their order (those without
    one after), then by file name with numbers in numeric order (``2-x`` before ``10-x``)."""
    root = _Folder("")
    for placed in files:
        parts = PurePosixPath(placed.path).parts
        node = root
        for depth, part in enumerate(parts[:-1][:MAX_DEPTH]):
            folder = "/".join(parts[: depth + 1])
            node = node.folders.setdefault(part, _Folder(part, category=categories.get(folder)))
        is_index = PurePosixPath(parts[-1]).stem.lower() in INDEX_NAMES
        if is_index and node is not root and node.index is None:
            node.index = placed
            continue
        node.pages.append(placed)
    return {"items": _items(root)}


def _items(folder: _Folder) -> list[NavItem]:
    ranked: list[tuple[tuple[bool, float, tuple[Any, ...]], NavItem]] = []
    for page in folder.pages:
        name = PurePosixPath(page.path).stem
        ranked.append((_rank(page.hint.order, name), _page_item(page)))
    for name, child in folder.folders.items():
        items = _items(child)
        if child.index is not None:
            items.insert(0, {"slug": child.index.slug})
        title = (
            (child.category.label if child.category else None)
            or (child.index.hint.label or child.index.title if child.index else None)
            or humanize(name)
        )
        position = child.category.position if child.category else None
        if position is None and child.index is not None:
            position = child.index.hint.order
        ranked.append((_rank(position, name), {"title": title, "items": items}))
    ranked.sort(key=lambda pair: pair[0])
    return [item for _, item in ranked]


def _page_item(page: Placed) -> NavPageItem:
    item: NavPageItem = {"slug": page.slug}
    if page.hint.label:
        item["title"] = page.hint.label
    return item


def _rank(order: float | None, name: str) -> tuple[bool, float, tuple[Any, ...]]:
    return (order is None, order or 0.0, _natural(name))


def _natural(name: str) -> tuple[Any, ...]:
    """``10-x`` after ``2-x``: digit runs compared as numbers."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
        for part in re.split(r"(\d+)", name)
        if part
    )


def merged(stored: StoredNav | None, nav: StoredNav, slugs: set[str]) -> StoredNav:
    """``nav`` after what a stored nav keeps of other trees: its entries for pages this tree
    does not hold stay, so importing a second tree does not lose the first one's order."""
    kept = _without(stored.get("items"), slugs) if stored else []
    return {"items": nav["items"] + kept}


def _without(items: object, slugs: set[str], depth: int = 0) -> list[NavItem]:
    if not isinstance(items, list) or depth > MAX_DEPTH:
        return []
    out: list[NavItem] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if isinstance(item.get("items"), list):
            children = _without(item["items"], slugs, depth + 1)
            if children:  # stored JSON, kept as it was saved (the site's reader checks it)
                out.append(cast("NavSectionItem", {**item, "items": children}))
        elif item.get("slug") not in slugs:
            out.append(cast("NavItem", dict(item)))
    return out
