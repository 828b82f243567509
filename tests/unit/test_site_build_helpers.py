"""Helpers of the build service: parallel parsing and the paused garbage collector."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from shared.services.site_build import bodies, run
from shared.site.markdown import render_body


@pytest.mark.slow
def test_parallel_parsing_matches_serial(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bodies parsed by spawned worker processes equal those parsed in-process."""
    contents = {f"concept—p{i}": f"# P{i}\n\nVer [[concept—p{i + 1}]] y `x`.\n" for i in range(40)}
    pools: list[dict[str, Any]] = []

    class RecordingPool(bodies.ProcessPoolExecutor):
        def __init__(self, **kwargs: Any) -> None:
            pools.append(kwargs)
            super().__init__(**kwargs)

    monkeypatch.setattr(bodies, "ProcessPoolExecutor", RecordingPool)
    monkeypatch.setattr(bodies, "PARALLEL_FROM", 10)
    monkeypatch.setattr(bodies.os, "cpu_count", lambda: 2)
    rendered = bodies.render_bodies(contents)
    assert rendered.bodies == {slug: render_body(text, slug) for slug, text in contents.items()}
    assert rendered.failed == {}
    assert [p["mp_context"].get_start_method() for p in pools] == ["spawn"]


def test_the_collector_is_paused_during_builds_and_restored_once() -> None:
    """Nested pauses keep the collector off until the outermost one ends."""
    assert gc.isenabled()
    with run._collector_paused():
        assert not gc.isenabled()
        with run._collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
