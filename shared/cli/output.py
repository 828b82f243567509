"""Printing a command's result: human lines by default, one JSON object with ``--json``."""

from __future__ import annotations

import getpass
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from typing import TYPE_CHECKING, Any, TypeVar

from shared.config import Settings
from shared.logs import configure_logging

if TYPE_CHECKING:
    from shared.bootstrap import Wiring

T = TypeVar("T")


def setup(args: Any) -> None:
    """Logs go to stderr so stdout stays the command's result."""
    del args
    configure_logging(stream=sys.stderr)


def cli_actor(settings: Settings) -> str:
    """Who the command line writes as: ``BIBLIOTECA_ACTOR``, else ``cli:<login name>``
    (the person at the terminal; a CI job sets its own name)."""
    if settings.actor:
        return settings.actor
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        user = "unknown"
    return f"cli:{user}"


# What a terminal would act on rather than show: C0 and C1 controls (ESC starts the
# sequences that clear, retitle or recolour a terminal), DEL, and the Unicode characters
# that move text (line and paragraph separators, bidirectional overrides and isolates).
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_BREAKS = re.compile(r"[\t\n\r\v\f\u2028\u2029]+")


def plain(text: str) -> str:
    """Text from outside (a question, a comment, a title, a reason) made safe to print on
    one line of a terminal: line breaks and tabs fold into one space, every other control
    character shows as its escape (``\\x1b``), so it can neither forge a line nor reach
    the terminal as a command."""
    return _CONTROLS.sub(_escape, _BREAKS.sub(" ", text))


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def emit(args: Any, payload: Mapping[str, object], human: str) -> None:
    """``--json``: one JSON document (``json.dumps`` escapes every control character;
    ``payload`` is a command's JSON object or TypedDict, which is a ``Mapping[str, object]``);
    otherwise the human lines, each made ``plain`` (the command's own line breaks stay)."""
    if getattr(args, "json", False):
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print("\n".join(plain(line) for line in human.split("\n")))


PROGRESS_EVERY = 25  # items between two progress lines when stderr is not a terminal
PROGRESS_SECONDS = 5.0  # ... or this long, whichever comes first


def progress_bar(desc: str, unit: str, *, quiet: bool) -> Callable[[Iterable[T]], Iterable[T]]:
    """Progress on stderr: a bar for a terminal, plain lines for a pipe or a log file
    (every ``PROGRESS_EVERY`` items or ``PROGRESS_SECONDS``), nothing for ``--json``.

    tqdm is a dependency of the command line only: imported here, when a long command
    runs, so no function (and no other command) ever loads it.
    """

    def progress(items: Iterable[T]) -> Iterable[T]:
        if quiet:
            return items
        if not sys.stderr.isatty():
            return progress_lines(items, desc, unit)
        from tqdm import tqdm

        bar: Iterable[T] = tqdm(items, desc=desc, unit=unit, file=sys.stderr)
        return bar

    return progress


def progress_lines(
    items: Iterable[T],
    desc: str,
    unit: str,
    *,
    every: int = PROGRESS_EVERY,
    seconds: float = PROGRESS_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[T]:
    """``import: 50/1200 pages (4 %), 12 s`` lines on stderr while ``items`` are consumed."""
    total = len(items) if isinstance(items, Sized) else None
    started = last = clock()
    done = 0

    def line(prefix: str) -> None:
        of = f"/{total} {unit}s ({100 * done // total} %)" if total else f" {unit}s"
        print(f"{desc}: {prefix}{done}{of}, {clock() - started:.0f} s", file=sys.stderr)

    for item in items:
        yield item
        done += 1
        now = clock()
        if done % every == 0 or now - last >= seconds:
            line("")
            last = now
    line("done, ")


def index_snapshot_line(w: Wiring) -> str:
    """Store the search index's snapshot after a bulk write, and say so in one line: the
    next cold ``ask`` instance then loads it instead of reading every chunk."""
    from shared.errors import BibliotecaError

    try:
        count = w.store_index_snapshot()
    except BibliotecaError as exc:
        return (
            f"  warning: the search index snapshot was not stored ({exc.message}); "
            "the next cold ask reads every chunk"
        )
    return f"search index snapshot stored ({count} chunks): cold ask instances start from it"
