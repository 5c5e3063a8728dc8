import { describe, expect, it, vi } from "vitest";
import { keyStartsWith, type Listen, type Query, type QueryKey, refreshOn, ServerState } from "./serverState";

/** A promise the test settles by hand, to order answers as a slow network would. */
function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A query whose reads answer in the order the test settles them; `signals` are the reads' signals. */
function manual<T>(key: QueryKey) {
  const reads: Array<ReturnType<typeof deferred<T>>> = [];
  const signals: AbortSignal[] = [];
  const load = vi.fn((signal: AbortSignal) => {
    const d = deferred<T>();
    reads.push(d);
    signals.push(signal);
    return d.promise;
  });
  const query: Query<T> = { key, load };
  return { query, load, reads, signals };
}

/**
 * Waits until `p` has settled and everything that was waiting on it has run: reactions run in
 * the order they were registered, so the cache's (registered when it started the read) come first.
 */
async function answered(p: Promise<unknown>): Promise<void> {
  await p.then(
    () => {},
    () => {},
  );
}

describe("the server-state cache", () => {
  it("reads a key once for views that ask for it together, and tells each of them", async () => {
    const cache = new ServerState();
    const { query, load, reads } = manual<string[]>(["providers"]);
    const first = vi.fn();
    const second = vi.fn();
    cache.subscribe(query, first);
    cache.subscribe(query, second);
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.peek(["providers"])).toEqual({ data: undefined, error: null, loading: true });

    reads[0]!.resolve(["openai"]);
    await answered(reads[0]!.promise);
    expect(cache.peek(["providers"])).toEqual({ data: ["openai"], error: null, loading: false });
    expect(first).toHaveBeenCalled();
    expect(second).toHaveBeenCalled();
  });

  it("reads again for a view that comes later, showing the data it has meanwhile", async () => {
    const cache = new ServerState();
    const { query, load, reads } = manual<number>(["count"]);
    cache.subscribe(query, () => {});
    reads[0]!.resolve(1);
    await answered(reads[0]!.promise);
    cache.subscribe(query, () => {});
    expect(load).toHaveBeenCalledTimes(2);
    expect(cache.peek(["count"])).toEqual({ data: 1, error: null, loading: true });
  });

  it("keeps why a read failed as the user reads it, and the data from before", async () => {
    const cache = new ServerState();
    const { query, reads } = manual<string>(["settings"]);
    cache.subscribe(query, () => {});
    reads[0]!.reject(new Error("backend down"));
    await answered(reads[0]!.promise);
    expect(cache.peek(["settings"])).toEqual({ data: undefined, error: "backend down", loading: false });

    void cache.refresh(["settings"]);
    // A refresh keeps the error on screen until it answers.
    expect(cache.peek(["settings"])).toEqual({ data: undefined, error: "backend down", loading: true });
    reads[1]!.resolve("v1");
    await answered(reads[1]!.promise);
    void cache.refresh(["settings"]);
    reads[2]!.reject(new Error("gone"));
    await answered(reads[2]!.promise);
    expect(cache.peek(["settings"])).toEqual({ data: "v1", error: "gone", loading: false });
  });

  it("turns a loader that throws at once into an error, not a crash", async () => {
    const cache = new ServerState();
    cache.subscribe(
      {
        key: ["broken"],
        load: () => {
          throw new Error("no runtime");
        },
      },
      () => {},
    );
    // A refresh resolves once its answer is shown; the first read's failure is the same.
    await cache.refresh(["broken"]);
    expect(cache.peek(["broken"])).toEqual({ data: undefined, error: "no runtime", loading: false });
  });

  it("refreshes one key by its key, even while a read of it runs", async () => {
    const cache = new ServerState();
    const a = manual<string>(["a"]);
    const b = manual<string>(["b"]);
    cache.subscribe(a.query, () => {});
    cache.subscribe(b.query, () => {});
    const refreshed = cache.invalidate(["a"]);
    expect(a.load).toHaveBeenCalledTimes(2);
    expect(b.load).toHaveBeenCalledTimes(1);

    a.reads[1]!.resolve("after the change");
    // Resolves once the new answer is shown (the read it overtook need not answer).
    await refreshed;
    expect(cache.peek(["a"])).toEqual({ data: "after the change", error: null, loading: false });
  });

  it("refreshes a family by its prefix, part by part", () => {
    const cache = new ServerState();
    const keys: QueryKey[] = [["providers"], ["providers", 1, "models"], ["providers", 12, "models"], ["presets"], ["providersOld"]];
    const queries = keys.map((k) => manual<unknown>(k));
    for (const q of queries) cache.subscribe(q.query, () => {});
    void cache.invalidate(["providers"]);
    expect(queries.map((q) => q.load.mock.calls.length)).toEqual([2, 2, 2, 1, 1]);
    void cache.invalidate(["providers", 1]);
    expect(queries.map((q) => q.load.mock.calls.length)).toEqual([2, 3, 2, 1, 1]);
    expect(keyStartsWith(["chat", 12], ["chat", 1])).toBe(false);
    expect(keyStartsWith(["chat", 1], ["chat", 1, "records"])).toBe(false);
  });

  it("never lets an older answer replace a newer one, and aborts the reads a newer one overtook", async () => {
    const cache = new ServerState();
    const { query, reads, signals } = manual<string>(["badges"]);
    cache.subscribe(query, () => {});
    void cache.refresh(["badges"]);
    void cache.refresh(["badges"]);
    reads[1]!.resolve("second");
    await answered(reads[1]!.promise);
    // An earlier refresh that answers first is shown while the later one runs.
    expect(cache.peek(["badges"])).toEqual({ data: "second", error: null, loading: true });
    expect(signals[0]!.aborted).toBe(true);
    reads[2]!.resolve("third");
    reads[0]!.resolve("first, late");
    await answered(reads[0]!.promise);
    expect(cache.peek(["badges"])).toEqual({ data: "third", error: null, loading: false });
  });

  it("drops a key with its last view: its read is aborted and a late answer changes nothing", async () => {
    const cache = new ServerState();
    const { query, reads, signals } = manual<string>(["search", "abc"]);
    const listener = vi.fn();
    const off = cache.subscribe(query, listener);
    const calls = listener.mock.calls.length;
    off();
    expect(signals[0]!.aborted).toBe(true);
    expect(cache.size).toBe(0);
    expect(cache.peek(["search", "abc"])).toBeUndefined();
    reads[0]!.resolve("late");
    await answered(reads[0]!.promise);
    expect(listener).toHaveBeenCalledTimes(calls);
    // Nothing is left to refresh.
    await expect(cache.invalidate(["search"])).resolves.toBeUndefined();
  });

  it("lets a view replace the data without a read", async () => {
    const cache = new ServerState();
    const { query, reads } = manual<string>(["settings"]);
    cache.subscribe(query, () => {});
    reads[0]!.resolve("saved");
    await answered(reads[0]!.promise);
    cache.set(["settings"], "edited");
    expect(cache.peek(["settings"])?.data).toBe("edited");
  });

  it("keeps what a save returned over a read that started before the save", async () => {
    const cache = new ServerState();
    const { query, reads, signals } = manual<string>(["settings"]);
    cache.subscribe(query, () => {});
    // A refresh is under way (say, an event) when the save answers.
    reads[0]!.resolve("first");
    await answered(reads[0]!.promise);
    void cache.refresh(["settings"]);
    cache.set(["settings"], "saved");
    expect(signals[1]!.aborted).toBe(true);
    // The old read answers late, with what the save replaced: it changes nothing.
    reads[1]!.resolve("before the save");
    await answered(reads[1]!.promise);
    expect(cache.peek(["settings"])).toEqual({ data: "saved", error: null, loading: false });
  });
});

/** A backend event the test fires by hand, with the state of its subscription. */
function fakeEvent() {
  let handler: (() => void) | null = null;
  const subscribed = deferred<() => void>();
  const unlisten = vi.fn();
  const listen: Listen = (h) => {
    handler = h;
    return subscribed.promise;
  };
  return {
    listen,
    unlisten,
    answer: () => subscribed.resolve(unlisten),
    subscribed: subscribed.promise,
    fire: () => handler?.(),
  };
}

describe("refreshOn", () => {
  it("refreshes the keys under each prefix whenever the event arrives", async () => {
    const cache = new ServerState();
    const servers = manual<string[]>(["mcp", "servers"]);
    const prompts = manual<string[]>(["mcp", "prompts"]);
    const other = manual<string[]>(["presets"]);
    for (const q of [servers, prompts, other]) cache.subscribe(q.query, () => {});
    const event = fakeEvent();
    const stop = refreshOn(event.listen, [["mcp"]], cache);
    event.answer();
    await answered(event.subscribed);

    event.fire();
    expect(servers.load).toHaveBeenCalledTimes(2);
    expect(prompts.load).toHaveBeenCalledTimes(2);
    expect(other.load).toHaveBeenCalledTimes(1);

    stop();
    expect(event.unlisten).toHaveBeenCalledTimes(1);
  });

  it("stops listening even when stopped before the subscription answered", async () => {
    const event = fakeEvent();
    const stop = refreshOn(event.listen, [["mcp"]], new ServerState());
    stop();
    event.answer();
    await answered(event.subscribed);
    expect(event.unlisten).toHaveBeenCalledTimes(1);
  });

  it("takes a subscription that fails (no backend) as no refreshes", async () => {
    const rejected = Promise.reject(new Error("no runtime"));
    const failing: Listen = () => rejected;
    const throwing: Listen = () => {
      throw new Error("no runtime");
    };
    const stops = [refreshOn(failing, [["mcp"]], new ServerState()), refreshOn(throwing, [["mcp"]], new ServerState())];
    await answered(rejected);
    for (const stop of stops) stop();
  });
});
