"""Persistence: tables, the engine, migrations and every query digestbot makes."""
