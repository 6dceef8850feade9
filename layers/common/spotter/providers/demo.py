"""The offline demo model: what `make dev` talks to when no Anthropic key or Bedrock is set.

It is a `ScriptedModel` (providers/fake.py) that decides each answer from the request, so the
whole production path runs: the real `anthropic` SDK, the orchestrator, tool calls through the
runner, suspensions, resolutions and undo. Like a real model it knows the gym only through the
request: the user's words, the `<turn_context>` and the tool results of the current run. It
recognizes the console's suggested prompts (in en, he and ru) and walks each flow step by step:

  schedule   read class types + the day → class_sessions.create (inline write, Undo)
  cancel     read the day → class_sessions.cancel (destructive confirmation)
  saar       find "Saar" + read the day → read.ask_user_to_pick → rosters → bookings.book
             (always-confirm), in a session the member is not booked in yet
  batch      find two members + read the day → rosters → two bookings.book at once
  overview   three reads in one turn → a summary
  long       a message over 280 chars → what the ambient context held
  plain      "what can you do?" → text
Anything else gets a plain statement that this is the demo model and how to configure a real one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from spotter.providers.demo_insights import SeenCall, asks_about_at_risk, at_risk_step
from spotter.providers.fake import Block, FakeUsage, Reply, ScriptedModel, Text, ToolUse

DEMO_MODEL_LABEL = "offline demo model"
# Visible streaming in a browser, without slowing the tests down much.
TEXT_DELAY_S = 0.02
TOOL_DELAY_S = 0.005
_USAGE = FakeUsage(input_tokens=1_800, output_tokens=90, cache_read_input_tokens=6_000)
_AFTERNOON = tuple(f"{hour:02d}:00" for hour in (14, 15, 16, 17, 20, 21, 22, 13, 11, 10))
_LONG_MESSAGE_CHARS = 280  # longer messages skip the quick route and get ambient context

_CLOCK = re.compile(r"(\d{4}-\d{2}-\d{2}) \d{2}:\d{2}")
_LOCALE = re.compile(r"Caller's preferred locale: (\w+)")
_AMBIENT = re.compile(r"<ambient_context>\n(.*?)\n</ambient_context>", re.DOTALL)


@dataclass(frozen=True)
class Call:
    """One tool call of the current run and what came back (None: no result yet)."""

    router: str
    action: str
    args: dict[str, Any]
    ok: bool | None = None
    payload: Any = None

    @property
    def code(self) -> str | None:
        return self.payload.get("code") if isinstance(self.payload, dict) else None


@dataclass
class Turn:
    """What the model reads of the run it is answering."""

    text: str
    context: str
    calls: list[Call] = field(default_factory=list)

    @property
    def today(self) -> date:
        found = _CLOCK.search(self.context)
        return date.fromisoformat(found.group(1)) if found else date.today()

    @property
    def tomorrow(self) -> date:
        return self.today + timedelta(days=1)

    @property
    def locale(self) -> str:
        found = _LOCALE.search(self.context)
        return found.group(1) if found and found.group(1) in _STRINGS else "en"

    def of(self, router: str, action: str) -> list[Call]:
        return [c for c in self.calls if (c.router, c.action) == (router, action)]

    def last(self, router: str, action: str) -> Call | None:
        found = self.of(router, action)
        return found[-1] if found else None

    def say(self, key: str, **values: Any) -> str:
        template = _STRINGS[self.locale].get(key) or _STRINGS["en"][key]
        return template.format(**values)


def read_turn(body: dict[str, Any]) -> Turn:
    """The last message the user typed, its turn context, and every call answered since."""
    messages: list[dict[str, Any]] = body["messages"]
    start = max(
        (i for i, m in enumerate(messages) if m["role"] == "user" and _typed(m["content"])),
        default=0,
    )
    content = _blocks(messages[start]["content"]) if messages else []
    texts = [b.get("text", "") for b in content if b.get("type") == "text"]
    turn = Turn(
        text=next((t for t in texts if not t.startswith("<turn_context>")), ""),
        context=next((t for t in texts if t.startswith("<turn_context>")), ""),
    )
    asked: dict[str, tuple[str, dict[str, Any]]] = {}
    order: list[str] = []
    answered: dict[str, tuple[bool, Any]] = {}
    for message in messages[start + 1 :]:
        for block in _blocks(message["content"]):
            if block.get("type") == "tool_use":
                tool_input = block.get("input") or {}
                asked[block["id"]] = (block["name"], tool_input)
                order.append(block["id"])
            elif block.get("type") == "tool_result":
                answered[block["tool_use_id"]] = (not block.get("is_error"), _payload(block))
    for tool_use_id in order:
        router, tool_input = asked[tool_use_id]
        ok, payload = answered.get(tool_use_id, (None, None))
        turn.calls.append(
            Call(router, str(tool_input.get("action")), tool_input.get("args") or {}, ok, payload)
        )
    return turn


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _typed(content: Any) -> bool:
    blocks = _blocks(content)
    return bool(blocks) and not any(b.get("type") == "tool_result" for b in blocks)


def _payload(block: dict[str, Any]) -> Any:
    content = block.get("content")
    if isinstance(content, list):
        content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
    try:
        return json.loads(content) if isinstance(content, str) else content
    except ValueError:
        return content


# --- answers ---------------------------------------------------------------------------------


def _text(text: str) -> Reply:
    return Reply([Text(text)], usage=_USAGE, delay_s=TEXT_DELAY_S)


def _calls(turn: Turn, lead: str | None, *calls: tuple[str, str, dict[str, Any]]) -> Reply:
    blocks: list[Block] = [Text(turn.say(lead))] if lead else []
    blocks += [ToolUse(router, {"action": action, "args": args}) for router, action, args in calls]
    return Reply(blocks, stop_reason="tool_use", usage=_USAGE, delay_s=TOOL_DELAY_S)


def _day_read(day: date) -> tuple[str, str, dict[str, Any]]:
    return ("read", "schedule", {"days": {"first": day.isoformat()}})


def _sessions(turn: Turn, day: date) -> list[dict[str, Any]] | None:
    """The sessions of `day` from a schedule read of this run (None: not read yet)."""
    for call in reversed(turn.of("read", "schedule")):
        if call.ok and isinstance(call.payload, dict):
            days = call.args.get("days") or {}
            first, last = days.get("first", ""), days.get("last") or days.get("first", "")
            if first <= day.isoformat() <= last:
                return [s for s in call.payload.get("sessions", []) if s.get("date") == str(day)]
    return None


def _failure(turn: Turn, call: Call) -> str:
    return turn.say("failed", tool=f"{call.router}.{call.action}", code=call.code or "error")


def _when(session: dict[str, Any]) -> str:
    return f"{session['classType']} {session['date']} {session['start']}"


def _bookable(
    turn: Turn, sessions: list[dict[str, Any]], member_ids: list[str]
) -> Reply | dict[str, Any] | None:
    """The first session tomorrow with room where none of the members is booked yet (07:00
    CrossFit first), reading the candidates' rosters first; None when there is none."""
    live = [s for s in sessions if s.get("status") == "published" and s["booked"] < s["capacity"]]
    live.sort(key=lambda s: (s["classType"] != "CrossFit" or s["start"] != "07:00", s["start"]))
    rosters = {
        c.args.get("sessionId"): c.payload.get("roster", [])
        for c in turn.of("read", "session")
        if c.ok and isinstance(c.payload, dict)
    }
    unread = [s for s in live if s["id"] not in rosters]
    if unread:
        reads = [("read", "session", {"sessionId": s["id"]}) for s in unread]
        return _calls(turn, None, *reads)
    for session in live:
        booked = {b["memberId"] for b in rosters[session["id"]]}
        if not booked & set(member_ids):
            return session
    return None


def schedule_flow(turn: Turn) -> Reply:
    if created := turn.last("class_sessions", "create"):
        if not created.ok:
            return _text(_failure(turn, created))
        slot = created.args["slot"]
        return _text(turn.say("created", day=slot["day"], start=slot["start"]))
    types, sessions = turn.last("read", "class_types"), _sessions(turn, turn.tomorrow)
    if types is None or sessions is None:
        return _calls(turn, "checking", ("read", "class_types", {}), _day_read(turn.tomorrow))
    class_types = types.payload.get("classTypes", []) if types.ok else []
    open_gym = next((t for t in class_types if t["name"].lower() == "open gym"), None)
    if open_gym is None:
        return _text(turn.say("no_class_type"))
    taken = {s["start"] for s in sessions if s["classTypeId"] == open_gym["id"]}
    # the afternoon hour still free, so the demo can be run again (or after an undo)
    start = next((h for h in _AFTERNOON if h not in taken), _AFTERNOON[0])
    slot = {"day": turn.tomorrow.isoformat(), "start": start, "minutes": 60}
    create = {"classTypeId": open_gym["id"], "slot": slot}
    return _calls(turn, None, ("class_sessions", "create", create))


def cancel_flow(turn: Turn) -> Reply:
    if cancelled := turn.last("class_sessions", "cancel"):
        if cancelled.ok:
            count = cancelled.payload.get("bookingsCancelled", 0)
            return _text(turn.say("cancelled", count=count))
        if cancelled.code == "rejected_by_user":
            return _text(turn.say("kept"))
        return _text(_failure(turn, cancelled))
    sessions = _sessions(turn, turn.tomorrow)
    if sessions is None:
        return _calls(turn, "checking", _day_read(turn.tomorrow))
    live = [s for s in sessions if s.get("status") != "cancelled" and s["booked"] > 0]
    evening = [s for s in live if s["classType"] == "CrossFit" and s["start"] == "18:00"]
    ranked = evening or sorted(live, key=lambda s: -int(s["booked"]))
    if not ranked:
        return _text(turn.say("nothing_to_cancel"))
    args = {"sessionIds": [ranked[0]["id"]], "reason": "Cancelled from the dev console"}
    return _calls(turn, "asking", ("class_sessions", "cancel", args))


def _booked(turn: Turn, calls: list[Call]) -> Reply:
    done = [c for c in calls if c.ok]
    if len(calls) == 1 and not done:
        if calls[0].code == "rejected_by_user":
            return _text(turn.say("not_booked"))
        return _text(_failure(turn, calls[0]))
    return _text(turn.say("booked", count=len(done), total=len(calls)))


def saar_flow(turn: Turn) -> Reply:
    if books := turn.of("bookings", "book"):
        return _booked(turn, books)
    found, sessions = turn.last("read", "find_members"), _sessions(turn, turn.tomorrow)
    if found is None or sessions is None:
        return _calls(
            turn, "looking", ("read", "find_members", {"query": "Saar"}), _day_read(turn.tomorrow)
        )
    people = found.payload.get("people", []) if found.ok else []
    if not people:
        return _text(turn.say("nobody"))
    picked = turn.last("read", "ask_user_to_pick")
    if picked is None and len(people) > 1:
        candidates = [
            {"id": p["membershipId"], "label": p["name"], "sublabel": p.get("email") or p["role"]}
            for p in people[:8]
        ]
        pick = {"kind": "member", "prompt": turn.say("which_saar"), "candidates": candidates}
        return _calls(turn, None, ("read", "ask_user_to_pick", pick))
    if picked is not None and not picked.ok:
        return _text(_failure(turn, picked))
    member = picked.payload["pickedId"] if picked is not None else people[0]["membershipId"]
    session = _bookable(turn, sessions, [member])
    if session is None:
        return _text(turn.say("nobody"))
    if isinstance(session, Reply):
        return session
    book = {"sessionId": session["id"], "memberId": member}
    return _calls(turn, None, ("bookings", "book", book))


BATCH_MEMBERS = ("Maya Rosen", "Noa Friedman")


def batch_flow(turn: Turn) -> Reply:
    if books := turn.of("bookings", "book"):
        return _booked(turn, books)
    found, sessions = turn.of("read", "find_members"), _sessions(turn, turn.tomorrow)
    if not found or sessions is None:
        reads = [("read", "find_members", {"query": name}) for name in BATCH_MEMBERS]
        return _calls(turn, "looking", *reads, _day_read(turn.tomorrow))
    members = [c.payload["people"][0] for c in found if c.ok and c.payload.get("people")]
    session = _bookable(turn, sessions, [m["membershipId"] for m in members])
    if session is None or not members:
        return _text(turn.say("nobody"))
    if isinstance(session, Reply):
        return session
    writes = [
        ("bookings", "book", {"sessionId": session["id"], "memberId": m["membershipId"]})
        for m in members
    ]
    return _calls(turn, None, *writes)


def overview_flow(turn: Turn) -> Reply:
    reads = [
        turn.last("read", "schedule"),
        turn.last("read", "coaches"),
        turn.last("read", "class_types"),
    ]
    if any(r is None for r in reads):
        monday = turn.today - timedelta(days=turn.today.weekday())
        week = {"first": monday.isoformat(), "last": (monday + timedelta(days=6)).isoformat()}
        return _calls(
            turn,
            "looking",
            ("read", "schedule", {"days": week}),
            ("read", "coaches", {}),
            ("read", "class_types", {}),
        )
    schedule, coaches, types = (r.payload if r and r.ok else {} for r in reads)
    sessions = schedule.get("sessions", [])
    return _text(
        turn.say(
            "overview",
            sessions=len(sessions),
            booked=sum(int(s.get("booked", 0)) for s in sessions),
            coaches=", ".join(c["name"] for c in coaches.get("coaches", [])) or "-",
            types=", ".join(t["name"] for t in types.get("classTypes", [])) or "-",
        )
    )


def ambient_flow(turn: Turn) -> Reply:
    found = _AMBIENT.search(turn.context)
    if found is None:
        return _text(turn.say("no_ambient"))
    hits = [line for line in found.group(1).splitlines() if line.startswith("- ")]
    listed = "\n".join(re.sub(r" id=\S+$", "", line) for line in hits)
    return _text(turn.say("ambient", hits=listed))


def plain_flow(turn: Turn) -> Reply:
    return _text(turn.say("capabilities"))


def unknown_flow(turn: Turn) -> Reply:
    return _text(turn.say("unknown"))


# (flow, words that start it in en / he / ru), checked in order
FLOWS: tuple[tuple[Callable[[Turn], Reply], tuple[str, ...]], ...] = (
    (saar_flow, ("saar", "סער", "саар")),
    (batch_flow, ("maya", "noa", "מאיה", "נועה", "майя", "ноа")),
    (cancel_flow, ("cancel", "בטל", "отмени")),
    (schedule_flow, ("schedule an open gym", "open gym", "אופן ג'ים", "תזמן", "запланируй")),
    (overview_flow, ("overview", "how busy", "סקירה", "обзор")),
    (plain_flow, ("what can you do", "מה אתה יכול", "что ты умеешь")),
)


def flow_for(text: str) -> Callable[[Turn], Reply]:
    if len(text) > _LONG_MESSAGE_CHARS:
        return ambient_flow
    said = text.lower()
    return next((flow for flow, words in FLOWS if any(w in said for w in words)), unknown_flow)


def answer(body: dict[str, Any]) -> Reply:
    """The loop's call gets its flow's next step; side calls get what they expect."""
    system = body.get("system")
    if not (isinstance(system, list) and len(system) == 2):
        return _side_call(body)
    turn = read_turn(body)
    if asks_about_at_risk(turn.text, turn.context):
        return _at_risk(turn, body)
    return flow_for(turn.text)(turn)


def _at_risk(turn: Turn, body: dict[str, Any]) -> Reply:
    """The dashboard's members-at-risk card (providers.demo_insights), with this model's replies."""

    def call(lead: str | None, calls: list[tuple[str, str, dict[str, Any]]]) -> Reply:
        reply = _calls(turn, None, *calls)
        reply.blocks[:0] = [Text(lead)] if lead else []
        return reply

    seen = [SeenCall(c.router, c.action, c.args, c.ok, c.payload) for c in turn.calls]
    tools = frozenset(str(t.get("name")) for t in body.get("tools") or [])
    return at_risk_step(seen, turn.locale, tools, _text, call)


def _side_call(body: dict[str, Any]) -> Reply:
    if body.get("tools"):  # the T1 quick router: decline, so the loop answers
        return Reply([Text("LOOP")], usage=FakeUsage(input_tokens=0, output_tokens=0))
    last = body["messages"][-1]["content"]
    said = "".join(b.get("text", "") for b in _blocks(last) if b.get("type") == "text")
    if said.rstrip().endswith("Title:"):  # agent.titles: the first message in <message> tags
        inner = said.split("<message>")[-1].split("</message>")[0].split()
        return Reply([Text(" ".join(inner[:6]) or "Demo")], usage=FakeUsage(40, 8))
    return Reply([Text("Earlier the user tried the offline demo model.")], usage=FakeUsage(40, 8))


class DemoModel(ScriptedModel):
    """Never runs out of script: every request is answered by `answer`."""

    def next_step(self, body: dict[str, Any]) -> Reply:
        return answer(body)


def demo_model() -> ScriptedModel:
    return DemoModel()


_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "checking": "Let me check the schedule first.",
        "looking": "Looking that up.",
        "asking": "This cancels the class for everyone booked; please confirm.",
        "created": "Done: a draft Open Gym session on {day} at {start}. Undo is on the card.",
        "no_class_type": "This gym has no Open Gym class type.",
        "cancelled": "Cancelled. {count} booking(s) were released and credits refunded.",
        "kept": "OK, I left the class as it is.",
        "nothing_to_cancel": "Nothing with bookings is left to cancel tomorrow.",
        "which_saar": "Which Saar?",
        "nobody": "I could not find who to book, or a session tomorrow with room for them.",
        "not_booked": "OK, nobody was booked.",
        "booked": "{count} of {total} booking(s) made.",
        "failed": "{tool} did not go through ({code}).",
        "overview": (
            "This week: {sessions} sessions with {booked} bookings.\n"
            "Coaches: {coaches}.\nClass types: {types}."
        ),
        "ambient": (
            "Spotter attached these records to your message before I read it (ambient "
            "context, matched from your words):\n{hits}\nA real model uses them to act "
            "without asking for ids."
        ),
        "no_ambient": "No records matched your words, so there was no ambient context.",
        "capabilities": (
            "I can read and change your gym's schedule: create, cancel and publish sessions, "
            "book members, manage programs, workouts and assignments. Anything destructive or "
            "outbound waits for your approval, and most writes can be undone."
        ),
        "unknown": (
            "This is Spotter's offline demo model: it only knows the suggested prompts. To talk "
            "to a real model, set ANTHROPIC_API_KEY (or MODEL_PROVIDER=bedrock with AWS "
            "credentials) and restart `make dev`."
        ),
    },
    "he": {
        "checking": "אבדוק קודם את לוח הזמנים.",
        "looking": "מחפש.",
        "asking": "זה מבטל את השיעור לכל מי שרשום; נא לאשר.",
        "created": "בוצע: סשן אופן ג'ים בטיוטה ב-{day} בשעה {start}. אפשר לבטל מהכרטיס.",
        "no_class_type": "אין בחדר הכושר סוג שיעור אופן ג'ים.",
        "cancelled": "בוטל. {count} הרשמות שוחררו והקרדיטים הוחזרו.",
        "kept": "בסדר, השיעור נשאר כמו שהוא.",
        "nothing_to_cancel": "אין מחר שיעור עם הרשמות לבטל.",
        "which_saar": "איזה סער?",
        "nobody": "לא מצאתי את מי או מה לרשום.",
        "not_booked": "בסדר, אף אחד לא נרשם.",
        "booked": "בוצעו {count} מתוך {total} הרשמות.",
        "failed": "{tool} לא הצליח ({code}).",
        "overview": "השבוע: {sessions} שיעורים עם {booked} הרשמות.\nמאמנים: {coaches}.\n"
        "סוגי שיעורים: {types}.",
        "ambient": "Spotter צירף להודעה שלך את הרשומות האלה (הקשר סביבתי לפי המילים שלך):\n{hits}",
        "no_ambient": "אף רשומה לא התאימה למילים שלך, אז לא היה הקשר סביבתי.",
        "capabilities": "אני יכול לקרוא ולשנות את לוח הזמנים: ליצור, לבטל ולפרסם שיעורים, "
        "לרשום מתאמנים ולנהל תוכניות ואימונים. כל פעולה הרסנית מחכה לאישור שלך.",
        "unknown": "זהו מודל ההדגמה הלא-מקוון של Spotter: הוא מכיר רק את ההצעות. כדי לדבר עם "
        "מודל אמיתי, הגדירו ANTHROPIC_API_KEY (או MODEL_PROVIDER=bedrock) והפעילו מחדש את "
        "`make dev`.",
    },
    "ru": {
        "checking": "Сначала посмотрю расписание.",
        "looking": "Ищу.",
        "asking": "Это отменит занятие для всех записанных; подтвердите.",
        "created": "Готово: черновик Open Gym на {day} в {start}. Отменить можно на карточке.",
        "no_class_type": "В этом зале нет типа занятия Open Gym.",
        "cancelled": "Отменено. Освобождено записей: {count}, кредиты возвращены.",
        "kept": "Хорошо, занятие осталось как было.",
        "nothing_to_cancel": "Завтра нет занятий с записями, которые можно отменить.",
        "which_saar": "Какой Саар?",
        "nobody": "Не нашёл, кого или куда записать.",
        "not_booked": "Хорошо, никого не записал.",
        "booked": "Записей сделано: {count} из {total}.",
        "failed": "{tool} не выполнено ({code}).",
        "overview": "На этой неделе: {sessions} занятий, {booked} записей.\nТренеры: {coaches}.\n"
        "Типы занятий: {types}.",
        "ambient": "Spotter приложил к сообщению эти записи (окружающий контекст по вашим "
        "словам):\n{hits}",
        "no_ambient": "Ни одна запись не совпала с вашими словами, контекста не было.",
        "capabilities": "Я читаю и меняю расписание: создаю, отменяю и публикую занятия, "
        "записываю участников, веду программы и тренировки. Всё разрушительное ждёт вашего "
        "подтверждения.",
        "unknown": "Это офлайн-демо-модель Spotter: она знает только предложенные запросы. Чтобы "
        "говорить с настоящей моделью, задайте ANTHROPIC_API_KEY (или MODEL_PROVIDER=bedrock) и "
        "перезапустите `make dev`.",
    },
}
