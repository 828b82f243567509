"""Text rules every part of Biblioteca shares, each written once: accent folding, slugs,
wiki links, Markdown read as plain text, the language of a text, ``--since`` values."""
