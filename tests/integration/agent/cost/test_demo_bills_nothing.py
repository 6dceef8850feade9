"""The offline demo model bills $0 everywhere a cost is shown or kept (issue 25's promise; the
~$0.03 seen in a console was spend a build from before that promise recorded earlier the same
day). One demo conversation through `spotter dev`'s app makes every kind of model call — the
quick route, the title, the loop, a run resumed after a pick and after an approval, compaction
at settle, with ambient RAG on the loop's turns — and each records its tokens and no cost: the
stream's `done`, `GET /agent/usage` (the console's footer), `ai_usage_daily`, each stored
turn's and the compaction note's usage, and the side calls' log events."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from spotter.agent import telemetry
from spotter.agent.cost.pricing import OFFLINE_DEMO_MODEL
from spotter.auth.devkeys import DEV_ISSUER, ensure_dev_key, public_pem
from spotter.config import Settings
from spotter.db import Database
from spotter.devconsole.app import create_dev_app
from spotter.seed.demo import seed_demo

OVERVIEW = "Give me an overview of this week: sessions, coaches and class types"


def _events(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


class DemoConsole:
    """The console's calls: sends, and every card it is shown answered (the first candidate of a
    pick, an approval of a confirmation)."""

    def __init__(self, client: httpx.AsyncClient, auth: dict[str, str]) -> None:
        self.client, self.auth = client, auth
        self.conversation: str | None = None
        self.done: list[dict[str, Any]] = []

    async def _stream(self, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        response = await self.client.post(path, json=body, headers=self.auth, timeout=60)
        assert response.status_code == 200, response.text
        events = _events(response.text)
        self.done += [e for e in events if e["type"] == "done"]
        return events

    async def send(self, text: str) -> None:
        body: dict[str, Any] = {"text": text, "pageContext": {"pathname": "/schedule"}}
        if self.conversation:
            body["conversationId"] = self.conversation
        events = await self._stream("/agent/messages", body)
        self.conversation = self.conversation or self.done[-1]["conversationId"]
        while asking := [
            e for e in events if e["type"] in ("confirmation_pending", "disambiguation_pending")
        ]:
            card, base = asking[0], f"/agent/conversations/{self.conversation}"
            if card["type"] == "disambiguation_pending":
                pick = {"id": card["candidates"][0]["id"]}
                events = await self._stream(f"{base}/pick/{card['toolUseId']}", pick)
            else:
                events = await self._stream(
                    f"{base}/confirm/{card['toolUseId']}", {"approved": True}
                )


@pytest.fixture
def side_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    log_event = telemetry.log_event

    def record(event: str, **fields: Any) -> None:
        if event == "agent.side_call":
            seen.append(fields)
        log_event(event, **fields)

    monkeypatch.setattr(telemetry, "log_event", record)
    return seen


async def test_a_demo_conversation_making_every_kind_of_call_records_no_cost(
    db: Database, clean_db: str, tmp_path: Path, side_calls: list[dict[str, Any]]
) -> None:
    await seed_demo(clean_db)
    settings = Settings(
        environment="dev",
        data_dir=tmp_path,
        clerk_jwt_key=public_pem(ensure_dev_key(tmp_path)),
        clerk_issuer=DEV_ISSUER,
        anthropic_api_key=None,
        model_provider="anthropic",
        spotter_fake_model=True,
    )
    app = create_dev_app(settings, db=db)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        token = (await c.post("/dev/token", json={"role": "owner"})).json()["token"]
        console = DemoConsole(c, {"authorization": f"Bearer {token}"})
        await console.send("What can you do?")  # the quick route answers; the title
        await console.send("Book Saar into tomorrow's 07:00 CrossFit")  # a pick, then resumed
        await console.send("Cancel tomorrow's 18:00 CrossFit class")  # approved, then resumed
        for _ in range(3):  # past 24 messages: compaction after `done`
            await console.send(OVERVIEW)
        with psycopg.connect(clean_db) as conn:
            for _ in range(100):
                note = conn.execute(
                    "SELECT usage FROM ai_messages WHERE conversation_id = %s"
                    " AND role = 'system_note'",
                    (console.conversation,),
                ).fetchone()
                if note:
                    break
                await asyncio.sleep(0.1)
            stored = conn.execute(
                "SELECT usage FROM ai_messages WHERE conversation_id = %s AND usage IS NOT NULL",
                (console.conversation,),
            ).fetchall()
            daily = conn.execute(
                "SELECT sum(cost_usd_micros), sum(input_tokens), sum(turns) FROM ai_usage_daily"
            ).fetchone()
        footer = (await c.get("/agent/usage", headers=console.auth)).json()

    assert note is not None, "no compaction after 24 messages"
    assert note[0]["model"] == OFFLINE_DEMO_MODEL and note[0]["costUsdMicros"] == 0
    assert {s["role"] for s in side_calls} >= {
        "spotterQuickRoute",
        "spotterTitle",
        "spotterCompaction",
    }
    assert {(s["side_model"], s["cost_usd_micros"]) for s in side_calls} == {
        (OFFLINE_DEMO_MODEL, 0)
    }
    assert len(console.done) >= 8  # six sends, a resume after the pick and the approval
    assert sum(d["usage"]["inputTokens"] for d in console.done) > 0
    assert {d["usage"]["costUsdMicros"] for d in console.done} == {0}
    assert {(usage["model"], usage["costUsdMicros"]) for (usage,) in stored} == {
        (OFFLINE_DEMO_MODEL, 0)
    }
    assert daily is not None and daily[0] == 0 and daily[1] > 0 and daily[2] >= 6
    assert footer["spentUsdMicros"] == 0 and footer["percentUsed"] == 0
