"""The service tier: each function's handler called in process, on a temp SQLite store."""
