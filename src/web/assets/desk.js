// goswiss director's desk: registration (with rating-list search), check-in and quick results
// by table number. Every action is a JSON-RPC call to the daemon's existing tournament.*
// methods with the director's token; the daemon checks every field and its message is shown
// next to the field. Handlers are delegated on the document, so they survive the page script
// replacing the fragment.
(function () {
  "use strict";
  var body = document.body;
  var tid = body.getAttribute("data-tid");
  if (!tid) return;

  function text() {
    var el = document.querySelector("[data-desk-text]");
    try { return JSON.parse(el ? el.getAttribute("data-desk-text") : "{}"); } catch (e) { return {}; }
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
        if (j.error) throw new Error(j.error.message + " (" + j.error.code + ")");
        return j.result;
      });
    });
  }
  function say(el, msg, isError) {
    if (!el) return;
    el.textContent = msg;
    el.classList.toggle("error", !!isError);
  }
  function $(id) { return document.getElementById(id); }

  // ---- partial refresh: the lists change, the form being typed in stays ------------------
  var refreshing = null, refreshAgain = false;
  function refreshLists() {
    if (!$("desk")) return Promise.resolve();
    // A change while a read is under way: read once more after it, or the lists would
    // keep the state from before that change.
    if (refreshing) { refreshAgain = true; return refreshing; }
    var u = new URL(window.location.href);
    u.searchParams.set("fragment", "1");
    refreshing = fetch(u.pathname + u.search, { headers: headers({ "Accept": "text/html" }), cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString("<div>" + html + "</div>", "text/html");
        var filter = $("checkin-filter");
        var filterValue = filter ? filter.value : "";
        var filterFocused = filter && document.activeElement === filter;
        var active = filter ? filter.getAttribute("aria-activedescendant") : null;
        ["desk-late", "checkin", "desk-players"].forEach(function (id) {
          var fresh = doc.getElementById(id), old = $(id);
          if (fresh && old) old.replaceWith(document.importNode(fresh, true));
        });
        var f2 = $("checkin-filter");
        if (f2) {
          f2.value = filterValue;
          applyFilter(active);
          if (filterFocused) f2.focus();
        }
        body.setAttribute("data-desk-revision", String((+body.getAttribute("data-desk-revision") || 0) + 1));
      })
      .catch(function () {})
      .then(function () {
        refreshing = null;
        if (refreshAgain) { refreshAgain = false; refreshLists(); }
      });
    return refreshing;
  }
  if (/^\/t\/\d+\/desk$/.test(window.location.pathname) && window.EventSource) {
    // Other directors' changes (and this page's) show in the lists without a reload.
    var es = new EventSource("/t/" + tid + "/live");
    es.addEventListener("change", function () { refreshLists(); });
    window.addEventListener("pagehide", function () { es.close(); });
  }

  // ---- registration form ------------------------------------------------------------------
  var FIELDS = ["name", "first_name", "rank", "rating", "club", "country", "egf_pin", "ffg_licence", "aga_id"];
  var CARRIED = ["rating_origin", "grade", "ffg_licence_status", "aga_expiration"];
  function clearErrors() {
    FIELDS.forEach(function (k) {
      var e = $("err-" + k), f = $("f-" + k);
      if (e) e.textContent = "";
      if (f) f.removeAttribute("aria-invalid");
    });
    var fe = $("err-form");
    if (fe) fe.textContent = "";
  }
  // The daemon names the field in its message ("player.rank: …", "fields.rating: …").
  function showError(msg) {
    var m = /\b(?:player|fields)\.([a-z_]+)/.exec(msg);
    var k = m ? m[1] : null;
    if (k && $("err-" + k)) {
      $("err-" + k).textContent = msg;
      $("f-" + k).setAttribute("aria-invalid", "true");
      $("f-" + k).focus();
    } else if ($("err-form")) {
      $("err-form").textContent = msg;
    }
  }
  function setMode(player) {
    var t = text();
    $("f-id").value = player ? String(player.id) : "";
    $("desk-form-h").textContent = player ? t.edit_title + " #" + player.id : t.add_title;
    $("desk-submit").textContent = player ? t.save : t.add;
  }
  function resetForm() {
    var form = $("desk-form");
    if (!form) return;
    FIELDS.concat(CARRIED).forEach(function (k) { var f = $("f-" + k); if (f) f.value = ""; });
    clearErrors();
    $("desk-dup").hidden = true;
    setMode(null);
  }
  function fill(p) {
    FIELDS.concat(CARRIED).forEach(function (k) {
      var f = $("f-" + k);
      if (f && p[k] !== undefined && p[k] !== null) f.value = String(p[k]);
    });
  }
  // The player object as the daemon takes it: text as typed; an empty rating is left out
  // (the daemon derives it from the rank); a number when it reads as one, otherwise the text,
  // so that the daemon's own message says what is wrong with it.
  function collect(forUpdate) {
    var p = {};
    FIELDS.concat(CARRIED).forEach(function (k) {
      var f = $("f-" + k);
      if (!f) return;
      var v = f.value.trim();
      if (k === "rating") {
        if (v === "") return;
        p[k] = /^-?\d+$/.test(v) ? parseInt(v, 10) : v;
        return;
      }
      if (CARRIED.indexOf(k) >= 0 && v === "") return;
      if (v === "" && !forUpdate && k !== "name") return;
      p[k] = v;
    });
    return p;
  }
  function fold(s) {
    return (s || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(/\s+/g, "").toUpperCase();
  }
  // Players already registered who look like this one: same name (accents, case and spaces
  // aside) or a same PIN, licence or id. Only a warning: the director may add anyway.
  function duplicates(p) {
    var key = fold(p.name) + "|" + fold(p.first_name);
    var out = { name: [], pin: [] };
    document.querySelectorAll("#desk-players tr[data-player]").forEach(function (tr) {
      var q = {};
      try { q = JSON.parse(tr.getAttribute("data-player")); } catch (e) { return; }
      if (String(q.id) === $("f-id").value) return;
      var label = q.name + (q.first_name ? " " + q.first_name : "") + " (#" + q.id + ")";
      if (fold(q.name) + "|" + fold(q.first_name) === key) out.name.push(label);
      else if (["egf_pin", "ffg_licence", "aga_id"].some(function (k) { return p[k] && q[k] && String(p[k]).trim() === String(q[k]).trim(); })) out.pin.push(label);
    });
    return out;
  }
  function submitPlayer(override) {
    var t = text();
    clearErrors();
    var id = $("f-id").value;
    var p = collect(!!id);
    if (!override) {
      var d = duplicates(p);
      if (d.name.length || d.pin.length) {
        var parts = [];
        if (d.name.length) parts.push(t.dup_name + " " + d.name.join(", "));
        if (d.pin.length) parts.push(t.dup_pin + " " + d.pin.join(", "));
        $("desk-dup-text").textContent = parts.join(" ");
        $("desk-dup").hidden = false;
        $("desk-dup-add").focus();
        return;
      }
    }
    $("desk-dup").hidden = true;
    var msg = $("desk-msg");
    say(msg, t.working);
    var call = id ? rpc("tournament.player.update", [+tid, +id, p]) : rpc("tournament.player.add", [+tid, p]);
    call.then(function (res) {
      var who = (p.name || "") + (p.first_name ? " " + p.first_name : "");
      var line;
      if (id) {
        line = t.saved + ": " + who + " (#" + id + ")";
      } else {
        line = t.added + ": " + who + " (#" + res.player_id + ")";
        var paired = +(($("desk-players") || {}).getAttribute ? $("desk-players").getAttribute("data-paired") : 0);
        if (paired > 0) line += ", " + t.absent_in + " " + (paired === 1 ? "1" : "1–" + paired);
      }
      say(msg, line);
      resetForm();
      $("desk-search").value = "";
      $("desk-search").focus();
      refreshLists();
    }, function (err) {
      say(msg, "");
      showError(t.error + " " + err.message);
    });
  }

  // ---- rating-list search ------------------------------------------------------------------
  var hits = [], hitIndex = -1, searchSeq = 0, searchTimer = null;
  function showHits() {
    var ul = $("desk-hits"), input = $("desk-search");
    if (!ul) return;
    ul.innerHTML = "";
    hits.forEach(function (h, i) {
      var li = document.createElement("li");
      li.id = "hit-" + i;
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", i === hitIndex ? "true" : "false");
      li.setAttribute("data-index", String(i));
      var p = h.player || {};
      var strong = document.createElement("strong");
      strong.textContent = p.name + (p.first_name ? " " + p.first_name : "");
      li.appendChild(strong);
      var rest = document.createElement("span");
      var ids = [p.egf_pin, p.ffg_licence, p.aga_id].filter(function (x) { return x; }).join(" · ");
      rest.textContent = " " + [p.rank, p.club, p.country, ids, h.list.toUpperCase()].filter(function (x) { return x; }).join(" · ");
      li.appendChild(rest);
      ul.appendChild(li);
    });
    var open = hits.length > 0;
    ul.hidden = !open && !ul.getAttribute("data-empty");
    input.setAttribute("aria-expanded", open ? "true" : "false");
    if (hitIndex >= 0) input.setAttribute("aria-activedescendant", "hit-" + hitIndex);
    else input.removeAttribute("aria-activedescendant");
  }
  function search(q) {
    var mine = ++searchSeq;
    if (q.trim().length < 2) { hits = []; hitIndex = -1; $("desk-hits").removeAttribute("data-empty"); showHits(); return; }
    rpc("ratings.search", ["all", q, 8]).then(function (res) {
      if (mine !== searchSeq) return;
      hits = res.entries || [];
      hitIndex = hits.length ? 0 : -1;
      var ul = $("desk-hits");
      if (!hits.length) {
        ul.setAttribute("data-empty", "1");
        showHits();
        var li = document.createElement("li");
        li.className = "empty";
        li.textContent = text().no_hits;
        ul.appendChild(li);
        ul.hidden = false;
      } else {
        ul.removeAttribute("data-empty");
        showHits();
      }
    }, function (err) {
      if (mine !== searchSeq) return;
      hits = []; hitIndex = -1;
      var ul = $("desk-hits");
      ul.setAttribute("data-empty", "1");
      showHits();
      var li = document.createElement("li");
      li.className = "empty";
      li.textContent = err.message;
      ul.appendChild(li);
      ul.hidden = false;
    });
  }
  function choose(i) {
    var h = hits[i];
    if (!h) return;
    resetForm();
    fill(h.player || {});
    hits = []; hitIndex = -1;
    $("desk-hits").removeAttribute("data-empty");
    showHits();
    $("desk-hits").hidden = true;
    $("f-rank").focus();
  }

  document.addEventListener("input", function (ev) {
    var el = ev.target;
    if (el.id === "desk-search") {
      clearTimeout(searchTimer);
      var q = el.value;
      searchTimer = setTimeout(function () { search(q); }, 120);
    } else if (el.id === "checkin-filter") {
      applyFilter(null);
    } else if (el.id === "quick") {
      quickInput(el);
    }
  });

  document.addEventListener("keydown", function (ev) {
    var el = ev.target;
    if (el.id === "desk-search") {
      if (ev.key === "ArrowDown" && hits.length) { hitIndex = Math.min(hits.length - 1, hitIndex + 1); showHits(); ev.preventDefault(); }
      else if (ev.key === "ArrowUp" && hits.length) { hitIndex = Math.max(0, hitIndex - 1); showHits(); ev.preventDefault(); }
      else if (ev.key === "Enter") { ev.preventDefault(); if (hitIndex >= 0) choose(hitIndex); }
      else if (ev.key === "Escape") { hits = []; hitIndex = -1; showHits(); $("desk-hits").hidden = true; }
    } else if (el.id === "checkin-filter") {
      checkinKey(ev);
    } else if (el.id === "quick") {
      quickKey(ev);
    }
  });

  document.addEventListener("mousedown", function (ev) {
    // A mouse choice in the hit list: taken before the search field loses focus.
    var li = ev.target.closest ? ev.target.closest("#desk-hits li[data-index]") : null;
    if (li) { ev.preventDefault(); choose(+li.getAttribute("data-index")); }
  });

  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    // getAttribute, not f.id: a form's named controls shadow its properties.
    if (f.getAttribute("id") === "desk-form") { ev.preventDefault(); submitPlayer(false); }
    else if (f.classList && f.classList.contains("desk-skip")) { ev.preventDefault(); setSkip(f); }
  });

  document.addEventListener("click", function (ev) {
    var b = ev.target.closest ? ev.target.closest("button, li.ci") : null;
    if (!b) return;
    var t = text();
    if (b.id === "desk-dup-add") { submitPlayer(true); return; }
    if (b.id === "desk-dup-cancel") { $("desk-dup").hidden = true; $("f-name").focus(); return; }
    if (b.id === "desk-clear") { resetForm(); return; }
    if (b.id === "quick-undo") { quickUndo(); return; }
    if (b.classList.contains("ci")) { setActive(b); toggle(b); return; }
    var tr = b.closest("tr[data-player]");
    if (!tr) return;
    var p = {};
    try { p = JSON.parse(tr.getAttribute("data-player")); } catch (e) { return; }
    var msg = $("desk-msg");
    if (b.classList.contains("desk-edit")) {
      resetForm();
      fill(p);
      setMode(p);
      $("register").scrollIntoView({ block: "start" });
      $("f-name").focus();
    } else if (b.classList.contains("desk-withdraw") || b.classList.contains("desk-reinstate")) {
      var back = b.classList.contains("desk-reinstate");
      say(msg, t.working);
      rpc("tournament.player.withdraw", back ? [+tid, p.id, { reinstate: true }] : [+tid, p.id]).then(function (res) {
        var who = p.name + (p.first_name ? " " + p.first_name : "");
        say(msg, back ? t.reinstated + ": " + who : who + ": " + t.withdrawn + (res.after_round !== undefined ? " (" + res.after_round + ")" : ""));
        refreshLists();
      }, function (err) { say(msg, t.error + " " + err.message, true); });
    }
  });

  // Absent rounds typed as "2, 4": numbers go as numbers, anything else as typed, for the
  // daemon to refuse with its own message.
  function setSkip(f) {
    var t = text();
    var tr = f.closest("tr[data-player]");
    var p = JSON.parse(tr.getAttribute("data-player"));
    var raw = f.querySelector("input").value.split(/[\s,;]+/).filter(function (x) { return x; });
    var skip = raw.map(function (x) { return /^\d+$/.test(x) ? parseInt(x, 10) : x; });
    var err = f.querySelector(".field-error");
    err.textContent = "";
    rpc("tournament.player.set_participation", [+tid, p.id, skip]).then(function () {
      say($("desk-msg"), t.participation_set + " " + p.name + (p.first_name ? " " + p.first_name : "") + ": " + (skip.join(", ") || "–"));
      refreshLists();
    }, function (e) { err.textContent = t.error + " " + e.message; });
  }

  // ---- check-in ------------------------------------------------------------------------------
  function visibleRows() {
    return Array.prototype.filter.call(document.querySelectorAll("#checkin-list li.ci"), function (li) { return !li.hidden; });
  }
  function setActive(li) {
    document.querySelectorAll("#checkin-list li.active").forEach(function (x) { x.classList.remove("active"); });
    var f = $("checkin-filter");
    if (!li) { if (f) f.removeAttribute("aria-activedescendant"); return; }
    li.classList.add("active");
    if (f) f.setAttribute("aria-activedescendant", li.id);
    if (li.scrollIntoView) li.scrollIntoView({ block: "nearest" });
  }
  function applyFilter(keepId) {
    var f = $("checkin-filter");
    if (!f) return;
    var q = fold(f.value);
    document.querySelectorAll("#checkin-list li.ci").forEach(function (li) {
      li.hidden = q !== "" && fold(li.getAttribute("data-key")).indexOf(q) < 0;
    });
    var keep = keepId ? $(keepId) : null;
    var rows = visibleRows();
    setActive(keep && !keep.hidden ? keep : rows[0] || null);
  }
  function counter() {
    var out = $("checkin-count");
    if (!out) return;
    var all = document.querySelectorAll("#checkin-list li.ci");
    var here = document.querySelectorAll("#checkin-list li.ci[aria-selected=true]");
    out.querySelector("strong").textContent = String(here.length);
    out.setAttribute("data-present", String(here.length));
    out.setAttribute("data-total", String(all.length));
  }
  // One call at a time per player, so two quick ticks land in order.
  var pending = {};
  function toggle(li) {
    var t = text();
    var round = +$("checkin").getAttribute("data-round");
    var pid = li.getAttribute("data-pid");
    var prev = pending[pid] || Promise.resolve();
    pending[pid] = prev.then(function () {
      // The row as it is now: a refresh may have replaced the one clicked.
      li = $("ci-" + pid) || li;
      var skip = [];
      try { skip = JSON.parse(li.getAttribute("data-skip")) || []; } catch (e) { skip = []; }
      var here = skip.indexOf(round) < 0;
      var next = here ? skip.concat([round]) : skip.filter(function (r) { return r !== round; });
      li.classList.add("saving");
      return rpc("tournament.player.set_participation", [+tid, +pid, next]).then(function () {
        // The row found again: a refresh may have replaced it meanwhile.
        var row = $("ci-" + pid) || li;
        row.setAttribute("data-skip", JSON.stringify(next));
        row.setAttribute("aria-selected", here ? "false" : "true");
        row.querySelector(".state").textContent = here ? t.absent : t.present;
        row.classList.remove("saving");
        counter();
      }, function (err) {
        li.classList.remove("saving");
        say($("desk-msg"), t.error + " " + err.message, true);
      });
    });
  }
  function checkinKey(ev) {
    var rows = visibleRows();
    var cur = document.querySelector("#checkin-list li.active");
    var i = rows.indexOf(cur);
    if (ev.key === "ArrowDown") { setActive(rows[Math.min(rows.length - 1, i + 1)] || null); ev.preventDefault(); }
    else if (ev.key === "ArrowUp") { setActive(rows[Math.max(0, i - 1)] || null); ev.preventDefault(); }
    else if (ev.key === "Enter" || (ev.key === " " && cur)) {
      ev.preventDefault();
      if (cur && !cur.hidden) toggle(cur);
    } else if (ev.key === "Escape") { ev.target.value = ""; applyFilter(null); }
  }

  // ---- quick results -------------------------------------------------------------------------
  var KEYS = { w: "W+", b: "B+", j: "jigo", x: "both_lose!" };
  var undo = [];
  var confirmFor = null;
  function box() { return $("quick-box"); }
  function games() {
    try { return JSON.parse(box().getAttribute("data-games")) || {}; } catch (e) { return {}; }
  }
  function label(code) {
    var l = {};
    try { l = JSON.parse(box().getAttribute("data-labels")) || {}; } catch (e) {}
    return l[code] || code;
  }
  function quickSay(msg, isError) { say($("quick-msg"), msg, isError); }
  function setResult(table, code, before, isUndo) {
    var t = text(), b = box();
    var round = +b.getAttribute("data-round");
    quickSay(t.working);
    return rpc("tournament.result.set", [+tid, round, +table, code]).then(function () {
      var g = games();
      g[table] = code;
      b.setAttribute("data-games", JSON.stringify(g));
      // The row shows it at once; the page's own refresh follows when the field is left.
      var cell = document.querySelector("tr[data-table='" + table + "'] td.result");
      if (cell) cell.textContent = code === "?" ? "" : label(code);
      var sel = $("res-" + round + "-" + table);
      if (sel) sel.value = code;
      if (isUndo) {
        quickSay(t.undone + " " + table + " → " + (code === "?" ? "?" : label(code)));
      } else {
        undo.push({ table: table, before: before });
        quickSay(t.table + " " + table + " " + t.set + " " + label(code));
      }
      $("quick-undo").disabled = undo.length === 0;
    }, function (err) { quickSay(t.error + " " + err.message, true); });
  }
  function quickInput(el) {
    var t = text();
    var v = el.value.trim().toLowerCase();
    if (v === "") return;
    if (v === "u") { el.value = ""; quickUndo(); return; }
    if (/^\d+\s*f?$/.test(v)) { if (confirmFor) { confirmFor = null; } return; }
    var m = /^(\d+)\s*(f?)\s*([a-z?])$/.exec(v);
    el.value = "";
    if (!m || !KEYS[m[3]] || (m[2] && (m[3] === "j" || m[3] === "x"))) {
      quickSay(t.bad_key, true);
      return;
    }
    var table = String(parseInt(m[1], 10));
    var code = KEYS[m[3]] + (m[2] ? "!" : "");
    var g = games();
    if (!(table in g)) { quickSay(t.no_table + " " + table, true); return; }
    var before = g[table];
    if (before && before !== "?") {
      if (before === code) { quickSay(t.table + " " + table + " " + t.already + " " + label(before)); return; }
      confirmFor = { table: table, code: code, before: before };
      quickSay(t.table + " " + table + " " + t.already + " " + label(before) + ". " + t.overwrite + " " + label(code) + " (Esc ✗)", true);
      return;
    }
    setResult(table, code, before);
  }
  function quickKey(ev) {
    if (!confirmFor) return;
    if (ev.key === "Enter") {
      ev.preventDefault();
      var c = confirmFor;
      confirmFor = null;
      setResult(c.table, c.code, c.before);
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      quickSay(text().kept + " " + confirmFor.table);
      confirmFor = null;
    }
  }
  function quickUndo() {
    var last = undo.pop();
    if (!last) { quickSay(text().nothing_to_undo); return; }
    $("quick-undo").disabled = undo.length === 0;
    setResult(last.table, last.before || "?", null, true);
  }
  body.setAttribute("data-desk-js", "ready");
})();
