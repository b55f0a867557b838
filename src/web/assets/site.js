// goswiss pages: live updates, director actions and the game viewer. Plain JavaScript, no
// framework, nothing loaded from elsewhere.
(function () {
  "use strict";
  var body = document.body;
  var tid = body.getAttribute("data-tid");
  var text = {};
  try { text = JSON.parse(body.getAttribute("data-text") || "{}"); } catch (e) { text = {}; }
  var status = document.getElementById("status");
  var fragment = document.getElementById("fragment");

  // The director's token, when director mode is on, as an Authorization header.
  function authHeaders(h) {
    var token = null;
    try {
      if (sessionStorage.getItem("goswiss-director-" + tid) === "1") token = sessionStorage.getItem("goswiss-token-" + tid);
    } catch (e) { token = null; }
    if (token) h["Authorization"] = "Bearer " + token;
    return h;
  }

  function say(msg, isError) {
    if (!status) return;
    status.textContent = msg;
    status.classList.toggle("error", !!isError);
  }

  // ---- live updates: re-fetch the main fragment when the tournament changes ----------------
  var fetching = false, again = false;
  function fragmentUrl() {
    var u = new URL(window.location.href);
    u.searchParams.set("fragment", "1");
    return u.pathname + u.search;
  }
  function busy() {
    // Do not pull a select from under a director who is choosing a result.
    var a = document.activeElement;
    return a && fragment && fragment.contains(a) && (a.tagName === "SELECT" || a.tagName === "INPUT");
  }
  function refresh() {
    // desk-setup: a form that its own script holds (the set-up form) is never swapped out.
    if (!fragment || fragment.querySelector("[data-keep]")) return;
    if (fetching || busy()) { again = true; return; }
    fetching = true;
    // Screen readers (and tests) learn that the region is about to change.
    fragment.setAttribute("aria-busy", "true");
    // A director's token goes along: with auth on, only the director sees rounds that are
    // not published yet.
    fetch(fragmentUrl(), { headers: authHeaders({ "Accept": "text/html" }), cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html !== null) {
          fragment.innerHTML = html;
          body.setAttribute("data-revision", String((+body.getAttribute("data-revision") || 0) + 1));
          setupGame();
        }
      })
      .catch(function () {})
      .then(function () {
        fetching = false;
        fragment.removeAttribute("aria-busy");
        if (again) { again = false; refresh(); }
      });
  }
  if (fragment) {
    fragment.addEventListener("focusout", function () { if (again && !fetching) { again = false; setTimeout(refresh, 0); } });
  }
  var live = body.getAttribute("data-live");
  var es = null;
  function openLive() {
    es = new EventSource(live);
    // The state is on the body for tests and for styling ("live" vs reconnecting).
    es.addEventListener("open", function () { body.setAttribute("data-live-state", "open"); });
    es.addEventListener("error", function () { body.setAttribute("data-live-state", "reconnecting"); });
    es.addEventListener("change", refresh);
    es.addEventListener("deleted", function () { es.close(); });
  }
  if (live && window.EventSource) {
    openLive();
    // A page left for another (and perhaps kept in the back/forward cache) closes its
    // stream: an open one holds one of the browser's few connections to this host (six
    // over HTTP/1.1), and a few left open stall every later request to the daemon.
    window.addEventListener("pagehide", function () {
      if (es) { es.close(); es = null; }
      body.setAttribute("data-live-state", "closed");
    });
    window.addEventListener("pageshow", function (ev) {
      if (ev.persisted && !es) { openLive(); refresh(); }
    });
  }

  // ---- director mode ------------------------------------------------------------------------
  var tokenKey = "goswiss-token-" + tid, modeKey = "goswiss-director-" + tid;
  var toggle = document.getElementById("director-toggle");
  var form = document.getElementById("director-form");
  function setDirector(on) {
    body.classList.toggle("director", on);
    if (toggle) {
      toggle.setAttribute("aria-pressed", on ? "true" : "false");
      toggle.textContent = on ? text.director_off : text.director_mode;
    }
  }
  function store(key, value) {
    try { if (value === null) sessionStorage.removeItem(key); else sessionStorage.setItem(key, value); } catch (e) {}
  }
  function stored(key) {
    try { return sessionStorage.getItem(key); } catch (e) { return null; }
  }
  if (tid) setDirector(stored(modeKey) === "1");
  // The page was rendered for the public: fetch the director's view at once.
  if (tid && stored(modeKey) === "1" && stored(tokenKey)) refresh();
  if (toggle && form) {
    toggle.addEventListener("click", function () {
      if (body.classList.contains("director")) {
        store(modeKey, null); store(tokenKey, null); setDirector(false);
        refresh();
      } else {
        form.hidden = false;
        var input = document.getElementById("director-token");
        if (input) input.focus();
      }
    });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var input = document.getElementById("director-token");
      var token = input ? input.value.trim() : "";
      var headers = { "Accept": "application/json" };
      if (token) headers["Authorization"] = "Bearer " + token;
      say(text.working);
      // The daemon says whether the token opens this tournament before the mode is entered:
      // a wrong token is refused here, with nothing stored.
      fetch("/t/" + tid + "/director", { headers: headers, cache: "no-store" })
        .then(function (r) {
          if (!r.ok) throw new Error(String(r.status));
          return r.json();
        })
        .then(function (j) {
          if (input) input.value = "";
          if (!j.director) {
            say(token ? text.bad_token : text.token_needed, true);
            if (input) input.focus();
            return;
          }
          store(tokenKey, token ? token : null);
          store(modeKey, "1");
          form.hidden = true;
          setDirector(true);
          say(text.director_on);
          refresh();
        }, function (err) {
          say(text.error + " " + err.message, true);
        });
    });
    var cancel = document.getElementById("director-cancel");
    if (cancel) cancel.addEventListener("click", function () { form.hidden = true; toggle.focus(); });
  }

  // Every action is a JSON-RPC 2.0 call to the daemon's own endpoint, like any client's.
  var seq = 0;
  function rpc(method, params) {
    var headers = authHeaders({ "Content-Type": "application/json", "Accept": "application/json" });
    seq += 1;
    return fetch("/jsonrpc", {
      method: "POST",
      headers: headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: seq, method: method, params: params })
    }).then(function (r) {
      return r.text().then(function (t) {
        var j = null;
        try { j = JSON.parse(t); } catch (e) { throw new Error(r.status + " " + t.trim()); }
        if (j.error) throw new Error(j.error.message + " (" + j.error.code + ")");
        return j.result;
      });
    });
  }
  function act(method, params) {
    say(text.working);
    return rpc(method, params).then(function (result) {
      var warnings = result && result.warnings && result.warnings.length ? " " + result.warnings.join("; ") : "";
      say(text.saved + warnings);
      refresh();
    }, function (err) {
      say(text.error + " " + err.message, true);
    });
  }
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest ? ev.target.closest("button.act") : null;
    if (!b) return;
    var params = [];
    try { params = JSON.parse(b.getAttribute("data-params") || "[]"); } catch (e) {}
    act(b.getAttribute("data-method"), params);
  });
  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (!f.classList || !f.classList.contains("act-form")) return;
    ev.preventDefault();
    var params = [];
    try { params = JSON.parse(f.getAttribute("data-params") || "[]"); } catch (e) {}
    f.querySelectorAll("[data-param]").forEach(function (el) { params.push(el.value); });
    act(f.getAttribute("data-method"), params);
  });

  // ---- game viewer --------------------------------------------------------------------------
  function setupGame() {
    var fig = document.getElementById("game");
    if (!fig || fig.getAttribute("data-ready")) return;
    fig.setAttribute("data-ready", "1");
    var steps = [];
    try { steps = JSON.parse(fig.getAttribute("data-steps") || "[]"); } catch (e) { return; }
    var width = +fig.getAttribute("data-width");
    var svg = document.getElementById("board");
    var stones = svg.querySelectorAll("circle.s");
    var marker = document.getElementById("lm");
    var out = document.getElementById("move-no");
    var n = steps.length, cur = n;
    function paint(i, v) {
      var s = stones[i];
      if (s) s.setAttribute("class", "s s" + v);
    }
    function show() {
      svg.classList.toggle("at-end", cur === n);
      var m = cur > 0 ? steps[cur - 1].m : null;
      if (m === null || m === undefined) {
        marker.classList.add("hidden");
      } else {
        marker.classList.remove("hidden");
        marker.setAttribute("cx", String(m % width));
        marker.setAttribute("cy", String(Math.floor(m / width)));
      }
      out.textContent = text.move + " " + cur + " / " + n;
    }
    var deadMarks = [];
    stones.forEach(function (s, i) { if (s.classList.contains("dead")) deadMarks.push(i); });
    function go(to) {
      to = Math.max(0, Math.min(n, to));
      while (cur > to) {
        var back = steps[cur - 1].c;
        for (var k = back.length - 1; k >= 0; k--) paint(back[k][0], back[k][1]);
        cur -= 1;
      }
      while (cur < to) {
        var fwd = steps[cur].c;
        for (var j = 0; j < fwd.length; j++) paint(fwd[j][0], fwd[j][2]);
        cur += 1;
      }
      if (cur === n) deadMarks.forEach(function (i) { stones[i].classList.add("dead"); });
      show();
    }
    fig.querySelectorAll("button[data-go]").forEach(function (b) {
      b.addEventListener("click", function () {
        var g = b.getAttribute("data-go");
        go(g === "first" ? 0 : g === "prev" ? cur - 1 : g === "next" ? cur + 1 : n);
      });
    });
    keys = function (key) {
      if (key === "ArrowLeft") go(cur - 1);
      else if (key === "ArrowRight") go(cur + 1);
      else if (key === "Home") go(0);
      else if (key === "End") go(n);
      else return false;
      return true;
    };
    show();
  }
  // One keyboard handler for whichever board is on the page (a refresh replaces the board).
  var keys = null;
  document.addEventListener("keydown", function (ev) {
    var tag = ev.target && ev.target.tagName;
    if (!keys || tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (keys(ev.key)) ev.preventDefault();
  });
  setupGame();
  body.setAttribute("data-js", "ready");
})();
