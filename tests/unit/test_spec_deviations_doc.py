"""docs/spec_deviations.md names the test that holds each deviation: every one it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "spec_deviations.md"


def test_every_test_the_deviations_doc_names_exists() -> None:
    named = re.findall(r"`(tests/[^`]+)`", DOC.read_text())
    assert len(named) >= 8
    assert [path for path in named if not (ROOT / path).exists()] == []
