import { beforeEach, describe, expect, it } from "vitest";
import { startApp } from "./app";
import type { ToolGroupInfo } from "./types";

const group: ToolGroupInfo = {
  name: "vars",
  title: "Variables",
  description: "Store values between calls.",
  enabled: true,
  tools: [{ name: "var_get", description: "Read a variable.", executionPolicy: "auto", resultPolicy: "never", readOnly: true }],
};

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

let root: HTMLElement;

beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
});

describe("startApp", () => {
  it("shows loading until the groups arrive, then the groups", async () => {
    const pending = deferred<ToolGroupInfo[]>();
    const done = startApp(root, () => pending.promise);
    expect(root.querySelector('[role="status"]')?.textContent).toContain("Loading");
    expect(root.querySelector(".card")).toBeNull();

    pending.resolve([group]);
    await done;
    expect(root.querySelector('[role="status"]')).toBeNull();
    expect(root.querySelector(".card h2")?.textContent).toBe("Variables");
  });

  it("shows the error when loading fails", async () => {
    await startApp(root, () => Promise.reject(new Error("no backend")));
    expect(root.querySelector('[role="alert"]')?.textContent).toBe("Tollgate's backend is not reachable: no backend");
    expect(root.querySelector(".card")).toBeNull();
  });
});
