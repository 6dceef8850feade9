"""Building the workout: line by line into parts, sections and movements.

The reader decides what each line is — a part header, the title, a format, movements, a note —
and where it belongs. Every line is accounted for: the reader records what it took from each
line (`Reading.trace`), and a line it could not read is kept as a note (and, when it carries a
number, listed as unread), so no text is ever dropped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from spotter.domain import movement_vocabulary as vocabulary
from spotter.domain.workout_parser import lexicon, nets, quantities
from spotter.domain.workout_parser.formats import (
    CAP,
    FOR_TIME,
    MINUTE_WORDS,
    SCHEME,
    TABATA,
    WINDOW,
    absorb,
    cap_seconds,
    completes,
    format_prefix,
    leading_scheme,
    of_ending,
    section_header,
    window_seconds,
)
from spotter.domain.workout_parser.lexicon import words
from spotter.domain.workout_parser.lines import (
    LABEL_PREFIX,
    LETTER,
    QUANTITY,
    hyphened,
    lines_of,
    numbered,
    sentences,
    squeeze,
    unbulleted,
    undecorated,
    without_trailing_emoji,
)
from spotter.domain.workout_parser.lists import (
    DISTANCE_ONLY,
    between,
    format_ending,
    format_piece,
    heading,
    names_known,
    reads_as_movements,
    trailing_format,
)
from spotter.domain.workout_parser.marks import heavy_reps, marks_only
from spotter.domain.workout_parser.model import Part, Section, movements_of, part_out
from spotter.domain.workout_parser.movements import (
    PAIRED,
    PERCENT_SET,
    REST,
    SLOT,
    THEN,
    complex_of,
    counted,
    equipment_only,
    first_piece,
    implement,
    is_lift,
    loadable,
    movement,
    names_a_movement,
    one_sided,
    pieces,
)
from spotter.domain.workout_parser.notes import is_greeting, is_note, is_note_start, is_prose
from spotter.domain.workout_parser.titles import (
    ASIDE,
    BOOKEND,
    BOOKEND_INSIDE,
    CAPPED_TITLE,
    NAME_FORMAT_SEP,
    TITLE_SEP,
    format_said,
    header,
    is_name,
    is_title,
    known_name,
    named_head,
    named_title,
    unquoted,
)

# A line the net may read again in pieces: a colon, a spaced dash, a closing bracket or a
# number (a clock) in it.
_NETTED = re.compile(r":|\s[-–—]\s|[)\]][\s.!]*$|\d")
_HEADER_SEP = re.compile(
    r"^(?P<head>(?:[^:(]|\([^()]*\)){1,40}?)"  # "Part 1 (0:00-15:00): …": a window's colons
    r"(?:\s*:\s*|\s+[-–—]\s+|\s+(?=[xX×]\s*\d|\d+\s*[xX×]$|\d+\s+\w+:$))(?P<tail>.+)$"
)
# The workout's own heading, before its name ("Hero WOD - Roy", "אימון גיבור: מרפי").
_HEADING_WORDS = (
    r"(?:(?:hero|partner|team|benchmark|girl)\s+)?(?:wod|metcon|workout|אימון|מטקון|комплекс"
    r"|тренировка)(?:\s+(?:גיבור|זוגות|героя|геройский))?|геройский\s+комплекс|hero|גיבור|герой"
    r"|benchmark|girl|бенчмарк"
)
_WORKOUT_HEADING = re.compile(rf"^(?:{_HEADING_WORDS})$", re.I)
# 'Hero WOD "Nate" AMRAP 20 min: …', "Hero WOD BADGER: 3 RFT …": the heading, then the name
# and what the line says.
_HEADING_LEAD = re.compile(rf"^(?P<head>{_HEADING_WORDS})(?:\s*[:\-–—|]\s*|\s+)(?=\S)", re.I)
# "ANNIE, for time: …", "ANNIE (for time) 50-40-30-20-10 …", "BADGER (Hero) 3 RFT: …": a
# name, then a comma or a bracket, then what the line says.
_NAME_THEN = re.compile(
    r"^(?P<name>[^\d,():]{2,40}?)(?:\s*,\s*|\s*\((?P<aside>[^()]+)\)\s*)(?P<rest>.+)$"
)
_FORMAT_SEP = re.compile(
    r"^(?P<head>.+?)(?P<sep>\s*:(?!\d{2}(?!\d))\s*|\s+[-–—|]\s+|\s+(?:of|из)\s+)(?P<tail>.+)$",
    re.I,
)
_COMMA_SEP = re.compile(r"^(?P<head>[^,]+?),\s*(?P<tail>.+)$")
_COLON_SEP = re.compile(r"^(?P<head>[^:]+?)(?P<sep>\s*:(?!\d{2}(?!\d))\s*)(?P<tail>.+)$")
# "JT 21-15-9 …", "Grace 30 C&J for time …", "The Chief 5 x 3 min AMRAP …": a name before
# what the line says; which words are the name is tried shortest first.
_SAYS_WHAT = re.compile(r"\d|for\s+time|rft\b|amrap|e\d*mom|emotm|tabata", re.I)
_VEST_NOTE = re.compile(rf"(?<!\w){words(lexicon.IMPLEMENTS['vest'])}(?!\w)", re.I)
_GROUP_LABEL = re.compile(r"^([A-Ea-eА-Да-дא-ה])(\d)\s*[).:\-–—]?\s+")
_LEADING_ROUNDS = re.compile(
    rf"^(\d+)\s*{words(lexicon.ROUNDS)}(?:\s+(?:of|של|по|из))?\s*[-–—:]\s*(?=[^\W\d]|\d)", re.I
)
_LEADING_TAGS = re.compile(r"^(?:#[^\W\d][\w-]*\s+)+(?=\S)")
_QUOTED_NAME = re.compile(r"^[\"“'«]([^\"“”'«»\d]{2,30})[\"”'»]\s+")
_LEADING_WORDS = re.compile(
    r"^([A-ZА-ЯЁ][\w'’.]*)(?:\s+([A-ZА-ЯЁ][\w'’.]*))?(?:\s+([A-ZА-ЯЁ][\w'’.]*))?\s+"
)
_DEATH_BY = re.compile(rf"^{words(lexicon.DEATH_BY)}\s*[-:]?\s*", re.I)
_BOLD = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])")
# "A) 10 burpees", "(B) 20 DU", "Б) …", "ב) …": a letter labels what follows.
_LETTER_LABEL = re.compile(r"^\(?([A-Ea-eА-Да-дא-ה])\)\s+(?=\S)")
_INLINE_LETTER = re.compile(r"(?:^|(?<=[\s:;,]))\(?([A-Ea-eА-Да-дא-ה])\)\s+(?=\S)")
_LETTERS = ("abcde", "абвгд", "אבגדה")


def _letter(m: re.Match[str]) -> str:
    return m.group(1).lower()


def _lettered(text: str) -> list[str]:
    """A line cut before each letter label in it ("2 x 10' AMRAP A) … B) …"), when the letters
    count on from A and what comes before the first is nothing or a format ([text] otherwise)."""
    found = list(_INLINE_LETTER.finditer(text))
    if not found:
        return [text]
    letters = "".join(_letter(m) for m in found)
    if not any(alphabet.startswith(letters) for alphabet in _LETTERS):
        return [text]
    before = text[: found[0].start()].strip(" :–—-")
    if before and section_header(before, header_only=True) is None:
        return [text]
    if not before and len(found) < 2:
        return [text]
    cuts = [m.start() for m in found]
    return [
        c
        for c in (
            text[: cuts[0]],
            *(text[a:b] for a, b in zip(cuts, [*cuts[1:], len(text)], strict=True)),
        )
        if c.strip()
    ]


# "Week 1: 5x5 @ 70%", "שבוע 2 5x4 ב-75%", "неделя 3 — 5х3 на 80%": a week of a cycle.
_WEEK = re.compile(
    r"(?:^|(?<=[\s,;:/|–—-]))(?:week|wk|שבוע|неделя|нед\.?)\s*\d{1,2}\s*[:\-–—.)]?\s*", re.I
)


def _weekly(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(what comes before, [(week label, its marks)]) when a line gives weeks' sets of one
    lift ("Back squat: Week 1: 5x5 @ 70%, Week 2: …"); None when it is not such a line."""
    found = list(_WEEK.finditer(text))
    if not found:
        return None
    before = text[: found[0].start()].strip(" :–—-,")
    ends = [m.start() for m in found[1:]] + [len(text)]
    weeks = [
        (m.group(0), text[m.end() : end].strip(" ,;/|–—-"))
        for m, end in zip(found, ends, strict=True)
    ]
    if not all(marks_only(marks) is not None for _label, marks in weeks):
        return None  # "Week 3 – squat cycle": a heading
    if before and (vocabulary.lookup(before) is None or QUANTITY.search(before)):
        return None
    return before, weeks


_ROUNDS_OF_BRACKET = re.compile(
    rf"^(?:(?P<before>\d+)\s*{lexicon.TIMES}\s*)?\((?P<list>[^()]*(?:\([^()]*\)[^()]*)*)\)"
    rf"(?:\s*{lexicon.TIMES}\s*(?P<after>\d+))?\s*\.?$"
)
_PIECE_BREAK = re.compile(r"\s*[,;]\s+|\s+[-–—]\s+")
_DEATH_HOW = re.compile(r"^(?P<what>[^:–—]+?)\s*(?::|\s[-–—]\s)\s*(?P<how>.+)$")
_BUILD_TO = re.compile(
    rf"^(?:{words(lexicon.BUILD_TO)})\s+(?:an?\s+)?(?:heavy\s+|max\s+|тяжёл\w*\s+|тяжел\w*\s+)?"
    r"(?:set\s+of\s+(?P<set>\d+)\s+(?:on|of|in|with)\s+(?:the\s+)?)?"  # "a heavy set of 5 on the"
    r"(?:(?:\d+|single|double|triple|одиночн\w*)[-\s]?(?:rep|RM|ПМ)?\s+)?(?P<lift>.+?)"
    rf"(?:\s*\(\s*\d+\s*(?:{MINUTE_WORDS}|')\s*\)|\s+in\s+\d+.*|\s+over\s+.*|\s+за\s+\d+.*)?$",
    re.I,
)
# A clock that opens a section: Tabata, AMRAP N, EMOM N (not "E2:30", a lift's clock).
_OPENING_CLOCK = (
    rf"(?:{words(lexicon.TABATA)}|{words(lexicon.AMRAP)}\s*\d|[EЕ]\d*(?:MOM|MOTM|МОМ)\s*\d)(?!\w)"
)
_FORMAT_OPENS = re.compile(rf"^{_OPENING_CLOCK}", re.I)
_FORMAT_AGAIN = re.compile(
    rf"(?P<sep>\s*(?:[+,/&]|\s(?:and|и|{words(lexicon.THEN)})\s)\s*)(?={_OPENING_CLOCK})", re.I
)
_WHEN_PAIRED = re.compile(rf"(?<!\w){words(lexicon.BETWEEN_SETS)}\.?$", re.I)
_ROUNDS_ONLY = re.compile(
    rf"(?P<n>\d+)\s*{words(lexicon.ROUNDS)}(?!\w)(?:\s*[,(]?\s*(?P<work>\d+)\s*/\s*(?P<rest>\d+)"
    r"\s*\)?)?\.?",
    re.I,
)
_BRACKET_ROUNDS = re.compile(
    rf"\((?:[^()]*,\s*)?(\d+)\s*{words(lexicon.ROUNDS)}(?!\w)\s*\)[\s.!]*$", re.I
)
_LEADING_WINDOW = re.compile(rf"^{WINDOW.pattern}\s*[:–—-]?\s*")
_HEAVY_WORDS = frozenset(w.lower() for spelled in lexicon.HEAVY_SETS.values() for w in spelled)
_BUILD_START = re.compile(rf"^{words(lexicon.BUILD_TO)}(?!\w)", re.I)
# "Snatch: build to a heavy single", "Snatch – 15 minutes to find a heavy single".
_NAMED_BUILD = re.compile(
    rf"^(?P<lift>[^:–—]{{2,40}}?)(?:\s*:\s*|\s+[-–—]\s+)(?:(?:(?:in|за|תוך|ב-?)\s*)?(?:\d+\s*(?:{MINUTE_WORDS}|')"
    rf"|{WINDOW.pattern})\s*(?:to\s+|на\s+|כדי\s+)?)?(?={words(lexicon.BUILD_TO)}(?:\s|-|\d|(?<=ל)[א-ת]))",
    re.I,
)
# How long the lift is built up: "in 15 min", "(12 min)", "15 minutes to find", "за 15 мин",
# "ב-15 דקות", "0:00-12:00".
_BUILD_CLOCK = re.compile(
    r"(?:(?<!\w)(?:in|within|over|за|תוך|ב-?)\s*|\(\s*|(?<=[:–—-])\s*)(?P<n>\d+)\s*"
    rf"(?:{MINUTE_WORDS}|['’])(?!\w)"
    rf"|{WINDOW.pattern}",
    re.I,
)
# "Build to a heavy triple across the sets" is about the lift above, not a lift of its own.
_NOT_A_LIFT = re.compile(r"\b(?:across|the|sets?|today|each|every)\b", re.I)
_OPENS_WITH = re.compile(rf"^{words(lexicon.OPENS_WITH)}(?!\w)\s*", re.I)
_MAX_OF = re.compile(rf"^{words(lexicon.MAX_OF)}(?!\w)\s*:?", re.I)
_ADVICE = re.compile(rf"(?<!\w){words(lexicon.ADVICE)}(?!\w)", re.I)
_ARTICLE = re.compile(r"^\s*(?:an?|the)\s+(?=\d)", re.I)
_SCALED_APART = re.compile(rf"[,;|/]\s*(?={words(lexicon.SCALED)}(?!\w))", re.I)
_LOAD_LABEL = re.compile(rf"^{words(lexicon.LOAD_LABELS)}(?!\w)\s*:?", re.I)
_QUOTED = re.compile(r"^[\"“'][^\d\"“”']{2,40}[\"”']:?$")
# Implements a load stated once can belong to, in the order a plain load goes to them.
_LOADED = ("barbell", "dumbbell", "kettlebell", "medicine ball", "sandbag", "plate")


@dataclass
class Reading:
    """What the reader made of a text: the parsed workout and, per line, what it took."""

    parsed: dict[str, Any]
    trace: list[list[tuple[str, str]]] = field(default_factory=list)


class Reader:
    def __init__(self) -> None:
        self.title: str | None = None
        self.parts: list[Part] = []
        self.seen_content = False
        self.unread: list[str] = []
        self.warnings: list[dict[str, Any]] = []
        self.trace: list[list[tuple[str, str]]] = []
        self.raw = ""  # the line being read, as written
        self.last_line: list[dict[str, Any]] = []  # the movements the last line gave
        # The movements of the nearest line above that gave any, and whether only "+" joined
        # them ("Power clean + front squat + split jerk": a complex whose counts may follow).
        self.line_above: list[dict[str, Any]] = []
        self.joined_above = False
        self.joined = False
        self.paired = False  # the line pairs its lift with the one above ("superset w/ …")
        self.label: tuple[str, int] | None = None  # the last group label read ("A1)": a, 1)
        # The letter the lines read now are labelled with ("A) 10 burpees, 15 KBS"), and the
        # letter each movement was read under: "2 x 10' AMRAP" then "A) …", "B) …" is two AMRAPs.
        self.letter: str | None = None
        self.lettered: dict[int, str] = {}
        self.week_read = False  # a week of a cycle was read: the next week is its own section
        self.columns: list[str] | None = None  # a pasted table's columns, from its header row
        # Sections opened only to keep a new letter's lines apart; left empty, they are dropped.
        self.opened: set[int] = set()

    # -- where things go ---------------------------------------------------------------------

    def took(self, role: str, text: str) -> None:
        if self.trace:
            self.trace[-1].append((role, text))

    def part(self) -> Part:
        if not self.parts:
            self.parts.append(Part(name="Workout"))
        return self.parts[-1]

    def section(self) -> Section:
        part = self.part()
        if not part.sections:
            part.sections.append(Section())
        return part.sections[-1]

    def note(self, text: str, *, role: str = "note") -> None:
        self.took(role, text)
        part = self.part()
        (part.sections[-1].notes if part.sections else part.notes).append(text)

    def add_movement(self, move: dict[str, Any], section: Section | None = None) -> None:
        self.took("movement", move["mention"])
        if self.letter is not None:
            self.lettered[id(move)] = self.letter
        (section or self.section()).movements.append(move)
        self.last_line.append(move)

    def add_section(self, section: Section, text: str = "") -> None:
        """A format line; one right after another format line with no movements completes it
        ("All for time:" then "5 rounds of:", "לזמן:" then "21-15-9")."""
        if text:
            self.took("format", text)
        self.seen_content = True
        self.letter = None
        part = self.part()
        current = part.sections[-1] if part.sections else None
        empty = current is not None and current.from_header and not current.movements
        if current is not None and empty and completes(current, section):
            absorb(current, section)
            return
        if (
            current is not None
            and not current.movements
            and not current.from_header
            and (current.halves or current.shared)
        ):
            # "Men: 135 lb. Women: 95 lb." then "21-15-9 reps for time of:": the standards are
            # the section's the format opens
            section.halves[:0], section.shared[:0] = current.halves, current.shared
            section.notes[:0] = current.notes
            part.sections.pop()
        part.sections.append(section)

    # -- a line ------------------------------------------------------------------------------

    def line(self, raw: str, *, numbered: bool = False) -> None:
        self.raw = raw
        self.trace.append([])
        if self.last_line:
            self.line_above, self.joined_above = self.last_line, self.joined
        self.last_line, self.joined = [], False
        if not _NETTED.search(raw):
            self.whole_line(raw, numbered=numbered)
            return
        start = nets.copied(self.__dict__)
        self.whole_line(raw, numbered=numbered)
        unread = len(self.unread) > len(start["unread"])
        if not nets.lost(self.last_line, self.trace[-1], unread=unread):
            return
        best, best_state = nets.named(self.last_line), self.__dict__
        self.__dict__ = nets.copied(start)
        ways = nets.ways_apart(self.plain(raw, numbered=numbered))
        for way in ways:
            # the line named nothing known: read again as two lines, keep what names more
            self.__dict__ = nets.copied(start)
            self.plain(raw, numbered=numbered)
            for piece, noted in way.pieces:
                if piece:
                    self.piece_of_line(piece, note=noted)
            if (score := nets.named(self.last_line)) > best:
                best, best_state = score, self.__dict__
        self.__dict__ = best_state

    def piece_of_line(self, text: str, *, note: bool) -> None:
        if note:
            self.seen_content = True
            self.note(text)
        else:
            self.read(text)

    def whole_line(self, raw: str, *, numbered: bool) -> None:
        text = self.plain(raw, numbered=numbered)
        if not text or self.table_row(text):
            return
        if self.named_alone(text):
            return
        if m := _LETTER_LABEL.match(text):
            self.clock_of_the_part_above(_letter(m))
            self.letter = _letter(m)
        text = hyphened(text)
        if len(chunks := _lettered(text)) > 1:
            # "2 x 10' AMRAP: A) 10 burpees, 15 KBS B) 20 DU, 10 T2B": each label opens a line
            for chunk in chunks:
                self.lettered_line(chunk)
            return
        if self.weeks(text):
            return
        said = sentences(text)
        if len(said) > 1 and _reads_apart(text, said):
            for index, (sentence, separator) in enumerate(said):
                self.sentence(sentence, first=index == 0)
                if separator.strip():
                    self.took("separator", separator)
            return
        self.read(text)

    def named_alone(self, text: str) -> bool:
        """A known workout's name alone, never a movement: before any movement the title
        ("Saturday 240914" then "Helen", "Benchmark Friday!" then "Cindy"; a day read as the
        title before it stays, as a note of the part), after them a note ("B) Metcon: Fran")."""
        if (name := known_name(text)) is None:
            return False
        if self.movements_read():
            self.seen_content = True
            self.note(text)
            return True
        if self.title is not None and self.title != name:
            self.part().notes.append(self.title)
        self.title = name
        self.took("title", text)
        return True

    def movements_read(self) -> bool:
        return any(section.movements for part in self.parts for section in part.sections)

    def formats_in_turn(self, text: str) -> bool:
        """ "Tabata burpees + Tabata push-ups", "AMRAP 5: …, then AMRAP 5: …": the same clock
        said again inside a line starts a section of its own each time."""
        cuts = [m for m in _FORMAT_AGAIN.finditer(text) if m.start() > 0]
        if not _FORMAT_OPENS.match(text) or not cuts:
            return False
        start = 0
        for cut in cuts:
            self.read(text[start : cut.start()].strip())
            self.took("separator", cut.group("sep"))
            start = cut.end("sep")
        self.read(text[start:].strip())
        return True

    def table_row(self, text: str) -> bool:
        """A spreadsheet pasted as text: a header row of column names ("Lift<TAB>Sets<TAB>Reps
        <TAB>%", "|"-separated too), then one lift a row, each read as its name and marks."""
        fields = _table_fields(text)
        if fields is None:
            self.columns = None
            return False
        if (columns := _columns(fields)) is not None:
            self.columns = columns
            self.took("label", text)
            return True
        if self.columns is None or len(fields) > len(self.columns):
            return False
        # (a row the copy cut short leaves its last columns empty)
        said = dict(
            zip(self.columns, fields + [""] * (len(self.columns) - len(fields)), strict=True)
        )
        read = movement(_row_as_written(said))
        if read is None or vocabulary.lookup(read["name"]) is None:
            return False
        read["mention"] = text
        if said.get("rest"):
            read["note"] = said["rest"]
        self.part().sections.append(Section(format="strength"))
        self.seen_content = True
        self.add_movement(read)
        return True

    def clock_of_the_part_above(self, letter: str) -> None:
        """ "A) Snatch complex: 1 + 1 + 1" then "E2:30 x 5" then "B) Front squat …": a clock
        that reached the next letter with no movement of its own is the lettered part's
        above it, when that part said none; the new letter starts a section of its own."""
        sections = self.parts[-1].sections if self.parts else []
        if len(sections) < 2:
            return
        above, clock = sections[-2], sections[-1]
        letters = {self.lettered.get(id(m)) for m in above.movements}
        if (
            clock.movements
            or not clock.from_header
            or clock.format == "other"
            or not above.movements
            or above.format != "other"
            or len(letters) != 1
            or None in letters
            or letter in letters
        ):
            return
        absorb(above, clock)
        sections[-1] = Section()
        self.opened.add(id(sections[-1]))

    def plain(self, raw: str, *, numbered: bool) -> str:
        """The line without what dresses it: a chat's bold marks, bullets, hashtags before the
        workout, the emoji it ends with (each taken, so no word is lost)."""
        if _BOLD.search(raw):
            # "*ANNIE* 50-40-30-20-10 …": a chat's bold marks, not the coach's words
            self.took("bullet", "*")
            raw = _BOLD.sub(r"\1", raw)
        text = unbulleted(raw, numbered=numbered)
        if not text:
            return text
        if raw.strip() != text:
            self.took("bullet", raw.strip()[: len(raw.strip()) - len(text)])
        if (tags := _LEADING_TAGS.match(text)) and (
            QUANTITY.search(text[tags.end() :]) or names_a_movement(text[tags.end() :])
        ):
            # "#crossfit #wod Fran 21-15-9 thrusters/pull-ups": the tags, then the workout
            self.note(tags.group(0).strip())
            text = text[tags.end() :]
        if (plain := without_trailing_emoji(text)) != text:
            # "… & HSPU 🔥": the emoji closing the line is no part of its last movement
            self.took("separator", text[len(plain) :])
            text = plain
        return text

    def weeks(self, text: str) -> bool:
        """ "Back squat: Week 1: 5x5 @ 70%, Week 2: 5x4 @ 75%": the lift, then each week's sets;
        a week's line under the lift's, the next week of it."""
        weeks = _weekly(text)
        self.week_read = self.week_read and weeks is not None
        if weeks is None:
            return False
        before, weeks_ = weeks
        if before:
            self.read(before)
            self.week_read = False
        for label, marks in weeks_:
            self.week(label, marks)
        return True

    def week(self, label: str, marks: str) -> None:
        """One week of a cycle: its sets are the lift's, in a section of its own, noted with
        the week; when they are not marks of the lift above, the week is a note."""
        self.took("note", label)
        if not self.marks(marks, again=self.week_read):
            self.note(f"{label} {marks}".strip())
            return
        self.section().notes.append(label.strip(" :–—-"))
        self.week_read = True

    def lettered_line(self, text: str) -> None:
        """A line, or a piece of one, labelled with a letter ("A) …", "(B) …"): what it reads
        is under that letter until the next format."""
        if m := _LETTER_LABEL.match(text):
            self.took("label", m.group(0))
            text = text[m.end() :]
            self.letter = _letter(m)
        if text.strip():
            self.read(text.strip())

    def sentence(self, text: str, *, first: bool) -> None:
        """One sentence of a line read as its own line; a format said after the line's
        movements ("… ומתח. לזמן!", "10 burpees, 15 KBS. 5 rounds.") is theirs."""
        bare = text.rstrip(".!? ")
        trailing = section_header(bare, header_only=True) if bare and not first else None
        current = self.section() if self.last_line else None
        if (
            trailing is not None
            and current is not None
            and not THEN.match(bare)
            and not header(bare)
            and (current.format == "other" or completes(current, trailing))
        ):
            self.took("format", text)
            absorb(current, trailing)
            return
        if not first and not (counted(text) or names_a_movement(text)) and is_note(text):
            self.seen_content = True
            self.note(text)
            return
        if (
            not first
            and not QUANTITY.search(text)
            and not names_a_movement(text)
            and vocabulary.lookup(bare or text) is None
            and section_header(bare or text) is None
        ):
            # "… 🥵 מי ששורד מקבל קפה", "… 🔥 see you at 6": a sentence after the workout that
            # counts nothing and names nothing known is the coach talking
            self.seen_content = True
            self.note(text)
            return
        self.read(bare if bare and not is_note(text) else text)

    def read(self, text: str) -> None:
        if self.bookend_inside(text) or self.named_workout_heading(text):
            return
        if self.windowed(text) or self.formats_in_turn(text):
            return
        if part := header(text):
            self.took("part", text)
            self.parts.append(part)
            return
        if (m := _HEADER_SEP.match(text)) and (part := header(m.group("head"))):
            tail = m.group("tail").strip()
            if tail:
                self.took("part", m.group("head"))
                self.parts.append(part)
                self.read(tail)
                return
        if self.bookend(text) or self.standards(text) or self.marks(text):
            return
        if (split := _then_inside(text)) is not None:
            # "5 min row, then 2 rounds: …", "Rest 2 minutes, then for max reps in 2 minutes:":
            # two lines written as one
            self.read(text[: split.start()].strip())
            self.took("then", split.group(0))
            after = text[split.end() :].strip()
            if marks_only(after) is None or not self.marks(after, again=True):
                self.read(after)  # "Back squat 5-5-3-3-1-1, then 2x8 @ 60%": back-off sets
            return
        if is_note_start(text):
            self.seen_content = True
            self.note(text)
            return
        if then := THEN.match(text):
            self.took("then", then.group(0))
            text = text[then.end() :] or text
        if _DEATH_BY.match(text):
            self.body(text)  # "Death by burpees: add 1 rep each minute" is no workout's name
            return
        if self.titled(text) or self.clocked_lift(text):
            return
        self.body(text)

    def windowed(self, text: str) -> bool:
        """ "15:00–25:00 EMOM 10: …", "0:00–15:00 Build to a heavy single": a window of the class
        clock opening the line, then what is done in it; a clock or a build that says no
        length of its own runs the window's."""
        m = _LEADING_WINDOW.match(text)
        if m is None or (seconds := window_seconds(m.group(0))) is None:
            return False
        rest = text[m.end() :].strip()
        if not rest:
            return False
        self.took("format", m.group(0))
        last = self.parts[-1].sections[-1] if self.parts and self.parts[-1].sections else None
        self.read(rest)
        section = self.section()
        if section is not last and section.duration_seconds is None:
            if section.format in ("amrap", "strength"):
                section.duration_seconds = seconds
            elif section.format == "emom" and section.interval_seconds and not section.rounds:
                section.duration_seconds = seconds
                section.rounds = max(seconds // section.interval_seconds, 1)
        return True

    def bookend(self, text: str) -> bool:
        """ "Buy-in: 50 DU", "Cash-out: 800m run": a section of its own inside the part."""
        if (bookend := BOOKEND.match(text)) is None:
            return False
        self.took("format", bookend.group(1))
        self.part().sections.append(Section(notes=[bookend.group(1)]))
        self.seen_content = True
        tail = bookend.group(2).strip()
        if tail and _then_inside(tail) is not None:
            self.read(tail)  # "Buy-in 50 cal bike, then AMRAP 10: …"
        elif tail and (cut := self.format_after(tail)) is not None:
            # "Buy in 50 cal bike, 4 RFT: 10 burpees, …": the buy-in, then the workout
            self.content(tail[: cut.start()])
            self.took("separators", cut.group(0))
            self.read(tail[cut.end() :])
        elif tail:
            self.content(tail)
        return True

    def bookend_inside(self, text: str) -> bool:
        """ "…, 10 pull-ups, cash-out: 50 DU": the bookend is a section of its own."""
        if (inside := BOOKEND_INSIDE.search(text)) is None or inside.start() == 0:
            return False
        self.read(text[: inside.start()].strip())
        if inside.group(0).strip():
            self.took("then", inside.group(0))
        self.read(text[inside.end() :].strip())
        return True

    def format_after(self, text: str) -> re.Match[str] | None:
        """Where a format and its movements start after a comma or dash inside a line."""
        for cut in _PIECE_BREAK.finditer(text):
            if cut.start() > 0 and self.format_and_movements(text[cut.end() :], dry=True):
                return cut
        return None

    def standards(self, text: str) -> bool:
        """ "♀ 65 lb ♂ 95 lb", "Barbell: 155/105 lb", "M 22.5 kg / W 15 kg": loads stated once
        for the section's movements. The line stays a note (it is the coach's standard)."""
        halves, rest = quantities.sexed(text)
        labelled = _LOAD_LABEL.match(text)
        if halves and _named_after(text) and (lift := _only_a_name(rest)) is not None:
            # "Men use 225-lb. deadlifts": the standard of the lift it names
            halves = [replace(h, implement=h.implement or loadable(lift)) for h in halves]
            rest = ""
        if halves and not names_a_movement(rest):
            section = self.section()
            section.halves.extend(halves)
            self.seen_content = True
            self.note(text)
            return True
        listed = bool(self.parts and self.parts[-1].sections and self.section().movements)
        if listed and (items := quantities.stated(text)):
            # "(155/105 lb)", "20/14 lb ball, 10/9 ft target" under the list: for all of it
            self.section().shared.extend(items)
            self.seen_content = True
            self.note(text)
            return True
        said = _SCALED_APART.split(text, maxsplit=1)[0]  # "Rx 43/30 kg, scaled 30/20 kg"
        if labelled and not names_a_movement(said[labelled.end() :]):
            found: dict[str, Any] = {}
            leftover = quantities.measures(said[labelled.end() :], found)
            if "load" in found and not QUANTITY.search(leftover):
                kind = labelled.group(0).strip(" :").lower()
                implement_ = quantities.IMPLEMENT_OF.get(kind)
                self.section().shared.append(("load", implement_, found["load"]))
                self.seen_content = True
                self.note(text)
                return True
        return False

    def marks(self, text: str, *, again: bool = False) -> bool:
        """A line of marks only ("5 x 3 @ 70%", "Tempo 3-1-1-0", "(1+2+1) x 5 sets @ 75%",
        "then 3x5 @ 70% of today's single"): the marks of the lift or complex above. Marks that
        the lift already carries otherwise, or a back-off line, are more sets of it: a strength
        section of their own."""
        lifts = self.lifts_above()
        marks = marks_only(text) if lifts else None
        if marks is None:
            return False
        if marks.counts:
            if len(marks.counts) != len(lifts):
                return False  # counts for another complex: kept as a note, and unread
            for lift, reps in zip(lifts, marks.counts, strict=True):
                lift["reps"] = reps
        section = self.section()
        found = marks.found
        again = (
            again
            or marks.back_off
            or any(
                key in lift and lift[key] != value
                for lift in lifts
                for key, value in found.items()
                if key in ("sets", "reps", "percent", "repScheme")
            )
        )
        if again:
            section = Section(format="strength", complex=section.complex)
            self.part().sections.append(section)
            lifts = [{"mention": lift["mention"], "name": lift["name"]} for lift in lifts]
            for lift in lifts:
                self.add_movement(lift, section)
        for lift in lifts:
            if marks.each and one_sided(lift["name"]):
                lift["perSide"] = True  # "DB lunges" then "3x10 each"
            for key, value in found.items():
                if key == "note":
                    lift["note"] = "; ".join(filter(None, (lift.get("note"), value)))
                else:
                    lift.setdefault(key, value)
        if len(lifts) > 1:
            section.complex = True
            if "sets" in found and not marks.counts:
                for lift in lifts:
                    lift.setdefault("reps", 1)  # "A + B + C" then "5 sets": one of each
        if section.format == "other" and ("sets" in found or "repScheme" in found):
            section.format = "strength"
        self.took("marks", text)
        return True

    def lifts_above(self) -> list[dict[str, Any]]:
        """What a marks line is for: the complex or the last movement of the line above, in
        the current section."""
        if not self.parts or not self.parts[-1].sections:
            return []
        section = self.parts[-1].sections[-1]
        if not section.movements:
            return []
        line = [m for m in self.line_above if any(m is own for own in section.movements)]
        if len(line) > 1 and (section.complex or self.joined_above):
            return line
        last = section.movements[-1]
        group = [m for m in section.movements if m["mention"] == last["mention"]]
        return group if section.complex else [last]

    def named_workout_heading(self, text: str) -> bool:
        """ "Hero WOD - Roy", "WOD: Fran", "אימון גיבור – מרפי", "Комплекс: Синди" opening the
        text: the heading, and the workout's name after it as the title."""
        if self.seen_content or self.title is not None or self.parts:
            return False
        m = _HEADER_SEP.match(text)
        if m and _WORKOUT_HEADING.match(m["head"].strip()) and is_name(m["tail"]):
            if part := header(m["head"]):
                self.took("part", m["head"])
                self.parts.append(part)
            self.title = unquoted(m["tail"].strip())
            self.took("title", m["tail"])
            return True
        lead = _HEADING_LEAD.match(text)
        if lead is None or header(text):
            return False
        rest = text[lead.end() :]
        if not self.titled(rest, dry=True):
            return False
        if part := header(lead["head"]):
            self.parts.append(part)
        self.took("part", text[: lead.end()])
        self.titled(rest, heading=True)
        return True

    def titled(self, text: str, *, dry: bool = False, heading: bool = False) -> bool:
        """A line that names a workout: "Helen", "Kelly - 5 rounds…", "JT 21-15-9…".

        First in the text (or after its heading: "Hero WOD"), the name is the title; inside a
        part ("Conditioning" then "Barbara — 5 rounds, each for time: …"), it is a note on
        the section it names. `dry`: only whether the line names a workout and says more.
        """
        # "A) Complex: power clean + …": a lettered part names no workout; its name is a note
        lettered = _LETTER_LABEL.match(text) is not None
        first = not lettered and (
            heading or not (self.seen_content or self.title is not None or self.parts)
        )
        name, rest = None, ""
        aside = None
        if (m := TITLE_SEP.match(text)) and is_name(m.group("head")):
            name, rest = m.group("head").strip(), m.group("tail")
        elif self.named_format(text, dry=dry, first=first):
            return True
        quoted = _QUOTED_NAME.match(text) if name is None else None
        if (
            quoted
            and is_name(quoted[1])
            and self.format_and_movements(text[quoted.end() :], dry=True)
        ):
            # '"Kelly" 5 rounds for time: …': a quoted name, then what the line says
            name, rest = quoted.group(0).strip(), text[quoted.end() :]
        if name is None and (then := _NAME_THEN.match(text)) and is_name(then["name"]):
            said = then["rest"]
            if section_header(said, header_only=said.endswith(":")) or self.format_and_movements(
                said, dry=True
            ):
                # "ANNIE, for time: …", "BADGER (Hero) 3 RFT: …": the name, then the workout
                name, rest, aside = then["name"].strip(), said, then["aside"]
        if name is None and (m := _LEADING_WORDS.match(text)):
            # "JT 21-15-9 …", "Grace 30 C&J for time …": a name of one to three words
            names = [g for g in m.groups() if g]
            for count in range(1, len(names) + 1):
                candidate = " ".join(names[:count])
                after = text[len(candidate) :].strip()
                if (
                    _SAYS_WHAT.match(after)
                    and is_name(candidate)
                    and self.format_and_movements(after, dry=True)
                ):
                    name, rest = candidate, after
                    break
        if name is None:
            return False
        names_a_format = bool(
            section_header(rest, header_only=rest.endswith(":"))
            or self.format_and_movements(rest, dry=True)
        )
        if dry:
            return names_a_format
        if first and (names_a_format or TITLE_SEP.match(text)):
            self.title = unquoted(name)
            self.took("title", text[: len(text) - len(rest)])
            if aside is not None:
                self.aside_of_title(aside)
            named = undecorated(rest.strip()).strip(" :")
            if not names_a_format and named and is_name(named) and not names_a_movement(named):
                # "Monday = JACKIE 💪", "Today: FRAN", "Понедельник — Синди": the day, then the
                # name of its workout (a note; the movements follow on the lines below)
                self.took("title", rest)
                self.part().notes.append(named)
                return True
            self.read(rest)
            return True
        if not first and (names_a_format or (lettered and _a_parts_heading(text, name))):
            self.took("title", text[: len(text) - len(rest)])
            self.body(rest)
            self.section().notes.insert(0, name)
            return True
        return False

    def aside_of_title(self, aside: str) -> None:
        """What a title's bracket says: a format ("ANNIE (for time) …") the section's that
        follows, anything else ("(Hero)") a note of the part."""
        said = section_header(aside, header_only=True)
        if said is not None and not said.notes:
            self.add_section(said)
        else:
            self.part().notes.append(aside)

    def clocked_lift(self, text: str) -> bool:
        """ "Clean & jerk – EMOM 10: 1 rep @ 75-80%", "Snatch: E2MOM x 6, 2 reps @ 70%",
        "Рывок — EMOM 10: 1 повтор на 75%", "Snatch EMOM 12 x 2 @ 70%": a lift named before its
        clock, then what each interval holds (or nothing: the lift alone)."""
        if m := TITLE_SEP.match(text):
            head, clock = m["head"].strip(), m["tail"].strip()
        elif m := _CLOCK_START.search(text):
            head, clock = text[: m.start()].strip(), text[m.start() :].strip()
        else:
            return False
        if not head or QUANTITY.search(head) or (known := vocabulary.lookup(head)) is None:
            return False
        before = ""
        if counted_first := _COUNT_THEN_CLOCK.match(clock):
            # "Clean & jerk: 1 rep every 90s x 10 @ 75%": each interval's count, then the clock
            before, clock = counted_first.group(1), clock[counted_first.end() :]
        said, rest = None, ""
        if split := _FORMAT_SEP.match(clock) or _COMMA_SEP.match(clock):
            said, rest = section_header(split["head"], header_only=True), split["tail"].strip()
        if said is None:
            said, rest = section_header(clock, header_only=True), ""
        if said is None or said.notes or (not rest and _A_MARK.search(clock)):
            # "… every 90s x 10 @ 75%": the percent is the lift's, not the clock's
            marked, marks = _clock_then_marks(clock, head, known)
            if marked is not None or said is None or said.notes:
                said, rest = marked, marks
        if said is None or said.notes or said.format not in _CLOCKS:
            return False  # "Front squat: 8-6-4-2" is the lift's scheme, not a clock
        read = movement(f"{head} {before} {rest}".strip(" ,"))
        if read is None or vocabulary.lookup(read["name"]) is not known:
            return False
        self.add_section(said, clock[: len(clock) - len(rest)] if rest else clock)
        if before:
            self.took("marks", before)
        read["mention"] = text
        self.add_movement(read)
        return True

    def named_format(self, text: str, *, dry: bool = False, first: bool = False) -> bool:
        """ "DT (5 RFT @ 155/105): 12 DL, 9 HPC, 6 PJ": a name, its format in brackets (a load
        there is for all the lifts), then the movements."""
        m = NAME_FORMAT_SEP.match(text)
        if m is None or not is_name(m["name"]):
            return False
        said = section_header(m["said"], header_only=True)
        if said is None and CAP.search(m["said"]):
            said = format_said(m["said"])  # "Chipper (cap 30'): 50 wall balls, …"
        aside = None
        if said is None and _VEST_NOTE.search(m["said"]):
            # "Murph (vest 20/14 lb): 1 mile run, …": what it is done in, a note of its list
            said, aside = Section(from_header=True), m["said"].strip()
        if said is None or (said.notes and not said.shared) or not reads_as_movements(m["tail"]):
            return False
        if aside is not None:
            said.notes.append(aside)
        if dry:
            return True
        if first or not (self.seen_content or self.title is not None or self.parts):
            self.title = unquoted(m["name"].strip())
        else:
            said.notes.insert(0, m["name"].strip())
        self.took("title", m["name"])
        self.add_section(said, text[m.start("said") - 1 : m.start("tail")])
        self.content(m["tail"], listed=True)
        return True

    def body(self, text: str) -> None:
        if m := _DEATH_BY.match(text):
            # "Death by thrusters": every minute one more rep, until the minute is not enough.
            death = Section(format="emom", interval_seconds=60, from_header=True)
            death.notes.append(text[: m.end()].strip(" :-"))
            self.add_section(death, text[: m.end()])
            rest = text[m.end() :].strip()
            if (how := _DEATH_HOW.match(rest)) and names_a_movement(how["what"]):
                # "Death by burpees: 1 rep min 1, add 1 each minute": the movement, then how
                # the ladder climbs (a note)
                self.content(how["what"], listed=True)
                self.note(how["how"])
                if _names_counted_movements(how["how"]):
                    self.unread.append(how["how"])
                return
            self.content(rest, listed=True)
            return
        if self.build_to(text):
            return
        tabata = TABATA.match(text)
        spec = _TABATA_SPEC.match(text, tabata.end()) if tabata else None
        after = text[spec.end() :] if spec else ""
        if (
            spec
            and re.match(r"[^\W\d]", after)
            and not text.endswith(":")
            and names_a_movement(after)
        ):
            # "Tabata air squats", "Табата (8 раундов 20/10): приседания": the format (its
            # rounds and work/rest said or not), then the movements it is done with.
            said = text[: spec.end()]
            rounds = _N_ROUNDS.search(said)
            work_rest = re.search(r"(\d+)\s*(?:\w+\s*)?/\s*(\d+)", said)
            interval = int(work_rest[1]) + int(work_rest[2]) if work_rest else 30
            rounds_ = int(rounds[1]) if rounds else 8
            self.add_section(
                Section("tabata", rounds_, interval_seconds=interval, from_header=True), said
            )
            if clock := _WORK_REST.search(after):
                self.took("format", clock.group(0))  # "… (20 сек работа, 10 отдых)"
                after = after[: clock.start()].strip()
            self.content(after, listed=True)
            return
        if section := section_header(text, header_only=text.endswith(":")):
            first = not (self.seen_content or self.title is not None or self.parts)
            name = section.notes[0] if section.notes else ""
            if first and name and text.startswith(name) and is_name(name):
                self.title = section.notes.pop(0)  # "Angie (for time)", "Cindy (AMRAP 20)"
            self.add_section(section, text)
            return
        if self.rounds_of_a_bracket(text) or self.format_and_movements(text):
            return
        if (m := CAP.search(text)) and self.parts and self.parts[-1].sections and len(text) < 30:
            self.took("format", text)
            self.section().time_cap_seconds = cap_seconds(m)
            return
        if CAP.search(text) and (capped := format_said(text)) is not None:
            # "(30' cap)", "Teams of 2 – 35 min cap" before the list: the list's cap
            self.add_section(capped, text)
            return
        self.content(text)

    def rounds_of_a_bracket(self, text: str) -> bool:
        """ "3 x (400m run, 20 squats)", "(10 burpees, 10 KBS) x 4": the list in brackets, that
        many rounds (a complex's counts, "(1+2+1) x 5", are marks, not a list)."""
        m = _ROUNDS_OF_BRACKET.match(text)
        if m is None or not (m["before"] or m["after"]) or not reads_as_movements(m["list"]):
            return False
        if complex_of(m["list"]) is not None:
            return False
        rounds = int(m["before"] or m["after"])
        self.add_section(Section("rounds", rounds, from_header=True), text[: m.start("list")])
        self.content(m["list"], listed=True)
        self.took("format", text[m.end("list") :])
        return True

    def build_to(self, text: str) -> bool:
        """ "Build to a heavy 3-rep back squat in 15 min", "Snatch: build to a heavy single":
        a lift worked up to; its reps are the heavy set's (a single is one)."""
        lift_text, mention = None, text
        text = LABEL_PREFIX.sub("", text)  # "A) Snatch: build to a heavy single"
        m = _BUILD_TO.match(text)
        if (named := _NAMED_BUILD.match(text)) and vocabulary.lookup(named.group("lift")):
            lift_text = named.group("lift")
        elif (
            m is not None
            and not _NOT_A_LIFT.search(m.group("lift"))
            # "build to a heavy single": the set, not a lift
            and m.group("lift").strip(" .!").lower() not in _HEAVY_WORDS
        ):
            lift_text = m.group("lift")
        read = movement(lift_text) if lift_text is not None else None
        if read is None or not vocabulary.lookup(read["name"]):
            # "Strict press" then "Work to a heavy 3 (10 min)": the lift above is built up
            if _BUILD_START.match(text) and self.built_above(text):
                return True
            if read is None:
                return False
        for key in ("seconds", "reps"):
            read.pop(key, None)  # "(12 min)": how long, not a set
        if reps := heavy_reps(text) or (m and m["set"] and int(m["set"])):
            read["reps"] = reps
        built = Section(format="strength", notes=[text])
        if clock := _BUILD_CLOCK.search(text):
            # the window the lift is built in: how long the block runs, and when it stops
            seconds = int(clock["n"]) * 60 if clock["n"] else window_seconds(clock.group(0))
            built.duration_seconds = built.time_cap_seconds = seconds
        self.part().sections.append(built)
        self.seen_content = True
        read["mention"] = mention
        self.add_movement(read)
        return True

    def built_above(self, text: str) -> bool:
        lifts = self.lifts_above()
        if len(lifts) != 1 or lifts[0].keys() & {"reps", "sets", "repScheme"}:
            return False
        if reps := heavy_reps(text):
            lifts[0]["reps"] = reps
        section = self.section()
        section.notes.append(text)
        if section.format == "other":
            section.format = "strength"
        self.took("marks", text)
        return True

    def format_and_movements(self, text: str, *, dry: bool = False) -> bool:
        """ "AMRAP 20: 5 pull-ups, …", "3 rounds - 10 …", "5 RFT 800m run, …", "75 power
        snatches for time @ …"."""
        colon = _COLON_SEP.match(text)
        if colon and section_header(of_ending(colon["head"])) is not None:
            # "3 rounds of 2 min on / 1 min off: …": what is before the colon is the format
            m: re.Match[str] | None = colon
        else:
            m = _FORMAT_SEP.match(text)
            if m and section_header(m.group("head")) is None:
                # "Team of 2, 30 min AMRAP: …": the format is all before the colon
                m = colon or m
        # "3 sets of max strict pull-ups" is one lift; "3 sets: 12 DB rows, 20 sec L-sit" rounds.
        lift = m is not None and m.group("sep").strip() in ("of", "из") and _N_SETS.match(m["head"])
        head = of_ending(m["head"]) if m and ":" in m["sep"] else m and m["head"]
        capped = bool(head and CAP.search(head))
        if (
            m
            and head
            and not lift
            and (
                section := section_header(head)
                or (capped and (format_said(head) or _named_cap(head)))
                or _loaded_header(head)
            )
        ):
            if not dry:
                tail = m.group("tail").strip()
                self.add_section(section, text[: m.start("tail")])
                if scheme := SCHEME.fullmatch(tail.rstrip(" .…")):
                    section.rep_scheme = re.sub(r"\s+", "", scheme.group(1))
                    self.took("format", tail)
                    return True
                self.content(tail, listed=True)
            return True
        if (prefix := format_prefix(text)) and reads_as_movements(prefix[1]):
            if not dry:
                section, tail = prefix
                self.add_section(section, text[: len(text) - len(tail)])
                self.content(tail, listed=True)
            return True
        found = FOR_TIME.search(text)
        if found and found.start() > 0:
            # "30 snatches for time (135/95 lb)": the format inside the movement's line.
            rest = (text[: found.start()] + text[found.end() :]).strip(" ,")
            if reads_as_movements(rest):
                if not dry:
                    self.add_section(Section(format="for_time", from_header=True), found.group(0))
                    self.content(rest)
                    for move in self.section().movements:
                        # a mention is verbatim: the line, when "for time" split the movement
                        if move["mention"] not in text:
                            move["mention"] = text
                return True
        return False

    def content(self, text: str, *, listed: bool = False) -> None:
        """Movements (or notes) of the current section.

        `listed`: the text followed a format on its line ("21-15-9 for time: HSPU, ring dips"),
        so it is a list of movements even without numbers and however long.
        """
        if self.named_alone(text):
            return
        first = not self.seen_content and not self.parts and self.title is None
        named = named_head(text) if first else None
        if named and QUANTITY.search(named[1]) and reads_as_movements(named[1]):
            # "grace 30 c&j 135/95 for time", "גרייס 30 קלין אנד ג'רק …": the name, then the
            # workout (not all title, nor a note)
            self.title = named[0]
            self.took("title", text[: len(text) - len(named[1])])
            self.body(named[1])
            return
        if first and not _LETTER_LABEL.match(text) and is_title(text):
            self.titled_line(text)
            return
        self.seen_content = True
        if _QUOTED.match(text):
            self.note(text)  # '"Nasty Girls"' inside a part: the name of what follows
            return
        lead = self.lead_in(text, listed)
        if lead is None:
            return
        text, listed = lead
        whole = text
        text, trailing = trailing_format(text)
        complex_ = complex_of(LABEL_PREFIX.sub("", text))
        split = pieces(text) if complex_ is None else [text]
        if trailing is None and (last := format_piece(split)) is not None:
            trailing, split = last, split[:-1]  # "…, for time", "…, на время"
            text = text[: text.rindex(last[1])].rstrip(" ,;–—-")
        elif trailing is None and split and (ending := format_ending(split[-1])) is not None:
            # "21-15-9 תראסטרים ומתח לזמן": the last movement, then the format
            split[-1], trailing = ending
            text = text[: text.rindex(ending[1][1])].rstrip(" ,;–—-")
        # A long line of counted movements ("20 pull-ups, 30 push-ups, …") is a list, not prose.
        counted = len(split) > 1 and all(
            QUANTITY.search(p) and (movement(p) or REST.match(p)) for p in split
        )
        # "… | 50 air squats | 3 min rest between rounds": the advice is the last piece's
        known = counted and all(REST.match(p) or names_known(p) for p in split)
        if not self.paired and self.between_sets(text):
            self.paired = True  # "Back squat 5x5" then "10 box jumps between sets"
        # (what a superset pairs is done "between sets": a movement, not advice)
        notey = is_note_start(SLOT.sub("", text)) or (
            is_prose(text) and not known and not self.paired
        )
        if notey or (not listed and not counted and not self.paired and is_note(text)):
            self.note(whole)
            if _names_counted_movements(whole):
                # a how-to sentence that still counts movements the reader could not place
                # ("1-2-3-4… until failure of cleans + burpees"): kept, and told as unread
                self.unread.append(whole if whole in self.raw else self.raw.strip())
            return
        self.listed_pieces(text, split)
        self.rounds_in_the_last_bracket(text)
        if trailing is not None:
            self.trailing(*trailing)

    def titled_line(self, text: str) -> None:
        """The text's first line as its title: "Helen", "MURPH 🇺🇸", "Chipper (cap 25 min)"."""
        title = undecorated(text.rstrip(":").strip()) or text
        capped = CAPPED_TITLE.match(title)
        if capped and (said := format_said(capped["cap"] or capped["tail"])):
            # "Chipper (cap 25 min)", "Lumberjack 20 (for time)", "Partner WOD, 30 min cap":
            # the name, and its format
            title = capped["name"]
            self.part().sections.append(said)
        elif (aside := ASIDE.match(title)) and not QUANTITY.search(aside["name"]):
            # "Linda (aka 3 bars of death)", "Murph (20# vest)": the name, and a note
            title = aside["name"]
            self.part().notes.append(aside["aside"])
        self.title = unquoted(title)
        self.took("title", text)

    def lead_in(self, text: str, listed: bool) -> tuple[str, bool] | None:
        """What opens a line of content: a scheme after a format ("For time: 30-20-10 KBS and
        push-ups"), "Start with 5 burpees …", "Max rounds of …"; None when that was the line."""
        if (lead := leading_scheme(text)) is not None and (listed or lead[2]):
            # "For time: 30-20-10 KBS and push-ups", "AMRAP 10: 1-2-3-4… ladder of power cleans
            # + burpees": the section's scheme; a ladder under no format is one for time
            scheme, end, ladder = lead
            part = self.part()
            current = part.sections[-1] if part.sections else None
            if (
                current is not None
                and current.from_header
                and not current.movements
                and current.rep_scheme is None
            ):
                current.rep_scheme = scheme
            elif ladder:
                said = Section(format="for_time", rep_scheme=scheme, from_header=True)
                self.add_section(said)
            else:
                end = 0
            if end:
                self.took("format", text[:end])
                text = text[end:]
        if listed and (rounds := _LEADING_ROUNDS.match(text)):
            # "EMOM 20: 4 סבבים של - חתירה …", "ЕМОМ 16: 4 круга — гребля …": how many times
            # the list goes round; an interval clock already counts its own rounds
            section = self.section()
            if section.format != "emom" and section.rounds is None:
                section.rounds = int(rounds.group(1))
            else:
                section.notes.append(rounds.group(0).strip(" -–—:"))
            self.took("format", rounds.group(0))
            text = text[rounds.end() :]
        if (opens := _OPENS_WITH.match(text)) and self.opens_with(text, opens.end()):
            return None
        paired = PAIRED.match(text)
        read = movement(text[paired.end() :]) if paired and self.lifts_above() else None
        if paired and read is not None and vocabulary.lookup(read["name"]):
            self.note(paired.group(0).strip())
            self.paired = True
            # what a superset pairs with the lift is a movement, however it is said
            text, listed = text[paired.end() :], True
        while max_of := _MAX_OF.match(text):
            # "Max rounds of 1 power clean, 2 front squats, …": a list for the time left
            self.note(max_of.group(0))
            text, listed = text[max_of.end() :].strip(" :,"), True
            self.section().max_reps = True
        if (
            not self.paired
            and not QUANTITY.search(text)
            and _ADVICE.search(text)
            and not names_a_movement(text)
        ):
            self.note(text)  # "Touch and go", "Smooth and steady": how, not what
            return None
        return text, listed

    def load_of_the_line(self, piece: str) -> bool:
        """ "21-15-9: deadlifts, push-ups, weight 70/47.5 kg", "…, משקל 70/47.5 ק"ג": a labelled
        load closing the line is every loaded movement's of it that says none."""
        label = _LOAD_LABEL.match(piece)
        if label is None or not self.last_line:
            return False
        found: dict[str, Any] = {}
        left = quantities.measures(piece[label.end() :], found)
        if "load" not in found or QUANTITY.search(left) or LETTER.search(left):
            return False
        wanted = quantities.IMPLEMENT_OF.get(label.group(0).strip(" :").lower())
        targets = [
            m
            for m in self.last_line
            if "load" not in m
            and loadable(m) in _LOADED
            and (wanted is None or loadable(m) == wanted)
        ]
        if not targets:
            return False
        for move in targets:
            move["load"] = found["load"]
        self.took("marks", piece)
        return True

    def rounds_of_the_list(self, piece: str) -> bool:
        """ "Tabata burpees – 8 rounds, 20/10", "20 DU, 10 burpees, 4 rounds": a piece after the
        movements that only counts rounds (a Tabata's work and rest with them) is the list's."""
        m = _ROUNDS_ONLY.fullmatch(piece.strip())
        if m is None or not self.last_line:
            return False
        section = self.section()
        if section.format == "other":
            section.format = "rounds"
        elif section.format not in ("tabata", "rounds", "for_time") or (
            section.format != "tabata" and section.rounds not in (None, int(m["n"]))
        ):
            return False
        section.rounds = int(m["n"])
        if m["work"] and section.format == "tabata":
            section.interval_seconds = int(m["work"]) + int(m["rest"])
        self.took("format", piece)
        return True

    def rounds_in_the_last_bracket(self, text: str) -> None:
        """ "Tabata DU / V-ups (alternate, 16 rds)", "10 burpees, 10 KBS (5 rounds)": rounds
        said in the bracket closing a list are its section's, when its clock counts none of
        its own (a Tabata's eight are its default)."""
        m = _BRACKET_ROUNDS.search(text)
        if m is None or not self.last_line:
            return
        section = self.section()
        if section.format == "other":
            section.format = "rounds"
        elif section.format != "tabata" and section.rounds is not None:
            return
        if section.format in ("rounds", "tabata", "for_time"):
            section.rounds = int(m.group(1))

    def between_sets(self, text: str) -> bool:
        """A known movement done between the sets of the lift above, said so."""
        if not _WHEN_PAIRED.search(text) or not self.lifts_above():
            return False
        read = movement(text)
        return read is not None and vocabulary.lookup(read["name"]) is not None

    def listed_pieces(self, text: str, split: list[str]) -> None:
        separators = between(text, split)
        self.took("separators", separators)
        self.joined = len(split) > 1 and set(separators.split()) == {"+"}
        lift = movement(split[0]) if len(split) > 1 else None
        for piece in split:
            unknown = not QUANTITY.search(piece) and not vocabulary.lookup(piece)
            if unknown and (
                (lift is not None and is_lift(lift) and piece is not split[0])
                or (len(split) > 1 and _ADVICE.search(piece))
            ):
                self.note(piece)  # "Back squat: 5 sets of 5, build across", "…, build each set"
                continue
            if piece is not split[0] and self.percent_of_the_lift(piece):
                continue
            if self.rounds_of_the_list(piece):
                continue
            if piece is split[-1] and piece is not split[0] and self.load_of_the_line(piece):
                continue
            self.piece(piece)
        self.share_trailing_load(split)

    def percent_of_the_lift(self, piece: str) -> bool:
        """ "Жим стоя 5х5, рабочий вес 70% от ПМ", "Back squat 5x5, working weight 75%": a piece
        of marks only after a lift says its percent (or tempo)."""
        if not self.last_line:
            return False
        if PERCENT_SET.match(piece) and (
            is_lift(self.last_line[-1]) or "percent" in self.last_line[-1]
        ):
            # "Back squat 5/3/1: 75%x5, 85%x3, 95%x1+", "Deadlift: 3 x 5 @ 75%, 1 x max @ 75%":
            # the lift's next sets, as written
            lift = self.last_line[-1]
            lift["note"] = ", ".join(filter(None, (lift.get("note"), piece)))
            self.took("marks", piece)
            return True
        if not is_lift(self.last_line[-1]):
            return False
        marks = marks_only(piece)
        if marks is None or marks.counts or not {"percent", "tempo"} & set(marks.found):
            return False
        for key, value in marks.found.items():
            self.last_line[-1].setdefault(key, value)
        self.took("marks", piece)
        return True

    def trailing(self, said: Section, text: str) -> None:
        """A format said after a list's movements ("… x 4 rounds", "…, for time", "(TC 18)"):
        the format of their section, when it has none yet or the two agree."""
        self.took("format", text)
        current = self.section()
        if current.format == "other" or said.format == "other" or completes(current, said):
            absorb(current, said)
        else:
            current.notes.append(text)

    def opens_with(self, text: str, end: int) -> bool:
        """ "Start with 5 burpees and do 5 burpees at the top of every minute": the movement it
        opens with, and the rest of the sentence as a note."""
        rest = _ARTICLE.sub("", text[end:])
        first = first_piece(rest)
        read = movement(first) if first else None
        if read is None or not vocabulary.lookup(read["name"]):
            return False
        self.took("note", text[:end])
        self.piece(first)
        after = rest[rest.index(first) + len(first) :].strip()
        if after:
            self.note(after)
        return True

    def share_trailing_load(self, split: list[str]) -> None:
        """ "12 deadlifts, 9 hang power cleans, 6 push jerks, 155/105 lb": a load written once,
        as its own piece after the last movement, is every such lift's."""
        if len(self.last_line) < 2 or len(split) < 2:
            return
        last = self.last_line[-1]
        if re.search(r"@\s*[^@]*$", last["mention"]) and "load" in last:
            # "12 deadlifts, 9 hang power cleans, 6 push jerks @ 155/105": one bar for all
            _share_last_load(self.last_line)
            return
        if "load" in last and re.search(
            r"\(\s*[^()]*\d[^()]*\)\s*$|\s[–—-]\s*[^–—,()]*\d[^–—,()]*$", last["mention"]
        ):
            # "…, 6 push jerks (155/105 lb)": the bar's load, bracketed after the last lift, or
            # after a dash ("…, 6 push jerks – 155/105 lb")
            _share_last_load(self.last_line)
            return
        if "load" not in last or not re.search(r",\s*[^,]*\d[^,]*$", last["mention"]):
            return
        tail = last["mention"].rsplit(",", 1)[1]
        if movement(tail) is not None:
            return  # the quantity was inside the movement's own piece
        kind = loadable(last)
        for move in self.last_line[:-1]:
            if "load" not in move and loadable(move) == kind and kind in _LOADED:
                move["load"] = last["load"]

    def piece(self, text: str) -> None:
        lead = PAIRED.match(text) if self.last_line else None
        if lead and (read := movement(text[lead.end() :])) and vocabulary.lookup(read["name"]):
            # "Front squat 5x3 @ 80%, superset with 10 strict pull-ups": done in turn
            self.note(lead.group(0).strip())
            self.paired, text = True, text[lead.end() :]
        if is_note_start(text) or REST.match(text) or heading(text):
            self.note(text)  # "Rest 2 min", "האימון של היום:", "Сегодня:"
            return
        if complex_ := complex_of(LABEL_PREFIX.sub("", text)):
            self.add_complex(text, *complex_)
            return
        read = _read_piece(text, opening=not self.last_line)
        if read is not None and self.about_the_list(read, text):
            return
        if read is not None and _a_heading(read["name"]):
            # "wk 2/6 squat cycle": it heads what follows, it is not done (a line holding one
            # is still read again in pieces: "Clean complex E2:30 x 5: power clean + …")
            self.note(text, role="heading")
            return
        if read is None:
            if QUANTITY.search(text):
                # verbatim: the line itself when "for time" was read out of the piece's middle
                self.unread.append(text if text in self.raw else self.raw.strip())
                self.took("unread", text)
            self.note(text)
            return
        part = self.part()
        current = part.sections[-1] if part.sections else None
        lift = is_lift(read)
        # A lift stated as sets x reps (or 5-5-3) is its own strength section, unless it is
        # the first line under a format header ("E2MOM x 5:" then "3 x 2 snatch").
        paired, self.paired = self.paired, False
        paired = self.superset_label(text) or paired
        # "3x12 DB rows + 3x15 face pulls": lifts joined by "+" on one line are done in turn
        paired = paired or (self.joined and bool(self.last_line))
        if lift and current is not None and (heading_ := self.named_above(read, current)):
            # "Push press" then "3 sets of 5 @ 65-75% of 1RM push press": the line above named
            # the lift this line states; it heads it, it is not a movement of its own
            current.movements.remove(heading_)
            current.notes.append(heading_["mention"])
            if not current.movements:
                current.format = "strength"
                self.add_movement(read, current)
                return
        if lift and "sets" in read and (clock := _BARE_CLOCK.search(text)):
            # "Power clean 10x1 @ 80% EMOM": one set at the top of each interval
            every = int(clock.group(1) or 1) * 60
            sets = read["sets"]
            said = Section("emom", sets, interval_seconds=every, duration_seconds=every * sets)
            part.sections.append(said)
            self.took("format", clock.group(0))
            self.add_movement(read, said)
            return
        if (
            lift
            and not paired
            and (current is None or current.movements or current.format == "other")
        ):
            part.sections.append(Section(format="strength"))
        if current is not None and current.max_reps and "reps" not in read:
            read["max"] = True
        self.add_movement(read)

    def named_above(self, read: dict[str, Any], section: Section) -> dict[str, Any] | None:
        """The movement of the line above when that line only named the lift `read` states."""
        if len(self.line_above) != 1 or self.last_line:
            return None
        above = self.line_above[0]
        if above.keys() - {"mention", "name"} or not any(m is above for m in section.movements):
            return None
        known = vocabulary.lookup(above["name"])
        return above if known is not None and known is vocabulary.lookup(read["name"]) else None

    def about_the_list(self, read: dict[str, Any], text: str) -> bool:
        """A piece that reads as a name but is about the list, kept as a note: a heading, an
        implement, the load of movements above, an aside."""
        if read.keys() <= {"mention", "name"} and _heads(read["name"]):
            self.note(text)  # "Week 3 – squat cycle", "Snatch complex": what follows is about
        elif equipment_only(read):
            self.note(text)  # "Vest 20/14 lb": what it is done with
        elif self.loads_named(read):
            self.note(text, role="load")  # "Thrusters @ 115/75 lb" under the list: their load
        elif self.aside(read):
            self.note(text)  # "מתחלפים כרצונכם" under counted movements: how, not what
        else:
            return False
        return True

    def superset_label(self, text: str) -> bool:
        """ "A1) Front squat 4x4" then "A2) Strict pull-ups 4x6-8": lifts labelled with one
        letter and the numbers after it are done in turn, in one section."""
        m = _GROUP_LABEL.match(text)
        label = (m.group(1).lower(), int(m.group(2))) if m else None
        previous, self.label = self.label, label or self.label
        return label is not None and previous == (label[0], label[1] - 1)

    def aside(self, read: dict[str, Any]) -> bool:
        """A line of words with no count and no movement's word in it, under movements that
        are all counted (or by the section's scheme), says how the list goes or signs off
        ("Switch as you like", "מתחלפים כרצונכם", "בהצלחה 💪")."""
        if read.keys() - {"mention", "name", "note"}:
            return False
        part = self.part()
        section = part.sections[-1] if part.sections else None
        if section is None or not section.movements or names_a_movement(read["name"]):
            return False
        counts = {"reps", "distance", "calories", "seconds", "sets", "repScheme"}
        return section.rep_scheme is not None or all(m.keys() & counts for m in section.movements)

    def loads_named(self, read: dict[str, Any]) -> bool:
        """A load (or height) for movements named above in the section ("21 thrusters … 9
        thrusters" then "Thrusters @ 115/75 lb"): given to those of them that carry none."""
        given = {k for k in read if k not in ("mention", "name", "note")}
        if not given or not given <= {"load", "height"}:
            return False
        part = self.part()
        if not part.sections:
            return False
        known = vocabulary.lookup(read["name"])
        same = [
            m
            for m in part.sections[-1].movements
            if (vocabulary.lookup(m["name"]) == known if known else m["name"] == read["name"])
        ]
        open_ = [m for m in same if not given & m.keys()]
        for move in open_:
            move.update({k: read[k] for k in given})
        return bool(open_)

    def add_complex(self, text: str, sets: int | None, parts: list[str], tail: str) -> None:
        if label := LABEL_PREFIX.match(text):
            self.took("label", label.group(0))
            text = text[label.end() :]
        part = self.part()
        current = part.sections[-1] if part.sections else None
        # A complex joins a format line just read ("E2MOM x 6:"), else it is its own section.
        if current is None or current.movements:
            current = Section(format="strength" if sets else "other")
            part.sections.append(current)
        current.complex = True
        if sets is None and current.format == "rounds" and current.rounds and not current.movements:
            # "Толчковый комплекс — 5 подходов:" then the complex: its sets
            sets, current.format, current.rounds = current.rounds, "strength", None
        marks: dict[str, Any] = {}
        quantities.strength_marks(tail, marks, [])
        load = quantities.LOAD.search(tail)
        for piece in parts:
            read = movement(piece)
            if read is None:
                self.took("note", piece)
                current.notes.append(piece)
                continue
            read["mention"] = text
            if sets is not None:
                read["sets"] = sets
            # "@ 70%" after the complex applies to every piece of it.
            for key in ("percent", "percentTo", "percentOf", "tempo"):
                if key in marks:
                    read[key] = marks[key]
            if load:
                read["load"] = quantities.clean_number(load.group(1)) + quantities.unit_of(
                    load.group(2)
                )
            self.add_movement(read, current)
        # "5 cleans + 5 push jerks 60/40 kg": the load after the last lift is the complex's
        complex_ = [m for m in current.movements if m["mention"] == text]
        _share_last_load(complex_)
        _jerk_after_the_clean(complex_)

    # -- the end -----------------------------------------------------------------------------

    def finish(self) -> None:
        for part in self.parts:
            part.sections = [
                s for s in part.sections if id(s) not in self.opened or s.movements or s.notes
            ]
            _format_said_after(part)
            part.sections = [s for section in part.sections for s in self.by_letter(section)]
        for index, part in enumerate(self.parts):
            heads = [part.name] + ([self.title] if index == 0 and self.title else [])
            _format_of_the_heading(part, heads)
        sections = [s for p in self.parts for s in p.sections if s.movements]
        if self.title is not None and len(sections) == 1 and _a_chipper(sections[0]):
            # "Karen - 150 WB", "Мёрф: 1,6 км бег, 100 подтягиваний, …": a named workout's
            # one list, every movement counted and no format said, is done for time
            sections[0].format = "for_time"
        for part in self.parts:
            for section in part.sections:
                _bodyweight_squats(section)
                _load_said_before(section.movements)
                _percent_of_the_header(section)
                self.place_shared(section)
                if section.time_cap_seconds and section.format in ("other", "rounds"):
                    section.format = "for_time"  # a cap is a race's: "Partner WOD, 30 min cap"
                if (
                    section.format == "other"
                    and section.movements
                    and all(is_lift(m) or "percent" in m for m in section.movements)
                ):
                    section.format = "strength"  # "Back squat: 5 @ 70%, 5 @ 75%, 5+ @ 80%"

    def by_letter(self, section: Section) -> list[Section]:
        """ "2 x 10' AMRAP" then "A) …" and "B) …": as many clocks as the header repeats, one
        for each letter's movements (the list is not done twice)."""
        letters = [self.lettered.get(id(m)) for m in section.movements]
        order = list(dict.fromkeys(letters))
        if (
            section.format != "amrap"
            or section.rounds is None
            or None in order
            or len(order) != section.rounds
        ):
            return [section]
        section.rounds = None
        out, listed = [], list(section.movements)
        for index, letter in enumerate(order):
            moves = [m for m, said in zip(listed, letters, strict=True) if said == letter]
            if index == 0:
                first = section
            else:
                first = Section(
                    format="amrap", duration_seconds=section.duration_seconds, from_header=True
                )
            first.movements = moves
            out.append(first)
        return out

    def place_shared(self, section: Section) -> None:
        """Loads and heights stated once (standards lines, a header's load) go to the
        movements of their implement that carry none; what finds no movement is warned of."""
        shared = list(section.shared)
        shared += [(k, i, v) for (k, i), v in quantities.paired(section.halves).items()]
        for kind, implement_, value in shared:
            if kind not in ("load", "height"):
                continue
            targets = _targets(section.movements, kind, implement_)
            if not targets:
                # "30 wall-ball shots, 20-lb ball" then "Men use a 20-lb ball, women a 14-lb
                # ball": the line said the men's half of the standard
                targets = [m for m in section.movements if _half_of(m.get(kind), value)]
            for move in targets:
                move[kind] = value
            if not targets and not any(m.get(kind) == value for m in section.movements):
                self.warnings.append({"code": f"{kind}_not_placed", "text": value})
        _womens_after(section)


def _half_of(said: Any, pair: str) -> bool:
    """Whether a movement's own quantity ("20lb") is the first half of a pair ("20/14lb")."""
    m = _PAIR_VALUE.fullmatch(pair)
    return isinstance(said, str) and m is not None and said == m["m"] + m["unit"]


_PAIR_VALUE = re.compile(r"(?P<m>[\d.]+)/(?P<f>[\d.]+)(?P<unit>[a-z]*)")
_ONE_VALUE = re.compile(r"(?P<n>[\d.]+)(?P<unit>[a-z]+)")


def _womens_after(section: Section) -> None:
    """ "30 hang power cleans, 135 lb" then "Women use … a 95-lb barbell": a load said for
    women alone completes the one the line said (the men's) for the lifts of its implement."""
    men = {(h.kind, h.implement) for h in section.halves if h.sex == "m"}
    for half in section.halves:
        if half.sex != "f" or half.kind != "load" or (half.kind, half.implement) in men:
            continue
        for move in section.movements:
            said = _ONE_VALUE.fullmatch(str(move.get("load", "")))
            if (
                said is not None
                and said["unit"] == half.unit
                and (half.implement is None or loadable(move) == half.implement)
            ):
                move["load"] = f"{said['n']}/{half.number}{half.unit}"


# What may follow "Tabata" before its movements: rounds, work/rest, in brackets or not.
_TABATA_SPEC = re.compile(
    rf"(?:\s*\([^()]*\)|\s+\d+\s*{words(lexicon.ROUNDS)}(?!\w)|\s+\d+\s*/\s*\d+"
    rf"|\s*{lexicon.TIMES}\s*\d+(?!\d))*\s*[:\-–—]?\s*",
    re.I,
)
_WORK_REST = re.compile(rf"\s*\([^()]*{words(lexicon.WORK_REST)}[^()]*\)\s*$", re.I)
_N_ROUNDS = re.compile(rf"(\d+)\s*{words(lexicon.ROUNDS)}(?!\w)", re.I)
_N_SETS = re.compile(rf"^\d+\s*{words(lexicon.SETS)}$", re.I)


def _share_last_load(moves: list[dict[str, Any]]) -> None:
    """The load said after the last of a line's lifts, when none of the others says one and
    all are lifts of the same implement, is theirs too."""
    if len(moves) < 2 or "load" not in moves[-1] or any("load" in m for m in moves[:-1]):
        return
    kind = loadable(moves[-1])
    if kind not in _LOADED or any(loadable(m) != kind for m in moves[:-1]):
        return
    for move in moves[:-1]:
        move["load"] = moves[-1]["load"]


_PLAIN_SEPARATORS = re.compile(r"\s[+&/|]\s|[,;]\s*|\s(?:and|и)\s", re.I)


def _names_counted_movements(text: str) -> bool:
    """Whether a text a note took holds a count and names a known movement in one of its
    pieces, without opening as a note ("Scaled: 35/25 + ring rows" is the coach's standard)."""
    if not QUANTITY.search(text) or is_note_start(text) or REST.match(SLOT.sub("", text)):
        return False
    # the list's pieces, and its plain separators' too: a piece that reads as nothing rejoins the
    # one before it in `pieces`, which can hide the movement it followed
    plain = _PLAIN_SEPARATORS.split(text)
    return any(names_known(p) for p in (*pieces(text), *plain) if p.strip())


def _format_said_after(part: Part) -> None:
    """ "1000m row / 50 thrusters / 30 pull-ups" then "For time." (or "AMRAP 20", "5 rounds") as
    the part's last line: the format of the list above it, which said none."""
    if len(part.sections) < 2:
        return
    listed, said = part.sections[-2], part.sections[-1]
    if (
        said.movements
        or not said.from_header
        or said.format == "other"
        or not listed.movements
        or not (
            listed.format == "other"
            or (listed.format, said.format) == ("rounds", "for_time")
            or _says_again(listed, said)
        )
    ):
        return  # "5 סבבים:" … then "לזמן!": the rounds are for time
    absorb(listed, said)
    part.sections.pop()


_PIPES = re.compile(r"\s+\|\s+")
_COLUMN_OF = {
    spelled.lower(): column
    for column, spellings in lexicon.COLUMNS.items()
    for spelled in spellings
}


def _table_fields(text: str) -> list[str] | None:
    """A row's fields, when tabs (or pipes) cut it into three or more. A pasted spreadsheet's
    cells are one tab each, so an empty cell inside the row stays in its column ("Plank<TAB>
    <TAB>3<TAB>", no sets said); empty cells closing the row are dropped, as the copy drops them."""
    if "\t" in text:
        fields = [f.strip() for f in text.strip(" |").split("\t")]
        while fields and not fields[-1]:
            fields.pop()
    elif "|" in text:
        fields = [f.strip() for f in _PIPES.split(text.strip(" |")) if f.strip()]
    else:
        return None
    return fields if sum(1 for f in fields if f) >= 3 else None


def _columns(fields: list[str]) -> list[str] | None:
    """What each field of a header row names; None when the row is not a header."""
    columns = [_COLUMN_OF.get(squeeze(f).lower().strip(":")) for f in fields]
    if None in columns or "name" not in columns:
        return None
    return [c for c in columns if c is not None]


def _row_as_written(said: dict[str, str]) -> str:
    """A table row as a coach writes the lift on one line: "Back squat 5x5 @ 75% 100kg"."""
    out = [said.get("name", "")]
    if said.get("sets") and said.get("reps"):
        out.append(f"{said['sets']}x{said['reps']}")
    elif said.get("reps"):
        out.append(f"x{said['reps']}")
    if percent := said.get("percent"):
        out.append(f"@ {percent}" if percent.endswith("%") else f"@ {percent}%")
    if load := said.get("load"):
        out.append(load)
    if tempo := said.get("tempo"):
        out.append(f"tempo {tempo}")
    return " ".join(out)


def _a_parts_heading(text: str, name: str) -> bool:
    """ "A) Complex: power clean + hang clean + split jerk": a lettered part's heading."""
    return TITLE_SEP.match(text) is not None and vocabulary.is_heading(LABEL_PREFIX.sub("", name))


def _a_heading(name: str) -> bool:
    """A name no movement is known by that holds a heading word ("squat cycle", "Oly day")."""
    return vocabulary.is_heading(name) and vocabulary.lookup(name) is None


def _format_of_the_heading(part: Part, heads: list[str]) -> None:
    """ "טבטה בטן: כפיפות בטן, הולו רוק, פלאנק", "Tabata Tuesday" over a list: a format said
    in the title or the part's name is the format of its first list, when that list says
    none."""
    listed = next((s for s in part.sections if s.movements), None)
    if listed is None or listed.format != "other" or listed.complex:
        return
    for head in heads:
        said = section_header(head, header_only=True)
        if said is not None and said.format not in ("other", "rounds") and not said.movements:
            absorb(listed, said)
            listed.notes = [n for n in listed.notes if n not in said.notes]
            return


_CLOCK_FIELDS = (
    "rounds", "rep_scheme", "duration_seconds", "interval_seconds", "time_cap_seconds"
)  # fmt: skip


def _says_again(listed: Section, said: Section) -> bool:
    """ "21-15-9 reps of: …" then "For time. Cap 10 min": the list's own format said again
    after it, with what the list did not say (its cap); nothing it says differs."""
    return listed.format == said.format and all(
        getattr(said, name) is None or getattr(listed, name) in (None, getattr(said, name))
        for name in _CLOCK_FIELDS
    )


# "For time @ 43/30 kg", "AMRAP 20 (60/40kg)", "4 rounds @ 50/35 lb DB": a load stated once
# at the end of a format's header.
_HEADER_LOAD = re.compile(
    r"\s*(?:@\s*|\(\s*|\s(?:ב-?|на\s+)(?=\d)|\s(?=(?:w/|with\s|с\s|עם\s)))"
    r"(?P<load>[^()@:]*\d[^()@:]*?)\s*\)?\s*$"
)  # "AMRAP 10 ב-60/40 ק"ג:", "На время на 60/40 кг:", "4 RFT w/ DBs 22.5/15kg —"


def _named_cap(head: str) -> Section | None:
    """ "Partner WOD, 30 min cap": a name and the cap of what follows; the name its note."""
    m = CAPPED_TITLE.match(head)
    if m is None or not m["tail"] or (said := format_said(m["tail"])) is None:
        return None
    said.notes.insert(0, m["name"].strip())
    return said


def _loaded_header(head: str) -> Section | None:
    """A format header that ends with the load of its lifts: the format, the load shared."""
    m = _HEADER_LOAD.search(head)
    if m is None or not (items := quantities.stated(m["load"])):
        return None
    section = section_header(head[: m.start()])
    if section is None:
        return None
    section.shared.extend(items)
    return section


def _read_piece(text: str, *, opening: bool) -> dict[str, Any] | None:
    """A piece as a movement; a distance alone opening a list is the run ("Helen 3RFT
    400m/21 KBS/12 PU")."""
    read = movement(text)
    if read is None and opening and DISTANCE_ONLY.fullmatch(text):
        read = movement(f"{text} run")
        if read is not None:
            read.update(mention=text, note="run")
    return read


def _bare_words(table: lexicon.Words) -> frozenset[str]:
    return frozenset(vocabulary.folded(vocabulary.normalize(w)) for w in lexicon.each(table))


def _is_bare(name: str, words_: frozenset[str]) -> bool:
    return vocabulary.folded(vocabulary.normalize(name)) in words_


_BARE_SQUAT = _bare_words(lexicon.BARE_SQUAT)
_BARE_JERK = _bare_words(lexicon.BARE_JERK)
_AIR_SQUAT = "air squat"
_JERK = "jerk"
_METCON = ("amrap", "for_time", "emom", "rounds", "tabata")


def _bodyweight_squats(section: Section) -> None:
    """ "AMRAP 12: 10 בורפי, 15 סקוואט, 20 כפיפות בטן": the bare squat word, counted in a metcon
    with no load, sets or percent, is the air squat (the name says so; the mention keeps the
    coach's word)."""
    if section.format not in _METCON:
        return
    for move in section.movements:
        if not _is_bare(move["name"], _BARE_SQUAT) or "reps" not in move:
            continue
        if (known := vocabulary.lookup(move["name"])) is None or known.equipment is None:
            continue  # "סקוואטים" is the air squat already
        if move.keys() & {"load", "sets", "percent", "repScheme", "tempo"}:
            continue
        move["name"] = _AIR_SQUAT
        move["note"] = "; ".join(filter(None, (move.get("note"), "bodyweight")))


def _jerk_after_the_clean(complex_: list[dict[str, Any]]) -> None:
    """ "3 взятия на грудь + 1 толчок": after the clean, the word the clean and jerk shares is
    the jerk (the name says so; the mention keeps the coach's word)."""
    cleaned = False
    for move in complex_:
        if cleaned and _is_bare(move["name"], _BARE_JERK):
            move["name"] = _JERK
        known = vocabulary.lookup(move["name"])
        cleaned = cleaned or (known is not None and "Clean" in known.name)


def _percent_of_the_header(section: Section) -> None:
    """ "Snatch complex E2:30 x 5 @ 70-75%: snatch pull + hang snatch + OHS", "… every 90 sec
    x 8, start 60%": a percent the section's header or clock says, and no lift its own, is
    every lift's — when the section is barbell lifts only."""
    said = next((m for note in section.notes if (m := quantities.PERCENT.search(note))), None)
    moves = section.movements
    if said is None or not moves or any("percent" in m for m in moves):
        return
    if not all(implement(m) == "barbell" for m in moves):
        return
    for move in moves:
        move["percent"] = float(quantities.clean_number(said.group(1)))
        if said.group(2):
            move["percentTo"] = float(quantities.clean_number(said.group(2)))


def _load_said_before(moves: list[dict[str, Any]]) -> None:
    """ "20 DB snatches (22.5/15)" … then "20 DB snatches" again in the same list: the load was
    said the first time, for both."""
    said: dict[str, str] = {}
    for move in moves:
        known = vocabulary.lookup(move["name"])
        if known is None:
            continue
        if "load" in move:
            said.setdefault(known.name, move["load"])
        elif known.name in said and loadable(move) is not None:
            move["load"] = said[known.name]


def _worn_or_scaled(note: str) -> bool:
    """A note that says what the workout is done in or scaled to ("В жилете 9/6 кг", "Partition
    as needed", "Scaled: half the reps"), not how it is paced."""
    return bool(_VEST_NOTE.search(note)) or is_note_start(note)


def _a_chipper(section: Section) -> bool:
    return (
        section.format == "other"
        and not section.complex
        and all(_worn_or_scaled(note) for note in section.notes)
        and all(
            m.keys() & {"reps", "distance", "calories"} and not is_lift(m) and "max" not in m
            for m in section.movements
        )
    )


_CLOCKS = ("emom", "amrap", "tabata")
# Where a clock starts after a lift's name written with no separator ("Snatch EMOM 12 x 2").
_CLOCK_START = re.compile(
    rf"\s(?=(?:[EЕ]\d*(?:MOM|MOTM|OTM|МОМ)|AMRAP|АМРАП|{words(lexicon.EVERY)}\s+\d)(?!\w))", re.I
)


# "EMOM", "E2MOM", "OTM" with no count of its own, on a lift's line of sets
_BARE_CLOCK = re.compile(
    r"(?<!\w)(?:[EЕ](\d*)(?:MOM|MOTM|OTM|МОМ)|OTM)(?!\w)(?!\s*(?:[xх×]\s*)?\d)", re.I
)
_A_MARK = re.compile(r"@|%|\bRPE\b", re.I)
_COUNT_THEN_CLOCK = re.compile(
    rf"^(\d+\s*(?:{words(lexicon.REPS)})?)\s+(?={words(lexicon.EVERY)}\s|[EЕ]\d*(?:MOM|MOTM|OTM|МОМ)\b)",
    re.I,
)
_MARKS_START = re.compile(
    r"^(?:[xX×х]\s*\d|@|на\s|ב-?\d|\d+\s*(?:reps?|повтор\w*|חזרות|חזרה)(?!\w))", re.I
)


def _clock_then_marks(
    clock: str, lift: str, known: vocabulary.Movement
) -> tuple[Section | None, str]:
    """ "EMOM 12 x 2 @ 70%": the shortest head that is a clock, when the rest are the lift's
    marks (each interval's reps, percent)."""
    found: list[tuple[Section, str]] = []
    for cut in (m.start() for m in re.finditer(r"\s+", clock)):
        said = section_header(clock[:cut], header_only=True)
        if said is None or said.notes or said.format not in _CLOCKS:
            continue
        rest = clock[cut:].strip()
        if not _MARKS_START.match(rest):
            continue  # "EMOM" then "12 x 2": the clock is "EMOM 12"
        read = movement(f"{lift} {rest}")
        if read is not None and vocabulary.lookup(read["name"]) is known:
            found.append((said, rest))
    # "every 90s x 10 @ 75%": a clock that counts its rounds ("x 10") before one that does not
    counted = [(s, r) for s, r in found if s.rounds or s.duration_seconds]
    if chosen := counted or found:
        return chosen[0]
    return None, ""


def _named_after(text: str) -> bool:
    """Whether no movement is named before the text's first number ("Men use 225-lb.
    deadlifts", not "Power snatch ♂️43 ♀️30 kg")."""
    digit = re.search(r"\d", text)
    return digit is not None and not names_a_movement(text[: digit.start()])


def _only_a_name(text: str) -> dict[str, Any] | None:
    """The movement a text names and says nothing else about (no count, no quantity)."""
    read = movement(text.strip(" .,;:"))
    if read is None or read.keys() - {"mention", "name"} or not vocabulary.lookup(read["name"]):
        return None
    return read


def _heads(name: str) -> bool:
    return vocabulary.lookup(name) is None and vocabulary.is_heading(name)


def _reads_apart(text: str, said: list[tuple[str, str]]) -> bool:
    """Whether a line's sentences are read one by one: not when it opens as a note or advice
    ("Scale: … . 10 reps should feel light.") or none of them holds a number, a movement or a
    format ("Steady pace. Keep moving.")."""
    first = said[0][0]
    if (is_note_start(first) and not is_greeting(first)) or is_prose(first):
        return False  # (a greeting opens the line, the workout follows it)
    return any(
        counted(sentence) or names_a_movement(sentence) or section_header(sentence.rstrip(".!? "))
        for sentence, _separator in said
    )


def _targets(moves: list[dict[str, Any]], kind: str, wanted: str | None) -> list[dict[str, Any]]:
    """The movements a shared load (or box height) belongs to."""
    open_ = [m for m in moves if kind not in m]
    if kind == "height":
        kinds = ("box", "medicine ball") if wanted is None else (wanted,)
        return [m for m in open_ if implement(m) in kinds]
    if wanted is not None:
        return [m for m in open_ if loadable(m) == wanted]
    for implement_ in _LOADED:
        chosen = [m for m in open_ if loadable(m) == implement_]
        if chosen:
            return chosen
    return []


_THEN_INSIDE = re.compile(rf"[,;.]?\s+{words(lexicon.THEN)}\s*:?\s+(?=\S)", re.I)


def _then_inside(text: str) -> re.Match[str] | None:
    """Where "then" starts a format in the middle of a line ("…, then 2 rounds: …"), or the
    back-off sets of the lift before it ("Deadlift 5x3 @ 80% then 3x5 @ 70%")."""
    for m in _THEN_INSIDE.finditer(text):
        rest = text[m.end() :]
        if text[: m.start()].count("(") > text[: m.start()].count(")"):
            continue  # "(build to a heavy double, then single)": an aside, read whole
        if m.start() > 0 and (
            section_header(rest, header_only=rest.endswith(":"))
            or marks_only(rest) is not None
            or (_FORMAT_SEP.match(rest) and section_header(_FORMAT_SEP.match(rest)["head"]))  # type: ignore[index]
            or _sets_of_a_known(rest)  # "Work up to a heavy 5 …, then do 3 sets of 10 DB rows."
        ):
            return m
    return None


def _sets_of_a_known(text: str) -> bool:
    """Whether a text is sets of a known movement ("do 3 sets of 10 dumbbell rows per arm.")."""
    read = movement(text.rstrip(". "))
    return read is not None and "sets" in read and vocabulary.lookup(read["name"]) is not None


def read_workout(text: str) -> Reading:
    """The reading of a coach's text, with what was taken from each line."""
    reader = Reader()
    lines = lines_of(text)
    listed = numbered(lines)
    for index, line in enumerate(lines):
        reader.line(line, numbered=index in listed)
    reader.finish()
    parts = [p for p in reader.parts if p.sections or p.notes]
    parsed = {
        "title": _title(reader, lines),
        "parts": [part_out(i, part) for i, part in enumerate(parts, start=1)],
        "unread": reader.unread,
    }
    if reader.warnings:
        parsed["warnings"] = reader.warnings
    for move in movements_of(parsed):
        move["mention"] = _verbatim(move["mention"], move["name"], text)
    return Reading(parsed, reader.trace)


def _title(reader: Reader, lines: list[str]) -> str | None:
    """A known workout named in the text's first lines, by its canonical name ("Benchmark
    Friday: ANNIE", "fran today 🔥 21-15-9 …": Annie, Fran); else the title as read."""
    gave = [i for i, took in enumerate(reader.trace) if any(r == "movement" for r, _ in took)]
    head = lines[: gave[0] + 1] if gave else lines
    if named := named_title(head):
        return named
    return reader.title and (known_name(reader.title) or reader.title)


def parse_workout(text: str) -> dict[str, Any]:
    """`{title, parts: [...], unread: [...]}` read from a coach's text.

    The text itself is kept by the caller. `unread` lists the pieces with a quantity that were
    neither a movement nor a format (they are kept as notes too, so nothing is dropped);
    `warnings` (present when there are any) what was read but could not be placed, such as a
    load stated once that no movement of its section takes.
    """
    return read_workout(text).parsed


def _verbatim(mention: str, name: str, text: str) -> str:
    """A mention is always a piece of the coach's text. Reading a format out of the middle of a
    line ("12 for time for time") can leave a joined remainder that is not; then the mention is
    the line that holds the movement."""
    if mention in text:
        return mention
    squeezed = squeeze(mention)
    if squeezed in text:
        return squeezed
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    holding = [line for line in lines if name.lower() in line.lower()]
    return (holding or lines or [text])[0]
