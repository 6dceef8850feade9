"""Properties of the parser on any text: it never fails, it never invents a mention, and it
never drops text — every word of every non-empty line is taken as something (a part, a title,
a format, a movement, a note or an unread piece)."""

from __future__ import annotations

import re
from collections import Counter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from spotter.domain.workout_parser import movements_of, parse_workout, read_workout
from spotter.domain.workout_parser.lines import lines_of
from tests.support.workout_metrics import BLIND, BLIND2, HELD_OUT, TUNED, load_fixtures

WORDS = st.sampled_from(
    [
        "21-15-9", "for time", "AMRAP", "EMOM", "E2MOM", "x", "12", "5", "rounds", ":", "-", "/",
        ",", "@", "95/65", "lb", "#", "kg", "75%", "RPE", "8", "pull-ups", "thrusters", "KBS",
        "HSPU", "400m", "run", "cal", "row", "30s", "plank", "+", "(", ")", "Rest", "Tabata",
        "Every", "2:00", "Min 1", "odd", "סבבים", "לזמן", "מתח", "\n", "Warm-up", "Buy-in",
        "Fran", "—", "then", "max", "3x5", "1,000", "death by", "build to", "♀", "♂", "65 lb",
        "раундов", "на время", "подтягиваний", "кг", "E2:30", "tempo 3-1-1-0", "1RM", "of",
        "and", "&", "10/10", "each side", "x3", "Barbell:", "Five", "and then", "DU/SU", "▪️",
        # forms of the second round: sentences and emoji between parts, Hebrew prefixes,
        # marks lines, back-off sets, prose openers, trailing formats
        ". ", "🔥", "!", "ft:", "ב-75%", "ומתח", "(1+2+1)", "x 5 sets", "Start with",
        "Start @ 60%", "of today's single", "TC 12'", "x 4 rounds", "NFT", "(for time)",
        "Max rounds of", "build", "in the remaining time", "גובלט סקוואט", "рывок в стойку",
        "לחיצת כתפיים עם משקולות יד", "Murph (20# vest)", "5/3/1 @ 75/85/95%", "|",
    ]
)  # fmt: skip
TEXTS = st.lists(WORDS, max_size=30).map(" ".join) | st.text(max_size=200)
FIXTURE_TEXTS = [
    f["text"] for folder in (TUNED, HELD_OUT, BLIND, BLIND2) for f in load_fixtures(folder)
]


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.lower()))


def _lost(text: str) -> list[tuple[str, list[str]]]:
    """(line, words the reader took nowhere) for each line that lost a word."""
    reading = read_workout(text)
    lost = []
    for line, took in zip(lines_of(text), reading.trace, strict=True):
        taken = _words(" ".join(fragment for _role, fragment in took))
        missing = list((_words(line) - taken).elements())
        if missing:
            lost.append((line, missing))
    return lost


@settings(max_examples=150, deadline=None)
@given(TEXTS)
# found by this test: "for time" read out of a line's middle left "12  for time" behind
@example("12 for time for time / 21-15-9 for time")
def test_any_text_reads_and_every_mention_is_a_piece_of_it(text: str) -> None:
    parsed = parse_workout(text)
    for movement in movements_of(parsed):
        assert movement["name"].strip()
        assert movement["mention"] in text
    assert all(piece in text for piece in parsed["unread"])


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_no_word_of_any_text_is_dropped(text: str) -> None:
    assert _lost(text) == []


def test_no_word_of_any_fixture_text_is_dropped() -> None:
    lost = {text: found for text in FIXTURE_TEXTS if (found := _lost(text))}
    assert lost == {}


def test_every_line_is_read_as_something() -> None:
    for text in FIXTURE_TEXTS:
        reading = read_workout(text)
        for line, took in zip(lines_of(text), reading.trace, strict=True):
            assert bool(line.strip()) == bool(took), (text, line)
