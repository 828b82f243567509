"""YAML read from a docs tree (``mkdocs.yml``, front matter, ``_category_.yml``), bounded.

PyYAML's safe loader shares an alias's node instead of copying it, so a ten-line
"billion laughs" loads at once, and then every reader that walks the value (merging an
``INHERIT`` chain, resolving ``!include``, saving a nav) expands it: gigabytes, a
``MemoryError``, no page imported. ``BoundedLoader`` refuses, once the document is
composed and before anything is built from it, a document whose nodes with every alias
expanded number more than ``MAX_NODES``, an alias that contains itself, and nesting
deeper than the parser can take; ``load`` also refuses text over ``MAX_BYTES``. Each
refusal is a ``yaml.YAMLError`` (``Unbounded``), which the callers already report as
YAML they could not read, naming the file.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_BYTES = 1024 * 1024  # a configuration or a front matter is never this long
MAX_NODES = 100_000  # nodes once aliases are expanded: a real mkdocs.yml has hundreds


class Unbounded(yaml.YAMLError):
    """YAML refused because reading it would cost without bound."""


class BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses documents whose aliases expand past ``MAX_NODES``."""

    def compose_document(self) -> yaml.Node | None:
        node: yaml.Node | None = super().compose_document()
        if node is not None:
            expanded_size(node)
        return node


def expanded_size(root: yaml.Node, limit: int = MAX_NODES) -> int:
    """The nodes under ``root`` counted as often as aliases repeat them; ``Unbounded``
    past ``limit`` or for a node that contains itself. Each distinct node is sized once
    (children before parents, without recursion: deep nesting costs no stack)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            size = 1 + sum(sizes[id(child)] for child in _children(node))
            if size > limit:
                raise Unbounded(f"aliases expand past {limit:,} nodes (a 'billion laughs'?)")
            sizes[key] = size
            open_nodes.discard(key)
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise Unbounded("an alias contains itself (a recursive structure)")
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise Unbounded("an alias contains itself (a recursive structure)")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load(text: str, loader: type[BoundedLoader] = BoundedLoader) -> Any:
    """``text`` read as YAML with ``loader`` (a ``BoundedLoader``, plus its tags), within
    the bounds above."""
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        raise Unbounded(f"the YAML is larger than {MAX_BYTES // 1024} KiB")
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError as exc:
        raise Unbounded("the YAML nests too deeply") from exc
