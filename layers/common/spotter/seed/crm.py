"""Demo CRM: leads in two pipelines (with owners, tags, notes), inbox threads, staff tasks.

Idempotent: pipelines are found by name, leads by email, threads by subject, tasks by title;
only what is missing is written. Written through the domain functions (in one org-bound
transaction on the owner connection), so the demo's rows obey the same rules as the agent's.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from spotter.db.scope import OrgScope
from spotter.domain import lead_pipelines, leads, tasks

PIPELINES = {
    "Trials": ("New enquiry", "Contacted", "Trial booked", "Trial done"),
    "Corporate": ("Enquiry", "Proposal sent", "Negotiation"),
}
# (first, last, email, phone, source, pipeline, stage, owner clerk id, tags, status, note)
LEADS: tuple[tuple[Any, ...], ...] = (
    ("Noa", "Shalev", "noa.shalev@example.com", "+972-50-111-2201", "website", "Trials",
     "New enquiry", None, ["trial"], "open", "Asked about the 07:00 class."),
    ("Ben", "Carmi", "ben.carmi@example.com", None, "instagram", "Trials", "Contacted",
     "user_demo_coach", ["trial", "hot"], "open", None),
    ("Dafna", "Lavi", "dafna.lavi@example.com", "+972-52-333-4402", "referral", "Trials",
     "Trial booked", "user_demo_coach", ["trial", "referral"], "open",
     "Referred by a member; trial on Thursday."),
    ("Yoav", "Peled", None, "+972-54-555-6603", "walk-in", "Trials", "Trial done",
     "user_demo_admin", [], "open", None),
    ("Rina", "Haddad", "rina.haddad@example.com", None, "website", "Trials", "Trial done",
     "user_demo_owner", ["kids"], "won", None),
    ("Alon", "Mor", "alon.mor@example.com", None, "instagram", "Trials", "Contacted", None, [],
     "lost", None),
    ("Orly", "Ben-Ami", "orly@startup.example.com", "+972-3-777-8804", "website", "Corporate",
     "Proposal sent", "user_demo_owner", ["corporate"], "open",
     "12 employees, mornings; sent the team-plan proposal."),
    ("Eyal", "Gross", "eyal.gross@bank.example.com", None, "referral", "Corporate", "Enquiry",
     None, ["corporate"], "open", None),
)  # fmt: skip
# (subject, lead email or member name, [(direction, body)], status, tags)
THREADS: tuple[tuple[Any, ...], ...] = (
    ("Trial class question", "noa.shalev@example.com",
     [("inbound", "Hi! Can I try the 07:00 CrossFit class this week? I have never lifted.")],
     "open", []),
    ("Team plan for our office", "orly@startup.example.com",
     [("inbound", "Thanks for the proposal. Could we start on the 1st with 10 people?")],
     "open", ["corporate"]),
    ("Freezing my membership", "Maya Rosen",
     [("inbound", "I'm travelling for three weeks in January; can I freeze my membership?")],
     "open", ["billing"]),
    ("Lost water bottle", "Omer Biton",
     [("inbound", "Did anyone find a blue bottle after the 18:00 class?"),
      ("outbound", "Yes, it's at the front desk.")],
     "closed", []),
)  # fmt: skip
# (title, days from today or None, assignee clerk id, lead email, done)
TASKS: tuple[tuple[Any, ...], ...] = (
    ("Call Noa about a trial", 1, "user_demo_coach", "noa.shalev@example.com", False),
    ("Follow up the corporate proposal", -2, "user_demo_owner", "orly@startup.example.com", False),
    ("Order chalk and tape", None, "user_demo_admin", None, False),
    ("Confirm Dafna's trial", 0, "user_demo_coach", "dafna.lavi@example.com", True),
)


async def _user_ids(scope: OrgScope) -> dict[str, UUID]:
    cur = await scope.conn.execute(
        "SELECT u.clerk_user_id, u.id FROM users u JOIN org_memberships m ON m.user_id = u.id"
        " WHERE m.organization_id = %s",
        (scope.org_id,),
    )
    return {r["clerk_user_id"]: r["id"] for r in await cur.fetchall()}


async def _pipelines(scope: OrgScope) -> dict[tuple[str, str], UUID]:
    existing = {
        p["name"]: p for p in await lead_pipelines.list_pipelines(scope, include_archived=False)
    }
    stages: dict[tuple[str, str], UUID] = {}
    for name, stage_names in PIPELINES.items():
        pipeline = existing.get(name) or await lead_pipelines.create_pipeline(
            scope, name=name, stages=list(stage_names), make_default=name == "Trials"
        )
        for stage in pipeline["stages"]:
            stages[(name, stage["name"])] = UUID(stage["id"])
    return stages


async def _lead_ids(scope: OrgScope) -> dict[str, UUID]:
    cur = await scope.conn.execute(
        "SELECT lower(coalesce(email, phone)) AS key, id FROM leads WHERE organization_id = %s",
        (scope.org_id,),
    )
    return {r["key"]: r["id"] for r in await cur.fetchall()}


async def _leads(scope: OrgScope, stages: dict[tuple[str, str], UUID], users: dict[str, UUID],
                 actor: UUID) -> dict[str, UUID]:  # fmt: skip
    known = await _lead_ids(scope)
    for first, last, email, phone, source, pipeline, stage, owner, tags, status, note in LEADS:
        if (email or phone).lower() in known:
            continue
        made = await leads.create_lead(
            scope, actor,
            contact={"first_name": first, "last_name": last, "email": email, "phone": phone,
                     "source": source},
            pipeline_id=None, stage_id=stages[(pipeline, stage)],
            owner_user_id=users.get(owner) if owner else None, tags=tags,
        )  # fmt: skip
        lead_id = UUID(made["id"])
        if status != "open":
            await leads.set_status(scope, actor, lead_id, status, None)
        if note:
            await leads.add_note(scope, actor, lead_id, note)
    return await _lead_ids(scope)


async def _member_ids(scope: OrgScope) -> dict[str, UUID]:
    cur = await scope.conn.execute(
        "SELECT u.full_name, m.id FROM org_memberships m JOIN users u ON u.id = m.user_id"
        " WHERE m.organization_id = %s AND m.role = 'member'",
        (scope.org_id,),
    )
    return {r["full_name"]: r["id"] for r in await cur.fetchall()}


async def _threads(scope: OrgScope, lead_ids: dict[str, UUID], actor: UUID, now: datetime) -> None:
    members = await _member_ids(scope)
    for index, (subject, who, messages, status, tags) in enumerate(THREADS):
        lead_id = lead_ids.get(who.lower())
        member_id = members.get(who)
        if lead_id is None and member_id is None:
            continue  # the member is not in this gym
        cur = await scope.conn.execute(
            "SELECT 1 FROM inbox_threads WHERE organization_id = %s AND subject = %s",
            (scope.org_id, subject),
        )
        if await cur.fetchone():
            continue
        at = now - timedelta(hours=3 * (len(THREADS) - index))
        cur = await scope.conn.execute(
            "INSERT INTO inbox_threads (organization_id, lead_id, membership_id, subject, status,"
            " tags, last_message_at, closed_at, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (scope.org_id, lead_id, member_id, subject, status, tags,
             at + timedelta(minutes=len(messages)), at if status == "closed" else None, at),
        )  # fmt: skip
        thread = await cur.fetchone()
        assert thread is not None
        for n, (direction, body) in enumerate(messages):
            await scope.conn.execute(
                "INSERT INTO inbox_messages (organization_id, thread_id, direction, author_user_id,"
                " body, created_at) VALUES (%s, %s, %s, %s, %s, %s)",
                (scope.org_id, thread["id"], direction, actor if direction == "outbound" else None,
                 body, at + timedelta(minutes=n + 1)),
            )  # fmt: skip


async def _tasks(scope: OrgScope, lead_ids: dict[str, UUID], users: dict[str, UUID],
                 actor: UUID, today: date) -> None:  # fmt: skip
    existing = {t["title"] for t in await tasks.list_tasks(scope, today, status=None, limit=500)}
    for title, due_in, assignee, lead_email, done in TASKS:
        if title in existing:
            continue
        made = await tasks.create_task(
            scope, actor, today, title=title, notes=None,
            due_on=None if due_in is None else today + timedelta(days=due_in),
            assignee_user_id=users.get(assignee),
            lead_id=lead_ids.get(lead_email) if lead_email else None, membership_id=None,
        )  # fmt: skip
        if done:
            await tasks.complete_task(scope, UUID(made["id"]), today, True)


async def seed_crm(
    owner_url: str, clerk_org_id: str, clerk_owner_id: str, *, now: datetime | None = None
) -> None:
    """Seed the demo org's CRM; `clerk_owner_id` is the author of what the seed writes."""
    async with (
        await AsyncConnection.connect(owner_url, row_factory=dict_row) as conn,
        conn.transaction(),
    ):
        cur = await conn.execute(
            "SELECT id, timezone FROM organizations WHERE clerk_org_id = %s", (clerk_org_id,)
        )
        org = await cur.fetchone()
        assert org is not None
        # the definer functions (converting a lead) read the bound org, as in the app
        await conn.execute("SELECT set_config('app.org_id', %s, true)", (str(org["id"]),))
        scope = OrgScope(conn, org["id"])
        users = await _user_ids(scope)
        actor = users[clerk_owner_id]
        local_now = (now or datetime.now(UTC)).astimezone(ZoneInfo(org["timezone"]))
        stages = await _pipelines(scope)
        lead_ids = await _leads(scope, stages, users, actor)
        await _threads(scope, lead_ids, actor, local_now)
        await _tasks(scope, lead_ids, users, actor, local_now.date())
