/* mathjudge leaderboard: sortable tables, tabs, the explorer filters and the reported toggle.
   Progressive enhancement only: without this script every table, tab panel and row is shown. */
(function () {
  "use strict";

  function sortKey(cell) {
    if (cell.classList.contains("none")) return null;
    var raw = cell.getAttribute("data-sort");
    if (raw !== null) {
      if (raw === "") return null;
      var n = parseFloat(raw);
      return isNaN(n) ? raw.toLowerCase() : n;
    }
    return cell.textContent.trim().toLowerCase();
  }

  function compare(a, b) {
    if (a === b) return 0;
    if (a === null) return 1; /* empty cells last in both directions */
    if (b === null) return -1;
    if (typeof a === typeof b) return a < b ? -1 : 1;
    return typeof a === "number" ? -1 : 1;
  }

  function makeSortable(table) {
    var head = table.tHead;
    if (!head || !table.tBodies.length) return;
    var headers = head.rows[head.rows.length - 1].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () {
        var first = th.getAttribute("data-first") || "ascending";
        var current = th.getAttribute("aria-sort");
        var order = current === "none" ? first : current === "ascending" ? "descending" : "ascending";
        Array.prototype.forEach.call(headers, function (other) {
          other.setAttribute("aria-sort", "none");
        });
        th.setAttribute("aria-sort", order);
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var keyed = rows.map(function (row, i) {
          return { row: row, key: sortKey(row.cells[index]), i: i };
        });
        keyed.sort(function (x, y) {
          if (x.key === null || y.key === null) return compare(x.key, y.key) || x.i - y.i;
          var c = compare(x.key, y.key);
          return (order === "ascending" ? c : -c) || x.i - y.i;
        });
        keyed.forEach(function (k) { body.appendChild(k.row); });
      });
    });
  }

  function makeTabs(container) {
    var list = container.querySelector("[data-tablist]");
    var tabs = Array.prototype.slice.call(list.querySelectorAll("[data-tab]"));
    if (!tabs.length) return;
    list.hidden = false;
    list.setAttribute("role", "tablist");
    function select(tab, focus) {
      tabs.forEach(function (t) {
        var on = t === tab;
        var panel = document.getElementById("panel-" + t.getAttribute("data-tab"));
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        panel.hidden = !on;
      });
      if (focus) tab.focus();
    }
    tabs.forEach(function (tab, i) {
      var panel = document.getElementById("panel-" + tab.getAttribute("data-tab"));
      tab.setAttribute("role", "tab");
      tab.setAttribute("aria-controls", panel.id);
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", tab.id);
      panel.tabIndex = 0;
      tab.addEventListener("click", function () { select(tab, false); });
      tab.addEventListener("keydown", function (event) {
        var next = null;
        if (event.key === "ArrowRight") next = tabs[(i + 1) % tabs.length];
        else if (event.key === "ArrowLeft") next = tabs[(i - 1 + tabs.length) % tabs.length];
        else if (event.key === "Home") next = tabs[0];
        else if (event.key === "End") next = tabs[tabs.length - 1];
        if (next) { event.preventDefault(); select(next, true); }
      });
    });
    select(tabs[0], false);
  }

  function makeExplorer(controls) {
    var table = document.getElementById(controls.getAttribute("data-explorer-controls"));
    var only = controls.querySelector("[data-filter=disagree]");
    var search = controls.querySelector("[data-filter=search]");
    var count = controls.querySelector("[data-count]");
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function apply() {
      var needle = search.value.trim().toLowerCase();
      var shown = 0;
      rows.forEach(function (row) {
        var ok = (!only.checked || row.getAttribute("data-disagree") === "1") &&
          (!needle || row.textContent.toLowerCase().indexOf(needle) !== -1);
        row.hidden = !ok;
        if (ok) shown += 1;
      });
      count.textContent = shown + " of " + rows.length + " items shown";
    }
    only.addEventListener("change", apply);
    search.addEventListener("input", apply);
    apply();
  }

  function reportedToggle(box) {
    box.addEventListener("change", function () {
      document.querySelectorAll("tr[data-source=reported]").forEach(function (row) {
        row.hidden = !box.checked;
      });
      document.querySelectorAll("#show-reported, .toggle-reported").forEach(function (other) {
        other.checked = box.checked;
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-js-only]").forEach(function (el) { el.hidden = false; });
    document.querySelectorAll("table.sortable").forEach(makeSortable);
    document.querySelectorAll("[data-tabs]").forEach(makeTabs);
    document.querySelectorAll("[data-explorer-controls]").forEach(makeExplorer);
    document.querySelectorAll("#show-reported, .toggle-reported").forEach(reportedToggle);
  });
})();
