"""The dashboard's reads (`/gym/...`): the pages the dev console fakes read the same API a
dashboard would, staff only, scoped to the caller's organization, gated like the tools."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import httpx
import psycopg

from spotter.auth.caller import resolve_caller
from spotter.auth.clerk import SessionClaims
from spotter.db import Database
from spotter.devconsole.app import create_dev_app
from spotter.seed.demo import DEMO_CLERK_ORG_ID, seed_demo
from spotter.tools.invoke import invoke_tool
from tests.integration.test_dev_console_app import _client, _dev_settings, _signed_in


async def _week(client: httpx.AsyncClient, role: str = "owner", **params: str) -> httpx.Response:
    return await client.get("/gym/schedule", params=params, headers=await _signed_in(client, role))


async def test_the_schedule_lists_the_weeks_sessions_with_status_coach_and_fill(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        week = (await _week(client, "coach")).json()
    monday = date.fromisoformat(week["weekStart"])
    assert monday.weekday() == 0 and len(week["days"]) == 7
    assert week["timezone"] == "Asia/Jerusalem"
    assert monday <= date.fromisoformat(week["today"]) <= monday + timedelta(days=6)
    sessions = week["sessions"]
    # the timetable's five slots run every day of the seed's week
    assert {s["date"] for s in sessions} <= set(week["days"])
    upcoming = [s for s in sessions if s["date"] >= week["today"]]
    assert upcoming and all(s["coaches"] and s["capacity"] for s in upcoming)
    assert any(s["booked"] == s["capacity"] and s["waitlisted"] for s in upcoming)
    assert {s["status"] for s in upcoming} == {"published"}


async def test_the_schedule_shows_what_a_tool_just_changed(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        before = (await _week(client)).json()
        target = next(s for s in before["sessions"] if s["date"] > before["today"])
        claims = SessionClaims("user_demo_owner", DEMO_CLERK_ORG_ID, None, None)
        owner = await resolve_caller(db, claims, "en")
        cancelled = await invoke_tool(
            db,
            owner,
            "class_sessions",
            {"action": "cancel", "args": {"sessionIds": [target["id"]]}},
        )
        assert cancelled.ok
        after = (await _week(client)).json()
    shown = next(s for s in after["sessions"] if s["id"] == target["id"])
    assert (target["status"], shown["status"]) == ("published", "cancelled")


async def test_another_week_is_read_from_any_of_its_days(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        this = (await _week(client)).json()
        thursday = date.fromisoformat(this["weekStart"]) + timedelta(days=10)
        following = (await _week(client, weekStart=thursday.isoformat())).json()
        bad = await _week(client, weekStart="next-week")
    assert date.fromisoformat(following["weekStart"]) == date.fromisoformat(
        this["weekStart"]
    ) + timedelta(days=7)
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"


async def test_members_and_the_leads_board_are_the_gyms_own(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        headers = await _signed_in(client, "coach")
        members = (await client.get("/gym/members", headers=headers)).json()["members"]
        board = (await client.get("/gym/leads", headers=headers)).json()
    names = {m["name"] for m in members}
    assert {"Saar Cohen", "Saar Levi", "Maya Rosen"} <= names
    assert {p["name"] for p in board["pipelines"]} == {"Trials", "Corporate"}
    stage_ids = {s["id"] for p in board["pipelines"] for s in p["stages"]}
    assert board["leads"] and all(lead["stage"]["id"] in stage_ids for lead in board["leads"])


async def test_a_member_reads_none_of_the_dashboard(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        headers = await _signed_in(client, "member")
        for path in ("/gym/schedule", "/gym/members", "/gym/leads"):
            refused = await client.get(path, headers=headers)
            assert (refused.status_code, refused.json()["code"]) == (403, "staff_only"), path


async def test_the_leads_board_of_a_tier_without_lead_management_is_refused(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    with psycopg.connect(clean_db) as conn:
        conn.execute(
            "UPDATE organizations SET platform_tier = 'starter', feature_flags = '{}'"
            " WHERE clerk_org_id = %s",
            (DEMO_CLERK_ORG_ID,),
        )
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        refused = await client.get("/gym/leads", headers=await _signed_in(client, "owner"))
    assert (refused.status_code, refused.json()["code"]) == (403, "feature_unavailable")
