/* Math in item texts, typeset with the vendored KaTeX. The raw TeX is the page's text, so it
   stays readable when JavaScript is off; a formula KaTeX cannot parse stays as it was written
   (no error output, nothing in the console). `mathjudgeMath(element)` typesets one element
   (the item pages call it paragraph by paragraph); elements of class "tex" in the page as
   served are typeset when it loads. */
(function () {
  "use strict";
  var OPTIONS = {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "\\[", right: "\\]", display: true },
      { left: "\\(", right: "\\)", display: false },
      { left: "$", right: "$", display: false }
    ],
    throwOnError: false,
    strict: "ignore",
    errorCallback: function () {}
  };

  function typeset(el) {
    if (typeof renderMathInElement !== "function") return;
    renderMathInElement(el, OPTIONS);
    document.documentElement.setAttribute("data-math", "rendered");
  }

  window.mathjudgeMath = typeset;
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".tex").forEach(typeset);
  });
})();
