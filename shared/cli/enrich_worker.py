"""``biblioteca serve``'s enrichment worker: a thread of the server's worker process that
follows the change log (``Enrichment.drain``) every ``INTERVAL_S``, so a page written
through the server, an import in another process or an accepted proposal gets its
proposals within seconds (docs/enrich.md measures write to proposal)."""

from __future__ import annotations

import threading
from typing import Any

from shared.logs import get_logger

INTERVAL_S = 1.0
_log = get_logger("enrich")


class EnrichWorker:
    """One daemon thread draining the change log until ``stop()``."""

    def __init__(self, interval: float = INTERVAL_S) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="enrich", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _loop(self) -> None:
        from shared.bootstrap import wiring

        while not self._stop.is_set():
            try:
                drained = wiring().enrichment().drain()
                if drained.proposals or drained.failed or drained.dead:
                    _log.info(
                        "enrich: %d change(s), %d proposal(s), %d to retry, %d set aside",
                        drained.changes,
                        drained.proposals,
                        drained.failed,
                        drained.dead,
                    )
            except Exception:  # the store down for a moment: the next pass tries again
                _log.exception("enrich: the change log could not be drained")
            self._stop.wait(self.interval)


def start_in_worker(_worker: Any = None) -> EnrichWorker | None:
    """gunicorn's ``post_worker_init``: start the thread unless ``BIBLIOTECA_ENRICH=off``."""
    from shared.config import get_settings

    if get_settings().enrich == "off":
        return None
    worker = EnrichWorker()
    worker.start()
    return worker
