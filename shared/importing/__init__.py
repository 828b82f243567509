"""The import's one reading of a docs tree: a dialect table, one parse, named transforms.

``dialects`` says which generator wrote a tree (from its own configuration) and which
transforms, in which order, turn its files into the stored form; ``source`` parses a body
once with markdown-it so every transform knows where code is; ``pipeline`` runs them.
"""
