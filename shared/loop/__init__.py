"""The feedback loop's pure core (docs/loop.md): what readers and agents signal, grouped.

``gap_groups``: questions the wiki answered badly, grouped across languages into gaps.
"""
