// Remote MCP servers whose sign-in goes wrong in one way each (SPEC §11), for the engine's tests
// of the messages Tollgate gives. One process, one HTTP server on PORT, MODE picks the fault:
//
//   no-metadata  the MCP endpoint answers 401 but nothing says where to sign in
//   wrong-iss    the authorization server's metadata names another issuer
//   redirect     the protected resource metadata redirects to another host (OTHER_PORT)
//   token-error  everything works until the token endpoint, which refuses the code
//   recorder     a server that wants a sign-in and writes every Authorization header it is sent
//                to RECORD (one per line), so a test can see that no other server's token
//                reaches it
//   late         lets the session start and lists one tool, `write_note`, but answers a call of
//                it with 403 insufficient_scope asking for "notes:write" (a step-up, F-96);
//                with LATE=list it answers the tool list itself with 401 asking for "notes:read"
//
// It prints "listening <port>" when it listens.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

const mode = process.env.MODE;
const port = Number(process.env.PORT ?? 0);
const other = Number(process.env.OTHER_PORT ?? 0);
const record = process.env.RECORD;

const server = createServer(async (req, res) => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const url = new URL(req.url, base);
  const json = (status, body) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  let body = "";
  for await (const chunk of req) body += chunk;
  if (mode === "recorder" && req.headers.authorization) appendFileSync(record, `${req.headers.authorization}\n`);

  if (url.pathname === "/mcp" && mode === "late") {
    if (req.method !== "POST") return json(405, { error: "method not allowed" });
    const msg = JSON.parse(body || "{}");
    const metadata = `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
    const reply = (result) => json(200, { jsonrpc: "2.0", id: msg.id, result });
    if (msg.method === "initialize") {
      return reply({
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "late-fake", version: "1.0.0" },
      });
    }
    if (msg.id === undefined) {
      res.writeHead(202);
      res.end();
      return;
    }
    if (msg.method === "tools/list" && process.env.LATE === "list") {
      res.writeHead(401, { "www-authenticate": `Bearer ${metadata}, scope="notes:read"` });
      res.end();
      return;
    }
    if (msg.method === "tools/list") {
      return reply({ tools: [{ name: "write_note", description: "Writes a note.", inputSchema: { type: "object" } }] });
    }
    if (msg.method === "tools/call") {
      res.writeHead(403, { "www-authenticate": `Bearer error="insufficient_scope", scope="notes:write", ${metadata}` });
      res.end();
      return;
    }
    return json(200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } });
  }
  if (url.pathname === "/mcp") {
    const challenge =
      mode === "no-metadata"
        ? 'Bearer error="invalid_token"'
        : `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
    res.writeHead(401, { "www-authenticate": challenge, "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid_token" }));
    return;
  }
  if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
    if (mode === "no-metadata") return json(404, { error: "not found" });
    if (mode === "redirect") {
      res.writeHead(302, { location: `http://localhost:${other}${url.pathname}` });
      res.end();
      return;
    }
    return json(200, { resource: `${base}/mcp`, authorization_servers: [`${base}/as`], scopes_supported: ["mcp:tools"] });
  }
  if (url.pathname.startsWith("/.well-known/oauth-authorization-server") || url.pathname.startsWith("/.well-known/openid-configuration")) {
    if (mode === "no-metadata") return json(404, { error: "not found" });
    return json(200, {
      issuer: mode === "wrong-iss" ? "http://evil.example/as" : `${base}/as`,
      authorization_endpoint: `${base}/as/authorize`,
      token_endpoint: `${base}/as/token`,
      registration_endpoint: `${base}/as/register`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none"],
      scopes_supported: ["mcp:tools"],
    });
  }
  if (url.pathname === "/as/register") {
    const meta = JSON.parse(body || "{}");
    return json(201, { ...meta, client_id: "fake-client", client_id_issued_at: Math.floor(Date.now() / 1000) });
  }
  if (url.pathname === "/as/authorize") {
    const back = new URL(url.searchParams.get("redirect_uri"));
    back.searchParams.set("code", "fake-code");
    back.searchParams.set("state", url.searchParams.get("state") ?? "");
    res.writeHead(302, { location: back.toString() });
    res.end();
    return;
  }
  if (url.pathname === "/as/token") {
    return json(400, { error: "invalid_grant", error_description: "the code was refused" });
  }
  json(404, { error: "not found" });
});

server.listen(port, "127.0.0.1", () => {
  console.log(`listening ${server.address().port}`);
});
