import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unmount } from "./testRoot";
import { changedFields, type Form, useForm } from "./useForm";

interface Fields {
  name: string;
  timeout: string;
  sandboxed: boolean;
  groups: Record<string, boolean>;
}

const START: Fields = { name: "github", timeout: "60", sandboxed: true, groups: {} };

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
});
afterEach(() => unmount(root));

/** A form that hands out what the hook gave it on each render. */
function Probe(props: { initial: Fields | (() => Fields); seen: Array<Form<Fields>> }) {
  props.seen.push(useForm(props.initial));
  return null;
}

async function mount(initial: Fields | (() => Fields) = START) {
  const seen: Array<Form<Fields>> = [];
  await act(async () => render(<Probe initial={initial} seen={seen} />, root));
  const form = () => {
    const last = seen[seen.length - 1];
    if (!last) throw new Error("not rendered");
    return last;
  };
  return { seen, form };
}

describe("useForm", () => {
  it("starts from the initial fields, built once, and is not dirty", async () => {
    const build = vi.fn(() => START);
    const { form } = await mount(build);
    expect(form().values).toEqual(START);
    expect(form().dirty).toBe(false);
    await act(async () => form().set("name", "gh"));
    expect(build).toHaveBeenCalledTimes(1);
  });

  it("changes one field, and is dirty until the field is as it started", async () => {
    const { form } = await mount();
    await act(async () => form().set("name", "gitlab"));
    expect(form().values).toEqual({ ...START, name: "gitlab" });
    expect(form().dirty).toBe(true);
    await act(async () => form().set("name", "github"));
    expect(form().dirty).toBe(false);
  });

  it("composes several changes in one event, by value or by update", async () => {
    const { form } = await mount();
    await act(async () => {
      const { set } = form();
      set("timeout", "30");
      set("sandboxed", false);
      set("groups", (old) => ({ ...old, web: true }));
      set("groups", (old) => ({ ...old, shell: false }));
    });
    expect(form().values).toEqual({ name: "github", timeout: "30", sandboxed: false, groups: { web: true, shell: false } });
  });

  it("resets to where it started, or to new fields that become the start", async () => {
    const { form } = await mount();
    await act(async () => form().set("timeout", "5"));
    await act(async () => form().reset());
    expect(form().values).toEqual(START);
    expect(form().dirty).toBe(false);

    const saved = { ...START, name: "saved" };
    await act(async () => form().reset(saved));
    expect(form()).toMatchObject({ values: saved, dirty: false });
    await act(async () => form().set("name", "github"));
    expect(form().dirty).toBe(true);
  });

  it("keeps set and reset the same functions across renders", async () => {
    const { seen, form } = await mount();
    const first = seen[0]!;
    await act(async () => form().set("name", "x"));
    expect(form().set).toBe(first.set);
    expect(form().reset).toBe(first.reset);
  });
});

describe("changedFields", () => {
  it("names the fields that differ, by identity", () => {
    const groups = {};
    expect(changedFields({ ...START, groups }, { ...START, groups })).toEqual([]);
    expect(changedFields(START, { ...START, timeout: "1", groups: {} })).toEqual(["timeout", "groups"]);
  });
});
