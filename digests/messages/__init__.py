"""Messages: digests and alerts as data, their charts, and their layout as text."""
