"""The references a reader opens in the repository: generated, current, and self-contained.

``docs/api.md`` comes from the OpenAPI document (itself from the models), ``docs/cli.md``
from the parser; each is checked like ``openapi.json`` (``make docs`` rewrites all three).
No doc may send a reader outside the repository: whoever clones it has nothing there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shared.api import reference as api_reference
from shared.cli import reference as cli_reference

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"\]\(([^)\s]+)")
_CODE = re.compile(r"^(```|~~~).*?^\1|`[^`\n]*`", re.S | re.M)  # examples, not links


@pytest.mark.parametrize("module", [api_reference, cli_reference], ids=["api.md", "cli.md"])
def test_the_generated_reference_is_current(module: object) -> None:
    """Stale? Run ``make docs``."""
    assert module.FILE.read_text(encoding="utf-8") == module.text()  # type: ignore[attr-defined]


def _docs() -> list[Path]:
    """The project's own docs (the demo wiki's pages are content, linked by slug)."""
    return [
        p
        for p in ROOT.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
        and "demo" not in p.relative_to(ROOT).parts
    ]


def test_no_doc_points_outside_the_repository() -> None:
    """A Markdown link stays inside the checkout, and no doc cites the steering spec."""
    wrong = []
    for doc in _docs():
        text = _CODE.sub("", doc.read_text(encoding="utf-8"))
        if "shared/spec/" in text:
            wrong.append(f"{doc.relative_to(ROOT)}: cites shared/spec/")
        for target in _LINK.findall(text):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            resolved = (doc.parent / target.split("#")[0]).resolve()
            if not resolved.is_relative_to(ROOT):
                wrong.append(f"{doc.relative_to(ROOT)}: links {target}")
            elif not resolved.exists():
                wrong.append(f"{doc.relative_to(ROOT)}: links {target}, which does not exist")
    assert wrong == []


def test_every_command_has_an_example_in_its_help() -> None:
    """A command without an example in ``shared.cli.examples`` fails here; each example
    names its own command, and ``--help`` shows it."""
    from shared.cli import build_parser
    from shared.cli.examples import EXAMPLES

    commands = set(cli_reference._subparsers(build_parser([])))
    assert commands - set(EXAMPLES) == set()
    assert set(EXAMPLES) - commands == set()
    for name, lines in EXAMPLES.items():
        assert all(f"biblioteca {name}" in line for line in lines), name
    diff = cli_reference._subparsers(build_parser(["diff"]))["diff"]
    assert "examples:" in diff.format_help()
    assert "biblioteca diff runbook" in diff.format_help()
