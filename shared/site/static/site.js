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
    if (here && nav.scrollHeight > nav.clientHeight) {
      // Scroll the sidebar only (scrollIntoView would also move the page and the
      // keyboard's starting point).
      var offset = here.getBoundingClientRect().top - nav.getBoundingClientRect().top;
      nav.scrollTop += offset - nav.clientHeight / 2;
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


  // -- search ---------------------------------------------------------------------------
  // Shards of search/<ab>.js (see shared/site/search.py), loaded when a query needs them.

  var STOP = {};
  (window.BIBLIOTECA_STOPWORDS || []).forEach(function (w) { STOP[w] = true; });
  var SPLIT = {};
  (window.BIBLIOTECA_SEARCH_SPLIT || []).forEach(function (k) { SPLIT[k] = true; });
  var shards = {};
  var waiting = {};

  function fold(text) {
    return text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
      .replace(/ß/g, "ss").replace(/æ/g, "ae").replace(/œ/g, "oe").replace(/ø/g, "o");
  }

  function words(text) {
    return (fold(text).match(/[a-z0-9]+/g) || []).filter(function (w) {
      return w.length > 1 && !STOP[w];
    });
  }

  window.BibliotecaSearch = {
    shard: function (key, rows) {
      shards[key] = rows;
      (waiting[key] || []).forEach(function (done) { done(); });
      delete waiting[key];
    }
  };

  function loadShard(key, done) {
    if (shards[key]) { done(); return; }
    if (waiting[key]) { waiting[key].push(done); return; }
    waiting[key] = [done];
    var script = document.createElement("script");
    script.src = root + "search/" + key + ".js";
    script.async = true;
    script.onerror = function () { window.BibliotecaSearch.shard(key, []); };
    document.head.appendChild(script);
  }

  function prefixOf(query, haystack) {
    return haystack.some(function (w) { return w.indexOf(query) === 0; });
  }

  function score(row, terms) {
    // row: [slug, title, [anchor, text]...]; every term must start a word of the title
    // or of one of the headings listed; title matches rank first.
    var title = words(row[1]);
    var best = null;
    var titleHits = terms.filter(function (t) { return prefixOf(t, title); }).length;
    if (titleHits === terms.length) {
      var exact = terms.filter(function (t) { return title.indexOf(t) >= 0; }).length;
      return { row: row, score: 100 + exact * 10 - title.length, heading: null };
    }
    for (var i = 2; i < row.length; i++) {
      var heading = words(row[i][1]).concat(title);
      if (terms.every(function (t) { return prefixOf(t, heading); })) {
        var s = 50 + titleHits * 10 - heading.length;
        if (!best || s > best.score) { best = { row: row, score: s, heading: row[i] }; }
      }
    }
    return best;
  }

  function setupSearch() {
    var box = document.querySelector(".search");
    var input = document.getElementById("search");
    var results = document.getElementById("search-results");
    if (!box || !input || !results) { return; }
    box.hidden = false;
    var none = document.documentElement.lang === "en" ? "No pages match." : "Ninguna página coincide.";
    var selected = -1;
    var seq = 0;

    function close() {
      results.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      selected = -1;
    }

    function select(index) {
      var items = results.querySelectorAll("li[role=option]");
      if (!items.length) { return; }
      selected = (index + items.length) % items.length;
      Array.prototype.forEach.call(items, function (item, i) {
        item.setAttribute("aria-selected", i === selected ? "true" : "false");
      });
      input.setAttribute("aria-activedescendant", items[selected].id);
      items[selected].scrollIntoView({ block: "nearest" });
    }

    function show(found) {
      while (results.firstChild) { results.removeChild(results.firstChild); }
      if (!found.length) {
        results.appendChild(el("li", { "class": "none" }, none));
      }
      found.forEach(function (hit, i) {
        var href = pageHref(hit.row[0]) + (hit.heading ? "#" + encodeURIComponent(hit.heading[0]) : "");
        var li = el("li", { role: "option", id: "search-hit-" + i, "aria-selected": "false" });
        var a = el("a", { href: href, tabindex: "-1" }, hit.row[1]);
        if (hit.heading) { a.appendChild(el("span", { "class": "where" }, hit.heading[1])); }
        li.appendChild(a);
        results.appendChild(li);
      });
      results.hidden = false;
      input.setAttribute("aria-expanded", "true");
      selected = -1;
      if (found.length) { select(0); }
    }

    function run() {
      var terms = words(input.value);
      if (!terms.length) { close(); return; }
      var longest = terms.slice().sort(function (a, b) { return b.length - a.length; })[0];
      var key = longest.slice(0, 3);
      while (SPLIT[key] && key.length < longest.length) { key = longest.slice(0, key.length + 1); }
      var mine = ++seq;
      loadShard(key, function () {
        if (mine !== seq) { return; }
        var found = [];
        (shards[key] || []).forEach(function (row) {
          var hit = score(row, terms);
          if (hit) { found.push(hit); }
        });
        found.sort(function (a, b) {
          return b.score - a.score || a.row[1].localeCompare(b.row[1], "es");
        });
        show(found.slice(0, 12));
      });
    }

    input.addEventListener("input", run);
    input.addEventListener("focus", function () { if (input.value) { run(); } });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown") { event.preventDefault(); select(selected + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); select(selected - 1); }
      else if (event.key === "Enter") {
        var item = results.querySelectorAll("li[role=option] a")[selected < 0 ? 0 : selected];
        if (item && !results.hidden) { event.preventDefault(); window.location.href = item.href; }
      } else if (event.key === "Escape") { input.value = ""; close(); }
    });
    document.addEventListener("click", function (event) {
      if (!box.contains(event.target)) { close(); }
    });
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      var typing = target && (target.isContentEditable ||
        /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
      if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        input.focus();
      }
    });
  }

  // -- table of contents: a button on narrow screens (see site.css) -------------------

  function setupToc() {
    var toc = document.querySelector("nav.toc");
    var title = toc && toc.querySelector(".toc-title");
    if (!title) { return; }
    title.setAttribute("role", "button");
    title.setAttribute("tabindex", "0");
    title.setAttribute("aria-expanded", "false");
    function toggle() {
      var open = toc.classList.toggle("open");
      title.setAttribute("aria-expanded", open ? "true" : "false");
    }
    title.addEventListener("click", toggle);
    title.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggle(); }
    });
  }

  document.documentElement.classList.add("js");
  drawSidebar();
  setupToc();
  setupMenu();
  setupTheme();
  setupSearch();
  window.BibliotecaSite = { root: root, pageHref: pageHref, el: el };
})();
