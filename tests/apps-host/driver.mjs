// The MCP Apps browser test's driver (run through run.sh, which installs the
// pinned packages and Node 22).
//
//   node driver.mjs view OUT.html TITLE CONFIG_JSON
//       Writes a view: one HTML file with view.mjs and the official App
//       class bundled in (esbuild); CONFIG_JSON ({"appTool", "appArguments"})
//       goes into its #view-config.
//   node driver.mjs render CONFIG_JSON
//       Serves host.html and the bundled host.mjs on 127.0.0.1:hostPort,
//       opens it in headless Chromium (puppeteer-core; config.chromium is the
//       binary), runs window.runHost(config), then config.steps in the view:
//       {"expect": [strings]} waits until the view's text has them all,
//       {"click": selector} clicks, {"type": [selector, text]} replaces a
//       field's text, {"screenshot": name} saves name.png beside
//       config.screenshot. Saves a
//       screenshot to config.screenshot and prints one JSON report on stdout:
//       {"host": <runHost's report>, "steps": [each step, an expect with
//       "missing": [strings never shown]], "viewText", "console": [browser
//       console lines]}.
//
// Bounded: every wait has a deadline (config.timeoutMs, default 30 s).

import { createServer } from "node:http";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import puppeteer from "puppeteer-core";

const here = dirname(fileURLToPath(import.meta.url));
const [command, ...args] = process.argv.slice(2);

async function bundle(entry, format) {
    const out = await build({
        entryPoints: [join(here, entry)],
        bundle: true,
        format,
        platform: "browser",
        target: "es2022",
        minify: true,
        write: false,
        logLevel: "error",
    });
    return out.outputFiles[0].text;
}

async function writeView(path, title, config) {
    const script = (await bundle("view.mjs", "esm")).replace(/<\/script/gi, "<\\/script");
    const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escape(title)}</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 12px; color: #18181b; }
  h2 { font-size: 15px; margin: 0 0 8px; }
  dt { font-weight: 600; margin-top: 8px; }
  dd { margin: 2px 0 0 12px; font-family: ui-monospace, monospace; white-space: pre-wrap; }
</style>
</head>
<body>
<h2>${escape(title)}</h2>
<dl>
  <dt>status</dt><dd id="status">waiting for the host</dd>
  <dt>tool input</dt><dd id="input">(none yet)</dd>
  <dt>tool result</dt><dd id="result">(none yet)</dd>
  <dt>app-only tool, called from this view</dt><dd id="app-call">(not called)</dd>
  <dt>content security policy</dt><dd id="csp">(no violation seen)</dd>
</dl>
<script type="application/json" id="view-config">${escape(JSON.stringify(config))}</script>
<script type="module">${script}</script>
</body>
</html>
`;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, html);
}

function serveHost(port, hostJs) {
    const files = {
        "/": ["text/html; charset=utf-8", readFileSync(join(here, "host.html"))],
        "/host.html": ["text/html; charset=utf-8", readFileSync(join(here, "host.html"))],
        "/host.js": ["text/javascript; charset=utf-8", hostJs],
    };
    const server = createServer((req, res) => {
        const file = files[new URL(req.url, "http://host").pathname];
        if (!file) {
            res.writeHead(404).end();
            return;
        }
        res.writeHead(200, { "content-type": file[0], "cache-control": "no-store" }).end(file[1]);
    });
    return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => resolve(server));
    });
}

async function render(config) {
    const timeoutMs = config.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    const server = await serveHost(config.hostPort, await bundle("host.mjs", "esm"));
    const browser = await puppeteer.launch({
        executablePath: config.chromium,
        headless: true,
        // --no-sandbox: Chromium's own process sandbox needs user namespaces
        // that containers (and root) often lack; the view's iframe sandbox and
        // CSP, which this test is about, are enforced all the same.
        args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
        timeout: timeoutMs,
    });
    const consoleLines = [];
    try {
        const page = await browser.newPage();
        await page.setViewport({ width: 800, height: 600 });
        page.on("console", (m) => m.type() !== "debug" && consoleLines.length < 200 && consoleLines.push(`${m.type()}: ${m.text()}`.slice(0, 500)));
        page.on("pageerror", (e) => consoleLines.length < 200 && consoleLines.push(`pageerror: ${e.message}`.slice(0, 500)));
        await page.goto(`http://127.0.0.1:${config.hostPort}/host.html`, { timeout: timeoutMs });
        await page.waitForFunction(() => typeof window.runHost === "function", { timeout: timeoutMs });
        let host;
        try {
            host = await page.evaluate((c) => window.runHost(c), config);
        } catch (e) {
            host = { failed: String(e?.message ?? e) };
        }
        // The steps: wait for text in the view, click in it, type into it.
        const steps = [];
        let viewText = "";
        const viewFrame = () => page.frames().find((f) => f !== page.mainFrame());
        for (const action of host.failed ? [] : (config.steps ?? [])) {
            const done = { ...action };
            if (action.expect) {
                let missing = action.expect;
                while (Date.now() < deadline) {
                    const frame = viewFrame();
                    viewText = frame ? await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "") : "";
                    missing = action.expect.filter((s) => !viewText.includes(s));
                    if (missing.length === 0) break;
                    await new Promise((r) => setTimeout(r, 100));
                }
                done.missing = missing;
            } else if (action.type) {
                const [selector, text] = action.type;
                // Replace what the field holds (a view may prefill it).
                await viewFrame().$eval(selector, (field) => {
                    field.value = "";
                });
                await viewFrame().type(selector, text);
            } else if (action.click) {
                await viewFrame().click(action.click);
            } else if (action.screenshot) {
                // A named screenshot beside config.screenshot, mid-way.
                await page.screenshot({ path: join(dirname(config.screenshot), `${action.screenshot}.png`) });
            }
            steps.push(done);
            if (done.missing?.length) break;
        }
        const frame = viewFrame();
        viewText = frame ? await frame.evaluate(() => document.body?.innerText ?? "").catch(() => "") : viewText;
        if (!host.failed) host = await page.evaluate(() => window.hostReport);
        if (config.screenshot) {
            mkdirSync(dirname(config.screenshot), { recursive: true });
            await page.screenshot({ path: config.screenshot, fullPage: true });
        }
        return { host, steps, viewText, console: consoleLines };
    } finally {
        await browser.close();
        server.close();
    }
}

if (command === "view") {
    const [out, title, config] = args;
    await writeView(out, title, JSON.parse(config ?? "{}"));
    console.log(JSON.stringify({ wrote: out }));
} else if (command === "render") {
    const report = await render(JSON.parse(args[0]));
    console.log(JSON.stringify(report));
} else {
    console.error("usage: driver.mjs view OUT.html TITLE CONFIG_JSON | driver.mjs render CONFIG_JSON");
    process.exit(2);
}
