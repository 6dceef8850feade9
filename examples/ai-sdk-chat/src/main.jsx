// A dashboard page on the stock AI SDK hooks, talking to Spotter's AI SDK chat.
//
// The protocol code is the transport's construction (the chat URL and the Clerk token as a
// bearer header) and `sendAutomaticallyWhen`; everything else is `useChat` as shipped. The rest of
// this file is the page: configuration, the history fetched for `useChat({ messages })`, the Undo
// endpoint a button calls, and rendering.
import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
} from "ai";
import { useState } from "react";
import { createRoot } from "react-dom/client";

// ---- where Spotter is, who is asking, which chat --------------------------------------------
const params = new URLSearchParams(location.search);
const SPOTTER = params.get("api") ?? "http://127.0.0.1:8000";
const API = `${SPOTTER}/agent/chat`;
const chatId = params.get("chat") ?? crypto.randomUUID();
if (!params.has("chat")) {
  params.set("chat", chatId); // a reload reopens this chat
  history.replaceState(null, "", `?${params}`);
}

async function sessionToken() {
  // In the dashboard this is Clerk's `await getToken()`. Here: a token in the URL, or a demo
  // owner's from `make dev` (its dev-only token endpoint).
  if (params.has("token")) return params.get("token");
  const minted = await fetch(`${SPOTTER}/dev/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ role: "owner" }),
  });
  return (await minted.json()).token;
}

const headers = { Authorization: `Bearer ${await sessionToken()}` };
const loadHistory = async () => (await fetch(`${API}/${chatId}/messages`, { headers })).json();

// ---- the chat: the stock hook --------------------------------------------------------------
function Chat({ initialMessages }) {
  const [transport] = useState(
    () =>
      new DefaultChatTransport({
        api: API,
        headers,
        body: { pageContext: { pathname: location.pathname } },
      }),
  );
  const chat = useChat({
    id: chatId,
    messages: initialMessages,
    resume: true,
    transport,
    sendAutomaticallyWhen: (options) =>
      lastAssistantMessageIsCompleteWithApprovalResponses(options) ||
      lastAssistantMessageIsCompleteWithToolCalls(options),
  });
  const undo = async (toolCallId) => {
    const url = `${API}/${chatId}/undo/${encodeURIComponent(toolCallId)}`;
    await (await fetch(url, { method: "POST", headers })).text(); // a UI message stream
    chat.setMessages(await loadHistory()); // the undone call now says so
  };
  return (
    <>
      <header>
        <h1>Spotter</h1>
        <small data-testid="status">{chat.status}</small>
        <small>chat {chatId}</small>
      </header>
      <ol data-testid="messages">
        {chat.messages.map((message) => (
          <Message key={message.id} message={message} chat={chat} undo={undo} />
        ))}
      </ol>
      {chat.error && (
        <p className="error" data-testid="error">
          {chat.error.message}
        </p>
      )}
      <Composer chat={chat} />
    </>
  );
}

function Composer({ chat }) {
  const [text, setText] = useState("");
  const busy = chat.status === "submitted" || chat.status === "streaming";
  const send = (event) => {
    event.preventDefault();
    if (!text.trim()) return;
    chat.sendMessage({ text });
    setText("");
  };
  return (
    <form onSubmit={send}>
      <input
        data-testid="input"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="Ask Spotter"
      />
      <button data-testid="send" disabled={busy}>
        Send
      </button>
      <button type="button" data-testid="stop" onClick={() => chat.stop()}>
        Stop
      </button>
      <button type="button" data-testid="resume" onClick={() => chat.resumeStream()}>
        Resume
      </button>
    </form>
  );
}

function Message({ message, chat, undo }) {
  return (
    <li data-testid="message" data-role={message.role} data-id={message.id}>
      {message.parts.map((part, index) => {
        if (part.type === "text") {
          return (
            <p key={index} data-testid="text">
              {part.text}
            </p>
          );
        }
        if (part.type.startsWith("tool-") || part.type === "dynamic-tool") {
          return <ToolPart key={part.toolCallId} part={part} chat={chat} undo={undo} />;
        }
        return null;
      })}
    </li>
  );
}

function ToolPart({ part, chat, undo }) {
  const [reason, setReason] = useState("");
  const name = part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
  const meta = part.toolMetadata ?? {};
  const card = part.approval?.descriptor?.confirmation;
  return (
    <div
      className="tool"
      data-testid="tool"
      data-tool={name}
      data-state={part.state}
      data-call={part.toolCallId}
    >
      <header>
        {/* the call's words, in the reader's language: toolMetadata carries what the native
            stream says (title, and once it ran a one-line summary) */}
        <strong data-testid="tool-title">{part.title ?? meta.title ?? name}</strong>{" "}
        <span className="state">{part.state}</span>
      </header>
      {meta.summary && <p data-testid="tool-summary">{meta.summary}</p>}
      {part.state === "approval-requested" && (
        <div className="card" data-testid="card">
          <strong data-testid="target">{card?.target}</strong>
          {card?.affectedCount != null && <span> · affects {card.affectedCount}</span>}
          <div>
            <button
              data-testid="approve"
              onClick={() => chat.addToolApprovalResponse({ id: part.approval.id, approved: true })}
            >
              Approve
            </button>
            <input
              data-testid="reason"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              placeholder="Reason (optional)"
            />
            <button
              data-testid="reject"
              onClick={() =>
                chat.addToolApprovalResponse({
                  id: part.approval.id,
                  approved: false,
                  reason: reason || undefined,
                })
              }
            >
              Reject
            </button>
          </div>
        </div>
      )}
      {part.state === "input-available" && !part.providerExecuted && (
        <div className="card" data-testid="picker">
          <span>{part.input.prompt}</span>
          {part.input.candidates.map((candidate) => (
            <button
              key={candidate.id}
              data-testid="candidate"
              onClick={() =>
                chat.addToolOutput({ tool: name, toolCallId: part.toolCallId, output: candidate })
              }
            >
              {candidate.label}
            </button>
          ))}
        </div>
      )}
      {part.state === "output-available" && meta.inverseAvailable && (
        <button data-testid="undo" onClick={() => undo(part.toolCallId)}>
          Undo
        </button>
      )}
      {meta.undone && <span data-testid="undone">Undone</span>}
      {part.state === "output-available" && !part.providerExecuted && (
        <span data-testid="picked">Picked {part.output?.pickedLabel ?? part.output?.label}</span>
      )}
      {part.state === "output-denied" && (
        <span data-testid="denied">
          Rejected{part.approval?.reason ? `: ${part.approval.reason}` : ""}
        </span>
      )}
      {part.state === "output-error" && (
        <span className="error" data-testid="tool-error">
          {meta.errorCode}: {part.errorText}
        </span>
      )}
    </div>
  );
}

createRoot(document.getElementById("root")).render(<Chat initialMessages={await loadHistory()} />);
