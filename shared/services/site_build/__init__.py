"""The rebuild use case: validate every page, render what changed, publish, report.

``build_site`` (``run``) is the one door. Its steps, one module each: ``lease`` (one run
at a time), ``build`` (one run, in order), ``reading`` and ``sorting`` (the pages from
the store), ``live`` and ``bodies`` (parsing them), ``shared.site.plan`` (what to
render, pure), ``pages`` and ``files`` (rendering), ``publishing``, ``report`` (the
contract's report) and ``curator`` (the private curator report).
"""

from shared.services.site_build.files import logo_output, site_config
from shared.services.site_build.report import FAILED, IN_PROGRESS, OK, BuildReport, PageFailure
from shared.services.site_build.run import build_site

__all__ = [
    "FAILED",
    "IN_PROGRESS",
    "OK",
    "BuildReport",
    "PageFailure",
    "build_site",
    "logo_output",
    "site_config",
]
