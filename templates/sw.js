// The service worker of Wild Cards Teams (docs/web-app.md), served at /sw.js by
// config.webapp.service_worker so that its scope is the whole site.
//
// THE RULE: this worker keeps the offline page and the few static files it needs, and
// NOTHING ELSE. It never puts into a cache a page of /games/ (a table, its fragments, My
// games), an answer of the Bot API, a socket, or any answer that depended on a session: a
// table's page holds a player's hand, and a cache outlives the log-out and is read by
// whoever uses the device next. Every cache write goes through `keep()`, which refuses any
// URL not in CONFIG.precache, and the precache list itself is checked against the same
// refusal (tests/e2e/test_web_app_browser.py reads the caches after a table was visited).
//
// Pages are asked of the network, always; the offline page is shown only when the network
// fails (not for a 404 or a 500, which are real answers).
"use strict";

const CONFIG = {{ config|safe }};
const CACHE = `wct-offline-${CONFIG.version}`;
const NEVER = [/^\/games\//, /^\/api\//, /^\/ws\//, /^\/accounts\//, /^\/admin\//];

function mayKeep(url) {
  const u = new URL(url, self.location.origin);
  if (u.origin !== self.location.origin || u.search) return false;
  if (NEVER.some((pattern) => pattern.test(u.pathname))) return false;
  return CONFIG.precache.includes(u.pathname);
}

async function keep(cache, url) {
  if (!mayKeep(url)) throw new Error(`the worker may not keep ${url}`);
  // Without cookies: what is kept is what anybody would be given.
  const response = await fetch(new Request(url, { credentials: "omit", cache: "no-cache" }));
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  await cache.put(url, response);
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(CONFIG.precache.map((url) => keep(cache, url)));
    // A new worker changes nothing a page relies on: take over at once.
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n)));
    // The page is asked of the network while the worker starts, not after.
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim();
  })());
});

async function page(event) {
  try {
    const preloaded = await event.preloadResponse;
    if (preloaded) return preloaded;
    return await fetch(event.request);
  } catch (error) {
    // The network failed: the kept offline page, never a kept copy of the page asked.
    const offline = await caches.match(CONFIG.offline, { cacheName: CACHE, ignoreVary: true });
    return offline || Response.error();
  }
}

async function offlineAsset(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const kept = await caches.match(request, { cacheName: CACHE, ignoreVary: true });
    return kept || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (mayKeep(request.url)) {
    event.respondWith(offlineAsset(request));
  }
  // Everything else (htmx fragments, the API, sockets, other files) is left to the
  // browser as if there were no worker.
});

// --- Web Push ------------------------------------------------------------------------
// The payload the site sends (games/actions/webpush.py): {"title", "body", "url", "tag"},
// tag "game-<id>" so that a newer notification of a game replaces the older one. It
// carries no card; a notification opens only a page of this site.

function sameSiteUrl(url) {
  try {
    const u = new URL(url || "/", self.location.origin);
    return u.origin === self.location.origin ? u.href : new URL("/", self.location.origin).href;
  } catch (error) {
    return new URL("/", self.location.origin).href;
  }
}

function notificationFrom(data) {
  let payload = {};
  if (data) {
    try {
      payload = data.json() || {};
    } catch (error) {
      payload = { body: data.text() };
    }
  }
  const title = typeof payload.title === "string" && payload.title ? payload.title : "Wild Cards Teams";
  const options = {
    body: typeof payload.body === "string" ? payload.body : "",
    icon: CONFIG.icon,
    badge: CONFIG.badge,
    data: { url: sameSiteUrl(payload.url) },
  };
  if (typeof payload.tag === "string" && payload.tag) {
    options.tag = payload.tag;
    // A newer message of the same game replaces the older one and is still heard.
    options.renotify = true;
  }
  return { title, options };
}

self.addEventListener("push", (event) => {
  // Always shown: a push the browser sees go unshown may cost the site its permission.
  const { title, options } = notificationFrom(event.data);
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = sameSiteUrl(event.notification.data && event.notification.data.url);
  event.waitUntil((async () => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const open = windows.find((w) => w.url.split("#")[0] === url.split("#")[0]);
    if (open) return open.focus();
    return self.clients.openWindow(url);
  })());
});

// The push service changed this device's subscription (it expired or was renewed). The
// new one is sent to the site; a browser that gives the worker no CSRF cookie to read
// leaves it to the next page of the site (static/js/push.js sends it again when the
// subscription it holds is not the one it last sent).
async function csrfToken() {
  if (!self.cookieStore) return null;
  const cookie = await self.cookieStore.get("csrftoken");
  return cookie ? cookie.value : null;
}

self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil((async () => {
    let subscription = event.newSubscription;
    if (!subscription) {
      const old = event.oldSubscription && event.oldSubscription.options;
      if (!old || !old.applicationServerKey) return;
      subscription = await self.registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: old.applicationServerKey,
      });
    }
    const token = await csrfToken();
    if (!token) return;
    await fetch(CONFIG.subscribe, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": token },
      body: JSON.stringify(subscription.toJSON()),
    });
  })());
});
