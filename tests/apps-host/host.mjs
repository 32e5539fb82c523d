// The host side of the MCP Apps browser test, bundled for the browser by
// driver.mjs (esbuild). It does what a chat host does with a tool that has a
// view, with the official pieces only: the TypeScript client
// (@modelcontextprotocol/client) connects to switchboard over Streamable
// HTTP, and the official host bridge (AppBridge from
// @modelcontextprotocol/ext-apps/app-bridge) talks to the view.
//
// window.runHost(config) lists the tools, calls config.tool, reads the view
// its _meta names (a ui:// resource), renders it in an iframe sandboxed to
// scripts only with the Content-Security-Policy its _meta.ui.csp allows,
// passes the tool's input and result through the bridge, and forwards the
// view's tools/call requests to the server only for tools whose visibility
// includes "app". It returns a report (JSON-able) of what it saw.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
    AppBridge,
    PostMessageTransport,
    RESOURCE_MIME_TYPE,
    buildAllowAttribute,
    getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const UI_EXTENSION = "io.modelcontextprotocol/ui";

/** Keeps a CSP source only if it is a plain origin (no quotes, spaces, `;` or `,`). */
function cspSource(origin) {
    return typeof origin === "string" && /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(origin);
}

/** The policy for a view, from its `_meta.ui.csp` (the specification's defaults otherwise). */
export function viewCsp(csp = {}) {
    const list = (key) => (Array.isArray(csp[key]) ? csp[key].filter(cspSource) : []);
    const resources = list("resourceDomains").join(" ");
    const connect = list("connectDomains").join(" ");
    const frames = list("frameDomains").join(" ");
    const bases = list("baseUriDomains").join(" ");
    return [
        "default-src 'none'",
        `script-src 'unsafe-inline' ${resources}`,
        `style-src 'unsafe-inline' ${resources}`,
        `img-src data: ${resources}`,
        `font-src ${resources || "'none'"}`,
        `media-src data: ${resources}`,
        `connect-src ${connect || "'none'"}`,
        `frame-src ${frames || "'none'"}`,
        "object-src 'none'",
        `base-uri ${bases || "'none'"}`,
        "form-action 'none'",
    ].join("; ");
}

/** The view's HTML with the policy as the first thing its document reads. */
function withCsp(html, policy) {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, "&quot;")}">`;
    const head = /<head[^>]*>/i;
    return head.test(html) ? html.replace(head, (tag) => `${tag}${meta}`) : `${meta}${html}`;
}

function textOf(result) {
    return (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

window.runHost = async function runHost(config) {
    const report = { steps: [], viewCalls: [], refusedViewCalls: [], errors: [] };
    window.hostReport = report;
    const step = (name, detail) => report.steps.push(detail === undefined ? name : { [name]: detail });
    const clientOptions = {
        capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
    };
    clientOptions.versionNegotiation = config.era === "legacy" ? { mode: "legacy" } : { mode: { pin: config.era } };
    const client = new Client({ name: "switchboard-apps-test-host", version: "1.0.0" }, clientOptions);
    client.onerror = (e) => report.errors.push(`client: ${e?.message ?? e}`);
    await client.connect(new StreamableHTTPClientTransport(new URL(config.mcpUrl)));
    report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
    report.serverExtensions = Object.keys(client.getServerCapabilities()?.extensions ?? {});

    const { tools } = await client.listTools();
    report.tools = tools.map((t) => ({ name: t.name, ui: t._meta?.ui ?? null, flatUri: t._meta?.["ui/resourceUri"] ?? null }));
    const tool = tools.find((t) => t.name === config.tool);
    if (!tool) throw new Error(`the server lists no tool ${config.tool}: ${tools.map((t) => t.name).join(", ")}`);
    const uri = getToolUiResourceUri(tool);
    if (!uri) throw new Error(`tool ${config.tool} names no view in its _meta`);
    report.resourceUri = uri;
    const visibility = new Map(tools.map((t) => [t.name, t._meta?.ui?.visibility ?? ["model", "app"]]));

    const result = await client.callTool({ name: config.tool, arguments: config.arguments ?? {} });
    report.toolResultText = textOf(result);
    step("called", config.tool);

    const read = await client.readResource({ uri });
    const content = read.contents.find((c) => c.uri === uri) ?? read.contents[0];
    report.resourceMimeType = content.mimeType;
    report.resourceMeta = content._meta ?? null;
    const html = content.text ?? new TextDecoder().decode(Uint8Array.from(atob(content.blob), (ch) => ch.charCodeAt(0)));
    const ui = content._meta?.ui ?? {};
    report.csp = viewCsp(ui.csp);

    const iframe = document.createElement("iframe");
    iframe.id = "view";
    // Scripts and forms, as the reference host's view frame: no same origin
    // (the view cannot reach this page, its storage or the client), no
    // popups, no top navigation; the CSP's form-action 'none' keeps a
    // submitted form from going anywhere.
    iframe.setAttribute("sandbox", "allow-scripts allow-forms");
    const allow = buildAllowAttribute(ui.permissions);
    if (allow) iframe.setAttribute("allow", allow);
    if (ui.prefersBorder === false) iframe.style.border = "none";
    document.getElementById("frame-slot").append(iframe);
    document.getElementById("title").textContent = `${config.tool} → ${uri}`;

    const bridge = new AppBridge(
        client,
        { name: "switchboard-apps-test-host", version: "1.0.0" },
        { serverTools: {}, serverResources: {}, logging: {} },
        { hostContext: { theme: "light", displayMode: "inline", platform: "web" } },
    );
    const initialized = new Promise((resolve) => {
        bridge.oninitialized = () => resolve();
    });
    bridge.onloggingmessage = (params) => step("view-log", params?.data ?? null);
    await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    // After connect (which wires forwarding to the client): the view may call
    // only tools whose visibility includes "app", as the specification asks
    // of hosts; the call itself goes to the server through the same client.
    bridge.oncalltool = async (params) => {
        const allowed = (visibility.get(params.name) ?? []).includes("app");
        if (!allowed) {
            report.refusedViewCalls.push(params.name);
            return { content: [{ type: "text", text: `the host refused ${params.name}: not visible to apps` }], isError: true };
        }
        // The view's own progress token means nothing to this client (the
        // server would report progress against it): leave it out.
        const { progressToken: _viewToken, ...meta } = params._meta ?? {};
        const forwarded = { name: params.name, arguments: params.arguments ?? {} };
        if (Object.keys(meta).length > 0) forwarded._meta = meta;
        const answer = await client.callTool(forwarded);
        report.viewCalls.push({ name: params.name, arguments: params.arguments ?? {}, text: textOf(answer) });
        return answer;
    };
    iframe.srcdoc = withCsp(html, report.csp);
    await initialized;
    step("view-initialized", bridge.getAppVersion() ?? null);
    await bridge.sendToolInput({ arguments: config.arguments ?? {} });
    await bridge.sendToolResult(result);
    step("sent-input-and-result");
    window.hostBridge = bridge;
    return report;
};
