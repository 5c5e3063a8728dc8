import { render } from "preact";
import * as api from "./api";
import { App, applyTheme } from "./components/App";
import { applyDesktopFont, DESKTOP_FONT_GLOBAL, markPlatform } from "./platform";

markPlatform(document.documentElement, navigator.userAgent);
// The desktop's font family, which the app hands the page with its window (F-71).
applyDesktopFont(document.documentElement, (window as unknown as Record<string, unknown>)[DESKTOP_FONT_GLOBAL]);
// Follow the system theme until the saved settings arrive, so dark systems never flash light.
applyTheme("system");
const root = document.getElementById("app");
if (root) {
  render(<App />, root);
  // Two frames later the first one is on screen: report it (logged as the start-up time).
  requestAnimationFrame(() =>
    requestAnimationFrame(
      () =>
        // Only the start-up time in the log depends on this call; the user has nothing to act on if it
        // fails (the window works either way), so it is noted for developers instead of shown.
        void api.uiReady(performance.now()).catch((e: unknown) => console.warn("ui_ready failed:", e)),
    ),
  );
}
