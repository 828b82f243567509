/*
 * Biblioteca help widget: a launcher button and a panel that asks the wiki's `ask` function.
 *
 * Include it with one tag; everything else is data attributes on that tag:
 *   <script src="/static/widget.js" defer data-ask-url="/ask" data-lang="es"
 *           data-source-type="runbook" data-category="..." data-tag="..."></script>
 * Optional: data-mode (help|tutor), data-limit (1..20), data-timeout (seconds, default 60),
 * data-site-root (where page links point; default: the folder above static/widget.js),
 * data-feedback-url (where 👍/👎 go; default: the ask URL with its last segment "feedback"),
 * data-stream ("off" to ask for whole answers instead of server-sent events).
 *
 * Answers stream: the widget asks with "stream": true and renders the text as it arrives
 * (the `done` event's checked answer then replaces it); Cancel stops an answer midway
 * (AbortController) and keeps what was written. The conversation is kept: each question
 * is sent with the earlier turns as `history` (at most 6), until "New conversation".
 *
 * Safety: the answer is Markdown written by a model from wiki text, so it is untrusted.
 * It is rendered by building DOM nodes (createElement + text nodes) for a small subset;
 * no answer text ever goes through innerHTML, and links keep only http(s) targets.
 * The only global is window.BibliotecaWidget; a second copy of the script does nothing.
 */
(function () {
  "use strict";

  if (window.BibliotecaWidget) {
    return; // included twice: the first copy already owns the page
  }

  var PREFIX = "bib";
  var SLUG = /^[a-z0-9]+([a-z0-9_\u2014-]*[a-z0-9])?$/;
  var MAX_SNIPPET = 220;
  var MAX_SERVER_MESSAGE = 300;
  var MAX_TURNS = 6; // the contract's limit on `history`
  var MAX_TURN_ANSWER = 20000;

  var STRINGS = {
    en: {
      launcher: "Ask the docs",
      title: "Ask the docs",
      close: "Close",
      label: "Your question",
      placeholder: "How do I…?",
      hint: "Enter to send, Shift+Enter for a new line.",
      submit: "Ask",
      cancel: "Cancel",
      stop: "Stop",
      stopped: "Stopped: the answer above is incomplete.",
      streamFailed: "The answer stopped midway: {msg}",
      newThread: "New conversation",
      thread: "Earlier in this conversation",
      sources: "Sources",
      source: "Source",
      waiting: "Searching the wiki and writing an answer…",
      empty: "Write a question first.",
      cancelled: "Cancelled.",
      timeout: "No answer after {s} seconds. Try again, or ask a shorter question.",
      offline: "You appear to be offline. Check your connection and try again.",
      network: "Could not reach the help service. Check your connection and try again.",
      rateLimited: "Too many questions in a short time. Try again in {s} seconds.",
      rateLimitedNoWait: "Too many questions in a short time. Try again in a moment.",
      badRequest: "The question was not accepted: {msg}",
      badRequestNoMsg: "The question was not accepted (HTTP {status}).",
      serverError: "The help service has a problem right now (HTTP {status}). Please try again later.",
      badResponse: "The help service sent an answer this page cannot read.",
      noSources: "No wiki pages matched this question.",
      lowConfidence: "Approximate answer: the wiki does not seem to cover this question directly.",
      meta: "{model} · {s} s",
      stale: "may be outdated",
      staleWhy: "Code this page cites no longer exists.",
      feedbackAsk: "Was this answer helpful?",
      yes: "Yes",
      no: "No",
      up: "Yes, this answer helped",
      down: "No, this answer did not help",
      reasonsLegend: "What was wrong?",
      reasons: {
        incorrect: "Incorrect",
        outdated: "Outdated",
        missing: "Missing information",
        unclear: "Unclear",
        other: "Other"
      },
      comment: "Comment (optional)",
      send: "Send",
      thanks: "Thanks for your feedback.",
      thanksDown: "Thanks: the docs team will review this answer.",
      feedbackFailed: "Your feedback could not be sent (HTTP {status}).",
      feedbackNetwork: "Your feedback could not be sent. Check your connection and try again."
    },
    es: {
      launcher: "Preguntar a la documentación",
      title: "Pregunta a la documentación",
      close: "Cerrar",
      label: "Tu pregunta",
      placeholder: "¿Cómo puedo…?",
      hint: "Intro para enviar, Mayús+Intro para una línea nueva.",
      submit: "Preguntar",
      cancel: "Cancelar",
      stop: "Detener",
      stopped: "Detenida: la respuesta de arriba está incompleta.",
      streamFailed: "La respuesta se interrumpió: {msg}",
      newThread: "Nueva conversación",
      thread: "Antes en esta conversación",
      sources: "Fuentes",
      source: "Fuente",
      waiting: "Buscando en la wiki y redactando la respuesta…",
      empty: "Escribe primero una pregunta.",
      cancelled: "Cancelado.",
      timeout: "Sin respuesta tras {s} segundos. Vuelve a intentarlo o haz una pregunta más corta.",
      offline: "Parece que no tienes conexión. Compruébala y vuelve a intentarlo.",
      network: "No se pudo contactar con el servicio de ayuda. Comprueba la conexión y vuelve a intentarlo.",
      rateLimited: "Demasiadas preguntas seguidas. Vuelve a intentarlo dentro de {s} segundos.",
      rateLimitedNoWait: "Demasiadas preguntas seguidas. Vuelve a intentarlo en un momento.",
      badRequest: "La pregunta no se aceptó: {msg}",
      badRequestNoMsg: "La pregunta no se aceptó (HTTP {status}).",
      serverError: "El servicio de ayuda tiene un problema ahora mismo (HTTP {status}). Inténtalo más tarde.",
      badResponse: "El servicio de ayuda envió una respuesta que esta página no puede leer.",
      noSources: "Ninguna página de la wiki coincide con esta pregunta.",
      lowConfidence: "Respuesta aproximada: la wiki no parece tratar esta pregunta directamente.",
      meta: "{model} · {s} s",
      stale: "puede estar desactualizada",
      staleWhy: "Parte del código que cita esta página ya no existe.",
      feedbackAsk: "¿Te ha sido útil esta respuesta?",
      yes: "Sí",
      no: "No",
      up: "Sí, esta respuesta me ayudó",
      down: "No, esta respuesta no me ayudó",
      reasonsLegend: "¿Qué falló?",
      reasons: {
        incorrect: "Incorrecta",
        outdated: "Desactualizada",
        missing: "Falta información",
        unclear: "Poco clara",
        other: "Otro"
      },
      comment: "Comentario (opcional)",
      send: "Enviar",
      thanks: "Gracias por tu opinión.",
      thanksDown: "Gracias: el equipo de documentación revisará esta respuesta.",
      feedbackFailed: "No se pudo enviar tu opinión (HTTP {status}).",
      feedbackNetwork: "No se pudo enviar tu opinión. Comprueba la conexión y vuelve a intentarlo."
    }
  };

  // -- configuration from the <script> tag -------------------------------------------

  function findScript() {
    if (document.currentScript) {
      return document.currentScript;
    }
    var all = document.querySelectorAll("script[src]");
    for (var i = all.length - 1; i >= 0; i--) {
      if (/(^|\/)widget\.js(\?|#|$)/.test(all[i].getAttribute("src"))) {
        return all[i];
      }
    }
    return null;
  }

  function siteRoot(script) {
    var explicit = script && script.getAttribute("data-site-root");
    if (explicit) {
      return new URL(explicit.replace(/\/?$/, "/"), document.baseURI).href;
    }
    if (script && script.src) {
      var src = new URL(script.src, document.baseURI);
      src.search = "";
      src.hash = "";
      // The build publishes the script at <root>/static/widget.js.
      return new URL(/\/static\/[^/]*$/.test(src.pathname) ? "../" : "./", src).href;
    }
    return new URL("/", document.baseURI).href;
  }

  function readConfig(script) {
    function attr(name) {
      var value = script ? script.getAttribute("data-" + name) : null;
      return value && value.trim() ? value.trim() : null;
    }
    var lang = (attr("lang") || document.documentElement.lang || "en").toLowerCase().slice(0, 2);
    var limit = parseInt(attr("limit") || "", 10);
    var timeout = parseFloat(attr("timeout") || "");
    var askUrl = attr("ask-url") || "/ask";
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
  function siblingUrl(url, name) {
    var cut = url.replace(/[?#].*$/, "").replace(/\/+$/, "");
    var slash = cut.lastIndexOf("/");
    return slash < 0 ? name : cut.slice(0, slash + 1) + name;
  }

  // -- small DOM helpers (text only; never innerHTML) --------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole;
    });
  }

  function safeHref(raw, base) {
    var value = String(raw || "").trim();
    if (!value) {
      return null;
    }
    var url;
    try {
      url = new URL(value, base);
    } catch (err) {
      return null;
    }
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  }

  function pageUrl(root, slug) {
    return typeof slug === "string" && SLUG.test(slug) ? root + encodeURIComponent(slug) + "/" : null;
  }

  // A wiki link's target, ``slug`` or ``slug#anchor`` (a heading of that page).
  function wikiUrl(root, target) {
    var at = target.indexOf("#");
    var url = pageUrl(root, at < 0 ? target : target.slice(0, at));
    var anchor = at < 0 ? "" : target.slice(at + 1);
    return url && anchor ? url + "#" + encodeURIComponent(anchor) : url;
  }

  // A source opens its page at its heading: the answer's `url` (absolute, or relative to
  // the site's root), else the page's top.
  function sourceUrl(root, source) {
    var url = typeof source.url === "string" && source.url ? safeHref(source.url, root) : null;
    return url || pageUrl(root, source.slug);
  }

  function titleOf(sources, target) {
    var slug = target.split("#")[0];
    for (var i = 0; i < sources.length; i++) {
      if (sources[i].slug === slug && sources[i].title) {
        return String(sources[i].title);
      }
    }
    return null;
  }

  // A fence's info string: its language word, and its title as the import writes it
  // (``py title="app.py"``) or as VitePress does (``sh [setup.sh]``, ``[.env]``).
  function fenceInfo(info) {
    var word = /^([\w+#.-]+)(?:\s|$)/.exec(info);
    var title = /\btitle=(?:"([^"\n]+)"|'([^'\n]+)')/.exec(info) || /\[([^\]\n]+)\]/.exec(info);
    return {
      language: word && !/=/.test(word[1]) ? word[1] : "",
      title: title ? (title[1] || title[2] || "").trim() : ""
    };
  }

  function link(href, text) {
    var a = el("a", PREFIX + "-link", text);
    a.href = href;
    if (new URL(href).origin !== window.location.origin) {
      a.rel = "noopener noreferrer nofollow";
      a.target = "_blank";
    }
    return a;
  }

  // -- the Markdown subset ------------------------------------------------------------
  // Blocks: paragraphs, headings (shown as strong lines), lists, fenced code, quotes, rules.
  // Inline: `code`, **bold**, *em*, [text](http…), [[slug|text]], [n] citations. Underscores
  // are left alone: wiki text is full of __init__ and snake_case outside backticks.

  var INLINE = new RegExp(
    [
      "(`+)([^`]|[^`][\\s\\S]*?[^`])\\1(?!`)", // 1,2 code span
      "\\*\\*(?=\\S)([\\s\\S]*?\\S)\\*\\*", // 3 bold
      "\\*(?=[^\\s*])([\\s\\S]*?[^\\s*])\\*", // 4 em
      "\\[\\[([^\\]|\\n]+)(?:\\|([^\\]\\n]+))?\\]\\]", // 5,6 wiki link
      "\\[([^\\]\\n]+)\\]\\(\\s*<?([^()\\s<>]+)>?(?:\\s+\"[^\"\\n]*\")?\\s*\\)", // 7,8 link
      "\\[(\\d{1,3}(?:\\s*,\\s*\\d{1,3})*)\\]" // 9 citations
    ].join("|"),
    "g"
  );

  function renderInline(text, parent, ctx, depth) {
    var re = new RegExp(INLINE.source, "g");
    var last = 0;
    var match;
    while ((match = re.exec(text)) !== null) {
      if (match.index > last) {
        parent.appendChild(document.createTextNode(text.slice(last, match.index)));
      }
      last = re.lastIndex;
      if (match[2] !== undefined) {
        parent.appendChild(el("code", PREFIX + "-code", match[2].replace(/^ (.*) $/, "$1")));
      } else if (match[3] !== undefined) {
        nested("strong", match[3]);
      } else if (match[4] !== undefined) {
        nested("em", match[4]);
      } else if (match[5] !== undefined) {
        var slug = match[5].trim();
        // A link without words shows its page's title (a source's, when one is that page).
        var label = (match[6] || titleOf(ctx.sources, slug) || slug).trim();
        var target = wikiUrl(ctx.root, slug);
        parent.appendChild(target ? link(target, label) : document.createTextNode(label));
      } else if (match[7] !== undefined) {
        var href = safeHref(match[8], ctx.root);
        if (href && depth < 4) {
          var a = link(href, null);
          renderInline(match[7], a, ctx, depth + 1);
          parent.appendChild(a);
        } else {
          // A refused target (javascript:, data:, …) keeps its words and loses the link.
          renderInline(match[7], parent, ctx, depth + 1);
        }
      } else {
        citations(match[9]);
      }
    }
    if (last < text.length) {
      parent.appendChild(document.createTextNode(text.slice(last)));
    }

    function nested(tag, inner) {
      var node = el(tag, null);
      if (depth < 4) {
        renderInline(inner, node, ctx, depth + 1);
      } else {
        node.textContent = inner;
      }
      parent.appendChild(node);
    }

    function citations(list) {
      var numbers = list.split(",");
      parent.appendChild(document.createTextNode("["));
      for (var i = 0; i < numbers.length; i++) {
        var n = parseInt(numbers[i], 10);
        var source = ctx.sources[n - 1];
        var target = source ? sourceUrl(ctx.root, source) : null;
        if (i > 0) {
          parent.appendChild(document.createTextNode(", "));
        }
        if (target) {
          var a = link(target, String(n));
          a.className += " " + PREFIX + "-cite";
          a.title = source.title ? String(source.title) : source.slug;
          a.setAttribute("aria-label", ctx.t.source + " " + n + ": " + a.title);
          parent.appendChild(a);
        } else {
          parent.appendChild(document.createTextNode(String(n)));
        }
      }
      parent.appendChild(document.createTextNode("]"));
    }
  }

  var FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\n]*)$/;
  var HEADING = /^ {0,3}(#{1,6})\s+(.*?)(\s+#+)?\s*$/;
  var RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
  var ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
  var QUOTE = /^ {0,3}>\s?(.*)$/;

  function startsBlock(line) {
    return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || ITEM.test(line) || QUOTE.test(line);
  }

  function renderMarkdown(markdown, ctx) {
    var out = document.createDocumentFragment();
    var lines = String(markdown).replace(/\r\n?/g, "\n").split("\n");
    var i = 0;
    while (i < lines.length) {
      var line = lines[i];
      var m;
      if (!line.trim()) {
        i++;
      } else if ((m = FENCE.exec(line))) {
        var fence = m[1];
        var body = [];
        i++;
        while (i < lines.length && !(lines[i].trim().indexOf(fence) === 0 && /^[`~]+$/.test(lines[i].trim()))) {
          body.push(lines[i]);
          i++;
        }
        i++; // the closing fence (or the end of the answer)
        var info = fenceInfo(m[2].trim());
        if (info.title) {
          var caption = el("p", PREFIX + "-code-title");
          caption.appendChild(el("code", null, info.title));
          out.appendChild(caption);
        }
        var pre = el("pre", PREFIX + "-pre");
        var code = el("code", null, body.join("\n"));
        if (info.language) {
          code.className = "language-" + info.language;
        }
        pre.appendChild(code);
        out.appendChild(pre);
      } else if ((m = HEADING.exec(line))) {
        var heading = el("p", PREFIX + "-heading");
        var strong = el("strong", null);
        renderInline(m[2], strong, ctx, 0);
        heading.appendChild(strong);
        out.appendChild(heading);
        i++;
      } else if (RULE.test(line)) {
        out.appendChild(el("hr", PREFIX + "-rule"));
        i++;
      } else if (ITEM.test(line)) {
        i = renderList(lines, i, out, ctx);
      } else if (QUOTE.test(line)) {
        var quoted = [];
        while (i < lines.length && (m = QUOTE.exec(lines[i]))) {
          quoted.push(m[1]);
          i++;
        }
        var quote = el("blockquote", PREFIX + "-quote");
        quote.appendChild(renderMarkdown(quoted.join("\n"), ctx));
        out.appendChild(quote);
      } else {
        var text = [];
        while (i < lines.length && lines[i].trim() && (text.length === 0 || !startsBlock(lines[i]))) {
          text.push(lines[i].trim());
          i++;
        }
        var p = el("p", PREFIX + "-p");
        renderInline(text.join("\n"), p, ctx, 0);
        out.appendChild(p);
      }
    }
    return out;
  }

  function renderList(lines, i, out, ctx) {
    var first = ITEM.exec(lines[i]);
    var ordered = /\d/.test(first[2]);
    var list = el(ordered ? "ol" : "ul", PREFIX + "-list");
    if (ordered && parseInt(first[2], 10) !== 1) {
      list.start = parseInt(first[2], 10);
    }
    var item = null;
    var text = [];
    function flush() {
      if (item) {
        renderInline(text.join("\n"), item, ctx, 0);
        list.appendChild(item);
      }
    }
    while (i < lines.length) {
      var line = lines[i];
      var m = ITEM.exec(line);
      if (m && /\d/.test(m[2]) === ordered) {
        flush();
        item = el("li", null);
        text = [m[3]];
      } else if (line.trim() && !m && !startsBlock(line) && item) {
        text.push(line.trim()); // a wrapped line continues the item
      } else {
        break;
      }
      i++;
    }
    flush();
    out.appendChild(list);
    return i;
  }

  // -- the panel ------------------------------------------------------------------------

  function Widget(config) {
    this.config = config;
    this.t = STRINGS[config.lang];
    this.controller = null;
    this.history = []; // [{question, answer}], oldest first: sent as `history`
    this.build();
  }

  Widget.prototype.build = function () {
    var t = this.t;
    var self = this;
    var id = PREFIX + "-" + Math.random().toString(36).slice(2, 8);

    this.root = el("div", PREFIX + "-root");
    this.root.setAttribute("lang", this.config.lang);

    this.launcher = el("button", PREFIX + "-launcher");
    this.launcher.type = "button";
    this.launcher.setAttribute("aria-haspopup", "dialog");
    this.launcher.setAttribute("aria-expanded", "false");
    this.launcher.setAttribute("aria-controls", id);
    this.launcher.appendChild(el("span", PREFIX + "-launcher-icon", "?")).setAttribute("aria-hidden", "true");
    this.launcher.appendChild(el("span", PREFIX + "-launcher-text", t.launcher));

    var native = typeof HTMLDialogElement === "function";
    this.panel = el(native ? "dialog" : "div", PREFIX + "-panel");
    this.panel.id = id;
    this.panel.setAttribute("aria-labelledby", id + "-title");
    if (!native) {
      this.panel.setAttribute("role", "dialog");
      this.panel.setAttribute("aria-modal", "true");
      this.panel.hidden = true;
    }

    var header = el("div", PREFIX + "-header");
    var title = el("h2", PREFIX + "-title", t.title);
    title.id = id + "-title";
    this.closeButton = el("button", PREFIX + "-close");
    this.closeButton.type = "button";
    this.closeButton.setAttribute("aria-label", t.close);
    this.closeButton.appendChild(el("span", null, "×")).setAttribute("aria-hidden", "true");
    header.appendChild(title);
    header.appendChild(this.closeButton);

    this.form = el("form", PREFIX + "-form");
    this.form.noValidate = true;
    var label = el("label", PREFIX + "-label", t.label);
    label.htmlFor = id + "-q";
    this.input = el("textarea", PREFIX + "-input");
    this.input.id = id + "-q";
    this.input.name = "question";
    this.input.rows = 3;
    this.input.maxLength = 2000;
    this.input.placeholder = t.placeholder;
    this.input.setAttribute("aria-describedby", id + "-hint");
    var hint = el("p", PREFIX + "-hint", t.hint);
    hint.id = id + "-hint";
    var actions = el("div", PREFIX + "-actions");
    this.submit = el("button", PREFIX + "-submit", t.submit);
    this.submit.type = "submit";
    this.cancel = el("button", PREFIX + "-cancel", t.cancel);
    this.cancel.type = "button";
    this.cancel.hidden = true;
    this.newThread = el("button", PREFIX + "-new", t.newThread);
    this.newThread.type = "button";
    this.newThread.hidden = true;
    actions.appendChild(this.submit);
    actions.appendChild(this.cancel);
    actions.appendChild(this.newThread);
    this.form.appendChild(label);
    this.form.appendChild(this.input);
    this.form.appendChild(hint);
    this.form.appendChild(actions);

    this.status = el("div", PREFIX + "-status");
    this.status.setAttribute("role", "status");
    this.status.setAttribute("aria-live", "polite");
    this.thread = el("ol", PREFIX + "-thread");
    this.thread.setAttribute("aria-label", t.thread);
    this.thread.hidden = true;
    this.answer = el("div", PREFIX + "-answer");
    this.answer.setAttribute("aria-live", "polite");
    this.answer.setAttribute("aria-busy", "false");

    var body = el("div", PREFIX + "-body");
    body.appendChild(this.form);
    body.appendChild(this.status);
    body.appendChild(this.thread);
    body.appendChild(this.answer);
    this.panel.appendChild(header);
    this.panel.appendChild(body);
    this.root.appendChild(this.launcher);
    this.root.appendChild(this.panel);

    this.launcher.addEventListener("click", function () {
      self.isOpen() ? self.close() : self.open();
    });
    this.closeButton.addEventListener("click", function () {
      self.close();
    });
    this.cancel.addEventListener("click", function () {
      self.abort("cancel");
    });
    this.newThread.addEventListener("click", function () {
      self.forget();
      self.input.focus();
    });
    this.form.addEventListener("submit", function (event) {
      event.preventDefault();
      self.ask(self.input.value);
    });
    this.input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        self.ask(self.input.value);
      }
    });
    this.panel.addEventListener("keydown", function (event) {
      if (event.key === "Escape") {
        event.preventDefault(); // our close() restores focus; the native cancel would too, later
        self.close();
      } else if (event.key === "Tab") {
        self.trapTab(event); // keep Tab inside the panel (a modal <dialog> may let it reach the browser UI)
      }
    });
    // A click on the backdrop lands on the <dialog> itself, outside its content.
    this.panel.addEventListener("click", function (event) {
      if (event.target === self.panel) {
        self.close();
      }
    });
    if (native) {
      this.panel.addEventListener("close", function () {
        self.afterClose();
      });
    }
  };

  Widget.prototype.isOpen = function () {
    return this.panel.tagName === "DIALOG" ? this.panel.open : !this.panel.hidden;
  };

  Widget.prototype.open = function () {
    if (this.isOpen()) {
      return;
    }
    if (this.panel.tagName === "DIALOG") {
      this.panel.showModal();
    } else {
      this.panel.hidden = false;
    }
    this.launcher.setAttribute("aria-expanded", "true");
    this.input.focus();
  };

  Widget.prototype.close = function () {
    if (!this.isOpen()) {
      return;
    }
    if (this.panel.tagName === "DIALOG") {
      this.panel.close(); // its "close" event comes later (a task): afterClose runs again then
    } else {
      this.panel.hidden = true;
    }
    this.afterClose(); // now, so aria-expanded and focus never lag behind the closed panel
  };

  Widget.prototype.afterClose = function () {
    this.launcher.setAttribute("aria-expanded", "false");
    this.launcher.focus();
  };

  Widget.prototype.trapTab = function (event) {
    var focusable = Array.prototype.filter.call(
      this.panel.querySelectorAll("button:not([hidden]):not([disabled]), textarea, a[href]"),
      function (node) {
        return node.getClientRects().length > 0; // not inside a hidden block (👎's reasons)
      }
    );
    if (!focusable.length) {
      return;
    }
    var first = focusable[0];
    var last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  Widget.prototype.say = function (message, kind) {
    this.status.textContent = "";
    this.status.className = PREFIX + "-status" + (kind ? " " + PREFIX + "-status-" + kind : "");
    if (kind === "progress") {
      this.status.appendChild(el("span", PREFIX + "-spinner")).setAttribute("aria-hidden", "true");
    }
    if (message) {
      this.status.appendChild(el("span", null, message));
    }
  };

  Widget.prototype.setBusy = function (busy) {
    this.answer.setAttribute("aria-busy", busy ? "true" : "false");
    this.submit.disabled = busy;
    this.cancel.hidden = !busy;
    this.cancel.textContent = this.t.cancel;
    this.newThread.disabled = busy;
  };

  // -- the conversation: earlier turns, sent as `history` ------------------------------

  Widget.prototype.remember = function (question, answer) {
    this.history.push({ question: question, answer: answer.slice(0, MAX_TURN_ANSWER) });
    this.history = this.history.slice(-MAX_TURNS);
    this.thread.textContent = "";
    for (var i = 0; i < this.history.length - 1; i++) {
      this.thread.appendChild(el("li", PREFIX + "-turn", this.history[i].question));
    }
    this.thread.hidden = this.history.length < 2;
    this.newThread.hidden = false;
  };

  Widget.prototype.forget = function () {
    this.history = [];
    this.thread.textContent = "";
    this.thread.hidden = true;
    this.newThread.hidden = true;
    this.answer.textContent = "";
    this.say("", null);
  };

  // -- a streamed answer: server-sent events sources, delta…, done (or error) ----------

  Widget.prototype.readStream = function (reader) {
    var self = this;
    var decoder = new TextDecoder();
    var live = { sources: [], text: "", node: null, ended: false };
    var buffer = "";
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) {
          if (!live.ended) {
            self.say(self.t.badResponse, "error"); // the stream ended without its `done`
          }
          return;
        }
        buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
        var cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          var event = parseEvent(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
          if (event) {
            self.onEvent(event.name, event.data, live);
          }
        }
        return live.ended ? reader.cancel() : pump();
      });
    }
    return pump();
  };

  function parseEvent(block) {
    var name = "message";
    var data = [];
    block.split("\n").forEach(function (line) {
      var colon = line.indexOf(":");
      var field = colon < 0 ? line : line.slice(0, colon);
      var value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") {
        name = value;
      } else if (field === "data") {
        data.push(value);
      }
    });
    if (!data.length) {
      return null;
    }
    try {
      return { name: name, data: JSON.parse(data.join("\n")) };
    } catch (err) {
      return null;
    }
  }

  Widget.prototype.onEvent = function (name, data, live) {
    if (!data || typeof data !== "object") {
      return;
    }
    if (name === "sources" && Array.isArray(data.sources)) {
      live.sources = data.sources.filter(function (s) {
        return s && typeof s === "object";
      });
    } else if (name === "delta" && typeof data.text === "string") {
      if (!live.node) {
        this.say("", null);
        this.cancel.textContent = this.t.stop;
        live.node = el("div", PREFIX + "-markdown " + PREFIX + "-live");
        this.answer.appendChild(live.node);
      }
      live.text += data.text;
      // Rendered again whole: a half-written list or code block settles as text arrives.
      live.node.textContent = "";
      live.node.appendChild(renderMarkdown(live.text, { root: this.config.root, sources: live.sources, t: this.t }));
    } else if (name === "done") {
      live.ended = true;
      this.answer.textContent = ""; // the checked answer replaces the text as it came
      this.finish(200, data, null);
    } else if (name === "error") {
      live.ended = true;
      var message = typeof data.error === "string" ? data.error.slice(0, MAX_SERVER_MESSAGE) : "";
      this.say(format(this.t.streamFailed, { msg: message || data.code || "?" }), "error");
    }
  };

  Widget.prototype.abort = function (reason) {
    if (this.controller) {
      this.abortReason = reason;
      this.controller.abort();
    }
  };

  Widget.prototype.ask = function (question) {
    var self = this;
    var t = this.t;
    var text = String(question || "").trim();
    if (this.controller) {
      return;
    }
    if (!text) {
      this.say(t.empty, "error");
      this.input.focus();
      return;
    }
    this.open();
    this.lastQuestion = text;
    var body = { question: text, mode: this.config.mode };
    if (this.config.stream) {
      body.stream = true;
    }
    if (this.history.length && this.config.mode !== "tutor") {
      body.history = this.history.slice(-MAX_TURNS);
    }
    if (this.config.limit) {
      body.limit = this.config.limit;
    }
    Object.keys(this.config.filters).forEach(function (key) {
      if (self.config.filters[key]) {
        body[key] = self.config.filters[key];
      }
    });

    this.controller = new AbortController();
    this.abortReason = null;
    var timer = setTimeout(function () {
      self.abort("timeout");
    }, this.config.timeoutMs);
    this.answer.textContent = "";
    this.setBusy(true);
    this.say(t.waiting, "progress");

    var status = 0;
    var retryAfter = null;
    fetch(this.config.askUrl, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: this.config.stream ? "text/event-stream, application/json" : "application/json"
      },
      body: JSON.stringify(body),
      signal: this.controller.signal
    })
      .then(function (response) {
        status = response.status;
        retryAfter = response.headers.get("Retry-After");
        var type = response.headers.get("Content-Type") || "";
        if (response.ok && /^text\/event-stream/.test(type) && response.body && response.body.getReader) {
          return self.readStream(response.body.getReader());
        }
        // An error (always JSON), or a server that answered whole.
        return response.text().then(function (raw) {
          var data = null;
          try {
            data = JSON.parse(raw);
          } catch (err) {
            data = null;
          }
          self.finish(status, data, retryAfter);
        });
      })
      .catch(function () {
        var partial = self.answer.querySelector("." + PREFIX + "-live");
        if (self.abortReason === "cancel" && partial) {
          partial.className += " " + PREFIX + "-stopped"; // what was written stays, marked
          self.say(t.stopped, "info");
        } else if (self.abortReason === "cancel") {
          self.say(t.cancelled, "info");
        } else if (self.abortReason === "timeout") {
          self.say(format(t.timeout, { s: Math.round(self.config.timeoutMs / 1000) }), "error");
        } else {
          self.say(navigator.onLine === false ? t.offline : t.network, "error");
        }
      })
      .then(function () {
        clearTimeout(timer);
        self.controller = null;
        self.setBusy(false);
      });
  };

  Widget.prototype.finish = function (status, data, retryAfter) {
    var t = this.t;
    if (status === 429) {
      var wait = retrySeconds(retryAfter);
      this.say(wait === null ? t.rateLimitedNoWait : format(t.rateLimited, { s: wait }), "error");
    } else if (status >= 500) {
      this.say(format(t.serverError, { status: status }), "error");
    } else if (status >= 400) {
      var message = data && typeof data.error === "string" ? data.error.slice(0, MAX_SERVER_MESSAGE) : "";
      this.say(message ? format(t.badRequest, { msg: message }) : format(t.badRequestNoMsg, { status: status }), "error");
    } else if (!data || typeof data.answer !== "string") {
      this.say(t.badResponse, "error");
    } else {
      this.say("", null);
      this.show(data);
    }
  };

  Widget.prototype.show = function (data) {
    var t = this.t;
    var sources = Array.isArray(data.sources)
      ? data.sources.filter(function (s) {
          return s && typeof s === "object";
        })
      : [];
    var ctx = { root: this.config.root, sources: sources, t: t };
    var answer = el("div", PREFIX + "-markdown");
    // Weak evidence (the contract's confidence "low"): a notice before the answer, and the
    // answer itself marked, so nobody mistakes the closest passages for an answer.
    if (data.confidence === "low" && sources.length) {
      var notice = el("p", PREFIX + "-hedge", t.lowConfidence);
      notice.setAttribute("role", "note");
      notice.id = this.panel.id + "-hedge";
      answer.className += " " + PREFIX + "-markdown-low";
      answer.setAttribute("aria-describedby", notice.id);
      this.answer.appendChild(notice);
    }
    answer.appendChild(renderMarkdown(data.answer, ctx));
    this.answer.appendChild(answer);
    if (this.config.mode !== "tutor" && this.lastQuestion) {
      this.remember(this.lastQuestion, data.answer);
    }

    if (this.config.mode !== "tutor") {
      var section = el("section", PREFIX + "-sources");
      section.appendChild(el("h3", PREFIX + "-sources-title", t.sources));
      if (!sources.length) {
        section.appendChild(el("p", PREFIX + "-hint", t.noSources));
      } else {
        var list = el("ul", PREFIX + "-sources-list");
        byPage(sources).forEach(function (group) {
          list.appendChild(sourceItem(group, ctx));
        });
        section.appendChild(list);
      }
      this.answer.appendChild(section);
    }
    if (this.config.mode !== "tutor" && typeof data.answer_id === "string" && data.answer_id) {
      this.answer.appendChild(this.feedbackBlock(data.answer_id, this.lastQuestion));
    }
    if (typeof data.model === "string" && typeof data.duration_ms === "number") {
      var seconds = (data.duration_ms / 1000).toFixed(1);
      this.answer.appendChild(el("p", PREFIX + "-meta", format(t.meta, { model: data.model, s: seconds })));
    }
  };

  // -- 👍/👎 under an answer: POST /feedback {answer_id, rating, reason?, comment?} ---------

  var REASONS = ["incorrect", "outdated", "missing", "unclear", "other"];

  function toggle(className, text, label) {
    var button = el("button", className, text);
    button.type = "button";
    button.setAttribute("aria-pressed", "false");
    if (label) {
      button.setAttribute("aria-label", label);
    }
    return button;
  }

  // Thumbs drawn as SVG (Material Icons' thumb_up/thumb_down, Apache-2.0): an emoji is a
  // blank box where no emoji font is installed.
  var THUMBS = {
    up: "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z",
    down: "M15 3H6c-.83 0-1.54.5-1.84 1.22l-3.02 7.05c-.09.23-.14.47-.14.73v2c0 1.1.9 2 2 2h6.31l-.95 4.57-.03.32c0 .41.17.79.44 1.06L9.83 23l6.59-6.59c.36-.36.58-.86.58-1.41V5c0-1.1-.9-2-2-2zm4 0v12h4V3h-4z"
  };

  function voteButton(rating, text, label) {
    var button = toggle(PREFIX + "-vote " + PREFIX + "-vote-" + rating, null, label);
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("width", "18");
    svg.setAttribute("height", "18");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    var path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", THUMBS[rating]);
    path.setAttribute("fill", "currentColor");
    svg.appendChild(path);
    button.appendChild(svg);
    button.appendChild(el("span", PREFIX + "-vote-text", text));
    return button;
  }

  Widget.prototype.feedbackBlock = function (answerId, question) {
    var self = this;
    var t = this.t;
    var id = this.panel.id + "-fb";
    var box = el("div", PREFIX + "-feedback");
    box.setAttribute("role", "group");
    box.setAttribute("aria-labelledby", id + "-q");
    var ask = el("p", PREFIX + "-feedback-q", t.feedbackAsk);
    ask.id = id + "-q";
    var up = voteButton("up", t.yes, t.up);
    var down = voteButton("down", t.no, t.down);
    var votes = el("div", PREFIX + "-votes");
    votes.appendChild(ask);
    votes.appendChild(up);
    votes.appendChild(down);

    var more = el("div", PREFIX + "-feedback-more");
    more.hidden = true;
    var legend = el("p", PREFIX + "-feedback-legend", t.reasonsLegend);
    legend.id = id + "-reasons";
    var chips = el("div", PREFIX + "-chips");
    chips.setAttribute("role", "group");
    chips.setAttribute("aria-labelledby", legend.id);
    var chosen = { reason: null };
    REASONS.forEach(function (reason) {
      var chip = toggle(PREFIX + "-chip", t.reasons[reason]);
      chip.setAttribute("data-reason", reason);
      chip.addEventListener("click", function () {
        var on = chosen.reason !== reason;
        chosen.reason = on ? reason : null;
        Array.prototype.forEach.call(chips.children, function (other) {
          other.setAttribute("aria-pressed", other === chip && on ? "true" : "false");
        });
      });
      chips.appendChild(chip);
    });
    var label = el("label", PREFIX + "-label", t.comment);
    label.htmlFor = id + "-comment";
    var comment = el("textarea", PREFIX + "-comment");
    comment.id = id + "-comment";
    comment.rows = 2;
    comment.maxLength = 2000;
    var send = el("button", PREFIX + "-feedback-send", t.send);
    send.type = "button";
    more.appendChild(legend);
    more.appendChild(chips);
    more.appendChild(label);
    more.appendChild(comment);
    more.appendChild(send);

    var said = el("p", PREFIX + "-feedback-status");
    said.setAttribute("role", "status");
    said.setAttribute("aria-live", "polite");

    function post(body, done) {
      body.answer_id = answerId;
      if (question) {
        body.question = question;
      }
      up.disabled = down.disabled = send.disabled = true;
      fetch(self.config.feedbackUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(body)
      })
        .then(function (response) {
          if (response.ok) {
            said.textContent = done;
            more.hidden = true;
          } else {
            said.textContent = format(t.feedbackFailed, { status: response.status });
            up.disabled = down.disabled = send.disabled = false;
          }
        })
        .catch(function () {
          said.textContent = t.feedbackNetwork;
          up.disabled = down.disabled = send.disabled = false;
        });
    }

    up.addEventListener("click", function () {
      up.setAttribute("aria-pressed", "true");
      down.setAttribute("aria-pressed", "false");
      more.hidden = true;
      post({ rating: "up" }, t.thanks);
    });
    down.addEventListener("click", function () {
      down.setAttribute("aria-pressed", "true");
      up.setAttribute("aria-pressed", "false");
      more.hidden = false;
      chips.firstChild.focus();
    });
    send.addEventListener("click", function () {
      var body = { rating: "down" };
      if (chosen.reason) {
        body.reason = chosen.reason;
      }
      if (comment.value.trim()) {
        body.comment = comment.value.trim();
      }
      post(body, t.thanksDown);
    });

    box.appendChild(votes);
    box.appendChild(more);
    box.appendChild(said);
    return box;
  };

  // The contract lists a page once per passage used: shown once per page, in the order
  // of its first passage, each passage's heading under it with its citation number.
  function byPage(sources) {
    var groups = [];
    var seen = {};
    sources.forEach(function (source, i) {
      var key = typeof source.slug === "string" && source.slug ? source.slug : "#" + i;
      if (!Object.prototype.hasOwnProperty.call(seen, key)) {
        seen[key] = { first: source, parts: [] };
        groups.push(seen[key]);
      }
      seen[key].parts.push({ source: source, n: i + 1 });
    });
    return groups;
  }

  function sourceItem(group, ctx) {
    var first = group.first;
    var item = el("li", PREFIX + "-source");
    var title = String(first.title || first.slug || "");
    var single = group.parts.length === 1;
    // One passage: the title opens the page at its heading; several: at its top, and
    // each heading under it opens its own passage.
    var href = single ? sourceUrl(ctx.root, first) : pageUrl(ctx.root, first.slug) || sourceUrl(ctx.root, first);
    item.appendChild(href ? link(href, title) : el("span", null, title));
    if (single && first.heading && String(first.heading) !== title) {
      item.appendChild(el("span", PREFIX + "-source-heading", " — " + String(first.heading)));
    }
    if (single) {
      item.appendChild(el("span", PREFIX + "-source-n", " [" + group.parts[0].n + "]"));
    }
    var stale = group.parts.some(function (part) {
      return part.source.freshness === "stale";
    });
    if (stale) {
      // Text, not only a colour or an icon: screen readers say it after the title.
      var mark = el("span", PREFIX + "-stale", ctx.t.stale);
      mark.title = ctx.t.staleWhy;
      item.appendChild(document.createTextNode(" "));
      item.appendChild(mark);
    }
    if (!single) {
      var under = el("ul", PREFIX + "-source-headings");
      group.parts.forEach(function (part) {
        var line = el("li", PREFIX + "-source-part");
        var target = sourceUrl(ctx.root, part.source);
        var words = String(part.source.heading || title);
        line.appendChild(target ? link(target, words) : el("span", null, words));
        line.appendChild(el("span", PREFIX + "-source-n", " [" + part.n + "]"));
        under.appendChild(line);
      });
      item.appendChild(under);
    }
    if (first.snippet) {
      var snippet = String(first.snippet).replace(/\s+/g, " ").trim();
      if (snippet.length > MAX_SNIPPET) {
        snippet = snippet.slice(0, MAX_SNIPPET - 1).trimEnd() + "…";
      }
      item.appendChild(el("p", PREFIX + "-snippet", snippet));
    }
    return item;
  }

  function retrySeconds(header) {
    if (!header) {
      return null;
    }
    if (/^\s*\d+\s*$/.test(header)) {
      return parseInt(header, 10);
    }
    var when = Date.parse(header);
    return isNaN(when) ? null : Math.max(0, Math.ceil((when - Date.now()) / 1000));
  }

  // -- start ----------------------------------------------------------------------------

  var config = readConfig(findScript());
  var widget = null;

  function start() {
    if (widget) {
      return;
    }
    widget = new Widget(config);
    document.body.appendChild(widget.root);
  }

  window.BibliotecaWidget = Object.freeze({
    version: "1",
    open: function () {
      start();
      widget.open();
    },
    close: function () {
      if (widget) {
        widget.close();
      }
    },
    ask: function (question) {
      start();
      widget.ask(question);
    },
    renderMarkdown: function (markdown, sources) {
      return renderMarkdown(markdown, { root: config.root, sources: sources || [], t: STRINGS[config.lang] });
    }
  });

  if (document.body) {
    start();
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
})();
