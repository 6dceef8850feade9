// Spotter dev console: the dashboard's assistant, in plain JS (no build step).
// Rule: every string that comes from the server is put in the page as text (textContent),
// never as HTML.
import { visiblePages } from "./pages.js";

const $ = (sel) => document.querySelector(sel);
const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

const state = {
  info: null,
  locale: localStorage.getItem("spotter.locale") || "en",
  role: localStorage.getItem("spotter.role") || "owner",
  token: null,
  strings: {},
  pages: [],
  page: null,
  pageState: {},
  conversationId: null,
  streaming: false,
  cards: new Map(), // toolUseId -> card element
  waiting: new Map(), // toolUseId -> {messageKey, kind} for confirmation cards awaiting a decision
  bubble: null, // the assistant bubble text arrives in
  blocked: false,
};

// --- i18n -------------------------------------------------------------------------------------

function t(key, values = {}) {
  const template = state.strings[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

async function loadStrings(locale) {
  const response = await fetch(`i18n/${locale}.json`);
  state.strings = await response.json();
  document.documentElement.lang = locale;
  document.documentElement.dir = locale === "he" ? "rtl" : "ltr";
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of document.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
}

// --- tiny DOM helper: children are nodes or text, never markup ---------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "testid") el.dataset.testid = value;
    else if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// --- HTTP -------------------------------------------------------------------------------------

function headers(json = true) {
  const out = { authorization: `Bearer ${state.token}`, "x-locale": state.locale };
  if (json) out["content-type"] = "application/json";
  return out;
}

async function api(path) {
  const response = await fetch(path, { headers: headers(false) });
  const body = await response.json();
  if (!response.ok) throw Object.assign(new Error(body.message), { body });
  return body;
}

// POST that answers SSE (or a JSON error before the stream); each event goes to `onEvent`.
async function stream(path, body) {
  state.streaming = true;
  updateComposer();
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: headers(),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok || !(response.headers.get("content-type") || "").includes("text/event-stream")) {
      const error = await response.json().catch(() => ({}));
      showError({ code: error.code || `http_${response.status}`, message: error.message || response.statusText, traceId: error.traceId || response.headers.get("x-trace-id") });
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const chunk = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = chunk.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (data) onEvent(JSON.parse(data));
      }
    }
  } catch (error) {
    showError({ code: "network_error", message: String(error.message || error), traceId: null });
  } finally {
    state.streaming = false;
    state.bubble = null;
    updateComposer();
    refreshBatchBar();
  }
}

// --- the timeline -------------------------------------------------------------------------------

function timeline() {
  return byTestId("timeline");
}

function append(node) {
  timeline().append(node);
  timeline().scrollTop = timeline().scrollHeight;
  return node;
}

function userBubble(text) {
  return append(h("div", { class: "msg user", testid: "user-message", dir: "auto" }, text));
}

function assistantBubble(text = "") {
  return append(h("div", { class: "msg assistant", testid: "assistant-message", dir: "auto" }, text));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A short line for a tool's output: counts of lists and a few plain fields, ids left out.
function summarize(value) {
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value).slice(0, 120);
  const parts = [];
  for (const [key, item] of Object.entries(value)) {
    if (Array.isArray(item)) parts.push(`${key}: ${item.length}`);
    else if (item === null || typeof item === "object" || UUID.test(String(item))) continue;
    else parts.push(`${key}: ${item}`);
    if (parts.length === 3) break;
  }
  const text = parts.join(" · ");
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

const ROW_STATES = {
  // stored status / error code -> what a person reads
  superseded: "superseded",
  interrupted: "interrupted",
  interrupted_not_applied: "interrupted",
  interrupted_outcome_unknown: "interrupted",
  rejected_by_user: "rejected",
  skipped_after_rejection: "skipped",
};

function setStatus(card, status) {
  card.dataset.status = status;
  card.querySelector(".status").textContent = t(`status.${status}`);
}

function toolCard(toolUseId, router, action) {
  const card = h(
    "div",
    { class: "card tool", testid: "tool-card", "data-tool-use-id": toolUseId },
    h("div", { class: "card-head" }, h("code", { class: "name" }, `${router}.${action}`), h("span", { class: "status" })),
    h("div", { class: "summary", testid: "tool-summary" }),
    h("div", { class: "actions" }),
  );
  state.cards.set(toolUseId, card);
  setStatus(card, "running");
  return append(card);
}

function completeCard(card, event) {
  const code = event.error && event.error.code;
  const status = event.ok ? "succeeded" : ROW_STATES[code] || "failed";
  setStatus(card, status);
  card.querySelector(".summary").textContent = event.ok ? summarize(event.output) : [code, event.error && event.error.message].filter(Boolean).join(": ");
  const actions = card.querySelector(".actions");
  actions.replaceChildren();
  if (event.ok && event.inverseAvailable) {
    actions.append(h("button", { type: "button", class: "undo", testid: "undo", onclick: () => undo(card.dataset.toolUseId) }, t("tool.undo")));
  }
}

function confirmationCard(event, messageKey) {
  const c = event.confirmation || {};
  const args = (c.arguments || []).map((a) => h("li", {}, h("code", {}, a.field), " = ", JSON.stringify(a.value)));
  const card = h(
    "div",
    { class: `card confirm ${event.confirm}`, testid: "confirmation-card", "data-tool-use-id": event.toolUseId },
    h("div", { class: "card-head" }, h("code", { class: "name" }, `${event.router}.${event.action}`), h("span", { class: `badge ${event.confirm}` }, t(`confirm.${event.confirm}`)), h("span", { class: "status" })),
    c.target ? h("p", { class: "target", testid: "confirm-target" }, c.target) : null,
    c.affectedCount !== undefined && c.affectedCount !== null ? h("p", { class: "affected", testid: "confirm-affected" }, t("confirm.affected", { count: c.affectedCount })) : null,
    c.consequences && c.consequences.length ? h("ul", { class: "consequences", testid: "confirm-consequences" }, c.consequences.map((key) => h("li", {}, state.strings[`consequence.${key}`] ?? key))) : null,
    c.changes && c.changes.length ? h("pre", { class: "changes", testid: "confirm-changes", dir: "ltr" }, JSON.stringify(c.changes, null, 2)) : null,
    c.outbound ? h("div", {}, h("strong", {}, t("confirm.outbound")), h("pre", { class: "outbound", testid: "confirm-outbound", dir: "ltr" }, JSON.stringify(c.outbound, null, 2))) : null,
    h("details", { testid: "confirm-arguments" }, h("summary", {}, t("confirm.arguments")), h("ul", { dir: "ltr" }, args)),
    h("div", { class: "summary", testid: "tool-summary" }),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "button", class: "approve", testid: "approve", onclick: () => decide([event.toolUseId], true) }, t("confirm.approve")),
      h("button", { type: "button", class: "reject", testid: "reject", onclick: () => decide([event.toolUseId], false) }, t("confirm.reject")),
    ),
  );
  state.cards.set(event.toolUseId, card);
  state.waiting.set(event.toolUseId, { messageKey });
  setStatus(card, "awaiting");
  refreshBatchBar();
  return append(card);
}

function pickerCard(event) {
  const card = h(
    "div",
    { class: "card picker", testid: "picker-card", "data-tool-use-id": event.toolUseId },
    h("div", { class: "card-head" }, h("strong", { class: "prompt" }, event.prompt), h("span", { class: "status" })),
    h("div", { class: "summary", testid: "tool-summary" }),
    h(
      "div",
      { class: "actions candidates" },
      (event.candidates || []).map((c) =>
        h("button", { type: "button", class: "candidate", testid: "pick-candidate", onclick: () => pick(event.toolUseId, c.id) }, h("span", {}, c.label), c.sublabel ? h("small", {}, c.sublabel) : null),
      ),
    ),
  );
  state.cards.set(event.toolUseId, card);
  setStatus(card, "awaiting");
  return append(card);
}

function notice(kind, text) {
  return append(h("div", { class: `notice ${kind}`, testid: `notice-${kind}` }, text));
}

function showError(error) {
  if (error.code === "agent_budget_exceeded") {
    state.blocked = true;
    byTestId("budget-message").textContent = error.message;
    byTestId("budget-blocker").classList.remove("hidden");
    updateComposer();
  }
  const trace = error.traceId || "";
  const row = h(
    "div",
    { class: "notice error", testid: "error-notice", "data-code": error.code },
    h("strong", {}, error.message || error.code),
    h("div", { class: "trace" }, h("code", {}, error.code), " · ", t("error.trace"), " ", h("code", { testid: "trace-id" }, trace),
      trace ? h("button", { type: "button", class: "copy", testid: "copy-trace", onclick: (e) => copy(trace, e.target) }, t("error.copy")) : null),
  );
  append(row);
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h("textarea", {}, text);
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  button.textContent = t("error.copied");
}

let messageCounter = 0;

function onEvent(event) {
  switch (event.type) {
    case "conversation_started":
      state.conversationId = event.conversationId;
      refreshConversations();
      break;
    case "text_delta":
      if (!state.bubble) state.bubble = assistantBubble();
      state.bubble.textContent += event.delta;
      timeline().scrollTop = timeline().scrollHeight;
      break;
    case "message_done":
      state.bubble = null;
      messageCounter += 1;
      break;
    case "tool_started": {
      const original = event.toolUseId.startsWith("undo:") ? state.cards.get(event.toolUseId.slice(5)) : null;
      if (original) setStatus(original, "undoing");
      else if (state.cards.has(event.toolUseId)) setStatus(state.cards.get(event.toolUseId), "running");
      else toolCard(event.toolUseId, event.router, event.action);
      break;
    }
    case "tool_completed": {
      if (event.toolUseId.startsWith("undo:")) {
        const original = state.cards.get(event.toolUseId.slice(5));
        if (original) {
          setStatus(original, event.ok ? "undone" : "succeeded");
          original.querySelector(".actions").replaceChildren();
          if (!event.ok) showError({ code: event.error.code, message: event.error.message, traceId: null });
        }
        break;
      }
      const card = state.cards.get(event.toolUseId) || toolCard(event.toolUseId, event.router, event.action);
      state.waiting.delete(event.toolUseId);
      completeCard(card, event);
      refreshBatchBar();
      break;
    }
    case "confirmation_pending":
      confirmationCard(event, messageCounter);
      break;
    case "disambiguation_pending":
      pickerCard(event);
      break;
    case "compaction_started":
      notice("compacting", t("compaction.started")).append(h("span", { class: "spinner" }));
      refreshConversations();
      break;
    case "compaction_finished":
      for (const el of document.querySelectorAll('[data-testid="notice-compacting"] .spinner')) el.remove();
      notice("compacted", t(event.compacted ? "compaction.done" : "compaction.skipped", { count: event.summarizedMessages }));
      break;
    case "error":
      showError(event);
      break;
    case "done":
      if (event.conversationId) state.conversationId = event.conversationId;
      refreshConversations();
      refreshUsage();
      break;
    default:
      break;
  }
}

// --- actions -----------------------------------------------------------------------------------

function pageContext() {
  const selection = state.page.selection(state.pageState);
  const pathname = state.page.path ? state.page.path(state.pageState) : state.page.pathname;
  return { pathname, selection };
}

async function send(text) {
  if (!text.trim() || state.streaming || state.blocked) return;
  userBubble(text);
  const body = { text, pageContext: pageContext() };
  if (state.conversationId) body.conversationId = state.conversationId;
  // anything still waiting is superseded by a new message (the server fails those calls)
  for (const id of state.waiting.keys()) lockCard(id, "superseded");
  state.waiting.clear();
  refreshBatchBar();
  await stream("/agent/messages", body);
}

function lockCard(id, status) {
  const card = state.cards.get(id);
  if (!card) return;
  card.querySelector(".actions").replaceChildren();
  if (status) setStatus(card, status);
}

async function decide(ids, approved) {
  for (const id of ids) lockCard(id, approved ? "approved" : "rejecting");
  const path = `/agent/conversations/${state.conversationId}`;
  if (ids.length === 1) await stream(`${path}/confirm/${encodeURIComponent(ids[0])}`, { approved });
  else await stream(`${path}/confirm-batch`, { decisions: ids.map((toolUseId) => ({ toolUseId, approved })) });
}

async function pick(toolUseId, id) {
  lockCard(toolUseId, "picked");
  await stream(`/agent/conversations/${state.conversationId}/pick/${encodeURIComponent(toolUseId)}`, { id });
}

async function undo(toolUseId) {
  lockCard(toolUseId, null);
  await stream(`/agent/conversations/${state.conversationId}/undo/${encodeURIComponent(toolUseId)}`);
}

function refreshBatchBar() {
  const bar = byTestId("batch-bar");
  const ids = [...state.waiting.keys()];
  bar.classList.toggle("hidden", ids.length < 2 || state.streaming);
  byTestId("batch-count").textContent = t("confirm.waiting", { count: ids.length });
}

function updateComposer() {
  const member = state.role === "member";
  byTestId("composer").classList.toggle("hidden", member);
  byTestId("staff-only").classList.toggle("hidden", !member);
  byTestId("send").disabled = state.streaming || state.blocked;
  byTestId("composer-input").disabled = state.blocked;
  for (const b of document.querySelectorAll('[data-testid="suggested-prompt"]')) b.disabled = state.streaming || state.blocked;
}

// --- conversations, usage ----------------------------------------------------------------------

async function refreshConversations() {
  let body;
  try {
    body = await api("/agent/conversations");
  } catch (error) {
    return;
  }
  const list = byTestId("conversation-list");
  list.replaceChildren(
    ...body.conversations.map((c) =>
      h(
        "li",
        { class: c.id === state.conversationId ? "active" : "", testid: "conversation", "data-id": c.id },
        h("button", { type: "button", dir: "auto", onclick: () => openConversation(c.id) }, c.title || t("conversations.untitled")),
        c.compacting ? h("span", { class: "spinner", testid: "compacting", title: t("compaction.started") }) : null,
      ),
    ),
  );
  const current = body.conversations.find((c) => c.id === state.conversationId);
  byTestId("conversation-title").textContent = current ? current.title || t("conversations.untitled") : t("conversations.new");
}

async function refreshUsage() {
  const footer = byTestId("usage-footer");
  let u;
  try {
    u = await api("/agent/usage");
  } catch (error) {
    footer.textContent = "";
    return;
  }
  const usd = (micros) => `$${(micros / 1e6).toFixed(2)}`;
  footer.replaceChildren(
    h("span", { testid: "usage-spent" }, u.unmetered ? t("usage.unmetered", { spent: usd(u.spentUsdMicros) }) : t("usage.spent", { spent: usd(u.spentUsdMicros), cap: usd(u.capUsdMicros) })),
  );
  if (u.percentUsed !== null && u.percentUsed !== undefined && u.percentUsed >= 0.8) {
    const key = state.role === "owner" ? "usage.upgrade" : "usage.askOwner";
    footer.append(h("span", { class: "upsell", testid: "upgrade-hint" }, t(key, { percent: Math.round(u.percentUsed * 100) })));
  }
}

function resetTimeline() {
  timeline().replaceChildren();
  state.cards.clear();
  state.waiting.clear();
  state.bubble = null;
  refreshBatchBar();
}

function storedRow(tool) {
  // one stored call as a person sees it after a reload
  if (tool.awaitingUser && tool.kind === "user_picker") {
    const args = (tool.input && (tool.input.args || tool.input)) || {};
    return pickerCard({ toolUseId: tool.toolUseId, prompt: args.prompt, candidates: args.candidates });
  }
  if (tool.awaitingUser) {
    return confirmationCard({ toolUseId: tool.toolUseId, router: tool.router, action: tool.action, confirm: tool.confirm, confirmation: tool.confirmation }, tool.messageId);
  }
  const card = toolCard(tool.toolUseId, tool.router, tool.action);
  const code = tool.error && tool.error.code;
  let status = tool.status === "succeeded" ? "succeeded" : ROW_STATES[code] || ROW_STATES[tool.status] || tool.status;
  if (tool.discarded) status = "discarded";
  if (tool.undone) status = "undone";
  if (tool.status === "pending") status = "held";
  setStatus(card, status);
  card.querySelector(".summary").textContent = tool.status === "succeeded" ? summarize(tool.output) : [code, tool.error && tool.error.message].filter(Boolean).join(": ");
  return card;
}

async function openConversation(id) {
  if (state.streaming) return;
  const body = await api(`/agent/conversations/${id}`);
  state.conversationId = id;
  resetTimeline();
  const byMessage = new Map();
  for (const tool of body.toolExecutions) {
    if (!byMessage.has(tool.messageId)) byMessage.set(tool.messageId, []);
    byMessage.get(tool.messageId).push(tool);
  }
  for (const message of body.messages) {
    if (message.role === "user" && message.text) userBubble(message.text);
    if (message.role === "assistant") {
      if (message.text) assistantBubble(message.text);
      for (const tool of byMessage.get(message.id) || []) storedRow(tool);
    }
  }
  if (body.compacting) notice("compacting", t("compaction.started")).append(h("span", { class: "spinner" }));
  refreshBatchBar();
  refreshConversations();
}

function newConversation() {
  if (state.streaming) return;
  state.conversationId = null;
  resetTimeline();
  refreshConversations();
}

// --- pages, sheet, identity --------------------------------------------------------------------

function renderNav() {
  const nav = byTestId("page-nav");
  nav.replaceChildren(
    ...state.pages.map((page) =>
      h("a", { href: `#${page.pathname}`, class: page === state.page ? "active" : "", testid: `nav-${page.id}` }, t(page.title)),
    ),
  );
}

function renderPage() {
  const el = byTestId("page");
  el.replaceChildren();
  el.dataset.pathname = state.page.pathname;
  state.page.render(el, state.pageState, t, (change) => {
    Object.assign(state.pageState, change);
    renderPage();
  });
  el.append(h("p", { class: "context", testid: "page-context" }, JSON.stringify(pageContext())));
  const prompts = byTestId("suggested-prompts");
  prompts.replaceChildren(
    ...state.page.prompts.map((key) =>
      h("button", { type: "button", class: "prompt", testid: "suggested-prompt", "data-prompt": key, onclick: () => send(t(`prompt.${key}`)) }, t(`prompt.${key}`)),
    ),
  );
  renderNav();
  updateComposer();
}

function route() {
  const pathname = location.hash.replace(/^#/, "") || state.pages[0].pathname;
  const page = state.pages.find((p) => p.pathname === pathname) || state.pages[0];
  if (page !== state.page) state.pageState = {};
  state.page = page;
  renderPage();
  loadPage(page);
}

// A page with data (the leads board) asks for it as the signed-in user; a refusal is data too.
async function loadPage(page) {
  if (!page.load || !state.token) return;
  try {
    const data = await page.load(api);
    if (state.page === page) {
      state.pageState.data = data;
      renderPage();
    }
  } catch (error) {
    if (state.page === page) {
      state.pageState.data = { ok: false, error: error.body || { message: String(error.message) } };
      renderPage();
    }
  }
}

function toggleSheet(open) {
  const sheet = byTestId("sheet");
  const show = open ?? sheet.classList.contains("closed");
  sheet.classList.toggle("closed", !show);
  sheet.setAttribute("aria-hidden", String(!show));
  if (show) byTestId("composer-input").focus();
}

async function signIn(role) {
  const response = await fetch("/dev/token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ role }) });
  const body = await response.json();
  state.role = role;
  state.token = body.token;
  localStorage.setItem("spotter.role", role);
  state.blocked = false;
  byTestId("budget-blocker").classList.add("hidden");
  newConversation();
  refreshUsage();
  updateComposer();
  if (state.page) {
    state.pageState = {};
    renderPage();
    loadPage(state.page);
  }
}

function renderModelLabel() {
  const model = state.info.model;
  const label = byTestId("model-label");
  label.textContent = t(`model.${model.kind}`);
  label.dataset.kind = model.kind;
  label.classList.toggle("offline", model.offline);
}

async function main() {
  state.info = await (await fetch("/dev/info")).json();
  state.pages = visiblePages(state.info.routers);
  await loadStrings(state.locale);
  byTestId("locale-picker").value = state.locale;
  const users = byTestId("user-picker");
  users.replaceChildren(...state.info.users.map((u) => h("option", { value: u.role }, `${u.name} (${u.role})`)));
  users.value = state.role;
  users.addEventListener("change", () => signIn(users.value));
  byTestId("locale-picker").addEventListener("change", async (e) => {
    state.locale = e.target.value;
    localStorage.setItem("spotter.locale", state.locale);
    await loadStrings(state.locale);
    renderModelLabel();
    renderPage();
    refreshUsage();
    refreshBatchBar();
  });
  byTestId("launcher").addEventListener("click", () => toggleSheet());
  byTestId("close-sheet").addEventListener("click", () => toggleSheet(false));
  byTestId("new-conversation").addEventListener("click", newConversation);
  byTestId("budget-dismiss").addEventListener("click", () => byTestId("budget-blocker").classList.add("hidden"));
  byTestId("approve-all").addEventListener("click", () => decide([...state.waiting.keys()], true));
  byTestId("reject-all").addEventListener("click", () => decide([...state.waiting.keys()], false));
  document.addEventListener("keydown", (e) => {
    if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === "k") {
      e.preventDefault();
      toggleSheet();
    }
  });
  const input = byTestId("composer-input");
  byTestId("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value;
    input.value = "";
    send(text);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      byTestId("composer").requestSubmit();
    }
  });
  window.addEventListener("hashchange", route);
  // a page asks Spotter something (the dashboard's insight cards, insights.js): the sheet opens
  // on a fresh conversation, sent with the page's selection
  document.addEventListener("spotter:ask", (e) => {
    if (state.streaming) return;
    if (e.detail.fresh) newConversation();
    toggleSheet(true);
    send(e.detail.text);
  });
  renderModelLabel();
  route();
  await signIn(state.role);
  document.body.dataset.ready = "true";
}

main();
