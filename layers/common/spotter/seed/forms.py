"""Demo forms: a required liability waiver in its second version (some members signed only the
first), an intake form with answers, and a health questionnaire still in draft.

Goes through `domain.forms`, so every answer is checked against its version as the member app's
would be. Idempotent: a form that exists by name is left as it is.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from spotter.db.scope import OrgScope
from spotter.domain import forms
from spotter.seed.schedule import MEMBERS

WAIVER_TERMS = (
    "I understand that CrossFit, weightlifting and conditioning training involve a risk of"
    " injury. I confirm I am fit to train, will tell a coach about any injury or condition, and"
    " release CrossFit Demo Box, its owners and coaches from liability for injuries sustained"
    " during classes, open gym and events, except in case of gross negligence."
)
WAIVER_FIELDS: list[dict[str, Any]] = [
    {"key": "emergency_contact", "label": "Emergency contact (name and phone)",
     "type": "short_text", "required": True},
    {"key": "conditions", "label": "Injuries or medical conditions we should know about",
     "type": "long_text", "required": False, "health": True},
    {"key": "agree", "label": "I have read and accept the terms", "type": "acknowledgement",
     "required": True},
    {"key": "signature", "label": "Signature (type your full name)", "type": "signature",
     "required": True},
]  # fmt: skip
HOUSE_RULES = {
    "key": "house_rules",
    "label": "I will put my equipment back and wipe it down",
    "type": "acknowledgement",
    "required": True,
}
INTAKE_FIELDS: list[dict[str, Any]] = [
    {"key": "goals", "label": "What are your goals?", "type": "multi_choice", "required": True,
     "options": ["Get stronger", "Lose weight", "Compete", "Feel better", "Mobility"]},
    {"key": "experience", "label": "Training experience", "type": "single_choice",
     "required": True, "options": ["None", "Some gym", "CrossFit before", "Competitive athlete"]},
    {"key": "heard_from", "label": "How did you hear about us?", "type": "single_choice",
     "required": False, "options": ["Instagram", "A friend", "Google", "Walked by"]},
    {"key": "sessions_per_week", "label": "Sessions per week you plan", "type": "number",
     "required": False},
]  # fmt: skip
PARQ_FIELDS: list[dict[str, Any]] = [
    {"key": "heart", "label": "Has a doctor ever said you have a heart condition?",
     "type": "yes_no", "required": True},
    {"key": "chest_pain", "label": "Do you feel pain in your chest during activity?",
     "type": "yes_no", "required": True},
    {"key": "dizziness", "label": "Do you lose balance because of dizziness?", "type": "yes_no",
     "required": True},
    {"key": "medication", "label": "Are you taking medication for blood pressure or the heart?",
     "type": "yes_no", "required": True},
]  # fmt: skip
WAIVER_V1_SIGNERS = 18
WAIVER_V2_SIGNERS = 9
INTAKE_SIGNERS = 12

Conn = AsyncConnection[dict[str, Any]]


def _waiver_answers(name: str, index: int) -> dict[str, Any]:
    answers: dict[str, Any] = {
        "emergency_contact": f"Family of {name.split()[0]}, 050-555-{1000 + index:04d}",
        "agree": True,
        "signature": name,
    }
    if index % 5 == 0:
        answers["conditions"] = "Old shoulder injury; no overhead pressing for now."
    return answers


def _intake_answers(index: int) -> dict[str, Any]:
    goals = [["Get stronger"], ["Lose weight", "Feel better"], ["Compete"], ["Mobility"]]
    return {
        "goals": goals[index % 4],
        "experience": ["None", "Some gym", "CrossFit before"][index % 3],
        "heard_from": ["Instagram", "A friend", "Google", "Walked by"][index % 4],
        "sessions_per_week": 2 + index % 3,
    }


async def _exists(scope: OrgScope, name: str) -> bool:
    cur = await scope.conn.execute(
        "SELECT 1 FROM forms WHERE organization_id = %s AND lower(name) = lower(%s)",
        (scope.org_id, name),
    )
    return await cur.fetchone() is not None


async def _members(scope: OrgScope) -> list[tuple[str, UUID]]:
    cur = await scope.conn.execute(
        "SELECT u.full_name, m.id FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND m.role = 'member' AND m.status = 'active'"
        " AND u.full_name = ANY(%s) ORDER BY array_position(%s, u.full_name)",
        (scope.org_id, list(MEMBERS), list(MEMBERS)),
    )
    return [(str(r["full_name"]), UUID(str(r["id"]))) for r in await cur.fetchall()]


async def _waiver(scope: OrgScope, people: list[tuple[str, UUID]], now: datetime) -> None:
    form = await forms.create_form(
        scope, kind="waiver", name="Liability waiver", body=WAIVER_TERMS, fields=WAIVER_FIELDS,
        required=True,
    )  # fmt: skip
    await forms.publish(scope, form["id"], published_by=None)
    for index, (name, membership_id) in enumerate(people[:WAIVER_V1_SIGNERS]):
        signed = now - timedelta(days=60 - index)
        answers = _waiver_answers(name, index)
        await forms.record_submission(scope, form["id"], membership_id, answers, signed_at=signed)
    await forms.add_field(scope, form["id"], HOUSE_RULES, position=3)
    await forms.publish(scope, form["id"], published_by=None)
    for index, (name, membership_id) in enumerate(people[:WAIVER_V2_SIGNERS]):
        answers = {**_waiver_answers(name, index), "house_rules": True}
        signed = now - timedelta(days=20 - index)
        await forms.record_submission(scope, form["id"], membership_id, answers, signed_at=signed)


async def _intake(scope: OrgScope, people: list[tuple[str, UUID]], now: datetime) -> None:
    form = await forms.create_form(
        scope, kind="intake", name="New member intake", title="Welcome! Tell us about you",
        fields=INTAKE_FIELDS,
    )  # fmt: skip
    await forms.publish(scope, form["id"], published_by=None)
    for index, (_, membership_id) in enumerate(people[-INTAKE_SIGNERS:]):
        signed = now - timedelta(days=45 - 3 * index)
        await forms.record_submission(
            scope, form["id"], membership_id, _intake_answers(index), signed_at=signed
        )


async def seed_forms(owner_url: str, org_id: UUID, *, now: datetime | None = None) -> None:
    at = now or datetime.now(UTC)
    async with await Conn.connect(owner_url, row_factory=dict_row) as conn, conn.transaction():
        scope = OrgScope(conn, org_id)
        people = await _members(scope)
        if not await _exists(scope, "Liability waiver"):
            await _waiver(scope, people, at)
        if not await _exists(scope, "New member intake"):
            await _intake(scope, people, at)
        if not await _exists(scope, "Health questionnaire (PAR-Q)"):
            await forms.create_form(
                scope, kind="health", name="Health questionnaire (PAR-Q)", fields=PARQ_FIELDS
            )
