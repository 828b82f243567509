/*
 * The entry: read the tag, build the widget once the page has a body, and define the one
 * global, window.BibliotecaWidget (a second copy of the script finds it and does nothing).
 * The other modules only declare; this is the only one that runs anything on load.
 */

import { ask } from "./ask.js";
import { findScript, readConfig } from "./config.js";
import { listen } from "./events.js";
import { closePanel, openPanel } from "./focus.js";
import { renderMarkdown } from "./markdown.js";
import { createWidget } from "./panel.js";
import { STRINGS } from "./strings.js";

function install() {
  const config = readConfig(findScript());
  let widget = null;

  const start = () => {
    if (widget) {
      return;
    }
    widget = createWidget(config);
    listen(widget);
    document.body.appendChild(widget.root);
  };

  window.BibliotecaWidget = Object.freeze({
    version: "1",
    open: () => {
      start();
      openPanel(widget);
    },
    close: () => {
      if (widget) {
        closePanel(widget);
      }
    },
    ask: (question) => {
      start();
      ask(widget, question);
    },
    renderMarkdown: (markdown, sources) =>
      renderMarkdown(markdown, { root: config.root, sources: sources || [], t: STRINGS[config.lang] })
  });

  if (document.body) {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
}

// Included twice (a generator that adds it to every page, or a loader and a tag): the
// first copy owns the page and this one does nothing.
if (!window.BibliotecaWidget) {
  install();
}
