from django.urls import path

from games.views import chat, estimate, mine
from games.views import table as views

app_name = "games"

urlpatterns = [
    path("mine/", mine.my_games, name="mine"),
    path("estimate/", estimate.estimate, name="estimate"),
    path("<int:game_id>/", views.play, name="play"),
    path("<int:game_id>/act/", views.act, name="act"),
    path("<int:game_id>/again/", views.again, name="again"),
    path("<int:game_id>/chat/", chat.panel, name="chat"),
    path("<int:game_id>/chat/send/", chat.send, name="chat_send"),
    path("<int:game_id>/chat/off/", chat.off, name="chat_off"),
    path("<int:game_id>/chat/<int:message_id>/report/", chat.report, name="chat_report"),
]
