"""Write (or check) the reviewed snapshot of smartpos's public surface: ``tests/public_api.txt``.

Every public namespace (``smartpos``, ``smartpos.webhooks``, ``smartpos.testing``), every name in
its ``__all__`` with its kind and signature, every public member of each exported class, and the
resources of both clients. A change of the public surface (a new name, a new keyword, a renamed
attribute) then shows up as a diff of this file in review, and CI fails until it is regenerated:

    python scripts/public_api.py            # rewrite tests/public_api.txt
    python scripts/public_api.py --check    # exit 1 and show the diff if it is stale
"""

from __future__ import annotations

import argparse
import difflib
import enum
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "public_api.txt"
NAMESPACES = ("smartpos", "smartpos.webhooks", "smartpos.testing")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _signature(obj: Any) -> str:
    try:
        text = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
    return _ADDRESS.sub("", text)


def _own_members(cls: type[Any]) -> list[tuple[str, Any]]:
    """Public members defined by ``cls`` or its smartpos bases, in name order."""
    seen: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("smartpos"):
            continue
        seen.update(
            (name, value)
            for name, value in vars(klass).items()
            if not name.startswith("_") or name in ("__init__", "__call__")
        )
    slots = [s for k in cls.__mro__ for s in getattr(k, "__slots__", ()) if not s.startswith("_")]
    fields = getattr(cls, "__attrs_attrs__", ())
    for name in [*slots, *(f.name for f in fields)]:
        seen.setdefault(name, None)
    return sorted(seen.items())


def _describe_member(cls: type[Any], name: str, value: Any) -> str:
    if isinstance(cls, enum.EnumMeta) and name in cls.__members__:
        return f"    {name} = {cls[name].value!r}"
    if isinstance(value, property):
        return f"    {name}: property"
    if isinstance(value, (staticmethod, classmethod)):
        return f"    def {name}{_signature(value.__func__)}  # {type(value).__name__}"
    if inspect.isfunction(value):
        prefix = "async def" if inspect.iscoroutinefunction(value) else "def"
        return f"    {prefix} {name}{_signature(value)}"
    if value is None or not callable(value):
        return f"    {name}"
    return f"    {name}: {type(value).__name__}"


def _describe(qualname: str, obj: Any) -> list[str]:
    if isinstance(obj, type) and hasattr(obj, "__required_keys__"):  # a TypedDict
        lines = [f"typeddict {qualname}"]
        for key, hint in obj.__annotations__.items():
            text = getattr(hint, "__forward_arg__", hint)
            required = "required" if key in obj.__required_keys__ else "optional"
            lines.append(f"    {key}: {text!r}  # {required}")
        return lines
    if isinstance(obj, type):
        bases = ", ".join(b.__qualname__ for b in obj.__bases__ if b is not object)
        kind = "exception" if issubclass(obj, BaseException) else "class"
        if isinstance(obj, enum.EnumMeta):
            kind = "enum"
        head = f"{kind} {qualname}({bases})"
        if kind != "enum":
            head += _signature(obj)
        lines = [head]
        if not issubclass(obj, BaseException) or obj.__module__.startswith("smartpos"):
            lines += [
                line
                for name, value in _own_members(obj)
                if name != "__init__"
                for line in [_describe_member(obj, name, value)]
            ]
        return lines
    if callable(obj):
        return [f"def {qualname}{_signature(obj)}"]
    return [f"{qualname}: {type(obj).__name__}"]


def _resources(namespace: str) -> list[str]:
    """The resources of ``Client`` and ``AsyncClient``: attributes set when they are built."""
    import httpx

    import smartpos

    lines: list[str] = []
    for client_class in (smartpos.Client, smartpos.AsyncClient):
        client = client_class(
            api_key="snapshot",
            base_url="http://snapshot.invalid",
            transport=httpx.MockTransport(lambda request: httpx.Response(500)),
        )
        for name, resource in sorted(vars(client).items()):
            if name.startswith("_") or not hasattr(resource, "_client"):
                continue
            cls = type(resource)
            lines.append(f"resource {namespace}.{client_class.__name__}.{name}: {cls.__name__}")
            lines += [
                _describe_member(cls, member, value)
                for member, value in _own_members(cls)
                if member != "__init__"
            ]
            raw = getattr(resource, "with_raw_response", None)
            if raw is not None:
                lines.append(
                    f"resource {namespace}.{client_class.__name__}.{name}.with_raw_response: "
                    f"{type(raw).__name__}"
                )
                lines += [
                    f"    def {member}{_signature(getattr(raw, member))}"
                    for member in sorted(type(raw).__slots__)
                ]
        if isinstance(client, smartpos.Client):
            client.close()
    return lines


def snapshot() -> str:
    """The snapshot's text, as this interpreter sees the package."""
    lines = [
        "# The public surface of smartpos: regenerate with `python scripts/public_api.py`",
        "# and review the diff (a new public name or keyword is an API decision).",
    ]
    for namespace in NAMESPACES:
        module = importlib.import_module(namespace)
        lines += ["", f"## {namespace}"]
        for name in module.__all__:
            if name.startswith("__"):
                lines.append(f"{namespace}.{name}")
                continue
            lines += _describe(f"{namespace}.{name}", getattr(module, name))
        if namespace == "smartpos":
            lines += _resources(namespace)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args(argv)
    text = snapshot()
    if args.check:
        current = SNAPSHOT.read_text(encoding="utf-8") if SNAPSHOT.exists() else ""
        if current == text:
            print(f"{SNAPSHOT.relative_to(ROOT)} is up to date")
            return 0
        sys.stdout.writelines(
            difflib.unified_diff(
                current.splitlines(True), text.splitlines(True), "snapshot", "package"
            )
        )
        print("the public surface changed: run python scripts/public_api.py and review the diff")
        return 1
    SNAPSHOT.write_text(text, encoding="utf-8")
    print(f"wrote {SNAPSHOT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
