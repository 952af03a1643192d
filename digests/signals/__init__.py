"""Signals: momentum and spikes, how a topic's volume moves."""
