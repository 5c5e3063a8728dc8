import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Attachment } from "../types";

vi.mock("../api", () => ({
  readMcpResource: vi.fn(),
}));

import * as api from "../api";
import { commandError } from "../testing/backend";
import { ResourceLinks } from "./ResourceLinks";
import { unmount } from "./testRoot";

const read = vi.mocked(api.readMcpResource);

const link: Attachment = {
  name: "Project notes",
  kind: "resourceLink",
  mediaType: "text/markdown",
  data: "probe://notes.md",
  source: { type: "mcpResource", server: "probe", uri: "probe://notes.md" },
};
const notes: Attachment = {
  name: "notes.md",
  kind: "text",
  mediaType: "text/markdown",
  data: "# Notes",
  source: { type: "mcpResource", server: "probe", uri: "probe://notes.md" },
};

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  read.mockReset();
});
afterEach(async () => {
  await unmount(root);
});

async function show(links: Attachment[], onAttach?: (files: Attachment[]) => void) {
  await act(() => {
    render(<ResourceLinks links={links} onAttach={onAttach} />, root);
  });
}

const button = () => root.querySelector<HTMLButtonElement>(".resource-link button");

describe("resource links of a tool's result", () => {
  it("reads the linked resource from its own server and hands it to the message", async () => {
    read.mockResolvedValue([notes]);
    const attached: Attachment[][] = [];
    await show([link], (files) => attached.push(files));
    expect(root.querySelector(".resource-link-name")?.textContent).toBe("Project notes");
    expect(root.querySelector(".resource-link-uri")?.textContent).toBe("probe://notes.md");
    expect(button()?.getAttribute("aria-label")).toBe("Attach Project notes to your message");
    await act(async () => {
      button()?.click();
      await Promise.resolve();
    });
    expect(read).toHaveBeenCalledWith("probe", "probe://notes.md");
    expect(attached).toEqual([[notes]]);
    expect(button()?.textContent).toBe("Attached");
  });

  it("says why a resource could not be read and attaches nothing", async () => {
    read.mockRejectedValue(commandError("invalid", 'the MCP server "probe" is not running'));
    const attached: Attachment[][] = [];
    await show([link], (files) => attached.push(files));
    await act(async () => {
      button()?.click();
      await Promise.resolve();
    });
    expect(root.querySelector('[role="alert"]')?.textContent).toContain('the MCP server "probe" is not running');
    expect(attached).toEqual([]);
    expect(button()?.disabled).toBe(false);
  });

  it("offers no button for a link that names no server, nor where nothing takes files", async () => {
    const { source: _source, ...unsourced } = link;
    await show([unsourced], () => {});
    expect(button()).toBeNull();
    await show([link]);
    expect(button()).toBeNull();
    expect(root.querySelector(".resource-link-uri")?.textContent).toBe("probe://notes.md");
  });
});
