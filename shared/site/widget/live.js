/*
 * A streamed answer in the panel: `sources` first, each `delta` rendered as it arrives,
 * then `done` (the checked answer replaces the text as it came) or `error`.
 */

import { PREFIX, el } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { MAX_SERVER_MESSAGE, finish } from "./outcome.js";
import { say } from "./panel.js";
import { format } from "./strings.js";

// `live`: {sources, text, node}, the answer so far. True when the event ends the stream.
export function onStreamEvent(w, name, data, live) {
  if (!data || typeof data !== "object") {
    return false;
  }
  if (name === "sources" && Array.isArray(data.sources)) {
    live.sources = data.sources.filter((s) => s && typeof s === "object");
  } else if (name === "delta" && typeof data.text === "string") {
    if (!live.node) {
      say(w, "", null);
      w.cancel.textContent = w.t.stop;
      live.node = el("div", PREFIX + "-markdown " + PREFIX + "-live");
      w.answer.appendChild(live.node);
    }
    live.text += data.text;
    // Rendered again whole: a half-written list or code block settles as text arrives.
    live.node.textContent = "";
    live.node.appendChild(renderMarkdown(live.text, { root: w.config.root, sources: live.sources, t: w.t }));
  } else if (name === "done") {
    w.answer.textContent = ""; // the checked answer replaces the text as it came
    finish(w, 200, data, null);
    return true;
  } else if (name === "error") {
    const message = typeof data.error === "string" ? data.error.slice(0, MAX_SERVER_MESSAGE) : "";
    say(w, format(w.t.streamFailed, { msg: message || data.code || "?" }), "error");
    return true;
  }
  return false;
}
