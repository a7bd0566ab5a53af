from django.urls import path

from . import views

app_name = "games"

urlpatterns = [
    path("<int:game_id>/", views.play, name="play"),
    path("<int:game_id>/act/", views.act, name="act"),
]
