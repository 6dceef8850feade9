"""Ambient RAG: entities the user's message probably means, found before the model sees it."""
