"""DAY_GRAIN_PROMPT names only tools a day-grain coach really has, and states the key rules."""

from __future__ import annotations

import re

from spotter.agent.prompting.day_grain_prompt import DAY_GRAIN_PROMPT
from spotter.tools.registry import registry_for


def test_every_tool_the_prompt_names_exists_for_day_grain_coaches() -> None:
    named = set(re.findall(r"\b([a-z_]+)\.([a-z_]+)\b", DAY_GRAIN_PROMPT))
    assert named >= {("workouts", "parse"), ("workouts", "upsert"), ("read", "ask_user_to_pick")}
    registry = registry_for("coach", True, True)
    # `save.resolutions` is an argument path, not a tool.
    missing = [f"{r}.{a}" for r, a in named if r != "save" and registry.get(r, a) is None]
    assert missing == []


def test_the_prompt_states_the_day_grain_rules() -> None:
    for rule in (
        "ONE workout per program and date",
        "verbatim through workouts.parse",
        "save.resolutions: [{movementKey, mention, exerciseId}]",
        "auto_confirmed_movement",
        "notSavedReasons",
        "the brief is never the title",
    ):
        assert rule in DAY_GRAIN_PROMPT, rule
