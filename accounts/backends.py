from django.contrib.auth.backends import ModelBackend


class PlayerBackend(ModelBackend):
    """Django's model backend that also refuses banned and suspended accounts.

    `user_can_authenticate` is asked both at log-in and by `get_user` on every
    request (and websocket connection), so a ban also ends the sessions the
    user already has.
    """

    def user_can_authenticate(self, user):
        return super().user_can_authenticate(user) and not user.is_restricted
