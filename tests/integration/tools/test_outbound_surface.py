"""Every tool whose effects leave our database always confirms, with a card built on the server."""

from __future__ import annotations

from spotter.tools.catalog import load_catalog


def test_every_tool_with_external_effects_always_confirms_with_a_preview() -> None:
    outbound = [s for s in load_catalog().specs.values() if s.external_effects]
    assert {s.name for s in outbound} >= {
        "messages.send",
        "announcements.send",
        "memberships.send_invitations",
        "automations.test_send",
    }
    assert [s.name for s in outbound if s.confirm != "always" or s.preview is None] == []
    assert [s.name for s in outbound if s.side_effects != "write"] == []
