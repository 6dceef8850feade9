// The official TypeScript SDK's client (@modelcontextprotocol/sdk 1.x: the initialize handshake,
// 2025-11-25), as IDE clients embed it, with an elicitation handler that answers as told.
// Usage: node ts_sdk_client.mjs <node_modules> <url> <token> <script.json>
// The script is a list of steps: {"list": true} | {"call": name, "args": {...}, "answer":
// "accept"|"decline"|"none", "undoLast": true}. Prints one JSON line: what each step returned.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const [modules, url, token, scriptPath] = process.argv.slice(2);
const require = createRequire(path.join(modules, "noop.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const steps = JSON.parse(readFileSync(scriptPath, "utf8"));
let answer = "accept";
const asked = [];
const client = new Client({ name: "spotter-ts-sdk-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  if (answer === "accept") return { action: "accept", content: { approved: true } };
  return { action: "decline" };
});
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);
const out = { protocolVersion: transport.protocolVersion ?? null, sessionId: transport.sessionId ?? null, steps: [], asked };
let lastExecution = null;
for (const step of steps) {
  if (step.list) {
    const listed = await client.listTools();
    out.steps.push({ tools: listed.tools.map((t) => t.name) });
    continue;
  }
  answer = step.answer ?? "accept";
  const name = step.undoLast ? "spotter_undo" : step.call;
  const args = step.undoLast ? { executionId: lastExecution } : step.args;
  const result = await client.callTool({ name, arguments: args });
  const body = JSON.parse(result.content[0].text);
  if (body.executionId) lastExecution = body.executionId;
  out.steps.push({ isError: Boolean(result.isError), body });
}
await client.close();
console.log(JSON.stringify(out));
