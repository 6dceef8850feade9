"""`spotter parse-workout`: coach text on stdin, what the parser read on stdout — compact, or
the full reading with --json."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from spotter.cli import main


def _run(monkeypatch: pytest.MonkeyPatch, text: str, *flags: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    main(["parse-workout", *flags])


def test_json_prints_the_parsed_workout_and_what_it_could_not_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(
        monkeypatch,
        "Helen\n3 rounds for time:\n400m run\n21 KB swings (1.5/1 pood)\n4 @ 70%\n",
        "--json",
    )
    out = json.loads(capsys.readouterr().out)
    assert out["title"] == "Helen"
    [section] = out["parts"][0]["sections"]
    assert (section["format"], section["rounds"]) == ("for_time", 3)
    assert [(m["mention"], m["name"]) for m in section["movements"]] == [
        ("400m run", "run"),
        ("21 KB swings (1.5/1 pood)", "KB swings"),
    ]
    assert out["unread"] == ["4 @ 70%"]


def test_the_compact_form_shows_formats_counts_known_names_and_loads(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, "Eva: 5 RFT 800m run, 30 KBS 2/1.5 pood, 30 pull-ups\n4 @ 70%")
    assert capsys.readouterr().out.splitlines() == [
        "Eva",
        "Workout",
        "  for time · 5 rounds",
        "    note: 4 @ 70%",
        "    run · 800m",
        "    30 × KBS (Kettlebell Swing) · 2/1.5pood",
        "    30 × pull-ups",
        "unread: 4 @ 70%",
    ]


def test_the_compact_form_shows_clocks_percentages_and_tempo(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, "E2:30 x 5: 2 hang power snatch + 1 OHS @ 65%\nTempo back squat 4x6 @ 32X1")
    assert capsys.readouterr().out.splitlines() == [
        "Workout",
        "  every 2:30 × 5 · complex",
        "    2 × hang power snatch · @ 65%",
        "    1 × OHS (Overhead Squat) · @ 65%",
        "  strength",
        "    4 × 6 Tempo back squat (Back Squat) · tempo 3-2-X-1",
    ]


def test_hebrew_and_russian_stay_readable_in_the_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, "2 סבבים: 400 מטר ריצה, 15 כפיפות בטן\n10 махов гирей")
    out = capsys.readouterr().out
    assert "15 × כפיפות בטן (Sit-up)" in out
    assert "10 × махов гирей (Kettlebell Swing)" in out


def test_text_with_no_workout_exits_non_zero_and_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        _run(monkeypatch, "\n\n")
    assert exited.value.code == 1
    assert "no workout could be read" in capsys.readouterr().err


def test_a_reader_that_stops_early_ends_it_quietly() -> None:
    # `spotter parse-workout | head`: the pipe closes while the reading is still printed
    text = "For time:\n" + "\n".join(f"{n} burpees" for n in range(1, 3000))
    command = [sys.executable, "-c", "import sys; from spotter.cli import main; main(sys.argv[1:])"]
    with subprocess.Popen(
        [*command, "parse-workout", "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(text.encode())
        process.stdin.close()
        assert process.stdout.readline() == b"{\n"
        process.stdout.close()  # what `head -1` does after its line
        assert process.stderr is not None
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 0
    assert "BrokenPipeError" not in err and "Traceback" not in err


def test_the_compact_form_shows_a_percent_range_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, "EMOM 10: 2 hang power snatch + 1 overhead squat @ 65-75%")
    assert capsys.readouterr().out.splitlines()[2:] == [
        "    2 × hang power snatch · @ 65-75%",
        "    1 × overhead squat · @ 65-75%",
    ]
