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


def test_the_reads_entry_point_leaves_the_approval_page_to_its_routes() -> None:
    # The reads function serves the approval page's two routes: their module (the approvals'
    # resolution, the tool runner, every tool definition) loads on the first approval request,
    # or before the snapshot, never on an on-demand cold start.
    probe = "import sys, app; print('spotter.agent.approvals.resolution' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=FUNCTIONS / "reads",
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "False"


def test_building_the_embedder_does_not_import_voyageai() -> None:
    # The streaming app builds its embedder with the run's deps; voyageai (numpy, pillow) loads
    # on the first embed call, which the fake-Voyage tests (tests/integration/agent/rag) exercise.
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


def test_the_mcp_app_and_its_tool_list_import_no_model_sdk() -> None:
    # The MCP function's layers have neither SDK: its app, its catalog and its call path must
    # never need them (the built-artifact test runs it on those layers alone).
    probe = (
        "import sys\n"
        "from cryptography.hazmat.primitives.asymmetric import rsa\n"
        "from spotter.auth.devkeys import public_pem\n"
        "from spotter.config import Settings\n"
        "from spotter.http.app import create_app\n"
        "from spotter.mcp import calls, undo\n"
        "from spotter.mcp.catalog import catalog_for\n"
        "key = public_pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))\n"
        "create_app(Settings(environment='test', clerk_jwt_key=key), streaming=False)\n"
        "assert catalog_for('owner', True, True).tools\n"
        "print(','.join(m for m in ('anthropic', 'voyageai', 'numpy') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""
