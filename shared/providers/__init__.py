"""Model providers behind the ``Embedder`` and ``Generator`` ports: local and Gemini."""
