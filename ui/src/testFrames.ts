// Test support: what a piece of UI code does to the page's frames.

/** The frames put into and taken out of the page while `run` runs. */
export function framesDuring(run: () => void): { added: number; removed: number } {
  const seen = { added: 0, removed: 0 };
  const observer = new MutationObserver(() => undefined);
  observer.observe(document.body, { childList: true, subtree: true });
  run();
  for (const record of observer.takeRecords()) {
    seen.added += [...record.addedNodes].filter((n) => n.nodeName === "IFRAME").length;
    seen.removed += [...record.removedNodes].filter((n) => n.nodeName === "IFRAME").length;
  }
  observer.disconnect();
  return seen;
}
