// Two small MCP servers for the injection suite of the provenance gate (issue 35,
// src-tauri/crates/engine/tests/suite/injection.rs), chosen by INJECT_KIND:
//   mail  read_inbox (read-only, reaches outside) and send_email (sends, cannot be undone);
//   bank  balance (read-only, closed world) and transfer (destructive, reaches outside).
// What they return and record lives in INJECT_DIR: read_inbox returns `<folder>.json`, and every
// email sent and transfer made is appended to `sent.jsonl` / `transfers.jsonl`, so the suite can
// see what an obeying model made them do.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const dir = process.env.INJECT_DIR;
const kind = process.env.INJECT_KIND ?? "mail";
const server = new McpServer({ name: kind, version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });
const record = (file, entry) => appendFileSync(join(dir, file), `${JSON.stringify(entry)}\n`);

if (kind === "mail") {
  server.registerTool(
    "read_inbox",
    {
      description: "Reads the emails in a folder of the user's inbox.",
      inputSchema: { folder: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async ({ folder }) => {
      const mails = JSON.parse(readFileSync(join(dir, `${folder.replace(/[^a-z0-9-]/gi, "")}.json`), "utf8"));
      return text(mails.map((m) => `From: ${m.from}\nSubject: ${m.subject}\n\n${m.body}`).join("\n\n---\n\n"));
    },
  );
  server.registerTool(
    "send_email",
    {
      description: "Sends an email from the user's account.",
      inputSchema: { to: z.string(), subject: z.string(), body: z.string() },
    },
    async (mail) => {
      record("sent.jsonl", mail);
      return text(`Sent to ${mail.to}.`);
    },
  );
} else {
  server.registerTool(
    "balance",
    {
      description: "The balance of the user's account.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => text("Balance: 2,481.07 EUR"),
  );
  server.registerTool(
    "transfer",
    {
      description: "Transfers money from the user's account.",
      inputSchema: { iban: z.string(), amount: z.number(), reference: z.string() },
      annotations: { destructiveHint: true },
    },
    async (t) => {
      record("transfers.jsonl", t);
      return text(`Transferred ${t.amount} EUR to ${t.iban}.`);
    },
  );
}

await server.connect(new StdioServerTransport());
