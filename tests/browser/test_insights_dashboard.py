"""The console's dashboard page (issue 29 item 5): the insight cards of GET /agent/insights on
the seeded demo gym, and a click on the members-at-risk card that opens Spotter on it and ends
on one confirmation card per member, each with the drafted message and its recipient."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from spotter.seed.attendance import LAPSED
from tests.browser.conftest import ARTIFACTS, open_console

pytestmark = pytest.mark.xdist_group("browser")

DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "insights.png"


def _dashboard(browser: Browser, console_url: str, role: str) -> Page:
    page = open_console(browser, console_url, role=role)
    page.get_by_test_id("nav-dashboard").click()
    expect(page.get_by_test_id("insights")).to_be_visible()
    return page


def test_the_owner_opens_spotter_on_the_at_risk_card_and_reaches_the_drafted_messages(
    browser: Browser, console_url: str
) -> None:
    page = _dashboard(browser, console_url, "owner")
    cards = page.get_by_test_id("insight-card")
    expect(cards).to_have_count(8)
    at_risk = page.locator("[data-testid=insight-card][data-kind=members_at_risk]")
    expect(at_risk.locator(".insight-count")).to_have_text(str(len(LAPSED)))
    for name in LAPSED:
        expect(at_risk).to_contain_text(name)
    at_risk.click()
    expect(page.get_by_test_id("sheet")).not_to_have_class("sheet closed")
    expect(page.get_by_test_id("page-context")).to_contain_text('"insight":"members_at_risk"')
    drafts = page.get_by_test_id("confirmation-card")
    expect(drafts).to_have_count(len(LAPSED))
    outbound = page.get_by_test_id("confirm-outbound")
    for name in LAPSED:
        expect(outbound.filter(has_text=name)).to_have_count(1)
    expect(outbound.first).to_contain_text("days since your last class")
    reply = page.get_by_test_id("assistant-message").last
    for name in LAPSED:
        expect(reply).to_contain_text(name)
    expect(page.get_by_test_id("batch-bar")).to_be_visible()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "insights_at_risk.png"))
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_a_coach_sees_the_class_and_attendance_cards_only(
    browser: Browser, console_url: str
) -> None:
    page = _dashboard(browser, console_url, "coach")
    kinds = page.get_by_test_id("insight-card").evaluate_all("els => els.map(e => e.dataset.kind)")
    assert sorted(kinds) == sorted(
        ["members_at_risk", "new_members_no_second_week", "low_fill_slots", "waitlisted_slots"]
    )
    page.context.close()


def test_a_member_is_told_insights_are_for_staff(browser: Browser, console_url: str) -> None:
    page = open_console(browser, console_url, role="member")
    page.get_by_test_id("nav-dashboard").click()
    expect(page.get_by_test_id("insights-refused")).to_be_visible()
    page.context.close()
