// The table page's live part: one websocket, numbered pushes, HTTP resync, and the
// few client-side controls (choosing cards, Wild colours, the concede confirmation).
(function () {
  "use strict";
  const page = document.getElementById("table-page");
  if (!page) return;

  let seq = parseInt(page.dataset.seq, 10) || 0;
  let socket = null;
  let retry = 0;
  let stopped = false;
  const status = document.getElementById("connection");

  function setConnection(state, text) {
    status.dataset.state = state;
    status.textContent = text;
    showConnection();
  }

  // "Live" speaks of a game being played: once it is over the word goes (the socket stays,
  // for the chat and Play again); a connection lost or closed is still said.
  function showConnection() {
    const over = document.querySelector("#table-status[data-finished]") !== null;
    status.hidden = over && status.dataset.state === "live";
  }

  function seqOf(html) {
    const m = /data-seq="(\d+)"/.exec(html);
    return m ? parseInt(m[1], 10) : 0;
  }

  // Every fragment arrives as an out-of-band swap with a stable id; htmx does the
  // swapping (and keeps the focus on the element with the same id).
  function apply(html, newSeq, appends) {
    if (newSeq < seq) return;
    const selected = pressedCodes();
    const open = Array.from(document.querySelectorAll(".colour-choice:not([hidden]), #concede-confirm:not([hidden])"), (p) => p.id);
    const pile = discardState();
    const fold = foldState();
    const moves = logState();
    const focus = focusState();
    // static/js/motion.js listens to these two: it notes where things were before the
    // swap and animates from there after it.
    document.dispatchEvent(new CustomEvent("table:beforeswap", { detail: { seq: newSeq } }));
    htmx.swap(document.body, html, { swapStyle: "none" });
    // A push's new cards of the discard pile's list came in as an out-of-band swap at its
    // end (applyPush checked its length first): the list's version is the new one.
    Object.entries(appends || {}).forEach(([id, more]) => {
      const el = document.getElementById(id);
      if (el) el.dataset.v = more.v;
    });
    showConnection();
    restoreDiscard(pile);
    restoreFold(fold);
    restoreLog(moves);
    fillCsrf();
    seq = Math.max(seq, newSeq);
    page.dataset.seq = String(seq);
    restorePressed(selected);
    // A choice the player had opened stays open if it still applies.
    open.forEach((id) => {
      const panel = document.getElementById(id);
      if (!panel) return;
      panel.hidden = false;
      const opener = document.querySelector(`[aria-controls="${id}"]`);
      if (opener) opener.setAttribute("aria-expanded", "true");
    });
    restoreFocus(focus);
    tick();
    showTurn();
    fitFelt();
    document.dispatchEvent(new CustomEvent("table:swapped", { detail: { seq: seq } }));
  }

  // On a phone the felt takes the height the screen has left between the status bar and
  // the hand, so that the plates, the piles and the hand with its buttons are seen together
  // without a scroll (docs/table.md, "Layout"). static/css/table.css reads --felt-fit; the
  // page is laid out by CSS alone without it (a felt of fixed proportions).
  const phone = window.matchMedia("(max-width: 48rem)");
  function fitFelt() {
    const felt = document.getElementById("table-seats");
    const hand = document.getElementById("table-hand");
    if (!felt || !phone.matches) {
      page.style.removeProperty("--felt-fit");
      return;
    }
    const top = felt.getBoundingClientRect().top + window.scrollY;
    const gap = parseFloat(getComputedStyle(page).rowGap) || 0;
    const below = hand ? hand.getBoundingClientRect().height + gap : 0;
    const room = Math.floor(document.documentElement.clientHeight - top - below - 2);
    const value = `${Math.max(room, 240)}px`;
    if (page.style.getPropertyValue("--felt-fit") !== value) page.style.setProperty("--felt-fit", value);
  }
  // The hand grows when a Wild's colours open, the status bar when it says more: the felt
  // gives the room back (the page's own size changes, and setting the same value ends it).
  if (window.ResizeObserver) new ResizeObserver(() => fitFelt()).observe(page);
  window.addEventListener("resize", fitFelt);

  // The discard pile's list stays as the reader left it across pushes: open, and scrolled
  // where they were (or at its newest end, if they were there).
  function discardState() {
    const list = document.getElementById("discard-list");
    if (!list) return null;
    const box = list.querySelector("ol");
    return {
      open: list.open,
      top: box ? box.scrollTop : 0,
      atEnd: box ? box.scrollTop + box.clientHeight >= box.scrollHeight - 2 : true,
    };
  }

  function restoreDiscard(state) {
    const list = document.getElementById("discard-list");
    if (!state || !list) return;
    list.open = state.open;
    const box = list.querySelector("ol");
    if (box) box.scrollTop = state.atEnd ? box.scrollHeight : state.top;
  }

  // And the move log's list: new moves arrive at its top, so a reader who scrolled down
  // keeps the same moves in view (the same distance from the list's end); one at the top
  // stays there, with the newest move.
  function logState() {
    const box = document.querySelector("#table-log .log");
    return box ? { top: box.scrollTop, fromEnd: box.scrollHeight - box.scrollTop,
                   moves: Array.from(box.querySelectorAll("li.move[data-seq]")) } : null;
  }

  function restoreLog(state) {
    const box = document.querySelector("#table-log .log");
    if (!state || !box) return;
    // A push holds only the newest moves (a page, the whole game): the moves older than
    // the oldest it holds are the ones this page already shows, carried over in order.
    const held = box.querySelectorAll("li.move[data-seq]");
    const oldest = held.length ? parseInt(held[held.length - 1].dataset.seq, 10) : Infinity;
    state.moves.forEach((item) => {
      if (parseInt(item.dataset.seq, 10) >= oldest) return;
      item.classList.remove("latest");
      box.appendChild(item);
    });
    if (state.top > 1) box.scrollTop = box.scrollHeight - state.fromEnd;
  }

  // The focus stays where the reader left it. htmx puts it back on an element with the same
  // id; when that element is gone (the card just played, a control that no longer applies),
  // it goes to the card that took its place in the hand, or else to the hand's first control
  // or the hand itself, never to the page (from where the next turn would take many Tab presses).
  function focusState() {
    const active = document.activeElement;
    if (!active || active === document.body || !page.contains(active)) return null;
    const cards = Array.from(document.querySelectorAll("#hand-form .hand-card"));
    return { id: active.id, card: cards.indexOf(active), inHand: !!active.closest("#table-hand") };
  }
  function restoreFocus(state) {
    if (!state) return;
    const active = document.activeElement;
    if (active && active !== document.body && page.contains(active)) return;
    const again = state.id && document.getElementById(state.id);
    if (again && !again.disabled && !again.closest("[hidden]")) { again.focus(); return; }
    if (!state.inHand) return;
    const enabled = (els) => els.filter((el) => !el.disabled && !el.closest("[hidden]"));
    const cards = enabled(Array.from(document.querySelectorAll("#hand-form .hand-card")));
    const next = state.card >= 0 && cards.length ? cards[Math.min(state.card, cards.length - 1)] : null;
    const target = next || enabled(Array.from(document.querySelectorAll("#hand-form .controls button")))[0] ||
      document.getElementById("table-hand");
    target.focus({ preventScroll: true });
  }

  // So does the last round's folded result, opened or not.
  function foldState() {
    const fold = document.getElementById("last-round");
    return fold ? fold.open : false;
  }
  function restoreFold(open) {
    const fold = document.getElementById("last-round");
    if (fold) fold.open = open;
  }

  // The tab says when the game waits for this reader, and so does its icon.
  const baseTitle = document.title;
  const icon = document.querySelector('link[rel="icon"]');
  const baseIcon = icon ? icon.getAttribute("href") : null;
  function showTurn() {
    const mine = !!document.querySelector("#table-status .your-turn");
    const hurry = ownLeft === null ? "" : `${ownLeft} left · `;
    const title = hurry + (mine ? `Your turn · ${baseTitle}` : baseTitle);
    if (document.title !== title) document.title = title;
    const href = mine ? page.dataset.turnIcon : baseIcon;
    if (icon && page.dataset.turnIcon && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  }

  // Pushed fragments are rendered without a request, so their forms hold no CSRF token:
  // the page's token (<body hx-headers>) goes with each move as a header, and into every
  // form too, so
  // that a plain submit of a pushed form is not refused (docs/security.md).
  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"]; } catch (err) { return null; }
  }
  function fillCsrf() {
    const token = csrfToken();
    if (!token) return;
    document.querySelectorAll("form[method=post]").forEach((f) => {
      if (f.querySelector("input[name=csrfmiddlewaretoken]")) return;
      const input = document.createElement("input");
      input.type = "hidden"; input.name = "csrfmiddlewaretoken"; input.value = token;
      f.prepend(input);
    });
  }

  let resyncing = null;
  function resync() {
    if (resyncing) return resyncing;
    resyncing = fetch(page.dataset.sync, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then((r) => {
        if (r.redirected || !r.ok) throw new Error("resync " + r.status);
        return r.text();
      })
      .then((html) => apply(html, seqOf(html)))
      .catch(() => setTimeout(resync, 2000))
      .finally(() => { resyncing = null; });
    return resyncing;
  }

  // A push carries only what changed since the push its process made before it
  // (games/push/changes.py), and says what the page must already hold for it to be whole:
  // every event up to `log_after` (the log holds only the moves after it), each piece left
  // out at the version in `keep`, and the discard pile's list at the length an `append`
  // adds to. A page that holds all that shows the push at once, even past a number it
  // skipped; one that does not (a push it missed, one made by another process from another
  // memory) resyncs over HTTP rather than show a table it was not sent. One numbered at or
  // below the page's is old news. Pushes cross: two moves pushed by two processes, or one
  // delivered by the process that holds this socket while the other went through Redis
  // (docs/table.md).
  function holds(msg) {
    if (seq < (msg.log_after || 0)) return false;
    for (const [id, v] of Object.entries(msg.keep || {})) {
      const el = document.getElementById(id);
      if (!el || el.dataset.v !== v) return false;
    }
    for (const [id, more] of Object.entries(msg.append || {})) {
      const el = document.getElementById(id);
      if (!el || el.children.length !== more.after) return false;
    }
    return true;
  }

  function applyPush(msg) {
    if (msg.seq <= seq) return;                      // old news (already shown)
    if (!holds(msg)) { resync(); return; }
    apply(msg.html, msg.seq, msg.append);
  }

  function connect() {
    if (stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}${page.dataset.ws}`);
    socket.onopen = () => {
      retry = 0;
      setConnection("live", "Live");
    };
    socket.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      // Other parts of the page (static/js/chat.js) read the socket's messages from here.
      document.dispatchEvent(new CustomEvent("table:message", { detail: msg }));
      if (msg.type === "hello") {
        // A fresh connection: anything we may have missed comes over HTTP.
        if (msg.seq !== seq) resync();
      } else if (msg.type === "fragments") {
        applyPush(msg);
      } else if (msg.type === "error") {
        showError(msg.message);
      }
    };
    socket.onclose = (e) => {
      socket = null;
      // The server closed the socket for a reason of its own (games/consumers.py): say it,
      // and do not reconnect.
      const why = CLOSED_BECAUSE[e.code];
      if (why) {
        stopped = true;
        setConnection("closed", why[0]);
        showError(why[1]);
        return;
      }
      setConnection("offline", "Reconnecting…");
      retry = Math.min(retry + 1, 5);
      // Spread by a quarter either way: when the server dropped every socket at once, the
      // pages do not all come back in the same instant, retry after retry.
      setTimeout(connect, 500 * 2 ** (retry - 1) * (0.75 + Math.random() / 2));
    };
  }

  const CLOSED_BECAUSE = {
    4401: ["Logged out", "Your session ended (you logged out, changed your password or " +
           "stayed away too long). Reload the page to log in again."],
    4403: ["Not allowed at this table", "You may not follow this table."],
    4410: ["Seat given to a bot", "A moderator gave your seat to a bot: you no longer play " +
           "at this table."],
    4423: ["Account restricted", "Your account is suspended or banned: it cannot play now."],
  };

  // static/js/chat.js sends its frames over this page's one socket; `sent` tells it
  // whether it went (otherwise it posts the form).
  document.addEventListener("table:send", (e) => {
    e.detail.sent = Boolean(socket && socket.readyState === WebSocket.OPEN);
    if (e.detail.sent) socket.send(JSON.stringify(e.detail.frame));
  });

  function showError(message) {
    const box = document.getElementById("flash");
    box.textContent = message;
  }

  // The table's forms are sent from here rather than by htmx: a push often replaces a form
  // while its answer is on the way, and htmx then looks for the answer's fragments inside
  // the detached form (an oobErrorNoTarget for each of them). The answer goes through the
  // same numbered path as pushes, so a late one never paints an older table over a newer
  // push. Without JavaScript the forms post as plain forms.
  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (!form.closest("#table-page") || form.method.toLowerCase() !== "post") return;
    if (form.classList.contains("play-again")) return;   // a page of its own follows
    if (form.closest("#chat")) return;                   // static/js/chat.js sends those
    e.preventDefault();
    showError("");
    const body = new FormData(form, e.submitter || undefined);
    fetch(form.action, {
      method: "POST", body, credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": csrfToken() || "" },
    }).then((r) => r.text().then((html) => {
      // A refused move answers 4xx with the table's fragments, the reason in the status bar.
      if (/data-seq="/.test(html)) apply(html, seqOf(html));
      else if (!r.ok) showError("The server did not accept that; try again.");
    }), () => showError("No connection; your move was not sent."));
  });

  // Choosing cards to pass or give: card buttons toggle, the submit counts them.
  // A selection is kept over a push only within the same decision: a card's button is named
  // by its place and its code, so after a trade the other copy of a card just sent can
  // take its name, and must not come back chosen for the next pass or swap.
  function choosing() {
    const form = document.getElementById("hand-form");
    return form ? `${form.dataset.mode}/${form.dataset.decision}` : "";
  }
  function pressedCodes() {
    const ids = Array.from(document.querySelectorAll("#hand-form .choosable[aria-pressed=true]"), (b) => b.id);
    return { ids: ids, choosing: choosing() };
  }
  function restorePressed(selected) {
    if (selected.choosing !== choosing()) { syncChoice(); return; }
    selected.ids.forEach((id) => {
      const b = document.getElementById(id);
      if (b && b.classList.contains("choosable") && !b.disabled) b.setAttribute("aria-pressed", "true");
    });
    syncChoice();
  }
  function syncChoice() {
    const form = document.getElementById("hand-form");
    if (!form || !form.dataset.mode || form.dataset.mode === "play") return;
    form.querySelectorAll("input[name=cards]").forEach((i) => i.remove());
    const pressed = form.querySelectorAll(".choosable[aria-pressed=true]");
    pressed.forEach((b) => {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = "cards"; input.value = b.dataset.code;
      form.appendChild(input);
    });
    const submit = form.querySelector("#btn-pick, #btn-give");
    if (submit) submit.disabled = pressed.length !== parseInt(form.dataset.need, 10);
  }

  document.addEventListener("click", (e) => {
    const card = e.target.closest(".choosable");
    if (card && !card.disabled) {
      const form = document.getElementById("hand-form");
      const on = card.getAttribute("aria-pressed") !== "true";
      if (on && form.dataset.mode === "pick") {
        form.querySelectorAll(".choosable[aria-pressed=true]").forEach((b) => b.setAttribute("aria-pressed", "false"));
      }
      card.setAttribute("aria-pressed", on ? "true" : "false");
      syncChoice();
      return;
    }
    const wild = e.target.closest("[data-wild]");
    if (wild) {
      const panel = document.getElementById("colours-" + wild.dataset.wild);
      const open = panel.hidden;
      document.querySelectorAll(".colour-choice").forEach((p) => { p.hidden = true; });
      document.querySelectorAll("[data-wild]").forEach((b) => b.setAttribute("aria-expanded", "false"));
      panel.hidden = !open;
      wild.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) panel.querySelector("button").focus();
      return;
    }
    if (e.target.closest("#btn-concede")) {
      const confirmBox = document.getElementById("concede-confirm");
      confirmBox.hidden = false;
      e.target.closest("#btn-concede").setAttribute("aria-expanded", "true");
      confirmBox.querySelector("button[type=submit]").focus();
      return;
    }
    if (e.target.closest("#btn-concede-cancel")) {
      document.getElementById("concede-confirm").hidden = true;
      const b = document.getElementById("btn-concede");
      b.setAttribute("aria-expanded", "false");
      b.focus();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    document.querySelectorAll(".colour-choice:not([hidden])").forEach((p) => {
      p.hidden = true;
      const opener = document.querySelector(`[data-wild="${p.id.slice(8)}"]`);
      if (opener) { opener.setAttribute("aria-expanded", "false"); opener.focus(); }
    });
  });

  // Time left: counts down from the deadline the server rendered.
  function tick() {
    document.querySelectorAll("time[data-deadline]").forEach((t) => {
      const left = Math.max(0, Math.round((Date.parse(t.dataset.deadline) - Date.now()) / 1000));
      const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      t.textContent = h ? `${h} h ${String(m).padStart(2, "0")} min` : `${m}:${String(s).padStart(2, "0")}`;
      t.closest(".clock").classList.toggle("low", left <= 10 && !h);
    });
    runningLow();
  }

  // Time running out (docs/table.md): from a clock's data-warn to its data-due the seat's
  // plate shows its time left to everyone, and the seat's own page and its partner's show a
  // warning, announced once per clock. The page knows both times, so this needs no server
  // event; each push or resync brings the clocks as they are then.
  const GRACE_MS = 3000;   // "0 s" stays until the time-out's push, if it is a moment late
  const announced = new Set();
  let ownLeft = null;      // the reader's own time left while it runs low, for the tab's title
  function leftOf(el, now) {
    const due = Date.parse(el.dataset.due), warn = Date.parse(el.dataset.warn);
    if (isNaN(due) || isNaN(warn) || now < warn || now > due + GRACE_MS) return null;
    return Math.max(0, Math.ceil((due - now) / 1000));
  }
  function short(left) {
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60);
    if (h) return m ? `${h} h ${m} min` : `${h} h`;
    if (left >= 60) return `${Math.ceil(left / 60)} min`;
    return `${left} s`;
  }
  function spoken(left) {
    const unit = (n, one) => `${n} ${one}${n === 1 ? "" : "s"}`;
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60);
    if (h) return m ? `${unit(h, "hour")} ${unit(m, "minute")}` : unit(h, "hour");
    if (left >= 60) return unit(Math.ceil(left / 60), "minute");
    return unit(left, "second");
  }
  function warningText(w, left, speak) {
    const time = speak ? spoken(left) : short(left);
    const turnByTurn = w.dataset.pace === "turn";
    if (w.classList.contains("you")) {
      if (speak) return turnByTurn ? `Your deadline is in ${time}.` : `Your time is running out: ${time} left for your move.`;
      return turnByTurn ? `Your deadline is in ${time}` : `${time} left to move`;
    }
    const name = w.dataset.name;
    if (speak) return turnByTurn ? `Your partner ${name}'s deadline is in ${time}.` : `Your partner ${name} has ${time} left.`;
    return turnByTurn ? `${name}'s deadline is in ${time}` : `${name} has ${time} left`;
  }
  function runningLow() {
    const now = Date.now();
    document.querySelectorAll("#table-seats .plate[data-due]").forEach((plate) => {
      const left = leftOf(plate, now);
      plate.toggleAttribute("data-low", left !== null);
      const chip = plate.querySelector(".time-left");
      if (!chip) return;
      chip.hidden = left === null;
      if (left !== null) chip.querySelector(".left").textContent = short(left);
    });
    ownLeft = null;
    document.querySelectorAll(".clock-warning[data-due]").forEach((w) => {
      const left = leftOf(w, now);
      w.hidden = left === null;
      if (left === null) return;
      w.querySelector(".text").textContent = warningText(w, left, false);
      const role = w.classList.contains("you") ? "you" : "partner";
      if (role === "you") ownLeft = short(left);
      const key = `${role} ${w.dataset.clock}`;
      if (announced.has(key)) return;
      announced.add(key);
      const region = document.getElementById(`clock-announce-${role}`);
      if (region) region.textContent = warningText(w, left, true);
    });
  }
  setInterval(() => { tick(); showTurn(); }, 1000);
  tick();
  showTurn();
  fitFelt();

  // Keyboard shortcuts (listed in #keys-help): each presses the control a mouse would, so
  // a move made by key goes the same way as a click.
  const KEYS = { d: "#btn-draw", p: "#btn-pass", t: "#btn-take" };
  function press(selector) {
    const control = document.querySelector(selector);
    if (!control || control.disabled || control.closest("[hidden]")) return false;
    control.focus();
    control.click();
    return true;
  }
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select, [contenteditable]")) return;
    const key = event.key.toLowerCase();
    let done = false;
    if (key === "?") {
      const help = document.getElementById("keys-help");
      if (help) { help.open = !help.open; done = true; }
    } else if (/^[0-9]$/.test(key)) {
      const cards = document.querySelectorAll("#hand-form .hand-card");
      const card = cards[key === "0" ? 9 : parseInt(key, 10) - 1];
      if (card && !card.disabled) { card.focus(); card.click(); done = true; }
    } else if ("rygb".includes(key) && key.length === 1) {
      const panel = document.querySelector(".colour-choice:not([hidden])");
      if (panel) done = press(`#${panel.id} button[value="${key.toUpperCase()}"]`);
    } else if (key === "s") {
      done = press("#btn-pick") || press("#btn-give");
    } else if (key === "h") {
      const first = document.querySelector("#hand-form .hand-card:not([disabled])") ||
        document.querySelector("#hand-form .hand-card");
      if (first) { first.focus(); done = true; }
    } else if (KEYS[key]) {
      done = press(KEYS[key]);
    }
    if (done) event.preventDefault();
  });

  // Logging out ends this page's socket at once (the server closes it too).
  document.querySelectorAll("form[action$='/accounts/logout/']").forEach((f) =>
    f.addEventListener("submit", () => { stopped = true; if (socket) socket.close(1000); }));

  connect();
})();
