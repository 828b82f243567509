/*
 * Where the widget's links point: a page only by a slug the contract allows, any other
 * target only when it is http(s). Copies of shared/text/slugs.py and shared/site/paths.py
 * (tests/unit/test_js_rules.py runs these definitions against them).
 */

export const SLUG = /^[a-z0-9]+([a-z0-9_\u2014-]*[a-z0-9])?$/;

export function safeHref(raw, base) {
  const value = String(raw || "").trim();
  if (!value) {
    return null;
  }
  let url;
  try {
    url = new URL(value, base);
  } catch (err) {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

export function pageUrl(root, slug) {
  return typeof slug === "string" && SLUG.test(slug) ? root + encodeURIComponent(slug) + "/" : null;
}

// A wiki link's target, ``slug`` or ``slug#anchor`` (a heading of that page).
export function wikiUrl(root, target) {
  const at = target.indexOf("#");
  const url = pageUrl(root, at < 0 ? target : target.slice(0, at));
  const anchor = at < 0 ? "" : target.slice(at + 1);
  return url && anchor ? url + "#" + encodeURIComponent(anchor) : url;
}

// A source opens its page at its heading: the answer's `url` (absolute, or relative to
// the site's root), else the page's top.
export function sourceUrl(root, source) {
  const url = typeof source.url === "string" && source.url ? safeHref(source.url, root) : null;
  return url || pageUrl(root, source.slug);
}
