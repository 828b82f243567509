"""Finding duplicate pages, pure: signatures of a page (shingles, MinHash, its meaning's
vector, the values it states for code references) and the comparison of two of them.

``signature`` turns a page into a ``Signature``; ``claims`` reads the values a page states
(``--port`` defaults to ``8000``); ``compare`` decides whether two signatures are a copy,
an overlap, a translation or a conflict. The store keeps the signatures
(``shared.store.*.duplicates``) and ``shared.services.duplicates`` runs the comparison.
"""
