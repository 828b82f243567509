"""The store fixtures themselves: each backend gets the environment it claims."""

from __future__ import annotations

import os

from shared.config import get_settings


def test_store_env_configures_the_named_backend(store_env: str) -> None:
    """``store_env`` leaves the settings naming the backend the test runs on."""
    settings = get_settings()
    assert settings.store == store_env
    if store_env == "firestore":
        assert (settings.google_cloud_project or "").startswith("test-")
        assert os.environ["FIRESTORE_EMULATOR_HOST"]
