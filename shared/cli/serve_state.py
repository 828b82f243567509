"""Where a running ``biblioteca serve`` listens, so ``biblioteca ask`` can use its warm model.

``serve`` writes ``$BIBLIOTECA_DATA_DIR/serve.json`` (its address, process id and which
store it uses) once it listens, and removes it when it stops. ``ask`` posts to that
address only when the process is alive and uses the same store as the command would.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from pathlib import Path
from typing import Any

from shared.config import Settings

STATE = "serve.json"


def state_path(settings: Settings) -> Path:
    return settings.data_dir / STATE


def connectable(host: str, port: int) -> str:
    """The base URL a local client uses for a server bound to ``host``."""
    if host in ("0.0.0.0", ""):  # noqa: S104 - naming the wildcard, not binding to it
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def record(settings: Settings, url: str, store: str) -> None:
    """Note this process as the running serve (best effort: a read-only folder is fine)."""
    path = state_path(settings)
    data = {"url": url, "pid": os.getpid(), "store": store}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f".{STATE}.{uuid.uuid4().hex}")
        staging.write_text(json.dumps(data), encoding="utf-8")
        os.replace(staging, path)


def forget(settings: Settings) -> None:
    """Remove the note if it is this process's."""
    path = state_path(settings)
    if _read(path).get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def running(settings: Settings, store: str) -> str | None:
    """The URL of a live serve using ``store``, or None."""
    data = _read(state_path(settings))
    url, pid = data.get("url"), data.get("pid")
    if not isinstance(url, str) or not isinstance(pid, int) or data.get("store") != store:
        return None
    if not url.startswith("http://") or not url.endswith("/"):
        return None  # not what serve writes
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None  # it died without removing its note
    except PermissionError:
        pass  # alive, another user's
    return url


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
