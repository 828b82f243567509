"""No function in ``shared/`` over 60 lines, counted from its ``def`` to its last line
(docstring included): a longer one is split into named steps or a value passed along them.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 60


def long_functions(source: str, path: str) -> list[tuple[str, int]]:
    """Each function (or method) of ``source`` longer than LIMIT lines, with its length."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > LIMIT:
                found.append((f"{path}:{node.name}", length))
    return found


def test_no_function_in_shared_is_over_sixty_lines() -> None:
    """Every function of shared/ fits in 60 lines."""
    found = []
    for file in sorted((ROOT / "shared").rglob("*.py")):
        path = file.relative_to(ROOT).as_posix()
        found += long_functions(file.read_text(encoding="utf-8"), path)
    assert [f"{name} ({n} lines)" for name, n in found] == []


def test_the_rule_counts_from_def_to_last_line_and_sees_methods() -> None:
    """A method of 61 lines is reported, one of 60 lines (docstring counted) is not."""
    body = "\n".join(f"        x{k} = {k}" for k in range(58))
    long = f'class A:\n    def f(self) -> None:\n        """Doc."""\n{body}\n        x = 1\n'
    fits = f'class A:\n    def f(self) -> None:\n        """Doc."""\n{body}\n'
    assert long_functions(long, "m.py") == [("m.py:f", 61)]
    assert long_functions(fits, "m.py") == []
