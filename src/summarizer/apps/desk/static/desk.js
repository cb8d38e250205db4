// The review desk's keys and actions. Plain JavaScript, no build step, nothing fetched from elsewhere.
// Every text from the server is put in with textContent, never as HTML.
"use strict";

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  // The session's key: handed over once by the welcome page, kept in this origin's storage (no other port
  // reads it, no request carries it unasked), sent with every change. The cookie alone changes nothing.
  const KEY = "summarizer-desk-key";

  function say(text, kind) {
    const box = $("#message");
    box.textContent = text;
    box.className = kind || "";
  }

  function flashLater(text) {
    sessionStorage.setItem("desk-flash", text);
  }

  async function post(url, payload) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Desk-Key": localStorage.getItem(KEY) || "" },
      credentials: "same-origin",
      body: JSON.stringify(payload),
    });
    let body = {};
    try { body = await response.json(); } catch (e) { body = { error: "the desk answered " + response.status }; }
    return { ok: response.ok, status: response.status, body: body };
  }

  function showErrors(form, problems) {
    const list = $(".errors", form);
    list.textContent = "";
    for (const problem of problems || []) {
      const item = document.createElement("li");
      item.textContent = problem;
      list.appendChild(item);
    }
  }

  function typing(event) {
    const el = event.target;
    return el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT");
  }

  // Undo the newest decision of the session (or the one on `ref`'s summary or note: `kind`), then open that page again.
  async function undo(ref, keep, kind) {
    say("undoing…", "busy");
    let result;
    try {
      result = await post("/api/undo", ref ? { ref: ref, kind: kind || null } : {});
    } catch (e) {
      result = { ok: false, status: 0, body: { error: "the desk did not answer: is it still running?" } };
    }
    if (result.ok) {
      flashLater(result.body.message);
      location.href = result.body.paper + (keep || "");
      return;
    }
    say(result.body.error || "nothing undone", "error");
  }

  function bindUndo(keep) {
    $$("button[data-undo]").forEach((button) => button.addEventListener("click", () => undo(button.dataset.undo, keep, button.dataset.kind)));
  }

  // Ctrl+Enter (⌘+Enter) submits the form being typed in.
  function submitByKeys(event) {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return false;
    const form = event.target && event.target.closest ? event.target.closest("form") : null;
    if (!form || form.hidden) return false;
    event.preventDefault();
    form.requestSubmit();
    return true;
  }

  function toggleHelp(show) {
    const help = $("#help");
    help.hidden = show === undefined ? !help.hidden : !show;
  }

  // -- the paper view (a summary's, or a note's: data-api names where its actions go) -----------
  function paperView(main) {
    const base = () => ({ ref: main.dataset.paper, version: parseInt(main.dataset.version, 10) || null, status: main.dataset.status });
    const forms = { reject: $("#reject-form"), edit: $("#edit-form"), regen: $("#regen-form") };

    async function act(payload, form) {
      const progress = form ? $(".progress", form) : null;
      let timer = null;
      if (payload.action === "regen" && progress) {
        const started = Date.now();
        progress.hidden = false;
        progress.textContent = "regenerating… asking the model";
        timer = setInterval(() => { progress.textContent = "regenerating… " + Math.round((Date.now() - started) / 1000) + " s"; }, 500);
      }
      say(payload.action + "…", "busy");
      const enabled = $$("button", main).filter((b) => !b.disabled);  // a button the page disabled stays so
      enabled.forEach((b) => { b.disabled = true; });
      let result;
      try {
        result = await post(main.dataset.api || "/api/action", Object.assign(base(), payload));
      } catch (e) {
        result = { ok: false, status: 0, body: { error: "the desk did not answer: is it still running?" } };
      }
      if (timer) clearInterval(timer);
      if (progress) progress.hidden = true;
      enabled.forEach((b) => { b.disabled = false; });
      if (result.ok) {
        // A decision moves on to the next paper waiting; an edit or a regenerate stays to show the new version.
        const decided = payload.action === "approve" || payload.action === "reject";
        flashLater(result.body.message + (decided ? " · u undoes it" : ""));
        if (decided) location.href = main.dataset.after;
        else location.reload();
        return;
      }
      say(result.body.error || "refused", "error");
      if (form) showErrors(form, result.body.problems || [result.body.error]);
    }

    function open(name) {
      for (const [key, form] of Object.entries(forms)) form.hidden = key !== name;
      const field = $("textarea, input", forms[name]);
      if (field) field.focus();
    }

    function run(action) {
      const button = $("[data-action=" + action + "]", main);
      if (!button || button.disabled) return;  // a page without the action (an approved note) offers no key for it
      if (action === "approve") act({ action: "approve" }, null);
      else open(action);
    }

    // A note's page: `w` scrolls to the next section with a warning (round again after the last).
    function nextWarned() {
      const warned = $$(".note-section.warned", main);
      if (!warned.length) return;
      const below = warned.find((section) => section.getBoundingClientRect().top > 8);
      (below || warned[0]).scrollIntoView({ block: "start" });
    }

    $$("[data-action]", main).forEach((button) => button.addEventListener("click", () => run(button.dataset.action)));
    for (const [name, form] of Object.entries(forms)) {
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const data = Object.fromEntries(new FormData(form).entries());
        act(Object.assign({ action: name }, data), form);
      });
      $(".cancel", form).addEventListener("click", () => { form.hidden = true; });
    }
    bindUndo(main.dataset.keep);
    return function key(event) {
      const keys = { a: "approve", r: "reject", e: "edit", g: "regen" };
      if (keys[event.key]) { event.preventDefault(); run(keys[event.key]); }
      else if (event.key === "j" && main.dataset.next) location.href = main.dataset.next;
      else if (event.key === "k" && main.dataset.prev) location.href = main.dataset.prev;
      else if (event.key === "u") undo(null, main.dataset.keep);
      else if (event.key === "w") nextWarned();
      else if (event.key === "Escape") Object.values(forms).forEach((f) => { f.hidden = true; });
    };
  }

  // -- the queue --------------------------------------------------------------------------
  function queueView(main) {
    const rows = $$("tr[data-paper]");
    // Arriving from the next page with `k`, the cursor starts on the last row.
    let at = rows.length ? (location.hash === "#last" ? rows.length - 1 : 0) : -1;
    const mark = () => rows.forEach((row, i) => row.classList.toggle("cursor", i === at));
    mark();
    const picked = () => rows.filter((row) => $(".pick", row).checked);
    const selectedButton = $("#approve-selected");
    const refresh = () => {
      const n = picked().length;
      selectedButton.disabled = n === 0;
      selectedButton.textContent = n ? "approve " + n + " selected" : "approve selected";
    };
    rows.forEach((row) => $(".pick", row).addEventListener("change", refresh));

    let pending = [];
    const noun = main.dataset.noun || "paper";
    function confirmApprove(chosen) {
      pending = chosen;
      $("#confirm-text").textContent = "Approve " + chosen.length + " " + noun + (chosen.length === 1 ? "" : "s") + "? Their current versions get published by the next build.";
      $("#confirm").hidden = false;
      $("#confirm-yes").focus();
    }
    selectedButton.addEventListener("click", () => confirmApprove(picked()));
    $("#approve-filtered").addEventListener("click", () => confirmApprove(rows));
    $("#confirm-no").addEventListener("click", () => { $("#confirm").hidden = true; });
    $("#confirm-yes").addEventListener("click", async () => {
      $("#confirm").hidden = true;
      const items = pending.map((row) => ({ ref: row.dataset.paper, version: parseInt(row.dataset.version, 10) || null, status: row.dataset.status }));
      say("approving " + items.length + "…", "busy");
      const result = await post(main.dataset.bulk || "/api/approve-many", { items: items });
      if (result.ok) { flashLater(result.body.message); location.reload(); }
      else say(result.body.error || "refused", "error");
    });

    bindUndo("");
    const move = (by) => {
      if (at + by >= rows.length && main.dataset.nextPage) { location.href = main.dataset.nextPage; return; }
      if (at + by < 0 && main.dataset.prevPage) { location.href = main.dataset.prevPage + "#last"; return; }
      at = Math.min(Math.max(at + by, 0), rows.length - 1);
      mark();
      rows[at].scrollIntoView({ block: "nearest" });
    };
    return function key(event) {
      if (event.key === "u") { undo(null, ""); return; }
      if (!rows.length) return;
      if (event.key === "j") move(1);
      else if (event.key === "k") move(-1);
      else if (event.key === "Enter" || event.key === "o") location.href = $("a.title", rows[at]).href;
      else if (event.key === "x") { const box = $(".pick", rows[at]); box.checked = !box.checked; refresh(); }
    };
  }

  document.addEventListener("DOMContentLoaded", () => {
    const welcome = $("meta[name=desk-key]");
    if (welcome) {
      localStorage.setItem(KEY, welcome.content);
      location.replace($("meta[name=desk-next]").content);
      return;
    }
    const flash = sessionStorage.getItem("desk-flash");
    if (flash) { sessionStorage.removeItem("desk-flash"); say(flash, "ok"); }
    const main = $("#paper");
    const queue = $("#queue");
    const viewKey = main ? paperView(main) : (queue ? queueView(queue) : () => {});
    document.addEventListener("keydown", (event) => {
      if (submitByKeys(event)) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (typing(event)) { if (event.key === "Escape") event.target.blur(); return; }
      if (event.key === "?") { toggleHelp(); return; }
      if (event.key === "Escape") toggleHelp(false);
      viewKey(event);
    });
    document.body.dataset.ready = "1";
  });
})();
