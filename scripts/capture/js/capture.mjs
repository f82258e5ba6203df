// Capture real Vercel AI SDK runs traced by the OpenTelemetry JS SDK, offline:
//   node capture.mjs OUT_ROOT        (run by scripts/capture/capture_js.sh)
//
// A weather assistant (`generateText` with the tools geocode / get_weather / web_search and a
// step limit) runs on the AI SDK's own mock language model, which plays back tool calls and
// reports token usage; spans go to a `BasicTracerProvider` with an `InMemorySpanExporter`. Each
// scenario side runs twice, once per AI SDK generation (separate runs, the same script):
// - `ai` 7 with the `@ai-sdk/otel` integration (`gen_ai.*` attributes only);
// - `ai` 5 (`ai5`, an npm alias) with `experimental_telemetry` (`ai.*` attributes beside `gen_ai.*`).
// Per scenario and side it writes, under OUT_ROOT/js_otel/<scenario>/:
// - <side>.readable_spans.json (ai 7) and <side>.ai5_spans.json (ai 5): the finished spans as
//   their `ReadableSpan` fields (what `exporter.getFinishedSpans()` holds: `spanContext()`,
//   `parentSpanContext`, hrtime `[seconds, nanoseconds]` times, attributes, status, events,
//   resource attributes, scope);
// - <side>.facts.json: what the live run did (recorded inside the tools and the model); both
//   runs must record the same facts.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { OpenTelemetry } from "@ai-sdk/otel";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { generateText, isStepCount, registerTelemetry, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { generateText as generateText5, stepCountIs, tool as tool5 } from "ai5";
import { MockLanguageModelV2 } from "ai5/test";
import { z } from "zod";

const SOURCE = "js_otel";
const SCENARIOS = ["identical", "detour", "loop", "error_retry", "reworded"];
const TASK = "What's the weather in Paris right now, in Fahrenheit?";
const FINAL = "It is 65.1°F (18.4°C) in Paris right now, with light rain.";
const REWORDED = "Paris has light rain at about 65°F (18.4°C) right now.";
const PARIS = { latitude: 48.8566, longitude: 2.3522 };
const TIMEOUT = "weather service timed out (HTTP 504)";
const PACKAGES = [
  "ai",
  "ai5",
  "@ai-sdk/otel",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/api",
];
const here = new URL(".", import.meta.url).pathname;
const PRODUCED_BY = Object.fromEntries(
  PACKAGES.map((name) => [
    name,
    JSON.parse(readFileSync(join(here, "node_modules", name, "package.json"), "utf8")).version,
  ]),
);

let facts;

function record(name, args, error = null) {
  facts.tool_calls.push({ name, arguments: args, error });
  if (error) throw new Error(error);
}

const toolsWith = (tool) => ({
  geocode: tool({
    description: "Find the coordinates of a city.",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      record("geocode", { city });
      return { ...PARIS, display_name: "Paris, France" };
    },
  }),
  get_weather: tool({
    description: "Current weather at a coordinate.",
    inputSchema: z.object({ latitude: z.number(), longitude: z.number() }),
    execute: async (args) => {
      const fail = facts.failNextWeather;
      facts.failNextWeather = false;
      record("get_weather", { ...args }, fail ? TIMEOUT : null);
      return { temperature_c: 18.4, condition: "light rain", humidity: 81 };
    },
  }),
  web_search: tool({
    description: "Search the web.",
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => {
      record("web_search", { query });
      return [{ title: "Paris weather today", snippet: "Light rain, 18°C" }];
    },
  }),
});

const GEOCODE = [["geocode", { city: "Paris" }]];
const WEATHER = [["get_weather", PARIS]];
const SEARCH = [["web_search", { query: "Paris weather today" }]];

function script(scenario, side) {
  if (side === "baseline" || scenario === "identical") return [GEOCODE, WEATHER, FINAL];
  return {
    detour: [GEOCODE, SEARCH, WEATHER, FINAL],
    loop: [GEOCODE, WEATHER, WEATHER, WEATHER, WEATHER, FINAL],
    error_retry: [GEOCODE, WEATHER, WEATHER, FINAL],
    reworded: [GEOCODE, WEATHER, REWORDED],
  }[scenario];
}

// One scripted model turn as a provider would answer it: [content, finish, input, output].
function playTurn(turns, state, options) {
  const turn = turns[state.call];
  state.call += 1;
  const call = state.call;
  const input = 200 + 40 * options.prompt.length;
  const content =
    typeof turn === "string"
      ? [{ type: "text", text: turn }]
      : turn.map(([name, args], i) => ({
          type: "tool-call",
          toolCallId: `call_${call}_${i}`,
          toolName: name,
          input: JSON.stringify(args),
        }));
  const output = typeof turn === "string" ? 10 + Math.floor(turn.length / 4) : 18;
  facts.llm_calls += 1;
  facts.prompt_tokens += input;
  facts.completion_tokens += output;
  if (typeof turn === "string") facts.final_output = turn;
  return [content, typeof turn === "string" ? "stop" : "tool-calls", input, output];
}

function model5(turns) {
  const state = { call: 0 };
  return new MockLanguageModelV2({
    provider: "scripted",
    modelId: "gpt-4o-mini",
    doGenerate: async (options) => {
      const [content, finishReason, input, output] = playTurn(turns, state, options);
      const usage = { inputTokens: input, outputTokens: output, totalTokens: input + output };
      return { content, finishReason, usage, warnings: [] };
    },
  });
}

function model(turns) {
  const state = { call: 0 };
  return new MockLanguageModelV4({
    provider: "scripted",
    modelId: "gpt-4o-mini",
    doGenerate: async (options) => {
      const [content, finish, input, output] = playTurn(turns, state, options);
      return {
        content,
        finishReason: { unified: finish, raw: undefined },
        usage: {
          inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: undefined },
          outputTokens: { total: output, text: output, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
}

// The ReadableSpan interface's fields (`spanContext` is a method, `resource` an object).
function readable(span) {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    links: span.links,
    events: span.events,
    ended: span.ended,
    resource: { attributes: span.resource.attributes },
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

// As a Node app's tracing setup does (NodeTracerProvider registers the same manager).
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
registerTelemetry(new OpenTelemetry({ tracer: provider.getTracer("ai") }));

function freshFacts(scenario, side) {
  return {
    tool_calls: [],
    llm_calls: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    final_output: null,
    failNextWeather: scenario === "error_retry" && side === "candidate",
  };
}

const SYSTEM = "You are a weather assistant. Use the tools.";

// One run of the script on one AI SDK generation; the finished spans as ReadableSpan fields.
async function runOnce(scenario, side, generation) {
  facts = freshFacts(scenario, side);
  exporter.reset();
  const turns = script(scenario, side);
  const common = { system: SYSTEM, prompt: TASK };
  if (generation === 5) {
    await generateText5({
      ...common,
      model: model5(turns),
      tools: toolsWith(tool5),
      stopWhen: stepCountIs(8),
      experimental_telemetry: {
        isEnabled: true,
        tracer: provider.getTracer("ai"),
        functionId: "weather-assistant",
      },
    });
  } else {
    await generateText({
      ...common,
      model: model(turns),
      tools: toolsWith(tool),
      stopWhen: isStepCount(8),
      telemetry: { functionId: "weather-assistant" },
    });
  }
  await provider.forceFlush();
  return exporter.getFinishedSpans().map(readable);
}

const HERE = fileURLToPath(new URL(".", import.meta.url));

function write(path, data) {
  // Exception stack traces name this machine's folders: write them relative to this folder.
  const text = JSON.stringify(data, null, 1).replaceAll(HERE, "/capture/js/");
  writeFileSync(path, text + "\n", "utf8");
}

const root = join(process.argv[2] ?? "tests/fixtures/real", SOURCE);
for (const scenario of SCENARIOS) {
  const folder = join(root, scenario);
  mkdirSync(folder, { recursive: true });
  for (const side of ["baseline", "candidate"]) {
    const spans5 = await runOnce(scenario, side, 5);
    const facts5 = JSON.stringify(facts);
    const spans = await runOnce(scenario, side, 7);
    if (JSON.stringify(facts) !== facts5) throw new Error(`${scenario}/${side}: runs differ`);
    write(join(folder, `${side}.readable_spans.json`), spans);
    write(join(folder, `${side}.ai5_spans.json`), spans5);
    const { failNextWeather, ...recorded } = facts;
    write(join(folder, `${side}.facts.json`), {
      source: SOURCE,
      scenario,
      side,
      agent_name: "weather-assistant",
      ...recorded,
      total_tokens: recorded.prompt_tokens + recorded.completion_tokens,
      cost_usd: null,
      produced_by: PRODUCED_BY,
    });
    console.log(`${SOURCE}/${scenario}/${side}: ${spans.length} spans`);
  }
}
write(join(root, "manifest.json"), {
  source: SOURCE,
  capture_script: "scripts/capture/js/capture.mjs",
  produced_by: PRODUCED_BY,
  shapes: {
    readable_spans: {
      adapter: "openinference",
      file: "<side>.readable_spans.json",
      emulated: false,
      description:
        "Vercel AI SDK generateText traced by @ai-sdk/otel on the OTel JS SDK: the " +
        "InMemorySpanExporter's finished spans as their ReadableSpan fields (spanContext(), " +
        "parentSpanContext, hrtime [s, ns] times, gen_ai.* attributes)",
    },
    ai5_spans: {
      adapter: "openinference",
      file: "<side>.ai5_spans.json",
      emulated: false,
      description:
        "the same script on ai 5 with experimental_telemetry (a separate run): ReadableSpan " +
        "fields as above, Vercel ai.* attributes beside gen_ai.*",
    },
  },
});
