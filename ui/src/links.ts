/**
 * Links in answers (F-59): they open in the system browser, never in the app window, and a link
 * whose text reads differently from where it goes shows its full target first — a model (or a
 * page it quotes) can write `[docs.rs](https://evil.example)`.
 */

import { LINK_SCHEMES } from "./bindings";

/** What clicking a link would do. */
export interface LinkTarget {
  /** The full target, as the browser would open it. */
  href: string;
  /** Only web and mail links leave the app; anything else is refused. */
  openable: boolean;
  /** The text shown reads as another address than the target (or as no address at all). */
  differs: boolean;
}

/** The engine's list (`tollgate_names::open`), as `URL.protocol` spells them. */
const OPENABLE = new Set<string>(LINK_SCHEMES.map((scheme) => `${scheme}:`));

/** An address reduced to what a reader compares: no scheme, no `www.`, no trailing slash, host in lower case. */
function comparable(address: string): string {
  const trimmed = address.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`);
    if (url.protocol === "mailto:") return `mailto:${url.pathname.toLowerCase()}`;
    const host = url.host.toLowerCase().replace(/^www\./, "");
    const rest = `${url.pathname}${url.search}${url.hash}`.replace(/\/+$/, "");
    return `${host}${rest}`;
  } catch {
    return trimmed;
  }
}

/** Reads a link's target and whether its text tells the truth about it. */
export function linkTarget(href: string, text: string): LinkTarget {
  let url: URL | null;
  try {
    url = new URL(href);
  } catch {
    url = null;
  }
  const full = url ? url.href : href;
  return {
    href: full,
    openable: url !== null && OPENABLE.has(url.protocol),
    differs: comparable(text) !== comparable(full),
  };
}
