"""Project-wide pytest set-up (pytest-django reads config.settings)."""

from config.celery import app as celery_app

# Tasks that tests schedule go to their own queue, so a real broker (Redis in
# CI) never mixes them with a running site's tasks.
celery_app.conf.task_default_queue = "wct-tests"
