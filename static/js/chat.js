// The table chat (docs/chat.md): the panel is read over HTTP when the page opens and after
// every (re)connection of the table's socket, whose messages static/js/table.js hands on
// ("table:message"); lines are sent over that socket ("table:send"), or posted when it is
// down. Every piece of HTML comes from the server, escaped there, and is parsed here with
// DOMParser: nothing a person typed is ever written into the page as markup.
(function () {
  "use strict";
  const box = document.getElementById("chat");
  if (!box) return;
  const body = document.getElementById("chat-body");
  const counter = document.getElementById("chat-new");
  const me = box.dataset.me;
  const phone = window.matchMedia("(max-width: 48rem)");
  const pending = new Map();   // key -> text, until the socket says it was stored or refused
  let unread = 0;

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"]; } catch (err) { return null; }
  }

  function parse(html) {
    return new DOMParser().parseFromString(html, "text/html").body;
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  function lines(room) {
    return body.querySelector(`.chat-room[data-room="${room}"] .chat-lines`);
  }

  function atEnd(list) {
    return list.scrollHeight - list.scrollTop - list.clientHeight < 24;
  }

  function scrollToEnd() {
    body.querySelectorAll(".chat-lines").forEach((list) => { list.scrollTop = list.scrollHeight; });
  }

  // A pushed line is the same for every reader: the reader's own is marked here, and
  // loses its report button.
  function own(line) {
    if (line.dataset.author !== me) return;
    line.classList.add("mine");
    const report = line.querySelector(".chat-report");
    if (report) report.remove();
  }

  function showUnread() {
    counter.textContent = unread ? `(${unread} new)` : "";
  }

  function error(text) {
    const el = document.getElementById("chat-error");
    if (el) el.textContent = text;
  }

  // The panel as the server has it now. Lines pushed while it was on the way, newer than
  // any it holds, are kept.
  function replace(html) {
    const fresh = parse(html);
    const newest = Math.max(0, ...Array.from(fresh.querySelectorAll(".chat-line"), (l) => +l.dataset.id));
    const later = Array.from(body.querySelectorAll(".chat-line"))
      .filter((l) => +l.dataset.id > newest)
      .map((l) => [l.closest(".chat-room").dataset.room, l]);
    const typed = body.querySelector("#chat-text");
    const draft = typed ? typed.value : "";
    const focused = document.activeElement && document.activeElement.id === "chat-text";
    body.replaceChildren(...fresh.childNodes);
    later.forEach(([room, line]) => { const list = lines(room); if (list) list.append(line); });
    body.querySelectorAll(".chat-line").forEach(own);
    const input = body.querySelector("#chat-text");
    if (input && draft && !input.value) input.value = draft;
    if (input && focused) input.focus();
    scrollToEnd();
  }

  function load() {
    return fetch(box.dataset.url, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then((r) => { if (!r.ok) throw new Error("chat " + r.status); return r.text(); })
      .then(replace)
      .catch(() => {});
  }

  function post(form, extra) {
    const data = new FormData(form);
    Object.entries(extra || {}).forEach(([k, v]) => data.set(k, v));
    const token = csrfToken();
    return fetch(form.action, {
      method: "POST", body: data, credentials: "same-origin",
      headers: Object.assign({ "HX-Request": "true" }, token ? { "X-CSRFToken": token } : {}),
    }).then((r) => r.text()).then(replace).catch(() => error("The chat could not be reached. Try again."));
  }

  function send(text, form) {
    error("");
    const key = newKey();
    const detail = { frame: { type: "chat", text: text, key: key }, sent: false };
    document.dispatchEvent(new CustomEvent("table:send", { detail: detail }));
    if (detail.sent) {
      pending.set(key, text);
    } else {
      post(form, { text: text, key: key, phrase: "" });
    }
  }

  box.addEventListener("submit", (e) => {
    const form = e.target;
    e.preventDefault();
    if (form.id === "chat-form") {
      const input = form.querySelector("#chat-text");
      const phrase = e.submitter && e.submitter.name === "phrase" ? e.submitter.value : null;
      const text = phrase || input.value;
      if (!phrase) input.value = "";
      send(text, form);
      return;
    }
    post(form);
  });

  document.addEventListener("table:message", (e) => {
    const msg = e.detail;
    if (msg.type === "hello" || msg.type === "chat_setting") {
      load();
    } else if (msg.type === "chat") {
      if (document.getElementById(`chat-${msg.id}`)) return;
      const list = lines(msg.room);
      if (!list) return;
      const line = parse(msg.html).querySelector(".chat-line");
      if (!line) return;
      const follow = atEnd(list);
      const empty = list.querySelector(".chat-empty");
      if (empty) empty.remove();
      own(line);
      list.append(line);
      if (follow || line.classList.contains("mine")) list.scrollTop = list.scrollHeight;
      // A folded box opens for a line from someone else where it has a column of its own
      // (docs/table.md, "Layout"); on a phone, under the table, it counts them instead.
      if (!box.open && !line.classList.contains("mine")) {
        if (phone.matches) { unread += 1; showUnread(); } else { box.open = true; }
      }
    } else if (msg.type === "chat_hidden") {
      const line = document.getElementById(`chat-${msg.id}`);
      if (line) line.remove();
    } else if (msg.type === "chat_ok") {
      pending.delete(msg.key);
    } else if (msg.type === "chat_error") {
      const text = pending.get(msg.key);
      pending.delete(msg.key);
      const input = body.querySelector("#chat-text");
      if (input && text && !input.value && !body.querySelector(`.chat-phrase[value="${CSS.escape(text)}"]`)) input.value = text;
      error(msg.message);
    }
  });

  box.addEventListener("toggle", () => {
    if (box.open) { unread = 0; showUnread(); scrollToEnd(); }
  });

  // On a phone the chat starts folded under the table, its summary counting new lines.
  if (phone.matches) box.open = false;
  load();
}());
