"""The use-case layer: each module reads from the store, lets the core decide and writes the
outcome, in one unit of work. Only this layer, `digests.store` and the composition root
(`bot/app.py`) import SQLModel or SQLAlchemy; the core below decides on plain data."""
