// What the scripts of clients/ share: starting `switchboard serve --http`
// with the conformance fixtures for the duration of the script.

import { spawn } from "node:child_process";

/**
 * Starts `<binary> serve --fixtures conformance --http 127.0.0.1:0` and
 * resolves to its URL (10 s at most); the server ends when the script does.
 */
export function startHttpServer(binary) {
    const server = spawn(binary, ["serve", "--fixtures", "conformance", "--http", "127.0.0.1:0"], {
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
