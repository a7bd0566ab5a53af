"""The emails of a site with no SMTP server (no EMAIL_HOST: `make run` on a fresh machine):
printed to stdout, each between two banners that name its recipient and subject, with its
plain-text body as it reads (links whole), so that a newcomer finds the confirmation link
among the logs (README.md, "Your first game"). Django's console backend prints the raw
MIME message instead, where a long link is cut by quoted-printable soft breaks.
"""

from django.core.mail.backends.console import EmailBackend

WIDTH = 78
BANNER = " EMAIL (not sent: no EMAIL_HOST is set) "
END = " END OF EMAIL "


class ConsoleBackend(EmailBackend):
    def write_message(self, message):
        self.stream.write(
            "\n".join(
                [
                    "",
                    BANNER.center(WIDTH, "="),
                    f"To:      {', '.join(message.to)}",
                    f"Subject: {message.subject}",
                    "-" * WIDTH,
                    message.body.rstrip("\n"),
                    END.center(WIDTH, "="),
                    "",
                    "",
                ]
            )
        )
