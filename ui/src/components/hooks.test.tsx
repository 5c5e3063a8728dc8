import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Action, type Load, type Loader, pause, useAction, useLoad, useProgressive } from "./hooks";
import { unmount } from "./testRoot";

/** A promise the test settles by hand, to order results as a slow network would. */
function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
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
afterEach(() => unmount(root));

/** Renders a component that calls `useLoad` and hands the latest result out. */
function Probe<T>(props: { load: Loader<T> | null; deps: unknown[]; keep?: boolean; out: { current: Load<T> | null } }) {
  props.out.current = useLoad(props.load, props.deps, { keepOnChange: props.keep ?? false });
  return null;
}

async function mount<T>(load: Loader<T> | null, deps: unknown[], out: { current: Load<T> | null }, keep = false) {
  await act(async () => {
    render(<Probe load={load} deps={deps} out={out} keep={keep} />, root);
  });
}

function current<T>(out: { current: Load<T> | null }): Load<T> {
  if (!out.current) throw new Error("not rendered");
  return out.current;
}

describe("useLoad", () => {
  it("is loading until the data arrives, then shows it", async () => {
    const d = deferred<string>();
    const out: { current: Load<string> | null } = { current: null };
    await mount(() => d.promise, [], out);
    expect(current(out)).toMatchObject({ data: undefined, error: null, loading: true });
    await act(async () => d.resolve("rows"));
    expect(current(out)).toMatchObject({ data: "rows", error: null, loading: false });
  });

  it("shows why a load failed and stops loading", async () => {
    const out: { current: Load<string> | null } = { current: null };
    await mount(() => Promise.reject(new Error("backend down")), [], out);
    expect(current(out)).toMatchObject({ data: undefined, error: "backend down", loading: false });
  });

  it("turns a loader that throws at once into an error, not a crash", async () => {
    const out: { current: Load<string> | null } = { current: null };
    await mount(
      () => {
        throw new Error("no runtime");
      },
      [],
      out,
    );
    expect(current(out).error).toBe("no runtime");
  });

  it("drops the result of a load whose inputs changed, even when it arrives last", async () => {
    const first = deferred<string>();
    const second = deferred<string>();
    const out: { current: Load<string> | null } = { current: null };
    const signals: AbortSignal[] = [];
    await mount((s) => (signals.push(s), first.promise), [1], out);
    await mount((s) => (signals.push(s), second.promise), [2], out);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
    await act(async () => second.resolve("chat 2"));
    await act(async () => first.resolve("chat 1"));
    expect(current(out)).toMatchObject({ data: "chat 2", loading: false });
  });

  it("drops a stale failure too", async () => {
    const first = deferred<string>();
    const out: { current: Load<string> | null } = { current: null };
    await mount(() => first.promise, [1], out);
    await mount(() => Promise.resolve("fresh"), [2], out);
    await act(async () => first.reject(new Error("late failure")));
    expect(current(out)).toMatchObject({ data: "fresh", error: null });
  });

  it("clears the old data when the inputs change, unless asked to keep it", async () => {
    const pending = deferred<string>();
    const out: { current: Load<string> | null } = { current: null };
    await mount(() => Promise.resolve("a"), ["a"], out);
    await mount(() => pending.promise, ["b"], out);
    expect(current(out)).toMatchObject({ data: undefined, loading: true });

    await unmount(root);
    await mount(() => Promise.resolve("a"), ["a"], out, true);
    await mount(() => pending.promise, ["b"], out, true);
    expect(current(out)).toMatchObject({ data: "a", loading: true });
    await act(async () => pending.resolve("b"));
    expect(current(out).data).toBe("b");
  });

  it("ignores a result that arrives after the view went away, and aborts its signal", async () => {
    const d = deferred<string>();
    const out: { current: Load<string> | null } = { current: null };
    let signal: AbortSignal | null = null;
    await mount((s) => ((signal = s), d.promise), [], out);
    const before = current(out);
    await act(async () => render(null, root));
    expect(signal!.aborted).toBe(true);
    await act(async () => d.resolve("late"));
    expect(out.current).toBe(before);
    expect(before.data).toBeUndefined();
  });

  it("reloads on demand: a failure can be retried, and only the newest reload counts", async () => {
    const results = [deferred<string>(), deferred<string>(), deferred<string>()];
    let calls = 0;
    const out: { current: Load<string> | null } = { current: null };
    await mount(() => results[calls++]!.promise, [], out);
    await act(async () => results[0]!.reject(new Error("offline")));
    expect(current(out).error).toBe("offline");

    let slow: Promise<void> = Promise.resolve();
    await act(async () => {
      slow = current(out).reload();
    });
    // A failed load keeps no data, but a reload keeps what there is while it runs.
    expect(current(out)).toMatchObject({ loading: true, error: "offline" });
    let fast: Promise<void> = Promise.resolve();
    await act(async () => {
      fast = current(out).reload();
    });
    await act(async () => {
      results[2]!.resolve("newest");
      await fast;
    });
    await act(async () => {
      results[1]!.resolve("older");
      await slow;
    });
    expect(current(out)).toMatchObject({ data: "newest", error: null, loading: false });
    expect(calls).toBe(3);
  });

  it("shows an earlier reload's answer while a later one runs, so quick reloads never starve the view", async () => {
    const results = [deferred<number>(), deferred<number>(), deferred<number>()];
    let calls = 0;
    const out: { current: Load<number> | null } = { current: null };
    await mount(() => results[calls++]!.promise, [], out);
    await act(async () => results[0]!.resolve(0));
    await act(async () => {
      void current(out).reload();
      void current(out).reload();
    });
    await act(async () => results[1]!.resolve(1));
    expect(current(out)).toMatchObject({ data: 1, loading: true });
    await act(async () => results[2]!.resolve(2));
    expect(current(out)).toMatchObject({ data: 2, loading: false });
  });

  it("keeps the data while reloading and after a failed reload", async () => {
    let answer: Promise<string> = Promise.resolve("v1");
    const out: { current: Load<string> | null } = { current: null };
    await mount(() => answer, [], out);
    answer = Promise.reject(new Error("gone"));
    await act(async () => current(out).reload());
    expect(current(out)).toMatchObject({ data: "v1", error: "gone", loading: false });
  });

  it("has nothing to do with a null loader", async () => {
    const out: { current: Load<string> | null } = { current: null };
    await mount(null, [], out);
    expect(current(out)).toMatchObject({ data: undefined, error: null, loading: false });
    await act(async () => current(out).reload());
    expect(current(out).loading).toBe(false);
  });

  it("lets the view replace the data (an optimistic update)", async () => {
    const out: { current: Load<string> | null } = { current: null };
    await mount(() => Promise.resolve("saved"), [], out);
    await act(async () => current(out).setData("edited"));
    expect(current(out).data).toBe("edited");
  });
});

describe("pause", () => {
  it("waits, and rejects at once when aborted", async () => {
    vi.useFakeTimers();
    try {
      const done = vi.fn();
      void pause(100, new AbortController().signal).then(done);
      await vi.advanceTimersByTimeAsync(99);
      expect(done).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(done).toHaveBeenCalled();

      const controller = new AbortController();
      const waiting = pause(100, controller.signal);
      controller.abort();
      await expect(waiting).rejects.toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });
});

function ActionProbe({ out }: { out: { current: Action | null } }) {
  out.current = useAction();
  return null;
}

describe("useAction", () => {
  it("is busy while running, keeps a failure's message, and clears it on the next run", async () => {
    const out: { current: Action | null } = { current: null };
    await act(async () => render(<ActionProbe out={out} />, root));
    const action = () => out.current!;
    const d = deferred<void>();
    let result: Promise<boolean> = Promise.resolve(true);
    await act(async () => {
      result = action().run(() => d.promise);
    });
    expect(action().busy).toBe(true);
    await act(async () => d.reject(new Error("disk full")));
    await expect(result).resolves.toBe(false);
    expect(action()).toMatchObject({ busy: false, error: "disk full" });

    await act(async () => {
      await expect(action().run(() => Promise.resolve())).resolves.toBe(true);
    });
    expect(action()).toMatchObject({ busy: false, error: null });
  });
});

function ProgressiveProbe({ total, seen }: { total: number; seen: number[] }) {
  seen.push(useProgressive(total, 12, 20));
  return null;
}

describe("useProgressive", () => {
  it("renders the first items at once and the rest a batch per painted frame, never more than there are", async () => {
    const seen: number[] = [];
    await act(async () => render(<ProgressiveProbe total={100} seen={seen} />, root));
    expect(seen[0]).toBe(12);
    await vi.waitFor(() => expect(seen[seen.length - 1]).toBe(100));
    const counts = [...new Set(seen)];
    expect(counts).toEqual([12, 32, 52, 72, 92, 100]);
  });

  it("starts over from the data when the list arrives later, and stops at once for a short list", async () => {
    const seen: number[] = [];
    await act(async () => render(<ProgressiveProbe total={0} seen={seen} />, root));
    expect(seen).toEqual([0]);
    await act(async () => render(<ProgressiveProbe total={5} seen={seen} />, root));
    expect(seen[seen.length - 1]).toBe(5);
    await act(async () => render(<ProgressiveProbe total={40} seen={seen} />, root));
    await vi.waitFor(() => expect(seen[seen.length - 1]).toBe(40));
    expect(Math.max(...seen)).toBe(40);
  });
});
