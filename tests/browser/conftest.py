"""The dev console in a real browser: one dev server per session, one headless Chromium for the
browser module (the tests are one xdist group, so one worker runs them all, in a row).

The server is `create_dev_app` (what `spotter dev` serves) on its own database, migrated and
seeded with the demo gym, answering with the offline demo model through the real `anthropic`
SDK. Chromium is Debian's (`/usr/bin/chromium`, or $CHROMIUM): Playwright's own browser
download is not used. Each test gets a fresh browser context (no shared storage) and leaves a
screenshot of its end state under test-artifacts/console/.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from spotter.db.bouncer import PgBouncer
from spotter.devconsole.app import create_dev_app
from spotter.seed.demo import DEMO_CLERK_ORG_ID
from tests.support.dev_server import demo_database, dev_settings, serving

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console"
TIMEOUT_MS = 15_000


@pytest.fixture(scope="session")
def console_db(pg_server_url: str) -> str:
    """The demo gym in a database of its own: other tests truncate theirs between tests."""
    return demo_database(pg_server_url, "spotter_console")


@pytest.fixture(scope="session")
def console_url(
    console_db: str, proxy: PgBouncer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    # the ambient-context test needs the search's answer, not the latency guard, on a machine
    # that also runs the rest of the suite
    settings = dev_settings(
        console_db, tmp_path_factory.mktemp("console-data"), proxy, ambient_rag_budget_seconds=5.0
    )
    with serving(create_dev_app(settings)) as url:
        yield url


@pytest.fixture(scope="module")
def playwright(console_url: str) -> Iterator[Playwright]:
    # Playwright's sync API keeps an event loop running in this thread while it lives: start it
    # after the server (whose database fixtures use asyncio.run) and stop it with this module,
    # before the worker's other tests set up theirs
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"the browser tests need Chromium at {CHROMIUM}: apt-get install -y chromium",
            pytrace=False,
        )
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def open_console(
    browser: Browser, console_url: str, *, role: str = "owner", locale: str = "en"
) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(
        f"localStorage.setItem('spotter.role', '{role}');"
        f"localStorage.setItem('spotter.locale', '{locale}');"
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(console_url + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.errors = errors  # type: ignore[attr-defined]
    return page


@pytest.fixture
def locale() -> str:
    """The reader's language: English unless a test parametrizes `locale`."""
    return "en"


@pytest.fixture
def console(
    browser: Browser, console_url: str, locale: str, request: pytest.FixtureRequest
) -> Iterator[Page]:
    """The console as the demo owner in `locale`, the sheet open; its end state is
    screenshotted."""
    page = open_console(browser, console_url, locale=locale)
    page.get_by_test_id("launcher").click()
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.fixture
def demo_org(console_db: str) -> str:
    with psycopg.connect(console_db) as conn:
        row = conn.execute(
            "SELECT id FROM organizations WHERE clerk_org_id = %s", (DEMO_CLERK_ORG_ID,)
        ).fetchone()
    assert row is not None
    return str(row[0])


@pytest.fixture
def fresh_demo(console_url: str) -> None:
    """The demo gym as a first seed leaves it today: the console's own reset (`make reset-demo`
    behind the owner's button), for a test that changes the gym or needs it unchanged."""
    with httpx.Client(base_url=console_url, timeout=60) as client:
        token = client.post("/dev/token", json={"role": "owner"}).json()["token"]
        reset = client.post("/dev/reset-demo", headers={"authorization": f"Bearer {token}"})
    assert reset.status_code == 200, reset.text
