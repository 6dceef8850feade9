"""Every flow of the dev console, driven in headless Chromium against `spotter dev`'s app.

The demo model answers (providers/demo.py), so each suggested prompt walks a real flow: SSE
streaming, tool cards, confirmations, pickers, undo, the stored state after a reload, the budget
gate, Hebrew right-to-left, and a stream that outlives a page switch.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import psycopg
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import ARTIFACTS, open_console

pytestmark = pytest.mark.xdist_group("browser")

IDLE = "() => !document.querySelector('[data-testid=send]').disabled"


def run_prompt(page: Page, key: str) -> None:
    """Click a suggested prompt and wait until its stream has ended."""
    page.locator(f'[data-testid=suggested-prompt][data-prompt="{key}"]').click()
    page.wait_for_function(IDLE)


def ask(page: Page, text: str) -> None:
    """Type a message and wait until its stream has ended."""
    page.get_by_test_id("composer-input").fill(text)
    page.get_by_test_id("send").click()
    page.wait_for_function(IDLE)


def last_reply(page: Page) -> str:
    return page.get_by_test_id("assistant-message").last.inner_text()


def test_a_reply_streams_into_the_sheet_as_it_arrives(console: Page) -> None:
    expect(console.get_by_test_id("model-label")).to_have_text("offline demo model")
    console.evaluate(
        """() => { window.__updates = 0;
        new MutationObserver(() => { window.__updates += 1; }).observe(
          document.querySelector('[data-testid=timeline]'),
          {subtree: true, childList: true, characterData: true}); }"""
    )
    ask(console, "What can you do?")
    assert last_reply(console).startswith("I can read and change your gym's schedule")
    # the text arrived in pieces, each shown as it came (one per SSE text_delta)
    assert console.evaluate("window.__updates") > 5
    expect(console.get_by_test_id("conversation").first).to_contain_text("What can you do?")
    expect(console.get_by_test_id("usage-spent")).to_contain_text("of $5.00")


def test_a_destructive_call_shows_its_card_and_runs_once_approved(console: Page) -> None:
    run_prompt(console, "cancel")
    card = console.get_by_test_id("confirmation-card")
    expect(card).to_have_count(1)
    expect(card.get_by_test_id("confirm-target")).to_contain_text("CrossFit")
    expect(card.get_by_test_id("confirm-affected")).to_contain_text("Affects")
    expect(card.get_by_test_id("confirm-consequences")).to_contain_text("The session is cancelled")
    card.get_by_test_id("confirm-arguments").locator("summary").click()
    expect(card.get_by_test_id("confirm-arguments")).to_contain_text("sessionIds")
    card.get_by_test_id("approve").click()
    console.wait_for_function(IDLE)
    expect(card).to_have_attribute("data-status", "succeeded")
    assert last_reply(console).startswith("Cancelled.")


def test_a_rejected_call_does_not_run(console: Page) -> None:
    run_prompt(console, "cancel")
    card = console.get_by_test_id("confirmation-card")
    card.get_by_test_id("reject").click()
    console.wait_for_function(IDLE)
    expect(card).to_have_attribute("data-status", "rejected")
    assert last_reply(console) == "OK, I left the class as it is."


def test_two_waiting_confirmations_are_approved_together(console: Page) -> None:
    run_prompt(console, "batch")
    cards = console.get_by_test_id("confirmation-card")
    expect(cards).to_have_count(2)
    expect(console.get_by_test_id("batch-bar")).to_be_visible()
    expect(console.get_by_test_id("batch-count")).to_have_text("2 actions wait for you")
    console.get_by_test_id("approve-all").click()
    console.wait_for_function(IDLE)
    for index in range(2):
        expect(cards.nth(index)).to_have_attribute("data-status", "succeeded")
    expect(console.get_by_test_id("batch-bar")).to_be_hidden()
    assert last_reply(console) == "2 of 2 booking(s) made."


def test_a_pick_between_two_saars_leads_to_an_always_confirm_booking(console: Page) -> None:
    run_prompt(console, "saar")
    picker = console.get_by_test_id("picker-card")
    expect(picker).to_contain_text("Which Saar?")
    candidates = picker.get_by_test_id("pick-candidate")
    expect(candidates).to_have_count(2)
    picker.get_by_role("button", name="Saar Cohen").click()
    console.wait_for_function(IDLE)
    expect(picker).to_have_attribute("data-status", "succeeded")
    booking = console.get_by_test_id("confirmation-card")
    expect(booking).to_contain_text("bookings.book")
    expect(booking).to_contain_text("needs approval")
    booking.get_by_test_id("approve").click()
    console.wait_for_function(IDLE)
    expect(booking).to_have_attribute("data-status", "succeeded")
    assert last_reply(console) == "1 of 1 booking(s) made."


def test_an_inline_write_is_undone_from_its_card(console: Page) -> None:
    run_prompt(console, "schedule")
    card = console.locator("[data-testid=tool-card]", has_text="class_sessions.create")
    expect(card).to_have_attribute("data-status", "succeeded")
    card.get_by_test_id("undo").click()
    console.wait_for_function(IDLE)
    expect(card).to_have_attribute("data-status", "undone")
    expect(card.get_by_test_id("undo")).to_have_count(0)


def test_a_reload_shows_rejected_interrupted_waiting_and_superseded_calls(
    console: Page, console_db: str
) -> None:
    run_prompt(console, "cancel")
    console.get_by_test_id("reject").click()
    console.wait_for_function(IDLE)
    run_prompt(console, "batch")
    waiting = console.get_by_test_id("confirmation-card")
    expect(waiting).to_have_count(3)  # the rejected cancel, then the two bookings
    first_booking = waiting.nth(1).get_attribute("data-tool-use-id")
    with psycopg.connect(console_db) as conn:
        # a claim whose stream died long ago: the loader shows it as interrupted, not running
        conn.execute(
            "UPDATE ai_tool_executions SET status = 'running',"
            " claimed_at = now() - interval '10 minutes' WHERE tool_use_id = %s",
            (first_booking,),
        )
    console.reload()
    console.wait_for_selector("body[data-ready=true]")
    console.get_by_test_id("launcher").click()
    console.get_by_test_id("conversation").first.locator("button").click()
    rows = console.locator("[data-tool-use-id]")
    expect(console.locator("[data-testid=confirmation-card]")).to_have_count(1)
    expect(console.locator('[data-status="rejected"]')).to_have_count(1)
    expect(console.locator('[data-status="interrupted"]')).to_have_count(1)
    expect(console.locator('[data-status="awaiting"]')).to_have_count(1)
    assert rows.count() >= 5  # reads, the rejected cancel, both bookings
    # typing past a waiting call supersedes it; the reload shows that too
    ask(console, "What can you do?")
    console.reload()
    console.wait_for_selector("body[data-ready=true]")
    console.get_by_test_id("launcher").click()
    console.get_by_test_id("conversation").first.locator("button").click()
    expect(console.locator('[data-status="superseded"]')).to_have_count(1)
    expect(console.get_by_test_id("user-message")).to_have_count(3)


@pytest.fixture
def spend(console_db: str, demo_org: str) -> object:
    """Sets today's spend of the demo org (booked on the member, who never sends)."""
    today = datetime.now(UTC).date()

    def set_spend(micros: int) -> None:
        with psycopg.connect(console_db) as conn:
            conn.execute(
                "INSERT INTO ai_usage_daily (organization_id, user_id, day, cost_usd_micros)"
                " SELECT %s, u.id, %s, %s FROM users u WHERE u.clerk_user_id = 'user_demo_member'"
                " ON CONFLICT (organization_id, day, user_id)"
                " DO UPDATE SET cost_usd_micros = EXCLUDED.cost_usd_micros",
                (demo_org, today, micros),
            )

    yield set_spend
    with psycopg.connect(console_db) as conn:
        conn.execute(
            "DELETE FROM ai_usage_daily WHERE organization_id = %s AND user_id ="
            " (SELECT id FROM users WHERE clerk_user_id = 'user_demo_member')",
            (demo_org,),
        )


def test_the_footer_hints_at_80_percent_and_blocks_when_the_budget_is_spent(
    console: Page, spend: object
) -> None:
    assert callable(spend)
    spend(4_200_000)  # of the growth tier's $5.00
    console.get_by_test_id("user-picker").select_option("admin")  # a new sign-in reads usage
    expect(console.get_by_test_id("upgrade-hint")).to_contain_text("ask the owner")
    console.get_by_test_id("user-picker").select_option("owner")
    expect(console.get_by_test_id("upgrade-hint")).to_contain_text("upgrade your plan")
    spend(5_000_000)
    console.get_by_test_id("composer-input").fill("What can you do?")
    console.get_by_test_id("send").click()
    expect(console.get_by_test_id("budget-blocker")).to_be_visible()
    expect(console.get_by_test_id("budget-message")).to_contain_text("daily spending limit")
    notice = console.locator('[data-testid=error-notice][data-code="agent_budget_exceeded"]')
    expect(notice.get_by_test_id("trace-id")).not_to_be_empty()
    expect(console.get_by_test_id("send")).to_be_disabled()


def test_hebrew_lays_the_console_out_right_to_left(
    browser: Browser, console_url: str, request: pytest.FixtureRequest
) -> None:
    page = open_console(browser, console_url, locale="he")
    try:
        assert page.evaluate("document.documentElement.dir") == "rtl"
        launcher = page.get_by_test_id("launcher").bounding_box()
        assert launcher is not None and launcher["x"] < 640  # the inline end is on the left
        page.get_by_test_id("launcher").click()
        sheet = page.get_by_test_id("sheet").bounding_box()
        assert sheet is not None and sheet["x"] < 10  # slid in from the left edge
        ask(page, "מה אתה יכול לעשות?")
        assert last_reply(page).startswith("אני יכול")
        expect(page.get_by_test_id("send")).to_have_text("שלח")
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        page.context.close()


def test_a_stream_survives_switching_pages_and_the_next_message_carries_the_new_page(
    console: Page, console_db: str
) -> None:
    console.locator('[data-testid=suggested-prompt][data-prompt="overview"]').click()
    console.get_by_test_id("nav-workout").click()
    # still streaming after the switch: the sheet and its stream are outside the page
    assert console.evaluate("document.querySelector('[data-testid=send]').disabled")
    expect(console.get_by_test_id("page")).to_have_attribute(
        "data-pathname", "/dashboard/workouts/murph"
    )
    console.wait_for_function(IDLE)
    assert last_reply(console).startswith("This week:")
    ask(console, "What can you do?")
    with psycopg.connect(console_db) as conn:
        row = conn.execute(
            "SELECT content FROM ai_messages WHERE role = 'user' ORDER BY created_at DESC LIMIT 1"
        ).fetchone()
    assert row is not None
    context = json.dumps(row[0])
    assert "pathname: /dashboard/workouts/murph" in context
    assert "Murph" in context


def test_server_strings_are_shown_as_text_never_as_html(console: Page) -> None:
    console.get_by_test_id("composer-input").fill('<img src=x onerror="window.__owned=1">hello')
    console.get_by_test_id("send").click()
    console.wait_for_function(IDLE)
    expect(console.get_by_test_id("user-message").last).to_have_text(
        '<img src=x onerror="window.__owned=1">hello'
    )
    # the title comes back from the server; it is listed as text too
    expect(console.get_by_test_id("conversation").first).to_contain_text("<img")
    assert console.locator("[data-testid=sheet] img").count() == 0
    assert console.evaluate("window.__owned") is None
    assert last_reply(console).startswith("This is Spotter's offline demo model")


def test_a_member_gets_no_composer(browser: Browser, console_url: str) -> None:
    page = open_console(browser, console_url, role="member")
    try:
        page.get_by_test_id("launcher").click()
        expect(page.get_by_test_id("staff-only")).to_be_visible()
        expect(page.get_by_test_id("composer")).to_be_hidden()
    finally:
        page.context.close()


def test_ctrl_k_opens_and_closes_the_sheet(browser: Browser, console_url: str) -> None:
    page = open_console(browser, console_url)
    try:
        sheet = page.get_by_test_id("sheet")
        expect(sheet).to_have_attribute("aria-hidden", "true")
        page.keyboard.press("Control+k")
        expect(sheet).to_have_attribute("aria-hidden", "false")
        expect(page.get_by_test_id("composer-input")).to_be_focused()
        page.keyboard.press("Control+k")
        expect(sheet).to_have_attribute("aria-hidden", "true")
    finally:
        page.context.close()


def test_a_long_question_shows_the_ambient_context_it_was_given(console: Page) -> None:
    console.get_by_test_id("nav-workout").click()
    run_prompt(console, "long")
    reply = last_reply(console)
    assert reply.startswith("Spotter attached these records")
    assert "member 'Saar Cohen'" in reply and "member 'Maya Rosen'" in reply
