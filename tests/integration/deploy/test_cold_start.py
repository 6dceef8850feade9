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


def test_building_the_embedder_does_not_import_voyageai() -> None:
    # The streaming app builds its embedder with the run's deps; voyageai (numpy, pillow) loads
    # on the first embed call, which the fake-Voyage tests (tests/integration/rag) exercise.
    probe = (
        "import sys\n"
        "from spotter.config import Settings\n"
        "from spotter.providers.embeddings import VoyageEmbedder, embedder_for\n"
        "embedder = embedder_for(Settings(environment='test', voyage_api_key='k'))\n"
        "assert isinstance(embedder, VoyageEmbedder)\n"
        "print(','.join(m for m in ('voyageai', 'numpy', 'PIL') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
