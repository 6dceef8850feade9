"""Milliseconds per coach text for `spotter.domain.workout_parser`, over every fixture set.

    .venv/bin/python bench/parse_workouts.py [runs]

Cold: each run in a fresh interpreter, the parser's module imported first (the vocabulary and
the compiled grammar), then every text parsed once: what the first texts after a Lambda start
pay. Warm: the same texts parsed again in that process (the per-piece caches filled: a
repeated text is cheap). New text: in a fresh interpreter, the tuned set parsed once, then the
other sets' texts timed — text the process has not seen, the steady cost of a running Lambda. The
figures are medians of `runs` (5) runs of CPU time (the machine is shared: wall time measures
the neighbours); the import itself is reported apart. Run it with another checkout's
interpreter (`/work/main/.venv/bin/python bench/parse_workouts.py`) to compare parsers on the
same texts.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ("workout_set", "workout_heldout", "workout_blind1", "workout_blind2", "workout_blind3")

_ONE_RUN = """
import json, sys, time
from pathlib import Path
t0 = time.process_time()
from spotter.domain.workout_parser import parse_workout
t1 = time.process_time()
texts = [json.loads(p.read_text())["text"] for folder in sys.argv[1:]
         for p in sorted(Path(folder).glob("*.json"))]
t2 = time.process_time()
for text in texts:
    parse_workout(text)
t3 = time.process_time()
for text in texts:
    parse_workout(text)
t4 = time.process_time()
print(json.dumps({"texts": len(texts), "import": t1 - t0, "cold": t3 - t2, "warm": t4 - t3}))
"""

_NEW_TEXT = """
import json, sys, time
from pathlib import Path
from spotter.domain.workout_parser import parse_workout
def texts(folders):
    paths = [p for f in folders for p in sorted(Path(f).glob("*.json"))]
    return [json.loads(p.read_text())["text"] for p in paths]
for text in texts(sys.argv[1:2]):
    parse_workout(text)
fresh = texts(sys.argv[2:])
t0 = time.process_time()
for text in fresh:
    parse_workout(text)
print(json.dumps({"texts": len(fresh), "new": time.process_time() - t0}))
"""


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    folders = [str(ROOT / "tests" / "fixtures" / name) for name in SETS]
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _ONE_RUN, *folders], capture_output=True, text=True, check=True
        )
        results.append(json.loads(out.stdout))
    texts = results[0]["texts"]
    fresh = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _NEW_TEXT, *folders], capture_output=True, text=True, check=True
        )
        fresh.append(json.loads(out.stdout))

    def median_ms(key: str, per_text: bool = True) -> float:
        return statistics.median(r[key] for r in results) * 1000 / (texts if per_text else 1)

    print(f"{texts} texts ({', '.join(SETS)}), median of {runs} runs")
    print(f"import of the parser: {median_ms('import', per_text=False):.0f} ms")
    print(f"cold: {median_ms('cold'):.2f} ms a text; warm: {median_ms('warm'):.2f} ms a text")
    new = statistics.median(r["new"] for r in fresh) * 1000 / fresh[0]["texts"]
    print(f"new text in a warm process ({fresh[0]['texts']} texts after {SETS[0]}): {new:.2f} ms")


if __name__ == "__main__":
    main()
