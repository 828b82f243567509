"""Objects every request thread shares, raced: the stemmers change no stem, the log's secret
list can grow while lines are scrubbed."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator

import pytest
import snowballstemmer

from shared import logs
from shared.retrieval import tokens
from shared.site import search

THREADS = 8
_ROOTS = ("configur", "conexion", "aplic", "desplieg", "servid", "autentic", "document", "rut")
_ENDINGS = ("aciones", "ando", "amientos", "idades", "ables", "ísimos", "adoras", "emente")


def _words() -> list[str]:
    """~4,000 distinct words, so the cache in front of the stemmer does not hide it."""
    return [f"{r}{i}{e}" for r in _ROOTS for e in _ENDINGS for i in range(64)]


@pytest.fixture
def tight_switching() -> Iterator[None]:
    """Threads switch every microsecond: a race shows in one run, not one in a thousand."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _race(stem: Callable[[str], str], words: list[str]) -> list[dict[str, str]]:
    results: list[dict[str, str]] = [{} for _ in range(THREADS)]
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def run(n: int) -> None:
        start.wait()
        try:
            for word in words if n % 2 else words[::-1]:  # half of them meet the rest
                results[n][word] = stem(word)
        except BaseException as exc:  # an IndexError inside the stemmer is the bug
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors[:3]
    return results


@pytest.mark.usefixtures("tight_switching")
def test_retrieval_stems_raced_by_threads_equal_a_serial_run() -> None:
    """8 threads stemming 4,000 words at once through ``tokens.stem``: no error, and every
    stem (the cached ones too) equals a private stemmer's."""
    words = _words()
    serial = snowballstemmer.stemmer("spanish")
    expected = {w: serial.stemWord(w) for w in words}
    tokens.stem.cache_clear()
    for result in _race(tokens.stem, words):
        assert result == expected
    assert {w: tokens.stem(w) for w in words} == expected  # what the cache kept


@pytest.mark.usefixtures("tight_switching")
@pytest.mark.parametrize(("language", "algorithm"), [("es", "spanish"), ("en", "english")])
def test_site_search_stems_raced_by_threads_equal_a_serial_run(
    language: str, algorithm: str
) -> None:
    """The site index's stemmer, per language, raced the same way: the serial stems."""
    words = _words()
    serial = snowballstemmer.stemmer(algorithm)
    expected = {w: serial.stemWord(w) or w for w in words}
    search.stem.cache_clear()
    for result in _race(lambda w: search.stem(w, language), words):
        assert result == expected


@pytest.mark.usefixtures("tight_switching")
def test_secrets_registered_while_other_threads_scrub_break_no_log_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A provider registering keys while 4 threads scrub log lines: no error, and a key
    registered before a line is scrubbed is redacted in it."""
    monkeypatch.setattr(logs, "_secrets", type(logs._secrets)())
    errors: list[BaseException] = []
    done = threading.Event()

    def scrubber() -> None:
        try:
            while not done.is_set():
                logs.scrub("a line with secret-000001 in it")
        except BaseException as exc:  # "Set changed size during iteration" is the bug
            errors.append(exc)

    threads = [threading.Thread(target=scrubber) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        for n in range(5000):
            logs.register_secret(f"secret-{n:06d}")
    finally:
        done.set()
        for thread in threads:
            thread.join(timeout=30)
    assert not errors, errors[:3]
    assert logs.scrub("a line with secret-000001 in it") == "a line with [redacted] in it"
