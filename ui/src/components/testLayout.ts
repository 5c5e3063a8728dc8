/** A fake layout for tests of windowed lists (jsdom lays nothing out). */

/**
 * Gives the page a layout jsdom lacks: 400 px scrollers, 60 px items, a scroll position that
 * stays within the content and moves what is inside the scroller (as a browser's does).
 */
export function layout(): () => void {
  const proto = HTMLElement.prototype;
  const saved = ["clientHeight", "scrollHeight", "offsetHeight", "scrollTop", "getBoundingClientRect"].map(
    (name) => [name, Object.getOwnPropertyDescriptor(proto, name) ?? Object.getOwnPropertyDescriptor(Element.prototype, name)] as const,
  );
  const tops = new WeakMap<HTMLElement, number>();
  // An item's height is its `offsetHeight` (60 px, unless a test gives one item another); a
  // spacer's or the head's is its style's.
  const heightOf = (child: HTMLElement): number => (child.dataset["vkey"] !== undefined ? child.offsetHeight : parseFloat(child.style.height || "0"));
  const contentHeight = (el: HTMLElement): number =>
    Array.from(el.querySelectorAll<HTMLElement>(".virtual-list > [aria-hidden='true'], .virtual-head, [data-vkey]")).reduce(
      (sum, child) => sum + heightOf(child),
      0,
    );
  Object.defineProperty(proto, "clientHeight", { configurable: true, get: () => 400 });
  Object.defineProperty(proto, "offsetHeight", { configurable: true, get: () => 60 });
  Object.defineProperty(proto, "scrollHeight", {
    configurable: true,
    get(this: HTMLElement) {
      return contentHeight(this);
    },
  });
  Object.defineProperty(proto, "scrollTop", {
    configurable: true,
    get(this: HTMLElement) {
      return tops.get(this) ?? 0;
    },
    set(this: HTMLElement, v: number) {
      tops.set(this, Math.max(0, Math.min(v, contentHeight(this) - 400)));
    },
  });
  // Scrolling moves what is inside a scroller up on the page; in a windowed list, each part is
  // drawn below the parts before it.
  Object.defineProperty(proto, "getBoundingClientRect", {
    configurable: true,
    value(this: HTMLElement) {
      let top = 0;
      if (this.parentElement?.classList.contains("virtual-list"))
        for (let s = this.previousElementSibling; s; s = s.previousElementSibling) top += heightOf(s as HTMLElement);
      for (let p = this.parentElement; p; p = p.parentElement) top -= p.scrollTop;
      return new DOMRect(0, top, 300, this.offsetHeight);
    },
  });
  return () => {
    for (const [name, d] of saved) {
      if (d) Object.defineProperty(proto, name, d);
      else delete (proto as unknown as Record<string, unknown>)[name];
    }
  };
}
