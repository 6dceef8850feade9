"""The product help corpus (short articles about the dashboard, shipped as package data) and
its hybrid search. Below `tools`: it imports only `db`, `providers` and `search`."""
