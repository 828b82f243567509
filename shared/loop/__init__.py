"""The feedback loop's pure core (docs/loop.md): what readers and agents signal, kept and grouped.

``gap_groups``: questions the wiki answered badly, grouped across languages into gaps;
``feedback_json``: answer traces and feedback as the JSON both stores keep.
"""
