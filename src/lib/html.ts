/**
 * What the service's own pages (/, /console, /docs) share: escaping for text and attribute
 * values, and the headers every page and asset carries. Each page keeps its own
 * Content-Security-Policy next to its markup, where a reader checks one against the other.
 */

/** Text or a quoted attribute value, inert: the five characters HTML gives meaning to. */
export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** No type sniffing (a seller's text never runs as script), no Referer leaving the page. */
export const PAGE_SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } as const;
