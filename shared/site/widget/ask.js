/*
 * Asking: POST the question to `ask` (with the earlier turns, the tag's filters, and
 * "stream": true unless data-stream="off"), read the events or the whole answer, and
 * stop on Cancel or after data-timeout (one AbortController).
 */

import { MAX_TURNS } from "./conversation.js";
import { openPanel } from "./focus.js";
import { onStreamEvent } from "./live.js";
import { failure, finish } from "./outcome.js";
import { say, setBusy } from "./panel.js";
import { readEvents } from "./stream.js";

export function abort(w, reason) {
  if (w.controller) {
    w.abortReason = reason;
    w.controller.abort();
  }
}

// The contract's ask body for `text` (docs/ask.md).
function requestBody(w, text) {
  const config = w.config;
  const body = { question: text, mode: config.mode };
  if (config.stream) {
    body.stream = true;
  }
  if (w.history.length && config.mode !== "tutor") {
    body.history = w.history.slice(-MAX_TURNS);
  }
  if (config.limit) {
    body.limit = config.limit;
  }
  Object.keys(config.filters).forEach((key) => {
    if (config.filters[key]) {
      body[key] = config.filters[key];
    }
  });
  return body;
}

// One question at a time: asked again while one is answered, it does nothing.
export function ask(w, question) {
  const text = String(question || "").trim();
  if (w.controller) {
    return;
  }
  if (!text) {
    say(w, w.t.empty, "error");
    w.input.focus();
    return;
  }
  openPanel(w);
  w.lastQuestion = text;
  const body = requestBody(w, text);
  w.controller = new AbortController();
  w.abortReason = null;
  const timer = setTimeout(() => abort(w, "timeout"), w.config.timeoutMs);
  w.answer.textContent = "";
  setBusy(w, true);
  say(w, w.t.waiting, "progress");
  fetch(w.config.askUrl, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: w.config.stream ? "text/event-stream, application/json" : "application/json"
    },
    body: JSON.stringify(body),
    signal: w.controller.signal
  })
    .then((response) => read(w, response))
    .catch(() => failure(w))
    .then(() => {
      clearTimeout(timer);
      w.controller = null;
      setBusy(w, false);
    });
}

// A stream of events, or (an error, always JSON, or a server that answered whole) a body.
function read(w, response) {
  const status = response.status;
  const retryAfter = response.headers.get("Retry-After");
  const type = response.headers.get("Content-Type") || "";
  if (response.ok && /^text\/event-stream/.test(type) && response.body && response.body.getReader) {
    const live = { sources: [], text: "", node: null };
    return readEvents(response.body.getReader(), (name, data) => onStreamEvent(w, name, data, live)).then(
      (ended) => {
        if (!ended) {
          say(w, w.t.badResponse, "error"); // the stream ended without its `done`
        }
      }
    );
  }
  return response.text().then((raw) => {
    let data = null;
    try {
      data = JSON.parse(raw);
    } catch (err) {
      data = null;
    }
    finish(w, status, data, retryAfter);
  });
}
