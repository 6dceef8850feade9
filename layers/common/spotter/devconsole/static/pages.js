// The fake dashboard pages, as data. A page names its pathname, the selection it contributes to
// every message (pageContext), its suggested prompts (keys of prompt.* in i18n/*.json), the data
// it reads from the dashboard API (GET /gym/...: the same reads a dashboard makes, as the
// signed-in user), the routers whose writes change that data (the page reloads after one), and
// optionally the router it needs: a page whose router is not in GET /dev/info's `routers` is not
// shown (the leads board appears once a `leads` router exists).
//
// Rule, as in console.js: every string from the server is put in the page as text, never as HTML.

// What each suggested prompt asks Spotter to do: a prompt is offered only to a role that has all
// of these actions (GET /dev/abilities), so nobody is offered a flow that ends in `forbidden`.
export const PROMPT_NEEDS = {
  schedule: ["class_sessions.create", "read.class_types", "read.schedule"],
  cancel: ["class_sessions.cancel", "read.schedule"],
  saar: ["bookings.book", "read.find_members", "read.ask_user_to_pick", "read.session"],
  batch: ["bookings.book", "read.find_members", "read.session"],
  overview: ["read.schedule", "read.coaches", "read.class_types"],
  plain: [],
  long: [],
  unknown: [],
};

export function promptsFor(page, abilities, role) {
  if (role === "member") return [];
  return page.prompts.filter((key) => (PROMPT_NEEDS[key] || []).every((action) => abilities.has(action)));
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "testid") node.dataset.testid = value;
    else if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function isoDay(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function addDays(iso, days) {
  const day = new Date(`${iso}T12:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

// A local date (YYYY-MM-DD, already in the gym's zone) as the reader's language writes it.
export function dayLabel(iso, locale, options = { weekday: "short", day: "numeric", month: "short" }) {
  return new Intl.DateTimeFormat(locale, { ...options, timeZone: "UTC" }).format(new Date(`${iso}T12:00:00Z`));
}

function hint(text) {
  return el("p", { class: "hint" }, text);
}

function refused(error, t, fallback) {
  // the API's own refusal (a member, a tier without the feature), as text
  return el("p", { class: "hint", testid: "page-refused" }, error?.message || t(fallback));
}

export const PAGES = [
  {
    id: "schedule",
    pathname: "/dashboard/schedule",
    title: "page.schedule.title",
    prompts: ["schedule", "cancel", "saar", "batch", "overview"],
    refreshOn: ["class_sessions", "bookings", "class_types", "daily_programming"],
    // the week shown; a clicked day becomes selection.date, a clicked class selection.sessionId
    selection: (state) => ({
      weekStart: state.data?.weekStart || state.weekStart || isoDay(new Date()),
      ...(state.day ? { date: state.day } : {}),
      ...(state.session ? { sessionId: state.session.id, sessionLabel: state.session.label } : {}),
    }),
    load: (api, state) => api(`/gym/schedule${state.weekStart ? `?weekStart=${state.weekStart}` : ""}`),
    render: (node, state, t, select, locale) => {
      const week = state.data;
      node.append(el("h2", {}, t("page.schedule.title")));
      if (!week) return node.append(hint(t("page.loading")));
      if (week.error) return node.append(refused(week.error, t, "page.unavailable"));
      const last = week.days[week.days.length - 1];
      node.append(
        el(
          "div",
          { class: "week-nav" },
          el("button", { type: "button", testid: "week-prev", onclick: () => select({ weekStart: addDays(week.weekStart, -7), data: null, day: null, session: null }, true) }, t("page.schedule.previous")),
          el("strong", { testid: "week-range" }, `${dayLabel(week.weekStart, locale, { day: "numeric", month: "short" })} – ${dayLabel(last, locale, { day: "numeric", month: "short" })}`),
          el("button", { type: "button", testid: "week-next", onclick: () => select({ weekStart: addDays(week.weekStart, 7), data: null, day: null, session: null }, true) }, t("page.schedule.next")),
        ),
      );
      const grid = el("div", { class: "week" });
      for (const iso of week.days) {
        const sessions = week.sessions.filter((s) => s.date === iso).sort((a, b) => a.start.localeCompare(b.start));
        const column = el(
          "section",
          { class: `day${state.day === iso ? " selected" : ""}${iso === week.today ? " today" : ""}`, testid: `day-${iso}` },
          el("button", { type: "button", class: "day-head", onclick: () => select({ day: state.day === iso ? null : iso }) }, dayLabel(iso, locale)),
        );
        for (const s of sessions) {
          const coaches = (s.coaches || []).map((c) => c.name).join(", ");
          const full = s.capacity && s.booked >= s.capacity;
          const label = `${s.classType} ${dayLabel(iso, locale)} ${s.start}`;
          column.append(
            el(
              "button",
              {
                type: "button",
                class: `session ${s.status}${state.session?.id === s.id ? " selected" : ""}`,
                testid: "session",
                "data-session-id": s.id,
                "data-status": s.status,
                dir: "auto",
                onclick: () => select({ session: state.session?.id === s.id ? null : { id: s.id, label } }),
              },
              el("span", { class: "time" }, s.start),
              el("span", { class: "class-type" }, s.classType),
              coaches ? el("span", { class: "coach" }, coaches) : null,
              el(
                "span",
                { class: `fill${full ? " full" : ""}`, testid: "session-fill" },
                s.capacity ? t("page.schedule.booked", { booked: s.booked, capacity: s.capacity }) : t("page.schedule.bookedOpen", { booked: s.booked }),
                s.waitlisted ? ` · ${t("page.schedule.waitlist", { count: s.waitlisted })}` : "",
              ),
              s.status !== "published" ? el("span", { class: `badge ${s.status}`, testid: "session-status" }, t(`session.${s.status}`)) : null,
            ),
          );
        }
        if (!sessions.length) column.append(el("p", { class: "empty" }, t("page.schedule.none")));
        grid.append(column);
      }
      node.append(grid, hint(t("page.schedule.hint")));
    },
  },
  {
    id: "members",
    pathname: "/dashboard/members",
    title: "page.members.title",
    prompts: ["saar", "batch", "plain"],
    refreshOn: ["memberships", "bookings", "leads"],
    selection: (state) => (state.member ? { membershipId: state.member.id, memberName: state.member.name } : {}),
    load: (api) => api("/gym/members"),
    render: (node, state, t, select, locale, tn) => {
      node.append(el("h2", {}, t("page.members.title")));
      const data = state.data;
      if (!data) return node.append(hint(t("page.loading")));
      if (data.error) return node.append(refused(data.error, t, "page.unavailable"));
      const rows = data.members.map((m) =>
        el(
          "tr",
          {
            testid: "member-row",
            class: state.member?.id === m.memberId ? "selected" : "",
            onclick: () => select({ member: state.member?.id === m.memberId ? null : { id: m.memberId, name: m.name } }),
          },
          el("td", { dir: "auto" }, m.name),
          el("td", { dir: "auto" }, m.plan ? m.plan.name : t("page.members.noPlan")),
          el("td", {}, t(`member.${m.plan ? m.plan.subscription : m.status}`)),
        ),
      );
      node.append(
        el("p", { class: "count", testid: "member-count" }, tn("page.members.count", data.members.length)),
        el(
          "table",
          { class: "members" },
          el("thead", {}, el("tr", {}, el("th", {}, t("page.members.name")), el("th", {}, t("page.members.plan")), el("th", {}, t("page.members.status")))),
          el("tbody", {}, rows),
        ),
        hint(t("page.members.hint")),
      );
    },
  },
  {
    id: "workout",
    pathname: "/dashboard/workouts/murph",
    title: "page.workout.title",
    prompts: ["plain", "long", "unknown"],
    refreshOn: [],
    selection: () => ({ workoutName: "Murph" }),
    render: (node, state, t) => {
      node.append(el("h2", {}, "Murph"));
      node.append(
        el("pre", { class: "workout" }, "For time (with a 20 lb vest):\n1 mile run\n100 pull-ups\n200 push-ups\n300 air squats\n1 mile run"),
        hint(t("page.workout.hint")),
      );
    },
  },
  {
    id: "leads",
    requiresRouter: "leads",
    pathname: "/dashboard/leads",
    title: "page.leads.title",
    prompts: ["plain", "unknown"],
    refreshOn: ["leads", "inbox", "tasks"],
    // the board as the dashboard routes it: /dashboard/leads/<pipelineId>[/<leadId>]
    path: (state) => ["/dashboard/leads", state.pipeline?.id, state.lead?.id].filter(Boolean).join("/"),
    // the entries the leads page registers (spotter.agent.run.lead_page_seeds reads them)
    selection: (state) => ({
      ...(state.pipeline ? { "leads:pipeline": { pipelineId: state.pipeline.id, pipelineName: state.pipeline.name } } : {}),
      ...(state.lead ? { "leads:lead": { leadId: state.lead.id } } : {}),
    }),
    load: (api) => api("/gym/leads"),
    render: (node, state, t, select) => {
      node.append(el("h2", {}, t("page.leads.title")));
      const board = state.data;
      if (!board) return node.append(hint(t("page.loading")));
      if (board.error) return node.append(refused(board.error, t, "page.unavailable"));
      const pipeline =
        board.pipelines.find((p) => p.id === state.pipeline?.id) || board.pipelines.find((p) => p.isDefault) || board.pipelines[0];
      if (!pipeline) return;
      if (!state.pipeline) state.pipeline = { id: pipeline.id, name: pipeline.name };
      const tabs = el(
        "div",
        { class: "pipelines" },
        board.pipelines.map((p) =>
          el("button", { type: "button", class: p.id === pipeline.id ? "pipeline selected" : "pipeline", testid: "pipeline-tab", onclick: () => select({ pipeline: { id: p.id, name: p.name }, lead: null }) }, p.name),
        ),
      );
      const columns = el(
        "div",
        { class: "stages" },
        pipeline.stages.map((stage) =>
          el(
            "section",
            { class: "stage" },
            el("h3", {}, stage.name),
            board.leads
              .filter((l) => l.stage.id === stage.id)
              .map((lead) =>
                el(
                  "button",
                  {
                    type: "button",
                    testid: "lead-card",
                    class: state.lead?.id === lead.id ? "lead selected" : "lead",
                    dir: "auto",
                    title: lead.source || null,
                    onclick: () => select({ lead: state.lead?.id === lead.id ? null : { id: lead.id, name: lead.name } }),
                  },
                  lead.name,
                ),
              ),
          ),
        ),
      );
      node.append(tabs, columns, hint(t("page.leads.hint")));
    },
  },
];

export function visiblePages(routers) {
  return PAGES.filter((page) => !page.requiresRouter || routers.includes(page.requiresRouter));
}
