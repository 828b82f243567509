/*
 * The widget's settings, read once from its own <script> tag's data attributes
 * (docs/widget.md lists them); anything missing or out of range takes its default.
 */

import { STRINGS } from "./strings.js";

// The tag that loaded this script: itself while it runs, else the last widget.js tag
// (a loader may have added it after the page was parsed).
export function findScript() {
  if (document.currentScript) {
    return document.currentScript;
  }
  const all = document.querySelectorAll("script[src]");
  for (let i = all.length - 1; i >= 0; i--) {
    if (/(^|\/)widget\.js(\?|#|$)/.test(all[i].getAttribute("src"))) {
      return all[i];
    }
  }
  return null;
}

export function siteRoot(script) {
  const explicit = script && script.getAttribute("data-site-root");
  if (explicit) {
    return new URL(explicit.replace(/\/?$/, "/"), document.baseURI).href;
  }
  if (script && script.src) {
    const src = new URL(script.src, document.baseURI);
    src.search = "";
    src.hash = "";
    // The build publishes the script at <root>/static/widget.js.
    return new URL(/\/static\/[^/]*$/.test(src.pathname) ? "../" : "./", src).href;
  }
  return new URL("/", document.baseURI).href;
}

export function readConfig(script) {
  const attr = (name) => {
    const value = script ? script.getAttribute("data-" + name) : null;
    return value && value.trim() ? value.trim() : null;
  };
  const lang = (attr("lang") || document.documentElement.lang || "en").toLowerCase().slice(0, 2);
  const limit = parseInt(attr("limit") || "", 10);
  const timeout = parseFloat(attr("timeout") || "");
  const askUrl = attr("ask-url") || "/ask";
  return {
    askUrl: askUrl,
    feedbackUrl: attr("feedback-url") || siblingUrl(askUrl, "feedback"),
    lang: STRINGS[lang] ? lang : "en",
    mode: attr("mode") === "tutor" ? "tutor" : "help",
    limit: limit >= 1 && limit <= 20 ? limit : null,
    timeoutMs: timeout > 0 ? timeout * 1000 : 60000,
    stream: attr("stream") !== "off",
    filters: { source_type: attr("source-type"), category: attr("category"), tag: attr("tag") },
    root: siteRoot(script)
  };
}

// The functions are siblings: https://<region>-<project>.cloudfunctions.net/ask and
// …/feedback, or /ask and /feedback under `biblioteca serve`.
export function siblingUrl(url, name) {
  const cut = url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  const slash = cut.lastIndexOf("/");
  return slash < 0 ? name : cut.slice(0, slash + 1) + name;
}
