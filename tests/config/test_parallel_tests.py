"""`make test` runs the suite on several pytest-xdist workers at once: each must reach a Redis
database of its own, or one worker's pushes, cached answers and Celery tasks would land in
another's tests (whose games have the same ids in their own test database)."""

import json
import os
import subprocess
import sys

from django.conf import settings

READ = (
    "import json; from django.conf import settings; print(json.dumps({"
    "'redis': settings.REDIS_URL, 'broker': settings.CELERY_BROKER_URL, "
    "'cache': settings.CACHES['default']['LOCATION'], "
    "'layer': settings.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]['address']}))"
)


def settings_seen(**environ):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTEST_XDIST_WORKER", "REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL")
    }
    env.update(environ, DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {READ}"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_each_worker_has_a_redis_database_of_its_own_for_layer_cache_and_broker():
    first = settings_seen(REDIS_URL="redis://127.0.0.1:6379/0", PYTEST_XDIST_WORKER="gw0")
    second = settings_seen(REDIS_URL="redis://127.0.0.1:6379/0", PYTEST_XDIST_WORKER="gw1")
    assert first == dict.fromkeys(first, "redis://127.0.0.1:6379/1")
    assert second == dict.fromkeys(second, "redis://127.0.0.1:6379/2")


def test_a_process_a_worker_starts_stays_on_the_workers_database():
    # A test hands its own REDIS_URL (already the worker's) to a Daphne or Celery process,
    # which inherits the worker's name: it must not move one database further.
    started = settings_seen(REDIS_URL="redis://127.0.0.1:6379/2", PYTEST_XDIST_WORKER="gw1")
    assert started["redis"] == started["broker"] == "redis://127.0.0.1:6379/2"


def test_outside_a_worker_the_site_uses_the_database_it_is_given():
    alone = settings_seen(REDIS_URL="redis://127.0.0.1:6379/0")
    assert alone["redis"] == alone["layer"] == "redis://127.0.0.1:6379/0"
