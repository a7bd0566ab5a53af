// Every page: registers the service worker (/sw.js, templates/sw.js), which shows the
// offline page when the network is gone and the site's push notifications.
// A logged-in page also keeps this device's push subscription known to the site, and on
// the profile it drives the switch "Notifications on this device" (docs/web-app.md):
// permission is asked only on a click, the subscription is made with the site's VAPID key
// (<body data-vapid-key>) and posted to the site, and the state is shown.
(function () {
  "use strict";
  const body = document.body;
  const canWork = "serviceWorker" in navigator;
  const canPush = canWork && "PushManager" in window && "Notification" in window;
  // What this browser last sent to the site: {endpoint, id}. Lets a page send again a
  // subscription the push service renewed, and the switch remove this device's row.
  const SENT_KEY = "wct-push-sent";

  // The worker must be served from the root to control every page of the site.
  const registration = canWork
    ? navigator.serviceWorker.register("/sw.js", { scope: "/", updateViaCache: "none" })
      .catch(() => null)
    : Promise.resolve(null);

  const vapidKey = body && body.dataset.vapidKey;
  if (!body || !vapidKey) return; // not logged in, or the site has no push
  const subscribeUrl = body.dataset.pushSubscribe;
  const removeUrl = body.dataset.pushRemove; // with 0 for the device's id

  function csrfToken() {
    try {
      return JSON.parse(body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
    } catch (error) {
      return "";
    }
  }

  function sent() {
    try {
      return JSON.parse(localStorage.getItem(SENT_KEY) || "null");
    } catch (error) {
      return null;
    }
  }

  function keyBytes(base64url) {
    const base64 = (base64url + "=".repeat((4 - (base64url.length % 4)) % 4))
      .replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  }

  function sameKey(subscription) {
    const key = subscription.options && subscription.options.applicationServerKey;
    if (!key) return true; // the browser does not say: trust it
    const have = new Uint8Array(key);
    const want = keyBytes(vapidKey);
    return have.length === want.length && have.every((b, i) => b === want[i]);
  }

  async function pushManager() {
    const reg = await registration;
    if (!reg) throw new Error("the service worker could not start");
    await navigator.serviceWorker.ready;
    return reg.pushManager;
  }

  async function post(url, options) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      ...options,
      headers: { "X-CSRFToken": csrfToken(), ...(options.headers || {}) },
    });
    if (!response.ok) throw new Error(`the site answered ${response.status}`);
    return response;
  }

  async function send(subscription, url) {
    const response = await post(url, {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(subscription.toJSON()),
    });
    const answer = await response.json().catch(() => ({}));
    localStorage.setItem(SENT_KEY, JSON.stringify({ endpoint: subscription.endpoint, id: answer.id }));
  }

  // A subscription the push service renewed (the worker's pushsubscriptionchange could not
  // post it) is sent from the next page. Only a subscription this browser sent before:
  // a page never turns notifications on by itself.
  async function resend() {
    const url = subscribeUrl;
    const last = sent();
    if (!url || !last || !canPush || Notification.permission !== "granted") return;
    const subscription = await (await pushManager()).getSubscription();
    if (subscription && subscription.endpoint !== last.endpoint) await send(subscription, url);
  }

  // Logging out turns this device's notifications off: a device does not get the
  // notifications of an account that is no longer logged in on it (the next person to
  // use it would read them). Bounded, so that logging out never hangs.
  async function forgetDevice(removeTemplate) {
    const last = sent();
    localStorage.removeItem(SENT_KEY);
    if (!canPush) return;
    const subscription = await (await pushManager()).getSubscription();
    // Both at once: once the browser has unsubscribed, the push service refuses the site's
    // next message (410) and the site drops the row anyway, should the post not get through.
    await Promise.all([
      subscription ? subscription.unsubscribe() : null,
      last && last.id && removeTemplate
        // JSON asked: no redirect to follow, no "removed" message left for the next page.
        ? post(removeTemplate.replace("/0/", `/${last.id}/`), { headers: { Accept: "application/json" } })
          .catch(() => null)
        : null,
    ]);
  }

  document.querySelectorAll('form[action$="/accounts/logout/"]').forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!sent()) return;
      event.preventDefault();
      const done = () => form.submit();
      Promise.race([forgetDevice(removeUrl), new Promise((r) => setTimeout(r, 3000))])
        .catch(() => null).then(done);
    });
  });

  // --- The profile's switch -----------------------------------------------------------
  const box = document.getElementById("push-switch");
  if (!box) {
    resend().catch(() => null);
    return;
  }
  const button = document.getElementById("push-toggle");
  const state = document.getElementById("push-state");

  const WORDS = {
    unsupported: "Not available in this browser. On an iPhone or iPad, add the site to the home screen first (Share, then Add to Home Screen) and open it from there.",
    blocked: "Blocked by the browser: allow notifications for this site in its settings, then come back.",
    on: "On for this device.",
    off: "Off for this device.",
    busy: "Just a moment…",
  };

  function show(name, detail) {
    box.dataset.state = name;
    state.textContent = detail ? `${WORDS[name] || ""} ${detail}`.trim() : WORDS[name];
    button.disabled = name === "unsupported" || name === "blocked" || name === "busy";
    button.setAttribute("aria-pressed", name === "on" ? "true" : "false");
    button.textContent = name === "on" ? "Turn off on this device" : "Turn on notifications on this device";
    markThisDevice(name === "on");
  }

  function markThisDevice(on) {
    const last = sent();
    document.querySelectorAll("#push-devices [data-device]").forEach((row) => {
      const here = on && !!last && String(last.id) === row.dataset.device;
      row.classList.toggle("this-device", here);
      const tag = row.querySelector(".this-device-tag");
      if (tag) tag.hidden = !here;
    });
  }

  // The devices' list is the server's: read again after a change, not guessed. With it
  // the remove buttons' forms, which live outside the profile's form.
  async function refreshDevices() {
    const response = await fetch(location.pathname, { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    ["push-devices", "push-remove-forms"].forEach((id) => {
      const now = document.getElementById(id);
      const then = fresh.getElementById(id);
      if (now && then) now.replaceWith(document.adoptNode(then));
    });
  }

  async function current() {
    if (!canPush) return "unsupported";
    if (Notification.permission === "denied") return "blocked";
    if (Notification.permission !== "granted") return "off";
    const subscription = await (await pushManager()).getSubscription();
    // On only if the site has it too: a device removed from the list is off here.
    const last = sent();
    return subscription && last && last.endpoint === subscription.endpoint && listed(last.id) ? "on" : "off";
  }

  function listed(id) {
    return !!document.querySelector(`#push-devices [data-device="${CSS.escape(String(id))}"]`);
  }

  async function turnOn() {
    // Asked only here, on the player's click: a browser blocks sites that ask unprompted.
    const permission = await Notification.requestPermission();
    if (permission !== "granted") return show(permission === "denied" ? "blocked" : "off");
    const manager = await pushManager();
    let subscription = await manager.getSubscription();
    if (subscription && !sameKey(subscription)) {
      // Made with an older key of the site: the push service would refuse our messages.
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription = subscription || await manager.subscribe({
      userVisibleOnly: true, applicationServerKey: keyBytes(vapidKey),
    });
    await send(subscription, subscribeUrl);
    await refreshDevices();
    show("on");
  }

  async function turnOff() {
    await forgetDevice(removeUrl);
    await refreshDevices();
    show("off");
  }

  button.addEventListener("click", () => {
    const wasOn = box.dataset.state === "on";
    show("busy");
    (wasOn ? turnOff() : turnOn()).catch((error) => {
      current().then((name) => show(name, `It did not work (${error.message || error}); try again.`));
    });
  });

  box.hidden = false;
  if (!canPush) {
    show("unsupported");
    return;
  }
  resend().catch(() => null).then(current).then((name) => show(name), () => show("off"));
})();
