"""Gate 1, grounding: path extraction on adversarial answers, resolution, the verdict."""

from __future__ import annotations

import pytest

from shared.gates.grounding import REASON, Grounding, resolve
from shared.text.code_paths import cited_paths, normalize_path, path_key, suffix_keys

# (answer text, the distinct paths it cites). Run ``python -m tests.unit.test_gates_grounding``
# to print what the extractor finds on each.
ADVERSARIAL: tuple[tuple[str, list[str]], ...] = (
    ("Ver `functions/api/handlers/wiki.py`.", ["functions/api/handlers/wiki.py"]),
    ("El router (app/routers/items.py) decide.", ["app/routers/items.py"]),
    ("Falla en app/main.py:40:7, luego", ["app/main.py"]),
    ("Ver app/main.py:40 y app/deps.py#L12-L30.", ["app/main.py", "app/deps.py"]),
    ("uvicorn arranca app/main.py:app", ["app/main.py"]),
    (
        "https://github.com/fastapi/fastapi/blob/master/fastapi/routing.py#L40-L50",
        ["fastapi/routing.py"],
    ),
    ("github.com/org/repo/blob/v1.2/lib/tasks/x.rb?plain=1", ["lib/tasks/x.rb"]),
    ("https://gitlab.com/group/sub/project/-/blob/main/src/app.ts#L3", ["src/app.ts"]),
    ("https://raw.githubusercontent.com/o/r/main/pkg/mod.go", ["pkg/mod.go"]),
    ("https://bitbucket.org/o/r/src/main/cmd/run.sh", ["cmd/run.sh"]),
    ("[routing](https://github.com/o/r/blob/main/fastapi/routing.py)", ["fastapi/routing.py"]),
    ("[fastapi/routing.py](fastapi/routing.py)", ["fastapi/routing.py"]),
    (
        "En C:\\proj\\app\\main.py y app\\routers\\users.py",
        ["proj/app/main.py", "app/routers/users.py"],
    ),
    ("Ejecuta ./scripts/deploy.sh o ../docs_src/a.py", ["scripts/deploy.sh", "docs_src/a.py"]),
    ("Un bloque:\n```python\n# file: app/core/config.py\nimport os\n```\n", ["app/core/config.py"]),
    ("```bash\nuvicorn app.main:app --reload\n```", []),
    ("**fastapi/routing.py** y _privado_", ["fastapi/routing.py"]),
    (
        "'app/a.py', \"app/b.py\", “app/c.py” y «app/d.py»",
        ["app/a.py", "app/b.py", "app/c.py", "app/d.py"],
    ),
    ("APP/Main.py es app/main.py", ["APP/Main.py"]),
    ("Ver src//app.py", ["src/app.py"]),
    ("Ver /usr/lib/python3/os.py", ["usr/lib/python3/os.py"]),
    ("Include include/stdio.h y src/lib.cpp", ["include/stdio.h", "src/lib.cpp"]),
    # not code paths
    ("Ver example.com/a.py y www.example.org/src/b.js", []),
    ("https://example.com/static/app.js y http://localhost:8000/items/x.py", []),
    ("https://github.com/fastapi/fastapi", []),
    ("La versión v1.2.py no es una ruta; main.py tampoco", []),
    ("Usa Node.js/Express.js o React.js/Vue.js", []),
    ("app/main.pyc, app/README.md, src/*.py, app/.py", []),
    ("100 km/h, a/b, y/o", []),
    ("from app.routers import items", []),
    # a versioned file name inside a folder is a path
    ("migrations/v1.2.py", ["migrations/v1.2.py"]),
)


@pytest.mark.parametrize(("text", "expected"), ADVERSARIAL)
def test_extraction(text: str, expected: list[str]) -> None:
    """Each adversarial answer yields exactly the distinct paths it cites."""
    assert cited_paths(text) == expected


def test_distinct_is_case_insensitive() -> None:
    """One path cited in three spellings counts once."""
    assert len(cited_paths("app/main.py, App/Main.PY y ./app/main.py:3")) == 1


def test_normalize_path() -> None:
    """Index-side paths lose './', leading '/', drive letters and backslashes."""
    assert normalize_path(".\\app\\main.py") == "app/main.py"
    assert normalize_path("/src//x.go/") == "src/x.go"
    assert normalize_path("C:\\work\\x.py") == "work/x.py"
    assert path_key("App/Main.PY") == "app/main.py"


def test_suffix_keys_are_multi_segment_and_case_folded() -> None:
    """A path answers to each of its suffixes of two or more segments."""
    assert suffix_keys("functions/API/handlers/wiki.py") == [
        "functions/api/handlers/wiki.py",
        "api/handlers/wiki.py",
        "handlers/wiki.py",
    ]
    assert suffix_keys("README.md") == []


INDEX = ["functions/api/handlers/wiki.py", "app/main.py", "tests/__init__.py"]
KEYS = frozenset(k for p in INDEX for k in suffix_keys(p))


@pytest.mark.parametrize(
    ("cited", "resolves"),
    [
        ("handlers/wiki.py", True),
        ("api/handlers/wiki.py", True),
        ("functions/api/handlers/wiki.py", True),
        ("HANDLERS/Wiki.PY", True),
        ("andlers/wiki.py", False),
        ("x/functions/api/handlers/wiki.py", False),
        ("handlers/wiki.pyx", False),
        ("signage/services/deployment.py", False),
    ],
)
def test_resolution_on_a_slash_boundary(cited: str, resolves: bool) -> None:
    """A cited path resolves when it equals or is a '/'-boundary suffix of an indexed path."""
    assert resolve([cited], KEYS).resolved == int(resolves)


def test_half_resolved_passes_and_less_refuses() -> None:
    """The gate refuses only when fewer than half of the distinct paths resolve."""
    half = resolve(["app/main.py", "ghost/a.py"], KEYS)
    third = resolve(["app/main.py", "ghost/a.py", "ghost/b.py"], KEYS)
    assert not half.refused
    assert half.reason is None
    assert third.refused
    assert third.reason == REASON
    assert third.body() == {
        "checked": True,
        "cited": 3,
        "resolved": 1,
        "unresolved": ["ghost/a.py", "ghost/b.py"],
    }


def test_unchecked_never_refuses() -> None:
    """An unchecked grounding (index unreadable or empty) passes."""
    assert not Grounding(checked=False, cited=4, resolved=0, unresolved=()).refused


if __name__ == "__main__":
    for text, expected in ADVERSARIAL:
        got = cited_paths(text)
        print(("ok  " if got == expected else "BAD ") + f"{text!r:.70} -> {got}")
