/* mathjudge leaderboard: the item pages. Item data lives once per benchmark in script files
   under data/items/<benchmark>/ (index.js, calls-K.js, text-K.js), loaded on demand with
   <script> elements so that file:// works. Each file calls mathjudgeData(name, payload).

   - The explorer (items/<benchmark>/index.html) lists every item as HTML; this script adds the
     filters: scope columns, one judge's calls, "only where the judge disagrees with gold".
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

  function fragment() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (e) { return null; }
  }

  function chunksOf(index) {
    var n = Math.ceil(index.items.length / index.calls_chunk);
    var out = [];
    for (var k = 0; k < Math.max(n, 1); k++) out.push("calls-" + k);
    return out;
  }

  /* A judge's calls: item position -> {text, agrees (1, 0 or null)}. */
  function callsOf(judge, blocks, index) {
    var out = {};
    blocks.forEach(function (block) {
      block.judges.forEach(function (entry) {
        if (entry[0] !== judge) return;
        entry[1].forEach(function (cell, offset) {
          if (cell) out[block.start + offset] = { text: callText(cell[0], block, index), agrees: cell[1] };
        });
      });
    });
    return out;
  }

  function callText(codes, block, index) {
    return codes.map(function (code, f) {
      if (code < 0) return null;
      var text = block.values[f][code];
      return index.fields.length > 1 ? index.fields[f].label + ": " + text : text;
    }).filter(function (t) { return t !== null; }).join("; ");
  }

  /* --- The explorer -------------------------------------------------------------------------- */

  function explorer(root) {
    var base = root.getAttribute("data-base");
    var bench = root.getAttribute("data-bench");
    var form = root.querySelector("[data-item-filters]");
    var rows = all(root, "#items tbody tr");
    var count = root.querySelector("[data-count]");
    var judgeCells = all(root, "[data-judge-col]");
    var facets = all(form, "select[data-facet]");
    var judge = form.querySelector("select[name=judge]");
    var disagree = form.querySelector("input[name=disagree]");
    var search = form.querySelector("input[name=q]");
    var label = form.querySelector("[data-filter-state]");
    var calls = null;  /* of the chosen judge */
    var chosen = "";

    function fromHash() {
      var text = fragment() || "";
      text.split("&").forEach(function (part) {
        var kv = part.split("=");
        if (kv[0] === "judge" && judge && all(judge, "option").some(function (o) { return o.value === kv[1]; })) judge.value = kv[1];
        if (kv[0] === "disagree" && disagree) disagree.checked = kv[1] === "1";
      });
    }

    function keepHash() {
      var parts = [];
      if (judge && judge.value) parts.push("judge=" + judge.value);
      if (disagree && disagree.checked) parts.push("disagree=1");
      history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname + location.search);
    }

    function withCalls(value) {
      if (!value) return Promise.resolve(null);
      return load(base, bench, "index").then(function (index) {
        return Promise.all(chunksOf(index).map(function (c) { return load(base, bench, c); }))
          .then(function (blocks) { return callsOf(Number(value), blocks, index); });
      });
    }

    function apply() {
      var needle = search ? search.value.trim().toLowerCase() : "";
      var only = disagree && disagree.checked;
      var shown = 0;
      rows.forEach(function (row) {
        var i = Number(row.getAttribute("data-i"));
        var call = calls ? calls[i] : null;
        var ok = facets.every(function (s) {
          return !s.value || row.getAttribute("data-f" + s.getAttribute("data-facet")) === s.value;
        });
        ok = ok && (!needle || row.cells[0].textContent.toLowerCase().indexOf(needle) !== -1);
        if (only) ok = ok && (calls ? !!call && call.agrees === 0 : row.getAttribute("data-wrong") === "1");
        if (calls && !only) ok = ok && !!call;
        row.hidden = !ok;
        if (ok) shown += 1;
        var cell = row.querySelector("td[data-judge-col]");
        if (cell) {
          cell.textContent = call ? call.text + (call.agrees === 0 ? " (disagrees)" : "") : "";
          row.classList.toggle("disagree", !!call && call.agrees === 0);
        }
      });
      judgeCells.forEach(function (c) { c.hidden = !calls; });
      count.textContent = shown + " of " + rows.length + " items shown" +
        (calls ? ", with the calls of " + judge.options[judge.selectedIndex].text : "");
      if (label) {
        var parts = facets.filter(function (s) { return s.value; }).map(function (s) { return s.value; });
        if (calls) parts.push(judge.options[judge.selectedIndex].text);
        if (only) parts.push("disagreements");
        if (needle) parts.push("“" + needle + "”");
        label.textContent = parts.length ? "(" + parts.join("; ") + ")" : "";
      }
      keepHash();
    }

    function changed() {
      var want = judge ? judge.value : "";
      if (want === chosen) { apply(); return; }
      chosen = want;
      count.textContent = want ? "Loading the judge's calls…" : count.textContent;
      withCalls(want).then(function (found) {
        if (want !== chosen) return;
        calls = found;
        apply();
      }, function (error) {
        count.textContent = "Could not load the judge's calls (" + error.message + ").";
      });
    }

    fromHash();
    form.hidden = false;
    form.addEventListener("change", changed);
    form.addEventListener("input", apply);
    changed();
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
      document.title = id + " · " + document.title.split(" · ").slice(-2).join(" · ");
      slot("title").textContent = id;
      status("");
      var previous = index.items[at - 1];
      var following = index.items[at + 1];
      pagerLink(slot("previous"), previous, "first item");
      pagerLink(slot("next"), following, "last item");
      slot("pager").hidden = false;

      var facts = slot("facts");
      facts.textContent = "";
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
        tr.appendChild(element("td", callText(cell[0], block, index)));
        tr.appendChild(element("td", cell[1] === null ? "—" : cell[1] ? "yes" : "no"));
        var notes = element("td", null, "details");
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
      if (!body.firstChild) status("No reproduced judge has a call on this item.");

      var texts = slot("texts");
      index.texts.forEach(function (name, t) {
        var text = item ? item.texts[t] : "";
        if (!text) return;
        var section = element("section");
        var heading = element("h2", name.replace(/_/g, " "));
        heading.id = "text-" + t;
        section.setAttribute("aria-labelledby", heading.id);
        section.appendChild(heading);
        var block = textBlock(text, "text");
        block.tabIndex = 0;  /* a wide formula scrolls the block sideways: keyboard users too */
        block.setAttribute("role", "group");
        block.setAttribute("aria-labelledby", heading.id);
        section.appendChild(block);
        texts.appendChild(section);
      });
      document.documentElement.setAttribute("data-item", id);
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
