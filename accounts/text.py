"""The one rule for text a person writes that others read: chat lines, display names, token
names, report texts (docs/security.md, "Text a person writes").

Refused: control characters (Unicode category Cc: a NUL is a 500 in PostgreSQL, the others
hide what a line says), surrogates (Cs), line and paragraph separators (Zl, Zp) and format
characters (Cf): the bidirectional overrides, embeddings and isolates (U+202A-U+202E,
U+2066-U+2069), which make "gnp.exe" read as "exe.png" and a name read as another's, the
marks (U+200E, U+200F, U+061C), the zero-width space, word joiner and byte-order mark, the
soft hyphen. A refusal names the character, so that a person who pasted it can find it.

Two format characters are part of ordinary writing and stay allowed where they join
two visible characters: the zero-width joiner (U+200D, emoji sequences such as a family, and
Indic scripts) and non-joiner (U+200C, Persian). So do the tag characters that spell a
subdivision's flag after U+1F3F4 WAVING BLACK FLAG (the flags of England, Scotland, Wales).
Anywhere else they are refused like the rest.

Refused rather than removed: a text changed silently is not what its writer sent, and a
removal that missed a case would be a bypass where a refusal is only an error message.
"""

import unicodedata

from django.core.exceptions import ValidationError

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
JOINERS = frozenset({"\u200c", "\u200d"})
BLACK_FLAG = "\U0001f3f4"
TAGS = range(0xE0020, 0xE0080)  # TAG SPACE .. CANCEL TAG


def _visible(char):
    return not char.isspace() and unicodedata.category(char) not in REFUSED_CATEGORIES


def _allowed_format(text, i):
    char = text[i]
    if char in JOINERS:
        return 0 < i < len(text) - 1 and _visible(text[i - 1]) and _visible(text[i + 1])
    if ord(char) in TAGS:
        j = i
        while j > 0 and ord(text[j - 1]) in TAGS:
            j -= 1
        return j > 0 and text[j - 1] == BLACK_FLAG
    return False


def hidden_characters(text):
    """The characters of `text` the rule refuses, in order, each once."""
    found = []
    for i, char in enumerate(text):
        if unicodedata.category(char) in REFUSED_CATEGORIES and not _allowed_format(text, i):
            if char not in found:
                found.append(char)
    return found


def describe(char):
    name = unicodedata.name(char, "") or {
        "\n": "LINE FEED",
        "\r": "CARRIAGE RETURN",
        "\t": "TAB",
    }.get(char, "a control character")
    return f"U+{ord(char):04X} {name}"


def refusal(text, what="This text"):
    """Why `text` may not be stored, in words fit to show its writer, or "" when it may.
    `what` names it in the message: "That message", "A display name"."""
    found = hidden_characters(text or "")
    if not found:
        return ""
    listed = ", ".join(describe(c) for c in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return (
        f"{what} has invisible control or formatting characters ({listed}{more}), "
        "which can make it read differently from what it says: remove them."
    )


def validate(text, what="This text"):
    """A form's check: raises ValidationError with `refusal`'s message."""
    problem = refusal(text, what)
    if problem:
        raise ValidationError(problem, code="hidden_characters")
