// Every page of a logged-in user: the site socket (/ws/me/, games.consumers.SiteConsumer).
// It keeps the header's count of games waiting on the user live, tells the My games list
// and the home page's panel to refresh (a `waiting-changed` event on <body>, which their
// hx-trigger listens to), says every SEEN_HEARTBEAT_SECONDS that the player is here, and
// shows a browser notification when a game starts waiting on them, if they asked for it
// (docs/my-games.md).
(function () {
  "use strict";
  const body = document.body;
  if (!body || !body.dataset.siteWs || !("WebSocket" in window)) return;

  const NOTIFY_KEY = "wct-notify";         // "on" once the player asked, in this browser
  const SEEN_PREFIX = "wct-notified-";     // one key per game and event number notified
  const heartbeatMs = Math.max(5, parseInt(body.dataset.heartbeat, 10) || 60) * 1000;

  // What the page was rendered with: "id:seq id:seq".
  let known = parseMarks(body.dataset.waiting || "");
  let socket = null;
  let retry = 0;
  let stopped = false;
  let heartbeat = null;

  function parseMarks(text) {
    const marks = new Map();
    text.split(/\s+/).filter(Boolean).forEach((mark) => {
      const [id, seq] = mark.split(":").map((n) => parseInt(n, 10));
      if (id) marks.set(id, seq || 0);
    });
    return marks;
  }

  function showCount(count) {
    const badge = document.getElementById("waiting-count");
    const label = document.getElementById("waiting-label");
    if (badge) {
      badge.textContent = String(count);
      badge.hidden = count === 0;
    }
    if (label) {
      label.textContent = count ? `: ${count} game${count === 1 ? "" : "s"} waiting on you` : "";
    }
  }

  function changed(games) {
    if (games.length !== known.size) return true;
    return games.some((g) => known.get(g.id) !== g.seq);
  }

  function onWaiting(msg) {
    const games = Array.isArray(msg.games) ? msg.games : [];
    const before = known;
    const differs = changed(games);
    known = new Map(games.map((g) => [g.id, g.seq]));
    showCount(msg.count || 0);
    if (!differs) return;
    body.dispatchEvent(new CustomEvent("waiting-changed", { detail: { count: msg.count, games } }));
    games.filter((g) => !before.has(g.id)).forEach(notify);
  }

  // --- Notifications -------------------------------------------------------------------
  function notificationsOn() {
    return "Notification" in window && Notification.permission === "granted" &&
      localStorage.getItem(NOTIFY_KEY) === "on";
  }

  function onThatTable(game) {
    const table = document.getElementById("table-page");
    return document.visibilityState === "visible" && !!table &&
      parseInt(table.dataset.game, 10) === game.id;
  }

  // One tab notifies: each tab claims the game's key under a lock shared by the tabs (or,
  // without the Web Locks API, as soon as it can), and only the first claim shows it. A tab
  // showing that very table claims it at once and shows nothing: the player is looking.
  function claim(key) {
    if (localStorage.getItem(key)) return false;
    localStorage.setItem(key, String(Date.now()));
    return true;
  }

  function withLock(run) {
    if (navigator.locks && navigator.locks.request) {
      navigator.locks.request("wct-notify", () => run());
    } else {
      run();
    }
  }

  function notify(game) {
    if (!notificationsOn()) return;
    const key = `${SEEN_PREFIX}${game.id}-${game.seq}`;
    if (onThatTable(game)) {
      claim(key);
      return;
    }
    // A moment's grace, so a tab on that table claims it first.
    setTimeout(() => withLock(() => {
      if (!claim(key)) return;
      forgetOldClaims();
      const note = new Notification(game.title || "Your turn", { body: game.body || "", tag: `wct-game-${game.id}` });
      note.addEventListener("click", () => {
        window.focus();
        if (!onThatTable(game)) location.assign(game.url);
        note.close();
      });
    }), 250);
  }

  function forgetOldClaims() {
    const keys = [];
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k && k.startsWith(SEEN_PREFIX)) keys.push([parseInt(localStorage.getItem(k), 10) || 0, k]);
    }
    keys.sort((a, b) => b[0] - a[0]).slice(100).forEach(([, k]) => localStorage.removeItem(k));
  }

  // The switch on the My games page: off, on, or blocked by the browser.
  function setUpSwitch() {
    const box = document.getElementById("notify-switch");
    const button = document.getElementById("notify-toggle");
    const state = document.getElementById("notify-state");
    if (!box || !button || !state) return;
    if (!("Notification" in window)) {
      box.hidden = false;
      button.disabled = true;
      state.textContent = "This browser cannot show notifications.";
      return;
    }
    function show() {
      const permission = Notification.permission;
      const on = permission === "granted" && localStorage.getItem(NOTIFY_KEY) === "on";
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.disabled = permission === "denied";
      box.dataset.state = permission === "denied" ? "blocked" : on ? "on" : "off";
      state.textContent = permission === "denied"
        ? "Blocked by the browser: allow notifications for this site in its settings."
        : on ? "On in this browser" : "Off";
    }
    button.addEventListener("click", () => {
      if (localStorage.getItem(NOTIFY_KEY) === "on" && Notification.permission === "granted") {
        localStorage.removeItem(NOTIFY_KEY);
        show();
        return;
      }
      Promise.resolve(Notification.requestPermission()).then((permission) => {
        if (permission === "granted") localStorage.setItem(NOTIFY_KEY, "on");
        show();
      });
    });
    box.hidden = false;
    show();
  }

  // --- The socket ----------------------------------------------------------------------
  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function connect() {
    if (stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}${body.dataset.siteWs}`);
    socket.onopen = () => {
      retry = 0;
      body.dataset.siteSocket = "open";
      findHere();
    };
    socket.onmessage = (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch (error) {
        return;
      }
      if (msg && msg.type === "waiting") onWaiting(msg);
      if (msg && msg.type === "found") onFound(msg);
      // A review's progress: the replay's status box listens for it (review_status.html).
      if (msg && msg.type === "review") {
        body.dispatchEvent(new CustomEvent("review-progress", { detail: msg }));
      }
    };
    socket.onclose = (e) => {
      socket = null;
      body.dataset.siteSocket = "closed";
      // Logged out, or the account may not play (games/consumers.py): no reconnecting.
      if (e.code === 4401 || e.code === 4403 || e.code === 4423) {
        stopped = true;
        return;
      }
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 1000 * 2 ** (retry - 1) * (0.75 + Math.random() / 2));
    };
  }

  // --- Find a game (docs/matchmaking.md) ---------------------------------------------
  // The waiting page names its search: its heartbeat, every few seconds and whenever the
  // page is shown or hidden, keeps the search alive (hidden: a Web Push tells of the game);
  // a closed socket drops it. A found game sends the page to its table.
  const findPage = document.getElementById("find-wait");
  const searchId = findPage ? parseInt(findPage.dataset.search, 10) || null : null;

  function findHere() {
    if (searchId) send({ type: "here", search: searchId, hidden: document.visibilityState === "hidden" });
  }

  function onFound(msg) {
    if (searchId && msg.search === searchId && typeof msg.url === "string" && msg.url.startsWith("/")) {
      location.assign(msg.url);
    }
  }

  if (searchId) {
    const findMs = Math.max(1, parseInt(findPage.dataset.heartbeat, 10) || 3) * 1000;
    setInterval(findHere, findMs);
    document.addEventListener("visibilitychange", findHere);
  }

  heartbeat = setInterval(() => send({ type: "here" }), heartbeatMs);
  // Logging out ends the socket at once (the server closes it too).
  document.querySelectorAll('form[action$="/accounts/logout/"]').forEach((f) =>
    f.addEventListener("submit", () => {
      stopped = true;
      clearInterval(heartbeat);
      if (socket) socket.close(1000);
    }));
  setUpSwitch();
  connect();
})();
