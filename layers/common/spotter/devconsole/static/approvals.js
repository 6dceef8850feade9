// The approval page of a pending MCP call (/approvals/{executionId}): the server's card and the
// person's decision, signed in as the console's current user (the same dev login: a session
// token from /dev/token for the role the console remembers). Every server string is written
// with textContent.
const byTestId = (id) => document.querySelector(`[data-testid="${id}"]`);
const executionId = location.pathname.split("/").filter(Boolean).pop();
const role = localStorage.getItem("spotter.role") || "owner";
let token = null;

async function signIn() {
  const response = await fetch("/dev/token", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ role }),
  });
  const body = await response.json();
  token = body.token;
  byTestId("approval-user").textContent = `${body.name} (${body.role})`;
}

async function api(method, body) {
  const response = await fetch(`/agent/approvals/${encodeURIComponent(executionId)}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
}

const STATES = {
  pending: "Waiting for you",
  approved: "Approved: the client's retry runs it",
  ran: "Done: it ran",
  rejected: "Rejected: it will not run",
  expired: "Expired: it will not run",
  failed: "Failed",
  running: "Running",
};

function render(view) {
  byTestId("approval-card").dataset.status = view.state;
  byTestId("approval-card").classList.toggle("destructive", view.confirm === "destructive");
  byTestId("approval-tool").textContent = view.title || view.tool;
  byTestId("approval-state").textContent = STATES[view.state] || view.state;
  // the server's words for the whole card (tools.summaries: title, target, consequences, changes,
  // the mail as sent, the exact arguments), the same the console's cards and MCP clients show
  byTestId("approval-message").textContent = view.message || "";
  byTestId("approval-expires").textContent = view.expiresAt ? `Expires ${new Date(view.expiresAt).toLocaleString()}` : "";
  const open = view.state === "pending";
  byTestId("approve").disabled = !open;
  byTestId("reject").disabled = !open;
}

function showError(answer) {
  byTestId("approval-card").dataset.status = "failed";
  byTestId("approval-outcome").textContent = answer.body.message || `Error ${answer.status}`;
}

async function decide(decision) {
  const reason = byTestId("approval-reason").value.trim();
  const answer = await api("POST", decision === "reject" && reason ? { decision, reason } : { decision });
  if (answer.status !== 200) {
    showError(answer);
    const again = await api("GET");
    if (again.status === 200) render(again.body);
    return;
  }
  render(answer.body);
  byTestId("approval-outcome").textContent = decision === "approve"
    ? "Approved. Go back to your MCP client and run the same call again."
    : "Rejected. Nothing ran.";
}

async function main() {
  await signIn();
  const answer = await api("GET");
  if (answer.status !== 200) {
    showError(answer);
    byTestId("approve").disabled = true;
    byTestId("reject").disabled = true;
    return;
  }
  byTestId("approve").addEventListener("click", () => decide("approve"));
  byTestId("reject").addEventListener("click", () => decide("reject"));
  render(answer.body);  // enables the buttons only once they answer
}

main();
