"""The web pages as data: the topic index, a topic's page and its Atom feed (no web framework)."""
