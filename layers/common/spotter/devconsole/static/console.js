// Spotter dev console: the dashboard's assistant, in plain JS (no build step).
// Rule: every string that comes from the server is put in the page as text (textContent),
// never as HTML. A card's words (title, summary, labels) come from the server, in the reader's
// language (spotter.tools.summaries); the console never shows a key it was sent.
import { promptsFor, visiblePages } from "./pages.js";

const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);

const state = {
  info: null,
  locale: localStorage.getItem("spotter.locale") || "en",
  role: localStorage.getItem("spotter.role") || "owner",
  token: null,
  abilities: new Set(),
  strings: {},
  pages: [],
  page: null,
  pageState: {},
  conversationId: null,
  streaming: false,
  cards: new Map(), // toolUseId -> card element
  waiting: new Map(), // toolUseId -> {fingerprint} for confirmation cards awaiting a decision
  bubble: null, // the assistant bubble text arrives in
  blocked: false,
  turn: 0, // the model turn the stream is in: a turn's reads fold into one line
  refreshTimer: null,
};

// --- i18n -------------------------------------------------------------------------------------

function t(key, values = {}) {
  const template = state.strings[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

// A count in the reader's language: the CLDR plural category (Intl.PluralRules) picks the form
// (`key.one`, `key.few`, … `key.other`).
function tn(key, count, values = {}) {
  const category = new Intl.PluralRules(state.locale).select(count);
  const form = state.strings[`${key}.${category}`] !== undefined ? `${key}.${category}` : `${key}.other`;
  return t(form, { count, ...values });
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
  for (const child of children.flat(Infinity)) {
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

async function api(path, method = "GET") {
  const response = await fetch(path, { method, headers: headers(false) });
  const body = await response.json();
  if (!response.ok) throw Object.assign(new Error(body.message), { body, status: response.status });
  return body;
}

// A request that answers SSE (or a JSON error before the stream); each event goes to `onEvent`.
// POST for a run (send, confirm, pick, undo), GET to follow a conversation's live run.
async function stream(path, body, method = "POST") {
  state.streaming = true;
  updateComposer();
  try {
    const response = await fetch(path, {
      method,
      headers: headers(method === "POST"),
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

const ROW_STATES = {
  // stored status / error code -> the status chip a person reads
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
  const group = card.closest("[data-testid=read-batch]");
  if (group) renderReadLine(group);
}

function setSummary(card, text) {
  card.querySelector(".summary").textContent = text || "";
  const group = card.closest("[data-testid=read-batch]");
  if (group) renderReadLine(group);
}

// A model turn's reads fold into one line ("3 look-ups: Schedule · 7 classes; …"), opened on a
// click; writes, confirmations and pickers each keep their card.
function readGroup(turn) {
  const last = timeline().lastElementChild;
  if (last && last.dataset.testid === "read-batch" && last.dataset.turn === String(turn)) return last;
  const group = h(
    "div",
    { class: "reads", testid: "read-batch", "data-turn": String(turn) },
    h("button", { type: "button", class: "reads-line", testid: "read-batch-line", "aria-expanded": "false", onclick: (e) => toggleReads(e.currentTarget.parentElement) }),
    h("div", { class: "reads-cards hidden" }),
  );
  return append(group);
}

function toggleReads(group) {
  const cards = group.querySelector(".reads-cards");
  const open = cards.classList.toggle("hidden") === false;
  group.querySelector(".reads-line").setAttribute("aria-expanded", String(open));
}

function renderReadLine(group) {
  const cards = [...group.querySelectorAll("[data-testid=tool-card]")];
  const parts = cards.map((c) => {
    const summary = c.querySelector(".summary").textContent;
    const title = c.querySelector(".title").textContent;
    return summary ? `${title} (${summary})` : title;
  });
  const running = cards.some((c) => c.dataset.status === "running");
  group.dataset.status = running ? "running" : cards.some((c) => c.dataset.status === "failed") ? "failed" : "succeeded";
  group.querySelector(".reads-line").textContent = `${tn("reads.line", cards.length)}: ${parts.join("; ")}`;
}

function toolCard(toolUseId, call) {
  const card = h(
    "div",
    { class: "card tool", testid: "tool-card", "data-tool-use-id": toolUseId, "data-tool": `${call.router}.${call.action}`, "data-side-effects": call.sideEffects || "write" },
    h("div", { class: "card-head" }, h("strong", { class: "title", dir: "auto" }, call.title || ""), h("span", { class: "status" })),
    h("div", { class: "summary", testid: "tool-summary", dir: "auto" }),
    h("div", { class: "actions" }),
  );
  state.cards.set(toolUseId, card);
  if (call.sideEffects === "read") {
    const group = call.group || readGroup(state.turn);
    group.querySelector(".reads-cards").append(card);
  } else {
    append(card);
  }
  setStatus(card, "running");
  return card;
}

function offerUndo(card, available) {
  const actions = card.querySelector(".actions");
  actions.replaceChildren();
  if (available) {
    actions.append(h("button", { type: "button", class: "undo", testid: "undo", onclick: () => undo(card.dataset.toolUseId) }, t("tool.undo")));
  }
}

function completeCard(card, event) {
  const code = event.error && event.error.code;
  setStatus(card, event.ok ? "succeeded" : ROW_STATES[code] || "failed");
  setSummary(card, event.summary);
  offerUndo(card, event.ok && event.inverseAvailable);
}

// --- confirmation cards: approve, edit the exact arguments, reject with a reason ----------------

function argumentInput(arg) {
  const value = arg.value;
  const common = { "data-field": arg.field, testid: `edit-${arg.field}`, dir: "ltr" };
  if (typeof value === "boolean") return h("input", { ...common, type: "checkbox", checked: value, "data-kind": "boolean" });
  if (typeof value === "number") return h("input", { ...common, type: "number", value: String(value), "data-kind": "number" });
  if (typeof value === "string") return h("input", { ...common, type: "text", value, "data-kind": "string" });
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")) {
    return h("input", { ...common, type: "text", value: value.join(", "), "data-kind": value.length && typeof value[0] === "number" ? "numbers" : "strings" });
  }
  return h("textarea", { ...common, rows: "3", "data-kind": "json" }, JSON.stringify(value, null, 1));
}

function readArguments(form) {
  const args = {};
  for (const input of form.querySelectorAll("[data-field]")) {
    const kind = input.dataset.kind;
    const raw = input.value;
    if (kind === "boolean") args[input.dataset.field] = input.checked;
    else if (kind === "number") args[input.dataset.field] = Number(raw);
    else if (kind === "string") args[input.dataset.field] = raw;
    else if (kind === "strings" || kind === "numbers") {
      const items = raw.split(",").map((s) => s.trim()).filter(Boolean);
      args[input.dataset.field] = kind === "numbers" ? items.map(Number) : items;
    } else args[input.dataset.field] = JSON.parse(raw);
  }
  return args;
}

function confirmationCard(event, reasked = false) {
  const c = event.confirmation || {};
  const consequences = c.consequenceTexts || [];
  const editForm = h(
    "form",
    { class: "edit hidden", testid: "edit-form" },
    (c.arguments || []).map((a) => h("label", {}, h("span", { dir: "auto" }, a.label), argumentInput(a))),
    h("p", { class: "form-error hidden", testid: "edit-error" }),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "approve", testid: "approve-edited" }, t("confirm.approveEdited")),
      h("button", { type: "button", testid: "cancel-edit", onclick: () => editForm.classList.add("hidden") }, t("confirm.cancelEdit")),
    ),
  );
  editForm.addEventListener("submit", (e) => {
    e.preventDefault();
    let args;
    try {
      args = readArguments(editForm);
    } catch {
      const error = editForm.querySelector("[data-testid=edit-error]");
      error.textContent = t("confirm.badJson");
      error.classList.remove("hidden");
      return;
    }
    decide([event.toolUseId], true, { args });
  });
  const rejectForm = h(
    "form",
    { class: "reason hidden", testid: "reject-form" },
    h("input", { type: "text", testid: "reject-reason", maxlength: "500", dir: "auto", placeholder: t("confirm.reasonPlaceholder") }),
    h("button", { type: "submit", class: "reject", testid: "reject-confirm" }, t("confirm.rejectWithReason")),
  );
  rejectForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const reason = rejectForm.querySelector("input").value.trim();
    decide([event.toolUseId], false, reason ? { reason } : {});
  });
  const outbound = c.outbound;
  const card = h(
    "div",
    { class: `card confirm ${event.confirm}`, testid: "confirmation-card", "data-tool-use-id": event.toolUseId, "data-tool": `${event.router}.${event.action}` },
    h("div", { class: "card-head" }, h("strong", { class: "title", dir: "auto" }, event.title || ""), h("span", { class: `badge ${event.confirm}` }, t(`confirm.${event.confirm}`)), h("span", { class: "status" })),
    reasked ? h("p", { class: "reasked", testid: "reasked" }, t("confirm.reasked")) : null,
    c.target ? h("p", { class: "target", testid: "confirm-target", dir: "auto" }, c.target) : null,
    c.affectedCount !== undefined && c.affectedCount !== null ? h("p", { class: "affected", testid: "confirm-affected" }, t("confirm.affected", { count: c.affectedCount })) : null,
    consequences.length ? h("ul", { class: "consequences", testid: "confirm-consequences" }, consequences.map((text) => h("li", {}, text))) : null,
    c.changes && c.changes.length
      ? h("ul", { class: "changes", testid: "confirm-changes" }, c.changes.map((ch) => h("li", { dir: "auto" }, `${ch.label}: `, ch.old !== undefined ? `${display(ch.old)} → ` : "", display(ch.new !== undefined ? ch.new : ch.to))))
      : null,
    outbound
      ? h(
          "div",
          { class: "outbound", testid: "confirm-outbound" },
          h("div", {}, h("strong", {}, t("confirm.outbound"))),
          h("div", { dir: "auto" }, `${tn("confirm.recipients", outbound.recipientCount)}: `, (outbound.recipients || []).join(", ")),
          h("div", { dir: "auto" }, `${t("confirm.subject")}: `, outbound.subject),
          h("pre", { dir: "auto" }, outbound.body),
        )
      : null,
    h("details", { testid: "confirm-arguments" }, h("summary", {}, t("confirm.arguments")), h("dl", {}, (c.arguments || []).map((a) => [h("dt", { dir: "auto" }, a.label), h("dd", { dir: "auto" }, a.text)]))),
    editForm,
    rejectForm,
    h("div", { class: "summary", testid: "tool-summary", dir: "auto" }),
    h(
      "div",
      { class: "actions decision" },
      h("button", { type: "button", class: "approve", testid: "approve", onclick: () => decide([event.toolUseId], true) }, t("confirm.approve")),
      (c.arguments || []).length ? h("button", { type: "button", testid: "edit", onclick: () => { rejectForm.classList.add("hidden"); editForm.classList.toggle("hidden"); } }, t("confirm.edit")) : null,
      h("button", { type: "button", class: "reject", testid: "reject", onclick: () => { editForm.classList.add("hidden"); rejectForm.classList.toggle("hidden"); rejectForm.querySelector("input").focus(); } }, t("confirm.reject")),
    ),
  );
  const previous = state.cards.get(event.toolUseId);
  state.cards.set(event.toolUseId, card);
  state.waiting.set(event.toolUseId, { fingerprint: event.fingerprint });
  if (previous) previous.replaceWith(card);
  else append(card);
  setStatus(card, "awaiting");
  refreshBatchBar();
  return card;
}

function display(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.length ? value.map(display).join(", ") : "—";
  if (typeof value === "object") return Object.values(value).map(display).join(" ");
  return String(value);
}

function pickerCard(event) {
  const card = h(
    "div",
    { class: "card picker", testid: "picker-card", "data-tool-use-id": event.toolUseId },
    h("div", { class: "card-head" }, h("strong", { class: "prompt title", dir: "auto" }, event.prompt), h("span", { class: "status" })),
    h("div", { class: "summary", testid: "tool-summary", dir: "auto" }),
    h(
      "div",
      { class: "actions candidates" },
      (event.candidates || []).map((c) =>
        h("button", { type: "button", class: "candidate", testid: "pick-candidate", onclick: () => pick(event.toolUseId, c.id) }, h("span", { dir: "auto" }, c.label), c.sublabel ? h("small", { dir: "auto" }, c.sublabel) : null),
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

function onEvent(event) {
  switch (event.type) {
    case "conversation_started":
      rememberConversation(event.conversationId);
      refreshConversations();
      break;
    case "text_delta":
      if (!state.bubble) state.bubble = assistantBubble();
      state.bubble.textContent += event.delta;
      timeline().scrollTop = timeline().scrollHeight;
      break;
    case "message_done":
      state.bubble = null;
      state.turn += 1;
      break;
    case "tool_started": {
      const original = event.toolUseId.startsWith("undo:") ? state.cards.get(event.toolUseId.slice(5)) : null;
      if (original) setStatus(original, "undoing");
      else if (state.cards.has(event.toolUseId)) setStatus(state.cards.get(event.toolUseId), "running");
      else toolCard(event.toolUseId, event);
      break;
    }
    case "tool_completed": {
      if (event.toolUseId.startsWith("undo:")) {
        const original = state.cards.get(event.toolUseId.slice(5));
        if (original) {
          setStatus(original, event.ok ? "undone" : "succeeded");
          original.querySelector(".actions").replaceChildren();
          if (!event.ok) showError({ code: event.error.code, message: event.summary, traceId: null });
        }
        if (event.ok) pageChanged(event.router);
        break;
      }
      const card = state.cards.get(event.toolUseId) || toolCard(event.toolUseId, event);
      state.waiting.delete(event.toolUseId);
      completeCard(card, event);
      refreshBatchBar();
      if (event.ok && event.sideEffects === "write") pageChanged(event.router);
      break;
    }
    case "confirmation_pending":
      confirmationCard(event, state.cards.has(event.toolUseId));
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
      if (event.conversationId) rememberConversation(event.conversationId);
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
  state.turn += 1;
  await stream("/agent/messages", body);
}

function lockCard(id, status) {
  const card = state.cards.get(id);
  if (!card) return;
  card.querySelector(".actions").replaceChildren();
  for (const form of card.querySelectorAll("form")) form.remove();
  if (status) setStatus(card, status);
}

// Each decision names the card it was made on (its fingerprint): a card since re-asked, or a
// stale tab, is refused (`confirmation_stale`) rather than approved blind.
async function decide(ids, approved, extra = {}) {
  const decisions = ids.map((toolUseId) => ({ toolUseId, approved, fingerprint: state.waiting.get(toolUseId)?.fingerprint, ...extra }));
  for (const id of ids) lockCard(id, approved ? "approved" : "rejecting");
  const path = `/agent/conversations/${state.conversationId}`;
  state.turn += 1;
  if (ids.length === 1) {
    const { toolUseId, ...decision } = decisions[0];
    await stream(`${path}/confirm/${encodeURIComponent(toolUseId)}`, decision);
  } else {
    await stream(`${path}/confirm-batch`, { decisions });
  }
}

async function pick(toolUseId, id) {
  lockCard(toolUseId, "picked");
  state.turn += 1;
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
  byTestId("batch-count").textContent = tn("confirm.waiting", ids.length);
}

function updateComposer() {
  const member = state.role === "member";
  byTestId("composer").classList.toggle("hidden", member);
  byTestId("staff-only").classList.toggle("hidden", !member);
  byTestId("usage-footer").classList.toggle("hidden", member);
  byTestId("send").disabled = state.streaming || state.blocked;
  byTestId("composer-input").disabled = state.blocked;
  for (const b of document.querySelectorAll('[data-testid="suggested-prompt"]')) b.disabled = state.streaming || state.blocked;
}

// --- conversations, usage ----------------------------------------------------------------------

function conversationKey() {
  return `spotter.conversation.${state.role}`;
}

function rememberConversation(id) {
  state.conversationId = id;
  if (id) localStorage.setItem(conversationKey(), id);
  else localStorage.removeItem(conversationKey());
}

async function refreshConversations() {
  let body;
  try {
    body = await api("/agent/conversations");
  } catch (error) {
    byTestId("conversation-list").replaceChildren();
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
  if (state.role === "member") {
    // a member sees no spend (the API refuses it too)
    footer.replaceChildren();
    return;
  }
  let u;
  try {
    u = await api("/agent/usage");
  } catch (error) {
    footer.textContent = "";
    return;
  }
  const usd = (micros) => new Intl.NumberFormat(state.locale, { style: "currency", currency: "USD" }).format(micros / 1e6);
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
  state.turn = 0;
  refreshBatchBar();
}

function storedRow(tool, group) {
  // one stored call as a person sees it after a reload: the words the live stream gave it
  if (tool.awaitingUser && tool.kind === "user_picker") {
    const args = (tool.input && (tool.input.args || tool.input)) || {};
    return pickerCard({ toolUseId: tool.toolUseId, prompt: args.prompt, candidates: args.candidates });
  }
  if (tool.awaitingUser) {
    return confirmationCard({ ...tool, confirm: tool.confirm });
  }
  const card = toolCard(tool.toolUseId, { ...tool, group });
  const code = tool.error && tool.error.code;
  let status = tool.status === "succeeded" ? "succeeded" : ROW_STATES[code] || ROW_STATES[tool.status] || tool.status;
  if (tool.discarded) status = "discarded";
  if (tool.undone) status = "undone";
  if (tool.status === "pending") status = "held";
  setStatus(card, status);
  setSummary(card, tool.summary);
  offerUndo(card, tool.inverseAvailable);
  return card;
}

async function openConversation(id) {
  if (state.streaming) return;
  let body;
  try {
    body = await api(`/agent/conversations/${id}`);
  } catch (error) {
    if (error.status === 404) rememberConversation(null);
    return;
  }
  rememberConversation(id);
  resetTimeline();
  const live = body.liveRun;
  const byMessage = new Map();
  for (const tool of body.toolExecutions) {
    if (!byMessage.has(tool.messageId)) byMessage.set(tool.messageId, []);
    byMessage.get(tool.messageId).push(tool);
  }
  for (const message of body.messages) {
    if (message.role === "user" && message.text) userBubble(message.text);
    // the live run's own replies come from its stream, below
    if (message.role === "assistant" && !(live && message.runId === live.runId)) {
      if (message.text) assistantBubble(message.text);
      state.turn += 1;
      let group = null;
      for (const tool of byMessage.get(message.id) || []) {
        if (tool.sideEffects === "read" && !tool.awaitingUser && tool.kind !== "user_picker") {
          group = group || readGroup(state.turn);
          storedRow(tool, group);
        } else {
          storedRow(tool);
        }
      }
    }
  }
  if (body.compacting) notice("compacting", t("compaction.started")).append(h("span", { class: "spinner" }));
  refreshBatchBar();
  refreshConversations();
  if (live) {
    // a run still going (another tab's, or this page's before the reload): follow it to its end
    state.turn += 1;
    stream(`/agent/conversations/${id}/stream?after=${live.after}`, undefined, "GET");
  }
}

function newConversation() {
  if (state.streaming) return;
  rememberConversation(null);
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
  state.page.render(el, state.pageState, t, selectOnPage, state.locale, tn);
  el.append(h("p", { class: "context", testid: "page-context", dir: "ltr" }, JSON.stringify(pageContext())));
  const prompts = byTestId("suggested-prompts");
  prompts.replaceChildren(
    ...promptsFor(state.page, state.abilities, state.role).map((key) =>
      h("button", { type: "button", class: "prompt", testid: "suggested-prompt", "data-prompt": key, onclick: () => send(t(`prompt.${key}`)) }, t(`prompt.${key}`)),
    ),
  );
  renderNav();
  updateComposer();
}

function selectOnPage(change, reload = false) {
  Object.assign(state.pageState, change);
  renderPage();
  if (reload) loadPage(state.page);
}

function route() {
  const pathname = location.hash.replace(/^#/, "") || state.pages[0].pathname;
  const page = state.pages.find((p) => p.pathname === pathname) || state.pages[0];
  if (page !== state.page) state.pageState = {};
  state.page = page;
  renderPage();
  loadPage(page);
}

// A page with data asks the dashboard API for it as the signed-in user; a refusal is shown too.
async function loadPage(page) {
  if (!page.load || !state.token) return;
  try {
    const data = await page.load(api, state.pageState);
    if (state.page === page) {
      state.pageState.data = data;
      renderPage();
    }
  } catch (error) {
    if (state.page === page) {
      state.pageState.data = { error: error.body || { message: String(error.message) } };
      renderPage();
    }
  }
  if (state.page === page) byTestId("page").dataset.loaded = String(Date.now());
}

// A write this page shows (a class created, cancelled, a booking made, an undo) reloads it.
function pageChanged(router) {
  if (!state.page || !(state.page.refreshOn || []).includes(router)) return;
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(() => loadPage(state.page), 150);
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
  byTestId("reset-demo").classList.toggle("hidden", role !== "owner");
  try {
    state.abilities = new Set((await api("/dev/abilities")).actions);
  } catch {
    state.abilities = new Set();
  }
  state.conversationId = null;
  resetTimeline();
  refreshUsage();
  updateComposer();
  if (state.page) {
    state.pageState = {};
    renderPage();
    loadPage(state.page);
  }
  // the conversation this browser had open as this user, with its run if one is still going
  const last = localStorage.getItem(conversationKey());
  if (last) await openConversation(last);
  else refreshConversations();
}

async function resetDemo() {
  if (state.streaming || !confirm(t("reset.confirm"))) return;
  await api("/dev/reset-demo", "POST");
  newConversation();
  notice("reset", t("reset.done"));
  state.pageState = { ...state.pageState, data: null };
  loadPage(state.page);
  refreshUsage();
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
    // the cards' words are the server's, in the reader's language: read them again
    if (state.conversationId && !state.streaming) openConversation(state.conversationId);
  });
  byTestId("launcher").addEventListener("click", () => toggleSheet());
  byTestId("close-sheet").addEventListener("click", () => toggleSheet(false));
  byTestId("new-conversation").addEventListener("click", newConversation);
  byTestId("reset-demo").addEventListener("click", resetDemo);
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
  renderModelLabel();
  route();
  await signIn(state.role);
  document.body.dataset.ready = "true";
}

main();
