import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

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
