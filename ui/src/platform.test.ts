import { describe, expect, it } from "vitest";
import { applyDesktopFont, cssString, markPlatform, platformOf } from "./platform";

describe("platformOf", () => {
  it("tells the three desktop webviews apart", () => {
    expect(platformOf("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15")).toBe("linux");
    expect(platformOf("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)")).toBe("mac");
    expect(
      platformOf("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0"),
    ).toBe("windows");
  });

  it("does not take Android for desktop Linux", () => {
    expect(platformOf("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36")).toBe("other");
    expect(platformOf("")).toBe("other");
  });
});

describe("markPlatform", () => {
  it("sets data-platform, which picks the Linux font stacks", () => {
    const root = document.createElement("html");
    markPlatform(root, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15");
    expect(root.dataset.platform).toBe("linux");
  });
});

describe("applyDesktopFont", () => {
  const linuxRoot = () => {
    const root = document.createElement("html");
    markPlatform(root, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15");
    return root;
  };

  it("names the desktop's family before sans-serif, or sans-serif alone when the desktop has none", () => {
    const root = linuxRoot();
    applyDesktopFont(root, "Adwaita Sans");
    expect(root.style.getPropertyValue("--font-sans")).toBe('"Adwaita Sans", sans-serif');
    applyDesktopFont(root, null);
    expect(root.style.getPropertyValue("--font-sans")).toBe("sans-serif");
  });

  it("keeps the style sheet's stack when the app said nothing, said something odd, or off Linux", () => {
    for (const value of [undefined, "", "   ", 42, { family: "x" }]) {
      const root = linuxRoot();
      applyDesktopFont(root, value);
      expect(root.style.getPropertyValue("--font-sans")).toBe("");
    }
    const mac = document.createElement("html");
    markPlatform(mac, "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15");
    applyDesktopFont(mac, "Cantarell");
    expect(mac.style.getPropertyValue("--font-sans")).toBe("");
  });

  it("keeps a hostile family name inside its CSS string", () => {
    const root = linuxRoot();
    const hostile = 'Evil", monospace; background: url(https://attacker.example/x) \\"\n}';
    applyDesktopFont(root, hostile);
    expect(root.style.getPropertyValue("--font-sans")).toBe(`${cssString(hostile)}, sans-serif`);
    // Read back as CSS reads a string: it ends only at its closing quote, and unescapes to the name.
    const inner = cssString(hostile).slice(1, -1);
    let unescaped = "";
    for (let i = 0; i < inner.length; i++) {
      const c = inner.charAt(i);
      expect(c).not.toBe('"');
      if (c === "\\") i++; // an escape: the next character is taken as it is
      unescaped += inner.charAt(i);
    }
    expect(unescaped).toBe(hostile.replace("\n", " "));
    expect(cssString('a"b\\c\nd')).toBe('"a\\"b\\\\c d"');
  });
});
