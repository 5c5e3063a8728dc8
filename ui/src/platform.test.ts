import { describe, expect, it } from "vitest";
import { markPlatform, platformOf } from "./platform";

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
