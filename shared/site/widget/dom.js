/*
 * Building the widget's DOM: elements with a class and text, never innerHTML (an answer
 * is untrusted text), and links that leave the page opened apart.
 */

// Every class the widget sets starts with it (widget.css styles `.bib-…`).
export const PREFIX = "bib";

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined && text !== null) {
    node.textContent = text;
  }
  return node;
}

// `href` is already checked (urls.js); another origin's page opens in a new tab, told
// nothing of this one.
export function link(href, text) {
  const a = el("a", PREFIX + "-link", text);
  a.href = href;
  if (new URL(href).origin !== window.location.origin) {
    a.rel = "noopener noreferrer nofollow";
    a.target = "_blank";
  }
  return a;
}

// A button that is on or off (aria-pressed), with a label when its text is not enough.
export function toggle(className, text, label) {
  const button = el("button", className, text);
  button.type = "button";
  button.setAttribute("aria-pressed", "false");
  if (label) {
    button.setAttribute("aria-label", label);
  }
  return button;
}
