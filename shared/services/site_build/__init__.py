"""The rebuild use case: validate every page, render what changed, publish, report.

``build_site`` is the one door; the modules of this package are its steps.
"""

from shared.services.site_build.build import (
    FAILED,
    IN_PROGRESS,
    OK,
    BuildReport,
    build_site,
    logo_output,
    site_config,
)

__all__ = ["FAILED", "IN_PROGRESS", "OK", "BuildReport", "build_site", "logo_output", "site_config"]
