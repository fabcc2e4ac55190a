// planq ui: live updates and on-demand loading. No inline script (the
// Content-Security-Policy forbids it), no dependencies.
(function () {
  "use strict";

  function fragmentURL(href) {
    var u = new URL(href, location.href);
    u.searchParams.set("fragment", "1");
    return u.toString();
  }

  // Load a change's diff when asked.
  function load(el, url) {
    if (el.dataset.loaded) return;
    el.dataset.loaded = "1";
    fetch(url, { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) { el.innerHTML = html; })
      .catch(function () { el.textContent = "failed to load"; delete el.dataset.loaded; });
  }

  function wire(root) {
    root.querySelectorAll("details[data-diff]").forEach(function (d) {
      d.addEventListener("toggle", function () {
        if (d.open) load(d.querySelector(".diffbody"), "/change/diff?rev=" + encodeURIComponent(d.dataset.diff));
      });
    });
  }

  var main = document.getElementById("content");
  var dot = document.getElementById("live");
  if (!main) return;
  wire(main);

  // Live updates: the server says what moved (jj, state); a page that
  // shows it re-fetches its content and keeps the open parts open.
  var wants = (main.dataset.live || "").split(" ").filter(Boolean);
  var busy = false, again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    var open = [];
    main.querySelectorAll("details[open][data-key]").forEach(function (d) { open.push(d.dataset.key); });
    fetch(fragmentURL(location.href), { credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (html) {
        main.innerHTML = html;
        open.forEach(function (k) {
          var d = main.querySelector('details[data-key="' + CSS.escape(k) + '"]');
          if (d) d.open = true;
        });
        wire(main);
        main.dataset.updated = String(Date.now());
        if (dot) { dot.classList.add("flash"); setTimeout(function () { dot.classList.remove("flash"); }, 600); }
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  if (wants.length && window.EventSource) {
    var es = new EventSource("/events");
    es.onopen = function () { if (dot) { dot.classList.add("on"); dot.title = "live updates on"; } document.body.dataset.live = "on"; };
    es.onerror = function () { if (dot) { dot.classList.remove("on"); dot.title = "live updates paused"; } };
    wants.forEach(function (name) { es.addEventListener(name, refresh); });
  }
})();
