"""The source dialects an import understands (MkDocs and its plugins, MDX), as tables of
constructs that any docs tree runs through, and what each import met of them."""
