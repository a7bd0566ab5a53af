from django.urls import path

from games.views import mine, table as views

app_name = "games"

urlpatterns = [
    path("mine/", mine.my_games, name="mine"),
    path("<int:game_id>/", views.play, name="play"),
    path("<int:game_id>/act/", views.act, name="act"),
    path("<int:game_id>/again/", views.again, name="again"),
]
