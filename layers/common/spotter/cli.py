"""`spotter <command>`: dev, migrate, seed-demo, dev-token, sweep, stop-db, tools-doc, mcp-doc,
parse-workout."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from spotter.config import Settings, get_settings

DEV_DATABASE = "spotter"


def _pgdata(settings: Settings) -> Path:
    return settings.data_dir.resolve() / "pgdata"


def owner_url(settings: Settings) -> str:
    """DATABASE_URL when set; otherwise the embedded dev server's `spotter` database."""
    if settings.database_url:
        return settings.database_url
    from spotter.db.server import ensure_database, start_server

    return ensure_database(start_server(_pgdata(settings)), DEV_DATABASE)


def app_url(settings: Settings) -> str:
    """APP_DATABASE_URL; else (outside production) the app role on the owner's server."""
    if settings.app_database_url:
        return settings.app_database_url
    from spotter.db.server import app_pool_url

    return app_pool_url(settings.model_copy(update={"database_url": owner_url(settings)}))


def _migrate(settings: Settings, url: str) -> None:
    from spotter.db.migrate import migrate
    from spotter.db.server import app_login_password

    applied = asyncio.run(migrate(url, app_password=app_login_password(settings)))
    print(f"migrations: {', '.join(applied) if applied else 'up to date'}")


def _seed(url: str, *, reset: bool = False) -> None:
    from spotter.seed.demo import reset_demo, seed_demo

    asyncio.run(reset_demo(url) if reset else seed_demo(url))
    print("demo gym: reset to a fresh seed" if reset else "demo gym: seeded")


def _dev_token(settings: Settings, user: str, org: str, ttl: int) -> str:
    from spotter.auth.devkeys import ensure_dev_key, mint_token

    key = ensure_dev_key(settings.data_dir)
    return mint_token(key, clerk_user_id=user, clerk_org_id=org, ttl_seconds=ttl)


def _model_announcement(settings: Settings) -> str:
    """Which model answers, chosen before the app starts: a real provider always wins; without
    one the offline demo model is the default (SPOTTER_FAKE_MODEL=0 turns it off)."""
    from spotter.providers.anthropic import provider_configured

    if provider_configured(settings):
        via = "Bedrock" if settings.model_provider == "bedrock" else "the Anthropic API"
        return f"Model: {via}."
    if "SPOTTER_FAKE_MODEL" not in os.environ:
        os.environ["SPOTTER_FAKE_MODEL"] = "1"
    if os.environ["SPOTTER_FAKE_MODEL"].strip().lower() in ("0", "false", "no", "off", ""):
        return "Model: none (SPOTTER_FAKE_MODEL=0): sends answer `provider_not_configured`."
    return (
        "Model: the OFFLINE DEMO MODEL (no ANTHROPIC_API_KEY, no MODEL_PROVIDER=bedrock).\n"
        "It knows the console's suggested prompts; set ANTHROPIC_API_KEY and restart for real."
    )


def cmd_dev(settings: Settings, host: str, port: int) -> None:
    import uvicorn

    from spotter.auth.devkeys import DEV_ISSUER, ensure_dev_key, public_pem
    from spotter.seed.day_grain import DAY_GRAIN_CLERK_ORG_ID, DAY_GRAIN_STAFF
    from spotter.seed.demo import DEMO_CLERK_ORG_ID, DEMO_STAFF

    base = f"http://{host}:{port}"
    url = owner_url(settings)
    _migrate(settings, url)
    _seed(url)
    os.environ["DATABASE_URL"] = url
    if not settings.clerk_jwt_key and not settings.clerk_jwks_url:
        # The dev server trusts the local dev key exactly as production trusts Clerk's.
        os.environ["CLERK_JWT_KEY"] = public_pem(ensure_dev_key(settings.data_dir))
        os.environ["CLERK_ISSUER"] = DEV_ISSUER
        # MCP clients sign in with OAuth at the dev server's own stand-in for Clerk
        # (spotter.devconsole.oauth), whose access tokens the same key signs.
        os.environ["CLERK_OAUTH_ISSUER"] = base
    # The MCP server's resource identifier (its OAuth metadata and 401 hint name it).
    os.environ.setdefault("MCP_RESOURCE_URL", f"{base}/mcp")
    print(f"\nSpotter dev server on {base}   (health: {base}/healthz, MCP: {base}/mcp)")
    print(f"Dev console: {base}/   (pick a demo user; no login)")
    print(f"MCP clients: connect to {base}/mcp and sign in (OAuth; pick a demo user), or send")
    print("  one of these tokens as `Authorization: Bearer ...` (run from this folder):")
    for person in DEMO_STAFF:
        print(f"  .venv/bin/spotter dev-token --user {person.clerk_user_id}   # {person.role}")
    print("Day-grain demo gym (workouts.parse reads a coach's pasted day):")
    for person in DAY_GRAIN_STAFF:
        print(
            f"  .venv/bin/spotter dev-token --user {person.clerk_user_id}"
            f" --org {DAY_GRAIN_CLERK_ORG_ID}   # {person.role}"
        )
    print("Then, for example:")
    print(
        f'  curl -H "Authorization: Bearer $(.venv/bin/spotter dev-token --user '
        f'{DEMO_STAFF[0].clerk_user_id} --org {DEMO_CLERK_ORG_ID})" {base}/agent/usage\n'
    )
    print(_model_announcement(settings) + "\n")
    get_settings.cache_clear()
    # the dev app: the API plus the console and its token endpoint (never mounted in Lambda)
    uvicorn.run("spotter.devconsole.app:create_dev_app", factory=True, host=host, port=port)


async def _sweep(settings: Settings) -> str:
    from datetime import UTC, datetime

    from spotter.agent.approvals import sweep
    from spotter.db import Database
    from spotter.domain.automation_runs import run_due
    from spotter.domain.outbox import sweep_outbox
    from spotter.providers.email import email_sender_for

    db = await Database.open(app_url(settings), max_size=2)
    try:
        report = await sweep(db)
        automations = await run_due(db, datetime.now(UTC))
        delivered = await sweep_outbox(db, email_sender_for(settings))
    finally:
        await db.close()
    return (
        f"sweep: {report.messages_closed} message(s) closed in {report.orgs} org(s),"
        f" {report.mcp_expired} MCP call(s) expired,"
        f" {report.holds_charged} hold(s) of dead runs charged,"
        f" {automations.queued} automation email(s) queued, {delivered} email(s) delivered"
    )


async def _embed_backfill(settings: Settings) -> str:
    """Embed every stale search document of every org, batch by batch (idempotent)."""
    from spotter.agent.rag.refresh import backfill
    from spotter.db import Database
    from spotter.help.corpus import load_corpus
    from spotter.help.search import ensure_embeddings
    from spotter.providers.embeddings import embedder_for

    embedder = embedder_for(settings)
    if embedder is None:
        return "embed-backfill: VOYAGE_API_KEY is not set; nothing to do"
    db = await Database.open(app_url(settings), max_size=2)
    try:
        async with db.system_tx() as conn:  # the orgs with documents; the work runs per org
            cur = await conn.execute("SELECT spotter_orgs_with_search_documents() AS id")
            orgs = [row["id"] for row in await cur.fetchall()]
        embedded = await backfill(db, orgs, embedder)
        async with db.system_tx() as conn:  # the help corpus is product text, in no org
            help_embedded = await ensure_embeddings(conn, embedder, load_corpus())
    finally:
        await db.close()
    return (
        f"embed-backfill: {embedded} document(s) embedded in {len(orgs)} org(s),"
        f" {help_embedded} help article(s)"
    )


def cmd_parse_workout(text: str, *, as_json: bool = False) -> int:
    """What the parser reads from a coach's text, compact (or as JSON); exit 1 when it reads
    no workout.

    Offline and deterministic (no database, no model): the same reading workouts.parse starts
    from, before movements are matched to a library. `unread` lists what it could not read.
    """
    import json

    from spotter.domain.workout_parser import parse_workout
    from spotter.domain.workout_parser.render import render

    parsed = parse_workout(text)
    print(json.dumps(parsed, ensure_ascii=False, indent=2) if as_json else render(parsed))
    if not parsed["parts"]:
        print("parse-workout: no workout could be read from this text", file=sys.stderr)
        return 1
    return 0


def _quiet_on_a_closed_pipe(run: Callable[[], int]) -> int:
    """Run a command that prints; when the reader of its output has gone (`spotter
    parse-workout | head`), stop quietly: what it read was all it wanted, so no traceback and
    the command's own exit status. Standard output is pointed at /dev/null so the interpreter's
    flush at exit does not fail again (the recipe of the `signal` module's docs)."""
    try:
        code = run()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code


def cmd_agent_switch(settings: Settings, state: str, clerk_org_id: str | None, reason: str) -> str:
    """Turn the assistant off or on again, for one organization or (no --org) for every one:
    a row in `agent_kill_switches`, written by `spotter_switch_agent` for the schema's owner
    (the app may only read it; the owner sees no org's rows to name one by). Takes
    effect on the next send, confirmation, pick or undo; a run already going finishes."""
    import psycopg

    with psycopg.connect(owner_url(settings)) as conn:
        row = conn.execute(
            "SELECT spotter_switch_agent(%s, %s, %s)", (clerk_org_id, state == "off", reason)
        ).fetchone()
    if row is None or not row[0]:
        raise SystemExit(f"agent-switch: no organization {clerk_org_id}")
    where = clerk_org_id or "every organization"
    return f"agent-switch: Spotter is {'off' if state == 'off' else 'on'} for {where}"


def cmd_stop_db(settings: Settings) -> None:
    from spotter.db.server import stop_server

    print("stopped" if stop_server(_pgdata(settings)) else "not running")


def main(argv: Sequence[str] | None = None) -> None:
    from spotter.seed.demo import DEMO_CLERK_ORG_ID

    parser = argparse.ArgumentParser(prog="spotter")
    sub = parser.add_subparsers(dest="command", required=True)
    dev = sub.add_parser("dev", help="migrate, seed the demo gym and serve the API on 127.0.0.1")
    dev.add_argument("--host", default="127.0.0.1")
    dev.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    sub.add_parser("migrate", help="apply pending migrations")
    seed = sub.add_parser("seed-demo", help="create the demo gym (idempotent)")
    seed.add_argument(
        "--reset", action="store_true", help="drop both demo gyms and seed them again (as of today)"
    )
    token = sub.add_parser("dev-token", help="mint a session token signed by the local dev key")
    token.add_argument("--user", required=True, help="Clerk user id, e.g. user_demo_owner")
    token.add_argument("--org", default=DEMO_CLERK_ORG_ID, help="Clerk org id")
    token.add_argument("--ttl", type=int, default=12 * 3600, help="seconds until it expires")
    sub.add_parser("stop-db", help="stop the embedded dev Postgres")
    sub.add_parser(
        "sweep",
        help="close abandoned claims and lapsed MCP questions, charge dead runs' holds"
        " (idempotent)",
    )
    sub.add_parser("embed-backfill", help="embed stale search documents of every org (Voyage)")
    parse = sub.add_parser(
        "parse-workout", help="read a coach's workout text from stdin; print what was read"
    )
    parse.add_argument("--json", action="store_true", help="the full reading, as JSON")
    switch = sub.add_parser(
        "agent-switch", help="turn the assistant off (or on again) for one org or for every org"
    )
    switch.add_argument("state", choices=["off", "on"])
    switch.add_argument("--org", help="Clerk org id; without it, the switch for every org")
    switch.add_argument("--reason", default="", help="why (kept with the switch)")
    doc = sub.add_parser("tools-doc", help="regenerate docs/tools.md")
    doc.add_argument("--out", type=Path, default=Path("docs/tools.md"))
    mcp_doc = sub.add_parser("mcp-doc", help="regenerate the toolsets table of docs/mcp.md")
    mcp_doc.add_argument("--out", type=Path, default=Path("docs/mcp.md"))
    args = parser.parse_args(argv)

    settings = get_settings()
    match args.command:
        case "dev":
            cmd_dev(settings, args.host, args.port)
        case "migrate":
            _migrate(settings, owner_url(settings))
        case "seed-demo":
            _seed(owner_url(settings), reset=args.reset)
        case "dev-token":
            print(_dev_token(settings, args.user, args.org, args.ttl))
        case "stop-db":
            cmd_stop_db(settings)
        case "sweep":
            print(asyncio.run(_sweep(settings)))
        case "embed-backfill":
            print(asyncio.run(_embed_backfill(settings)))
        case "parse-workout":
            code = _quiet_on_a_closed_pipe(
                lambda: cmd_parse_workout(sys.stdin.read(), as_json=args.json)
            )
            if code:
                raise SystemExit(code)
        case "agent-switch":
            print(cmd_agent_switch(settings, args.state, args.org, args.reason))
        case "tools-doc":
            from spotter.agent.run.quick_lane import router_system
            from spotter.tools.report import render_tools_doc

            args.out.write_text(render_tools_doc(router_system))
            print(f"wrote {args.out}")
        case "mcp-doc":
            from spotter.mcp.report import with_table

            args.out.write_text(with_table(args.out.read_text()))
            print(f"wrote {args.out}")
        case _:  # pragma: no cover - argparse rejects unknown commands
            parser.error(f"unknown command {args.command}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
