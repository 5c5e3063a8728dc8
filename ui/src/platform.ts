/**
 * The operating system the window runs on, for the few looks that differ by system (the font
 * stacks in styles.css).
 */
export type Platform = "linux" | "mac" | "windows" | "other";

/** Reads the system from the webview's user agent (WebKitGTK, WKWebView or WebView2). */
export function platformOf(userAgent: string): Platform {
  if (/Windows/.test(userAgent)) return "windows";
  if (/Macintosh|Mac OS X/.test(userAgent)) return "mac";
  if (/Linux|X11/.test(userAgent) && !/Android/.test(userAgent)) return "linux";
  return "other";
}

/**
 * Marks the page with its system (`<html data-platform>`) before the first style is worked out.
 * On Linux the font stacks then name only families Linux has: WebKitGTK asks fontconfig for every
 * family a stack names, present or not, and again for each size and weight: with the long stacks,
 * fontconfig was a fifth of the page's work at start-up.
 */
export function markPlatform(root: HTMLElement, userAgent: string): void {
  root.dataset.platform = platformOf(userAgent);
}

/** The global the app sets to the desktop's font family, or null when it names none (`desktop_font.rs`). */
export const DESKTOP_FONT_GLOBAL = "__TOLLGATE_UI_FONT__";

/** `value` as a CSS string: quoted, its quotes and backslashes escaped, line breaks as spaces. */
export function cssString(value: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${value.replace(/[\\"]/g, "\\$&").replace(/[\u0000-\u001f\u007f]/g, " ")}"`;
}

/**
 * On Linux, names the desktop's font family as the page's sans-serif font (`--font-sans`), or
 * sans-serif alone when the desktop names none (`null`): the same font `system-ui` gives, each
 * looked up once (F-71). Leaves the style sheet's stack when the app said nothing (`undefined`:
 * a page served outside the app) or on other systems.
 */
export function applyDesktopFont(root: HTMLElement, family: unknown): void {
  if (root.dataset.platform !== "linux") return;
  if (family === null) root.style.setProperty("--font-sans", "sans-serif");
  else if (typeof family === "string" && family.trim() !== "") root.style.setProperty("--font-sans", `${cssString(family)}, sans-serif`);
}
