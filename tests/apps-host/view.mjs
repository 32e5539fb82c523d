// A view for the browser test, built by `driver.mjs view` into one HTML file
// (esbuild inlines this script and the official App class of
// @modelcontextprotocol/ext-apps): views in the wild are built the same way.
//
// It shows the tool input and result the host passes, then calls the tool
// named in its #view-config (an app-only tool) through the host and shows
// that answer; it also tries a fetch its CSP does not allow and shows the
// violation, so the test sees the host's policy at work.

import { App } from "@modelcontextprotocol/ext-apps";

const config = JSON.parse(document.getElementById("view-config")?.textContent ?? "{}");
const show = (id, text) => {
    document.getElementById(id).textContent = text;
};
const textOf = (result) => (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

document.addEventListener("securitypolicyviolation", (e) => show("csp", `blocked by ${e.effectiveDirective}: ${e.blockedURI}`));

const app = new App({ name: "switchboard-test-view", version: "1.0.0" }, {});
app.ontoolinput = (params) => show("input", JSON.stringify(params.arguments ?? {}));
app.ontoolresult = async (result) => {
    show("result", textOf(result));
    if (config.appTool) {
        try {
            const answer = await app.callServerTool({ name: config.appTool, arguments: config.appArguments ?? {} });
            show("app-call", textOf(answer));
        } catch (e) {
            show("app-call", `error: ${e?.message ?? e}`);
        }
    }
};
await app.connect();
show("status", "connected");
fetch(config.cspProbe ?? "http://127.0.0.1:9/csp-probe").catch(() => {});
