/*
 * Biblioteca site chrome: the sidebar (drawn from nav.js, one file per build), the
 * light/dark toggle (kept in localStorage), the mobile menu and the search box.
 *
 * Everything is built with createElement and text nodes: titles never go through
 * innerHTML. Without script the page keeps a link to the index in the sidebar.
 */
(function () {
  "use strict";

  var body = document.body;
  var root = body.getAttribute("data-root") || "";
  var current = body.getAttribute("data-slug") || "";
  var THEME_KEY = "biblioteca-theme";

  function pageHref(slug) {
    return root + encodeURIComponent(slug) + "/index.html";
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (name) { node.setAttribute(name, attrs[name]); });
    }
    if (text) { node.appendChild(document.createTextNode(text)); }
    return node;
  }

  // -- sidebar -------------------------------------------------------------------------

  function link(item) {
    var a = el("a", { href: item.u ? item.u : pageHref(item.s) }, item.t);
    if (item.u) { a.setAttribute("rel", "noopener"); }
    if (item.s && item.s === current) { a.setAttribute("aria-current", "page"); }
    return a;
  }

  function holds(item) {
    if (item.s === current) { return true; }
    return !!item.c && item.c.some(holds);
  }

  function list(items) {
    var ul = el("ul");
    items.forEach(function (item) {
      var li = el("li");
      if (item.c) {
        var details = el("details");
        if (holds(item)) { details.open = true; }
        details.appendChild(el("summary", null, item.t));
        var inner = el("ul");
        if (item.s) {
          var first = el("li");
          first.appendChild(link(item));
          inner.appendChild(first);
        }
        var rest = list(item.c);
        while (rest.firstChild) { inner.appendChild(rest.firstChild); }
        details.appendChild(inner);
        li.appendChild(details);
      } else {
        li.appendChild(link(item));
      }
      ul.appendChild(li);
    });
    return ul;
  }

  function drawSidebar() {
    var nav = document.getElementById("sidebar");
    var tree = window.BIBLIOTECA_NAV;
    if (!nav || !Array.isArray(tree)) { return; }
    var home = nav.querySelector("a.all");
    var ul = list(tree);
    nav.appendChild(ul);
    if (home) { home.setAttribute("href", root + "index.html"); }
    var here = nav.querySelector('a[aria-current="page"]');
    if (here && here.scrollIntoView && nav.scrollHeight > nav.clientHeight) {
      here.scrollIntoView({ block: "center" });
      window.scrollTo(0, 0);
    }
  }

  // -- mobile menu -----------------------------------------------------------------------

  function setupMenu() {
    var button = document.querySelector("button.menu");
    var nav = document.getElementById("sidebar");
    if (!button || !nav) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      var open = nav.classList.toggle("open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) {
        var target = nav.querySelector('a[aria-current="page"]') || nav.querySelector("a");
        if (target) { target.focus(); }
      }
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && nav.classList.contains("open")) {
        nav.classList.remove("open");
        button.setAttribute("aria-expanded", "false");
        button.focus();
      }
    });
  }

  // -- light and dark ----------------------------------------------------------------------

  function effectiveTheme() {
    var set = document.documentElement.getAttribute("data-theme");
    if (set === "dark" || set === "light") { return set; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches
      ? "dark" : "light";
  }

  function setupTheme() {
    var button = document.querySelector("button.theme");
    if (!button) { return; }
    button.hidden = false;
    function show() { button.setAttribute("aria-pressed", effectiveTheme() === "dark" ? "true" : "false"); }
    show();
    button.addEventListener("click", function () {
      var next = effectiveTheme() === "dark" ? "light" : "dark";
      document.documentElement.setAttribute("data-theme", next);
      try { localStorage.setItem(THEME_KEY, next); } catch (e) { /* private mode: this page only */ }
      show();
    });
  }

  drawSidebar();
  setupMenu();
  setupTheme();
  window.BibliotecaSite = { root: root, pageHref: pageHref, el: el };
})();
