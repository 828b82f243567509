"""deploy/stage.py: each staged function folder is what the Python buildpack needs, on its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deploy.stage import function_names, stage
from shared.cli.serve import function_names as http_function_names
from tests.conftest import ROOT

# Loads main.py the way the buildpack's `functions-framework` launcher does: the folder is
# the working directory, not on sys.path (-I), and the framework appends main.py's folder.
PROBE = """
import json, sys
from pathlib import Path
import functions_framework
here = Path.cwd().resolve()
app = functions_framework.create_app(sys.argv[1], str(here / "main.py"))
response = app.test_client().get("/")
mine = [m for n, m in list(sys.modules.items()) if n == "shared" or n.startswith("shared.")]
outside = sorted(m.__name__ for m in mine if not Path(m.__file__).resolve().is_relative_to(here))
print(json.dumps({"status": response.status_code, "body": response.get_json(),
                  "modules": len(mine), "outside": outside}))
"""


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("staged")
    return {name: stage(name, out) for name in function_names()}


def test_every_function_is_staged_with_shared_and_requirements(staged: dict[str, Path]) -> None:
    """main.py, the whole shared/ package (templates and widget too) and requirements.txt."""
    assert sorted(staged) == sorted(p.parent.name for p in (ROOT / "functions").glob("*/main.py"))
    requirements = (ROOT / "requirements.txt").read_bytes()
    for name, folder in staged.items():
        assert (folder / "main.py").read_bytes() == (
            ROOT / "functions" / name / "main.py"
        ).read_bytes()
        assert (folder / "requirements.txt").read_bytes() == requirements
        assert (folder / ".gcloudignore").is_file()
        assert (folder / "shared" / "__init__.py").is_file()
        assert (folder / "shared" / "site" / "static" / "widget.js").is_file()
        assert list(folder.rglob("__pycache__")) == []
        source_files = {
            p.relative_to(ROOT / "shared")
            for p in (ROOT / "shared").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
        staged_files = {p.relative_to(folder / "shared") for p in (folder / "shared").rglob("*")}
        assert source_files <= staged_files


def test_staging_again_replaces_the_folder(tmp_path: Path) -> None:
    """A rerun starts from scratch: nothing left over from a previous staging."""
    name = function_names()[0]
    first = stage(name, tmp_path)
    (first / "stale.py").write_text("x = 1\n")
    again = stage(name, tmp_path)
    assert not (again / "stale.py").exists()
    assert (again / "main.py").is_file()


def test_each_staged_function_runs_from_its_own_folder(
    staged: dict[str, Path], tmp_path: Path
) -> None:
    """Loaded like the buildpack loads it, each function answers (an HTTP one with the
    contract's JSON), importing only its copy."""
    env = {"PATH": os.environ.get("PATH", ""), "BIBLIOTECA_DATA_DIR": str(tmp_path / "data")}
    probes = {
        name: subprocess.Popen(
            [sys.executable, "-I", "-c", PROBE, name],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, folder in staged.items()
    }
    http_functions = set(http_function_names())
    for name, probe in probes.items():
        out, err = probe.communicate(timeout=120)
        assert probe.returncode == 0, f"{name}: {err[-2000:]}"
        result = json.loads(out.strip().splitlines()[-1])
        assert result["status"] == 405, (name, result)
        if name in http_functions:  # an event function's GET is refused by the framework
            assert result["body"]["code"] == "method_not_allowed"
        assert result["modules"] > 0
        assert result["outside"] == [], f"{name} imported shared modules from outside its folder"
