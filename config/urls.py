from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("games/", include("games.urls")),
    path("", include("games.history_urls")),  # history, replays, reports
    path("", include("lobby.urls")),
]
