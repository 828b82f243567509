"""The site's own CSS classes never take a name Pygments gives a code token: a rule for
one would restyle code (``.sr``, the site's visually-hidden class, hid every regular
expression in a code block and pulled it out of its box, so the page scrolled sideways)."""

from __future__ import annotations

import re
from pathlib import Path

from pygments.token import STANDARD_TYPES

STATIC = Path(__file__).resolve().parents[2] / "shared" / "site" / "static"
TEMPLATES = STATIC.parent / "templates"
# Pygments classes the site styles on purpose, inside code: highlighted lines.
MEANT = {"hll"}


def _site_classes() -> set[str]:
    classes: set[str] = set()
    for css in ("site.css", "widget.css"):
        text = (STATIC / css).read_text(encoding="utf-8")
        classes |= set(
            re.findall(r"\.([A-Za-z_][\w-]*)", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
        )
    for template in TEMPLATES.glob("*.html"):
        for names in re.findall(r'class="([^"{}]*)"', template.read_text(encoding="utf-8")):
            classes |= set(names.split())
    return classes


def test_no_site_class_is_a_pygments_token_class() -> None:
    tokens = {name for name in STANDARD_TYPES.values() if name}
    assert len(tokens) > 50  # the table is Pygments' own, not empty
    site = _site_classes()
    assert "visually-hidden" in site  # the reader found the site's classes
    assert (site & tokens) - MEANT == set()
