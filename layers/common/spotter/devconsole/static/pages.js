// The fake dashboard pages, as data. A page names its pathname, the selection it contributes to
// every message (pageContext), its suggested prompts (keys of prompt.* in i18n/*.json) and,
// optionally, the router it needs: a page whose router is not in GET /dev/info's `routers` is
// not shown (the leads board appears once a `leads` router exists).
import { DASHBOARD } from "./insights.js";

function isoDay(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function weekOf(today) {
  const monday = new Date(today);
  monday.setDate(today.getDate() - ((today.getDay() + 6) % 7));
  return Array.from({ length: 7 }, (_, i) => {
    const day = new Date(monday);
    day.setDate(monday.getDate() + i);
    return day;
  });
}

export const PAGES = [
  {
    id: "schedule",
    pathname: "/dashboard/schedule",
    title: "page.schedule.title",
    prompts: ["schedule", "cancel", "saar", "batch", "overview"],
    // the week shown; a clicked day becomes selection.date
    selection: (state) => ({
      weekStart: isoDay(weekOf(new Date())[0]),
      ...(state.day ? { date: state.day } : {}),
    }),
    render: (el, state, t, select) => {
      el.append(Object.assign(document.createElement("h2"), { textContent: t("page.schedule.title") }));
      const grid = document.createElement("div");
      grid.className = "week";
      for (const day of weekOf(new Date())) {
        const iso = isoDay(day);
        const cell = document.createElement("button");
        cell.type = "button";
        cell.dataset.testid = `day-${iso}`;
        cell.className = state.day === iso ? "day selected" : "day";
        cell.textContent = day.toLocaleDateString(document.documentElement.lang, { weekday: "short", day: "numeric", month: "short" });
        cell.addEventListener("click", () => select({ day: state.day === iso ? null : iso }));
        grid.append(cell);
      }
      el.append(grid, Object.assign(document.createElement("p"), { className: "hint", textContent: t("page.schedule.hint") }));
    },
  },
  {
    id: "workout",
    pathname: "/dashboard/workouts/murph",
    title: "page.workout.title",
    prompts: ["plain", "long", "unknown"],
    selection: () => ({ workoutName: "Murph" }),
    render: (el, state, t) => {
      el.append(Object.assign(document.createElement("h2"), { textContent: "Murph" }));
      const pre = document.createElement("pre");
      pre.className = "workout";
      pre.textContent = "For time (with a 20 lb vest):\n1 mile run\n100 pull-ups\n200 push-ups\n300 air squats\n1 mile run";
      el.append(pre, Object.assign(document.createElement("p"), { className: "hint", textContent: t("page.workout.hint") }));
    },
  },
  {
    id: "leads",
    requiresRouter: "leads",
    pathname: "/dashboard/leads",
    title: "page.leads.title",
    prompts: ["plain", "unknown"],
    // the board as the dashboard routes it: /dashboard/leads/<pipelineId>[/<leadId>]
    path: (state) => ["/dashboard/leads", state.pipeline?.id, state.lead?.id].filter(Boolean).join("/"),
    // the entries the leads page registers (spotter.agent.run.lead_page_seeds reads them)
    selection: (state) => ({
      ...(state.pipeline ? { "leads:pipeline": { pipelineId: state.pipeline.id, pipelineName: state.pipeline.name } } : {}),
      ...(state.lead ? { "leads:lead": { leadId: state.lead.id } } : {}),
    }),
    load: (api) => api("/dev/leads"),
    render: (el, state, t, select) => {
      el.append(Object.assign(document.createElement("h2"), { textContent: t("page.leads.title") }));
      const board = state.data;
      if (!board) {
        el.append(Object.assign(document.createElement("p"), { className: "hint", textContent: t("page.leads.loading") }));
        return;
      }
      if (!board.ok) {
        // the tool's own refusal (a member, or a tier without lead_management), shown as text
        el.append(Object.assign(document.createElement("p"), { className: "hint", testid: "leads-refused", textContent: board.error?.message || t("page.leads.unavailable") }));
        return;
      }
      const pipeline =
        board.pipelines.find((p) => p.id === state.pipeline?.id) || board.pipelines.find((p) => p.isDefault) || board.pipelines[0];
      if (!pipeline) return;
      if (!state.pipeline) state.pipeline = { id: pipeline.id, name: pipeline.name };
      const tabs = document.createElement("div");
      tabs.className = "pipelines";
      for (const p of board.pipelines) {
        const tab = document.createElement("button");
        tab.type = "button";
        tab.className = p.id === pipeline.id ? "pipeline selected" : "pipeline";
        tab.dataset.testid = "pipeline-tab";
        tab.textContent = p.name;
        tab.addEventListener("click", () => select({ pipeline: { id: p.id, name: p.name }, lead: null }));
        tabs.append(tab);
      }
      const columns = document.createElement("div");
      columns.className = "stages";
      for (const stage of pipeline.stages) {
        const column = document.createElement("section");
        column.className = "stage";
        column.append(Object.assign(document.createElement("h3"), { textContent: stage.name }));
        for (const lead of board.leads.filter((l) => l.stage.id === stage.id)) {
          const card = document.createElement("button");
          card.type = "button";
          card.dataset.testid = "lead-card";
          card.className = state.lead?.id === lead.id ? "lead selected" : "lead";
          card.dir = "auto";
          card.textContent = lead.name;
          if (lead.source) card.title = lead.source;
          card.addEventListener("click", () => select({ lead: state.lead?.id === lead.id ? null : { id: lead.id, name: lead.name } }));
          column.append(card);
        }
        columns.append(column);
      }
      el.append(tabs, columns, Object.assign(document.createElement("p"), { className: "hint", textContent: t("page.leads.hint") }));
    },
  },
  DASHBOARD,
];

export function visiblePages(routers) {
  return PAGES.filter((page) => !page.requiresRouter || routers.includes(page.requiresRouter));
}
