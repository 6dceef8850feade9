"""The offline demo model's insight flow: a send opened from the dashboard's members-at-risk card
(its turn context holds that `<insight_playbook>`), or one that asks who is at risk.

Explain → draft → confirm, as the playbook asks: first `analytics.insight` for the detail; then,
from that result only (every name and number is the tool's), a short explanation and one
`messages.send` per member with a personal body, each confirmed on its card; then what was sent.
The demo model (`providers.demo`) hands in the turn as plain values and its own reply builders,
so this module needs nothing of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spotter.providers.fake import Reply

AT_RISK = "members_at_risk"
_PLAYBOOK = re.compile(r'<insight_playbook kind="([a-z_]+)">')
_WORDS = ("at risk", "at-risk", "בסיכון", "в зоне риска")
MAX_DRAFTS = 6


@dataclass(frozen=True)
class SeenCall:
    router: str
    action: str
    args: dict[str, Any]
    ok: bool | None
    payload: Any


ToolCall = tuple[str, str, dict[str, Any]]

_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "looking": "Let me look at who has gone quiet.",
        "none": "Nobody is at risk right now: every member with a live plan has trained recently.",
        "explain": (
            "{count} members are at risk (from analytics.insight): {list}. I drafted a short"
            " check-in for each; approve the ones you want sent."
        ),
        "member": "{name} (last visit {days} days ago)",
        "subject": "We miss you at the box",
        "body": (
            "Hi {first},\n\nIt's been {days} days since your last class and we miss you. Want me"
            " to save you a spot this week? Just reply with a day that works.\n\nSee you soon!"
        ),
        "no_messages": (
            "{count} members are at risk (from analytics.insight): {list}. Your role cannot email"
            " members; an owner or admin can send them a check-in."
        ),
        "sent": "Done: {sent} of {drafted} check-in messages sent.",
        "failed": "The insight could not be read: {error}",
    },
    "he": {
        "looking": "בודק מי נעלם לאחרונה.",
        "none": "אין כרגע מתאמנים בסיכון: כל מי שיש לו מנוי פעיל התאמן לאחרונה.",
        "explain": (
            "{count} מתאמנים בסיכון (לפי analytics.insight): {list}. ניסחתי לכל אחד הודעה קצרה;"
            " אשרו את אלה שתרצו לשלוח."
        ),
        "member": "{name} (ביקור אחרון לפני {days} ימים)",
        "subject": "מתגעגעים אליך בבוקס",
        "body": (
            "היי {first},\n\nעברו {days} ימים מהאימון האחרון שלך ואנחנו מתגעגעים. לשמור לך מקום"
            " השבוע? פשוט תענה/י עם יום שנוח לך.\n\nנתראה!"
        ),
        "no_messages": (
            "{count} מתאמנים בסיכון (לפי analytics.insight): {list}. לתפקיד שלך אין שליחת"
            " מיילים למתאמנים; בעלים או מנהל יכולים לשלוח להם הודעה."
        ),
        "sent": "בוצע: נשלחו {sent} מתוך {drafted} הודעות.",
        "failed": "לא ניתן היה לקרוא את התובנה: {error}",
    },
    "ru": {
        "looking": "Посмотрю, кто давно не приходил.",
        "none": "Сейчас никто не в зоне риска: все с активным абонементом недавно тренировались.",
        "explain": (
            "В зоне риска {count} (по analytics.insight): {list}. Я подготовил каждому короткое"
            " сообщение; подтвердите те, что нужно отправить."
        ),
        "member": "{name} (последний визит {days} дн. назад)",
        "subject": "Мы скучаем по вам",
        "body": (
            "Привет, {first}!\n\nС последней тренировки прошло {days} дн., и мы скучаем."
            " Забронировать вам место на этой неделе? Ответьте, какой день удобен.\n\nДо встречи!"
        ),
        "no_messages": (
            "В зоне риска {count} (по analytics.insight): {list}. Ваша роль не может писать"
            " участникам; владелец или администратор может отправить им сообщение."
        ),
        "sent": "Готово: отправлено {sent} из {drafted} сообщений.",
        "failed": "Не удалось прочитать инсайт: {error}",
    },
}


def asks_about_at_risk(text: str, context: str) -> bool:
    """Whether this turn is the at-risk flow's: opened from its card, or asking in words."""
    found = _PLAYBOOK.search(context)
    if found is not None:
        return found.group(1) == AT_RISK
    said = text.lower()
    return any(word in said for word in _WORDS)


def at_risk_step(
    calls: Sequence[SeenCall],
    locale: str,
    can_send: bool,
    text: Callable[[str], Reply],
    call: Callable[[str | None, list[ToolCall]], Reply],
) -> Reply:
    """The flow's next step from what this run has seen so far; `can_send`: the caller's role
    has `messages.send` (the request lists it), else the members are named and nothing drafted."""
    strings = _STRINGS.get(locale, _STRINGS["en"])
    reads = [c for c in calls if (c.router, c.action) == ("analytics", "insight")]
    read = reads[-1] if reads else None
    if read is None or read.ok is None:
        return call(strings["looking"], [("analytics", "insight", {"kind": AT_RISK})])
    if not read.ok or not isinstance(read.payload, dict):
        error = read.payload.get("message") if isinstance(read.payload, dict) else read.payload
        return text(strings["failed"].format(error=error))
    members = list(read.payload.get("subjects", []))[:MAX_DRAFTS]
    if not members:
        return text(strings["none"])
    sent = [c for c in calls if (c.router, c.action) == ("messages", "send")]
    if sent:
        done = sum(1 for c in sent if c.ok)
        return text(strings["sent"].format(sent=done, drafted=len(sent)))
    listed = ", ".join(
        strings["member"].format(name=m["name"], days=m["daysSinceLastVisit"]) for m in members
    )
    if not can_send:
        return text(strings["no_messages"].format(count=len(members), list=listed))
    drafts: list[ToolCall] = [
        (
            "messages",
            "send",
            {
                "memberId": m["id"],
                "subject": strings["subject"],
                "body": strings["body"].format(
                    first=str(m["name"]).split()[0], days=m["daysSinceLastVisit"]
                ),
            },
        )
        for m in members
    ]
    return call(strings["explain"].format(count=len(members), list=listed), drafts)
