"""Printing a command's result: human lines by default, one JSON object with ``--json``."""

from __future__ import annotations

import json
import sys
from typing import Any

from shared.logs import configure_logging


def setup(args: Any) -> None:
    """Logs go to stderr so stdout stays the command's result."""
    del args
    configure_logging(stream=sys.stderr)


def emit(args: Any, payload: dict[str, Any], human: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(human)
