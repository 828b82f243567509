"""Assets that cannot script: SVG cleaned of everything active, HTML never shown inline.

A docs tree's images are published on the site's own origin, so an SVG opened by its
address runs its scripts there (``![x](img/evil.svg)``, then a click). Pure functions:
``clean_svg`` keeps the drawing and drops scripts, event handlers, ``foreignObject``
(HTML inside the drawing), animations that rewrite a link, and every reference that
leaves the file (links; ``url(…)`` and ``@import`` in styles become ``none``); an SVG
that is not well-formed XML or
declares entities is refused (None). ``delivery`` says how a published asset is served.
"""

from __future__ import annotations

import html.entities
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import PurePosixPath

_SVG_NS = "http://www.w3.org/2000/svg"
_XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", _SVG_NS)
ET.register_namespace("xlink", _XLINK_NS)

_ACTIVE = {"script", "foreignobject", "iframe", "embed", "object", "handler", "listener"}
_ANIMATIONS = {"set", "animate", "animatemotion", "animatetransform", "discard"}
# An in-file reference (#id) or an embedded raster image; anything else leaves the file.
_SAFE_REF = re.compile(r"^\s*(#|data:image/(png|jpeg|gif|webp);)", re.I)
# A CSS reference that leaves the file (a font or image url(), an @import): replaced by
# ``none``, which drops that one declaration; the rest of the style (a terminal
# screenshot's colours) stays.
_CSS_EXTERNAL = re.compile(
    r"""@import[^;]*;?|url\(\s*(?:"(?!#)[^"]*"|'(?!#)[^']*'|(?!["'#])[^)]*)\s*\)""", re.I
)
_SCRIPTED = re.compile(r"expression\(|javascript:|vbscript:", re.I)
# The asset types a browser would run as a document of the site's origin.
DOCUMENT_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".xht", ".xml", ".shtml", ".mht"})
# What an asset served by its own address may do: show itself, nothing more.
ASSET_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox"


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1].lower()


def clean_svg(data: bytes) -> bytes | None:
    """The drawing without what could run or fetch; None when it cannot be read safely."""
    if b"<!ENTITY" in data.upper() or len(data) > 4 * 1024 * 1024:
        return None  # entity expansion ("billion laughs") is refused, not parsed
    try:
        root = ET.fromstring(_xml_entities(data))  # noqa: S314 - no entities left to expand
    except ET.ParseError:
        return None
    if _local(root.tag) != "svg":
        return None
    _clean(root)
    cleaned: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return cleaned


_NAMED = re.compile(rb"&([A-Za-z][A-Za-z0-9]{1,31});")
_XML_NAMED = frozenset({b"amp", b"lt", b"gt", b"quot", b"apos"})


def _xml_entities(data: bytes) -> bytes:
    """HTML's named entities as numeric references. An SVG written to be inlined in HTML
    (a terminal screenshot's ``&nbsp;``) uses them; XML knows five, so without this the
    file neither parses here nor shows as an image in a browser."""

    def numeric(match: re.Match[bytes]) -> bytes:
        name = match.group(1)
        code = html.entities.name2codepoint.get(name.decode("ascii"))
        if name in _XML_NAMED or code is None:
            return match.group(0)
        return b"&#%d;" % code

    return _NAMED.sub(numeric, data) if b"&" in data else data


def _clean(element: ET.Element) -> None:
    for child in list(element):
        tag = _local(child.tag) if isinstance(child.tag, str) else ""
        if tag in _ACTIVE or not tag:
            element.remove(child)
            continue
        if tag in _ANIMATIONS and "href" in child.get("attributeName", "").lower():
            element.remove(child)
            continue
        if tag == "style":
            if _SCRIPTED.search(child.text or ""):
                element.remove(child)
                continue
            child.text = _CSS_EXTERNAL.sub("none", child.text or "")
        _clean(child)
    for name, value in list(element.attrib.items()):
        key = _local(name)
        leaves = key == "href" and not _SAFE_REF.match(value)
        if key.startswith("on") or leaves or _SCRIPTED.search(value):
            del element.attrib[name]
        elif "url(" in value.lower() or "@import" in value.lower():
            element.attrib[name] = _CSS_EXTERNAL.sub("none", value)


@dataclass(frozen=True)
class Delivery:
    """How one published asset is served: its type, and whether only as a download."""

    content_type: str | None  # None: the usual type of its suffix
    attachment: bool


def delivery(path: str) -> Delivery:
    """A document type (HTML, XML) is served as a plain-text download, never rendered on
    the site's origin; everything else as itself (an SVG is cleaned before it is stored)."""
    if PurePosixPath(path).suffix.lower() in DOCUMENT_SUFFIXES:
        return Delivery("text/plain; charset=utf-8", True)
    return Delivery(None, False)


def safe_asset(path: str, data: bytes) -> bytes | None:
    """The bytes to publish for an asset at ``path``: an SVG cleaned (None: refused)."""
    if PurePosixPath(path).suffix.lower() in (".svg", ".svgz"):
        if path.lower().endswith(".svgz"):
            return None  # compressed: not read here, so not published
        return clean_svg(data)
    return data
