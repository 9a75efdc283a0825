/* Math in item texts, typeset with the vendored KaTeX. The raw TeX is the page's text, so it
   stays readable when JavaScript is off; a formula KaTeX cannot parse stays as it was written
   (no error output, nothing in the console). `mathjudgeMath(element)` typesets one element
   (the item pages call it paragraph by paragraph); elements of class "tex" in the page as
   served are typeset when it loads.

   The TeX comes from datasets and from submitters' details files, so it is bounded before
   KaTeX sees it: a formula longer than MAX_CHARS, nested deeper than MAX_DEPTH (braces, \left,
   \begin) or breaking into more than MAX_ROWS lines, and every formula past the budget of what
   is shown at once (reset when the URL's fragment names another item), stays plain text. Past
   such bounds KaTeX's output crashed Chromium's renderer (x^{x^{...}} nested 150 deep, 603
   characters) or took a minute to lay out (990 formulas of \\ in a 2 MB page), and a formula
   KaTeX throws on (6,000 nested braces) stopped all the math after it. */
(function () {
  "use strict";
  var MAX_CHARS = 5000, MAX_DEPTH = 16, MAX_ROWS = 100;
  var BUDGET_FORMULAS = 1000, BUDGET_CHARS = 50000;
  var used = { formulas: 0, chars: 0 };

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
          i += 1;  /* the escaped character */
        }
      }
      if (depth > deepest) deepest = depth;
    }
    return { depth: deepest, rows: rows };
  }

  /* auto-render's preProcess: a formula past the bounds is refused as a parse error, which
     auto-render answers by leaving the formula's raw text in place. Only formulas KaTeX
     renders count against the budget. */
  function bounded(tex) {
    var over = tex.length > MAX_CHARS || used.formulas >= BUDGET_FORMULAS ||
      used.chars + tex.length > BUDGET_CHARS;
    if (!over) {
      var found = shape(tex);
      over = found.depth > MAX_DEPTH || found.rows > MAX_ROWS;
    }
    if (over) throw new katex.ParseError("past the bounds math is typeset within");
    used.formulas += 1;
    used.chars += tex.length;
    return tex;
  }

  var OPTIONS = {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "\\[", right: "\\]", display: true },
      { left: "\\(", right: "\\)", display: false },
      { left: "$", right: "$", display: false }
    ],
    preProcess: bounded,
    maxSize: 20,
    throwOnError: false,
    strict: "ignore",
    errorCallback: function () {}
  };

  function typeset(el) {
    if (typeof renderMathInElement !== "function" || typeof katex !== "object") return;
    try {
      renderMathInElement(el, OPTIONS);
    } catch (e) {
      /* An element KaTeX cannot handle keeps its raw text; the others are still typeset. */
    }
    document.documentElement.setAttribute("data-math", "rendered");
  }

  window.mathjudgeMath = typeset;
  /* Another item shown: a fresh budget (captured, so before the item pages draw it). */
  window.addEventListener("hashchange", function () { used.formulas = used.chars = 0; }, true);
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".tex").forEach(typeset);
    document.documentElement.setAttribute("data-math", "rendered");
  });
})();
