// Calls switchboard's tools that ask the client for input (elicitation,
// sampling, roots) through a real MCP client SDK, and prints what came back
// as one JSON object on stdout.
//
// The same server handlers answer both eras: the v1 SDK
// (@modelcontextprotocol/sdk) speaks a handshake revision, so the server
// sends live elicitation/sampling/roots requests that the SDK's request
// handlers answer; the v2 client (@modelcontextprotocol/client), pinned to
// 2026-07-28, gets `input_required` results (multi round-trip requests) and
// fulfils them through the SAME handlers before retrying with
// `inputResponses` and the echoed `requestState`.
//
// Usage: node input.mjs <sdk> <transport> <switchboard binary>
// <sdk>: `v1` or `v2`; <transport>: `stdio` or `http` (as in progress.mjs).
// Output: {"sdk", "transport", "version" (the revision the SDK speaks),
// "server" (the server's name), "calls": {name: text}, "asked": [methods
// the handlers answered],
// "errors": [..]}.

import { sdkAndTransport } from "./server.mjs";

const [sdk, transportKind, binary] = process.argv.slice(2);
if (!["v1", "v2"].includes(sdk) || !["stdio", "http"].includes(transportKind) || !binary) {
    console.error("usage: node input.mjs v1|v2 stdio|http <switchboard binary>");
    process.exit(2);
}

const asked = [];
const answers = {
    "elicitation/create": (request) => {
        asked.push("elicitation/create");
        const props = Object.keys(request.params?.requestedSchema?.properties ?? {});
        const content = Object.fromEntries(props.map((p) => [p, p === "confirm" || p === "ok" ? true : `${p}-answer`]));
        return { action: "accept", content };
    },
    "sampling/createMessage": () => {
        asked.push("sampling/createMessage");
        return { role: "assistant", content: { type: "text", text: "Paris" }, model: "probe", stopReason: "endTurn" };
    },
    "roots/list": () => {
        asked.push("roots/list");
        return { roots: [{ uri: "file:///probe/root", name: "probe" }] };
    },
};

async function connect() {
    const v1 = sdk === "v1";
    const { Client, transport } = await sdkAndTransport(sdk, transportKind, binary);
    const capabilities = { elicitation: {}, sampling: {}, roots: {} };
    const options = v1 ? { capabilities } : { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } };
    const client = new Client({ name: `input-probe-${sdk}`, version: "1.0.0" }, options);
    if (v1) {
        const types = await import("@modelcontextprotocol/sdk/types.js");
        client.setRequestHandler(types.ElicitRequestSchema, answers["elicitation/create"]);
        client.setRequestHandler(types.CreateMessageRequestSchema, answers["sampling/createMessage"]);
        client.setRequestHandler(types.ListRootsRequestSchema, answers["roots/list"]);
    } else {
        for (const [method, handler] of Object.entries(answers)) {
            client.setRequestHandler(method, handler);
        }
    }
    const errors = [];
    client.onerror = (e) => errors.push(String(e?.message ?? e));
    await client.connect(transport);
    return { client, errors };
}

const { client, errors } = await connect();
// The revision the SDK speaks: v1 has no getter (always a handshake revision).
const version = client.getNegotiatedProtocolVersion?.() ?? "handshake";
const calls = {};
const timeout = { timeout: 30_000 };
for (const name of [
    "test_input_required_result_elicitation",
    "test_input_required_result_multi_round",
    "test_input_required_result_multiple_inputs",
]) {
    try {
        const params = { name, arguments: {} };
        const result = sdk === "v1" ? await client.callTool(params, undefined, timeout) : await client.callTool(params, timeout);
        calls[name] = result.content?.[0]?.text ?? null;
    } catch (e) {
        errors.push(`${name}: ${e?.message ?? e}`);
    }
}
try {
    const prompt = await client.getPrompt({ name: "test_input_required_result_prompt", arguments: {} }, timeout);
    calls.test_input_required_result_prompt = prompt.messages?.[0]?.content?.text ?? null;
} catch (e) {
    errors.push(`prompt: ${e?.message ?? e}`);
}
// The server's own name says whether a gateway was in between.
const server = client.getServerVersion()?.name ?? null;
await client.close();
console.log(JSON.stringify({ sdk, transport: transportKind, version, server, calls, asked, errors }));
process.exit(0);
