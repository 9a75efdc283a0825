/* Item pages: render the LaTeX in item texts with the vendored KaTeX. The raw TeX is the page's
   text, so it stays readable when JavaScript is off; a formula KaTeX cannot parse stays as it
   was written (no error output, nothing in the console). */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    if (typeof renderMathInElement !== "function") return;
    document.querySelectorAll(".tex").forEach(function (el) {
      renderMathInElement(el, {
        delimiters: [
          { left: "$$", right: "$$", display: true },
          { left: "\\[", right: "\\]", display: true },
          { left: "\\(", right: "\\)", display: false },
          { left: "$", right: "$", display: false }
        ],
        throwOnError: false,
        strict: "ignore",
        errorCallback: function () {}
      });
    });
    document.documentElement.setAttribute("data-math", "rendered");
  });
})();
