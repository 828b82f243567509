/*
 * The Markdown subset's blocks, built as DOM nodes: paragraphs, headings (shown as strong
 * lines), lists, fenced code (with its title), quotes and rules. The answer is written by
 * a model from wiki text, so it is untrusted: no answer text ever goes through innerHTML.
 */

import { PREFIX, el } from "./dom.js";
import { renderInline } from "./inline.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\n]*)$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || ITEM.test(line) || QUOTE.test(line);
}

// A DocumentFragment of the answer; `ctx` as renderInline's.
export function renderMarkdown(markdown, ctx) {
  const out = document.createDocumentFragment();
  const lines = String(markdown).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (!line.trim()) {
      i++;
    } else if ((m = FENCE.exec(line))) {
      i = renderFence(lines, i, m, out);
    } else if ((m = HEADING.exec(line))) {
      const heading = el("p", PREFIX + "-heading");
      const strong = el("strong", null);
      renderInline(m[2], strong, ctx, 0);
      heading.appendChild(strong);
      out.appendChild(heading);
      i++;
    } else if (RULE.test(line)) {
      out.appendChild(el("hr", PREFIX + "-rule"));
      i++;
    } else if (ITEM.test(line)) {
      i = renderList(lines, i, out, ctx);
    } else if (QUOTE.test(line)) {
      const quoted = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) {
        quoted.push(m[1]);
        i++;
      }
      const quote = el("blockquote", PREFIX + "-quote");
      quote.appendChild(renderMarkdown(quoted.join("\n"), ctx));
      out.appendChild(quote);
    } else {
      const text = [];
      while (i < lines.length && lines[i].trim() && (text.length === 0 || !startsBlock(lines[i]))) {
        text.push(lines[i].trim());
        i++;
      }
      const p = el("p", PREFIX + "-p");
      renderInline(text.join("\n"), p, ctx, 0);
      out.appendChild(p);
    }
  }
  return out;
}

// A fenced block from its opening line `m` to its closing fence (or the answer's end);
// the index of the line after it.
function renderFence(lines, i, m, out) {
  const fence = m[1];
  const body = [];
  i++;
  while (i < lines.length && !(lines[i].trim().indexOf(fence) === 0 && /^[`~]+$/.test(lines[i].trim()))) {
    body.push(lines[i]);
    i++;
  }
  i++; // the closing fence (or the end of the answer)
  const info = fenceInfo(m[2].trim());
  if (info.title) {
    const caption = el("p", PREFIX + "-code-title");
    caption.appendChild(el("code", null, info.title));
    out.appendChild(caption);
  }
  const pre = el("pre", PREFIX + "-pre");
  const code = el("code", null, body.join("\n"));
  if (info.language) {
    code.className = "language-" + info.language;
  }
  pre.appendChild(code);
  out.appendChild(pre);
  return i;
}

// A fence's info string: its language word, and its title as the import writes it
// (``py title="app.py"``) or as VitePress does (``sh [setup.sh]``, ``[.env]``).
function fenceInfo(info) {
  const word = /^([\w+#.-]+)(?:\s|$)/.exec(info);
  const title = /\btitle=(?:"([^"\n]+)"|'([^'\n]+)')/.exec(info) || /\[([^\]\n]+)\]/.exec(info);
  return {
    language: word && !/=/.test(word[1]) ? word[1] : "",
    title: title ? (title[1] || title[2] || "").trim() : ""
  };
}

function renderList(lines, i, out, ctx) {
  const first = ITEM.exec(lines[i]);
  const ordered = /\d/.test(first[2]);
  const list = el(ordered ? "ol" : "ul", PREFIX + "-list");
  if (ordered && parseInt(first[2], 10) !== 1) {
    list.start = parseInt(first[2], 10);
  }
  let item = null;
  let text = [];
  const flush = () => {
    if (item) {
      renderInline(text.join("\n"), item, ctx, 0);
      list.appendChild(item);
    }
  };
  while (i < lines.length) {
    const line = lines[i];
    const m = ITEM.exec(line);
    if (m && /\d/.test(m[2]) === ordered) {
      flush();
      item = el("li", null);
      text = [m[3]];
    } else if (line.trim() && !m && !startsBlock(line) && item) {
      text.push(line.trim()); // a wrapped line continues the item
    } else {
      break;
    }
    i++;
  }
  flush();
  out.appendChild(list);
  return i;
}
