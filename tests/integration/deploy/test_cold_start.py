"""Cold start: the buffered reads and the migration import no model SDK (`import anthropic` alone
costs over a second here); figures in docs/deploy.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FUNCTIONS = Path(__file__).resolve().parents[3] / "functions"
HEAVY = ("anthropic", "voyageai", "numpy", "boto3")


@pytest.mark.parametrize("function", ["reads", "migrate", "sweep"])
def test_light_entry_points_import_no_model_sdk(function: str) -> None:
    probe = f"import sys, app; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=FUNCTIONS / function,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "", f"{function} imports {result.stdout.strip()}"
    # And the entry module builds its handler without any AWS call or database connection.
    assert result.stderr == ""
