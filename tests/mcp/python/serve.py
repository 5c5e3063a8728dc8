"""How the test servers of this folder are run: `<script> stdio`, or `<script> http PORT` on the
loopback interface."""

import sys

from mcp.server.mcpserver import MCPServer


def run(server: MCPServer, script: str) -> None:
    match sys.argv[1:]:
        case ["stdio"]:
            server.run("stdio")
        case ["http", port]:
            server.run("streamable-http", host="127.0.0.1", port=int(port))
        case _:
            sys.exit(f"usage: {script} stdio | {script} http PORT")
