"""A test MCP server on the Python SDK 2.x with the Tasks extension (SEP-2663,
`io.modelcontextprotocol/tasks`), over stdio or streamable HTTP: its `long_job` and
`long_question` calls become tasks the client follows with `tasks/get`, answers with
`tasks/update` and may stop with `tasks/cancel`.

A task does not end by time: `long_job` completes once the file named by the call's `gate`
argument exists (the test creates it), so a test decides when; `long_question` first needs a
name from the user (`input_required` with a form), then completes; the reading right after the
answer still shows the question (an update taken in eventually, as the extension allows). Every request about a task
is written as one JSON line to the file `TASK_LOG` names (`{"method": ..., "task": ..., ...}`),
so a test judges by what the server received — a cancelled task says so there.

Usage: task-server.py stdio | task-server.py http PORT
"""

import datetime
import json
import os
import uuid
from typing import Any

from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from serve import run
from mcp_types import RequestParams

TASKS = "io.modelcontextprotocol/tasks"
# Every task this server started: id -> what it is and where it stands.
tasks: dict[str, dict[str, Any]] = {}


def log(entry: dict[str, Any]) -> None:
    path = os.environ.get("TASK_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat()


def base(task_id: str, status: str, message: str | None = None) -> dict[str, Any]:
    task = tasks[task_id]
    out: dict[str, Any] = {
        "taskId": task_id,
        "status": status,
        "createdAt": task["created"],
        "lastUpdatedAt": now(),
        "ttlMs": None,
        "pollIntervalMs": 50,
    }
    if message:
        out["statusMessage"] = message
    return out


def text_result(text: str) -> dict[str, Any]:
    """A tool's text result as the SDK gives it: the tools return `str`, so they declare an
    output schema (`{"result": ...}`), and the result carries the structured form too."""
    return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}


def detailed(task_id: str) -> dict[str, Any]:
    """The task as `tasks/get` answers it now."""
    task = tasks[task_id]
    if task["cancelled"]:
        return base(task_id, "cancelled", "cancelled by the client")
    if task["tool"] == "long_job":
        if os.path.exists(task["gate"]):
            return {**base(task_id, "completed"), "result": text_result(f"job done: {task['label']}")}
        return base(task_id, "working", f"working on {task['label']}")
    # long_question
    stale = task.get("stale_readings", 0)
    if stale:
        task["stale_readings"] = stale - 1
    if task["name"] is None or stale:
        return {
            **base(task_id, "input_required", "waiting for a name"),
            "inputRequests": {
                "who": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "Whose job is this?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}},
                            "required": ["name"],
                        },
                    },
                }
            },
        }
    return {**base(task_id, "completed"), "result": text_result(f"job for {task['name']} done")}


class TaskParams(RequestParams):
    task_id: str


class UpdateParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any]


async def get_task(ctx: Any, params: TaskParams) -> dict[str, Any]:
    out = detailed(params.task_id)
    log({"method": "tasks/get", "task": params.task_id, "status": out["status"]})
    return out


async def cancel_task(ctx: Any, params: TaskParams) -> dict[str, Any]:
    log({"method": "tasks/cancel", "task": params.task_id})
    if params.task_id in tasks:
        tasks[params.task_id]["cancelled"] = True
    return {}


async def update_task(ctx: Any, params: UpdateParams) -> dict[str, Any]:
    log({"method": "tasks/update", "task": params.task_id, "input_responses": params.input_responses})
    answer = params.input_responses.get("who") or {}
    if answer.get("action") == "accept":
        task = tasks[params.task_id]
        task["name"] = (answer.get("content") or {}).get("name")
        # The update is taken in eventually (as the extension allows): the next reading still
        # shows the question once.
        task["stale_readings"] = 1
    return {}


class Tasks(Extension):
    identifier = TASKS

    def methods(self):
        return (
            MethodBinding("tasks/get", TaskParams, get_task),
            MethodBinding("tasks/cancel", TaskParams, cancel_task),
            MethodBinding("tasks/update", UpdateParams, update_task),
        )

    async def intercept_tool_call(self, params, ctx, call_next):
        if params.name not in ("long_job", "long_question"):
            return await call_next(ctx)
        task_id = uuid.uuid4().hex
        arguments = params.arguments or {}
        tasks[task_id] = {
            "tool": params.name,
            "label": arguments.get("label", ""),
            "gate": arguments.get("gate", ""),
            "name": None,
            "cancelled": False,
            "created": now(),
        }
        log({"method": "tools/call", "task": task_id, "tool": params.name, "arguments": arguments})
        return {"resultType": "task", **base(task_id, "working", "started")}


server = MCPServer("tasks", instructions="Tollgate's test server for the Tasks extension.", extensions=[Tasks()])


@server.tool()
async def long_job(label: str, gate: str) -> str:
    """Works on a job until it is told to finish; runs as a task."""
    return "not run as a task"


@server.tool()
async def long_question(topic: str) -> str:
    """Asks whose job it is, then finishes; runs as a task."""
    return "not run as a task"


if __name__ == "__main__":
    run(server, "task-server.py")
