// Runs switchboard's task-capable fixture tools as tasks through the v1
// SDK's task client (@modelcontextprotocol/sdk `client.experimental.tasks`,
// the 2025-11-25 tasks model), and prints what it saw as one JSON object.
//
// Usage: node tasks.mjs <transport> <switchboard binary>
// <transport>: `stdio` or `http` (as in progress.mjs).
// Output: {"transport", "taskSupport": the slow_compute tool's
// execution.taskSupport as listed, "stream": [message types of
// callToolStream], "text": the result's text, "listed": whether tasks/list
// showed the task, "cancelled": the status after tasks/cancel, "errors"}.

import { sdkAndTransport } from "./server.mjs";

const [transportKind, binary] = process.argv.slice(2);
if (!["stdio", "http"].includes(transportKind) || !binary) {
    console.error("usage: node tasks.mjs stdio|http <switchboard binary>");
    process.exit(2);
}

const { Client, transport } = await sdkAndTransport("v1", transportKind, binary);
const capabilities = { tasks: { list: {}, cancel: {} } };
const client = new Client({ name: "tasks-probe", version: "1.0.0" }, { capabilities });
const errors = [];
client.onerror = (e) => errors.push(String(e?.message ?? e));
await client.connect(transport);

const report = { transport: transportKind, stream: [], text: null, listed: false, cancelled: null, errors };
const tools = await client.listTools();
report.taskSupport = tools.tools.find((t) => t.name === "slow_compute")?.execution?.taskSupport ?? null;

// A short computation run as a task: taskCreated, status updates, result.
let taskId;
const stream = client.experimental.tasks.callToolStream(
    { name: "slow_compute", arguments: { seconds: 0.3, label: "sdk" } },
    undefined,
    { timeout: 30_000 },
);
for await (const message of stream) {
    report.stream.push(message.type);
    if (message.type === "taskCreated") taskId = message.task.taskId;
    if (message.type === "result") report.text = message.result.content?.[0]?.text ?? null;
    if (message.type === "error") errors.push(String(message.error?.message ?? message.error));
}
const listed = await client.experimental.tasks.listTasks();
report.listed = listed.tasks.some((t) => t.taskId === taskId);

// A long one, cancelled: its status afterwards.
const long = client.experimental.tasks.callToolStream(
    { name: "slow_compute", arguments: { seconds: 120, label: "cancel-me" } },
    undefined,
    { timeout: 30_000 },
);
for await (const message of long) {
    if (message.type === "taskCreated") {
        await client.experimental.tasks.cancelTask(message.task.taskId);
        report.cancelled = (await client.experimental.tasks.getTask(message.task.taskId)).status;
        break;
    }
}
await client.close();
console.log(JSON.stringify(report));
process.exit(0);
