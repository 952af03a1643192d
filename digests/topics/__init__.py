"""Topics: the catalog, the tagger (rules and learned tier), its evaluation and re-tagging."""
