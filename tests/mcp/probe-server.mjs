// A small MCP server for the tests of what server-everything cannot show: whether a cancelled
// call reaches the server (it writes PROBE_MARKER when the request is aborted) and what happens
// when a server dies mid-session.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { writeFileSync } from "node:fs";
import { z } from "zod";

const marker = process.env.PROBE_MARKER;
const server = new McpServer(
  { name: "probe", version: "1.0.0" },
  { instructions: "Probe server for Tollgate's tests." },
);

server.registerTool(
  "wait",
  {
    description: "Waits the given seconds, or until the call is cancelled.",
    inputSchema: { seconds: z.number() },
    annotations: { readOnlyHint: true },
  },
  async ({ seconds }, extra) =>
    new Promise((resolve) => {
      const timer = setTimeout(
        () => resolve({ content: [{ type: "text", text: `waited ${seconds} s` }] }),
        seconds * 1000,
      );
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        if (marker) writeFileSync(marker, `cancelled: ${extra.signal.reason ?? ""}`);
        resolve({ content: [{ type: "text", text: "cancelled" }] });
      });
    }),
);

server.registerTool(
  "crash",
  { description: "Exits the server process.", inputSchema: {} },
  async () => {
    process.stderr.write("probe: crashing on purpose\n");
    setTimeout(() => process.exit(3), 10);
    return new Promise(() => {});
  },
);

await server.connect(new StdioServerTransport());
