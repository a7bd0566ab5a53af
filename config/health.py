"""/healthz, /readyz and /metrics: how an operator, a load balancer or Prometheus asks a
process how it is (docs/deploy.md, "Health and metrics").

- /healthz: 200 while the process serves requests; it reads nothing.
- /readyz: 200 when the database and the channel layer answer and a Celery worker and beat
  have shown a heartbeat in the last HEARTBEAT_MAX_AGE seconds (config.heartbeat); 503
  otherwise. Both say each check's answer in JSON.
- /metrics: the Prometheus text format (games.metrics, and what is read when scraped: the
  games being played, the Celery queue, the heartbeats), to requests from this machine
  itself, and to others with METRICS_TOKEN as a bearer token.

They are answered by the first middleware, before anything reads the request's host (a
probe asks a Daphne by its address, which ALLOWED_HOSTS does not list), its session or
its cookies, and none of them is logged: Django's request log writes a line for every
answer of 400 and above, a line a probe every few seconds would repeat. /readyz logs once
when the process's readiness changes instead.
"""

import copy
import hmac
import ipaddress
import logging
import os
import threading
from typing import Any

import redis
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Count
from django.db.utils import load_backend
from django.http import HttpResponse, JsonResponse
from kombu.exceptions import ChannelError
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

from config import heartbeat
from config.celery import app as celery_app
from games import metrics
from games.models import Game

log = logging.getLogger(__name__)

# Each check of /readyz waits this long at most for its answer (libpq's shortest
# connect_timeout), so that a database or Redis that does not answer is said in seconds.
CHECK_SECONDS = 2
OK = "ok"
# Headers a proxy adds: a request that carries one came through a proxy, whose own address
# is the REMOTE_ADDR a server sees (or a Daphne run with --proxy-headers took the address
# from it, which a client may have written itself). Either way it is not this machine's.
PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")
METRICS_REFUSED = (
    "Metrics are served to this machine, or with the METRICS_TOKEN setting "
    "as 'Authorization: Bearer <token>'.\n"
)


# --- /readyz ---------------------------------------------------------------------------------


def _database():
    """SELECT 1 on a connection of its own, outside the pool (whose wait for a connection
    is 20 s), with CHECK_SECONDS to connect and to answer."""
    params = copy.deepcopy(connections.settings[DEFAULT_DB_ALIAS])
    options = params["OPTIONS"] = dict(params.get("OPTIONS") or {})
    options.pop("pool", None)
    if params["ENGINE"] == "django.db.backends.postgresql":
        options["connect_timeout"] = CHECK_SECONDS
        options["options"] = f"-c statement_timeout={CHECK_SECONDS * 1000}"
    elif params["ENGINE"] == "django.db.backends.sqlite3":
        options["timeout"] = CHECK_SECONDS
    probe = load_backend(params["ENGINE"]).DatabaseWrapper(params, "health")
    try:
        with probe.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        probe.close()


_redis_clients: dict[str, Any] = {}
_redis_lock = threading.Lock()


def _redis(address):
    with _redis_lock:
        client = _redis_clients.get(address)
        if client is None:
            client = _redis_clients[address] = redis.Redis.from_url(
                address, socket_timeout=CHECK_SECONDS, socket_connect_timeout=CHECK_SECONDS
            )
        return client


def _channel_layer():
    """A PING to each Redis host of the channel layer; the in-memory layer is this
    process's own memory, which answers while the process does."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer is configured")
    if isinstance(layer, InMemoryChannelLayer):
        return
    for host in getattr(layer, "hosts", ()):
        if "address" in host:  # a Sentinel host is not pinged here
            _redis(host["address"]).ping()


def _answer(check):
    try:
        check()
    except Exception as exc:  # the reason is the answer
        return f"no answer: {exc}".strip()
    return OK


def _heartbeats():
    limit = settings.HEARTBEAT_MAX_AGE
    try:
        ages = heartbeat.ages()
    except Exception as exc:
        return {kind: f"its heartbeat cannot be read: {exc}" for kind in heartbeat.KINDS}
    said = {}
    for kind, age in ages.items():
        if age is None:
            said[kind] = "no heartbeat recorded"
        elif age > limit:
            said[kind] = f"no heartbeat for {age:.0f} s (at most {limit} s)"
        else:
            said[kind] = OK
    return said


def readiness():
    """{"database", "channel_layer", "worker", "beat": "ok" or what is wrong, in words}."""
    return {
        "database": _answer(_database),
        "channel_layer": _answer(_channel_layer),
        **_heartbeats(),
    }


_was_ready = None  # this process's last answer, so that only a change is logged


def _note(ready, checks):
    global _was_ready
    if ready == _was_ready:
        return
    if not ready:
        log.warning(
            "not ready: %s",
            "; ".join(f"{name}: {said}" for name, said in checks.items() if said != OK),
        )
    elif _was_ready is not None:
        log.info("ready again")
    _was_ready = ready


def healthz(request):
    return HttpResponse("ok\n", content_type="text/plain")


def readyz(request):
    checks = readiness()
    ready = all(said == OK for said in checks.values())
    _note(ready, checks)
    return JsonResponse({"ready": ready, "checks": checks}, status=200 if ready else 503)


# --- /metrics ---------------------------------------------------------------------------------


def _loopback(address):
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def may_read_metrics(request):
    """A request straight from this machine (no proxy between), or one that carries
    METRICS_TOKEN as a bearer token."""
    token = settings.METRICS_TOKEN
    if token:
        scheme, _, given = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), token.encode()
        ):
            return True
    if any(header in request.META for header in PROXY_HEADERS):
        return False
    return _loopback(request.META.get("REMOTE_ADDR"))


def _queue_depth(queue):
    """Messages waiting in the broker's queue (a countdown a worker holds until its time
    has left the queue already)."""
    with celery_app.connection_for_read() as conn:
        conn.ensure_connection(max_retries=1)
        try:
            return conn.default_channel.queue_declare(queue=queue, passive=True).message_count
        except ChannelError:  # no such queue yet: nothing was ever sent to it
            return 0


class SiteCollector:
    """What is read when /metrics is asked, not counted by the processes: the games being
    played, the Celery queue and the heartbeats. A part that cannot be read (the database
    or the broker away) is left out, and `wct_scrape_failed{part}` says so."""

    def collect(self):
        failed = GaugeMetricFamily(
            "wct_scrape_failed", "1 when a part of /metrics could not be read.", labels=["part"]
        )
        for part, read in (
            ("games", self._games),
            ("celery_queue", self._queue),
            ("heartbeats", self._heartbeats),
        ):
            try:
                family = read()
            except Exception:
                failed.add_metric([part], 1)
                continue
            failed.add_metric([part], 0)
            yield family
        yield failed

    @staticmethod
    def _games():
        family = GaugeMetricFamily(
            "wct_games_running", "Games being played, by pace.", labels=["pace"]
        )
        counts = dict(
            Game.objects.filter(status=Game.Status.ACTIVE)
            .values_list("pace")
            .annotate(Count("pk"))
            .order_by()
        )
        for pace in Game.Pace.values:
            family.add_metric([pace], counts.get(pace, 0))
        return family

    @staticmethod
    def _queue():
        family = GaugeMetricFamily(
            "wct_celery_queue_depth",
            "Tasks waiting in the Celery queue for a worker.",
            labels=["queue"],
        )
        queue = celery_app.conf.task_default_queue
        family.add_metric([queue], _queue_depth(queue))
        return family

    @staticmethod
    def _heartbeats():
        family = GaugeMetricFamily(
            "wct_heartbeat_age_seconds",
            "Seconds since the Celery worker's and beat's last "
            "heartbeat (none recorded: left out).",
            labels=["process"],
        )
        for kind, age in heartbeat.ages().items():
            if age is not None:
                family.add_metric([kind], age)
        return family


_site = CollectorRegistry()
_site.register(SiteCollector())


def _forget_dead_processes(path):
    """The open-socket gauges of processes that are gone (killed, restarted) leave the sum:
    prometheus-client keeps them until told (its mark_process_dead)."""
    for name in os.listdir(path):
        if name.startswith("gauge_live") and name.endswith(".db"):
            pid = name[:-3].rsplit("_", 1)[-1]
            if pid.isdigit() and not _alive(int(pid)):
                multiprocess.mark_process_dead(int(pid), path)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: alive
        return True
    return True


def exposition():
    """The text Prometheus reads: every process's counts added up (multiprocess mode), or
    this process's own, then what is read now."""
    if metrics.MULTIPROCESS_DIR:
        _forget_dead_processes(metrics.MULTIPROCESS_DIR)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, metrics.MULTIPROCESS_DIR)
        counted = generate_latest(registry)
    else:
        counted = generate_latest(REGISTRY)
    return counted + generate_latest(_site)


def metrics_view(request):
    if not may_read_metrics(request):
        return HttpResponse(METRICS_REFUSED, status=403, content_type="text/plain")
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)


# --- The middleware -----------------------------------------------------------------------------


class HealthMiddleware:
    """First in MIDDLEWARE: answers GET and HEAD of the three paths itself."""

    views = {"/healthz": healthz, "/readyz": readyz, "/metrics": metrics_view}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        view = self.views.get(request.path_info)
        if view is None or request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        response = view(request)
        response["Cache-Control"] = "no-store"
        # Django's handler logs an answer of 400 and above unless it is marked as logged
        # (django.utils.log.log_response): a probe would write a line every few seconds.
        response._has_been_logged = True
        return response
