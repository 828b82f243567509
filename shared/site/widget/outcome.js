/*
 * What a question came to, said in the panel: the answer, or why there is none (the
 * rate limit's wait, the server's own message, a timeout, no connection).
 */

import { showAnswer } from "./answer.js";
import { PREFIX } from "./dom.js";
import { say } from "./panel.js";
import { format } from "./strings.js";

export const MAX_SERVER_MESSAGE = 300;

// A whole response (or a stream's `done`, as 200): its HTTP status and JSON body.
export function finish(w, status, data, retryAfter) {
  const t = w.t;
  if (status === 429) {
    const wait = retrySeconds(retryAfter);
    say(w, wait === null ? t.rateLimitedNoWait : format(t.rateLimited, { s: wait }), "error");
  } else if (status >= 500) {
    say(w, format(t.serverError, { status: status }), "error");
  } else if (status >= 400) {
    const message = data && typeof data.error === "string" ? data.error.slice(0, MAX_SERVER_MESSAGE) : "";
    say(w, message ? format(t.badRequest, { msg: message }) : format(t.badRequestNoMsg, { status: status }), "error");
  } else if (!data || typeof data.answer !== "string") {
    say(w, t.badResponse, "error");
  } else {
    say(w, "", null);
    showAnswer(w, data);
  }
}

// No response: cancelled (what a stream had written stays, marked), timed out, offline.
export function failure(w) {
  const t = w.t;
  const partial = w.answer.querySelector("." + PREFIX + "-live");
  if (w.abortReason === "cancel" && partial) {
    partial.className += " " + PREFIX + "-stopped";
    say(w, t.stopped, "info");
  } else if (w.abortReason === "cancel") {
    say(w, t.cancelled, "info");
  } else if (w.abortReason === "timeout") {
    say(w, format(t.timeout, { s: Math.round(w.config.timeoutMs / 1000) }), "error");
  } else {
    say(w, navigator.onLine === false ? t.offline : t.network, "error");
  }
}

// `Retry-After` in seconds or as an HTTP date; null when absent or unreadable.
function retrySeconds(header) {
  if (!header) {
    return null;
  }
  if (/^\s*\d+\s*$/.test(header)) {
    return parseInt(header, 10);
  }
  const when = Date.parse(header);
  return isNaN(when) ? null : Math.max(0, Math.ceil((when - Date.now()) / 1000));
}
