/*
 * The answer's sources under it: one entry per page, in the order of its first passage,
 * each passage's heading and citation number, a "may be outdated" mark, a snippet.
 */

import { PREFIX, el, link } from "./dom.js";
import { pageUrl, sourceUrl } from "./urls.js";

const MAX_SNIPPET = 220;

// `ctx` as renderInline's; the section shows "no pages matched" when `sources` is empty.
export function sourcesSection(sources, ctx) {
  const section = el("section", PREFIX + "-sources");
  section.appendChild(el("h3", PREFIX + "-sources-title", ctx.t.sources));
  if (!sources.length) {
    section.appendChild(el("p", PREFIX + "-hint", ctx.t.noSources));
  } else {
    const list = el("ul", PREFIX + "-sources-list");
    byPage(sources).forEach((group) => {
      list.appendChild(sourceItem(group, ctx));
    });
    section.appendChild(list);
  }
  return section;
}

// The contract lists a page once per passage used: shown once per page, in the order
// of its first passage, each passage's heading under it with its citation number.
function byPage(sources) {
  const groups = [];
  const seen = {};
  sources.forEach((source, i) => {
    const key = typeof source.slug === "string" && source.slug ? source.slug : "#" + i;
    if (!Object.prototype.hasOwnProperty.call(seen, key)) {
      seen[key] = { first: source, parts: [] };
      groups.push(seen[key]);
    }
    seen[key].parts.push({ source: source, n: i + 1 });
  });
  return groups;
}

function sourceItem(group, ctx) {
  const first = group.first;
  const item = el("li", PREFIX + "-source");
  const title = String(first.title || first.slug || "");
  const single = group.parts.length === 1;
  // One passage: the title opens the page at its heading; several: at its top, and
  // each heading under it opens its own passage.
  const href = single ? sourceUrl(ctx.root, first) : pageUrl(ctx.root, first.slug) || sourceUrl(ctx.root, first);
  item.appendChild(href ? link(href, title) : el("span", null, title));
  if (single && first.heading && String(first.heading) !== title) {
    item.appendChild(el("span", PREFIX + "-source-heading", " — " + String(first.heading)));
  }
  if (single) {
    item.appendChild(el("span", PREFIX + "-source-n", " [" + group.parts[0].n + "]"));
  }
  if (group.parts.some((part) => part.source.freshness === "stale")) {
    // Text, not only a colour or an icon: screen readers say it after the title.
    const mark = el("span", PREFIX + "-stale", ctx.t.stale);
    mark.title = ctx.t.staleWhy;
    item.appendChild(document.createTextNode(" "));
    item.appendChild(mark);
  }
  if (!single) {
    item.appendChild(passages(group, title, ctx));
  }
  if (first.snippet) {
    let snippet = String(first.snippet).replace(/\s+/g, " ").trim();
    if (snippet.length > MAX_SNIPPET) {
      snippet = snippet.slice(0, MAX_SNIPPET - 1).trimEnd() + "…";
    }
    item.appendChild(el("p", PREFIX + "-snippet", snippet));
  }
  return item;
}

// A page cited by several passages: each heading on its own line, linked to its passage.
function passages(group, title, ctx) {
  const under = el("ul", PREFIX + "-source-headings");
  group.parts.forEach((part) => {
    const line = el("li", PREFIX + "-source-part");
    const target = sourceUrl(ctx.root, part.source);
    const words = String(part.source.heading || title);
    line.appendChild(target ? link(target, words) : el("span", null, words));
    line.appendChild(el("span", PREFIX + "-source-n", " [" + part.n + "]"));
    under.appendChild(line);
  });
  return under;
}
