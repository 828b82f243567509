"""Stage one self-contained source folder per Cloud Function: main.py, shared/, requirements.txt.

Why staging and not one tree with GOOGLE_FUNCTION_SOURCE=functions/<name>/main.py: the
functions framework loads that file and appends only *its* folder (functions/<name>) to
sys.path, and the buildpack's ``functions-framework`` launcher does not put the app root
there either, so ``import shared`` would fail at cold start. A staged folder has main.py at
its root beside shared/, which is exactly the layout the Python runtime documents.

    python deploy/stage.py [--out build/functions] [NAME ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "build" / "functions"
# Copied next to every function's main.py (the .gcloudignore governs the upload itself).
SHARED_FILES = ("requirements.txt", ".gcloudignore")
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo")


def function_names(root: Path = ROOT) -> list[str]:
    """Every Cloud Function of the bundle: a folder of functions/ with a main.py."""
    return sorted(p.parent.name for p in (root / "functions").glob("*/main.py"))


def stage(name: str, out: Path, root: Path = ROOT) -> Path:
    """Build ``out/<name>/`` from scratch and return it."""
    source = root / "functions" / name
    if not (source / "main.py").is_file():
        raise FileNotFoundError(f"functions/{name}/main.py does not exist")
    clashes = [p.name for p in source.iterdir() if p.name in {"shared", *SHARED_FILES}]
    if clashes:
        raise FileExistsError(f"functions/{name}/ must not contain {', '.join(sorted(clashes))}")
    target = out / name
    if target.exists():
        shutil.rmtree(target)
    # The function's own folder first (main.py and any helper modules beside it) ...
    shutil.copytree(source, target, ignore=_SKIP)
    # ... then the package every function imports, and the files the buildpack reads.
    shutil.copytree(root / "shared", target / "shared", ignore=_SKIP)
    for filename in SHARED_FILES:
        shutil.copy2(root / filename, target / filename)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", help="functions to stage (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    known = function_names()
    unknown = sorted(set(args.names) - set(known))
    if unknown:
        parser.error(f"unknown function(s): {', '.join(unknown)}; known: {', '.join(known)}")
    for name in args.names or known:
        target = stage(name, args.out)
        files = sum(1 for p in target.rglob("*") if p.is_file())
        print(f"staged {name}: {target} ({files} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
