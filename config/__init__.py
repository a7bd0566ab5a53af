# Load Celery with Django so that @shared_task binds to our app and
# delay_on_commit works from views.
from .celery import app as celery_app

__all__ = ("celery_app",)
