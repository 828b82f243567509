/*
 * Opening and closing the panel and where the focus goes: into the question on open,
 * back to the launcher on close, and Tab kept inside the open panel.
 */

export function isOpen(w) {
  return w.panel.tagName === "DIALOG" ? w.panel.open : !w.panel.hidden;
}

export function openPanel(w) {
  if (isOpen(w)) {
    return;
  }
  if (w.panel.tagName === "DIALOG") {
    w.panel.showModal();
  } else {
    w.panel.hidden = false;
  }
  w.launcher.setAttribute("aria-expanded", "true");
  w.input.focus();
}

export function closePanel(w) {
  if (!isOpen(w)) {
    return;
  }
  if (w.panel.tagName === "DIALOG") {
    w.panel.close(); // its "close" event comes later (a task): afterClose runs again then
  } else {
    w.panel.hidden = true;
  }
  afterClose(w); // now, so aria-expanded and focus never lag behind the closed panel
}

export function afterClose(w) {
  w.launcher.setAttribute("aria-expanded", "false");
  w.launcher.focus();
}

// Tab from the last focusable element goes to the first, Shift+Tab from the first to the
// last (a modal <dialog> may let it reach the browser UI).
export function trapTab(w, event) {
  const focusable = Array.prototype.filter.call(
    w.panel.querySelectorAll("button:not([hidden]):not([disabled]), textarea, a[href]"),
    (node) => node.getClientRects().length > 0 // not inside a hidden block (👎's reasons)
  );
  if (!focusable.length) {
    return;
  }
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}
