"""Starts the whole site: web + websockets (Daphne), a Celery worker and beat.

With REDIS_URL set, the three are separate processes talking through Redis
(`daphne`, `celery worker`, `celery beat`). Without it, everything runs in
this one process: Daphne in the main thread, a Celery worker and the beat
scheduler in threads, sharing Celery's in-memory broker and the in-memory
channel layer, so bot moves and periodic tasks really run and reach the
pages, with no other service to install.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from celery.beat import EmbeddedService
from daphne.endpoints import build_endpoint_description_strings
from daphne.server import Server
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config import mail
from config.asgi import application
from config.celery import BeatScheduler, app


class Command(BaseCommand):
    help = "Runs web, websockets, background worker and scheduler."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))

    def handle(self, *args, host, port, **options):
        var = Path(settings.BASE_DIR) / "var"
        var.mkdir(exist_ok=True)
        # Bound before anything is said about it: the address printed is the one served
        # (port 0 picks a free one), and a port in use fails here, in words.
        try:
            listener = socket.create_server((host, port), backlog=1024)
        except OSError as exc:
            raise CommandError(f"Cannot serve on {host}:{port}: {exc.strerror}.") from exc
        bound_host, bound_port = listener.getsockname()[:2]
        self.stdout.write(f"Wild Cards Teams at http://{bound_host}:{bound_port}/")
        self._site_url(bound_host, bound_port)
        self.stdout.write(f"Links in emails point at {settings.SITE_URL}")
        if settings.EMAIL_BACKEND == "config.mail.ConsoleBackend":
            self.stdout.write(
                f"No EMAIL_HOST: each email is printed here, under a line "
                f"'=====...{mail.BANNER}...====='"
            )
        self.stdout.flush()
        if settings.REDIS_URL:
            self._run_processes(listener, var)
        else:
            self._run_embedded(listener, var)

    def _site_url(self, host, port):
        """Email links point where this site is served, unless SITE_URL says otherwise (a
        public name behind a proxy): set here for this process and, through the
        environment, for the worker and beat it starts."""
        if os.environ.get("SITE_URL"):
            return
        if host in ("0.0.0.0", "::"):
            # Every interface: the machine's own name is what others can reach.
            host = socket.getfqdn()
        elif ":" in host:
            host = f"[{host}]"
        os.environ["SITE_URL"] = settings.SITE_URL = f"http://{host}:{port}"

    def _run_embedded(self, listener, var):
        self.stdout.write(
            "Embedded mode: SQLite or DATABASE_URL, in-memory channel layer, "
            "Celery worker and beat in this process."
        )
        worker = app.WorkController(
            concurrency=1,
            pool="solo",
            # The site's queue first, then the reviews' (settings: CELERY_TASK_QUEUES). The
            # in-memory broker takes its queues in turns, whatever their order: a bot's move
            # waits for at most one review slice (REVIEW_SLICE_MS) here.
            queues=[settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_REVIEW_QUEUE],
            loglevel="INFO",
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
        )
        threading.Thread(target=worker.start, name="celery-worker", daemon=True).start()
        # The site's scheduler, which records beat's heartbeat for /readyz (config/health.py).
        beat = EmbeddedService(
            app,
            thread=True,
            schedule_filename=str(var / "celerybeat-schedule"),
            scheduler_cls=BeatScheduler,
        )
        beat.start()
        Server(
            application=application,
            endpoints=build_endpoint_description_strings(file_descriptor=listener.fileno()),
        ).run()
        beat.stop()

    def _run_processes(self, listener, var):
        python = sys.executable
        # WEB_PROCESSES Daphnes accept on one listening socket (the kernel hands each new
        # connection to one of them). One process runs its sockets and their moves under one
        # GIL; the load tool held its figures best with two per core (docs/load.md).
        web = max(1, int(os.environ.get("WEB_PROCESSES", "1")))
        fd = listener.fileno()
        if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            # Each process's metrics in files of one directory, which /metrics adds up
            # (games.metrics, docs/deploy.md), emptied at each start.
            metrics_dir = var / "prometheus"
            shutil.rmtree(metrics_dir, ignore_errors=True)
            metrics_dir.mkdir()
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
        commands = {
            **{
                f"web-{n + 1}" if web > 1 else "web":
                # No access line per request (Daphne's default, on stdout): as in production,
                # the logs are the site's events (docs/deploy.md, "Logs").
                [
                    python,
                    "-m",
                    "daphne",
                    "--fd",
                    str(fd),
                    "--access-log",
                    os.devnull,
                    "config.asgi:application",
                ]
                for n in range(web)
            },
            "worker": [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-l",
                "INFO",
                "--concurrency",
                os.environ.get("WORKER_CONCURRENCY", "2"),
            ],
            # Exactly one beat: two would run every periodic task twice.
            "beat": [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "-l",
                "INFO",
                "--schedule",
                str(var / "celerybeat-schedule"),
            ],
        }
        children = {
            name: subprocess.Popen(cmd, pass_fds=(fd,) if name.startswith("web") else ())
            for name, cmd in commands.items()
        }
        listener.close()  # the Daphnes hold it now

        def stop(*_):
            for child in children.values():
                if child.poll() is None:
                    child.terminate()

        signal.signal(signal.SIGTERM, stop)
        try:
            while True:
                for name, child in children.items():
                    code = child.poll()
                    if code is not None:
                        self.stderr.write(f"{name} stopped (exit {code}); stopping the site.")
                        stop()
                        for other in children.values():
                            other.wait(timeout=20)
                        sys.exit(code or 1)
                time.sleep(1)
        except KeyboardInterrupt:
            stop()
            for child in children.values():
                child.wait(timeout=20)
