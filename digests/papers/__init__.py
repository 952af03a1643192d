"""Papers: reading arXiv documents, first-version dates, and ingesting records."""
