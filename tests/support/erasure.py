"""Where a person's personal data could hide: every text-like column of every table."""

from __future__ import annotations

import psycopg

_TEXT_COLUMNS = (
    "SELECT c.table_name, c.column_name FROM information_schema.columns c"
    " JOIN information_schema.tables t ON t.table_name = c.table_name"
    "  AND t.table_schema = c.table_schema AND t.table_type = 'BASE TABLE'"
    " WHERE c.table_schema = 'public' AND (c.data_type IN ('text', 'character varying',"
    " 'jsonb', 'json') OR c.udt_name IN ('_text', '_varchar'))"
    " ORDER BY c.table_name, c.column_name"
)


def text_columns(owner_url: str) -> list[tuple[str, str]]:
    """Every text, varchar, text[] or jsonb column of every table."""
    with psycopg.connect(owner_url) as conn:
        columns = [(t, c) for t, c in conn.execute(_TEXT_COLUMNS).fetchall()]
    assert len(columns) > 50, "expected the whole schema"
    return columns


def _columns_where(owner_url: str, condition: str, params: tuple[object, ...]) -> list[str]:
    found = []
    with psycopg.connect(owner_url) as conn:
        for table, column in text_columns(owner_url):
            value = f'"{column}"::text'
            hit = conn.execute(
                f'SELECT 1 FROM "{table}" WHERE {condition.format(v=value)} LIMIT 1', params
            ).fetchone()
            if hit:
                found.append(f"{table}.{column}")
    return found


def columns_mentioning(owner_url: str, *needles: str) -> list[str]:
    """`table.column` for every text-like column holding any needle (case-insensitive), across
    all tables and orgs: the owner connection bypasses RLS."""
    found: list[str] = []
    for needle in needles:
        found += _columns_where(owner_url, "{v} ILIKE %s", (f"%{needle}%",))
    return sorted(set(found))


def columns_matching(owner_url: str, pattern: str) -> list[str]:
    """Every text-like column with a value matching a (Postgres, case-insensitive) regex."""
    return _columns_where(owner_url, "{v} ~* %s", (pattern,))


def columns_with_both(owner_url: str, first: str, last: str) -> list[str]:
    """Every text-like column with a value holding both words (a name written apart)."""
    return _columns_where(owner_url, "{v} ~* %s AND {v} ~* %s", (rf"\m{first}\M", rf"\m{last}\M"))


def typed_phone(digits: str) -> str:
    """A loose pattern for a phone number however it was typed: its last nine digits, up to
    three non-digits between any two."""
    return "[^0-9]{0,3}".join(digits[-9:])
