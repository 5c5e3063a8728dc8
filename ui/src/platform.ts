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
