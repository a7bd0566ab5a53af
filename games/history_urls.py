"""The history pages: history, profiles, replays, exports and reports."""

from django.urls import path

from games.moderation import views as moderation_views
from games.views import history as views
from games.views import review as review_views

app_name = "history"

urlpatterns = [
    path("history/", views.my_history, name="mine"),
    path("players/<str:username>/", views.profile, name="profile"),
    path("ratings/", views.leaderboard, name="leaderboard"),
    path("ratings/bots/", views.leaderboard, {"bots": True}, name="bot_leaderboard"),
    path("players/<str:username>/history/", views.player_history, name="player"),
    path("games/<int:game_id>/replay/", views.replay_view, name="replay"),
    path("games/<int:game_id>/export.json", views.export_view, name="export"),
    path("games/<int:game_id>/verify/", views.verify_view, name="verify"),
    path("games/<int:game_id>/report/", moderation_views.report, name="report"),
    path("games/<int:game_id>/review/", review_views.request_view, name="review_request"),
    path("games/<int:game_id>/review/share/", review_views.share_view, name="review_share"),
    path("games/<int:game_id>/review/status/", review_views.status_view, name="review_status"),
]
