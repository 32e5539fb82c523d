// Calls a switchboard tool that reports progress through a real MCP client
// SDK and reports what the SDK's progress callback saw, as one JSON object
// on stdout.
//
// Why it exists: the TypeScript SDKs run notification handlers on a later
// microtask but handle a response at once (and drop the request's progress
// handler then), so a progress notification that arrives in the same read
// as its response is lost. This script measures that from the SDK's side.
//
// Usage: node progress.mjs <sdk> <transport> <rounds> <switchboard binary>
// <sdk> is `v1` (@modelcontextprotocol/sdk) or `v2` (@modelcontextprotocol/client);
// <transport> is `stdio` (the SDK spawns `switchboard serve --fixtures
// conformance`) or `http` (this script starts it with `--http 127.0.0.1:0`
// and stops it at the end).
// Each round is one tools/call of the conformance fixture
// `test_tool_with_progress` (progress 0, 50, 100, then its result).
//
// Output: {"sdk", "transport", "rounds": [{"seen": [..], "late": [..],
// "text": ..}], "errors": [..]}. `seen` are the progress values the callback
// received before callTool resolved, `late` those after it, and `errors`
// what the SDK reported through onerror (a lost notification shows up there
// as "unknown token").

import { sdkAndTransport } from "./server.mjs";

const [sdk, transportKind, roundsArg, binary] = process.argv.slice(2);
const rounds = Number(roundsArg);
if (!["v1", "v2"].includes(sdk) || !["stdio", "http"].includes(transportKind) || !(rounds > 0) || !binary) {
    console.error("usage: node progress.mjs v1|v2 stdio|http <rounds> <switchboard binary>");
    process.exit(2);
}

/** A client of the SDK under test, connected over the chosen transport. */
async function connect() {
    const { Client, transport } = await sdkAndTransport(sdk, transportKind, binary);
    const client = new Client({ name: `progress-probe-${sdk}`, version: "1.0.0" }, { capabilities: {} });
    const errors = [];
    client.onerror = (e) => errors.push(String(e?.message ?? e));
    await client.connect(transport);
    return { client, errors };
}

/** One tools/call; progress values split by whether they beat the result. */
async function oneRound(client) {
    const seen = [];
    const late = [];
    let resolved = false;
    const onprogress = (p) => (resolved ? late : seen).push(p.progress);
    const params = { name: "test_tool_with_progress", arguments: {} };
    const options = { onprogress, timeout: 30_000 };
    const result =
        sdk === "v1" ? await client.callTool(params, undefined, options) : await client.callTool(params, options);
    resolved = true;
    // Anything still queued (the lost notification's handler runs on a later
    // microtask) lands in `late` or in `errors` before the next round.
    await new Promise((r) => setTimeout(r, 20));
    return { seen: [...seen], late, text: result.content?.[0]?.text ?? null };
}

const { client, errors } = await connect();
const results = [];
for (let i = 0; i < rounds; i++) {
    results.push(await oneRound(client));
}
await client.close();
console.log(JSON.stringify({ sdk, transport: transportKind, rounds: results, errors }));
process.exit(0);
