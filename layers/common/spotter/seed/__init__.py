"""Demo data for `make dev` and for trying Spotter by hand."""
