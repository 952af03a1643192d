"""Ask about a topic: its papers ranked by relevance to a question."""
