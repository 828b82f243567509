"""How long each phase of a build took (the report's ``timings_ms``)."""

from __future__ import annotations

import time


class Timer:
    def __init__(self) -> None:
        self.phases: dict[str, float] = {}

    def phase(self, name: str) -> Phase:
        return Phase(self, name)


class Phase:
    def __init__(self, timer: Timer, name: str) -> None:
        self.timer, self.name = timer, name

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        elapsed = (time.perf_counter() - self.started) * 1000
        self.timer.phases[self.name] = round(self.timer.phases.get(self.name, 0) + elapsed, 1)
