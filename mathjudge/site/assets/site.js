/* mathjudge leaderboard: filters (sources, judge kind, model type, search, metric columns) with the glance
   and verdicts that follow them, sortable tables, and tabs (their state in the URL).
   Progressive enhancement only: without this script every row and panel is shown with the
   default glance, and the controls stay hidden. */
(function () {
  "use strict";

  var SOURCES = ["submitted", "published_outputs", "paper"];  /* bits 1, 2, 4 */
  var STORE = "mathjudge-filters";
  var NARROW = 900;  /* below this width only the default metric columns are shown at first */

  function all(root, selector) {
    return Array.prototype.slice.call(root.querySelectorAll(selector));
  }

  function remembered() {
    try { return JSON.parse(sessionStorage.getItem(STORE) || "{}") || {}; } catch (e) { return {}; }
  }

  function remember(state) {
    try { sessionStorage.setItem(STORE, JSON.stringify(state)); } catch (e) { /* storage off */ }
  }

  /* --- Filters ----------------------------------------------------------------------------- */

  function readState(form) {
    var shown = {};
    SOURCES.forEach(function (s) { shown[s] = true; });  /* a source without a box is shown */
    all(form, "input[name=source]").forEach(function (box) { shown[box.value] = box.checked; });
    var kind = form.querySelector("select[name=kind]");
    var mtype = form.querySelector("select[name=mtype]");
    var search = form.querySelector("input[name=q]");
    return {
      sources: shown,
      kind: kind ? kind.value : "all",
      mtype: mtype ? mtype.value : "all",
      q: search ? search.value.trim().toLowerCase() : ""
    };
  }

  function stateKey(state) {
    var bits = 0;
    SOURCES.forEach(function (s, i) { if (state.sources[s]) bits += 1 << i; });
    return bits + "-" + state.kind + "-" + state.mtype;
  }

  function matches(el, state) {
    var prov = el.getAttribute("data-prov");
    if (prov === null) return true;
    if (!state.sources[prov]) return false;
    if (state.kind !== "all" && el.getAttribute("data-kind") !== state.kind) return false;
    if (state.mtype !== "all" && el.getAttribute("data-mtype") !== state.mtype) return false;
    return !state.q || (el.getAttribute("data-q") || "").indexOf(state.q) !== -1;
  }

  /* The glance line of the state: the one listing its key, else the fallback ("*"). */
  function showGlance(key) {
    var groups = [];
    all(document, ".glance-line").forEach(function (line) {
      if (groups.indexOf(line.parentNode) === -1) groups.push(line.parentNode);
    });
    groups.forEach(function (group) {
      var lines = all(group, ":scope > .glance-line");
      var pick = lines.filter(function (l) {
        return l.getAttribute("data-when").split(" ").indexOf(key) !== -1;
      })[0] || lines.filter(function (l) { return l.getAttribute("data-when") === "*"; })[0];
      lines.forEach(function (l) { show(l, l === pick); });
    });
  }

  function show(el, on) {
    if (el.hidden === on) el.hidden = !on;  /* write only what changes */
  }

  function filterRows(state) {
    all(document, "[data-filtered] tbody").forEach(function (body) {
      var table = body.parentNode;
      var limit = Number(table.getAttribute("data-limit") || 0);
      var rows = all(body, ":scope > tr[data-prov]");
      var passing = rows.filter(function (r) { return matches(r, state); });
      var shown = limit ? passing.slice(0, limit) : passing;
      if (limit) {  /* the ranked leader of what passes, even below the top rows */
        var ranked = passing.filter(function (r) { return r.hasAttribute("data-rank"); });
        ranked.sort(function (a, b) { return a.getAttribute("data-rank") - b.getAttribute("data-rank"); });
        if (ranked.length && shown.indexOf(ranked[0]) === -1) shown.push(ranked[0]);
      }
      var keep = new Set(shown);
      rows.forEach(function (r) { show(r, keep.has(r)); });
      var wrap = table.closest(".table-wrap") || table;
      var none = wrap.parentNode.querySelector(":scope > .none-shown");
      if (none && rows.length) none.hidden = shown.length > 0;
    });
    all(document, "[data-filtered] .dot-row[data-prov]").forEach(function (row) {
      show(row, matches(row, state));
    });
    all(document, ".cross-cell").forEach(function (cell) {
      var first = null;
      all(cell, ".cand").forEach(function (c) {
        var ok = !first && matches(c, { sources: state.sources, kind: state.kind, mtype: state.mtype, q: "" });
        if (ok) first = c;
        show(c, ok);
      });
      cell.classList.toggle("none", !first);
    });
  }

  function describe(form, state) {
    var parts = [];
    var boxes = all(form, "input[name=source]");
    var off = boxes.filter(function (b) { return !b.checked; });
    if (off.length) {
      parts.push(boxes.filter(function (b) { return b.checked; }).map(function (b) {
        return b.parentNode.textContent.trim();
      }).join(", ") || "no source");
    }
    var kind = form.querySelector("select[name=kind]");
    if (kind && kind.value !== "all") parts.push(kind.options[kind.selectedIndex].text);
    var mtype = form.querySelector("select[name=mtype]");
    if (mtype && mtype.value !== "all") parts.push(mtype.options[mtype.selectedIndex].text);
    if (state.q) parts.push("“" + state.q + "”");
    var columns = all(form, "input[name=col]");
    var hidden = columns.filter(function (b) { return !b.checked; }).length;
    if (hidden) parts.push((columns.length - hidden) + " of " + columns.length + " metrics");
    return parts.length ? "(" + parts.join("; ") + ")" : "(everything shown)";
  }

  /* Hidden metric columns: one style rule per column, not a write to every cell. */
  function applyColumns(form) {
    var off = {};
    var rules = [];
    all(form, "input[name=col]").forEach(function (box) {
      off[box.value] = !box.checked;
      if (!box.checked) rules.push('[data-col="' + Number(box.value) + '"]');
    });
    var sheet = document.getElementById("hidden-columns");
    var initial = document.getElementById("default-columns");
    if (initial) initial.remove();  /* the page's phone default: these rules replace it */
    if (!sheet && !rules.length) return;
    if (!sheet) {
      sheet = document.createElement("style");
      sheet.id = "hidden-columns";
      document.head.appendChild(sheet);
    }
    sheet.textContent = rules.length ? rules.join(",") + "{display:none}" : "";
    all(document, "th[data-group]").forEach(function (th) {
      var visible = th.getAttribute("data-group").split(" ").filter(function (c) { return !off[c]; });
      show(th, visible.length > 0);
      th.colSpan = Math.max(1, visible.length);
    });
  }

  function makeFilters(form) {
    var saved = remembered();
    all(form, "input[name=source]").forEach(function (box) {
      if (saved.sources && box.value in saved.sources) box.checked = saved.sources[box.value];
    });
    var kind = form.querySelector("select[name=kind]");
    if (kind && saved.kind && all(kind, "option").some(function (o) { return o.value === saved.kind; })) {
      kind.value = saved.kind;
    }
    var mtype = form.querySelector("select[name=mtype]");
    if (mtype && saved.mtype && all(mtype, "option").some(function (o) { return o.value === saved.mtype; })) {
      mtype.value = saved.mtype;
    }
    var columns = form.querySelector("[data-default-columns]");
    if (columns && window.innerWidth < NARROW) {
      var keep = columns.getAttribute("data-default-columns").split(" ");
      all(columns, "input[name=col]").forEach(function (box) { box.checked = keep.indexOf(box.value) !== -1; });
    }
    var label = form.querySelector("[data-filter-state]");
    function apply() {
      var state = readState(form);
      showGlance(stateKey(state));
      filterRows(state);
      applyColumns(form);
      if (label) label.textContent = describe(form, state);
      remember({ sources: state.sources, kind: state.kind, mtype: state.mtype });
    }
    form.addEventListener("change", apply);
    form.addEventListener("input", apply);
    form.hidden = false;
    apply();
  }

  /* --- Sortable tables --------------------------------------------------------------------- */

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

  /* Each header gets a button; a header holding a link keeps the link and gets a separate
     small button, so no control sits inside another. */
  function makeSortable(table) {
    var head = table.tHead;
    if (!head || !table.tBodies.length) return;
    var headers = head.rows[head.rows.length - 1].cells;
    Array.prototype.forEach.call(headers, function (th, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      if (th.querySelector("a, button")) {
        button.setAttribute("aria-label", "Sort by " + th.textContent.trim());
        button.textContent = "⇅";
      } else {
        while (th.firstChild) button.appendChild(th.firstChild);
      }
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

  /* --- Tabs: the selected one is in the URL (#scope-type), so a link or a reload keeps it. -- */

  function fragment() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (e) { return ""; }
  }

  function makeTabs(container) {
    var list = container.querySelector("[data-tablist]");
    var tabs = all(list, "[data-tab]");
    if (!tabs.length) return;
    list.hidden = false;
    list.setAttribute("role", "tablist");
    function panelOf(tab) { return document.getElementById("panel-" + tab.getAttribute("data-tab")); }
    function select(tab, focus, keep) {
      tabs.forEach(function (t) {
        var on = t === tab;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        panelOf(t).hidden = !on;
      });
      if (focus) tab.focus();
      if (keep) history.replaceState(null, "", "#" + tab.getAttribute("data-tab"));
    }
    function fromHash() {
      var id = fragment();
      if (!id) return undefined;
      return tabs.filter(function (t) {
        var panel = panelOf(t);
        if (t.getAttribute("data-tab") === id || panel.id === id) return true;
        try { return !!panel.querySelector("#" + CSS.escape(id)); } catch (e) { return false; }
      })[0];
    }
    tabs.forEach(function (tab, i) {
      var panel = panelOf(tab);
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
    container.setAttribute("data-ready", "");
    window.addEventListener("hashchange", function () {
      var tab = fromHash();
      if (tab) select(tab, false, false);
    });
  }

  /* Sort buttons a few tables at a time, so that a page of many tables never blocks. */
  function inBatches(items, work) {
    var start = Date.now();
    while (items.length && Date.now() - start < 30) work(items.shift());
    if (items.length) setTimeout(function () { inBatches(items, work); }, 0);
  }

  document.addEventListener("DOMContentLoaded", function () {
    all(document, "[data-tabs]").forEach(makeTabs);
    all(document, "[data-filters]").forEach(makeFilters);
    inBatches(all(document, "table.sortable"), makeSortable);
  });
})();
