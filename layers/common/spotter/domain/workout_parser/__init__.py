"""A coach's pasted day of training, read into ONE workout: parts, sections, movements.

Pure and deterministic: no database, no model. Movement names come out as the coach wrote them
(cleaned of quantities); `spotter.domain.movement_match` and `workouts.resolve_movements` match
them against the org's exercise library. Every movement carries a stable `key`
("part.section.movement", 1-based) and its verbatim `mention`, so a second call can resolve
exactly the movements the first one could not.

The reading is split by what each step does:
- `lines`: the text into lines (";" ends one too) and sentences, bullets, labels, brackets;
- `lexicon`: the grammar's words per language (en, he, ru) — parts, units, format words;
- `quantities`: loads per sex and unit, distances, calories, heights, holds, percent (of a named
  1RM), tempo, sets x reps, rep schemes, per-side counts;
- `movements`: a line into its movement pieces and a piece into a movement, with the shared
  movement vocabulary (`spotter/domain/movement_vocabulary.toml`) where grammar cannot tell;
- `formats`: For Time, rounds, AMRAP, EMOM and every-N clocks, Tabata, caps, rep schemes;
- `lists`: a line of movements as a whole, and what it says after them (rounds, a cap, a format);
- `marks`: a line of marks only (sets, counts, percent, tempo, back-off sets) for the lift above;
- `notes`: what is about the workout rather than in it;
- `titles`: part headers, a workout's name, the text's title;
- `reader`: parts, titles, sections and movements, line by line, and loads stated once;
- `render`: the compact text form `spotter parse-workout` prints.
"""

from spotter.domain.workout_parser.model import movements_of
from spotter.domain.workout_parser.reader import Reading, parse_workout, read_workout

__all__ = ["Reading", "movements_of", "parse_workout", "read_workout"]
