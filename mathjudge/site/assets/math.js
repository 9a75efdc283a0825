/* The one way the site shows a text that may hold math: an item's texts, a judge's details and
   its reasoning all go through `mathjudgeMath.text(text, className)`, which returns a block of
   paragraphs whose math is typeset with the vendored KaTeX as they scroll into view. Everything
   from the data is put in the page as text (textContent), never as markup.

   - Paragraphs: a text is cut at blank lines, and long paragraphs at line ends into pieces of
     about PIECE characters (never inside a display formula); each piece is typeset alone, one
     per task, so a long proof never blocks the page. At most AT_ONCE pieces of a text are
     shown at first, the rest a button press away, so no text makes the page do more than a
     bounded amount of work however long it is.
   - Delimiters: $$...$$ and \[...\] (display), $...$ and \(...\) (inline); \$ is a dollar
     sign. The currency rule: a $ followed by a number ("$50", "$.75") opens math only when the
     next $ on the same line closes it: that $ follows a character that is not a space, is not
     itself followed by a number, and what lies between holds no two words in a row (outside
     commands), as in "$5$" or "$2^n - 1$". Otherwise it is a dollar sign, which never closes
     math either, and inside a formula it is typeset as \$. So "$50 and a pair of cufflinks
     for $30" and "is $104. So the cost is 3$x" are text, "$x$ and $5$" two formulas.
   - Typesetting: KaTeX with throwOnError, so a formula it cannot typeset (a parse error, an
     unknown command, a bound below) is shown as its source, delimiters included, in a code
     style: never KaTeX's red error output. The TeX comes from datasets and from submitters'
     details files, so it is bounded, by what it renders as well as by what is written: no
     macros defined in the text (\def, \newcommand... would let 115 characters expand into 192
     nested superscripts, which crashed Chromium's renderer, or 3,568 into 350,000 glyphs), at
     most MAX_EXPAND expansions of KaTeX's own macros, sizes capped at MAX_SIZE em, at most
     MAX_CHARS characters, nesting MAX_DEPTH deep (braces, \left, \begin) and MAX_ROWS line
     breaks per formula, and at most BUDGET_FORMULAS formulas or BUDGET_CHARS characters of TeX
     typeset per item shown (the budget starts again when the URL's fragment names another
     item). The bounds are documented in docs/trust-model.md. */
(function () {
  "use strict";

  var MAX_CHARS = 5000, MAX_DEPTH = 16, MAX_ROWS = 100, MAX_EXPAND = 1000, MAX_SIZE = 20;
  var BUDGET_FORMULAS = 1000, BUDGET_CHARS = 50000;
  var PIECE = 400, AT_ONCE = 200;
  var used = { formulas: 0, chars: 0 };
  var here = document.currentScript ? document.currentScript.src : "";
  var KATEX = here.replace(/math\.js(\?.*)?$/, "katex/");

  /* --- Paragraphs --------------------------------------------------------------------------- */

  function balanced(text) {
    var dollars = (text.match(/\$\$/g) || []).length;
    var brackets = (text.match(/\\\[/g) || []).length - (text.match(/\\\]/g) || []).length;
    return dollars % 2 === 0 && brackets <= 0;
  }

  /* The pieces of a text: {text, paragraph (whether it starts one)}. */
  function pieces(text) {
    var out = [];
    var open = "";
    var fresh = true;
    text.split("\n").forEach(function (line) {
      if (!line.trim() && balanced(open)) {
        if (open) out.push({ text: open, paragraph: fresh });
        open = "";
        fresh = true;
        return;
      }
      open = open ? open + "\n" + line : line;
      if (open.length >= PIECE && balanced(open)) {
        out.push({ text: open, paragraph: fresh });
        open = "";
        fresh = false;
      }
    });
    if (open) out.push({ text: open, paragraph: fresh });
    return out;
  }

  /* --- Where the math is -------------------------------------------------------------------- */

  var NUMBER = /^\.?[0-9]/;
  var WORDS = /(^|[^a-zA-Z])[a-z]{2,}\s+[a-z]{2,}([^a-zA-Z]|$)/;  /* "is the", not "\sin x" */

  /* Whether the $ at `at` is a dollar sign (the currency rule). */
  function currency(text, at) {
    if (!NUMBER.test(text.slice(at + 1, at + 3))) return false;
    for (var i = at + 1; i < text.length && text[i] !== "\n"; i++) {
      if (text[i] === "\\") { i += 1; continue; }
      if (text[i] !== "$") continue;
      return /\s/.test(text[i - 1]) || NUMBER.test(text.slice(i + 1, i + 3)) ||
        WORDS.test(text.slice(at + 1, i).replace(/\\[a-zA-Z@]+/g, " "));
    }
    return true;
  }

  /* Where the formula opened before `from` ends (the index of `close`): the first `close`
     outside braces, escaped characters skipped; -1 when a dollar sign comes first (for $),
     NONE when the text has no such `close` (later formulas of the same kind are then not
     looked for either, so a text is read in linear time). */
  var NONE = -2;

  function closing(text, from, close) {
    var depth = 0;
    for (var i = from; i < text.length; i++) {
      if (depth <= 0 && text.startsWith(close, i)) {
        return close === "$" && NUMBER.test(text.slice(i + 1, i + 3)) ? -1 : i;
      }
      var c = text[i];
      if (c === "\\") i += 1;
      else if (c === "{") depth += 1;
      else if (c === "}") depth -= 1;
    }
    return NONE;
  }

  var OPENERS = [
    { left: "$$", right: "$$", display: true },
    { left: "\\[", right: "\\]", display: true },
    { left: "\\(", right: "\\)", display: false },
    { left: "$", right: "$", display: false }
  ];

  /* A text as a list of parts: {text} for plain text, {tex, raw, display} for a formula (raw:
     as written, with its delimiters). */
  function split(text) {
    var parts = [];
    var plain = "";
    var unclosed = {};  /* openers with no closer in the rest of the text */
    var i = 0;
    while (i < text.length) {
      var found = null;
      for (var d = 0; d < OPENERS.length && !found; d++) {
        var o = OPENERS[d];
        if (!text.startsWith(o.left, i)) continue;
        if (unclosed[o.left] || (o.left === "$" && currency(text, i))) break;
        var end = closing(text, i + o.left.length, o.right);
        if (end === NONE) unclosed[o.left] = true;
        if (end >= 0) found = { at: end + o.right.length, tex: text.slice(i + o.left.length, end), display: o.display };
        else break;  /* "$$" unclosed is not tried again as "$" */
      }
      if (found) {
        if (plain) parts.push({ text: plain });
        plain = "";
        parts.push({ tex: found.tex, raw: text.slice(i, found.at), display: found.display });
        i = found.at;
        continue;
      }
      var step = text[i] === "\\" || text.startsWith("$$", i) ? 2 : 1;  /* \$ is a dollar sign */
      plain += text.slice(i, i + step);
      i += step;
    }
    if (plain) parts.push({ text: plain });
    return parts;
  }

  /* --- Typesetting -------------------------------------------------------------------------- */

  /* The deepest nesting of braces, \left...\right and \begin...\end, and the number of line
     breaks (\\, \cr, \newline); escaped characters (\{, \\) are not braces. */
  function shape(tex) {
    var depth = 0, deepest = 0, rows = 0;
    for (var i = 0; i < tex.length; i++) {
      var c = tex[i];
      if (c === "{") depth += 1;
      else if (c === "}") depth -= 1;
      else if (c === "\\") {
        var word = /^\\(left|right|begin|end|cr|newline)(?![a-zA-Z])/.exec(tex.slice(i, i + 9));
        if (tex[i + 1] === "\\") rows += 1;
        if (word) {
          if (word[1] === "left" || word[1] === "begin") depth += 1;
          else if (word[1] === "right" || word[1] === "end") depth -= 1;
          else rows += 1;
          i += word[0].length - 1;
        } else {
          i += 1;
        }
      }
      if (depth > deepest) deepest = depth;
    }
    return { depth: deepest, rows: rows };
  }

  /* Commands that define macros (the text's own macros are not typeset) or that need trust. */
  var REFUSED = /\\(def|gdef|edef|xdef|let|futurelet|global|long|newcommand|renewcommand|providecommand|href|url|includegraphics|htmlClass|htmlId|htmlStyle|htmlData)(?![a-zA-Z@])/;

  /* The TeX KaTeX is given for a formula, or null when it is past the bounds. */
  function prepared(tex) {
    if (tex.length > MAX_CHARS || used.formulas >= BUDGET_FORMULAS ||
        used.chars + tex.length > BUDGET_CHARS || REFUSED.test(tex)) return null;
    var found = shape(tex);
    return found.depth <= MAX_DEPTH && found.rows <= MAX_ROWS ? adapted(tex) : null;
  }

  /* What the sources write that KaTeX lacks, rewritten to what it has: a dollar sign in a
     formula (\text{$40}, by the currency rule) as \$; \cline{i-j} as a rule across the array
     (KaTeX draws no partial rules); @{...} in an array's columns (the space between two
     columns) left out. */
  function adapted(tex) {
    var out = "";
    for (var i = 0; i < tex.length; i++) {
      if (tex[i] === "\\") { out += tex.slice(i, i + 2); i += 1; continue; }
      out += tex[i] === "$" && currency(tex, i) ? "\\$" : tex[i];
    }
    return out
      .replace(/\\cline(?![a-zA-Z@])\s*\{[^{}]*\}/g, "\\hline")
      .replace(/(\\begin\{array\}\s*\{)((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}/g, function (all, head, columns) {
        return head + columns.replace(/@\{(?:[^{}]|\{[^{}]*\})*\}/g, "") + "}";
      });
  }

  var OPTIONS = {
    throwOnError: true, trust: false, strict: "ignore", maxExpand: MAX_EXPAND, maxSize: MAX_SIZE
  };

  function source(raw) {
    var code = document.createElement("code");
    code.className = "tex-source";
    code.title = "not typeset: shown as written";
    code.textContent = raw;
    return code;
  }

  /* A formula typeset, or its source in a code style. */
  function formula(part) {
    var tex = prepared(part.tex);
    if (tex === null) return source(part.raw);
    var span = document.createElement("span");
    try {
      /* a fresh macro table each time: nothing one formula defines (\tag) reaches the next */
      katex.render(tex, span, Object.assign({ displayMode: part.display, macros: {} }, OPTIONS));
    } catch (e) {
      return source(part.raw);
    }
    used.formulas += 1;
    used.chars += part.tex.length;
    return span;
  }

  var SKIP = /^(SCRIPT|STYLE|TEXTAREA|CODE|PRE|OPTION|NOSCRIPT)$/;

  /* Typeset the math in the text nodes of `el` now (KaTeX must be loaded). */
  function typesetNow(el) {
    Array.prototype.slice.call(el.childNodes).forEach(function (node) {
      if (node.nodeType === 1 && !SKIP.test(node.nodeName) && !node.classList.contains("katex")) {
        typesetNow(node);
        return;
      }
      if (node.nodeType !== 3) return;
      var parts = split(node.data);
      if (!parts.some(function (p) { return p.tex !== undefined; })) return;
      var out = document.createDocumentFragment();
      parts.forEach(function (p) {
        out.appendChild(p.tex === undefined ? document.createTextNode(p.text) : formula(p));
      });
      el.replaceChild(out, node);
    });
  }

  var loading = null;

  function script(src) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = src;
      el.onload = resolve;
      el.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(el);
    });
  }

  /* KaTeX and its stylesheet, loaded once, when the first formula is wanted. */
  function loadKatex() {
    if (!loading) {
      var css = document.createElement("link");
      css.rel = "stylesheet";
      css.href = KATEX + "katex.min.css";
      document.head.appendChild(css);
      loading = typeof katex === "object" ? Promise.resolve() : script(KATEX + "katex.min.js");
    }
    return loading;
  }

  /* Typeset the math in `el` (loading KaTeX first); resolves when done. */
  function typeset(el) {
    return loadKatex().then(function () { typesetNow(el); });
  }

  /* --- Lazily, as the text comes into view -------------------------------------------------- */

  var MATH = /\$|\\\(|\\\[/;  /* $, \( or \[: a piece with something to typeset */
  var queue = [];
  var busy = false;
  var seen = typeof IntersectionObserver === "function" ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (e.isIntersecting) { seen.unobserve(e.target); later(e.target); }
    });
  }, { rootMargin: "0px 0px 300px 0px" }) : null;

  function later(el) {
    queue.push(el);
    if (busy) return;
    busy = true;
    loadKatex().then(function () { setTimeout(next, 0); }, function () { busy = false; });
  }

  /* One piece per task; a piece of an item no longer shown is skipped. */
  function next() {
    var el = queue.shift();
    if (el && el.isConnected) typesetNow(el);
    if (queue.length) setTimeout(next, 0);
    else busy = false;
  }

  function lazy(el) {
    if (!MATH.test(el.textContent)) return;
    if (seen) seen.observe(el); else later(el);
  }

  /* Pieces `from` on of a text into `box`, AT_ONCE of them, then a button for the rest. */
  function show(box, all, from) {
    var end = Math.min(all.length, from + AT_ONCE);
    for (var k = from; k < end; k++) {
      var p = document.createElement("p");
      p.textContent = all[k].text;
      p.className = all[k].paragraph ? "tex" : "tex cont";
      box.appendChild(p);
      lazy(p);
    }
    if (end >= all.length) return;
    var more = document.createElement("button");
    more.type = "button";
    more.className = "more";
    var rest = all.length - end;
    more.textContent = "Show " + (rest > AT_ONCE ? "the next " + AT_ONCE + " of " : "") +
      "the remaining " + rest + " paragraph" + (rest === 1 ? "" : "s");
    more.addEventListener("click", function () {
      box.removeChild(more);
      show(box, all, end);
    });
    box.appendChild(more);
  }

  /* A text as a block of paragraphs whose math is typeset as they come into view. */
  function text(value, className) {
    var box = document.createElement("div");
    if (className) box.className = className;
    show(box, pieces(value), 0);
    return box;
  }

  window.mathjudgeMath = { text: text, typeset: typeset, split: split };
  /* Another item shown: a fresh budget (captured, so before the item pages draw it). */
  window.addEventListener("hashchange", function () { used.formulas = used.chars = 0; }, true);
})();
