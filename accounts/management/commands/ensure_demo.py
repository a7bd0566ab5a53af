from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-cards-2024"


class Command(BaseCommand):
    help = "Creates the demo account (development only) if it does not exist."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            # A known password has no place on a real site.
            self.stdout.write("DEBUG is off: no demo account. Sign up at /accounts/signup/.")
            return
        user, created = User.objects.get_or_create(
            username=DEMO_USERNAME,
            defaults={"email": "demo@example.com", "display_name": "Demo", "email_confirmed": True},
        )
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        self.stdout.write(
            # No address here: the site is not started yet, and the port may be another.
            f"Demo account: log in as {DEMO_USERNAME!r} with password {DEMO_PASSWORD!r} "
            f"(Log in, at the address below), or sign up."
        )
