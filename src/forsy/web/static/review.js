// Keyboard shortcuts of the review pages. No framework, no build step; nothing here reads
// log text (the server escapes it into the page, and the CSP forbids inline scripts).
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.row"));
  var sel = -1;
  function select(i) {
    if (!rows.length) return;
    if (sel >= 0) rows[sel].classList.remove("selected");
    sel = Math.max(0, Math.min(rows.length - 1, i));
    rows[sel].classList.add("selected");
    rows[sel].scrollIntoView({ block: "nearest" });
  }
  function go(id) { var a = document.getElementById(id); if (a) { window.location.href = a.href; return true; } return false; }
  // the draft page: the steps of the conversation, in order; j/k move between them, n/N between
  // the ones that ask for a look (failed, rejected, abandoned, changed by the user). Where a
  // step is is read from the page as scrolled, so moving on after scrolling by hand starts there.
  var turns = Array.prototype.slice.call(document.querySelectorAll("article.turn"));
  var at = -1;
  function flagged(t) { return t.classList.contains("failed") || /(^| )m-/.test(t.className); }
  function any() { return true; }
  function seen(i) { var r = turns[i].getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight; }
  function jump(dir, pick) {
    var i, top, found = -1, from = at >= 0 && seen(at) ? at : -1;
    for (i = dir > 0 ? 0 : turns.length - 1; i >= 0 && i < turns.length && found < 0; i += dir) {
      top = turns[i].getBoundingClientRect().top;
      // after the selected step while it is in view; else after (before) the top of the window
      var ahead = from >= 0 ? (dir > 0 ? i > from : i < from) : (dir > 0 ? top > 8 : top < -8);
      if (ahead && pick(turns[i])) found = i;
    }
    if (found < 0) return false;
    if (at >= 0) turns[at].classList.remove("selected");
    at = found;
    turns[at].classList.add("selected");
    turns[at].scrollIntoView({ block: "start" });
    return true;
  }
  function open() {
    var a = at >= 0 ? turns[at].querySelector("a.stepno") : null;
    if (a) { window.location.href = a.href; return true; }
    return false;
  }
  // What a person types is theirs until it is saved: kept in this tab as they type (with the
  // version of the page they typed on, so a save still meets another reviewer's change of the
  // same field as a conflict), put back when the page is loaded again (another box's save
  // reloads it; j/k move away). Sending its form does not let it go: a save that did not go
  // through (the server restarted and asked for its link again, the store was down) would lose
  // it. It is let go once a page shows the draft at a later version than it was sent from.
  var kept = null;
  try { kept = window.sessionStorage; } catch (e) { kept = null; }
  if (kept) {
    Array.prototype.forEach.call(document.querySelectorAll("form[method=post] textarea:not([readonly])"), function (box) {
      var f = box.form, v = f.elements.version;
      var key = "forsy-typed|" + location.pathname + "|" + f.getAttribute("action") + "|" + ["step", "field"].map(
        function (n) { return f.elements[n] ? f.elements[n].value : ""; }).join("|") + "|" + box.name;
      var was = null;
      try { was = JSON.parse(kept.getItem(key) || "null"); } catch (e) { was = null; }
      if (was && was.sent && v && v.value !== was.version) { kept.removeItem(key); was = null; }
      if (was && typeof was.text === "string" && was.text !== box.value) {
        box.value = was.text;
        if (v && was.version) v.value = was.version;
        var d = box.closest("details");
        if (d) d.open = true;
        var note = document.createElement("p");
        note.className = "hint restored";
        note.textContent = was.sent ? "what you typed here before: its save did not go through"
                                    : "what you typed here before, not saved yet";
        box.parentNode.insertBefore(note, box.nextSibling);
      }
      var at = v ? v.value : "";
      box.addEventListener("input", function () {
        if (box.value === box.defaultValue) kept.removeItem(key);
        else kept.setItem(key, JSON.stringify({ text: box.value, version: at }));
      });
      f.addEventListener("submit", function () {
        if (box.value !== box.defaultValue) kept.setItem(key, JSON.stringify({ text: box.value, version: at, sent: true }));
      });
    });
  }
  function focus(id) { var e = document.getElementById(id); if (e) { e.focus(); return true; } return false; }
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) {
      if (ev.key === "Escape") t.blur();
      return;
    }
    var k = ev.key, done = false;
    // j/k: the steps of a draft, else the rows of a list (the queue's drafts), else the next and
    // previous step pages (a step page); a queue's own "next" page link is not a row
    if (k === "j") done = turns.length ? (jump(1, any), true) : rows.length ? (select(sel + 1), true) : go("next");
    else if (k === "k") done = turns.length ? (jump(-1, any), true) : rows.length ? (select(sel - 1), true) : go("prev");
    else if (k === "n" && turns.length) done = (jump(1, flagged), true);
    else if (k === "N" && turns.length) done = (jump(-1, flagged), true);
    else if (k === "Enter" && turns.length && at >= 0 && t === document.body) done = open();
    else if (k === "Enter" && sel >= 0) { window.location.href = rows[sel].getAttribute("data-href"); done = true; }
    else if (k === "a") done = focus("level");
    else if (k === "r") done = focus("reason");
    else if (k === "/") done = focus("filter-text");
    else if (k === "u") done = go("up") || go("home");
    else if (k === "e") {
      var d = document.querySelector("details.edit");
      if (d) { d.open = true; d.querySelector("textarea").focus(); done = true; }
    }
    if (done) ev.preventDefault();
  });
})();
