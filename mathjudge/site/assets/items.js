/* mathjudge leaderboard: the item pages. Item data lives once per benchmark in script files
   under data/items/<benchmark>/ (index.js, calls-K.js, judge-J.js, text-K.js), loaded on
   demand with <script> elements so that file:// works. Each file calls
   mathjudgeData(name, payload).

   - The explorer (items/<benchmark>/index.html, page-2.html...) lists a page of items as HTML;
     this script adds the filters over every item of the benchmark (scope columns, ids, one
     judge's calls, "only where the judge disagrees with gold"), kept in the address so a
     reload or a shared link keeps them; the item index and the judge's calls load only then.
   - The item view (items/<benchmark>/item.html#ID) shows one item: its scope values and gold
     labels, every judge's call with its reasoning, and its texts. Everything from the data is
     put in the page as text (textContent), never as markup; texts are shown by math.js, the
     site's one rendering path for text with math. */
(function () {
  "use strict";

  var waiting = {};
  var loaded = {};

  window.mathjudgeData = function (name, payload) {
    loaded[name] = payload;
    (waiting[name] || []).forEach(function (done) { done(payload); });
    delete waiting[name];
  };

  /* Load base + file + ".js" once; resolves with its payload (checked against its name). */
  function load(base, bench, file) {
    var name = bench + "/" + file;
    if (loaded[name]) return Promise.resolve(loaded[name]);
    return new Promise(function (resolve, reject) {
      var first = !waiting[name];
      (waiting[name] = waiting[name] || []).push(resolve);
      if (!first) return;
      var script = document.createElement("script");
      script.src = base + file + ".js";
      script.onerror = function () { reject(new Error("could not load " + script.src)); };
      script.onload = function () {
        if (!loaded[name]) reject(new Error(script.src + " holds no data named " + name));
      };
      document.head.appendChild(script);
    });
  }

  function all(root, selector) {
    return Array.prototype.slice.call(root.querySelectorAll(selector));
  }

  function element(tag, text, className) {
    var el = document.createElement(tag);
    if (text !== undefined && text !== null) el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  /* A cell with its column's name, which a phone shows before it (tables stack there). */
  function labelled(cell, name) {
    cell.setAttribute("data-label", name);
    return cell;
  }

  function fragment() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (e) { return null; }
  }

  /* A call as text: "Label: value; Label: value" (the value alone for a one-field benchmark). */
  function callText(texts, index) {
    return texts.map(function (text, f) {
      if (text === null) return null;
      return index.fields.length > 1 ? index.fields[f].label + ": " + text : text;
    }).filter(function (t) { return t !== null; }).join("; ");
  }

  /* --- The explorer: a static page of items; with a filter, every item of the benchmark ---- */

  function explorer(root) {
    var base = root.getAttribute("data-base");
    var bench = root.getAttribute("data-bench");
    var size = Number(root.getAttribute("data-page-items")) || 200;
    var form = root.querySelector("[data-item-filters]");
    var body = root.querySelector("#items tbody");
    var original = Array.prototype.slice.call(body.rows);  /* this page's rows, as rendered */
    var count = root.querySelector("[data-count]");
    var initialCount = count.textContent;
    var staticPager = root.querySelector("[data-static-pager]");
    var pager = root.querySelector("[data-pager]");
    var judgeCells = all(root, "[data-judge-col]");
    var heads = all(root, "#items thead th").map(function (th) { return th.textContent.trim(); });
    var facets = all(form, "select[data-facet]");
    var judge = form.querySelector("select[name=judge]");
    var disagree = form.querySelector("input[name=disagree]");
    var search = form.querySelector("input[name=q]");
    var label = form.querySelector("[data-filter-state]");
    var page = 0;  /* of the items found, from 0 */
    var token = 0;  /* the latest change: a slower load of an earlier one is dropped */

    /* The filters live in the address: "#category=math&judge=2&disagree=1&q=text&page=2". */
    function fromHash() {
      var state = {};
      (location.hash.slice(1) || "").split("&").forEach(function (part) {
        var at = part.indexOf("=");
        if (at < 1) return;
        try { state[decodeURIComponent(part.slice(0, at))] = decodeURIComponent(part.slice(at + 1)); } catch (e) { /* ignored */ }
      });
      facets.forEach(function (s) {
        var want = state[s.getAttribute("data-key")];
        if (want !== undefined && all(s, "option").some(function (o) { return o.value === want; })) s.value = want;
      });
      if (judge && all(judge, "option").some(function (o) { return o.value === state.judge; })) judge.value = state.judge;
      if (disagree) disagree.checked = state.disagree === "1";
      if (search && state.q) search.value = state.q;
      page = Math.max(0, (Number(state.page) || 1) - 1);
    }

    function toHash() {
      var parts = [];
      facets.forEach(function (s) {
        if (s.value) parts.push(encodeURIComponent(s.getAttribute("data-key")) + "=" + encodeURIComponent(s.value));
      });
      if (judge && judge.value) parts.push("judge=" + judge.value);
      if (disagree && disagree.checked) parts.push("disagree=1");
      if (search && search.value.trim()) parts.push("q=" + encodeURIComponent(search.value.trim()));
      if (parts.length && page) parts.push("page=" + (page + 1));
      history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname + location.search);
    }

    function active() {
      return facets.some(function (s) { return s.value; }) || (judge && judge.value) ||
        (disagree && disagree.checked) || (search && search.value.trim());
    }

    function describe() {
      if (!label) return;
      var parts = facets.filter(function (s) { return s.value; }).map(function (s) { return s.value; });
      if (judge && judge.value) parts.push(judge.options[judge.selectedIndex].text);
      if (disagree && disagree.checked) parts.push("disagreements");
      if (search && search.value.trim()) parts.push("“" + search.value.trim() + "”");
      label.textContent = parts.length ? "(" + parts.join("; ") + ")" : "";
    }

    function row(index, item, call) {
      var tr = element("tr");
      var th = element("th", null, "item-id");
      th.scope = "row";
      var link = element("a", item[0]);
      link.href = "item.html#" + encodeURIComponent(item[0]);
      th.appendChild(link);
      tr.appendChild(th);
      item[1].forEach(function (v, k) { tr.appendChild(labelled(element("td", v), heads[1 + k])); });
      item[2].forEach(function (v, k) { tr.appendChild(labelled(element("td", v), heads[1 + item[1].length + k])); });
      var cell = element("td", call ? callText(call[0], index) + (call[1] === 0 ? " (disagrees)" : "") : "");
      cell.setAttribute("data-judge-col", "");
      cell.hidden = !index.withCalls;
      tr.appendChild(labelled(cell, "The judge's call"));
      tr.appendChild(labelled(element("td", item[4] + " of " + item[5], "num"), "Judges wrong"));
      if (call && call[1] === 0) tr.className = "disagree";
      return tr;
    }

    /* Every item that passes the filters, a page of them shown. */
    function showFound(index, calls) {
      var needle = search ? search.value.trim().toLowerCase() : "";
      var only = disagree && disagree.checked;
      var found = [];
      index.items.forEach(function (item, i) {
        var ok = facets.every(function (s) { return !s.value || item[1][Number(s.getAttribute("data-facet"))] === s.value; });
        ok = ok && (!needle || item[0].toLowerCase().indexOf(needle) !== -1);
        var call = calls ? calls.calls[i] : null;
        if (calls) ok = ok && !!call && (!only || call[1] === 0);
        else if (only) ok = ok && item[4] > 0;
        if (ok) found.push([item, call]);
      });
      var pages = Math.max(1, Math.ceil(found.length / size));
      page = Math.min(page, pages - 1);
      var shown = found.slice(page * size, (page + 1) * size);
      var view = { fields: index.fields, withCalls: !!calls };
      var rows = document.createDocumentFragment();
      shown.forEach(function (entry) { rows.appendChild(row(view, entry[0], entry[1])); });
      body.textContent = "";
      body.appendChild(rows);
      judgeCells.forEach(function (c) { c.hidden = !calls; });
      count.textContent = found.length + " of " + index.items.length + " items found" +
        (calls ? ", with the calls of " + judge.options[judge.selectedIndex].text : "") +
        (pages > 1 ? "; page " + (page + 1) + " of " + pages : "") + ".";
      if (staticPager) staticPager.hidden = true;
      pager.hidden = pages < 2;
      pager.querySelector("[data-where]").textContent = "page " + (page + 1) + " of " + pages;
      pager.querySelector("[data-go='-1']").disabled = page === 0;
      pager.querySelector("[data-go='1']").disabled = page >= pages - 1;
    }

    function showStatic() {
      body.textContent = "";
      original.forEach(function (r) { body.appendChild(r); });
      judgeCells.forEach(function (c) { c.hidden = true; });
      count.textContent = initialCount;
      if (staticPager) staticPager.hidden = false;
      pager.hidden = true;
    }

    function apply() {
      describe();
      toHash();
      var mine = ++token;
      if (!active()) { showStatic(); return; }
      var chosen = judge ? judge.value : "";
      count.textContent = "Loading…";
      load(base, bench, "index").then(function (index) {
        if (!chosen) return [index, null];
        return load(base, bench, "judge-" + chosen).then(function (calls) { return [index, calls]; });
      }).then(function (found) {
        if (mine === token) showFound(found[0], found[1]);
      }, function (error) {
        if (mine === token) count.textContent = "Could not load the items (" + error.message + ").";
      });
    }

    /* The filters as one value: a "change" that changes nothing (the search box losing focus
       to a click on a result) must not redraw the rows under the pointer, eating the click. */
    function filterKey() {
      return JSON.stringify([facets.map(function (s) { return s.value; }), judge ? judge.value : "",
        disagree ? disagree.checked : false, search ? search.value.trim() : ""]);
    }
    var applied = null;
    function refresh() {
      var key = filterKey();
      if (key === applied) return;
      applied = key;
      page = 0;
      apply();
    }

    fromHash();
    applied = filterKey();
    form.addEventListener("change", refresh);
    form.addEventListener("input", refresh);
    pager.addEventListener("click", function (event) {
      var go = event.target.closest("[data-go]");
      if (!go) return;
      page += Number(go.getAttribute("data-go"));
      apply();
      root.querySelector("#items").scrollIntoView();
    });
    if (active()) apply();
  }

  /* A text (an item's, or a judge's details) as the site shows every text: paragraphs whose
     math is typeset as they scroll into view, at most a bounded number at first (math.js). */
  function textBlock(text, className) {
    return window.mathjudgeMath.text(text, className);
  }

  /* --- The item view ----------------------------------------------------------------------- */

  function itemView(root) {
    var base = root.getAttribute("data-base");
    var bench = root.getAttribute("data-bench");
    var slot = function (name) { return root.querySelector("[data-slot=" + name + "]"); };
    var heading = slot("title").textContent;  /* the page's own, until an item is found */
    var refs = {};
    var template = document.getElementById("judge-refs");
    all(template.content, "[data-j]").forEach(function (span) { refs[span.getAttribute("data-j")] = span; });

    function status(text) {
      slot("status").textContent = text;
      slot("status").hidden = !text;
    }

    function show() {
      var id = fragment();
      ["pager", "facts", "calls-section"].forEach(function (n) { slot(n).hidden = true; });
      slot("texts").textContent = "";
      slot("title").textContent = heading;
      if (!id) { status("No item chosen: pick one from the item list."); return; }
      title(id, "");  /* at once: nothing above the item moves when it loads */
      load(base, bench, "index").then(function (index) {
        var at = -1;
        for (var i = 0; i < index.items.length; i++) if (index.items[i][0] === id) { at = i; break; }
        if (at < 0) {
          /* the fragment is the link's, not the benchmark's: never shown as the heading */
          slot("title").textContent = "No such item";
          status("No such item: this benchmark has no item with the id this link names. " +
            "Pick one from the item list.");
          return null;
        }
        var row = index.items[at];
        var k = Math.floor(at / index.calls_chunk);
        return Promise.all([load(base, bench, "text-" + row[3]), load(base, bench, "calls-" + k)])
          .then(function (found) { render(index, at, found[0][id], found[1]); });
      }).catch(function (error) { status("Could not load this item (" + error.message + ")."); });
    }

    function render(index, at, item, block) {
      var row = index.items[at];
      var id = row[0];
      var name = item && item.title || id;
      var start = item && item.start || "";
      document.title = name + (start ? ": “" + start + "”" : "") + " · " +
        document.title.split(" · ").slice(-2).join(" · ");
      title(name, start);
      status("");
      var previous = index.items[at - 1];
      var following = index.items[at + 1];
      pagerLink(slot("previous"), previous, "first item");
      pagerLink(slot("next"), following, "last item");
      slot("pager").hidden = false;

      var facts = slot("facts");
      facts.textContent = "";
      pair(facts, "Item id", id);
      index.facets.forEach(function (name, f) { pair(facts, name.replace(/_/g, " "), row[1][f]); });
      var golds = index.fields.filter(function (f) { return f.gold; });
      golds.forEach(function (f, g) { pair(facts, "Gold: " + f.label, row[2][g], true); });
      facts.hidden = !facts.firstChild;
      slot("caption").textContent = "Every judge's call" + (golds.length ? " beside the gold label: " +
        golds.map(function (f, g) { return f.label + " = " + row[2][g]; }).join("; ") : "");

      var details = {};
      (item && item.details || []).forEach(function (d) { details[d[0]] = d[1]; });
      var body = slot("calls");
      body.textContent = "";
      var offset = at - block.start;
      block.judges.forEach(function (entry) {
        var cell = entry[1][offset];
        if (!cell) return;
        var j = entry[0];
        var tr = element("tr");
        if (cell[1] === 0) tr.className = "disagree";
        var th = element("th", null, "judge");
        th.scope = "row";
        if (refs[j]) th.appendChild(refs[j].cloneNode(true)); else th.textContent = index.judges[j];
        tr.appendChild(th);
        tr.appendChild(labelled(element("td", callText(cell[0], index)), "Call"));
        tr.appendChild(labelled(element("td", cell[1] === null ? "—" : cell[1] ? "yes" : "no"), "Agrees"));
        var notes = labelled(element("td", null, "details"), "Reasoning and details");
        (details[j] || []).forEach(function (line) {
          var box = element("div", null, "reasoning");
          box.appendChild(element("span", line[0], "key"));
          var text = textBlock(line[1], "text");
          text.tabIndex = 0;
          text.setAttribute("role", "group");
          text.setAttribute("aria-label", index.judges[j] + ": " + line[0]);
          box.appendChild(text);
          notes.appendChild(box);
        });
        if (!notes.firstChild) {
          notes.appendChild(element("span", index.withheld ? "not redistributed" : "none given", "missing"));
        }
        tr.appendChild(notes);
        body.appendChild(tr);
      });
      slot("calls-section").hidden = !body.firstChild;
      if (!body.firstChild) status("No reproduced or converted judge has a call on this item.");
      legend(index);

      var texts = slot("texts");
      index.texts.forEach(function (name, t) {
        var text = item ? item.texts[t] : "";
        var elsewhere = (index.elsewhere || [])[t];
        var empty = !text || (Array.isArray(text) && !text.length);
        if (empty && !elsewhere) return;
        var section = element("section");
        var heading = element("h2", name.replace(/_/g, " "));
        heading.id = "text-" + t;
        section.setAttribute("aria-labelledby", heading.id);
        section.appendChild(heading);
        if (empty) {
          section.appendChild(element("p", elsewhere, "elsewhere"));
        } else if (Array.isArray(text)) {
          section.appendChild(steps(text, index.first_step, heading.id));
        } else {
          var block = textBlock(text, "text");
          block.tabIndex = 0;  /* a wide formula scrolls the block sideways: keyboard users too */
          block.setAttribute("role", "group");
          block.setAttribute("aria-labelledby", heading.id);
          section.appendChild(block);
        }
        texts.appendChild(section);
      });
      document.documentElement.setAttribute("data-item", id);
    }

    /* The title: the benchmark, the item's label, and the start of its text (typeset). */
    function title(name, start) {
      var h1 = slot("title");
      h1.textContent = root.getAttribute("data-title") + ", " + name;
      if (start) {
        var quote = element("span", "“" + start + "”", "item-start");
        h1.appendChild(quote);
        window.mathjudgeMath.typeset(quote);
      }
    }

    /* A text held as a list (a solution's steps): numbered as the benchmark numbers them. */
    function steps(list, first, labelledby) {
      var box = element("ol", null, "steps text");
      box.start = first;
      box.tabIndex = 0;
      box.setAttribute("role", "group");
      box.setAttribute("aria-labelledby", labelledby);
      list.forEach(function (step, k) {
        var li = element("li");
        li.value = first + k;
        li.appendChild(textBlock(step, "step"));
        box.appendChild(li);
      });
      return box;
    }

    /* What each part of a call means, in plain words. */
    function legend(index) {
      var list = slot("legend");
      list.textContent = "";
      index.fields.forEach(function (f) {
        list.appendChild(element("dt", f.label));
        list.appendChild(element("dd", f.description || (f.gold ?
          "The judge's value beside the gold label of the same name." :
          "A value the judge's predictions hold; it is not compared with gold.")));
      });
      list.appendChild(element("dt", "Agrees"));
      list.appendChild(element("dd", "Yes when the call matches the gold label on every field compared with gold; a judge's disagreements are highlighted."));
      list.hidden = false;
    }

    function pagerLink(link, row, end) {
      if (row) {
        link.href = "item.html#" + encodeURIComponent(row[0]);
        link.removeAttribute("aria-disabled");
        link.hidden = false;
      } else {
        link.hidden = true;
      }
      link.parentNode.setAttribute("data-end", row ? "" : end);
    }

    function pair(list, key, value, strong) {
      list.appendChild(element("dt", key));
      var dd = element("dd");
      dd.appendChild(element(strong ? "strong" : "span", value));
      list.appendChild(dd);
    }

    window.addEventListener("hashchange", function () { show(); window.scrollTo(0, 0); });
    show();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var found = document.getElementById("explorer");
    if (found) explorer(found);
    var view = document.getElementById("item-view");
    if (view) itemView(view);
  });
})();
