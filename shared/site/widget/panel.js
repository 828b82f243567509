/*
 * The widget's elements: a launcher button and a dialog with the question form, a status
 * line, the earlier questions and the answer. Built once, listened to by events.js; the
 * widget `w` is these elements plus the conversation's state.
 */

import { PREFIX, el } from "./dom.js";
import { STRINGS } from "./strings.js";

export function createWidget(config) {
  const w = {
    config: config,
    t: STRINGS[config.lang],
    controller: null, // the AbortController of the question being answered
    abortReason: null, // "cancel" or "timeout", once aborted
    history: [], // [{question, answer}], oldest first: sent as `history`
    lastQuestion: null
  };
  const id = PREFIX + "-" + Math.random().toString(36).slice(2, 8);
  w.root = el("div", PREFIX + "-root");
  w.root.setAttribute("lang", config.lang);
  w.launcher = launcher(w.t, id);
  w.panel = dialog(id);
  const body = el("div", PREFIX + "-body");
  body.appendChild(form(w, id));
  w.status = el("div", PREFIX + "-status");
  w.status.setAttribute("role", "status");
  w.status.setAttribute("aria-live", "polite");
  w.thread = el("ol", PREFIX + "-thread");
  w.thread.setAttribute("aria-label", w.t.thread);
  w.thread.hidden = true;
  w.answer = el("div", PREFIX + "-answer");
  w.answer.setAttribute("aria-live", "polite");
  w.answer.setAttribute("aria-busy", "false");
  body.appendChild(w.status);
  body.appendChild(w.thread);
  body.appendChild(w.answer);
  w.panel.appendChild(header(w, id));
  w.panel.appendChild(body);
  w.root.appendChild(w.launcher);
  w.root.appendChild(w.panel);
  return w;
}

function launcher(t, id) {
  const button = el("button", PREFIX + "-launcher");
  button.type = "button";
  button.setAttribute("aria-haspopup", "dialog");
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", id);
  button.appendChild(el("span", PREFIX + "-launcher-icon", "?")).setAttribute("aria-hidden", "true");
  button.appendChild(el("span", PREFIX + "-launcher-text", t.launcher));
  return button;
}

// A native modal <dialog> where the browser has one; else a div that says it is one.
function dialog(id) {
  const native = typeof HTMLDialogElement === "function";
  const panel = el(native ? "dialog" : "div", PREFIX + "-panel");
  panel.id = id;
  panel.setAttribute("aria-labelledby", id + "-title");
  if (!native) {
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-modal", "true");
    panel.hidden = true;
  }
  return panel;
}

function header(w, id) {
  const box = el("div", PREFIX + "-header");
  const title = el("h2", PREFIX + "-title", w.t.title);
  title.id = id + "-title";
  w.closeButton = el("button", PREFIX + "-close");
  w.closeButton.type = "button";
  w.closeButton.setAttribute("aria-label", w.t.close);
  w.closeButton.appendChild(el("span", null, "×")).setAttribute("aria-hidden", "true");
  box.appendChild(title);
  box.appendChild(w.closeButton);
  return box;
}

function form(w, id) {
  const t = w.t;
  w.form = el("form", PREFIX + "-form");
  w.form.noValidate = true;
  const label = el("label", PREFIX + "-label", t.label);
  label.htmlFor = id + "-q";
  w.input = el("textarea", PREFIX + "-input");
  w.input.id = id + "-q";
  w.input.name = "question";
  w.input.rows = 3;
  w.input.maxLength = 2000;
  w.input.placeholder = t.placeholder;
  w.input.setAttribute("aria-describedby", id + "-hint");
  const hint = el("p", PREFIX + "-hint", t.hint);
  hint.id = id + "-hint";
  const actions = el("div", PREFIX + "-actions");
  w.submit = el("button", PREFIX + "-submit", t.submit);
  w.submit.type = "submit";
  w.cancel = el("button", PREFIX + "-cancel", t.cancel);
  w.cancel.type = "button";
  w.cancel.hidden = true;
  w.newThread = el("button", PREFIX + "-new", t.newThread);
  w.newThread.type = "button";
  w.newThread.hidden = true;
  actions.appendChild(w.submit);
  actions.appendChild(w.cancel);
  actions.appendChild(w.newThread);
  w.form.appendChild(label);
  w.form.appendChild(w.input);
  w.form.appendChild(hint);
  w.form.appendChild(actions);
  return w.form;
}

// The status line: a message, `kind` "progress" (with a spinner), "info" or "error".
export function say(w, message, kind) {
  w.status.textContent = "";
  w.status.className = PREFIX + "-status" + (kind ? " " + PREFIX + "-status-" + kind : "");
  if (kind === "progress") {
    w.status.appendChild(el("span", PREFIX + "-spinner")).setAttribute("aria-hidden", "true");
  }
  if (message) {
    w.status.appendChild(el("span", null, message));
  }
}

export function setBusy(w, busy) {
  w.answer.setAttribute("aria-busy", busy ? "true" : "false");
  w.submit.disabled = busy;
  w.cancel.hidden = !busy;
  w.cancel.textContent = w.t.cancel;
  w.newThread.disabled = busy;
}
