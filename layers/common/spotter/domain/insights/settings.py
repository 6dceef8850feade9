"""The thresholds insights are computed with: documented defaults, overridden per org.

An org's row in `insight_settings` holds only the keys it changed (camelCase, as the API shows
them); an unknown key or a value out of range there is ignored in favour of the default, so a bad
setting can never take the dashboard down.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from spotter.db.scope import OrgScope


class Thresholds(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    # members at risk: no check-in for N days, N by plan type ...
    quiet_days_unlimited: int = Field(default=21, ge=3, le=180)
    quiet_days_class_plan: int = Field(default=21, ge=3, le=180)
    # ... or the last 28 days' check-ins at most this share of the 28 days before, when the
    # member came at least `drop_min_visits` times in those 28 days
    drop_ratio: float = Field(default=0.25, ge=0, le=1)
    drop_min_visits: int = Field(default=8, ge=1, le=100)
    # tenure: a member in their first N days counts double (they leave most)
    new_member_days: int = Field(default=90, ge=7, le=365)
    # new members: first visit at least 7 and at most N days ago, nothing booked 7-14 days after
    second_week_lookback_days: int = Field(default=28, ge=14, le=90)
    # leads: open and not contacted (emailed or answered) within N hours of arriving
    lead_contact_hours: int = Field(default=48, ge=1, le=720)
    # trials: open or lost leads in the stage of this name ended a trial without converting
    trial_done_stage: str = Field(default="Trial done", min_length=1, max_length=80)
    # classes: a slot (class type at a local time) whose sessions over the last N weeks
    # averaged fewer booked spots than this share of capacity
    low_fill_ratio: float = Field(default=0.12, ge=0, le=1)
    fill_weeks: int = Field(default=4, ge=1, le=26)
    # waitlists: upcoming sessions in the next N days with someone waiting
    waitlist_days_ahead: int = Field(default=7, ge=1, le=60)
    # class credits: a member on a credit pack with at most this many left
    low_credits: int = Field(default=2, ge=0, le=100)


DEFAULTS = Thresholds()


def thresholds_of(stored: dict[str, Any]) -> Thresholds:
    """The defaults with each valid stored key applied; an invalid one keeps its default."""
    kept: dict[str, Any] = {}
    for key, value in stored.items():
        try:
            Thresholds.model_validate({**kept, key: value})
        except ValidationError:
            continue
        kept[key] = value
    return Thresholds.model_validate(kept)


async def load_thresholds(scope: OrgScope) -> Thresholds:
    cur = await scope.conn.execute(
        "SELECT thresholds FROM insight_settings WHERE organization_id = %s", (scope.org_id,)
    )
    row = await cur.fetchone()
    return DEFAULTS if row is None else thresholds_of(dict(row["thresholds"]))
