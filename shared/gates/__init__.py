"""The archive gates: pure decisions on a question and its answer, cheapest first.

``meta`` (gate 0, regex), ``grounding`` (gate 1, path extraction + one code-index
read), ``triage`` (gate 2, local rules or a model through the ``Generator`` port).
"""
