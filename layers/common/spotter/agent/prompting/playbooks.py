"""`<insight_playbook>`: how to work an insight the user opened Spotter on from the dashboard.

A send whose page context names an insight (`selection.insight`, domain.insights.kinds) gets the
playbook for that kind in its `<turn_context>`; any other send gets nothing. Each playbook says
what the insight means, which reads give its detail, which actions fit, and the rule that every
number in the answer comes from a tool result. Actions go through the normal confirmation cards.
"""

from __future__ import annotations

from typing import Any

from spotter.domain.insights import InsightKind, insight_kind_of

_RULES = (
    "Every number, name and date you state comes from a tool result in this conversation; never"
    " estimate or invent one. Read the detail first, explain it briefly, then propose the action"
    " as tool calls: the user confirms each on its card (outbound messages with their full body"
    " and recipient). Draft one message per person, addressed by first name, short and warm;"
    " never send a bulk message where a personal one fits. If the reads show nothing to act on,"
    " say so and stop."
)

PLAYBOOKS: dict[InsightKind, tuple[str, str, str]] = {
    # kind: (what it means, where the detail is, which actions fit)
    "members_at_risk": (
        "Members whose attendance dropped against their own baseline, or who have not checked in"
        " for the plan's quiet limit; members in their first 90 days weigh double (most leave"
        " then).",
        "analytics.insight with kind members_at_risk (each member, last visit, check-ins in the"
        " last 28 days vs the 28 before, risk score); analytics.member for one member's visits.",
        "a check-in message per member (messages.send, one call per member, a personal body that"
        " mentions when they last trained), or a coach task to call them (tasks.create).",
    ),
    "new_members_no_second_week": (
        "Members whose first visit was one to four weeks ago and who booked nothing in their"
        " second week: the habit has not formed yet.",
        "analytics.insight with kind new_members_no_second_week; analytics.member for one member.",
        "a welcome-back message per member inviting them to a named class this week"
        " (messages.send), or a coach task to reach out (tasks.create).",
    ),
    "leads_not_contacted": (
        "Open leads nobody has emailed or answered since they arrived, past the contact window.",
        "analytics.insight with kind leads_not_contacted; leads.get for one lead's notes.",
        "a follow-up email (leads.bulk_email for the listed leads, or one per lead), or assign an"
        " owner (leads.assign) and a task (tasks.create).",
    ),
    "trials_not_converted": (
        "Leads whose trial ended (the trial-done stage) without becoming members.",
        "analytics.insight with kind trials_not_converted; leads.get for one lead.",
        "a follow-up email with an offer (leads.bulk_email), or a task to call (tasks.create).",
    ),
    "low_fill_slots": (
        "Class slots (a class type at a local time) whose sessions over the last weeks filled"
        " below the threshold of capacity.",
        "analytics.insight with kind low_fill_slots; analytics.fill_rate and analytics.peak_times"
        " for context.",
        "a schedule change proposal: move or cancel the slot's upcoming sessions"
        " (class_sessions.reschedule, class_sessions.cancel) or lower capacity"
        " (class_sessions.update), naming the sessions affected.",
    ),
    "waitlisted_slots": (
        "Upcoming sessions with members on the waitlist.",
        "analytics.insight with kind waitlisted_slots; bookings.list for a session's waitlist.",
        "add spots (class_sessions.update raises capacity; added spots go to the waitlist) or"
        " add a session at a nearby time (class_sessions.create).",
    ),
    "paused_memberships": (
        "Members whose membership is paused: revenue waiting to come back.",
        "analytics.insight with kind paused_memberships; memberships reads for one member.",
        "a message per member asking when they plan to return (messages.send).",
    ),
    "credits_running_low": (
        "Members on class packs with few credits left.",
        "analytics.insight with kind credits_running_low; bookings.credits for one member.",
        "a message per member offering a renewal or a plan (messages.send).",
    ),
}


def insight_playbook(selection: dict[str, Any] | None) -> str:
    """The `<insight_playbook>` section for the insight the page context names, else ""."""
    kind = insight_kind_of(selection)
    if kind is None:
        return ""
    meaning, detail, actions = PLAYBOOKS[kind]
    return "\n".join(
        [
            f'<insight_playbook kind="{kind}">',
            f"What it means: {meaning}",
            f"Its detail: {detail}",
            f"Actions that fit: {actions}",
            f"Rules: {_RULES}",
            "</insight_playbook>",
        ]
    )
