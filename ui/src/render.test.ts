import { beforeEach, describe, expect, it } from "vitest";
import { errorMessage, renderError, renderLoading, renderShell, renderToolGroups } from "./render";
import type { ToolGroupInfo } from "./types";

const groups: ToolGroupInfo[] = [
  {
    name: "files",
    title: "Files",
    description: "Read and edit files in the workspace folder.",
    enabled: true,
    tools: [
      { name: "read_file", description: "Read a file.", executionPolicy: "auto", resultPolicy: "never", readOnly: true },
      { name: "write_file", description: "Write a file.", executionPolicy: "ask-once", resultPolicy: "on-error", readOnly: false },
    ],
  },
  {
    name: "shell",
    title: "Shell",
    description: "Run commands.",
    enabled: false,
    tools: [
      { name: "run", description: "Run a command.", executionPolicy: "ask-always", resultPolicy: "always", readOnly: false },
      { name: "sudo", description: "Run as root.", executionPolicy: "deny", resultPolicy: "always", readOnly: false },
    ],
  },
];

function row(container: HTMLElement, tool: string): HTMLTableRowElement {
  const found = container.querySelector<HTMLTableRowElement>(`tr[data-tool="${tool}"]`);
  if (!found) throw new Error(`no row for ${tool}`);
  return found;
}

let container: HTMLElement;

beforeEach(() => {
  document.body.replaceChildren();
  container = document.createElement("div");
  document.body.append(container);
});

describe("renderToolGroups", () => {
  it("renders one card per group with title, description and default state", () => {
    renderToolGroups(container, groups);
    const cards = container.querySelectorAll<HTMLElement>("section.card");
    expect(cards).toHaveLength(2);

    const [files, shell] = [...cards];
    expect(files?.querySelector("h2")?.textContent).toBe("Files");
    expect(files?.querySelector(".card-description")?.textContent).toBe("Read and edit files in the workspace folder.");
    expect(files?.querySelector(".badge")?.textContent).toBe("On in new chats");
    expect(files?.querySelector(".badge")?.classList.contains("badge--on")).toBe(true);

    expect(shell?.querySelector("h2")?.textContent).toBe("Shell");
    expect(shell?.querySelector(".badge")?.textContent).toBe("Off in new chats");
    expect(shell?.querySelector(".badge")?.classList.contains("badge--off")).toBe(true);

    expect(container.querySelector(".summary")?.textContent).toBe("2 groups · 4 tools");
  });

  it("renders each tool in its group's table", () => {
    renderToolGroups(container, groups);
    const files = container.querySelector('section[data-group="files"]');
    const names = [...(files?.querySelectorAll("tbody .tool-name") ?? [])].map((n) => n.textContent);
    expect(names).toEqual(["read_file", "write_file"]);
    expect(row(container, "read_file").querySelector(".tool-description")?.textContent).toBe("Read a file.");
  });

  it("shows the execution policy as a pill with the matching colour class and label", () => {
    renderToolGroups(container, groups);
    const expected: Array<[string, string, string]> = [
      ["read_file", "pill--auto", "Auto"],
      ["write_file", "pill--ask-once", "Ask once"],
      ["run", "pill--ask-always", "Ask always"],
      ["sudo", "pill--deny", "Deny"],
    ];
    for (const [tool, cls, label] of expected) {
      const pills = row(container, tool).querySelectorAll(".pill");
      expect(pills).toHaveLength(1);
      expect(pills[0]?.classList.contains(cls)).toBe(true);
      expect(pills[0]?.textContent).toBe(label);
    }
  });

  it("shows the result policy", () => {
    renderToolGroups(container, groups);
    expect(row(container, "read_file").querySelector(".result-policy")?.textContent).toBe("Never");
    expect(row(container, "write_file").querySelector(".result-policy")?.textContent).toBe("On error");
    expect(row(container, "run").querySelector(".result-policy")?.textContent).toBe("Always");
  });

  it("tags read-only tools and only those", () => {
    renderToolGroups(container, groups);
    expect(row(container, "read_file").querySelector(".tag--readonly")?.textContent).toBe("read-only");
    for (const tool of ["write_file", "run", "sudo"]) {
      expect(row(container, tool).querySelector(".tag--readonly")).toBeNull();
    }
  });

  it("inserts text from the data as text, never as markup", () => {
    const hostile = '<img src=x onerror=alert(1)>';
    renderToolGroups(container, [
      {
        name: "evil<b>",
        title: `<script>alert(1)</script>`,
        description: hostile,
        enabled: true,
        tools: [
          {
            name: "<svg onload=alert(1)>",
            description: hostile,
            executionPolicy: "auto",
            resultPolicy: "never",
            readOnly: false,
          },
        ],
      },
    ]);
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("svg")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect(container.querySelector(".tool-description")?.textContent).toBe(hostile);
    expect(container.querySelector(".card-description")?.textContent).toBe(hostile);
    expect(container.querySelector("h2")?.textContent).toBe("<script>alert(1)</script>");
  });

  it("shows an unknown policy value as text in a neutral pill", () => {
    renderToolGroups(container, [
      {
        name: "g",
        title: "G",
        description: "",
        enabled: false,
        tools: [
          // A newer backend could send a value this UI does not know yet.
          { name: "t", description: "", executionPolicy: "later" as never, resultPolicy: "never", readOnly: false },
        ],
      },
    ]);
    const pill = row(container, "t").querySelector(".pill");
    expect(pill?.textContent).toBe("later");
    expect(pill?.classList.contains("pill--unknown")).toBe(true);
  });

  it("says so when there are no groups", () => {
    renderToolGroups(container, []);
    expect(container.querySelector(".card")).toBeNull();
    expect(container.textContent).toContain("No tool groups are registered.");
  });

  it("replaces a previous loading state", () => {
    renderLoading(container);
    expect(container.getAttribute("aria-busy")).toBe("true");
    renderToolGroups(container, groups);
    expect(container.getAttribute("aria-busy")).toBeNull();
    expect(container.querySelector(".state--loading")).toBeNull();
  });
});

describe("renderLoading", () => {
  it("shows a status message", () => {
    renderLoading(container);
    const status = container.querySelector('[role="status"]');
    expect(status?.textContent).toContain("Loading tool groups");
  });
});

describe("renderError", () => {
  it("shows the backend error message", () => {
    renderError(container, new Error("connection refused"));
    const alert = container.querySelector('[role="alert"]');
    expect(alert?.textContent).toBe("Tollgate's backend is not reachable: connection refused");
  });

  it("accepts the plain strings Tauri rejects with", () => {
    renderError(container, "command list_tool_groups not found");
    expect(container.querySelector('[role="alert"]')?.textContent).toBe(
      "Tollgate's backend is not reachable: command list_tool_groups not found",
    );
  });

  it("inserts the message as text", () => {
    renderError(container, "<img src=x onerror=alert(1)>");
    expect(container.querySelector("img")).toBeNull();
    expect(container.textContent).toContain("<img src=x onerror=alert(1)>");
  });
});

describe("errorMessage", () => {
  it("handles the shapes a rejection may have", () => {
    expect(errorMessage(new TypeError("boom"))).toBe("boom");
    expect(errorMessage("plain")).toBe("plain");
    expect(errorMessage({ message: "from object" })).toBe("from object");
    expect(errorMessage({ code: 3 })).toBe('{"code":3}');
    expect(errorMessage(undefined)).toBe("undefined");
  });
});

describe("renderShell", () => {
  it("builds the sidebar title and the Tool gate pane, and returns the content slot", () => {
    const root = document.createElement("div");
    const content = renderShell(root);
    expect(root.querySelector(".sidebar")?.textContent).toBe("Tollgate");
    expect(root.querySelector("main h1")?.textContent).toBe("Tool gate");
    expect(root.querySelector("main")?.contains(content)).toBe(true);
  });
});
