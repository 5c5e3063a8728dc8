/**
 * The UI's modules import each other in one direction only: no circle (a settings tab that
 * imports the screen that imports it, a view and its header importing each other). A circle is
 * named with the files in it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = dirname(new URL(import.meta.url).pathname);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

function importsOf(file: string, known: Set<string>): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const m of text.matchAll(/from "(\.[^"]+)"/g)) {
    const base = normalize(join(dirname(file), m[1] ?? ""));
    const target = [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((p) => known.has(p));
    if (target) found.push(target);
  }
  return found;
}

/** The groups of files that import each other in a circle (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (;;) {
        const w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        group.push(w);
        if (w === v) break;
      }
      if (group.length > 1) found.push(group.map((f) => relative(root, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("the UI's imports", () => {
  it("run in one direction: no module imports one that imports it back", () => {
    const files = sources(root);
    const known = new Set(files);
    const graph = new Map(files.map((f) => [f, importsOf(f, known)]));
    expect(graph.size).toBeGreaterThan(40);
    expect(circles(graph)).toEqual([]);
  });

  it("the checker finds a circle where there is one", () => {
    const graph = new Map([
      ["/a.ts", ["/b.ts"]],
      ["/b.ts", ["/c.ts"]],
      ["/c.ts", ["/a.ts"]],
      ["/d.ts", ["/a.ts"]],
    ]);
    expect(circles(graph).map((g) => g.length)).toEqual([3]);
  });
});
