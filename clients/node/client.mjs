// conform client program for Node SDKs (docs/client-protocol.md).
//
//   node client.mjs SDK
//
// SDK is one of: openai, openai-responses, anthropic, ai-openai,
// ai-anthropic, ai-google, google-genai. The program makes the request
// conform serve expects, runs every call with the echo tool (the result is
// the call's arguments), sends the follow-up, prints the final answer and
// exits 0; any error exits 1.

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { generateText, streamText, tool, jsonSchema, stepCountIs } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";

const base = process.env.CONFORM_BASE_URL;
const model = process.env.CONFORM_MODEL || "model";
const stream = process.env.CONFORM_STREAM === "1";
const tools = JSON.parse(process.env.CONFORM_TOOLS || "[]");
const key = "conform-test-key";
const prompt = "Use the tools.";

function schemaOf(t) {
  return t.input_schema && typeof t.input_schema === "object" ? t.input_schema : { type: "object" };
}

// checkArgs refuses arguments that are not a JSON object: such a call was
// cut off or garbled and must not run.
function checkArgs(name, args) {
  if (args === "" || args === undefined) return;
  let v;
  try {
    v = JSON.parse(args);
  } catch (e) {
    throw new Error(`call ${name}: arguments are not JSON (${e.message}); not running it`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new Error(`call ${name}: arguments are not a JSON object; not running it`);
  }
}

const echo = (args) => (args === "" || args === undefined ? "{}" : args);

async function openaiChat() {
  const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const params = {
    model,
    messages: [{ role: "user", content: prompt }],
    tools: tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: schemaOf(t) } })),
  };
  const complete = async () => {
    if (!stream) {
      const r = await client.chat.completions.create(params);
      return r.choices[0].message;
    }
    const s = client.chat.completions.stream(params);
    const r = await s.finalChatCompletion();
    return r.choices[0].message;
  };
  const msg = await complete();
  if (!msg.tool_calls || msg.tool_calls.length === 0) return msg.content ?? "";
  params.messages.push({ role: "assistant", content: msg.content ?? null, tool_calls: msg.tool_calls });
  for (const tc of msg.tool_calls) {
    checkArgs(tc.function.name, tc.function.arguments);
    params.messages.push({ role: "tool", tool_call_id: tc.id, content: echo(tc.function.arguments) });
  }
  const final = await complete();
  return final.content ?? "";
}

async function openaiResponses() {
  const client = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const input = [{ role: "user", content: prompt }];
  const params = {
    model,
    tools: tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: schemaOf(t), strict: false })),
  };
  const complete = async () => {
    if (!stream) return client.responses.create({ ...params, input });
    const s = client.responses.stream({ ...params, input });
    return s.finalResponse();
  };
  const resp = await complete();
  const calls = resp.output.filter((i) => i.type === "function_call");
  if (calls.length === 0) return resp.output_text ?? "";
  for (const c of calls) {
    checkArgs(c.name, c.arguments);
    input.push({ type: "function_call", id: c.id, call_id: c.call_id, name: c.name, arguments: c.arguments });
    input.push({ type: "function_call_output", call_id: c.call_id, output: echo(c.arguments) });
  }
  const final = await complete();
  return final.output_text ?? "";
}

async function anthropic() {
  const client = new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
  const params = {
    model,
    max_tokens: 1024,
    messages: [{ role: "user", content: prompt }],
    tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: schemaOf(t) })),
  };
  const complete = async () => {
    if (!stream) return client.messages.create(params);
    return client.messages.stream(params).finalMessage();
  };
  const text = (m) => m.content.filter((b) => b.type === "text").map((b) => b.text).join("");
  const msg = await complete();
  const uses = msg.content.filter((b) => b.type === "tool_use");
  if (uses.length === 0) return text(msg);
  params.messages.push({ role: "assistant", content: msg.content });
  params.messages.push({
    role: "user",
    content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, content: echo(JSON.stringify(u.input ?? {})) })),
  });
  return text(await complete());
}

async function googleGenAI() {
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
  const config = { tools: [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: schemaOf(t) })) }] };
  const contents = [{ role: "user", parts: [{ text: prompt }] }];
  const complete = async () => {
    if (!stream) {
      const r = await ai.models.generateContent({ model, contents, config });
      return r.candidates?.[0]?.content ?? { role: "model", parts: [] };
    }
    const turn = { role: "model", parts: [] };
    for await (const chunk of await ai.models.generateContentStream({ model, contents, config })) {
      turn.parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    }
    return turn;
  };
  const text = (c) => (c.parts ?? []).filter((p) => p.text && !p.thought).map((p) => p.text).join("");
  const turn = await complete();
  const calls = (turn.parts ?? []).filter((p) => p.functionCall);
  if (calls.length === 0) return text(turn);
  contents.push({ role: "model", parts: turn.parts });
  contents.push({
    role: "user",
    parts: calls.map((p) => ({ functionResponse: { id: p.functionCall.id, name: p.functionCall.name, response: JSON.parse(echo(JSON.stringify(p.functionCall.args ?? {}))) } })),
  });
  return text(await complete());
}

// vercel runs the tool loop of the Vercel AI SDK: its tools execute the
// echo tool and stopWhen allows the one follow-up.
async function vercel(provider) {
  const aiTools = {};
  for (const t of tools) {
    aiTools[t.name] = tool({
      description: t.description,
      inputSchema: jsonSchema(schemaOf(t)),
      execute: async (input) => JSON.parse(echo(JSON.stringify(input ?? {}))),
    });
  }
  const opts = { model: provider, tools: aiTools, prompt, stopWhen: stepCountIs(2), maxRetries: 0 };
  if (!stream) {
    const r = await generateText(opts);
    return r.text;
  }
  let failure;
  const r = streamText({ ...opts, onError: ({ error }) => { failure = error; } });
  // The stream's own error (onError) explains a failure better than the
  // "no output generated" that r.text rejects with after it.
  let text;
  try {
    text = await r.text;
  } catch (e) {
    throw failure ?? e;
  }
  if (failure) throw failure;
  return text;
}

const sdks = {
  openai: openaiChat,
  "openai-responses": openaiResponses,
  anthropic,
  "google-genai": googleGenAI,
  "ai-openai": () => vercel(createOpenAI({ apiKey: key, baseURL: `${base}/v1` }).chat(model)),
  "ai-openai-responses": () => vercel(createOpenAI({ apiKey: key, baseURL: `${base}/v1` }).responses(model)),
  "ai-anthropic": () => vercel(createAnthropic({ apiKey: key, baseURL: `${base}/v1` })(model)),
  "ai-google": () => vercel(createGoogleGenerativeAI({ apiKey: key, baseURL: `${base}/v1beta` })(model)),
};

const sdk = process.argv[2];
if (!sdks[sdk]) {
  console.error(`conform client: unknown SDK ${JSON.stringify(sdk)}; known: ${Object.keys(sdks).join(", ")}`);
  process.exit(2);
}
if (!base) {
  console.error("conform client: CONFORM_BASE_URL is not set");
  process.exit(2);
}
try {
  const answer = await sdks[sdk]();
  console.log(answer);
  process.exit(0);
} catch (e) {
  // The stack first, then one line that names the error: conform keeps
  // the last line of stderr, and some errors (the Vercel AI SDK's schema
  // failures) end in many lines of JSON.
  console.error(`conform client ${sdk}: ${e && e.stack ? e.stack : e}`);
  console.error(`conform client ${sdk}: ${summary(e)}`);
  process.exit(1);
}

// summary gives an error's name and message on one line, shortened, with
// its cause's when it has one.
function summary(e) {
  const one = (x) => {
    const text = x instanceof Error ? `${x.name}: ${x.message}` : String(x);
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > 400 ? flat.slice(0, 400) + "…" : flat;
  };
  return e && e.cause ? `${one(e)} (cause: ${one(e.cause)})` : one(e);
}
