"""Runs a Celery worker or a Daphne with one fault point armed (tests/faults/points.py):

    python -m tests.faults.run <point>[:<detail>] <kill|disconnect> <arm file> <program> ...

where `<program> ...` is `celery -A config worker ...` or `daphne ... config.asgi:application`.

Django is set up and the wrappers installed first; the program then runs in this same
process, so a worker's pool processes (forked from it) and Daphne's threads call the
wrapped functions.
"""

import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from celery.__main__ import main as celery  # noqa: E402
from daphne.cli import CommandLineInterface  # noqa: E402

from tests.faults import points  # noqa: E402 (needs the apps loaded)

PROGRAMS = {"celery": celery, "daphne": CommandLineInterface.entrypoint}

if __name__ == "__main__":
    spec, action, arm, program, *args = sys.argv[1:]
    points.install(spec, action, arm)
    sys.argv = [program, *args]
    PROGRAMS[program]()
