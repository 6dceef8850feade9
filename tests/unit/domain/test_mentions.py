"""How a person is found in free text: every typed form, and nobody else (`domain.mentions`)."""

from __future__ import annotations

import pytest

from spotter.domain.mentions import ERASED, Mentions

DANA = Mentions.of(
    names=["Dana Levi"],
    emails=["Dana.Levi@example.com"],
    ids=["user_2abc"],
    phones=["+972-54-123-4567"],
)


@pytest.mark.parametrize(
    "text",
    [
        "Dana Levi", "dana   LEVI", "dana.levi@EXAMPLE.com", "clerk user_2abc",
        "054-1234567", "+972 (0)54-123-4567", "054 123 4567", "054.123.4567", "0541234567",
        "+972541234567", "(054) 123-4567",
    ],
)  # fmt: skip
def test_every_typed_form_is_erased(text: str) -> None:
    redacted = DANA.redacted(f"see {text} today")
    assert redacted.startswith("see ") and redacted.endswith(" today")
    assert ERASED in redacted and not any(c.isdigit() for c in redacted)


def test_a_first_and_last_name_apart_are_erased_where_both_occur() -> None:
    value = {"firstName": "Dana", "lastName": "Levi", "note": "Levi, Dana"}
    assert DANA.redacted(value) == {
        "firstName": ERASED,
        "lastName": ERASED,
        "note": f"{ERASED}, {ERASED}",
    }


def test_one_of_the_names_alone_is_someone_else() -> None:
    value = [{"coach": "Dana Cohen"}, {"lead": "Ron Levi"}, "Danaher Levin"]
    assert DANA.redacted(value) == value


def test_a_phone_stored_as_a_number_becomes_a_string_and_json_stays_json() -> None:
    assert DANA.redacted({"phone": 541234567, "count": 3, "ok": True}) == {
        "phone": ERASED, "count": 3, "ok": True,
    }  # fmt: skip


def test_keys_are_redacted_too() -> None:
    assert DANA.redacted({"Dana Levi": 1}) == {ERASED: 1}


def test_another_number_is_not_a_phone() -> None:
    assert DANA.redacted("order 054-1234568, 54123456") == "order 054-1234568, 54123456"


def test_a_mention_split_between_streamed_pieces_is_found_and_each_piece_keeps_its_place() -> None:
    pieces = ["call 054-12", "3-4567 or write dana.", "levi@example.com"]
    assert DANA.redacted_fragments(pieces) == [f"call {ERASED} or write {ERASED}", "", ""]
    untouched = ["nothing ", "to see"]
    assert DANA.redacted_fragments(untouched) is untouched
