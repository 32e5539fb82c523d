// The MCP Apps view side, written for switchboard's built-in views: JSON-RPC
// 2.0 over postMessage with the host (specification 2026-01-26). The view
// sends ui/initialize, then ui/notifications/initialized; the host sends
// ui/notifications/tool-input and ui/notifications/tool-result; tools/call
// from the view goes through the host to the server. No network, no bundle.
const bridge = (() => {
  const handlers = {};
  const pending = new Map();
  let nextId = 1;
  let context = {};
  const send = (message) => window.parent.postMessage(message, "*");
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && message.id !== undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message || "error"));
      else waiting.resolve(message.result);
      return;
    }
    if (message.method === "ui/notifications/host-context-changed") {
      context = Object.assign(context, message.params || {});
      theme();
    }
    const handler = handlers[message.method];
    if (message.id !== undefined) {
      // A request from the host (ping, ui/resource-teardown): nothing to release.
      send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
    if (handler) handler(message.params || {});
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ jsonrpc: "2.0", id, method, params });
      setTimeout(() => {
        if (pending.delete(id)) reject(new Error(method + ": no answer from the host"));
      }, 60000);
    });
  const notify = (method, params) => send({ jsonrpc: "2.0", method, params });
  const theme = () => {
    if (context.theme === "dark" || context.theme === "light") {
      document.documentElement.dataset.theme = context.theme;
    }
  };
  const size = () => {
    const box = document.documentElement.getBoundingClientRect();
    notify("ui/notifications/size-changed", { width: Math.ceil(box.width), height: Math.ceil(box.height) });
  };
  return {
    on(method, handler) {
      handlers[method] = handler;
    },
    context: () => context,
    async start(name) {
      const result = await request("ui/initialize", {
        protocolVersion: "2026-01-26",
        appInfo: { name, version: "1.0.0" },
        appCapabilities: {},
      });
      context = (result && result.hostContext) || {};
      theme();
      notify("ui/notifications/initialized", {});
      if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
      size();
      return result;
    },
    callTool(name, args) {
      return request("tools/call", { name, arguments: args });
    },
  };
})();

// Text of a tool result's content blocks (the fallback every host gets).
function resultText(result) {
  return ((result && result.content) || [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

// A new element with text (never markup: results are data from the project).
function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}
