import { describe, expect, it } from "vitest";
import { FrameAllowance, MarkdownCache, type MarkdownBlocks, renderBlocks, renderMarkdown, renderMarkdownCached } from "./markdown";

function render(md: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = renderMarkdown(md);
  return div;
}

describe("renderMarkdown", () => {
  it("renders markdown structure", () => {
    const el = render("# Title\n\nSome **bold** and `code`.\n\n- a\n- b");
    expect(el.querySelector("h1")?.textContent).toBe("Title");
    expect(el.querySelector("strong")?.textContent).toBe("bold");
    expect(el.querySelectorAll("li")).toHaveLength(2);
  });

  it("never produces script, img or event handlers from model output", () => {
    const el = render(
      'Hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">x</a>\n\n<div onclick="x()">block</div>\n\n![pic](http://evil/x.png) <iframe src="http://evil"></iframe> <svg onload=alert(4)>',
    );
    expect(el.querySelector("script, img, iframe, svg, div[onclick]")).toBeNull();
    for (const node of el.querySelectorAll("*")) {
      for (const attr of node.attributes) expect(attr.name.startsWith("on")).toBe(false);
    }
    for (const a of el.querySelectorAll("a")) expect(a.getAttribute("href") ?? "").not.toMatch(/^javascript:/i);
    // The raw HTML is shown as text rather than dropped silently.
    expect(el.textContent).toContain("<script>alert(1)</script>");
  });

  it("highlights fenced code and escapes it", () => {
    const el = render('```rust\nfn main() { let s = "<b>"; }\n```');
    const code = el.querySelector("pre code");
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("fn");
    expect(code?.querySelector("b")).toBeNull();
    expect(code?.textContent).toContain('"<b>"');
    expect(el.querySelector(".code-lang")?.textContent).toBe("rust");
  });

  it("keeps safe links", () => {
    const a = render("[docs](https://example.com/a)").querySelector("a");
    expect(a?.getAttribute("href")).toBe("https://example.com/a");
    expect(a?.getAttribute("rel")).toContain("noopener");
  });
});

/** A realistic answer of about `length` characters: headings, lists, code, tables, quotes. */
function answer(length: number): string {
  const parts = [
    "## Step {i}\n\nThe gate **checks** call {i}, asks when the policy says so, and records it. See [the docs](https://example.com/{i}).\n\n",
    "- policy: `ask-once`\n- result kept in `call_{i}`\n  - nested detail\n\n",
    "```rust\nfn step_{i}() -> u32 {\n    let x = {i};\n    x * 2\n}\n```\n\n",
    "| call | status |\n|------|--------|\n| {i} | done |\n\n",
    "> A quoted line about {i}\n> and another.\n\n",
    "1. first\n2. second {i}\n\nA closing paragraph that runs on\nover two lines.\n\n",
  ];
  let out = "";
  for (let i = 0; out.length < length; i += 1) out += (parts[i % parts.length] ?? "").replaceAll("{i}", String(i));
  return out.slice(0, length);
}

/** Streams `text` in `chunks` pieces through renderBlocks; the last blocks and the total work. */
function stream(text: string, chunks: number): { blocks: MarkdownBlocks; work: number } {
  const size = Math.ceil(text.length / chunks);
  let blocks: MarkdownBlocks | undefined;
  let work = 0;
  for (let end = size; ; end += size) {
    blocks = renderBlocks(text.slice(0, Math.min(end, text.length)), blocks);
    work += blocks.work;
    if (end >= text.length) return { blocks, work };
  }
}

describe("renderBlocks", () => {
  it("streamed block by block, draws what the whole text draws", () => {
    const text = answer(6_000);
    for (const chunks of [1, 7, 120]) {
      const { blocks } = stream(text, chunks);
      expect([...blocks.sealed, blocks.tail].join("")).toBe(renderMarkdown(text));
      if (chunks > 1) expect(blocks.sealed.length).toBeGreaterThan(20);
    }
  });

  it("keeps every finished block exactly as it was drawn", () => {
    const text = answer(3_000);
    let blocks = renderBlocks(text.slice(0, 1_000));
    const early = blocks.sealed;
    for (let end = 1_010; end <= text.length; end += 10) blocks = renderBlocks(text.slice(0, end), blocks);
    expect(blocks.sealed.slice(0, early.length)).toEqual(early);
  });

  it("a list or a code block still being written stays open until the next block starts", () => {
    let blocks = renderBlocks("Intro.\n\n- one\n- two\n\n");
    expect(blocks.sealed).toHaveLength(1);
    // An indented line after the blank line still belongs to the list.
    blocks = renderBlocks("Intro.\n\n- one\n- two\n\n  more of two\n\nAfter.", blocks);
    expect(blocks.sealed).toHaveLength(2);
    expect(blocks.sealed[1]).toContain("more of two");
    blocks = renderBlocks("```js\nlet a = 1;\n\n\nlet b = 2;", blocks);
    expect(blocks.sealed).toHaveLength(0);
    expect(blocks.tail.replace(/<[^>]+>/g, "")).toContain("let b = 2;");
  });

  it("does work that grows with the answer's length, not with its square", () => {
    // 300 chunks either way: twice the text must cost about twice the work (re-rendering the
    // whole text for every chunk would cost four times as much).
    const small = stream(answer(6_000), 300).work;
    const large = stream(answer(12_000), 300).work;
    expect(large / small).toBeLessThan(2.5);
    // And per chunk, about one block's worth — far from the whole text each time.
    expect(large / 300).toBeLessThan(1_000);
  }, 60_000);

  it("starts afresh when the text is not a continuation", () => {
    const first = renderBlocks("# One\n\nPara one.\n\nPara two.");
    const other = renderBlocks("# Two\n\nSomething else.\n\nMore.", first);
    expect(other.sealed.join("")).toContain("Two");
    expect(other.sealed.join("")).not.toContain("One");
  });

  it("sanitises every block as the whole render does", () => {
    const text = "Hello.\n\n<script>alert(1)</script>\n\n[x](javascript:alert(2))\n\nEnd.";
    const { blocks } = stream(text, 20);
    const div = document.createElement("div");
    div.innerHTML = [...blocks.sealed, blocks.tail].join("");
    expect(div.querySelector("script")).toBeNull();
    for (const a of div.querySelectorAll("a")) expect(a.getAttribute("href") ?? "").not.toMatch(/^javascript:/i);
  });
});

describe("MarkdownCache", () => {
  it("gives what renderMarkdown gives, rendering a text once while it is remembered", () => {
    const text = "## A title\n\n```rust\nfn main() {}\n```\n\n<script>alert(1)</script> and **bold**";
    const calls: string[] = [];
    const cache = new MarkdownCache(100_000, (source) => {
      calls.push(source);
      return renderMarkdown(source);
    });
    const first = cache.get(text);
    expect(first).toBe(renderMarkdown(text));
    expect(first).not.toContain("<script");
    expect(cache.get(text)).toBe(first);
    expect(calls).toEqual([text]);
    expect(renderMarkdownCached(text)).toBe(first);
  });

  it("forgets the least recently used texts beyond its bound, and never holds a huge one", () => {
    const calls: string[] = [];
    // Each text costs 200 characters (source and "HTML" of 100 each).
    const cache = new MarkdownCache(1_000, (source) => {
      calls.push(source);
      return source.toUpperCase();
    });
    const text = (i: number) => `${i}`.padEnd(100, "x");
    cache.get(text(0));
    for (let i = 1; i <= 10; i += 1) {
      cache.get(text(i));
      cache.get(text(0)); // kept in use, so never the one forgotten
    }
    expect(cache.size).toBe(5);
    expect(cache.holds(text(0))).toBe(true);
    expect(cache.holds(text(1))).toBe(false);
    expect(cache.holds(text(10))).toBe(true);
    expect(calls.filter((c) => c === text(0))).toHaveLength(1);
    const huge = "y".repeat(200);
    cache.get(huge);
    cache.get(huge);
    expect(cache.holds(huge)).toBe(false);
    expect(calls.filter((c) => c === huge)).toHaveLength(2);
  });
});

describe("FrameAllowance", () => {
  /** A scheduler whose next frame comes when the test says so. */
  function frames() {
    const waiting: Array<() => void> = [];
    return {
      next: (fn: () => void) => void waiting.push(fn),
      run: () => {
        for (const fn of waiting.splice(0)) fn();
      },
    };
  }

  it("lets a frame render its first text however long, then only what fits", () => {
    const f = frames();
    const a = new FrameAllowance(1_000, f.next);
    expect(a.take(5_000)).toBe(true);
    expect(a.take(1)).toBe(false);
    f.run();
    expect(a.take(600)).toBe(true);
    expect(a.take(400)).toBe(true);
    expect(a.take(1)).toBe(false);
    f.run();
    expect(a.take(1)).toBe(true);
  });
});
