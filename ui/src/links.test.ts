import { describe, expect, it } from "vitest";
import { linkTarget } from "./links";

describe("linkTarget", () => {
  it("opens web and mail links whose text is their address without asking", () => {
    expect(linkTarget("https://docs.rs/tokio", "https://docs.rs/tokio")).toEqual({ href: "https://docs.rs/tokio", openable: true, differs: false });
    expect(linkTarget("https://docs.rs/", "docs.rs").differs).toBe(false);
    expect(linkTarget("https://www.Example.com/a/", "example.com/a").differs).toBe(false);
    expect(linkTarget("mailto:me@example.com", "mailto:me@example.com").differs).toBe(false);
  });

  it("shows the target first when the text reads otherwise", () => {
    expect(linkTarget("https://evil.example/docs.rs", "docs.rs")).toEqual({ href: "https://evil.example/docs.rs", openable: true, differs: true });
    expect(linkTarget("https://docs.rs.evil.example/", "https://docs.rs/").differs).toBe(true);
    expect(linkTarget("https://example.com/", "the docs").differs).toBe(true);
    // A look-alike host (a Greek omicron) is another address.
    expect(linkTarget("https://d\u03bfcs.rs/", "docs.rs").differs).toBe(true);
  });

  it("refuses every other scheme", () => {
    for (const href of ["file:///etc/passwd", "javascript:alert(1)", "tauri://localhost/", "ftp://h/", "not a url", "/relative"]) {
      expect(linkTarget(href, href).openable).toBe(false);
    }
  });
});
