"""`spotter parse-workout`: coach text on stdin, the parser's reading as JSON on stdout."""

from __future__ import annotations

import io
import json

import pytest

from spotter.cli import main


def _run(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    main(["parse-workout"])


def test_prints_the_parsed_workout_and_what_it_could_not_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, "Helen\n3 rounds for time:\n400m run\n21 KB swings (1.5/1 pood)\n4 @ 70%\n")
    out = json.loads(capsys.readouterr().out)
    assert out["title"] == "Helen"
    [section] = out["parts"][0]["sections"]
    assert (section["format"], section["rounds"]) == ("for_time", 3)
    assert [(m["mention"], m["name"]) for m in section["movements"]] == [
        ("400m run", "run"),
        ("21 KB swings (1.5/1 pood)", "KB swings"),
    ]
    assert out["unread"] == ["4 @ 70%"]


def test_hebrew_stays_readable_in_the_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(monkeypatch, "2 סבבים: 400 מטר ריצה, 15 כפיפות בטן")
    assert "כפיפות בטן" in capsys.readouterr().out


def test_text_with_no_workout_exits_non_zero_and_says_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        _run(monkeypatch, "\n\n")
    assert exited.value.code == 1
    assert "no workout could be read" in capsys.readouterr().err
