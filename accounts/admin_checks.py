"""The admin's guard on actions, which every ModelAdmin of ours takes (docs/security.md),
and the read-only rule of the logs the site keeps.
It is here, in the lowest app, so that each app's admin uses it without importing another
app's admin."""

from django.contrib import admin, messages
from django.contrib.admin.utils import model_format_dict
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect


class CheckedSelection:
    """Admin actions refuse a selection that is not a list of row ids (a forged post) with
    a message, where Django's own admin fails with a server error (docs/security.md), and
    an action the user lacks the permission for with a message saying so, where Django's
    own admin ignores the post without a word."""

    def changelist_view(self, request, extra_context=None):
        name = request.POST.get("action") if request.method == "POST" else None
        declared = {n: description for _, n, description in self._get_base_actions()}
        if name in declared and name not in self.get_actions(request):
            description = str(declared[name]) % model_format_dict(self.opts)
            self.message_user(
                request,
                f"Your account may not run “{description}”: it lacks the permission "
                f"that action needs. Nothing was changed.",
                messages.ERROR,
            )
            return HttpResponseRedirect(request.get_full_path())
        return super().changelist_view(request, extra_context)

    def response_action(self, request, queryset):
        pk = self.model._meta.pk
        try:
            for value in request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME):
                if abs(pk.to_python(value)) >= 2**63:
                    raise ValidationError("out of range")
        except (ValidationError, TypeError):
            self.message_user(
                request, "That selection is not a list of rows of this page.", messages.ERROR
            )
            return HttpResponseRedirect(request.get_full_path())
        return super().response_action(request, queryset)


class Record:
    """A log kept by the site's own code (events, chat lines and their moderation, account
    audits): the admin reads it and runs its actions, never adds, edits or deletes a row by
    hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
