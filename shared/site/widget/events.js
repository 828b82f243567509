/*
 * The keys and clicks the widget answers: the launcher toggles the panel, Enter sends
 * (Shift+Enter is a new line), Escape and the backdrop close, Tab stays inside.
 */

import { abort, ask } from "./ask.js";
import { forget } from "./conversation.js";
import { afterClose, closePanel, isOpen, openPanel, trapTab } from "./focus.js";

export function listen(w) {
  w.launcher.addEventListener("click", () => {
    isOpen(w) ? closePanel(w) : openPanel(w);
  });
  w.closeButton.addEventListener("click", () => closePanel(w));
  w.cancel.addEventListener("click", () => abort(w, "cancel"));
  w.newThread.addEventListener("click", () => {
    forget(w);
    w.input.focus();
  });
  w.form.addEventListener("submit", (event) => {
    event.preventDefault();
    ask(w, w.input.value);
  });
  w.input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      ask(w, w.input.value);
    }
  });
  w.panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault(); // our close restores focus; the native cancel would too, later
      closePanel(w);
    } else if (event.key === "Tab") {
      trapTab(w, event);
    }
  });
  // A click on the backdrop lands on the <dialog> itself, outside its content.
  w.panel.addEventListener("click", (event) => {
    if (event.target === w.panel) {
      closePanel(w);
    }
  });
  if (w.panel.tagName === "DIALOG") {
    w.panel.addEventListener("close", () => afterClose(w));
  }
}
