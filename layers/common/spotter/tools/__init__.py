"""The agent's tools: declarations, the per-role registry, model definitions, the runner, previews.

Importing `spotter.tools.catalog` loads every router in `spotter.tools.leaves`.
"""
