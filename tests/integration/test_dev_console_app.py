"""The dev console is `spotter dev`'s alone: the functions' app factory never mounts it."""

from __future__ import annotations

from pathlib import Path

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from starlette.routing import Mount

from spotter.auth.devkeys import DEV_ISSUER, ensure_dev_key, public_pem
from spotter.config import Settings
from spotter.db import Database
from spotter.devconsole.app import DevConsoleRefused, create_dev_app
from spotter.http.app import create_app
from spotter.seed.demo import seed_demo


def _dev_settings(data_dir: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "environment": "dev",
        "data_dir": data_dir,
        "clerk_jwt_key": public_pem(ensure_dev_key(data_dir)),
        "clerk_issuer": DEV_ISSUER,
        "anthropic_api_key": None,
        "model_provider": "anthropic",
        "spotter_fake_model": True,
    }
    return Settings(**(values | overrides))  # type: ignore[arg-type]


def _client(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")


def _console_mounted(app: FastAPI) -> bool:
    return any(isinstance(r, Mount) for r in app.routes) or any(
        getattr(r, "path", "").startswith("/dev") for r in app.routes
    )


@pytest.mark.parametrize("streaming", [True, False])
async def test_the_functions_app_has_no_console_and_no_token_endpoint(
    db: Database, tmp_path: Path, streaming: bool
) -> None:
    app = create_app(_dev_settings(tmp_path), db=db, streaming=streaming)
    assert not _console_mounted(app)
    async with _client(app) as client:
        assert (await client.get("/")).status_code == 404
        assert (await client.post("/dev/token", json={"role": "owner"})).status_code == 404
        assert (await client.get("/dev/info")).status_code == 404


def test_the_lambda_entry_point_builds_the_plain_app(monkeypatch: pytest.MonkeyPatch) -> None:
    from spotter.aws import api
    from spotter.config import get_settings

    monkeypatch.setenv("DATABASE_URL", "postgresql://unused/none")
    monkeypatch.setenv("CLERK_JWKS_URL", "https://clerk.example/.well-known/jwks.json")
    get_settings.cache_clear()
    try:
        assert not _console_mounted(api.create_app())
    finally:
        get_settings.cache_clear()


async def test_the_dev_app_serves_the_console_page(db: Database, tmp_path: Path) -> None:
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        page = await client.get("/")
        script = await client.get("/console.js")
    assert page.status_code == 200 and 'src="console.js"' in page.text
    assert script.status_code == 200 and "textContent" in script.text


async def test_a_dev_token_signs_in_a_demo_user(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        minted = await client.post("/dev/token", json={"role": "coach"})
        assert minted.status_code == 200 and minted.json()["name"] == "Coral Coach"
        auth = {"authorization": f"Bearer {minted.json()['token']}"}
        assert (await client.get("/agent/usage", headers=auth)).status_code == 200


async def test_the_token_endpoint_refuses_an_unknown_role(db: Database, tmp_path: Path) -> None:
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        refused = await client.post("/dev/token", json={"role": "root"})
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_request"


async def test_dev_info_labels_the_offline_demo_model(db: Database, tmp_path: Path) -> None:
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        info = (await client.get("/dev/info")).json()
    assert info["model"] == {"kind": "demo", "offline": True}
    assert [u["role"] for u in info["users"]] == ["owner", "admin", "coach", "member"]
    assert "class_sessions" in info["routers"]


async def test_dev_info_labels_a_real_key_which_wins_over_the_demo_model(
    db: Database, tmp_path: Path
) -> None:
    settings = _dev_settings(tmp_path, anthropic_api_key="sk-real")
    async with _client(create_dev_app(settings, db=db)) as client:
        info = (await client.get("/dev/info")).json()
    assert info["model"] == {"kind": "anthropic", "offline": False}


def test_the_dev_app_is_refused_in_production(tmp_path: Path) -> None:
    with pytest.raises(DevConsoleRefused):
        create_dev_app(_dev_settings(tmp_path, environment="production"))


async def _signed_in(client: httpx.AsyncClient, role: str) -> dict[str, str]:
    minted = (await client.post("/dev/token", json={"role": role})).json()
    return {"authorization": f"Bearer {minted['token']}"}


async def test_abilities_are_the_roles_tools_so_the_console_offers_only_what_it_can_do(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    async with _client(create_dev_app(_dev_settings(tmp_path), db=db)) as client:
        said = {
            role: (
                await client.get("/dev/abilities", headers=await _signed_in(client, role))
            ).json()
            for role in ("owner", "coach", "member")
        }
    assert "class_sessions.cancel" in said["owner"]["actions"]
    assert "class_sessions.cancel" not in said["coach"]["actions"]
    assert "bookings.book" in said["coach"]["actions"]
    assert said["member"] == {"role": "member", "actions": []}


async def test_the_owner_resets_the_demo_from_the_console_and_nobody_else_may(
    db: Database, clean_db: str, tmp_path: Path
) -> None:
    await seed_demo(clean_db)
    with psycopg.connect(clean_db) as conn:
        conn.execute("DELETE FROM bookings")
    settings = _dev_settings(tmp_path, database_url=clean_db)
    async with _client(create_dev_app(settings, db=db)) as client:
        coach = await client.post("/dev/reset-demo", headers=await _signed_in(client, "coach"))
        assert coach.status_code == 403
        reset = await client.post("/dev/reset-demo", headers=await _signed_in(client, "owner"))
        assert reset.status_code == 200 and reset.json() == {"reset": True}
    with psycopg.connect(clean_db) as conn:
        row = conn.execute("SELECT count(*) FROM bookings").fetchone()
    assert row is not None and row[0] > 0
