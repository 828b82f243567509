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
    // Behind the open drawer, a backdrop dims the page; a tap on it closes the drawer.
    var backdrop = el("div", { "class": "drawer-backdrop", "aria-hidden": "true" });
    backdrop.hidden = true;
    body.appendChild(backdrop);

    function setOpen(open, refocus) {
      nav.classList.toggle("open", open);
      backdrop.hidden = !open;
      document.documentElement.classList.toggle("drawer-open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) {
        var target = nav.querySelector('a[aria-current="page"]') || nav.querySelector("a");
        if (target) { target.focus(); }
      } else if (refocus) {
        button.focus();
      }
    }

    button.addEventListener("click", function () { setOpen(!nav.classList.contains("open"), false); });
    backdrop.addEventListener("click", function () { setOpen(false, true); });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && nav.classList.contains("open")) { setOpen(false, true); }
    });
    // Widening the window past the phone layout leaves no drawer (nor a backdrop) open.
    if (window.matchMedia) {
      var wide = window.matchMedia("(min-width: 48.01rem)");
      var onWide = function () { if (wide.matches && nav.classList.contains("open")) { setOpen(false, false); } };
      if (wide.addEventListener) { wide.addEventListener("change", onWide); }
    }
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
  // Word shards search/<abc>.js and each page's passages <slug>/search.js (see
  // shared/site/search.py), loaded when a query needs them.

  var STOP = {};
  (window.BIBLIOTECA_STOPWORDS || []).forEach(function (w) { STOP[w] = true; });
  var SPLIT = {};
  (window.BIBLIOTECA_SEARCH_SPLIT || []).forEach(function (k) { SPLIT[k] = true; });
  var MAX_RESULTS = 10;
  var MAX_EXPANSIONS = 40; // forms a prefix expands to (the shortest first)
  var TITLE = 30, HEADING = 8; // a word in the title, in a passage's heading; text: 1..4
  var shards = Object.create(null);
  var pagesSeen = Object.create(null);
  var waiting = Object.create(null);

  // shared.text.fold: lower case, the letters NFKD keeps whole spelled out (ß: ss),
  // accents stripped (tests/unit/test_js_rules.py checks the two agree).
  var SPELLED = { "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d",
    "þ": "th", "ı": "i" };
  function fold(text) {
    return text.toLowerCase()
      .replace(/[ßæœøłđðþı]/g, function (c) { return SPELLED[c]; })
      .normalize("NFKD")
      .replace(/[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g, "");
  }

  function words(text) {
    return (fold(text).match(/[a-z0-9]+/g) || []).filter(function (w) {
      return w.length > 1 && !STOP[w];
    });
  }

  window.BibliotecaSearch = {
    shard: function (key, data) { arrived("s:" + key, shards, key, data); },
    page: function (slug, data) { arrived("p:" + slug, pagesSeen, slug, data); }
  };

  function arrived(id, store, key, data) {
    store[key] = data;
    (waiting[id] || []).forEach(function (done) { done(); });
    delete waiting[id];
  }

  function load(id, store, key, src, done) {
    if (store[key]) { done(); return; }
    if (waiting[id]) { waiting[id].push(done); return; }
    waiting[id] = [done];
    var script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.onerror = function () { arrived(id, store, key, store === shards ? { f: {}, d: [], t: {} } : null); };
    document.head.appendChild(script);
  }

  function all(jobs, done) {
    var left = jobs.length;
    if (!left) { done(); return; }
    jobs.forEach(function (job) { job(function () { if (--left === 0) { done(); } }); });
  }

  // A value of a map from JSON or our own: never one of Object.prototype's ("constructor"
  // is a word of the wiki too).
  function own(map, key) {
    return map && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
  }

  function keyOf(word) {
    var key = word.slice(0, 3);
    while (SPLIT[key] && key.length < word.length) { key = word.slice(0, key.length + 1); }
    return key;
  }

  function shardJob(key) {
    return function (done) { load("s:" + key, shards, key, root + "search/" + key + ".js", done); };
  }

  function pageJob(slug) {
    return function (done) {
      load("p:" + slug, pagesSeen, slug, root + encodeURIComponent(slug) + "/search.js", done);
    };
  }

  // The stems a query word stands for: its own form, and while it is being typed (the
  // last word) every form it starts, shortest first.
  function stemsOf(word, prefix) {
    var forms = (own(shards, keyOf(word)) || {}).f || {};
    var out = Object.create(null);
    var mine = own(forms, word);
    if (mine) { mine.split(" ").forEach(function (s) { out[s] = word; }); }
    var start = word;
    if (!mine && !prefix && word.length > 5) {
      // A form the wiki never wrote ("desconexión" beside its "desconexiones"): the
      // forms that share all but its last two letters and are about as long, standing
      // in for the stemmer the box does not have.
      start = word.slice(0, word.length - 2);
      prefix = true;
    }
    if (prefix) {
      Object.keys(forms).filter(function (f) {
        return f.indexOf(start) === 0 && f !== word && (start === word || f.length <= word.length + 3);
      })
        .sort(function (a, b) { return a.length - b.length || (a < b ? -1 : 1); })
        .slice(0, MAX_EXPANSIONS)
        .forEach(function (f) {
          forms[f].split(" ").forEach(function (s) { if (!out[s]) { out[s] = f; } });
        });
    }
    return out;
  }

  function textWeight(count) { return Math.min(4, 1 + Math.log(count) / Math.LN2 / 2); }

  // Every page's score for the query: per word its best place (title > heading > text),
  // summed; the passage holding most of the words is the one the result opens.
  function rank(terms, prefixLast) {
    var docs = Object.create(null);
    terms.forEach(function (term, t) {
      var shard = own(shards, keyOf(term)) || { d: [], t: {} };
      var stems = stemsOf(term, prefixLast && t === terms.length - 1);
      Object.keys(stems).forEach(function (stem) {
        (own(shard.t, stem) || []).forEach(function (posting) {
          var slug = shard.d[posting[0]];
          var doc = docs[slug] || (docs[slug] = { slug: slug, words: {}, passages: Object.create(null) });
          var best = posting[1] ? TITLE : 0;
          for (var i = 2; i + 1 < posting.length; i += 2) {
            var weight = posting[i + 1];
            var here = (weight >= 100 ? HEADING : 0) + (weight % 100 ? textWeight(weight % 100) : 0);
            var passage = doc.passages[posting[i]] || (doc.passages[posting[i]] = { words: {}, score: 0 });
            if (!passage.words[t] || passage.words[t] < here) {
              passage.score += here - (passage.words[t] || 0);
              passage.words[t] = here;
            }
            best = Math.max(best, here);
          }
          doc.words[t] = Math.max(doc.words[t] || 0, best);
        });
      });
    });
    var found = Object.keys(docs).map(function (slug) {
      var doc = docs[slug];
      var matched = Object.keys(doc.words).length;
      var score = 0;
      Object.keys(doc.words).forEach(function (t) { score += doc.words[t]; });
      var where = null, whereScore = -1, whereWords = 0;
      Object.keys(doc.passages).forEach(function (n) {
        var p = doc.passages[n];
        var count = Object.keys(p.words).length;
        if (count > whereWords || (count === whereWords && p.score > whereScore)) {
          where = +n; whereScore = p.score; whereWords = count;
        }
      });
      // Words found together in one passage rank above the same words scattered.
      if (whereWords > 1) { score += 4 * (whereWords - 1); }
      return { slug: slug, matched: matched, score: score, passage: where };
    });
    var most = found.reduce(function (m, d) { return Math.max(m, d.matched); }, 0);
    return found.filter(function (d) { return d.matched === most; })
      .sort(function (a, b) { return b.score - a.score || (a.slug < b.slug ? -1 : 1); });
  }

  // The part of a passage around the query's words, with each word found marked.
  function snippet(text, terms, prefixLast, stemsByTerm) {
    var hits = [];
    var re = /[\p{L}\p{N}]+/gu;
    var m;
    while ((m = re.exec(text)) && hits.length < 200) {
      var w = fold(m[0]);
      var hit = terms.some(function (term, t) {
        return w === term || (prefixLast && t === terms.length - 1 && w.indexOf(term) === 0) ||
          matchesStem(w, stemsByTerm[t]);
      });
      if (hit) { hits.push([m.index, m.index + m[0].length]); }
    }
    var start = 0;
    if (hits.length) {
      // The window of 160 characters with most hits, starting a little before the first.
      var bestCount = 0;
      hits.forEach(function (h, i) {
        var n = 0;
        for (var j = i; j < hits.length && hits[j][1] - h[0] <= 160; j++) { n++; }
        if (n > bestCount) { bestCount = n; start = Math.max(0, h[0] - 40); }
      });
      var space = text.lastIndexOf(" ", start);
      start = start > 0 && space >= 0 && start - space < 20 ? space + 1 : start;
    }
    var end = Math.min(text.length, start + 200);
    var parts = [];
    var pos = start;
    hits.forEach(function (h) {
      if (h[0] < pos || h[1] > end) { return; }
      parts.push([text.slice(pos, h[0]), false], [text.slice(h[0], h[1]), true]);
      pos = h[1];
    });
    parts.push([text.slice(pos, end), false]);
    if (start > 0) { parts[0][0] = "…" + parts[0][0]; }
    if (end < text.length) { parts[parts.length - 1][0] += "…"; }
    return parts;
  }

  function matchesStem(word, stems) {
    // A word of the text is one of the query's when it is a form of its stems: the
    // forms map of the loaded shard says so exactly.
    var forms = (own(shards, keyOf(word)) || {}).f || {};
    var mine = own(forms, word);
    return !!mine && mine.split(" ").some(function (s) { return !!stems[s]; });
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

    function show(found, terms, prefixLast, stemsByTerm) {
      while (results.firstChild) { results.removeChild(results.firstChild); }
      if (!found.length) {
        results.appendChild(el("li", { "class": "none" }, none));
      }
      found.forEach(function (hit, i) {
        var data = pagesSeen[hit.slug];
        if (!data) { return; }
        var passage = hit.passage !== null ? data[hit.passage + 1] : null;
        // The result opens the page where its snippet is: at the passage's heading.
        var anchor = passage && passage[0] ? passage[0] : "";
        var href = pageHref(hit.slug) + (anchor ? "#" + encodeURIComponent(anchor) : "");
        var li = el("li", { role: "option", id: "search-hit-" + i, "aria-selected": "false" });
        var a = el("a", { href: href, tabindex: "-1" });
        a.appendChild(el("span", { "class": "title" }, data[0]));
        if (passage && passage[1]) { a.appendChild(el("span", { "class": "where" }, passage[1])); }
        if (passage && passage[2]) {
          var snip = el("span", { "class": "snippet" });
          snippet(passage[2], terms, prefixLast, stemsByTerm).forEach(function (part) {
            if (!part[0]) { return; }
            snip.appendChild(part[1] ? el("mark", null, part[0]) : document.createTextNode(part[0]));
          });
          a.appendChild(snip);
        }
        li.appendChild(a);
        results.appendChild(li);
      });
      results.hidden = false;
      // The query these results answer: typing runs a search per keystroke, and a reader
      // (or a test) can tell the last one's results from an earlier one's.
      results.setAttribute("data-query", input.value);
      input.setAttribute("aria-expanded", "true");
      selected = -1;
      if (found.length) { select(0); }
    }

    function run() {
      var terms = words(input.value);
      if (!terms.length) { close(); return; }
      // The last word is still being typed unless a space follows it.
      var prefixLast = !/\s$/.test(input.value);
      var mine = ++seq;
      var keys = {};
      terms.forEach(function (t) { keys[keyOf(t)] = true; });
      all(Object.keys(keys).map(shardJob), function () {
        if (mine !== seq) { return; }
        var found = rank(terms, prefixLast).slice(0, MAX_RESULTS);
        var stemsByTerm = terms.map(function (t, i) { return stemsOf(t, prefixLast && i === terms.length - 1); });
        all(found.map(function (hit) { return pageJob(hit.slug); }), function () {
          if (mine !== seq) { return; }
          show(found, terms, prefixLast, stemsByTerm);
        });
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
