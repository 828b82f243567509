"""Where a running ``biblioteca serve`` listens, and which store it serves, for the commands.

``serve`` writes ``serve.json`` (its address, process id, store, the variables that chose
that store, and a key for its rebuild hook) into its data folder once it listens. A serve
whose data folder nobody named (``make run`` serves the demo from ``./.biblioteca/demo``)
also writes a copy into the default folder, ``./.biblioteca``: a command run in the same
folder without ``BIBLIOTECA_DATA_DIR`` finds it there (``shared/cli/store_choice.py``).
Both notes are removed when it stops; a note whose process died is ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.error
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from shared.config import Settings
from shared.json_value import JsonObject

STATE = "serve.json"
# Where a command without BIBLIOTECA_DATA_DIR looks: the Settings default data folder.
DEFAULT_DIR = Path(".biblioteca")
# The variables that say which store (and site) a process uses: what a command copies
# from a running serve to use the same ones.
STORE_VARIABLES = (
    "BIBLIOTECA_STORE",
    "BIBLIOTECA_DATA_DIR",
    "BIBLIOTECA_SITE_DIR",
    "BIBLIOTECA_REPORT_DIR",
    "GOOGLE_CLOUD_PROJECT",
    "FIRESTORE_EMULATOR_HOST",
)
# The serve's hook that rebuilds its site after a write made elsewhere (a CLI command):
# a POST carrying the note's key in this header. A path no page can take (no slug starts
# with an underscore), answered by the rebuild middleware before the site.
REBUILD_PATH = "/_serve/rebuild"
KEY_HEADER = "X-Biblioteca-Serve-Key"
_POKE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Served:
    """A live ``serve`` as its note describes it."""

    url: str
    pid: int
    store: str
    environ: dict[str, str] = field(default_factory=dict)
    key: str = ""


def state_path(settings: Settings) -> Path:
    return settings.data_dir / STATE


def connectable(host: str, port: int) -> str:
    """The base URL a local client uses for a server bound to ``host``."""
    if host in ("0.0.0.0", ""):  # noqa: S104 - naming the wildcard, not binding to it
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def store_environ(settings: Settings, environ: Mapping[str, str]) -> dict[str, str]:
    """The store variables of this process, the data folder made absolute (a command run
    from the same folder, or another, then opens the same files)."""
    chosen = {name: environ[name] for name in STORE_VARIABLES if environ.get(name, "").strip()}
    chosen["BIBLIOTECA_DATA_DIR"] = str(settings.data_dir.resolve())
    return chosen


def record(
    settings: Settings, url: str, store: str, key: str = "", *, default_copy: bool = False
) -> None:
    """Note this process as the running serve (best effort: a read-only folder is fine);
    ``default_copy``: in the default folder too (its data folder was not named)."""
    data = {
        "url": url,
        "pid": os.getpid(),
        "store": store,
        "environ": store_environ(settings, os.environ),
        "key": key,
    }
    for path in _notes(settings, default_copy):
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            staging = path.with_name(f".{STATE}.{uuid.uuid4().hex}")
            # The key lets its holder trigger rebuilds: readable by this user only.
            staging.touch(mode=0o600)
            staging.write_text(json.dumps(data), encoding="utf-8")
            os.replace(staging, path)


def forget(settings: Settings) -> None:
    """Remove the notes that are this process's."""
    for path in _notes(settings, default_copy=True):
        if _read(path).get("pid") == os.getpid():
            path.unlink(missing_ok=True)


def _notes(settings: Settings, default_copy: bool) -> list[Path]:
    own = state_path(settings)
    default = DEFAULT_DIR / STATE
    if not default_copy or own.resolve() == default.resolve():
        return [own]
    return [own, default]


def running(settings: Settings, store: str) -> str | None:
    """The URL of a live serve using ``store``, or None."""
    served = served_at(state_path(settings))
    return served.url if served is not None and served.store == store else None


def served_at(path: Path) -> Served | None:
    """The live serve a note describes, or None (no note, not ours, or its process died)."""
    data = _read(path)
    url, pid, store = data.get("url"), data.get("pid"), data.get("store")
    if not isinstance(url, str) or not isinstance(pid, int) or not isinstance(store, str):
        return None
    if not url.startswith("http://") or not url.endswith("/"):
        return None  # not what serve writes
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None  # it died without removing its note
    except PermissionError:
        pass  # alive, another user's
    environ = data.get("environ")
    names = set(STORE_VARIABLES)
    chosen = (
        {k: v for k, v in environ.items() if k in names and isinstance(v, str)}
        if isinstance(environ, dict)
        else {}
    )
    key = data.get("key")
    return Served(url, pid, store, chosen, key if isinstance(key, str) else "")


def ask_rebuild(served: Served) -> str | None:
    """Ask a running serve to rebuild its site (as after a write it served itself).

    None when it took the request; otherwise why not, for the command to print.
    """
    request = urllib.request.Request(  # noqa: S310 - served_at() returns http:// only
        f"{served.url.rstrip('/')}{REBUILD_PATH}",
        data=b"",
        headers={KEY_HEADER: served.key},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=_POKE_TIMEOUT_S):  # noqa: S310
            return None
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return "it does not rebuild after writes (started with --no-rebuild)"
        return f"it answered {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return f"it did not answer ({exc})"


def _read(path: Path) -> JsonObject:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
