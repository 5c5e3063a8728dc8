import { type ComponentChild, render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Listen, type Query, ServerState } from "../serverState";
import { unmount } from "./testRoot";
import { type Load, useRefreshOn, useServerState } from "./useServerState";

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
});
afterEach(() => unmount(root));

type Out<T> = { current: Load<T> | null };

/** Renders `view` and lets the reads it starts (already answered) show. */
async function show(view: ComponentChild) {
  await act(async () => render(view, root));
  await act(async () => {});
}

/** A view showing one query, handing out what the hook gave it. */
function View<T>(props: { query: Query<T> | null; cache: ServerState; keep?: boolean; out: Out<T> }) {
  props.out.current = useServerState(props.query, { cache: props.cache, keepOnChange: props.keep ?? false });
  return null;
}

function shown<T>(out: Out<T>): Load<T> {
  if (!out.current) throw new Error("not rendered");
  return out.current;
}

describe("useServerState", () => {
  it("lets two views share one read, and shows both a refresh made elsewhere", async () => {
    const cache = new ServerState();
    let answer = deferred<string[]>();
    const load = vi.fn(() => answer.promise);
    const query: Query<string[]> = { key: ["providers"], load };
    const header: Out<string[]> = { current: null };
    const settings: Out<string[]> = { current: null };
    await act(async () => {
      render(
        <>
          <View query={query} cache={cache} out={header} />
          <View query={query} cache={cache} out={settings} />
        </>,
        root,
      );
    });
    expect(load).toHaveBeenCalledTimes(1);
    expect(shown(header)).toMatchObject({ data: undefined, loading: true });
    await act(async () => answer.resolve(["openai"]));
    expect(shown(header)).toMatchObject({ data: ["openai"], error: null, loading: false });
    expect(shown(settings).data).toEqual(["openai"]);

    answer = deferred<string[]>();
    await act(async () => {
      void cache.invalidate(["providers"]);
    });
    // The refresh keeps what there is while it runs.
    expect(shown(settings)).toMatchObject({ data: ["openai"], loading: true });
    await act(async () => answer.resolve(["openai", "anthropic"]));
    expect(shown(header).data).toEqual(["openai", "anthropic"]);
    expect(shown(settings).data).toEqual(["openai", "anthropic"]);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("shows a new key's data only, unless asked to keep the last while it is read", async () => {
    const cache = new ServerState();
    const pending = deferred<string>();
    const a: Query<string> = { key: ["search", "a"], load: () => Promise.resolve("a") };
    const b: Query<string> = { key: ["search", "ab"], load: () => pending.promise };
    const out: Out<string> = { current: null };
    await show(<View query={a} cache={cache} out={out} />);
    expect(shown(out).data).toBe("a");
    await act(async () => render(<View query={b} cache={cache} out={out} />, root));
    expect(shown(out)).toMatchObject({ data: undefined, loading: true });

    await unmount(root);
    await show(<View query={a} cache={cache} keep out={out} />);
    await act(async () => render(<View query={b} cache={cache} keep out={out} />, root));
    expect(shown(out)).toMatchObject({ data: "a", loading: true });
    await act(async () => pending.resolve("ab"));
    expect(shown(out)).toMatchObject({ data: "ab", loading: false });
    // Only the key on screen is kept.
    expect(cache.size).toBe(1);
  });

  it("has nothing to read for a null query", async () => {
    const cache = new ServerState();
    const out: Out<string> = { current: null };
    await act(async () => render(<View query={null} cache={cache} out={out} />, root));
    expect(shown(out)).toMatchObject({ data: undefined, error: null, loading: false });
    await act(async () => shown(out).reload());
    expect(cache.size).toBe(0);
  });
});

function Listener(props: { listen: Listen; load: () => Promise<number>; cache: ServerState; out: Out<number> }) {
  props.out.current = useServerState({ key: ["mcp", "servers"], load: props.load }, { cache: props.cache });
  useRefreshOn(props.listen, [["mcp"]], props.cache);
  return null;
}

describe("useRefreshOn", () => {
  it("reads the keys again when the event arrives, and stops listening with the view", async () => {
    const cache = new ServerState();
    let fire: () => void = () => {};
    const unlisten = vi.fn();
    const subscribed = Promise.resolve(unlisten);
    const listen: Listen = (handler) => {
      fire = handler;
      return subscribed;
    };
    let reads = 0;
    const out: Out<number> = { current: null };
    await show(<Listener listen={listen} cache={cache} load={() => Promise.resolve(++reads)} out={out} />);
    expect(shown(out).data).toBe(1);
    await act(async () => fire());
    await act(async () => {});
    expect(shown(out).data).toBe(2);
    await unmount(root);
    expect(unlisten).toHaveBeenCalled();
  });
});
