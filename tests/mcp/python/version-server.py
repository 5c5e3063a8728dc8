"""A stdio MCP server written against the wire format alone (no SDK), for what the SDKs do not
do: it answers the 2026-07-28 discover probe with a version error (`-32022`) that names only
2025-11-25, then speaks 2025-11-25 after `initialize`. Each JSON-RPC method it receives is
written as one line to the file `VERSION_LOG` names, so a test judges by what it received.

Usage: version-server.py
"""

import json
import os
import sys


def log(method: str) -> None:
    path = os.environ.get("VERSION_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(method + "\n")


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict) -> dict | None:
    method = request.get("method", "")
    rid = request.get("id")
    if rid is None:
        return None
    if method == "server/discover":
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "error": {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"},
            },
        }
    if method == "initialize":
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "versions", "version": "1.0.0"},
            },
        }
    if method == "tools/list":
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {
                "tools": [
                    {
                        "name": "hello",
                        "description": "Says hello.",
                        "inputSchema": {"type": "object", "properties": {}},
                    }
                ]
            },
        }
    if method == "tools/call":
        return {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "hello"}]}}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": rid, "result": {}}
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}


def main() -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        log(request.get("method", ""))
        reply = answer(request)
        if reply is not None:
            send(reply)


if __name__ == "__main__":
    main()
