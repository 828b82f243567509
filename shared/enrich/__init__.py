"""Enrichment: the offline enrichers (pure: a page and what the store knows about it in,
suggestions out) and the ledger's rules (``ledger``: attempts, backoff, claim keys).

The worker that feeds them from the change log is ``shared.services.enrich``; the ledger
that makes it at-most-once lives in each store (``shared/store/*/enrich.py``).
"""
