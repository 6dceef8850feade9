"""Where a person's personal data could hide: every text-like column of every table."""

from __future__ import annotations

import psycopg


def columns_mentioning(owner_url: str, *needles: str) -> list[str]:
    """`table.column` for every text, varchar, text[] or jsonb column holding any needle
    (case-insensitive), across all tables and orgs: the owner connection bypasses RLS."""
    found = []
    with psycopg.connect(owner_url) as conn:
        columns = conn.execute(
            "SELECT c.table_name, c.column_name FROM information_schema.columns c"
            " JOIN information_schema.tables t ON t.table_name = c.table_name"
            "  AND t.table_schema = c.table_schema AND t.table_type = 'BASE TABLE'"
            " WHERE c.table_schema = 'public' AND (c.data_type IN ('text', 'character varying',"
            " 'jsonb', 'json') OR c.udt_name IN ('_text', '_varchar'))"
            " ORDER BY c.table_name, c.column_name"
        ).fetchall()
        assert len(columns) > 50, "expected the whole schema"
        for table, column in columns:
            for needle in needles:
                hit = conn.execute(
                    f'SELECT 1 FROM "{table}" WHERE "{column}"::text ILIKE %s LIMIT 1',
                    (f"%{needle}%",),
                ).fetchone()
                if hit:
                    found.append(f"{table}.{column}")
    return found
