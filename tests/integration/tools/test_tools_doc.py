"""docs/tools.md is generated from the catalog and must match it."""

from __future__ import annotations

from pathlib import Path

from spotter.agent.run.quick_lane import router_system
from spotter.tools.report import render_tools_doc

DOC = Path(__file__).resolve().parents[3] / "docs" / "tools.md"


def test_tools_doc_is_current() -> None:
    assert DOC.exists(), "run `.venv/bin/spotter tools-doc`"
    assert DOC.read_text() == render_tools_doc(router_system), (
        "docs/tools.md is stale: run `.venv/bin/spotter tools-doc`"
    )
