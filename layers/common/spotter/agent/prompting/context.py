"""What the model sees around the history: two cached system blocks, the turn context, markers.

Request layout (the provider renders tools → system → messages):
  [tools][static system ⟂5m][org + caller ⟂5m][user + <turn_context>][… history …][tail ⟂5m]
Nothing per turn lives in `system`; the clock and page ride in the stored user turn.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from spotter.agent.prompting.playbooks import insight_playbook
from spotter.agent.prompting.prompts import static_prompt
from spotter.agent.transcript import TURN_CONTEXT_TAG
from spotter.auth.caller import Caller
from spotter.tiers import enabled_features

CACHE_5M: dict[str, str] = {"type": "ephemeral", "ttl": "5m"}


def org_block(caller: Caller) -> str:
    features = ", ".join(sorted(enabled_features(caller.platform_tier, caller.feature_flags)))
    features = features or "none"
    return (
        "<org>\n"
        f"Organization: {caller.org_name}\n"
        f"Timezone: {caller.org_timezone}\n"
        f"Caller: {caller.full_name} (role: {caller.role})\n"
        f"Enabled features: {features}\n"
        "</org>"
    )


def system_blocks(caller: Caller) -> list[dict[str, Any]]:
    """Block 1 is shared by every org with this tool surface; block 2 by this org + caller."""
    return [
        {
            "type": "text",
            "text": static_prompt(day_grain=caller.day_grain_programming),
            "cache_control": CACHE_5M,
        },
        {"type": "text", "text": org_block(caller), "cache_control": CACHE_5M},
    ]


def _selection(selection: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in sorted((selection or {}).items()) if v not in (None, "", [], {})}


def build_turn_context(
    caller: Caller,
    now: datetime,
    pathname: str,
    selection: dict[str, Any] | None,
    ambient: str = "",
) -> str:
    """Built once per run: every lane of the run shares this clock. `ambient` is the rendered
    `<ambient_context>` section (agent.rag.ambient.render_ambient), computed before the row is
    written so the stored turn is written once."""
    local = now.astimezone(ZoneInfo(caller.org_timezone))
    page = [f"pathname: {pathname}"]
    if chosen := _selection(selection):
        page.append(f"selection: {json.dumps(chosen, ensure_ascii=False, sort_keys=True)}")
    return "\n".join(
        [
            TURN_CONTEXT_TAG,
            f"Current date & time in org timezone ({caller.org_timezone}):"
            f" {local:%A %Y-%m-%d %H:%M} (UTC{local:%z})",
            f"Caller's preferred locale: {caller.locale}",
            "<page_context>",
            *page,
            "</page_context>",
            *([playbook] if (playbook := insight_playbook(selection)) else []),
            *([ambient] if ambient else []),
            "</turn_context>",
        ]
    )


def user_turn(text: str, turn_context: str) -> list[dict[str, Any]]:
    """The stored user turn: what they typed, then the context (see agent.turn_context)."""
    return [{"type": "text", "text": text}, {"type": "text", "text": turn_context}]


def with_cached_tail(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy whose trailing message's last block carries the 3rd cache breakpoint."""
    if not messages:
        return messages
    *head, tail = messages
    blocks = list(tail["content"])
    blocks[-1] = {**blocks[-1], "cache_control": CACHE_5M}
    return [*head, {**tail, "content": blocks}]
