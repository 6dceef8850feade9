// Feeds a recorded Spotter response body through the `ai` package's own UI message stream
// parser (parseJsonEventStream + uiMessageChunkSchema, as DefaultChatTransport does) and builds
// the UI message with readUIMessageStream, as useChat does. Prints what it read as JSON. With a
// message file, the stream continues that message (as useChat continues an answered one).
//   node ai_sdk_parse.mjs <folder with node_modules/ai> <recorded body file> [message file]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [folder, file, messageFile] = process.argv.slice(2);
const start = messageFile ? JSON.parse(readFileSync(messageFile, "utf8")) : undefined;
const ai = await import(pathToFileURL(join(folder, "node_modules", "ai", "dist", "index.js")).href);
const bytes = readFileSync(file);
const body = new ReadableStream({
  start(controller) {
    controller.enqueue(new Uint8Array(bytes));
    controller.close();
  },
});
const errors = [];
const chunks = [];
const parsed = ai.parseJsonEventStream({ stream: body, schema: ai.uiMessageChunkSchema });
const valid = parsed.pipeThrough(
  new TransformStream({
    transform(part, controller) {
      if (!part.success) {
        errors.push(String(part.error));
        return;
      }
      chunks.push(part.value);
      controller.enqueue(part.value);
    },
  }),
);
let message = null;
for await (const snapshot of ai.readUIMessageStream({
  message: start,
  stream: valid,
  onError: (error) => errors.push(String(error)),
  terminateOnError: true,
})) {
  message = snapshot;
}
console.log(JSON.stringify({ chunks: chunks.map((c) => c.type), errors, message }));
