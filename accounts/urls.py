from django.contrib.auth import views as auth_views
from django.urls import path

from . import bot_views, views

app_name = "accounts"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("profile/", views.profile, name="profile"),
    path("push/subscribe/", views.push_subscribe, name="push_subscribe"),
    path("push/<int:subscription_id>/remove/", views.push_remove, name="push_remove"),
    path("bot/", bot_views.bot_account, name="bot"),
    path("bot/tokens/", bot_views.create_token, name="bot_token_create"),
    path("bot/tokens/<int:token_id>/revoke/", bot_views.revoke_token, name="bot_token_revoke"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("confirm/resend/", views.resend_confirmation, name="resend_confirmation"),
    path("confirm/<str:token>/", views.confirm_email, name="confirm_email"),
    path("password/change/", views.password_change, name="password_change"),
    path("password/change/done/", views.password_change_done, name="password_change_done"),
    path("password/reset/", views.password_reset, name="password_reset"),
    path("password/reset/done/", views.password_reset_done, name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        views.password_reset_confirm,
        name="password_reset_confirm",
    ),
    path(
        "password/reset/complete/",
        views.password_reset_complete,
        name="password_reset_complete",
    ),
]
