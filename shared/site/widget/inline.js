/*
 * The Markdown subset's inline spans, built as DOM nodes: `code`, **bold**, *em*,
 * [text](http…), [[slug|text]] and [n] citations of the answer's sources. Underscores are
 * left alone: wiki text is full of __init__ and snake_case outside backticks.
 */

import { PREFIX, el, link } from "./dom.js";
import { safeHref, sourceUrl, wikiUrl } from "./urls.js";

const INLINE = new RegExp(
  [
    "(`+)([^`]|[^`][\\s\\S]*?[^`])\\1(?!`)", // 1,2 code span
    "\\*\\*(?=\\S)([\\s\\S]*?\\S)\\*\\*", // 3 bold
    "\\*(?=[^\\s*])([\\s\\S]*?[^\\s*])\\*", // 4 em
    "\\[\\[([^\\]|\\n]+)(?:\\|([^\\]\\n]+))?\\]\\]", // 5,6 wiki link
    "\\[([^\\]\\n]+)\\]\\(\\s*<?([^()\\s<>]+)>?(?:\\s+\"[^\"\\n]*\")?\\s*\\)", // 7,8 link
    "\\[(\\d{1,3}(?:\\s*,\\s*\\d{1,3})*)\\]" // 9 citations
  ].join("|"),
  "g"
);

// `ctx`: {root, sources, t}, the site's root, the answer's sources and the strings.
export function renderInline(text, parent, ctx, depth) {
  const re = new RegExp(INLINE.source, "g");
  let last = 0;
  let match;
  while ((match = re.exec(text)) !== null) {
    if (match.index > last) {
      parent.appendChild(document.createTextNode(text.slice(last, match.index)));
    }
    last = re.lastIndex;
    if (match[2] !== undefined) {
      parent.appendChild(el("code", PREFIX + "-code", match[2].replace(/^ (.*) $/, "$1")));
    } else if (match[3] !== undefined) {
      nested("strong", match[3]);
    } else if (match[4] !== undefined) {
      nested("em", match[4]);
    } else if (match[5] !== undefined) {
      const slug = match[5].trim();
      // A link without words shows its page's title (a source's, when one is that page).
      const label = (match[6] || titleOf(ctx.sources, slug) || slug).trim();
      const target = wikiUrl(ctx.root, slug);
      parent.appendChild(target ? link(target, label) : document.createTextNode(label));
    } else if (match[7] !== undefined) {
      const href = safeHref(match[8], ctx.root);
      if (href && depth < 4) {
        const a = link(href, null);
        renderInline(match[7], a, ctx, depth + 1);
        parent.appendChild(a);
      } else {
        // A refused target (javascript:, data:, …) keeps its words and loses the link.
        renderInline(match[7], parent, ctx, depth + 1);
      }
    } else {
      citations(match[9], parent, ctx);
    }
  }
  if (last < text.length) {
    parent.appendChild(document.createTextNode(text.slice(last)));
  }

  function nested(tag, inner) {
    const node = el(tag, null);
    if (depth < 4) {
      renderInline(inner, node, ctx, depth + 1);
    } else {
      node.textContent = inner;
    }
    parent.appendChild(node);
  }
}

// `[1, 3]`: each number a link to that source (the contract numbers them from 1); a
// number no source has stays text.
function citations(list, parent, ctx) {
  const numbers = list.split(",");
  parent.appendChild(document.createTextNode("["));
  for (let i = 0; i < numbers.length; i++) {
    const n = parseInt(numbers[i], 10);
    const source = ctx.sources[n - 1];
    const target = source ? sourceUrl(ctx.root, source) : null;
    if (i > 0) {
      parent.appendChild(document.createTextNode(", "));
    }
    if (target) {
      const a = link(target, String(n));
      a.className += " " + PREFIX + "-cite";
      a.title = source.title ? String(source.title) : source.slug;
      a.setAttribute("aria-label", ctx.t.source + " " + n + ": " + a.title);
      parent.appendChild(a);
    } else {
      parent.appendChild(document.createTextNode(String(n)));
    }
  }
  parent.appendChild(document.createTextNode("]"));
}

function titleOf(sources, target) {
  const slug = target.split("#")[0];
  for (let i = 0; i < sources.length; i++) {
    if (sources[i].slug === slug && sources[i].title) {
      return String(sources[i].title);
    }
  }
  return null;
}
