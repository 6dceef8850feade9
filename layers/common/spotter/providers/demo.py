"""The offline demo model: what `make dev` talks to when no Anthropic key or Bedrock is set.

It is a `ScriptedModel` (providers/fake.py) that decides each answer from the request, so the
whole production path runs: the real `anthropic` SDK, the orchestrator, tool calls through the
runner, suspensions, resolutions and undo. Like a real model it knows the gym only through the
request: the user's words, the caller's role and tools, the `<turn_context>` and the tool results
of the current run. It recognizes the console's suggested prompts (in en, he and ru) and walks
each flow step by step:

  schedule   read class types + the day → class_sessions.create at the hour the words name
             (the first free afternoon hour when they name none; inline write, Undo)
  cancel     read class types + the day → class_sessions.cancel of the class asked for
             (destructive confirmation)
  saar       find "Saar" + read the day → read.ask_user_to_pick → the roster → bookings.book
             (always-confirm) into the class asked for
  batch      find two members + read the day → the roster → two bookings.book at once
  overview   three reads in one turn → a summary
  long       a message over 280 chars → what the ambient context held
  plain      "what can you do?" → text
Anything else gets a plain statement that this is the demo model and how to configure a real one.

It is honest the way a good model is: it acts only on the class the words name (its class type,
its time, today or tomorrow) and, when that class does not exist, is cancelled, full or already
holds the member, it says so and changes nothing — never another class in its place. A new
Open Gym goes at the hour asked for, or nowhere when that hour holds one already. An action
the caller's role lacks (not among the request's tools) is declined in words, never attempted.
Its calls name `pricing.OFFLINE_DEMO_MODEL`, so the gym is billed nothing (agent.cost).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from spotter.i18n import Locale
from spotter.i18n.dates import format_local_date
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
_ROLE = re.compile(r"\(role: (\w+)\)")
_AMBIENT = re.compile(r"<ambient_context>\n(.*?)\n</ambient_context>", re.DOTALL)
_TIME = re.compile(r"(?<!\d)([01]?\d|2[0-3]):([0-5]\d)(?!\d)")
_TODAY = ("today", "היום", "сегодня")


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
    # the caller's tools as the request lists them: router -> its actions
    tools: dict[str, frozenset[str]] = field(default_factory=dict)
    role: str = "owner"

    @property
    def today(self) -> date:
        found = _CLOCK.search(self.context)
        return date.fromisoformat(found.group(1)) if found else date.today()

    @property
    def tomorrow(self) -> date:
        return self.today + timedelta(days=1)

    @property
    def locale(self) -> Locale:
        found = _LOCALE.search(self.context)
        code = found.group(1) if found else "en"
        return "he" if code == "he" else "ru" if code == "ru" else "en"

    def of(self, router: str, action: str) -> list[Call]:
        return [c for c in self.calls if (c.router, c.action) == (router, action)]

    def last(self, router: str, action: str) -> Call | None:
        found = self.of(router, action)
        return found[-1] if found else None

    def can(self, router: str, action: str) -> bool:
        """The caller's role has this action: the request lists it among the tools."""
        return action in self.tools.get(router, frozenset())

    def say(self, key: str, **values: Any) -> str:
        template = _STRINGS[self.locale].get(key) or _STRINGS["en"][key]
        return template.format(**values)

    def day_text(self, day: date) -> str:
        return format_local_date(day, self.locale)

    def declined(self, what: str) -> Reply:
        """The role lacks the action: say so (and who can), never try it."""
        role = _STRINGS[self.locale]["roles"].split("|")[_ROLES.index(self.role)]
        return _text(self.say("not_allowed", role=role, what=self.say(f"can_{what}")))


_ROLES = ("owner", "admin", "coach", "member")


def read_turn(body: dict[str, Any]) -> Turn:
    """The last message the user typed, its turn context, the caller's role and tools, and every
    call answered since."""
    messages: list[dict[str, Any]] = body["messages"]
    start = max(
        (i for i, m in enumerate(messages) if m["role"] == "user" and _typed(m["content"])),
        default=0,
    )
    content = _blocks(messages[start]["content"]) if messages else []
    texts = [b.get("text", "") for b in content if b.get("type") == "text"]
    said = [b.get("text", "") for b in content if _said(b)]
    system = " ".join(b.get("text", "") for b in body.get("system") or [] if isinstance(b, dict))
    role = _ROLE.search(system)
    turn = Turn(
        text=said[0] if said else "",
        context=next((t for t in texts if t.startswith("<turn_context>")), ""),
        tools=_tools(body.get("tools") or []),
        role=role.group(1) if role and role.group(1) in _ROLES else "owner",
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


def _tools(tools: list[Any]) -> dict[str, frozenset[str]]:
    found: dict[str, frozenset[str]] = {}
    for tool in tools:
        if not isinstance(tool, dict) or "name" not in tool:
            continue
        action = ((tool.get("input_schema") or {}).get("properties") or {}).get("action") or {}
        found[str(tool["name"])] = frozenset(str(a) for a in action.get("enum") or [])
    return found


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _said(block: dict[str, Any]) -> bool:
    """A text block the user typed: not the turn context, not a note Spotter added ("[Spotter
    fetched …]" after a page's seeded reads)."""
    text = str(block.get("text", "")) if block.get("type") == "text" else ""
    return bool(text) and not text.startswith(("<turn_context>", "[Spotter "))


def _typed(content: Any) -> bool:
    """A user message with words in it. Replay joins a results turn and the message the user
    typed past it into one (a superseded call's result, then the new words): that counts."""
    return any(_said(b) for b in _blocks(content))


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


def _calls(lead: str | None, *calls: tuple[str, str, dict[str, Any]]) -> Reply:
    blocks: list[Block] = [Text(lead)] if lead else []
    blocks += [ToolUse(router, {"action": action, "args": args}) for router, action, args in calls]
    return Reply(blocks, stop_reason="tool_use", usage=_USAGE, delay_s=TOOL_DELAY_S)


def _day_read(day: date) -> tuple[str, str, dict[str, Any]]:
    return ("read", "schedule", {"days": {"first": day.isoformat()}})


_TYPES_READ: tuple[str, str, dict[str, Any]] = ("read", "class_types", {})


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


@dataclass(frozen=True)
class Asked:
    """The class the words name: its day, its start time and its class type."""

    day: date
    start: str | None
    class_type: str | None

    def label(self, turn: Turn) -> str:
        return turn.say(
            "class_label",
            type=self.class_type or turn.say("a_class"),
            day=turn.day_text(self.day),
            start=self.start or "?",
        )


def asked_class(turn: Turn, class_types: list[str]) -> Asked:
    said = turn.text.lower()
    day = turn.today if any(w in said for w in _TODAY) else turn.tomorrow
    time = _TIME.search(turn.text)
    start = f"{int(time.group(1)):02d}:{time.group(2)}" if time else None
    # the longest class type the words name ("Open Gym" before "Gym")
    named = [t for t in sorted(class_types, key=len, reverse=True) if t.lower() in said]
    return Asked(day, start, named[0] if named else None)


def _class_types(turn: Turn) -> list[str] | None:
    read = turn.last("read", "class_types")
    if read is None:
        return None
    return [t["name"] for t in read.payload.get("classTypes", [])] if read.ok else []


def _the_class(asked: Asked, sessions: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next(
        (s for s in sessions if s["classType"] == asked.class_type and s["start"] == asked.start),
        None,
    )


def _class_reads(turn: Turn) -> list[tuple[str, str, dict[str, Any]]]:
    """The reads that find the class the words name (the gym's class types, that day's
    schedule) not done yet in this run."""
    day = asked_class(turn, []).day
    reads = [] if _class_types(turn) is not None else [_TYPES_READ]
    return reads + ([] if _sessions(turn, day) is not None else [_day_read(day)])


def _find_class(turn: Turn) -> tuple[Asked, dict[str, Any]] | Reply:
    """The class the words name, read from the gym, or the reply that says why there is none:
    the reads still needed, the words naming no class, or no such class that day."""
    if reads := _class_reads(turn):
        return _calls(turn.say("checking"), *reads)
    asked = asked_class(turn, _class_types(turn) or [])
    sessions_read = _sessions(turn, asked.day) or []
    if asked.class_type is None or asked.start is None:
        return _text(turn.say("which_class"))
    session = _the_class(asked, sessions_read)
    if session is None:
        return _text(turn.say("no_such_class", what=asked.label(turn)))
    return asked, session


def _asked_hours(turn: Turn) -> tuple[str | None, int]:
    """The start the words name ("13:00", or the first of "13:00-14:30") and the minutes until
    the end they name (60 when they name none)."""
    times = [(int(h), int(m)) for h, m in _TIME.findall(turn.text)]
    if not times:
        return None, 60
    start = times[0][0] * 60 + times[0][1]
    end = times[1][0] * 60 + times[1][1] if len(times) > 1 else start + 60
    return f"{times[0][0]:02d}:{times[0][1]:02d}", end - start if end > start else 60


def schedule_flow(turn: Turn) -> Reply:
    if not turn.can("class_sessions", "create"):
        return turn.declined("create")
    if created := turn.last("class_sessions", "create"):
        if not created.ok:
            return _text(_failure(turn, created))
        made = created.args["slot"]
        on = turn.day_text(date.fromisoformat(made["day"]))
        return _text(turn.say("created", day=on, start=made["start"]))
    if reads := _class_reads(turn):
        return _calls(turn.say("checking"), *reads)
    types = turn.last("read", "class_types")
    class_types = types.payload.get("classTypes", []) if types and types.ok else []
    open_gym = next((t for t in class_types if t["name"].lower() == "open gym"), None)
    if open_gym is None:
        return _text(turn.say("no_class_type"))
    day = asked_class(turn, []).day
    taken = {s["start"] for s in _sessions(turn, day) or [] if s["classTypeId"] == open_gym["id"]}
    start, minutes = _asked_hours(turn)
    if start is not None and start in taken:
        # the hour asked for holds an Open Gym already: say so, never move it to another hour
        return _text(turn.say("open_gym_taken", day=turn.day_text(day), start=start))
    if start is None:
        # no hour named ("tomorrow afternoon"): the first afternoon hour still free, so the demo
        # can be run again (or after an undo); the reply names the hour it chose
        start = next((h for h in _AFTERNOON if h not in taken), None)
        if start is None:
            return _text(turn.say("no_free_hour", day=turn.day_text(day)))
    slot = {"day": day.isoformat(), "start": start, "minutes": minutes}
    create = {"classTypeId": open_gym["id"], "slot": slot}
    return _calls(None, ("class_sessions", "create", create))


def cancel_flow(turn: Turn) -> Reply:
    if not turn.can("class_sessions", "cancel"):
        return turn.declined("cancel")
    if cancelled := turn.last("class_sessions", "cancel"):
        if cancelled.ok:
            count = cancelled.payload.get("bookingsCancelled", 0)
            return _text(turn.say("cancelled", count=count))
        if cancelled.code == "rejected_by_user":
            return _text(turn.say("kept"))
        return _text(_failure(turn, cancelled))
    found = _find_class(turn)
    if isinstance(found, Reply):
        return found
    asked, session = found
    what = asked.label(turn)
    if session.get("status") == "cancelled":
        return _text(turn.say("already_cancelled", what=what))
    args = {"sessionIds": [session["id"]], "reason": "Cancelled from the dev console"}
    # everyone the cancel releases, as the card counts them: the booked and the waitlisted
    waiting = int(session.get("waitlisted") or 0)
    key = "asking_waitlist" if waiting else "asking"
    lead = turn.say(key, what=what, count=session.get("booked", 0), waiting=waiting)
    return _calls(lead, ("class_sessions", "cancel", args))


def _booked(turn: Turn, calls: list[Call]) -> Reply:
    done = [c for c in calls if c.ok]
    if len(calls) == 1 and not done:
        if calls[0].code == "rejected_by_user":
            return _text(turn.say("not_booked"))
        return _text(_failure(turn, calls[0]))
    return _text(turn.say("booked", count=len(done), total=len(calls)))


def _into(
    turn: Turn, members: list[dict[str, Any]]
) -> tuple[str, dict[str, Any], list[dict[str, Any]]] | Reply:
    """The class asked for and who of `members` ({id, name}) can still be booked into it; or the
    reply that says why nobody can (no such class, cancelled, full, all already in it)."""
    found = _find_class(turn)
    if isinstance(found, Reply):
        return found
    asked, session = found
    what = asked.label(turn)
    if session.get("status") != "published":
        return _text(turn.say("not_bookable", what=what))
    roster_read = next(
        (c for c in turn.of("read", "session") if c.args.get("sessionId") == session["id"]), None
    )
    if roster_read is None:
        return _calls(None, ("read", "session", {"sessionId": session["id"]}))
    roster = roster_read.payload.get("roster", []) if roster_read.ok else []
    booked = {b["memberId"] for b in roster}
    fresh = [m for m in members if m["id"] not in booked]
    already = [m["name"] for m in members if m["id"] in booked]
    if not fresh:
        return _text(turn.say("already_booked", who=", ".join(already), what=what))
    if int(session["booked"]) + len(fresh) > int(session["capacity"]):
        return _text(turn.say("full", what=what))
    lead = turn.say("already_booked_some", who=", ".join(already), what=what) if already else ""
    return lead, session, fresh


def saar_flow(turn: Turn) -> Reply:
    if not turn.can("bookings", "book"):
        return turn.declined("book")
    if books := turn.of("bookings", "book"):
        return _booked(turn, books)
    found = turn.last("read", "find_members")
    if found is None:
        find = ("read", "find_members", {"query": "Saar"})
        return _calls(turn.say("looking"), find, *_class_reads(turn))
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
        return _calls(None, ("read", "ask_user_to_pick", pick))
    if picked is not None and not picked.ok:
        return _text(_failure(turn, picked))
    chosen = (
        {"id": picked.payload["pickedId"], "name": picked.payload.get("pickedLabel", "")}
        if picked is not None
        else {"id": people[0]["membershipId"], "name": people[0]["name"]}
    )
    into = _into(turn, [chosen])
    if isinstance(into, Reply):
        return into
    lead, session, fresh = into
    book = {"sessionId": session["id"], "memberId": fresh[0]["id"]}
    return _calls(lead or None, ("bookings", "book", book))


BATCH_MEMBERS = ("Maya Rosen", "Noa Friedman")


def batch_flow(turn: Turn) -> Reply:
    if not turn.can("bookings", "book"):
        return turn.declined("book")
    if books := turn.of("bookings", "book"):
        return _booked(turn, books)
    found = turn.of("read", "find_members")
    if not found:
        reads = [("read", "find_members", {"query": name}) for name in BATCH_MEMBERS]
        return _calls(turn.say("looking"), *reads, *_class_reads(turn))
    members = [
        {"id": p["membershipId"], "name": p["name"]}
        for c in found
        if c.ok and (p := next(iter(c.payload.get("people", [])), None))
    ]
    if not members:
        return _text(turn.say("nobody"))
    into = _into(turn, members)
    if isinstance(into, Reply):
        return into
    lead, session, fresh = into
    writes = [
        ("bookings", "book", {"sessionId": session["id"], "memberId": m["id"]}) for m in fresh
    ]
    return _calls(lead or None, *writes)


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
            turn.say("looking"),
            ("read", "schedule", {"days": week}),
            ("read", "coaches", {}),
            _TYPES_READ,
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
    return flow_for(turn.text)(turn)


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


_STRINGS: dict[Locale, dict[str, str]] = {
    "en": {
        "checking": "Let me check the schedule first.",
        "looking": "Looking that up.",
        "class_label": "{type} at {start} on {day}",
        "a_class": "class",
        "which_class": (
            "Which class do you mean? Name its class type and time, for example tomorrow's "
            "18:00 CrossFit. Nothing was changed."
        ),
        "no_such_class": "There is no {what}, so nothing was changed.",
        "already_cancelled": "{what} is already cancelled, so nothing was changed.",
        "asking": "This cancels {what} for the {count} people booked in it; please confirm.",
        "asking_waitlist": (
            "This cancels {what} for the {count} people booked in it and the {waiting} on its "
            "waitlist; please confirm."
        ),
        "created": "Done: a draft Open Gym session on {day} at {start}. Undo is on the card.",
        "no_class_type": "This gym has no Open Gym class type.",
        "open_gym_taken": "There is already an Open Gym at {start} on {day}, so nothing was "
        "changed.",
        "no_free_hour": "Every afternoon hour on {day} already has an Open Gym, so nothing was "
        "changed.",
        "cancelled": "Cancelled. {count} bookings were released and credits refunded.",
        "kept": "OK, I left the class as it is.",
        "which_saar": "Which Saar?",
        "nobody": "I could not find who to book.",
        "not_bookable": "{what} is not open for booking, so nobody was booked.",
        "full": "{what} is full, so nobody was booked.",
        "already_booked": "Already booked into {what}: {who}. Nothing was changed.",
        "already_booked_some": "Already booked into {what}: {who}. I'm booking only the others.",
        "not_booked": "OK, nobody was booked.",
        "booked": "Bookings made: {count} of {total}.",
        "failed": "{tool} did not go through ({code}).",
        "roles": "an owner|an admin|a coach|a member",
        "not_allowed": (
            "As {role} you can't {what}: an owner or an admin can. Nothing was changed."
        ),
        "can_cancel": "cancel classes",
        "can_create": "create classes",
        "can_book": "book members",
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
        "class_label": "שיעור ה-{type} ב-{start} ב{day}",
        "a_class": "שיעור",
        "which_class": "לאיזה שיעור הכוונה? ציינו סוג שיעור ושעה, למשל CrossFit מחר ב-18:00. "
        "שום דבר לא השתנה.",
        "no_such_class": "אין {what}, אז שום דבר לא השתנה.",
        "already_cancelled": "{what} כבר בוטל, אז שום דבר לא השתנה.",
        "asking": "זה מבטל את {what} ל-{count} הרשומים; נא לאשר.",
        "asking_waitlist": "זה מבטל את {what} ל-{count} הרשומים ול-{waiting} שברשימת ההמתנה; "
        "נא לאשר.",
        "created": "בוצע: סשן אופן ג'ים בטיוטה ב{day} בשעה {start}. אפשר לבטל מהכרטיס.",
        "no_class_type": "אין בחדר הכושר סוג שיעור אופן ג'ים.",
        "open_gym_taken": "כבר יש אופן ג'ים בשעה {start} ב{day}, אז שום דבר לא השתנה.",
        "no_free_hour": "בכל שעות אחר הצהריים ב{day} כבר יש אופן ג'ים, אז שום דבר לא השתנה.",
        "cancelled": "בוטל. {count} הרשמות שוחררו והקרדיטים הוחזרו.",
        "kept": "בסדר, השיעור נשאר כמו שהוא.",
        "which_saar": "איזה סער?",
        "nobody": "לא מצאתי את מי לרשום.",
        "not_bookable": "{what} לא פתוח להרשמה, אז אף אחד לא נרשם.",
        "full": "{what} מלא, אז אף אחד לא נרשם.",
        "already_booked": "כבר רשומים ל{what}: {who}. שום דבר לא השתנה.",
        "already_booked_some": "כבר רשומים ל{what}: {who}. אני רושם רק את השאר.",
        "not_booked": "בסדר, אף אחד לא נרשם.",
        "booked": "בוצעו {count} מתוך {total} הרשמות.",
        "failed": "{tool} לא הצליח ({code}).",
        "roles": "בעלים|מנהל|מאמן|מתאמן",
        "not_allowed": "בתפקיד {role} אי אפשר {what}: בעלים או מנהל יכולים. שום דבר לא השתנה.",
        "can_cancel": "לבטל שיעורים",
        "can_create": "ליצור שיעורים",
        "can_book": "לרשום מתאמנים",
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
        "class_label": "{type} в {start} ({day})",
        "a_class": "занятие",
        "which_class": "Какое занятие вы имеете в виду? Назовите тип и время, например завтрашний "
        "CrossFit в 18:00. Ничего не изменено.",
        "no_such_class": "Занятия «{what}» нет, поэтому ничего не изменено.",
        "already_cancelled": "Занятие «{what}» уже отменено, поэтому ничего не изменено.",
        "asking": "Это отменит занятие «{what}» для {count} записавшихся; подтвердите.",
        "asking_waitlist": "Это отменит занятие «{what}» для {count} записавшихся и {waiting} "
        "в листе ожидания; подтвердите.",
        "created": "Готово: черновик Open Gym на {day} в {start}. Отменить можно на карточке.",
        "no_class_type": "В этом зале нет типа занятия Open Gym.",
        "open_gym_taken": "Open Gym в {start} ({day}) уже есть, поэтому ничего не изменено.",
        "no_free_hour": "Все часы после обеда ({day}) уже заняты Open Gym, ничего не изменено.",
        "cancelled": "Отменено. Освобождено записей: {count}, кредиты возвращены.",
        "kept": "Хорошо, занятие осталось как было.",
        "which_saar": "Какой Саар?",
        "nobody": "Не нашёл, кого записать.",
        "not_bookable": "На занятие «{what}» запись закрыта, никого не записал.",
        "full": "Занятие «{what}» заполнено, никого не записал.",
        "already_booked": "Уже записаны на «{what}»: {who}. Ничего не изменено.",
        "already_booked_some": "Уже записаны на «{what}»: {who}. Записываю только остальных.",
        "not_booked": "Хорошо, никого не записал.",
        "booked": "Записей сделано: {count} из {total}.",
        "failed": "{tool} не выполнено ({code}).",
        "roles": "владелец|администратор|тренер|участник",
        "not_allowed": "Роль «{role}» не может {what}: это могут владелец или администратор. "
        "Ничего не изменено.",
        "can_cancel": "отменять занятия",
        "can_create": "создавать занятия",
        "can_book": "записывать участников",
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
