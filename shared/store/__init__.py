"""The store adapters: SQLite (embedded, the default) and Firestore.

``shared.bootstrap`` opens the one the settings name, once per process.
"""
