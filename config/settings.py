"""Settings for Wild Cards Teams.

Everything comes from environment variables, with development defaults that
just work: SQLite, an in-memory channel layer and an in-process Celery worker.
Set DATABASE_URL and REDIS_URL to run on PostgreSQL and Redis.
"""

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from kombu import Exchange, Queue

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def envint(name, default):
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def envstr(name, default=""):
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def envlist(name, default):
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = envbool("DEBUG", True)
# The default is for development only; a real deployment must set SECRET_KEY.
SECRET_KEY = envstr("SECRET_KEY", "dev-only-not-secret-wildcards-teams")
if not DEBUG and SECRET_KEY.startswith("dev-only"):
    raise RuntimeError("Set SECRET_KEY when DEBUG is off")
if not DEBUG and not os.environ.get("ALLOWED_HOSTS"):
    raise RuntimeError("Set ALLOWED_HOSTS (the site's host names) when DEBUG is off")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

# --- HTTPS (docs/security.md) ------------------------------------------------
# Off in development (`make run` serves plain HTTP on 127.0.0.1); on by default as
# soon as DEBUG is off, each one overridable. `manage.py check --deploy` passes
# with the production defaults (tests/security/test_settings.py runs it).
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", not DEBUG)
# Behind a reverse proxy that ends TLS, Django sees plain HTTP: name the header the
# proxy sets, e.g. SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https. Only for a
# proxy that overwrites that header on every request (a client could send it too).
_proxy_header = envlist("SECURE_PROXY_SSL_HEADER", [])
if _proxy_header:
    if len(_proxy_header) != 2:
        raise RuntimeError(
            "SECURE_PROXY_SSL_HEADER is 'HEADER,value', e.g. HTTP_X_FORWARDED_PROTO,https"
        )
    SECURE_PROXY_SSL_HEADER = tuple(_proxy_header)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SITE_URL = envstr("SITE_URL", "http://127.0.0.1:8000")

# --- Content-Security-Policy (docs/security.md) ------------------------------------
# Only our own files may run or style a page: no inline script, handler or <style>, no
# eval, so injected markup runs nothing. 'self' in connect-src covers the table's
# same-origin ws:/wss: socket (CSP 3; tests/security/test_csp_browser.py sees it work).
# base.html turns off the <style> htmx would insert. Django's admin runs under it as is.
# No style attribute either: the seat plates are placed by CSS from the reader's seat
# (static/css/table.css), and tests/security/test_csp.py finds none on any page.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        # The service worker at /sw.js and the web app's manifest (config/webapp.py,
        # docs/web-app.md): said, not left to default-src, so that tightening it keeps them.
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

INSTALLED_APPS = [
    "daphne",  # first, so that runserver serves ASGI (websockets too)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "accounts",
    "lobby",
    "games",
]

MIDDLEWARE = [
    # First: /healthz, /readyz and /metrics are answered before anything reads the request
    # (its host, its session) or logs it (config/health.py, docs/deploy.md).
    "config.health.HealthMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Content-Security-Policy (CONTENT_SECURITY_POLICY below, docs/security.md).
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "accounts.middleware.UserTimezoneMiddleware",
    "accounts.middleware.SeenMiddleware",
    # The Bot API's X-RateLimit-* headers, on answers its token check charged for.
    "games.api.quota.RateLimitHeaders",
    "config.middleware.RefuseUnroutablePathMiddleware",  # last: docs/security.md
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "builtins": ["template_partials.templatetags.partials"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.context.my_games",
                # VAPID_PUBLIC_KEY: the key a browser subscribes to Web Push with.
                "accounts.context.web_push",
            ],
        },
    },
    {
        # The table's live parts only (config/jinja2.py says why and how it matches the
        # Django engine above); rendered through games.presenters.table.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "config.jinja2.environment"},
    },
]

# --- Database -------------------------------------------------------------
DATABASE_URL = envstr("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}")
# CONN_MAX_AGE stays 0: under ASGI each sync call runs in a thread that may
# never be reused, and persistent connections would leak.
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and envint(
    "DATABASE_POOL_SIZE", 10
):
    # psycopg's pool, one per process: closing a connection (after every request and
    # socket call) hands it back instead of ending it, so a move does not pay a new
    # PostgreSQL connection, and a burst of requests waits for one of DATABASE_POOL_SIZE
    # connections instead of exhausting the server's max_connections (docs/load.md).
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": envint("DATABASE_POOL_SIZE", 10),
        "timeout": 20,
    }
    # The pool checks a connection as it hands it out (an empty query, one round trip) and
    # opens another in place of a dead one: after PostgreSQL restarts, or ends the site's
    # sessions, every pooled connection of every process is dead, and without the check
    # each would fail one request or move before the pool dropped it (tests/faults/
    # test_web_connections.py).
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = envbool("DATABASE_HEALTH_CHECKS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # SQLite has no row locks; IMMEDIATE takes the write lock at BEGIN so that
    # the game transaction is serialised as select_for_update does on Postgres.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not shared-cache memory, so that test threads (a worker) wait
    # for the lock instead of failing with "table is locked".
    # SQLITE_TEST_NAME lets two test runs on one checkout keep apart.
    DATABASES["default"]["TEST"] = {
        "NAME": envstr("SQLITE_TEST_NAME", str(BASE_DIR / "var" / "test-db.sqlite3"))
    }
# A read replica for the history pages (games/replica.py, docs/deploy.md): a PostgreSQL
# standby the site never writes to. In tests it mirrors "default" (Django's TEST MIRROR).
DATABASE_REPLICA_URL = envstr("DATABASE_REPLICA_URL", "")
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = dj_database_url.parse(DATABASE_REPLICA_URL, conn_max_age=0)
    if "pool" in DATABASES["default"].get("OPTIONS", {}):
        DATABASES["replica"].setdefault("OPTIONS", {})["pool"] = dict(
            DATABASES["default"]["OPTIONS"]["pool"]
        )
        DATABASES["replica"]["CONN_HEALTH_CHECKS"] = DATABASES["default"]["CONN_HEALTH_CHECKS"]
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["games.store.replica.HistoryReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer, cache, Celery broker ---------------------------
REDIS_URL = envstr("REDIS_URL", "")
# `make test` runs the suite in parallel (pytest-xdist), and each worker, which has a test
# database of its own, gets a Redis database of its own too: worker n uses database n + 1 of
# the same server, so that no worker's pushes, cache or Celery tasks (with the broker below,
# taken from REDIS_URL) reach another's. The processes a test starts inherit the worker's
# name and land on the same database.
if REDIS_URL and os.environ.get("PYTEST_XDIST_WORKER", "").startswith("gw"):
    _parts = urlsplit(REDIS_URL)
    _database = int(os.environ["PYTEST_XDIST_WORKER"][2:]) + 1
    REDIS_URL = urlunsplit(_parts._replace(path=f"/{_database}"))

# Socket handshakes a web process lets wait for their answer at once; more are closed with
# 4503 and their pages try again (config.sockets.HandshakeLimit).
SOCKET_HANDSHAKES_WAITING = envint("SOCKET_HANDSHAKES_WAITING", 32)

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's layer whose Redis pools wait for a free connection instead
            # of failing when many sockets close at once (config/channel_layer.py).
            "BACKEND": "config.channel_layer.ChannelLayer",
            # channels-redis waits up to 5 s for a message while redis-py's own read timeout
            # is 5 s too: an idle Daphne then drops sockets with "Timeout reading". Twice
            # that, and no more: a Redis that goes silent (packets lost, nothing refused) is
            # noticed after this long, its sockets closed to reconnect; at 30 s a web host
            # cut from Redis for 30 s sat on quiet sockets until TCP's retransmissions came
            # back (bench/soak.py --hosts, tests/faults/test_hosts.py).
            # capacity: every socket of one Daphne process shares one Redis queue (its
            # "specific" channels), and past `capacity` messages waiting there channels-redis
            # drops group sends silently: 100 (the default) is one busy second of pushes
            # at a few hundred tables (bench/load.py, docs/load.md).
            "CONFIG": {
                "hosts": [
                    {"address": REDIS_URL, "socket_timeout": envint("REDIS_SOCKET_TIMEOUT", 10)}
                ],
                "capacity": envint("CHANNEL_CAPACITY", 2000),
                "max_connections": envint("CHANNEL_REDIS_CONNECTIONS", 100),
            },
        }
    }
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": envstr("CACHE_KEY_PREFIX", "wct"),
        }
    }
else:
    # One process only: `manage.py runsite` runs web and worker together.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The in-memory broker's URL names a host only so that kombu does not warn it has none.
CELERY_BROKER_URL = envstr("CELERY_BROKER_URL", REDIS_URL or "memory://localhost/")
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# Celery's Django fixup closes the worker's connections around every task and, in a prefork
# child with the pool above, the whole pool: every task opened a new PostgreSQL session
# (about 4.5 ms of the server's CPU each). In a `celery worker` process (config/celery.py)
# it then recycles the pool only every this many tasks, and each task hands its connection
# back to the pool in between; 0 keeps Celery's own way.
WORKER_DB_REUSE_MAX = envint("CELERY_DB_REUSE_MAX", 5000)
# With Redis, whether a push carries only what changed since the game's last push, against a
# memory of that push in Redis (games.push.changes): about half the bytes a seat, but cutting
# a push costs more CPU than sending the whole one saves (docs/load.md, "Pushes cut down
# against a memory in Redis"), so whole pushes stay the default there. The embedded site
# always cuts its pushes (its one process makes them all).
PUSH_CUT_WITH_REDIS = envbool("PUSH_CUT_WITH_REDIS", False)
# A queue of its own lets two sites (or a test run) share one Redis.
CELERY_TASK_DEFAULT_QUEUE = envstr("CELERY_QUEUE", "celery")
# Reviews of finished games (games.actions.review, docs/review.md) work in a queue of their
# own, behind the bots' moves: a worker consumes its queues in this order, and with
# kombu's "priority" queue order (config/celery.py) it takes a review's slice only when the
# site's own queue is empty. A worker started with no -Q consumes both; a deployment may
# give reviews workers of their own (-Q reviews) so that they never hold a bot's worker.
CELERY_REVIEW_QUEUE = envstr(
    "CELERY_REVIEW_QUEUE",
    "reviews" if CELERY_TASK_DEFAULT_QUEUE == "celery" else f"{CELERY_TASK_DEFAULT_QUEUE}-reviews",
)
# Each queue its own exchange and key: a Queue given only its name would be bound to the
# default exchange with the default key, and every task of the site would be copied into it.
CELERY_TASK_QUEUES = tuple(
    Queue(name, Exchange(name), routing_key=name)
    for name in (CELERY_TASK_DEFAULT_QUEUE, CELERY_REVIEW_QUEUE)
)
# The review tasks are sent with `queue=CELERY_REVIEW_QUEUE` (games.actions.review, the
# beat entry below) rather than through CELERY_TASK_ROUTES: a send's own queue holds
# whatever routes a test or a second site sets, and routes set here would hide theirs.
# A review's slice stops after the decision that takes it past this many milliseconds, and
# queues the next one: a worker is never held for long, and a bot's move that arrives
# meanwhile waits at most one slice even on a worker that runs both queues.
REVIEW_SLICE_MS = envint("REVIEW_SLICE_MS", 2000)
# A fixed number of samples per decision instead of the core's budget per table size
# (games.bots.review.REVIEW_BUDGET); 0: the core's. The tests' tiny reviews set it.
REVIEW_ROLLOUTS = envint("REVIEW_ROLLOUTS", 0)
# An unfinished review that has not moved for this long has its next slice sent again by
# the sweep below (its message lost with a broker's restart; a worker killed mid-slice
# gives it back by itself, CELERY_TASK_ACKS_LATE).
REVIEW_STALL_SECONDS = envint("REVIEW_STALL_SECONDS", 600)
CELERY_BEAT_SCHEDULE = {
    # Re-sends bot moves that were lost (e.g. the in-process broker was
    # restarted); a bot whose move is queued normally is not touched.
    "wake-stalled-bots": {
        "task": "games.tasks.wake_stalled_bots",
        "schedule": envint("BOT_SWEEP_SECONDS", 10),
    },
}
CELERY_BEAT_SCHEDULE["sweep-reviews"] = {
    "task": "games.tasks.review_sweep",
    "schedule": 60,
    "options": {"expires": 60, "queue": CELERY_REVIEW_QUEUE},
}
CELERY_BEAT_SCHEDULE["sweep-clocks"] = {
    # Time-outs, reminders and ended holds (docs/clocks.md): one indexed query a
    # second. Real-time time-outs also have a countdown task due at the second.
    "task": "games.tasks.sweep_clocks",
    "schedule": envint("CLOCK_SWEEP_SECONDS", 1),
    # A sweep that waited behind a busy worker is useless: the next one is coming.
    "options": {"expires": 10},
}
# A bot account's events (GET /api/bot/events, docs/bot-accounts.md) are kept this many
# days, then pruned by the hourly task below: a client away longer reads from the oldest kept.
ACCOUNT_EVENTS_KEEP_DAYS = envint("ACCOUNT_EVENTS_KEEP_DAYS", 7)
CELERY_BEAT_SCHEDULE["prune-account-events"] = {
    "task": "games.tasks.prune_account_events",
    "schedule": 3600,
    "options": {"expires": 3600},
}
# --- Find a game (docs/matchmaking.md) ------------------------------------------
# A real-time search belongs to an open find page: its site socket says "here" every
# SEARCH_HEARTBEAT_SECONDS, and a search not heard from for SEARCH_ALIVE_SECONDS (a page
# in the background: SEARCH_HIDDEN_ALIVE_SECONDS, since browsers slow a hidden tab's timers)
# is not matched and is closed by the sweep. A closed socket leaves SEARCH_CLOSE_GRACE_SECONDS
# for a reload. A turn-by-turn search needs no page and lasts SEARCH_TURN_BASED_HOURS.
SEARCH_HEARTBEAT_SECONDS = envint("SEARCH_HEARTBEAT_SECONDS", 3)
SEARCH_ALIVE_SECONDS = envint("SEARCH_ALIVE_SECONDS", 10)
SEARCH_HIDDEN_ALIVE_SECONDS = envint("SEARCH_HIDDEN_ALIVE_SECONDS", 75)
SEARCH_CLOSE_GRACE_SECONDS = envint("SEARCH_CLOSE_GRACE_SECONDS", 3)
SEARCH_TURN_BASED_HOURS = envint("SEARCH_TURN_BASED_HOURS", 24)
# Rated searches: people within SEARCH_RATING_GAP points (the shown rating) of each other,
# the gap growing by SEARCH_RATING_WIDEN every SEARCH_RATING_WIDEN_SECONDS waited.
SEARCH_RATING_GAP = envint("SEARCH_RATING_GAP", 100)
SEARCH_RATING_WIDEN = envint("SEARCH_RATING_WIDEN", 50)
SEARCH_RATING_WIDEN_SECONDS = envint("SEARCH_RATING_WIDEN_SECONDS", 10)
# Each new or changed search runs the matcher once its row commits; beat's sweep is the
# safety net (a match missed, the bots' wait ended, stale searches closed).
CELERY_BEAT_SCHEDULE["sweep-searches"] = {
    "task": "lobby.tasks.sweep_searches",
    "schedule": envint("SEARCH_SWEEP_SECONDS", 2),
    "options": {"expires": 10},
}
# Health (config/health.py, docs/deploy.md): beat sends the worker's heartbeat task and
# records its own every HEARTBEAT_SECONDS; /readyz wants both younger than HEARTBEAT_MAX_AGE.
HEARTBEAT_SECONDS = envint("HEARTBEAT_SECONDS", 10)
HEARTBEAT_MAX_AGE = envint("HEARTBEAT_MAX_AGE", 60)
CELERY_BEAT_SCHEDULE["heartbeat"] = {
    "task": "config.celery.heartbeat",
    "schedule": HEARTBEAT_SECONDS,
    # One that waited in the queue longer than /readyz tolerates says nothing of now.
    "options": {"expires": HEARTBEAT_MAX_AGE},
}
# /metrics answers requests from this machine itself; any other must send this token as
# `Authorization: Bearer <token>` (unset: none may).
METRICS_TOKEN = envstr("METRICS_TOKEN", "")
# How long a bot decision may wait before the sweep sends it again.
BOT_STALL_SECONDS = envint("BOT_STALL_SECONDS", 15)
# In real time a bot waits about this long before its move (two thirds to four thirds of
# it), so that people can follow the table; 0 plays at once. Turn-by-turn games: at once.
BOT_PACE_MS = envint("BOT_PACE_MS", 1500)
# Clocks (docs/clocks.md).
CLOCK_SWEEP_BATCH = envint("CLOCK_SWEEP_BATCH", 50)
DISCONNECT_HOLD_SECONDS = envint("DISCONNECT_HOLD_SECONDS", 120)
TIMEOUTS_BEFORE_BOT = envint("TIMEOUTS_BEFORE_BOT", 3)
STAND_IN_BOT_LEVEL = envstr("STAND_IN_BOT_LEVEL", "normal")
# Ratings (docs/ratings.md): a player is on a table size's leaderboard after this many rated
# games there (before it their rating is provisional).
RATING_MIN_GAMES = envint("RATING_MIN_GAMES", 5)
# An email the SMTP server refused (or could not be reached for) is tried again this late.
OUTBOX_RETRY_SECONDS = envint("OUTBOX_RETRY_SECONDS", 60)
# Emails about games (docs/clocks.md, "Emails"): a player seen on the site (any page open,
# or any request) in the last EMAIL_AWAY_MINUTES gets none; an open page says it is still
# there every SEEN_HEARTBEAT_SECONDS, and the last-seen time is written at most every
# SEEN_WRITE_SECONDS.
EMAIL_AWAY_MINUTES = envint("EMAIL_AWAY_MINUTES", 5)
SEEN_HEARTBEAT_SECONDS = envint("SEEN_HEARTBEAT_SECONDS", 60)
SEEN_WRITE_SECONDS = envint("SEEN_WRITE_SECONDS", 60)
# Table chat (docs/chat.md): at most CHAT_RATE_LIMIT lines per person and table in any
# CHAT_RATE_WINDOW seconds (a flood drowns the table for everyone), and the page shows the
# newest CHAT_HISTORY lines of each room it may read.
CHAT_RATE_LIMIT = envint("CHAT_RATE_LIMIT", 5)
CHAT_RATE_WINDOW = envint("CHAT_RATE_WINDOW", 10)
CHAT_HISTORY = envint("CHAT_HISTORY", 50)
# The verify page (docs/security.md, "Limits"): a game's own check is computed once and
# cached; a check with other values re-deals the whole game, so a person may ask for at
# most VERIFY_RATE_LIMIT of those in VERIFY_RATE_WINDOW seconds.
VERIFY_RATE_LIMIT = envint("VERIFY_RATE_LIMIT", 10)
VERIFY_RATE_WINDOW = envint("VERIFY_RATE_WINDOW", 60)
# Reports to the moderators (docs/security.md): at most REPORT_RATE_LIMIT per reporter in any
# REPORT_RATE_WINDOW seconds, besides one open report per reporter, table and player.
REPORT_RATE_LIMIT = envint("REPORT_RATE_LIMIT", 10)
REPORT_RATE_WINDOW = envint("REPORT_RATE_WINDOW", 24 * 60 * 60)

# --- Web Push (docs/notifications.md) ------------------------------------------
# The VAPID key that signs every push: a PEM or the base64url of the raw private number.
# Unset with DEBUG on: generated once into VAPID_KEY_FILE and kept (a new key would orphan
# every subscribed device), as the embedded SECRET_KEY is for development only. Unset with
# DEBUG off: Web Push is off (several web processes must share one key).
VAPID_PRIVATE_KEY = envstr("VAPID_PRIVATE_KEY", "")
VAPID_KEY_FILE = str(BASE_DIR / "var" / "vapid_private.pem") if DEBUG else ""
# Who the push services may write to about this sender (RFC 8292's `sub`).
VAPID_SUBJECT = envstr("VAPID_SUBJECT", "mailto:admin@localhost")
# A push service's address must be https; http only with this on (the tests' local one).
WEBPUSH_ALLOW_HTTP = envbool("WEBPUSH_ALLOW_HTTP", False)
# How long a push service keeps a message for a device that is offline (its TTL header).
WEBPUSH_TTL_SECONDS = envint("WEBPUSH_TTL_SECONDS", 12 * 3600)
WEBPUSH_TIMEOUT_SECONDS = envint("WEBPUSH_TIMEOUT_SECONDS", 10)
# The push services a subscription may name (a host, or a suffix after a dot): the site
# POSTs to the endpoint a browser gives, so not to any address an account likes. Empty:
# any host. These are Chrome's, Firefox's, Safari's and Edge's.
WEBPUSH_HOSTS = envlist(
    "WEBPUSH_HOSTS",
    ["fcm.googleapis.com", "push.services.mozilla.com", "push.apple.com", "notify.windows.com"],
)
# Devices one account may subscribe; the oldest goes when a new one is past the limit.
WEBPUSH_MAX_DEVICES = envint("WEBPUSH_MAX_DEVICES", 20)

# --- Accounts ---------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
# Refuses banned and suspended accounts, at log-in and on every request.
AUTHENTICATION_BACKENDS = ["accounts.backends.PlayerBackend"]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "lobby:index"
LOGOUT_REDIRECT_URL = "lobby:index"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Rate limits: attempts allowed per window (seconds).
LOGIN_RATE_LIMIT = envint("LOGIN_RATE_LIMIT", 5)
LOGIN_RATE_IP_LIMIT = envint("LOGIN_RATE_IP_LIMIT", 20)
LOGIN_RATE_WINDOW = envint("LOGIN_RATE_WINDOW", 15 * 60)
SIGNUP_RATE_LIMIT = envint("SIGNUP_RATE_LIMIT", 5)
SIGNUP_RATE_WINDOW = envint("SIGNUP_RATE_WINDOW", 60 * 60)
# Email address changes per account per window; each sends a mail to the new address.
EMAIL_CHANGE_RATE_LIMIT = envint("EMAIL_CHANGE_RATE_LIMIT", 3)
EMAIL_CHANGE_RATE_WINDOW = envint("EMAIL_CHANGE_RATE_WINDOW", 24 * 60 * 60)
# Confirmation links per account: one per interval (seconds), so many per day, counting
# the ones sent by sign-up and by an email change.
CONFIRM_RESEND_INTERVAL = envint("CONFIRM_RESEND_INTERVAL", 5 * 60)
CONFIRM_RESEND_DAILY = envint("CONFIRM_RESEND_DAILY", 5)
# Password-reset requests per window: per email address (past it the page answers as
# always and sends nothing, so it tells nobody whether an account uses the address) and per
# client address (past it the form is refused with 429: that says nothing about accounts).
PASSWORD_RESET_RATE_LIMIT = envint("PASSWORD_RESET_RATE_LIMIT", 3)
PASSWORD_RESET_IP_LIMIT = envint("PASSWORD_RESET_IP_LIMIT", 10)
PASSWORD_RESET_RATE_WINDOW = envint("PASSWORD_RESET_RATE_WINDOW", 60 * 60)
# The Bot API (docs/bot-api.md): requests per bot account per window (seconds). A bot that polls
# instead of listening to the stream, or loops on a refused move, is slowed before it
# weighs on the database; a game needs far fewer.
API_RATE_LIMIT = envint("API_RATE_LIMIT", 120)
API_RATE_WINDOW = envint("API_RATE_WINDOW", 60)
# Live (not revoked) tokens a bot account may hold at once.
API_TOKENS_PER_BOT = envint("API_TOKENS_PER_BOT", 10)
# The rate limit above is per bot ACCOUNT: its HTTP requests and stream act frames, all its
# tokens together (tokens are free to mint). Tokens a bot account may create in 24 hours,
# revoked ones included; streams it may hold open at once, each registered for
# API_STREAM_TTL seconds and refreshed by its re-checks (BOT_STREAM_RECHECK_SECONDS, 10),
# so that a crashed process's streams stop counting by themselves.
API_TOKENS_PER_DAY = envint("API_TOKENS_PER_DAY", 10)
API_STREAMS_PER_BOT = envint("API_STREAMS_PER_BOT", 10)
API_STREAM_TTL = envint("API_STREAM_TTL", 60)
EMAIL_CONFIRM_MAX_AGE = envint("EMAIL_CONFIRM_MAX_AGE", 3 * 24 * 3600)

# --- Email -------------------------------------------------------------------
EMAIL_HOST = envstr("EMAIL_HOST", "")
# Without an SMTP server each email is printed to stdout between two banners (config/mail.py).
EMAIL_BACKEND = envstr(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "config.mail.ConsoleBackend",
)
EMAIL_PORT = envint("EMAIL_PORT", 25)
EMAIL_HOST_USER = envstr("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = envstr("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = envstr("DEFAULT_FROM_EMAIL", "Wild Cards Teams <noreply@localhost>")

# --- I18n, static -------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(exist_ok=True)  # collectstatic fills it for production

# Logs (docs/deploy.md, "Logs"): to stderr, one line per event that matters, as text or as
# one JSON object a line (LOG_FORMAT=json). Celery's lines about the site's routine tasks
# (the sweeps every second, each bot move) are DEBUG (config/logs.py). The worker and beat
# log through this too (config/celery.py), whatever their -l says.
LOG_LEVEL = envstr("LOG_LEVEL", "INFO").upper()
LOG_FORMAT = envstr("LOG_FORMAT", "text").lower()
if LOG_FORMAT not in ("text", "json"):
    raise RuntimeError(f"LOG_FORMAT is 'text' or 'json', not {LOG_FORMAT!r}")
_ROUTINE_TASKS = {"filters": ["routine_tasks"]}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"routine_tasks": {"()": "config.logs.RoutineTasksToDebug"}},
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "config.logs.JsonFormatter"},
    },
    # The handler has the level too: a line lowered to DEBUG on its way is dropped here.
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "level": LOG_LEVEL}
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "celery.beat": _ROUTINE_TASKS,
        "celery.worker.strategy": _ROUTINE_TASKS,
        "celery.app.trace": _ROUTINE_TASKS,
    },
}
