"""Retrieval's pure core: chunking, lexical ranking and score fusion."""
