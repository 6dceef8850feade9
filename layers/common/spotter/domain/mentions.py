"""How a person appears in free text, and taking them out of it (member erasure).

A person is mentioned by their full name (any spacing, any case), their first and last name
apart (`{"firstName": "Dana", "lastName": "Levi"}`, "Levi, Dana": both words in one stored
value), their email, their Clerk user id (an identity outside our database), and their phone
numbers in the forms people type them (`054-123-4567`, `+972 54 123 4567`, `(054) 1234567`:
the number's last nine digits with up to three separators between any two, after an optional
country code and trunk 0). Each mention becomes `[erased]`.

Values are redacted structurally, in Python: a jsonb value's strings and keys (and a number
that spells a phone) are rewritten and the value stays valid JSON; a text array's items; a
text. Postgres only preselects the rows (`redact_columns`: a superset, substrings and a loose
digits pattern), locked `FOR UPDATE` so each is rewritten once, in the caller's transaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from psycopg import sql
from psycopg.types.json import Jsonb

from spotter.db import Conn

ERASED = "[erased]"
ColumnType = Literal["text", "jsonb", "text[]"]
PHONE_DIGITS = 9  # the national number's tail: unique enough, and in every typed form
_MIN_PHONE_DIGITS = 7
_MIN_NAME_PART = 2
_SEPARATORS = r"[\s().\-]{0,3}"


def _like(needle: str) -> str:
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def phone_tail(phone: str) -> str | None:
    digits = re.sub(r"\D", "", phone)
    return digits[-PHONE_DIGITS:] if len(digits) >= _MIN_PHONE_DIGITS else None


@dataclass(frozen=True)
class Mentions:
    """The patterns of one person; `redacted(value)` takes them out of any stored value."""

    literals: tuple[str, ...]  # email, Clerk id: case-insensitive substrings
    full_names: tuple[str, ...]
    name_pairs: tuple[tuple[str, str], ...]  # (first, last): redacted where both occur
    phones: tuple[str, ...]  # digit tails

    @classmethod
    def of(
        cls,
        *,
        names: Iterable[str],
        name_pairs: Iterable[tuple[str, str]] = (),
        emails: Iterable[str | None] = (),
        ids: Iterable[str | None] = (),
        phones: Iterable[str | None] = (),
    ) -> Mentions:
        full = tuple(dict.fromkeys(n.strip() for n in names if n and n.strip()))
        pairs = [*name_pairs]
        for name in full:
            parts = name.split()
            if len(parts) >= 2:
                pairs.append((parts[0], parts[-1]))
        kept_pairs = tuple(
            dict.fromkeys(
                (a.strip(), b.strip())
                for a, b in pairs
                if len(a.strip()) >= _MIN_NAME_PART and len(b.strip()) >= _MIN_NAME_PART
            )
        )
        literals = tuple(dict.fromkeys(v.strip() for v in [*emails, *ids] if v and v.strip()))
        tails = tuple(dict.fromkeys(t for p in phones if p and (t := phone_tail(p))))
        return cls(literals, full, kept_pairs, tails)

    # ---- Python: the redaction ------------------------------------------------------------

    def _direct(self) -> re.Pattern[str] | None:
        parts = [re.escape(v) for v in self.literals]
        parts += [r"\s+".join(re.escape(w) for w in name.split()) for name in self.full_names]
        prefix = r"(?:\+?\d{1,3}" + _SEPARATORS + r")?(?:\(?0\)?" + _SEPARATORS + r")?"
        parts += [prefix + _SEPARATORS.join(tail) + r"(?!\d)" for tail in self.phones]
        return re.compile("|".join(parts), re.IGNORECASE) if parts else None

    @staticmethod
    def _word(word: str) -> re.Pattern[str]:
        return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)

    def redacted(self, value: Any) -> Any:
        """`value` (a str, or JSON: dict / list / scalars) with every mention replaced; pairs
        are judged over the whole value (a first name in one field, the last in another)."""
        direct = self._direct()
        if direct is not None:
            value = _rewrite(value, lambda s: direct.sub(ERASED, s), self._phone_number)
        for first, last in self.name_pairs:
            value = _pair_redacted(value, self._word(first), self._word(last))
        return value

    def redacted_fragments(self, fragments: list[str]) -> list[str]:
        """Text streamed in pieces ("Dana Le" + "vi"): the pieces read as one text, so a mention
        split between them is found; when one was, the first piece carries the whole redacted
        text and the others are empty (as many pieces as before: each keeps its place)."""
        joined = "".join(fragments)
        redacted = self.redacted(joined)
        if redacted == joined:
            return fragments
        return [redacted, *([""] * (len(fragments) - 1))]

    def _phone_number(self, number: int | float) -> Any:
        digits = re.sub(r"\D", "", str(number))
        return ERASED if any(digits.endswith(t) for t in self.phones) else number

    # ---- SQL: the preselection ------------------------------------------------------------

    def _needles(self) -> list[str]:
        words = [w for pair in self.name_pairs for w in pair]
        return [_like(v) for v in (*self.literals, *self.full_names, *words)]

    def _digits(self) -> str | None:
        if not self.phones:
            return None
        return "|".join("[^0-9]{0,3}".join(tail) for tail in self.phones)

    def preselect(self, text: sql.Composable) -> tuple[sql.Composable, dict[str, Any]]:
        """A condition true for every value (cast to text) that may mention the person."""
        clauses = [sql.SQL("{} ILIKE ANY(%(mention_needles)s)").format(text)]
        params: dict[str, Any] = {"mention_needles": self._needles()}
        if (digits := self._digits()) is not None:
            clauses.append(sql.SQL("{} ~ %(mention_digits)s").format(text))
            params["mention_digits"] = digits
        return sql.SQL("({})").format(sql.SQL(" OR ").join(clauses)), params


def _rewrite(value: Any, text: Any, number: Any = None) -> Any:
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {text(k): _rewrite(v, text, number) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, text, number) for v in value]
    if number is not None and isinstance(value, int | float) and not isinstance(value, bool):
        return number(value)
    return value


def _pair_redacted(value: Any, first: re.Pattern[str], last: re.Pattern[str]) -> Any:
    """Both words erased where they are written together: in one string ("Levi, Dana"), or
    among one object's own strings and keys (`{"firstName": "Dana", "lastName": "Levi"}`).
    One of them alone, or the two in unrelated places, is someone else."""

    def both(s: str) -> str:
        return last.sub(ERASED, first.sub(ERASED, s))

    if isinstance(value, str):
        return both(value) if first.search(value) and last.search(value) else value
    if isinstance(value, list):
        return [_pair_redacted(v, first, last) for v in value]
    if not isinstance(value, dict):
        return value
    own = [*value.keys(), *(v for v in value.values() if isinstance(v, str))]
    together = any(first.search(s) for s in own) and any(last.search(s) for s in own)
    out: dict[Any, Any] = {}
    for key, item in value.items():
        if together:
            key = both(key)
            item = both(item) if isinstance(item, str) else item
        out[key] = _pair_redacted(item, first, last)
    return out


async def redact_columns(
    conn: Conn,
    org_id: Any,
    table: str,
    columns: Mapping[str, ColumnType],
    mentions: Mentions,
) -> int:
    """Rewrite every row of the org's `table` whose `columns` mention the person; how many.
    The table's owner calls this with its own table (the statement is built here once)."""
    conditions, params = [], {"org": org_id}
    for column in columns:
        condition, found = mentions.preselect(sql.SQL("{}::text").format(sql.Identifier(column)))
        conditions.append(condition)
        params |= found
    selected = sql.SQL(
        "SELECT ctid, {columns} FROM {table} WHERE organization_id = %(org)s AND ({found})"
        " FOR UPDATE"
    ).format(
        columns=sql.SQL(", ").join(sql.Identifier(c) for c in columns),
        table=sql.Identifier(table),
        found=sql.SQL(" OR ").join(conditions),
    )
    cur = await conn.execute(selected, params)
    rows = await cur.fetchall()
    update = sql.SQL("UPDATE {table} SET {sets} WHERE ctid = %(ctid)s::tid").format(
        table=sql.Identifier(table),
        sets=sql.SQL(", ").join(
            sql.SQL("{} = {}").format(sql.Identifier(c), sql.Placeholder(f"c{i}"))
            for i, c in enumerate(columns)
        ),
    )
    changed = 0
    for row in rows:
        values: dict[str, Any] = {"ctid": str(row["ctid"])}
        new = [mentions.redacted(row[column]) for column in columns]
        if new == [row[column] for column in columns]:
            continue  # preselected, but no mention after all (another Dana, another Levi)
        for i, (value, kind) in enumerate(zip(new, columns.values(), strict=True)):
            values[f"c{i}"] = Jsonb(value) if kind == "jsonb" and value is not None else value
        await conn.execute(update, values)
        changed += 1
    return changed
