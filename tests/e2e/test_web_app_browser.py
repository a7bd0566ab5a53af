"""The installable web app in Chromium against a real Daphne (docs/web-app.md): the service
worker registers and controls the pages, keeps nothing but the offline page and its files
(a table visited is not in Cache Storage), shows the offline page when the network fails,
shows a push's notification (one per game) and opens its table on a click; the profile's
switch subscribes this device, lists it and turns it off.

What is real and what stands in:
- The push events are real ones, delivered by the browser itself through the DevTools
  protocol (`ServiceWorker.deliverPushMessage`, DevTools' "Push" button): the worker's
  handler runs as it does for a push service's message, and the notification it shows is
  read back with `registration.getNotifications()`.
- A notification's click is a synthetic `NotificationEvent` dispatched in the worker: no
  tool can click a notification, and the browser lets only a real click open or focus a
  window, so `clients.openWindow` and `WindowClient.focus` are recorded instead of done.
  What is tested is the handler's choice: which URL, and a tab focused rather than a
  second one opened.
- The push service: this headless Chromium has none (subscribing fails), so the profile's
  tests give the page a stand-in `PushManager` whose subscription has a real P-256 key and
  a Chrome-like endpoint; everything after it (the POST, the row, the list) is the site's.
  The delivery of a message from the site through a push service to a device is
  tests/games/notifications/ (the local Web Push endpoint).

Screenshots (the profile's section, the offline page, 1280x800 and 390x844) go to
test-artifacts/ (and /tmp/shots-app/ when it exists).
"""

import base64
import json
import os
import re
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from playwright.sync_api import expect

from accounts.models import PushSubscription
from tests.browser_support import wait_until
from tests.conftest import make_started_game, make_user
from tests.e2e.conftest import ARTIFACTS, logged_in_page, new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAVY = "rgb(29, 53, 87)"  # site.css --navy: the offline card's top border
SIZES = {"1280": {"width": 1280, "height": 800}, "390": {"width": 390, "height": 844}}
SHOTS = Path("/tmp/shots-app")

CACHED = """async () => {
  const out = {};
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    out[name] = (await cache.keys()).map((r) => r.url);
  }
  return out;
}"""


def shoot(page, name):
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if SHOTS.is_dir():
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def controlled(page):
    """Waits until the worker is active and controls the page; returns its scope."""
    scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    return scope


def the_worker(page):
    context = page.context
    return (
        context.service_workers[0]
        if context.service_workers
        else context.wait_for_event("serviceworker")
    )


def precached(page):
    """The URLs the worker says it keeps, from its own CONFIG."""
    return the_worker(page).evaluate("() => CONFIG.precache.map((u) => new URL(u, location).href)")


def deliver_push(page, base_url, payload):
    """A push message, delivered by the browser to the worker as a push service's would be."""
    cdp = page.context.new_cdp_session(page)
    registrations = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    # Playwright hands over the protocol's events only while it is called: wait through it.
    for _ in range(600):
        if registrations:
            break
        page.wait_for_timeout(50)
    assert registrations, "no registration of the worker"
    data = payload if isinstance(payload, str) else json.dumps(payload)
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": base_url + "/",
            "registrationId": registrations[0]["registrationId"],
            "data": data,
        },
    )
    cdp.detach()


def notifications(page, count):
    """The worker's shown notifications, once there are `count` of them."""
    worker = the_worker(page)
    read = """async () => (await self.registration.getNotifications()).map((n) => (
      {title: n.title, body: n.body, tag: n.tag, icon: n.icon, badge: n.badge, data: n.data}))"""
    return wait_until(
        lambda: (lambda shown: shown if len(shown) == count else None)(worker.evaluate(read)),
        f"{count} notification(s)",
    )


# The click: the handler's choice, with the window actions it may not take without a
# real click recorded instead (see the module's docstring).
CLICK = """async () => {
  const done = [];
  self.clients.openWindow = async (url) => { done.push(["open", url]); return null; };
  WindowClient.prototype.focus = async function () { done.push(["focus", this.url]); return this; };
  const [note] = await self.registration.getNotifications();
  try {
    self.dispatchEvent(new NotificationEvent("notificationclick", { notification: note }));
  } catch (error) {
    // waitUntil refuses an event the browser did not send; the handler has run by then.
  }
  for (let i = 0; i < 100 && !done.length; i++) await new Promise((r) => setTimeout(r, 50));
  return { done, left: (await self.registration.getNotifications()).length };
}"""


def player_with_notifications(browser, base_url, user):
    page = logged_in_page(browser, base_url, user)
    page.context.grant_permissions(["notifications"], origin=base_url)
    return page


def test_the_worker_registers_at_the_root_and_controls_the_pages(daphne_url, chromium_browser):
    page = new_page(chromium_browser)
    page.goto(f"{daphne_url}/accounts/login/")
    assert controlled(page) == f"{daphne_url}/"
    assert page.evaluate("() => navigator.serviceWorker.controller.scriptURL") == (
        f"{daphne_url}/sw.js"
    )
    # Another page of the site is controlled from its first load.
    page.goto(f"{daphne_url}/rules/")
    assert page.evaluate("() => !!navigator.serviceWorker.controller")
    # What it keeps: its precache list, fetched when it was installed; nothing more.
    kept = page.evaluate(CACHED)
    assert len(kept) == 1
    assert sorted(next(iter(kept.values()))) == sorted(precached(page))


def test_a_table_visited_is_never_kept_and_offline_it_shows_the_offline_page(
    daphne_url, chromium_browser
):
    """The attack: a player's hand left on a shared phone. After the table, its fragments
    and its socket have been used, Cache Storage holds only the offline page and its
    files, and the table asked for offline is the offline page, never a kept copy."""
    ana = make_user("app-ana", display_name="Ana")
    game = make_started_game([ana])
    table = f"{daphne_url}/games/{game.pk}/"
    page = logged_in_page(chromium_browser, daphne_url, ana)
    page.goto(f"{daphne_url}/")
    controlled(page)
    page.goto(table)
    expect(page.locator("#table-page")).to_be_visible()
    page.wait_for_function("() => document.body.dataset.siteSocket === 'open'")
    page.goto(f"{daphne_url}/games/mine/")
    page.goto(table)  # a second visit: a cache-as-you-go worker would have it by now
    expect(page.locator("#table-page")).to_be_visible()

    kept = [url for urls in page.evaluate(CACHED).values() for url in urls]
    assert sorted(kept) == sorted(precached(page))
    assert not [url for url in kept if "/games/" in url or "/accounts/" in url]

    page.context.set_offline(True)
    page.goto(table)
    expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
    assert page.url == table  # the address stays the table's: "Try again" reloads it
    assert page.locator("#table-page").count() == 0
    assert "Ana" not in page.content()
    # Its look came from the kept stylesheets (no network).
    border = page.locator(".offline-card").evaluate("e => getComputedStyle(e).borderTopColor")
    assert border == NAVY
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        shoot(page, f"offline-{size}")

    page.context.set_offline(False)
    page.get_by_role("link", name="Try again").click()
    expect(page.locator("#table-page")).to_be_visible()


def test_a_push_shows_one_notification_per_game_with_its_words(daphne_url, chromium_browser):
    ana = make_user("app-push")
    page = player_with_notifications(chromium_browser, daphne_url, ana)
    page.goto(f"{daphne_url}/")
    controlled(page)
    first = {
        "title": "Your turn",
        "body": "Table 7: Bo played.",
        "url": "/games/7/",
        "tag": "game-7",
    }
    deliver_push(page, daphne_url, first)
    [shown] = notifications(page, 1)
    assert (shown["title"], shown["body"], shown["tag"]) == (
        "Your turn",
        "Table 7: Bo played.",
        "game-7",
    )
    assert shown["data"] == {"url": f"{daphne_url}/games/7/"}
    assert shown["icon"].endswith("/static/img/icon-192.png")
    assert shown["badge"].endswith("/static/img/badge-96.png")
    # The same game again: it replaces the first (a phone shows one per game)...
    later = {**first, "title": "Half your time is gone", "body": "Table 7 waits on you."}
    deliver_push(page, daphne_url, later)
    wait_until(
        lambda: notifications(page, 1)[0]["title"] == "Half your time is gone", "the replacement"
    )
    # ...and another game's stands beside it.
    deliver_push(page, daphne_url, {**first, "url": "/games/8/", "tag": "game-8"})
    assert sorted(n["tag"] for n in notifications(page, 2)) == ["game-7", "game-8"]


def test_a_push_the_worker_cannot_read_still_shows_a_notification(daphne_url, chromium_browser):
    """A push left unshown costs a site its permission in Chrome: never silent."""
    page = player_with_notifications(chromium_browser, daphne_url, make_user("app-garbled"))
    page.goto(f"{daphne_url}/")
    controlled(page)
    deliver_push(page, daphne_url, "not json")
    [shown] = notifications(page, 1)
    assert shown["title"] == "Wild Cards Teams" and shown["body"] == "not json"
    assert shown["data"] == {"url": f"{daphne_url}/"}


def test_a_click_opens_the_table_or_focuses_the_tab_already_on_it(daphne_url, chromium_browser):
    ana = make_user("app-click")
    game = make_started_game([ana])
    table = f"{daphne_url}/games/{game.pk}/"
    page = player_with_notifications(chromium_browser, daphne_url, ana)
    page.goto(f"{daphne_url}/")
    controlled(page)
    payload = {"title": "Your turn", "body": "", "url": f"/games/{game.pk}/", "tag": "game-1"}

    deliver_push(page, daphne_url, payload)
    notifications(page, 1)
    clicked = the_worker(page).evaluate(CLICK)
    assert clicked == {"done": [["open", table]], "left": 0}  # opened, and closed

    other = page.context.new_page()
    other.goto(table)
    expect(other.locator("#table-page")).to_be_visible()
    deliver_push(page, daphne_url, payload)
    notifications(page, 1)
    clicked = the_worker(page).evaluate(CLICK)
    assert clicked == {"done": [["focus", table]], "left": 0}  # no second tab


def test_a_push_naming_another_site_opens_this_one(daphne_url, chromium_browser):
    page = player_with_notifications(chromium_browser, daphne_url, make_user("app-away"))
    page.goto(f"{daphne_url}/rules/")  # not on the home page: the click opens it
    controlled(page)
    deliver_push(
        page, daphne_url, {"title": "Hi", "body": "", "url": "https://evil.example/x", "tag": "t"}
    )
    assert notifications(page, 1)[0]["data"] == {"url": f"{daphne_url}/"}
    assert the_worker(page).evaluate(CLICK)["done"] == [["open", f"{daphne_url}/"]]


# The page's push service, stood in for (see the module's docstring): a subscription kept in
# localStorage so that it outlives a navigation, as a browser's does; counts the permission
# asks.
FAKE_PUSH = """
(() => {
  const KEY = "fake-push-subscription";
  localStorage.setItem("fake-permission-asks", localStorage.getItem("fake-permission-asks") || "0");
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = () => {
    localStorage.setItem("fake-permission-asks",
      String(parseInt(localStorage.getItem("fake-permission-asks"), 10) + 1));
    return ask();
  };
  function made(json) {
    return {
      endpoint: json.endpoint,
      options: { applicationServerKey: null, userVisibleOnly: true },
      toJSON: () => json,
      unsubscribe: async () => { localStorage.removeItem(KEY); return true; },
    };
  }
  PushManager.prototype.getSubscription = async function () {
    const json = JSON.parse(localStorage.getItem(KEY) || "null");
    return json ? made(json) : null;
  };
  PushManager.prototype.subscribe = async function (options) {
    if (!(options.applicationServerKey instanceof Uint8Array) ||
        options.applicationServerKey.length !== 65 || !options.userVisibleOnly) {
      throw new Error("subscribed without the site's key");
    }
    localStorage.setItem(KEY, JSON.stringify(window.__nextSubscription));
    return made(window.__nextSubscription);
  };
})();
"""


def a_subscription():
    """What a browser's `PushSubscription.toJSON()` gives: a real P-256 key and auth."""
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    return {
        "endpoint": f"https://fcm.googleapis.com/fcm/send/{uuid.uuid4().hex}",
        "expirationTime": None,
        "keys": {"p256dh": b64(point), "auth": b64(os.urandom(16))},
    }


def with_fake_push(page, subscription):
    page.context.add_init_script(
        FAKE_PUSH + f"\nwindow.__nextSubscription = {json.dumps(subscription)};"
    )


def switch_state(page, state):
    page.wait_for_function(
        "s => document.getElementById('push-switch').dataset.state === s", arg=state
    )


def test_the_profile_switch_subscribes_this_device_lists_it_and_turns_it_off(
    daphne_url, chromium_browser
):
    ana = make_user("app-device", display_name="Ana")
    subscription = a_subscription()
    page = player_with_notifications(chromium_browser, daphne_url, ana)
    with_fake_push(page, subscription)
    page.set_viewport_size(SIZES["1280"])
    page.goto(f"{daphne_url}/accounts/profile/")
    controlled(page)
    switch_state(page, "off")
    section = page.locator("fieldset.notifications")
    expect(section.get_by_role("status")).to_have_text("Off for this device.")
    # The browser's permission is asked on the click, never by the page loading.
    assert page.evaluate("() => localStorage.getItem('fake-permission-asks')") == "0"

    page.get_by_role("button", name="Turn on notifications on this device").click()
    switch_state(page, "on")
    assert page.evaluate("() => localStorage.getItem('fake-permission-asks')") == "1"
    row = wait_until(lambda: PushSubscription.objects.filter(user=ana).first(), "the device's row")
    assert row.endpoint == subscription["endpoint"]
    assert row.p256dh == subscription["keys"]["p256dh"]
    expect(section.get_by_role("status")).to_have_text("On for this device.")
    device = section.locator(f'[data-device="{row.pk}"]')
    expect(device).to_contain_text(row.label or "A browser")
    expect(device.locator(".this-device-tag")).to_be_visible()
    expect(page.get_by_role("button", name="Turn off on this device")).to_have_attribute(
        "aria-pressed", "true"
    )
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        section.scroll_into_view_if_needed()
        section.screenshot(path=str(ARTIFACTS / f"profile-notifications-{size}.png"))
        if SHOTS.is_dir():
            section.screenshot(path=str(SHOTS / f"profile-notifications-{size}.png"))
            shoot(page, f"profile-{size}")

    # Loaded again, the page knows this device is on.
    page.reload()
    switch_state(page, "on")

    page.get_by_role("button", name="Turn off on this device").click()
    switch_state(page, "off")
    wait_until(lambda: not PushSubscription.objects.filter(user=ana).exists(), "the row gone")
    assert page.evaluate("() => localStorage.getItem('fake-push-subscription')") is None
    expect(section.get_by_text("None yet.")).to_be_visible()


def test_a_device_removed_from_the_list_is_off_on_that_device(daphne_url, chromium_browser):
    ana = make_user("app-removed")
    page = player_with_notifications(chromium_browser, daphne_url, ana)
    with_fake_push(page, a_subscription())
    page.goto(f"{daphne_url}/accounts/profile/")
    controlled(page)
    page.get_by_role("button", name="Turn on notifications on this device").click()
    switch_state(page, "on")
    page.get_by_role("button", name=re.compile(r"^Remove")).click()
    expect(page.get_by_role("status").filter(has_text="no more notifications")).to_be_visible()
    switch_state(page, "off")
    assert not PushSubscription.objects.filter(user=ana).exists()


def test_a_renewed_subscription_is_sent_again_from_the_next_page(daphne_url, chromium_browser):
    """The push service renewed the subscription and the worker could not post it (no CSRF
    cookie to read in its browser): the next page of the site sends the new one."""
    ana = make_user("app-renewed")
    page = player_with_notifications(chromium_browser, daphne_url, ana)
    with_fake_push(page, a_subscription())
    page.goto(f"{daphne_url}/accounts/profile/")
    controlled(page)
    page.get_by_role("button", name="Turn on notifications on this device").click()
    switch_state(page, "on")
    renewed = a_subscription()
    page.evaluate("s => localStorage.setItem('fake-push-subscription', JSON.stringify(s))", renewed)
    page.goto(f"{daphne_url}/rules/")
    wait_until(
        lambda: PushSubscription.objects.filter(user=ana, endpoint=renewed["endpoint"]).exists(),
        "the renewed subscription sent",
    )


def test_logging_out_turns_the_devices_notifications_off(daphne_url, chromium_browser):
    """The next person to use the device must not get the notifications of an account that
    is no longer logged in on it."""
    ana = make_user("app-logout")
    page = player_with_notifications(chromium_browser, daphne_url, ana)
    with_fake_push(page, a_subscription())
    page.goto(f"{daphne_url}/accounts/profile/")
    controlled(page)
    page.get_by_role("button", name="Turn on notifications on this device").click()
    switch_state(page, "on")
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in", exact=True)).to_be_visible()
    wait_until(lambda: not PushSubscription.objects.filter(user=ana).exists(), "the row gone")
    assert page.evaluate("() => localStorage.getItem('fake-push-subscription')") is None


@pytest.mark.parametrize(
    ("script", "state", "words"),
    [
        ("delete window.PushManager;", "unsupported", "add the site to the home screen"),
        (
            'Object.defineProperty(Notification, "permission", { get: () => "denied" });',
            "blocked",
            "Blocked by the browser",
        ),
    ],
    ids=["unsupported", "blocked"],
)
def test_the_switch_says_when_this_browser_cannot_or_will_not(
    daphne_url, chromium_browser, script, state, words
):
    page = logged_in_page(chromium_browser, daphne_url, make_user(f"app-{state}"))
    page.context.add_init_script(script)
    page.goto(f"{daphne_url}/accounts/profile/")
    controlled(page)  # the worker's install (its fetches) is over before the server stops
    switch_state(page, state)
    expect(page.locator("#push-state")).to_contain_text(words)
    expect(page.locator("#push-toggle")).to_be_disabled()
    page.set_viewport_size(SIZES["390"])
    page.locator("fieldset.notifications").screenshot(
        path=str(ARTIFACTS / f"profile-notifications-{state}-390.png")
    )
    if SHOTS.is_dir():
        page.locator("fieldset.notifications").screenshot(
            path=str(SHOTS / f"profile-notifications-{state}-390.png")
        )
