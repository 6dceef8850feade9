// The dashboard page: the insight cards of GET /agent/insights (what the caller's role sees),
// each opening Spotter on that insight. A click makes the insight this page's selection
// ({insight: kind}: the server adds its <insight_playbook> to the turn) and asks Spotter about it
// through the console's "spotter:ask" event, so this file needs nothing of console.js.
//
// Rule, as in console.js: every string from the server is put in the page as text, never as HTML.

const SHOWN_SUBJECTS = 4;

function node(tag, props = {}, ...children) {
  const el = Object.assign(document.createElement(tag), props.text ? { textContent: props.text } : {});
  if (props.class) el.className = props.class;
  if (props.testid) el.dataset.testid = props.testid;
  if (props.kind) el.dataset.kind = props.kind;
  el.append(...children);
  return el;
}

// What a card says of one subject, from the figures the server computed.
function detail(subject, t) {
  if (subject.daysSinceLastVisit !== undefined) return t("insight.detail.days", { days: subject.daysSinceLastVisit });
  if (subject.hoursWaiting !== undefined) return t("insight.detail.hours", { hours: subject.hoursWaiting });
  if (subject.fillRate !== undefined) return `${Math.round(subject.fillRate * 100)}%`;
  if (subject.waitlisted !== undefined) return t("insight.detail.waiting", { count: subject.waitlisted });
  if (subject.creditsLeft !== undefined) return t("insight.detail.credits", { count: subject.creditsLeft });
  return subject.plan || subject.stage || "";
}

function card(insight, state, t, tn, ask) {
  const selected = state.insight === insight.kind;
  const el = node("button", { class: `insight${selected ? " selected" : ""}${insight.count ? "" : " clear"}`, testid: "insight-card", kind: insight.kind });
  el.type = "button";
  el.append(
    node("span", { class: "insight-count", text: String(insight.count) }),
    node("strong", { class: "insight-title", text: t(`insight.${insight.kind}.title`) }),
  );
  const list = node("ul", { class: "insight-subjects" });
  for (const subject of insight.subjects.slice(0, SHOWN_SUBJECTS)) {
    const item = node("li", { text: subject.name });
    item.dir = "auto";
    const more = detail(subject, t);
    if (more) item.append(node("span", { class: "insight-detail", text: ` · ${more}` }));
    list.append(item);
  }
  if (insight.count > SHOWN_SUBJECTS) list.append(node("li", { class: "insight-more", text: tn("insight.more", insight.count - SHOWN_SUBJECTS) }));
  if (!insight.count) list.append(node("li", { class: "insight-more", text: t("insight.clear") }));
  el.append(list);
  if (insight.count) {
    el.append(node("span", { class: "insight-open", text: t("insight.open") }));
    el.addEventListener("click", () => ask(insight));
  } else {
    el.disabled = true;
  }
  return el;
}

export const DASHBOARD = {
  id: "dashboard",
  pathname: "/dashboard",
  title: "page.dashboard.title",
  prompts: [],
  refreshOn: [], // the cards are the server's, cached for a few minutes: a write changes none
  // the card last opened: every message of its conversation names the insight
  selection: (state) => (state.insight ? { insight: state.insight } : {}),
  load: (api) => api("/agent/insights"),
  render: (el, state, t, select, locale, tn) => {
    el.append(node("h2", { text: t("page.dashboard.title") }));
    const board = state.data;
    if (!board) {
      el.append(node("p", { class: "hint", text: t("page.loading") }));
      return;
    }
    if (board.error) {
      // the API's own refusal (a member), shown as text
      el.append(node("p", { class: "hint", testid: "insights-refused", text: board.error?.message || t("page.dashboard.unavailable") }));
      return;
    }
    const ask = (insight) => {
      select({ insight: insight.kind });
      document.dispatchEvent(new CustomEvent("spotter:ask", { detail: { text: t(`insight.${insight.kind}.ask`), fresh: true } }));
    };
    const grid = node("div", { class: "insights", testid: "insights" });
    for (const insight of board.insights) grid.append(card(insight, state, t, tn, ask));
    el.append(grid, node("p", { class: "hint", text: t("page.dashboard.hint") }));
  },
};
