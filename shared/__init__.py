"""Biblioteca: the package every Cloud Function of the bundle shares.

Entry points live in ``functions/<name>/main.py``; everything they do is here.
"""
