/* mathjudge leaderboard: sortable tables, tabs (their state in the URL), the explorer and item
   filters, and the reported toggle. Progressive enhancement only: without this script every
   table, tab panel and row is shown. */
(function () {
  "use strict";

  /* A cell's sort key: a number, a text, or null for an empty cell ("—", n/a, no rank).
     Cells that carry data-sort sort by it ("" = empty); others by their text. */
  function sortKey(cell) {
    if (!cell || cell.classList.contains("none")) return null;
    var raw = cell.getAttribute("data-sort");
    if (raw !== null) {
      if (raw === "") return null;
      var n = Number(raw);
      return isNaN(n) ? raw.toLowerCase() : n;
    }
    var text = cell.textContent.trim();
    return text === "" || text === "—" ? null : text.toLowerCase();
  }

  function compare(a, b) {
    if (a === b) return 0;
    if (typeof a === typeof b) return a < b ? -1 : 1;
    return typeof a === "number" ? -1 : 1;
  }

  function sortRows(table, index, order) {
    var body = table.tBodies[0];
    var keyed = Array.prototype.map.call(body.rows, function (row, i) {
      return { row: row, key: sortKey(row.cells[index]), i: i };
    });
    keyed.sort(function (x, y) {
      if (x.key === null || y.key === null) {  /* empty cells last in both directions */
        if (x.key === y.key) return x.i - y.i;
        return x.key === null ? 1 : -1;
      }
      var c = compare(x.key, y.key);
      return (order === "ascending" ? c : -c) || x.i - y.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
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
        sortRows(table, index, order);
      });
    });
  }

  /* Tabs: the selected one is in the URL (#scope-type), so a link or a reload keeps it. */
  function makeTabs(container) {
    var list = container.querySelector("[data-tablist]");
    var tabs = Array.prototype.slice.call(list.querySelectorAll("[data-tab]"));
    if (!tabs.length) return;
    list.hidden = false;
    list.setAttribute("role", "tablist");
    function select(tab, focus, remember) {
      tabs.forEach(function (t) {
        var on = t === tab;
        var panel = document.getElementById("panel-" + t.getAttribute("data-tab"));
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        panel.hidden = !on;
      });
      if (focus) tab.focus();
      if (remember) history.replaceState(null, "", "#" + tab.getAttribute("data-tab"));
    }
    function fromHash() {
      var id = location.hash.slice(1);
      try {
        id = decodeURIComponent(id);
      } catch (e) {
        /* not percent-encoding (#%E0%A4%A): taken as it is written */
      }
      return tabs.filter(function (t) {
        var panel = document.getElementById("panel-" + t.getAttribute("data-tab"));
        return id && (t.getAttribute("data-tab") === id || panel.id === id ||
          (panel.querySelector("[id]") && !!panel.querySelector("#" + CSS.escape(id))));
      })[0];
    }
    tabs.forEach(function (tab, i) {
      var panel = document.getElementById("panel-" + tab.getAttribute("data-tab"));
      tab.setAttribute("role", "tab");
      tab.setAttribute("aria-controls", panel.id);
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", tab.id);
      panel.tabIndex = 0;
      tab.addEventListener("click", function () { select(tab, false, true); });
      tab.addEventListener("keydown", function (event) {
        var next = null;
        if (event.key === "ArrowRight") next = tabs[(i + 1) % tabs.length];
        else if (event.key === "ArrowLeft") next = tabs[(i - 1 + tabs.length) % tabs.length];
        else if (event.key === "Home") next = tabs[0];
        else if (event.key === "End") next = tabs[tabs.length - 1];
        if (next) { event.preventDefault(); select(next, true, true); }
      });
    });
    select(fromHash() || tabs[0], false, false);
    window.addEventListener("hashchange", function () {
      var tab = fromHash();
      if (tab) select(tab, false, false);
    });
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

  /* Item index: a select per scope column and "only items a judge gets wrong". */
  function makeItemFilters(controls) {
    var table = document.getElementById(controls.getAttribute("data-item-filters"));
    var selects = Array.prototype.slice.call(controls.querySelectorAll("select[data-facet]"));
    var wrong = controls.querySelector("[data-filter=wrong]");
    var count = controls.querySelector("[data-count]");
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function apply() {
      var shown = 0;
      rows.forEach(function (row) {
        var ok = (!wrong.checked || row.getAttribute("data-wrong") === "1") &&
          selects.every(function (s) {
            return !s.value || row.getAttribute("data-facet-" + s.getAttribute("data-facet")) === s.value;
          });
        row.hidden = !ok;
        if (ok) shown += 1;
      });
      count.textContent = shown + " of " + rows.length + " items shown";
    }
    selects.forEach(function (s) { s.addEventListener("change", apply); });
    wrong.addEventListener("change", apply);
    apply();
  }

  function reportedToggle(box) {
    box.addEventListener("change", function () {
      document.querySelectorAll("tr[data-source=reported], li.dot-row.reported").forEach(function (row) {
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
    document.querySelectorAll("[data-item-filters]").forEach(makeItemFilters);
    document.querySelectorAll("#show-reported, .toggle-reported").forEach(reportedToggle);
  });
})();
