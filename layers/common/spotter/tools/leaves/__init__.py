"""One module per router; `spotter.tools.catalog.load_catalog` imports them all."""
