"""Printing a command's result: human lines by default, one JSON object with ``--json``."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from shared.logs import configure_logging

T = TypeVar("T")


def setup(args: Any) -> None:
    """Logs go to stderr so stdout stays the command's result."""
    del args
    configure_logging(stream=sys.stderr)


def emit(args: Any, payload: dict[str, Any], human: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(human)


def progress_bar(desc: str, unit: str, *, quiet: bool) -> Callable[[Iterable[T]], Iterable[T]]:
    """A progress bar on stderr for a terminal; nothing for ``--json`` or a pipe.

    tqdm is a dependency of the command line only: imported here, when a long command
    runs, so no function (and no other command) ever loads it.
    """

    def progress(items: Iterable[T]) -> Iterable[T]:
        if quiet or not sys.stderr.isatty():
            return items
        from tqdm import tqdm

        bar: Iterable[T] = tqdm(items, desc=desc, unit=unit, file=sys.stderr)
        return bar

    return progress
