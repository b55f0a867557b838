// goswiss set-up form (create a tournament, edit its settings). The form only gathers what is
// typed: the daemon judges it (tournament.settings.check) and the refusal is shown next to the
// field its path names. No rule of the settings is written here.
(function () {
  "use strict";
  var form = document.getElementById("setup");
  if (!form) return;
  var mode = form.getAttribute("data-mode");
  var tid = form.getAttribute("data-tid");
  var words = document.getElementById("setup-text");
  var egf = document.getElementById("egf-class");
  var list = document.getElementById("crit-list");
  var formError = document.getElementById("err-form");
  var confirmBox = document.getElementById("confirm");
  var seq = 0, timer = null;

  function rpc(method, params, token) {
    var headers = { "Content-Type": "application/json", "Accept": "application/json" };
    if (token) headers["Authorization"] = "Bearer " + token;
    return fetch("/jsonrpc", {
      method: "POST", headers: headers, cache: "no-store",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: method, params: params })
    }).then(function (r) { return r.json(); });
  }

  function stored(key) { try { return sessionStorage.getItem(key); } catch (e) { return null; } }
  function store(key, v) { try { sessionStorage.setItem(key, v); } catch (e) {} }

  // A number as typed: a number when it reads as one, else the text itself, so that the
  // daemon's refusal ("expected an integer") says what is wrong with it.
  function num(v) {
    v = v.trim().replace(",", ".");
    return v !== "" && isFinite(Number(v)) ? Number(v) : v;
  }
  function put(obj, path, value) {
    var keys = path.split(".").slice(1), o = obj;
    for (var i = 0; i < keys.length - 1; i++) { o[keys[i]] = o[keys[i]] || {}; o = o[keys[i]]; }
    o[keys[keys.length - 1]] = value;
  }
  function val(id) { var e = document.getElementById(id); return e ? e.value : ""; }

  // The settings the form holds, as tournament.create / settings.set take them.
  function collect() {
    var s = {};
    form.querySelectorAll("[data-path][data-kind]").forEach(function (el) {
      var kind = el.getAttribute("data-kind"), path = el.getAttribute("data-path");
      if (kind === "hrule" || path === "settings.time.overtime" || path.indexOf("settings.time.overtime.") === 0 ||
          path === "settings.handicap.ceiling") return;
      var v = el.value;
      if (kind === "int") v = num(v);
      else if (kind === "komi") { v = num(v); if (typeof v === "number") v = v * 2; }
      else v = v.trim();
      put(s, path, v);
    });
    var rule = val("f-hrule");
    s.handicap = rule === "none" ? { ceiling: 0 } : { correction: Number(rule), ceiling: num(val("f-ceiling")) };
    var kind = val("f-okind"), over = { kind: kind };
    if (kind === "byoyomi") { over.periods = num(val("f-periods")); over.seconds = num(val("f-seconds")); }
    else if (kind === "canadian") { over.stones = num(val("f-periods")); over.seconds = num(val("f-seconds")); }
    else if (kind === "fischer") { over.increment = num(val("f-seconds")); }
    s.time = s.time || {};
    s.time.overtime = over;
    s.placement = Array.prototype.map.call(list.querySelectorAll("li"), function (li) { return li.getAttribute("data-crit"); });
    return s;
  }

  // The element a refusal's path belongs to: the field with the longest matching path.
  function fieldFor(path) {
    if (!path) return null;
    // The overtime's members share two inputs whatever their kind.
    path = path.replace("overtime.stones", "overtime.periods").replace("overtime.increment", "overtime.seconds");
    var best = null, bestLen = 0;
    form.querySelectorAll("[data-path]").forEach(function (el) {
      var p = el.getAttribute("data-path");
      if ((path === p || path.indexOf(p + ".") === 0 || path.indexOf(p + "[") === 0) && p.length > bestLen) { best = el; bestLen = p.length; }
    });
    return best;
  }
  function errorBox(el) {
    if (!el) return formError;
    var id = el.id === "criteria" ? "err-criteria" : "err-" + el.id;
    return document.getElementById(id) || formError;
  }
  function clearErrors() {
    form.querySelectorAll(".field-error").forEach(function (p) { p.textContent = ""; });
    form.querySelectorAll("[aria-invalid]").forEach(function (e) { e.removeAttribute("aria-invalid"); });
  }
  function showError(path, message) {
    var el = fieldFor(path);
    errorBox(el).textContent = message;
    if (el) el.setAttribute("aria-invalid", "true");
    return el;
  }

  function checkParams() {
    var p = [collect()];
    if (mode === "edit") p.push({ tournament_id: Number(tid) });
    return p;
  }

  // Asks the daemon; the answer to an older question is dropped.
  function check() {
    var mine = ++seq;
    form.setAttribute("aria-busy", "true");
    return rpc("tournament.settings.check", checkParams()).then(function (j) {
      if (mine !== seq) return null;
      form.removeAttribute("aria-busy");
      clearErrors();
      if (j.error) { formError.textContent = j.error.message; return null; }
      var r = j.result;
      if (!r.ok) { showError(r.field, r.message); form.setAttribute("data-checked", "error"); return r; }
      if (egf) egf.textContent = r.egf_class;
      form.setAttribute("data-checked", "ok");
      return r;
    }, function () { if (mine === seq) form.removeAttribute("aria-busy"); return null; });
  }
  function later() { clearTimeout(timer); timer = setTimeout(check, 250); }
  form.addEventListener("input", later);
  form.addEventListener("change", function () { clearTimeout(timer); check(); });

  // ---- placement criteria: add, remove, move, all with buttons (keyboard usable) ----------
  function item(name) {
    var li = document.createElement("li");
    li.setAttribute("data-crit", name);
    var span = document.createElement("span"); span.className = "crit"; span.textContent = name; li.appendChild(span);
    [["up", "↑"], ["down", "↓"], ["remove", "✕"]].forEach(function (b) {
      var btn = document.createElement("button");
      btn.type = "button"; btn.className = b[0]; btn.textContent = b[1];
      var label = form.getAttribute("data-label-" + b[0]) || b[0];
      btn.setAttribute("aria-label", label + " " + name);
      li.appendChild(btn);
    });
    return li;
  }
  list.addEventListener("click", function (ev) {
    var btn = ev.target.closest("button"); if (!btn) return;
    var li = btn.closest("li");
    if (btn.classList.contains("up") && li.previousElementSibling) list.insertBefore(li, li.previousElementSibling);
    else if (btn.classList.contains("down") && li.nextElementSibling) list.insertBefore(li.nextElementSibling, li);
    else if (btn.classList.contains("remove")) {
      var next = li.nextElementSibling || li.previousElementSibling;
      li.remove();
      var b = next ? next.querySelector(".remove") : document.getElementById("f-crit-add");
      if (b) b.focus();
      check(); return;
    } else return;
    btn.focus();
    check();
  });
  document.getElementById("crit-add").addEventListener("click", function () {
    list.appendChild(item(val("f-crit-add")));
    check();
  });

  // ---- submit ---------------------------------------------------------------------------
  var busy = false;
  function apply() {
    busy = true;
    var settings = collect();
    var done = function () { busy = false; };
    if (mode === "new") {
      rpc("tournament.create", [settings], val("f-admin").trim()).then(function (j) {
        done();
        if (j.error) { showError(null, j.error.message); return; }
        var id = j.result.id, token = j.result.director_token;
        // The new tournament's pages open in director mode in this tab.
        store("goswiss-token-" + id, token); store("goswiss-director-" + id, "1");
        form.hidden = true;
        document.getElementById("new-token").textContent = token;
        document.getElementById("go-tournament").setAttribute("href", "/t/" + id);
        var box = document.getElementById("token-box");
        box.hidden = false;
        box.setAttribute("data-tid", String(id));
        document.getElementById("copy-token").focus();
      }, done);
    } else {
      var token = val("f-token").trim() || (stored("goswiss-director-" + tid) === "1" ? stored("goswiss-token-" + tid) : "");
      rpc("tournament.settings.set", [Number(tid), settings], token).then(function (j) {
        done();
        if (j.error) { showError(null, j.error.message); return; }
        window.location.href = "/t/" + tid;
      }, done);
    }
  }
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    if (busy) return;
    clearTimeout(timer);
    check().then(function (r) {
      if (!r) return;
      if (!r.ok) {
        if (fieldFor(r.field)) formError.textContent = words.getAttribute("data-errors");
        var el = fieldFor(r.field);
        if (el && el.focus) el.focus();
        return;
      }
      if (mode === "edit" && r.alters_played && r.alters_played.length) {
        var ul = document.getElementById("confirm-list");
        ul.textContent = "";
        // Each setting by its field's label where the form has one (the path otherwise).
        r.alters_played.forEach(function (k) {
          var li = document.createElement("li"), el = fieldFor("settings." + k);
          var label = el && el.id ? form.querySelector("label[for='" + el.id + "']") : null;
          li.textContent = label ? label.textContent : k;
          li.setAttribute("data-setting", k);
          ul.appendChild(li);
        });
        confirmBox.hidden = false;
        document.getElementById("confirm-yes").focus();
        return;
      }
      apply();
    });
  });
  document.getElementById("confirm-yes").addEventListener("click", function () { confirmBox.hidden = true; apply(); });
  document.getElementById("confirm-no").addEventListener("click", function () {
    confirmBox.hidden = true; document.getElementById("setup-submit").focus();
  });

  var copy = document.getElementById("copy-token");
  copy.addEventListener("click", function () {
    var token = document.getElementById("new-token").textContent;
    var said = function () { document.getElementById("copied").textContent = words.getAttribute("data-copied"); };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(token).then(said, function () {});
    else {
      var range = document.createRange(); range.selectNodeContents(document.getElementById("new-token"));
      var sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
      document.execCommand("copy"); said();
    }
  });
  check();
})();
