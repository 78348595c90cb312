// The Vercel AI SDK (npm `ai`, pinned in package-lock.json) meeting our records, run by
// tests/test_interop_vercel.py:
//   node ai_sdk.mjs validate   < records.json   each tool-result part checked by the SDK's own
//                                               modelMessageSchema, inside a tool message
//   node ai_sdk.mjs produce                     tool parts the SDK itself makes in generateText
//                                               (a mock model, no network): a result, a thrown
//                                               error, and a call a person denies
import { readFileSync } from "node:fs";
import { generateText, jsonSchema, modelMessageSchema, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function answering(...turns) {
  const left = [...turns];
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content: left.shift(),
      finishReason: { unified: "tool-calls", raw: undefined },
      usage,
      warnings: [],
    }),
  });
}

function call(id, name, input) {
  return { type: "tool-call", toolCallId: id, toolName: name, input: JSON.stringify(input) };
}

const city = jsonSchema({ type: "object", properties: { city: { type: "string" } } });
const tools = {
  get_weather: tool({
    inputSchema: city,
    execute: async ({ city: name }) => {
      if (name === "Atlantis") throw new Error("city not found");
      return { temp_c: 21.5, city: name };
    },
  }),
  delete_db: tool({ inputSchema: jsonSchema({ type: "object" }), needsApproval: true, execute: async () => "gone" }),
};

async function produce() {
  const done = [{ type: "text", text: "done" }];
  const first = await generateText({
    model: answering([call("call_1", "get_weather", { city: "Paris" }), call("call_2", "get_weather", { city: "Atlantis" })], done),
    tools,
    prompt: "weather?",
    stopWhen: () => false,
  });
  const steps = first.steps[0].content.filter((part) => part.type === "tool-result" || part.type === "tool-error");
  const messages = first.steps[0].response.messages.filter((message) => message.role === "tool");
  const model = answering([call("call_9", "delete_db", {})], done);
  const asked = await generateText({ model, tools, prompt: "clean up" });
  const request = asked.content.find((part) => part.type === "tool-approval-request");
  const answer = { type: "tool-approval-response", approvalId: request.approvalId, approved: false, reason: "operator refused" };
  await generateText({
    model,
    tools,
    messages: [{ role: "user", content: "clean up" }, ...asked.response.messages, { role: "tool", content: [answer] }],
  });
  // What the model was sent on the denied call's next turn: the SDK's own tool message.
  const sent = model.doGenerateCalls.at(-1).prompt.filter((message) => message.role === "tool");
  return { steps, messages, denied: sent };
}

function validate(records) {
  return records.map((record) => {
    const parsed = modelMessageSchema.safeParse({ role: "tool", content: [record] });
    return parsed.success ? null : parsed.error.issues.map((issue) => issue.path.join("/"));
  });
}

const mode = process.argv[2];
const result = mode === "produce" ? await produce() : validate(JSON.parse(readFileSync(0, "utf8")));
process.stdout.write(JSON.stringify(result));
