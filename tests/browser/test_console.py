"""Every flow of the dev console, driven in headless Chromium against `spotter dev`'s app.

The demo model answers (providers/demo.py), so each suggested prompt walks a real flow: SSE
streaming, tool cards, confirmations, pickers, undo, the stored state after a reload, the budget
gate, Hebrew right-to-left, and a stream that outlives a page switch. Tests that change the demo
gym start from a fresh seed (`fresh_demo`: the console's own reset).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import psycopg
import pytest
from playwright.sync_api import Browser, Page, expect

from spotter.i18n.dates import format_local_date
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


def test_the_offline_demo_model_costs_the_gym_nothing(
    fresh_demo: None, console: Page, console_db: str, demo_org: str
) -> None:
    ask(console, "What can you do?")
    expect(console.get_by_test_id("usage-spent")).to_contain_text("$0.00 of $5.00")
    with psycopg.connect(console_db) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(cost_usd_micros), 0), coalesce(sum(input_tokens), 0)"
            " FROM ai_usage_daily WHERE organization_id = %s",
            (demo_org,),
        ).fetchone()
    assert row is not None and row[0] == 0 and row[1] > 0  # tokens recorded, nothing billed


def test_a_destructive_call_shows_its_card_and_runs_once_approved(
    fresh_demo: None, console: Page
) -> None:
    run_prompt(console, "cancel")
    card = console.get_by_test_id("confirmation-card")
    expect(card).to_have_count(1)
    expect(card).to_contain_text("Cancel classes")
    expect(card.get_by_test_id("confirm-target")).to_contain_text("CrossFit")
    expect(card.get_by_test_id("confirm-affected")).to_contain_text("Affects")
    expect(card.get_by_test_id("confirm-consequences")).to_contain_text("The class is cancelled")
    card.get_by_test_id("confirm-arguments").locator("summary").click()
    expect(card.get_by_test_id("confirm-arguments")).to_contain_text("Classes")
    expect(card.get_by_test_id("confirm-arguments")).to_contain_text("Reason")
    card.get_by_test_id("approve").click()
    console.wait_for_function(IDLE)
    expect(card).to_have_attribute("data-status", "succeeded")
    expect(card.get_by_test_id("tool-summary")).to_have_text("1 class · 15 bookings released")
    assert last_reply(console).startswith("Cancelled.")
    # the same words again: the class is not swapped for another one
    ask(console, "Cancel tomorrow's 18:00 CrossFit class")
    assert last_reply(console).endswith("is already cancelled, so nothing was changed.")
    expect(console.get_by_test_id("confirmation-card")).to_have_count(1)


@pytest.mark.parametrize("locale", ["en", "he"])
def test_a_rejection_carries_the_persons_reason_and_is_said_in_their_language(
    fresh_demo: None,
    browser: Browser,
    console_url: str,
    console_db: str,
    locale: str,
    request: pytest.FixtureRequest,
) -> None:
    page = open_console(browser, console_url, locale=locale)
    try:
        page.get_by_test_id("launcher").click()
        run_prompt(page, "cancel")
        card = page.get_by_test_id("confirmation-card")
        card.get_by_test_id("reject").click()
        reason = "still has bookings" if locale == "en" else "יש עדיין רשומים"
        card.get_by_test_id("reject-reason").fill(reason)
        card.get_by_test_id("reject-confirm").click()
        page.wait_for_function(IDLE)
        expect(card).to_have_attribute("data-status", "rejected")
        said = "You declined it" if locale == "en" else "דחית את הפעולה"
        expect(card.get_by_test_id("tool-summary")).to_have_text(f"{said}: {reason}")
        kept = "OK, I left the class as it is." if locale == "en" else "בסדר, השיעור נשאר כמו שהוא."
        assert last_reply(page) == kept
        with psycopg.connect(console_db) as conn:
            row = conn.execute(
                "SELECT error FROM ai_tool_executions WHERE tool_use_id = %s",
                (card.get_attribute("data-tool-use-id"),),
            ).fetchone()
        assert row is not None and row[0]["reason"] == reason
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        page.context.close()


@pytest.mark.parametrize("locale", ["en", "he"])
def test_approving_edited_arguments_runs_the_edit_and_a_new_target_is_asked_again(
    fresh_demo: None, console: Page, console_db: str, demo_org: str
) -> None:
    run_prompt(console, "cancel")
    card = console.get_by_test_id("confirmation-card")
    evening = card.get_by_test_id("confirm-target").inner_text()
    with psycopg.connect(console_db) as conn:
        row = conn.execute(
            "SELECT s.id FROM class_sessions s JOIN class_types t ON t.id = s.class_type_id"
            " WHERE s.organization_id = %s AND t.name = 'CrossFit'"
            " AND (s.starts_at AT TIME ZONE 'Asia/Jerusalem')::date ="
            "     (now() AT TIME ZONE 'Asia/Jerusalem')::date + 1"
            " AND to_char(s.starts_at AT TIME ZONE 'Asia/Jerusalem', 'HH24:MI') = '07:00'",
            (demo_org,),
        ).fetchone()
    assert row is not None
    morning = str(row[0])
    # another class: the card is asked again, naming it, instead of running
    card.get_by_test_id("edit").click()
    card.get_by_test_id("edit-sessionIds").fill(morning)
    card.get_by_test_id("approve-edited").click()
    console.wait_for_function(IDLE)
    card = console.get_by_test_id("confirmation-card")
    expect(card.get_by_test_id("reasked")).to_be_visible()
    expect(card.get_by_test_id("confirm-target")).to_contain_text("07:00")
    assert card.get_by_test_id("confirm-target").inner_text() != evening
    # the same target with a new reason runs at once, with the edited arguments
    card.get_by_test_id("edit").click()
    card.get_by_test_id("edit-reason").fill("Coach is sick")
    card.get_by_test_id("approve-edited").click()
    console.wait_for_function(IDLE)
    expect(card).to_have_attribute("data-status", "succeeded")
    with psycopg.connect(console_db) as conn:
        status = conn.execute(
            "SELECT status FROM class_sessions WHERE id = %s", (morning,)
        ).fetchone()
        edited = conn.execute(
            "SELECT input, edited_by_user FROM ai_tool_executions WHERE tool_use_id = %s",
            (card.get_attribute("data-tool-use-id"),),
        ).fetchone()
    assert status == ("cancelled",)
    assert edited is not None and edited[1] is True
    assert edited[0]["args"] == {"sessionIds": [morning], "reason": "Coach is sick"}


def test_two_waiting_confirmations_are_approved_together(fresh_demo: None, console: Page) -> None:
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
    assert last_reply(console) == "Bookings made: 2 of 2."
    # asked again, the demo says who is in the class already and books nobody twice
    run_prompt(console, "batch")
    assert last_reply(console).startswith("Already booked into CrossFit at 07:00")
    expect(console.get_by_test_id("confirmation-card")).to_have_count(2)


def test_a_pick_between_two_saars_leads_to_an_always_confirm_booking(
    fresh_demo: None, console: Page
) -> None:
    run_prompt(console, "saar")
    picker = console.get_by_test_id("picker-card")
    expect(picker).to_contain_text("Which Saar?")
    candidates = picker.get_by_test_id("pick-candidate")
    expect(candidates).to_have_count(2)
    picker.get_by_role("button", name="Saar Cohen").click()
    console.wait_for_function(IDLE)
    expect(picker).to_have_attribute("data-status", "succeeded")
    booking = console.get_by_test_id("confirmation-card")
    expect(booking).to_contain_text("Book a member")
    expect(booking).to_contain_text("needs approval")
    booking.get_by_test_id("approve").click()
    console.wait_for_function(IDLE)
    expect(booking).to_have_attribute("data-status", "succeeded")
    assert last_reply(console) == "Bookings made: 1 of 1."


def test_a_reads_batch_folds_into_one_line(console: Page) -> None:
    run_prompt(console, "overview")
    # the page's seeded read, then the model's three reads: one line per batch
    batches = console.get_by_test_id("read-batch")
    expect(batches).to_have_count(2)
    expect(batches.first.get_by_test_id("read-batch-line")).to_contain_text("1 look-up:")
    batch = batches.last
    line = batch.get_by_test_id("read-batch-line")
    expect(line).to_contain_text("3 look-ups")
    expect(line).to_contain_text("Schedule (")
    expect(line).to_contain_text("Coaches (")
    expect(batch.get_by_test_id("tool-card").first).to_be_hidden()
    line.click()
    expect(batch.get_by_test_id("tool-card")).to_have_count(3)
    expect(batch.get_by_test_id("tool-card").first).to_be_visible()


@pytest.mark.parametrize("locale", ["en", "he"])
def test_a_reload_reopens_the_conversation_and_its_cards_still_offer_undo(
    browser: Browser, console_url: str, locale: str, request: pytest.FixtureRequest
) -> None:
    page = open_console(browser, console_url, locale=locale)
    try:
        page.get_by_test_id("launcher").click()
        run_prompt(page, "schedule")
        live = page.locator('[data-testid=tool-card][data-tool="class_sessions.create"]')
        expect(live.get_by_test_id("undo")).to_be_visible()
        summary = live.get_by_test_id("tool-summary").inner_text()
        tool_use_id = live.get_attribute("data-tool-use-id")
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        page.get_by_test_id("launcher").click()
        card = page.locator(f'[data-tool-use-id="{tool_use_id}"]')
        expect(card).to_have_attribute("data-status", "succeeded")
        # the same words in the same order as the live card, and its Undo
        expect(card.get_by_test_id("tool-summary")).to_have_text(summary)
        card.get_by_test_id("undo").click()
        page.wait_for_function(IDLE)
        expect(card).to_have_attribute("data-status", "undone")
        expect(card.get_by_test_id("undo")).to_have_count(0)
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        page.context.close()


@pytest.mark.parametrize("locale", ["en", "he"])
def test_a_reload_follows_a_run_still_going_to_its_end(
    console: Page, locale: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from spotter.providers import demo

    monkeypatch.setattr(demo, "TEXT_DELAY_S", 0.15)  # a slow model: the run outlives the reload
    responses: list[dict[str, object]] = []

    def record(response: object) -> None:
        url = getattr(response, "url", "")
        if "/agent/conversations/" in url and url.rsplit("/", 1)[-1].count("-") == 4:
            responses.append(response.json())  # type: ignore[attr-defined]

    question = "What can you do?" if locale == "en" else "מה אתה יכול לעשות?"
    console.get_by_test_id("composer-input").fill(question)
    console.get_by_test_id("send").click()
    expect(console.get_by_test_id("assistant-message")).to_have_count(1)
    console.on("response", record)
    console.reload()
    console.wait_for_selector("body[data-ready=true]")
    console.get_by_test_id("launcher").click()
    console.wait_for_function(IDLE)
    assert responses and responses[0]["liveRun"] is not None, "the reload found the run going"
    replies = console.get_by_test_id("assistant-message")
    expect(replies).to_have_count(1)
    assert last_reply(console) == demo._STRINGS[locale]["capabilities"]


def test_a_reload_shows_rejected_interrupted_waiting_and_superseded_calls(
    fresh_demo: None, console: Page, console_db: str
) -> None:
    run_prompt(console, "cancel")
    console.get_by_test_id("reject").click()
    console.get_by_test_id("reject-confirm").click()
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
    expect(console.locator('[data-status="superseded"]')).to_have_count(1)
    expect(console.get_by_test_id("user-message")).to_have_count(3)


# A camelCase key (`sessionIds`) or a snake_case one (`bookings_cancelled`) shown to a person
# (an email address's local part, `saar_cohen@…`, is data, not a key).
RAW_KEYS = r"/(?<![\w.@])([a-z]+[A-Z][A-Za-z]*|[a-z]+_[a-z_]+)(?![\w@])/"


@pytest.mark.parametrize("locale", ["en", "he", "ru"])
def test_no_card_shows_a_raw_key_in_any_language(
    fresh_demo: None,
    browser: Browser,
    console_url: str,
    locale: str,
    request: pytest.FixtureRequest,
) -> None:
    page = open_console(browser, console_url, locale=locale)
    try:
        page.get_by_test_id("launcher").click()
        for prompt in ("overview", "schedule", "saar", "cancel"):
            run_prompt(page, prompt)
        page.get_by_test_id("read-batch-line").first.click()
        for details in page.locator("[data-testid=confirm-arguments] summary").all():
            details.click()
        page.get_by_test_id("confirmation-card").last.get_by_test_id("edit").click()
        # the check catches what the console used to show
        caught = page.evaluate(
            f"texts => texts.filter(t => {RAW_KEYS}.test(t))",
            ["sessionIds: 1 · bookingsCancelled: 15", "rejected_by_user: The user declined", "ok"],
        )
        assert len(caught) == 2
        cards = page.locator(".card, [data-testid=read-batch-line]")
        assert cards.count() >= 8
        texts = cards.evaluate_all("nodes => nodes.map(n => n.innerText)")
        raw = page.evaluate(
            f"texts => texts.filter(t => {RAW_KEYS}.test(t))",
            texts,
        )
        assert raw == []
        summaries = page.locator("[data-testid=tool-summary]").all_inner_texts()
        if locale != "en":  # the summaries are in the reader's language
            latin_only = [s for s in summaries if s and s.isascii()]
            assert len(latin_only) < len([s for s in summaries if s]) / 2, summaries
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
        page.context.close()


@pytest.mark.parametrize("locale", ["en", "he"])
def test_the_schedule_page_shows_the_week_and_updates_after_create_and_cancel(
    fresh_demo: None,
    browser: Browser,
    console_url: str,
    locale: str,
    request: pytest.FixtureRequest,
) -> None:
    page = open_console(browser, console_url, locale=locale)
    try:
        sessions = page.get_by_test_id("session")
        expect(sessions.first).to_be_visible()
        assert sessions.count() >= 20  # the week: history before today, the seed from today
        before = sessions.count()
        expect(page.locator('[data-testid=session][data-status="draft"]')).to_have_count(0)
        page.get_by_test_id("launcher").click()
        run_prompt(page, "schedule")
        # the page reads the API again after the write: the new draft is on it
        expect(page.locator('[data-testid=session][data-status="draft"]')).to_have_count(1)
        expect(sessions).to_have_count(before + 1)
        run_prompt(page, "cancel")
        page.get_by_test_id("confirmation-card").get_by_test_id("approve").click()
        page.wait_for_function(IDLE)
        cancelled = page.locator('[data-testid=session][data-status="cancelled"]')
        expect(cancelled).to_have_count(1)
        expect(cancelled).to_contain_text("18:00")
        expect(cancelled).to_contain_text("CrossFit")
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        page.context.close()


@pytest.mark.parametrize("locale", ["en", "he"])
def test_an_open_gym_typed_for_an_hour_is_made_at_that_hour_and_never_moved(
    fresh_demo: None, console: Page, locale: str
) -> None:
    typed = {
        "en": "Schedule open gym tomorrow 13:00-14:00",
        "he": "תזמן אופן ג'ים מחר 13:00-14:00",
    }[locale]
    ask(console, typed)
    created = console.locator('[data-testid=tool-card][data-tool="class_sessions.create"]')
    expect(created).to_have_count(1)
    expect(created.get_by_test_id("tool-summary")).to_contain_text("13:00")
    assert "13:00" in last_reply(console)
    draft = console.locator('[data-testid=session][data-status="draft"]')
    expect(draft).to_contain_text("13:00")
    # the same words again: the hour holds an Open Gym now; nothing is made at another hour
    ask(console, typed)
    expect(created).to_have_count(1)
    from spotter.providers import demo

    tomorrow = datetime.now(ZoneInfo("Asia/Jerusalem")).date() + timedelta(days=1)
    day = format_local_date(tomorrow, "he" if locale == "he" else "en")
    assert last_reply(console) == demo._STRINGS[locale]["open_gym_taken"].format(
        start="13:00", day=day
    )


@pytest.mark.parametrize("locale", ["en", "he"])
def test_reset_demo_puts_the_gym_back(fresh_demo: None, console: Page) -> None:
    run_prompt(console, "cancel")
    console.get_by_test_id("approve").click()
    console.wait_for_function(IDLE)
    cancelled = console.locator('[data-testid=session][data-status="cancelled"]')
    expect(cancelled).to_have_count(1)
    console.once("dialog", lambda dialog: dialog.accept())
    console.get_by_test_id("reset-demo").click()
    expect(console.get_by_test_id("notice-reset")).to_be_visible(timeout=60_000)
    expect(cancelled).to_have_count(0)
    expect(console.get_by_test_id("conversation")).to_have_count(0)
    # and the class can be cancelled again: the demo is as fresh as its seed
    run_prompt(console, "cancel")
    expect(console.get_by_test_id("confirmation-card")).to_have_count(1)


@pytest.mark.parametrize("locale", ["en", "he"])
def test_suggested_prompts_are_what_the_role_can_do(
    browser: Browser, console_url: str, locale: str
) -> None:
    offered = {}
    for role in ("owner", "coach", "member"):
        page = open_console(browser, console_url, role=role, locale=locale)
        try:
            page.get_by_test_id("launcher").click()
            offered[role] = page.locator("[data-testid=suggested-prompt]").evaluate_all(
                "nodes => nodes.map(n => n.dataset.prompt)"
            )
            if role == "member":
                expect(page.get_by_test_id("composer")).to_be_hidden()
                expect(page.get_by_test_id("usage-footer")).to_be_hidden()
                expect(page.get_by_test_id("usage-spent")).to_have_count(0)
            if role == "coach":
                expect(page.get_by_test_id("reset-demo")).to_be_hidden()
        finally:
            page.context.close()
    assert offered["owner"] == ["schedule", "cancel", "saar", "batch", "overview"]
    assert offered["coach"] == ["saar", "batch", "overview"]
    assert offered["member"] == []


def test_a_coach_who_asks_to_cancel_is_told_who_can_and_no_card_appears(
    browser: Browser, console_url: str
) -> None:
    page = open_console(browser, console_url, role="coach")
    try:
        page.get_by_test_id("launcher").click()
        ask(page, "Cancel tomorrow's 18:00 CrossFit class")
        assert last_reply(page) == (
            "As a coach you can't cancel classes: an owner or an admin can. Nothing was changed."
        )
        expect(page.get_by_test_id("confirmation-card")).to_have_count(0)
        expect(page.locator('[data-status="failed"]')).to_have_count(0)
    finally:
        page.context.close()


def test_the_members_page_lists_the_gym_and_its_selection_rides_on_the_message(
    console: Page, console_db: str
) -> None:
    console.get_by_test_id("nav-members").click()
    rows = console.get_by_test_id("member-row")
    expect(rows.first).to_be_visible()
    assert rows.count() >= 30
    console.locator("[data-testid=member-row]", has_text="Maya Rosen").click()
    ask(console, "What can you do?")
    with psycopg.connect(console_db) as conn:
        row = conn.execute(
            "SELECT content FROM ai_messages WHERE role = 'user' ORDER BY created_at DESC LIMIT 1"
        ).fetchone()
    assert row is not None
    assert "Maya Rosen" in json.dumps(row[0], ensure_ascii=False)


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


def test_a_lead_picked_on_the_leads_board_is_read_first_by_the_next_message(
    console: Page, console_db: str
) -> None:
    console.get_by_test_id("nav-leads").click()
    lead = console.get_by_test_id("lead-card").first
    expect(lead).to_be_visible()
    name = lead.inner_text()
    lead.click()
    ask(console, "What can you do?")
    # the page's selection is the referent: Spotter read that lead before the model answered
    seeded = console.locator('[data-testid=tool-card][data-tool="leads.get"]')
    expect(seeded).to_have_attribute("data-status", "succeeded")
    with psycopg.connect(console_db) as conn:
        row = conn.execute(
            "SELECT content FROM ai_messages WHERE role = 'user' ORDER BY created_at DESC LIMIT 1"
        ).fetchone()
    assert row is not None
    assert "/dashboard/leads/" in json.dumps(row[0])
    assert name


PAGE_SHOTS = ARTIFACTS / "pages"


@pytest.mark.parametrize("locale", ["en", "he"])
def test_each_dashboard_page_shows_the_gyms_data_in_the_readers_language(
    fresh_demo: None, browser: Browser, console_url: str, locale: str
) -> None:
    """Each page of the fake dashboard, as an owner sees it (the screenshots in docs/console)."""
    page = open_console(browser, console_url, locale=locale)
    PAGE_SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        expect(page.get_by_test_id("session").first).to_be_visible()
        expect(page.get_by_test_id("week-range")).not_to_be_empty()
        page.screenshot(path=str(PAGE_SHOTS / f"schedule-{locale}.png"))
        page.get_by_test_id("nav-members").click()
        expect(page.get_by_test_id("member-row").first).to_be_visible()
        members = "members" if locale == "en" else "מתאמנים"
        expect(page.get_by_test_id("member-count")).to_contain_text(members)
        page.screenshot(path=str(PAGE_SHOTS / f"members-{locale}.png"))
        page.get_by_test_id("nav-leads").click()
        expect(page.get_by_test_id("lead-card").first).to_be_visible()
        page.screenshot(path=str(PAGE_SHOTS / f"leads-{locale}.png"))
        page.get_by_test_id("nav-workout").click()
        expect(page.get_by_test_id("page")).to_contain_text("Murph")
        page.screenshot(path=str(PAGE_SHOTS / f"workout-{locale}.png"))
        # the assistant over the schedule: a batch of reads, a write with Undo, a card to approve
        page.get_by_test_id("nav-schedule").click()
        page.get_by_test_id("launcher").click()
        for prompt in ("overview", "schedule", "cancel"):
            run_prompt(page, prompt)
        page.get_by_test_id("confirmation-card").get_by_test_id("confirm-arguments").locator(
            "summary"
        ).click()
        page.screenshot(path=str(PAGE_SHOTS / f"assistant-{locale}.png"))
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        page.context.close()
