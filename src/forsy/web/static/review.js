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
  function focus(id) { var e = document.getElementById(id); if (e) { e.focus(); return true; } return false; }
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) {
      if (ev.key === "Escape") t.blur();
      return;
    }
    var k = ev.key, done = false;
    if (k === "j") done = go("next") || (select(sel + 1), true);
    else if (k === "k") done = go("prev") || (select(sel - 1), true);
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
