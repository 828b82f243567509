"""The use cases: each takes plain data and its collaborators, and returns plain data."""
