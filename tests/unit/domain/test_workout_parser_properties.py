"""Properties of the parser on any text: it never fails, and it never invents a mention."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from spotter.domain.workout_parser import movements_of, parse_workout

WORDS = st.sampled_from(
    [
        "21-15-9", "for time", "AMRAP", "EMOM", "E2MOM", "x", "12", "5", "rounds", ":", "-", "/",
        ",", "@", "95/65", "lb", "#", "kg", "75%", "RPE", "8", "pull-ups", "thrusters", "KBS",
        "HSPU", "400m", "run", "cal", "row", "30s", "plank", "+", "(", ")", "Rest", "Tabata",
        "Every", "2:00", "Min 1", "odd", "סבבים", "לזמן", "מתח", "\n", "Warm-up", "Buy-in",
        "Fran", "—", "then", "max", "3x5", "1,000", "death by", "build to",
    ]
)  # fmt: skip
TEXTS = st.lists(WORDS, max_size=30).map(" ".join) | st.text(max_size=200)


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_any_text_reads_and_every_mention_is_a_piece_of_it(text: str) -> None:
    parsed = parse_workout(text)
    for movement in movements_of(parsed):
        assert movement["name"].strip()
        assert movement["mention"] in text
    assert all(piece in text for piece in parsed["unread"])
