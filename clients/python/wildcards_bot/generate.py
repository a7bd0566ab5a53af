"""Writes wildcards_bot/models.py from the site's OpenAPI schema: a TypedDict for every
object of its components, a Literal for every enum, a union for every oneOf/anyOf.

    python -m wildcards_bot.generate --url https://wildcards.example   # a running site
    python -m wildcards_bot.generate --schema openapi.json             # a saved schema
    python -m wildcards_bot.generate --site                            # the repository's own

`--site` imports the site (run it from the repository's root, with its venv): that is how
the checked-in models.py is made, and tests/clients/test_models.py fails when it differs
from what this makes of the schema today. The output depends on the schema only, so the
same schema always gives the same file.
"""

from __future__ import annotations

import argparse
import importlib
import json
import keyword
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("models.py")
HEADER = '''"""The Bot API's data model as TypedDicts, made from the site's OpenAPI schema
({title}, version {version}) by `python -m wildcards_bot.generate`.
Do not edit: generate it again.

Seats and teams are numbered from 0 in the API (the site's pages show seat + 1).
"""

from __future__ import annotations

from typing import {imports}

__all__ = [
{names}
]
'''
SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def _name(ref: str) -> str:
    return _identifier(ref.rsplit("/", 1)[-1])


def _identifier(raw: str) -> str:
    name = re.sub(r"\W", "_", raw)
    return f"_{name}" if not name or name[0].isdigit() or keyword.iskeyword(name) else name


def _literal(value: object) -> str:
    # Double quotes, as the formatter writes them.
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _union(parts: list[str]) -> str:
    seen: list[str] = []
    for part in parts:
        for piece in part.split(" | "):
            if piece not in seen:
                seen.append(piece)
    # None last, as people write it.
    seen.sort(key=lambda piece: piece == "None")
    return " | ".join(seen) if seen else "Any"


def annotation(schema: dict[str, Any] | bool) -> str:
    """The Python type of a JSON Schema (a component is named, never inlined)."""
    if schema is True or schema == {}:
        return "Any"
    if schema is False:
        return "None"
    assert isinstance(schema, dict)
    if "$ref" in schema:
        return _name(schema["$ref"])
    if "const" in schema:
        return f"Literal[{_literal(schema['const'])}]"
    if "enum" in schema:
        return f"Literal[{', '.join(_literal(value) for value in schema['enum'])}]"
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return _union([annotation(part) for part in schema[key]])
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return annotation(schema["allOf"][0])
    return _typed(schema)


def _typed(schema: dict[str, Any]) -> str:
    """`annotation` of a schema that says its `type`."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([annotation({**schema, "type": one}) for one in kind])
    if kind == "array":
        if "prefixItems" in schema:
            return f"tuple[{', '.join(annotation(item) for item in schema['prefixItems'])}]"
        return f"list[{annotation(schema.get('items', True))}]"
    if kind == "object" or "properties" in schema or "additionalProperties" in schema:
        extra = schema.get("additionalProperties", True)
        if schema.get("properties") or not isinstance(extra, dict):
            # An inline object: rare, and a component when it matters.
            return "dict[str, Any]"
        return f"dict[str, {annotation(extra)}]"
    return SCALARS.get(kind or "", "Any")


def _docstring(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    text = " ".join(text.split()).replace("\\", "\\\\").replace('"""', "'''")
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(indent) + len(line) + len(word) + 1 > 92:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}', *(f"{indent}{rest}" for rest in lines[1:]), f'{indent}"""']


def _comment(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    words, lines, line = " ".join(text.split()).split(" "), [], ""
    for word in words:
        if line and len(indent) + len(line) + len(word) + 3 > 96:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return [f"{indent}# {line}" for line in lines]


def _typed_dict(name: str, schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", ()))
    fields = []
    for field, spec in schema.get("properties", {}).items():
        kind = annotation(spec)
        fields.append((field, kind if field in required else f"NotRequired[{kind}]", spec))
    if any(not field.isidentifier() or keyword.iskeyword(field) for field, _, _ in fields):
        # A field that is no Python name: TypedDict's functional form (annotations quoted,
        # since they may name a class defined further down).
        body = [f"    {field!r}: {kind!r}," for field, kind, _ in fields]
        return [f"{name} = TypedDict(", f"    {name!r},", "    {", *body, "    },", ")"]
    lines = [f"class {name}(TypedDict):"]
    doc = _docstring(schema.get("description"), "    ")
    lines += [*doc, ""] if doc else []
    for field, kind, spec in fields:
        lines += _comment(spec.get("description") if isinstance(spec, dict) else None, "    ")
        lines.append(f"    {field}: {kind}")
    if len(lines) == 1:
        lines.append("    pass")
    return lines


def _alias_order(aliases: dict[str, str]) -> list[str]:
    """The aliases with each one after those it names (they are evaluated at import)."""
    done: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in done or name in path:
            return
        for other in aliases:
            if other != name and re.search(rf"\b{other}\b", aliases[name]):
                visit(other, (*path, name))
        done.append(name)

    for name in sorted(aliases):
        visit(name, ())
    return done


def render(schema: dict[str, Any], formatter: str | None = None) -> str:
    """models.py's text for `schema` (an OpenAPI 3 document): the TypedDicts first (their
    annotations are not evaluated), then the aliases in the order they name each other.
    Passed through `formatter` (a ruff executable) when given, so that the file is as the
    repository's formatter would write it."""
    components = schema.get("components", {}).get("schemas", {})
    classes, aliases, comments = [], {}, {}
    for raw in sorted(components):
        spec = components[raw]
        name = _identifier(raw)
        is_object = isinstance(spec, dict) and (
            spec.get("type") == "object" or "properties" in spec
        )
        if is_object and "oneOf" not in spec and "anyOf" not in spec:
            classes.append(_typed_dict(name, spec))
        else:
            aliases[name] = annotation(spec)
            described = spec.get("description") if isinstance(spec, dict) else None
            comments[name] = _comment(described, "")
    blocks = list(classes)
    for name in _alias_order(aliases):
        blocks.append([*comments[name], f"{name}: TypeAlias = {aliases[name]}"])
    body = "\n\n\n".join("\n".join(block) for block in blocks)
    used = [
        word
        for word in ("Any", "Literal", "NotRequired", "TypeAlias", "TypedDict")
        if re.search(rf"\b{word}\b", body)
    ]
    info = schema.get("info", {})
    head = HEADER.format(
        title=info.get("title", "the Bot API"),
        version=info.get("version", "?"),
        imports=", ".join(used),
        names="\n".join(f'    "{name}",' for name in sorted(map(_identifier, components))),
    )
    text = f"{head}\n\n{body}\n"
    if formatter:
        text = subprocess.run(
            [formatter, "format", "--stdin-filename", str(OUT), "-"],
            input=text,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return text


def ruff() -> str | None:
    """The ruff next to this Python (a venv's), or on the PATH; None if there is none."""
    beside = Path(sys.executable).with_name("ruff")
    return str(beside) if beside.exists() else shutil.which("ruff")


def site_schema() -> dict[str, Any]:
    """The repository's own schema: imports the site (from the working directory)."""
    import os

    sys.path.insert(0, os.getcwd())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    # By name: the package is checked and installed without the site.
    api = importlib.import_module("games.api").api
    return dict(api.get_openapi_schema())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--url", help="a running site: reads <url>/api/bot/openapi.json")
    source.add_argument("--schema", help="a saved OpenAPI document (JSON)")
    source.add_argument("--site", action="store_true", help="the site in the working directory")
    parser.add_argument("--out", default=str(OUT), help=f"where to write (default {OUT})")
    args = parser.parse_args(argv)
    if args.url:
        with urllib.request.urlopen(f"{args.url.rstrip('/')}/api/bot/openapi.json") as answer:
            schema = json.loads(answer.read())
    elif args.schema:
        schema = json.loads(Path(args.schema).read_text())
    else:
        schema = site_schema()
    Path(args.out).write_text(render(schema, ruff()))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
