// goswiss pairing-edit screen (desk-edit2): swap two players, change colours, handicap or table
// numbers, unpair a game, pair two unpaired players, publish. Every edit is a JSON-RPC call to
// the daemon's existing tournament.round.* methods with the director's token and the revision
// the screen shows (if_revision): a change made meanwhile by someone else is refused, not
// overwritten, and the screen re-reads the round. The warnings come rendered from the daemon;
// nothing here judges a pairing. Handlers are delegated on the document, so they survive the
// fragment being replaced.
(function () {
  "use strict";
  var body = document.body;
  var tid = body.getAttribute("data-tid");
  if (!tid) return;
  var fragment = document.getElementById("fragment");

  function $(id) { return document.getElementById(id); }
  function edit() { return $("edit"); }
  function text() {
    var el = edit();
    try { return JSON.parse(el ? el.getAttribute("data-edit-text") : "{}") || {}; } catch (e) { return {}; }
  }
  function data(name, fallback) {
    var el = edit();
    try { return JSON.parse(el.getAttribute(name)); } catch (e) { return fallback; }
  }
  function token() {
    try {
      if (sessionStorage.getItem("goswiss-director-" + tid) === "1") return sessionStorage.getItem("goswiss-token-" + tid);
    } catch (e) {}
    return null;
  }
  function headers(h) {
    var tk = token();
    if (tk) h["Authorization"] = "Bearer " + tk;
    return h;
  }
  var seq = 0;
  function rpc(method, params) {
    seq += 1;
    return fetch("/jsonrpc", {
      method: "POST",
      headers: headers({ "Content-Type": "application/json", "Accept": "application/json" }),
      body: JSON.stringify({ jsonrpc: "2.0", id: seq, method: method, params: params })
    }).then(function (r) {
      return r.text().then(function (t) {
        var j = null;
        try { j = JSON.parse(t); } catch (e) { throw new Error(r.status + " " + t.trim()); }
        if (j.error) {
          var err = new Error(j.error.message + " (" + j.error.code + ")");
          err.code = j.error.code;
          throw err;
        }
        return j.result;
      });
    });
  }

  // ---- the screen's state ------------------------------------------------------------------------
  // `editing`: an edit is with the daemon (no second one starts); `reads`: re-reads under way,
  // of which only the latest started is shown (an older one would show an older round).
  // #fragment is aria-busy while either lasts.
  var editing = false, reads = 0, gen = 0, again = false;
  function updateBusy() {
    if (!fragment) return;
    if (editing || reads > 0) fragment.setAttribute("aria-busy", "true");
    else fragment.removeAttribute("aria-busy");
  }
  function say(msg, isError) {
    var m = $("edit-msg");
    if (!m) return;
    m.textContent = msg;
    m.classList.toggle("error", !!isError);
  }
  // An input the director is typing in: a live change waits until it is left.
  function typing() {
    var a = document.activeElement;
    return !!a && a.tagName === "INPUT" && !!edit() && edit().contains(a) && a.value !== a.defaultValue;
  }
  // Re-reads the screen; `keep.errors`: [element id, message] to show again. What was focused
  // and picked, and the last message, stay.
  function reload(keep) {
    if (!fragment) return Promise.resolve();
    var mine = ++gen;
    reads += 1;
    updateBusy();
    var u = new URL(window.location.href);
    u.searchParams.set("fragment", "1");
    return fetch(u.pathname + u.search, { headers: headers({ "Accept": "text/html" }), cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null || mine !== gen) return;
        // Never pull a field from under the director's fingers: once it is left, read again.
        if (typing() && !keep) { again = true; return; }
        var focused = document.activeElement && document.activeElement.id;
        var msg = $("edit-msg"), said = msg ? msg.textContent : "", saidError = msg ? msg.classList.contains("error") : false;
        fragment.innerHTML = html;
        if (said) say(said, saidError);
        if (keep && keep.errors) keep.errors.forEach(function (e) { var el = $(e[0]); if (el) el.textContent = e[1]; });
        if (picked && !$("pick-" + picked)) picked = null;
        showPick();
        var f = focused ? $(focused) : null;
        if (f && f.focus) f.focus();
        body.setAttribute("data-edit-revision", String((+body.getAttribute("data-edit-revision") || 0) + 1));
      })
      .catch(function () {})
      .then(function () {
        reads -= 1;
        updateBusy();
        if (again && !editing && reads === 0 && !typing()) { again = false; liveChange(); }
      });
  }
  function liveChange() {
    if (editing || typing()) { again = true; return; }
    reload(null);
  }
  if (/^\/t\/\d+\/round\/\d+\/edit$/.test(window.location.pathname) && window.EventSource) {
    // Other directors' edits (and this page's own) show without a reload.
    var es = new EventSource("/t/" + tid + "/live");
    es.addEventListener("open", function () { body.setAttribute("data-edit-live", "open"); });
    es.addEventListener("change", liveChange);
    window.addEventListener("pagehide", function () { es.close(); });
  }
  document.addEventListener("focusout", function () {
    if (again && !editing) { again = false; setTimeout(liveChange, 0); }
  });

  // One edit: the call with the screen's revision (and `extra` options); its error next to
  // `errId`, then re-read.
  function act(method, params, errId, done, extra) {
    if (editing) return;
    var t = text();
    var el = edit();
    if (!el) return;
    var opts = { if_revision: +el.getAttribute("data-revision") };
    Object.keys(extra || {}).forEach(function (k) { opts[k] = extra[k]; });
    params.push(opts);
    clearErrors();
    say(t.working);
    editing = true;
    updateBusy();
    return rpc(method, params).then(function (res) {
      picked = null;
      say(done(res));
      return null;
    }, function (err) {
      // 1002: the round changed since the screen was read; show it as it is now.
      var m = t.error + " " + err.message;
      if (err.code === 1002) m = t.stale + " (" + err.message + ")";
      say(m, true);
      return { errors: [[errId, m]] };
    }).then(function (keep) {
      var read = reload(keep || { errors: [] });
      editing = false;
      updateBusy();
      return read;
    });
  }
  function clearErrors() {
    document.querySelectorAll("#edit .field-error").forEach(function (e) { e.textContent = ""; });
    document.querySelectorAll("#edit [aria-invalid]").forEach(function (e) { e.removeAttribute("aria-invalid"); });
  }
  function round() { return +edit().getAttribute("data-round"); }
  function nameOf(pid) {
    var b = $("pick-" + pid);
    var w = b ? b.querySelector(".who") : null;
    return w ? w.textContent : "#" + pid;
  }
  // Where a player sits: the game's table, "byes", or "unpaired".
  function seatOf(pid) {
    var b = $("pick-" + pid);
    if (!b) return null;
    var tr = b.closest("tr[data-table]");
    if (tr) return tr.getAttribute("data-table");
    return b.closest("#edit-byes") ? "byes" : "unpaired";
  }
  function errFor(seat) {
    return seat === "byes" ? "err-byes" : seat === "unpaired" ? "err-unpaired" : "err-game-" + seat;
  }

  // ---- pick two players --------------------------------------------------------------------------
  var picked = null;
  function showPick() {
    document.querySelectorAll("#edit button.pick").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-pid") === picked ? "true" : "false");
    });
  }
  function pick(b) {
    var t = text();
    var pid = b.getAttribute("data-pid");
    if (picked === null) {
      picked = pid;
      showPick();
      clearErrors();
      say(t.picked + " " + nameOf(pid));
      return;
    }
    if (picked === pid) { cancelPick(); return; }
    var a = picked, sa = seatOf(a), sb = seatOf(pid);
    var who = nameOf(a) + " ⇄ " + nameOf(pid);
    if (sa === "unpaired" && sb === "unpaired") {
      pairTwo(+a, +pid);
      return;
    }
    act("tournament.round.swap", [+tid, round(), +a, +pid], errFor(sb), function () { return t.swapped + " " + who; });
  }
  function cancelPick() {
    if (picked === null) return;
    picked = null;
    showPick();
    say(text().cancelled);
  }
  // The two as the pairing would seat them (colours, handicap: tournament.round.explain's
  // board); as picked when it cannot say.
  function pairTwo(a, b) {
    var t = text();
    if (editing) return;
    var r = round();
    editing = true;
    updateBusy();
    rpc("tournament.round.explain", [+tid, r, a, b]).then(function (res) {
      var bd = res && res.board;
      return bd && bd.white && bd.black ? { white: bd.white, black: bd.black } : { white: a, black: b };
    }, function () { return { white: a, black: b }; }).then(function (game) {
      editing = false;
      act("tournament.round.add_game", [+tid, r, game], "err-unpaired", function (res) {
        var g = res && res.game ? res.game : {};
        return t.paired + " " + nameOf(game.white) + " – " + nameOf(game.black) + (g.table ? " (" + g.table + ")" : "");
      });
    });
  }

  // ---- table numbers and handicaps: the whole round through set_games -----------------------------
  // The round's games as the screen shows them, with one game changed: a table number taken by
  // another game trades places with it; a new handicap lets the daemon choose the komi for it.
  function setGame(table, change, errId, done) {
    var games = data("data-games", []);
    var byes = data("data-byes", []);
    var g = games.filter(function (x) { return String(x.table) === String(table); })[0];
    if (!g) return;
    if (change.table !== undefined) {
      var other = games.filter(function (x) { return x.table === change.table && x !== g; })[0];
      if (other) other.table = g.table;
      g.table = change.table;
    }
    if (change.handicap !== undefined && change.handicap !== g.handicap) {
      g.handicap = change.handicap;
      delete g.komi2;
    }
    act("tournament.round.set_games", [+tid, round(), games], errId, done, { byes: byes });
  }
  function commitField(input) {
    var t = text();
    var table = input.getAttribute("data-table");
    var raw = input.value.trim();
    // Unchanged, or emptied on the way to a new value: nothing to send yet.
    if (raw === input.defaultValue || raw === "") return;
    var isTable = input.classList.contains("e-table");
    var errId = (isTable ? "err-tbl-" : "err-hcp-") + table;
    // A whole number goes as one; anything else is refused here, next to the field.
    if (!/^\d{1,6}$/.test(raw)) {
      $(errId).textContent = t.not_number;
      input.setAttribute("aria-invalid", "true");
      return;
    }
    var n = parseInt(raw, 10);
    if (isTable) {
      setGame(table, { table: n }, errId, function () { return t.table + " " + table + " → " + n; });
    } else {
      setGame(table, { handicap: n }, errId, function () { return t.handicap + " " + table + ": " + n; });
    }
  }
  // ---- events ----------------------------------------------------------------------------------
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest ? ev.target.closest("#edit button") : null;
    if (!b || editing) return;
    var t = text();
    if (b.classList.contains("pick")) { pick(b); return; }
    var table = b.getAttribute("data-table");
    if (b.classList.contains("e-colours")) {
      var tr = b.closest("tr[data-table]");
      var ps = tr.querySelectorAll("button.pick");
      if (ps.length === 2) {
        act("tournament.round.swap", [+tid, round(), +ps[0].getAttribute("data-pid"), +ps[1].getAttribute("data-pid")],
          "err-game-" + table, function () { return t.colours + " " + table; });
      }
    } else if (b.classList.contains("e-unpair")) {
      act("tournament.round.remove_game", [+tid, round(), +table], "err-game-" + table, function () { return t.unpaired + " " + table; });
    } else if (b.id === "edit-publish") {
      act("tournament.round.publish", [+tid, round()], "err-publish", function () { return t.published; });
    }
  });
  document.addEventListener("keydown", function (ev) {
    if (!edit()) return;
    var el = ev.target;
    if (ev.key === "Escape" && picked !== null) { ev.preventDefault(); cancelPick(); return; }
    if (ev.key === "Enter" && el.tagName === "INPUT" && (el.classList.contains("e-table") || el.classList.contains("e-hcp"))) {
      ev.preventDefault();
      if (!editing) commitField(el);
    } else if (ev.key === "Escape" && el.tagName === "INPUT" && edit().contains(el)) {
      el.value = el.defaultValue;
    }
  });
  document.addEventListener("change", function (ev) {
    var el = ev.target;
    if (el.tagName === "INPUT" && (el.classList.contains("e-table") || el.classList.contains("e-hcp")) && !editing) commitField(el);
  });
  body.setAttribute("data-edit-js", "ready");
})();
