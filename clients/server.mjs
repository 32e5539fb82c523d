// What the scripts of clients/ share: the SDK under test and a transport
// to `switchboard serve --fixtures conformance` (a child on stdio, or an
// HTTP server started for the duration of the script). SWITCHBOARD_SERVE,
// a JSON array, replaces those `serve` arguments (a test serves a folder
// whose switchboard.toml puts the fixtures behind an upstream).

/** The arguments that start the server under test, before `--http`. */
function serveArgs() {
    const given = process.env.SWITCHBOARD_SERVE;
    return given ? JSON.parse(given) : ["serve", "--fixtures", "conformance"];
}

import { spawn } from "node:child_process";

/**
 * Starts `<binary> <serveArgs> --http 127.0.0.1:0` and
 * resolves to its URL (10 s at most); the server ends when the script does.
 */
function startHttpServer(binary) {
    const server = spawn(binary, [...serveArgs(), "--http", "127.0.0.1:0"], {
        stdio: ["ignore", "pipe", "inherit"],
    });
    process.on("exit", () => server.kill());
    return new Promise((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`no URL within 10 s: ${out}`)), 10_000);
        server.on("exit", (code) => reject(new Error(`switchboard exited with ${code}: ${out}`)));
        server.stdout.on("data", (chunk) => {
            out += chunk;
            const url = out.match(/http:\/\/\S+/);
            if (url) {
                clearTimeout(timer);
                resolve(url[0]);
            }
        });
    });
}

/**
 * The `Client` class of the SDK under test (`v1`: @modelcontextprotocol/sdk,
 * `v2`: @modelcontextprotocol/client) and a transport to switchboard over
 * `transportKind` (`stdio`: the SDK spawns it; `http`: started here).
 */
export async function sdkAndTransport(sdk, transportKind, binary) {
    const v1 = sdk === "v1";
    const { Client } = await import(v1 ? "@modelcontextprotocol/sdk/client/index.js" : "@modelcontextprotocol/client");
    if (transportKind === "stdio") {
        const { StdioClientTransport } = await import(
            v1 ? "@modelcontextprotocol/sdk/client/stdio.js" : "@modelcontextprotocol/client/stdio"
        );
        const args = serveArgs();
        return { Client, transport: new StdioClientTransport({ command: binary, args, stderr: "inherit" }) };
    }
    const { StreamableHTTPClientTransport } = await import(
        v1 ? "@modelcontextprotocol/sdk/client/streamableHttp.js" : "@modelcontextprotocol/client"
    );
    return { Client, transport: new StreamableHTTPClientTransport(new URL(await startHttpServer(binary))) };
}
