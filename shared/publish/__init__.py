"""The site's I/O adapters: publishing a build (a local folder, a bucket) and the curator report.

``shared.site`` renders pages from data; these put the bytes somewhere (``SitePublisher`` and
``ReportWriter`` in ``shared.ports``), built by ``shared.bootstrap`` from the settings.
"""
