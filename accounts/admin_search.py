"""The admin's search, bounded: Django's changelist search turns every word of the box into
one more condition over the search fields, so a pasted page of text built a query too deep
for the database (SQLite refuses past 1,000 levels) and the page answered 500. A moderator
searches by a name, an address or a number: the first few words are kept."""

from django.contrib import admin
from django.utils.text import smart_split

MAX_SEARCH_WORDS = 8
MAX_SEARCH_LENGTH = 200


class BoundedSearch(admin.ModelAdmin):
    def get_search_results(self, request, queryset, search_term):
        words = list(smart_split(search_term[:MAX_SEARCH_LENGTH]))[:MAX_SEARCH_WORDS]
        return super().get_search_results(request, queryset, " ".join(words))
