from django.urls import path

from . import views

app_name = "lobby"

urlpatterns = [
    path("", views.index, name="index"),
    path("watch/", views.watch, name="watch"),
    path("play-now/", views.quick, name="quick"),
    path("find/", views.find, name="find"),
    path("find/<int:search_id>/", views.find_wait, name="find_wait"),
    path("find/<int:search_id>/status/", views.find_status, name="find_status"),
    path("find/<int:search_id>/cancel/", views.find_cancel, name="find_cancel"),
    path("find/with/<str:token>/", views.find_with, name="find_with"),
    path("tables/new/", views.create, name="create"),
    path("tables/<int:game_id>/", views.table, name="table"),
    path("tables/<int:game_id>/seats/<int:number>/take/", views.take, name="take"),
    path("tables/<int:game_id>/leave/", views.leave, name="leave"),
    path("tables/<int:game_id>/decline/", views.decline, name="decline"),
    path("tables/<int:game_id>/seats/<int:number>/bot/", views.bot, name="bot"),
    path("tables/<int:game_id>/seats/<int:number>/remove/", views.remove, name="remove"),
    path(
        "tables/<int:game_id>/seats/<int:number>/invite-bot/", views.invite_bot, name="invite_bot"
    ),
    path(
        "tables/<int:game_id>/seats/<int:number>/cancel-invitation/",
        views.cancel_invitation,
        name="cancel_invitation",
    ),
    path("tables/<int:game_id>/start/", views.start, name="start"),
    path("invite/<str:token>/", views.invite, name="invite"),
    path(
        "invitations/<int:invitation_id>/accept/",
        views.accept_invitation,
        name="accept_invitation",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        views.decline_invitation,
        name="decline_invitation",
    ),
]
