"""Postgres: the app pool, org-scoped transactions, migrations and the embedded dev server."""

from spotter.db.pool import Conn, Database

__all__ = ["Conn", "Database"]
