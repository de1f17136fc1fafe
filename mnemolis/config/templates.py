"""Jinja2 templates an owner writes in YAML (`say:`, a `publish:` payload, a `call:` body).

Always Jinja2's immutable sandbox: a template can read the slots it was given
and call the few functions handed to it, never an attribute that reaches
Python's internals, never a file. A template is checked when the
configuration is read: it must compile, and every name it uses must be a
slot of its intent or one of `BUILTIN_NAMES`, so a typo fails `mnemolis
check` with its file and line instead of an answer at run time. Jinja2 is
imported only for text that holds template markup.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from mnemolis.config.yaml_at import At

if TYPE_CHECKING:
    from jinja2 import Template
    from jinja2.sandbox import ImmutableSandboxedEnvironment

#: Names every template may use besides its intent's slots: ``slots`` (all of
#: them as a mapping), ``origin`` (room, site, front_end, session of the
#: request), ``state(name)`` (a device's state values), ``sensor(name)`` (a
#: sensor's last number), and, in an external intent's reply, ``intent``.
BUILTIN_NAMES = frozenset({"slots", "origin", "state", "sensor", "intent", "text"})
MARKUP = ("{{", "{%", "{#")


def is_template(text: str) -> bool:
    return any(mark in text for mark in MARKUP)


class _NoValue(ValueError):
    """A template printed None (raised inside Jinja2; `render` makes it `ValueMissing`)."""


def _finalize(value: Any) -> Any:
    """Every ``{{ ... }}``: None is never said ("It is None degrees outside"); a test such
    as ``{% if sensor('outdoor temperature') is none %}`` still sees it."""
    if value is None:
        raise _NoValue("a value it says is not known right now")
    return value


@cache
def environment() -> ImmutableSandboxedEnvironment:
    """The one sandbox every template runs in (async, so ``state()`` may ask a source)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(enable_async=True, autoescape=False, finalize=_finalize)


@cache
def compiled(text: str) -> Template:
    """``text`` compiled once (checked already when the configuration was read)."""
    return environment().from_string(text)


def check_template(text: Any, at: At, names: frozenset[str] | set[str], what: str) -> str:
    """``text`` as a checked template: it compiles, and uses only ``names`` or builtins."""
    if isinstance(text, bool):
        from mnemolis.config.yaml_at import boolean_word

        raise at.error(f"{what}: {boolean_word(text, at)}")
    if not isinstance(text, str | int | float):
        raise at.error(f"{what} must be text, not {type(text).__name__}")
    source = str(text)
    if not is_template(source):
        return source
    from jinja2 import TemplateSyntaxError, meta

    try:
        tree = environment().parse(source)
    except TemplateSyntaxError as exc:
        raise at.error(f"{what}: the template does not compile: {exc.message}") from exc
    unknown = sorted(meta.find_undeclared_variables(tree) - names - BUILTIN_NAMES)
    if unknown:
        known = ", ".join(sorted(names)) or "none"
        raise at.error(
            f"{what}: the template uses {', '.join(repr(n) for n in unknown)}, which is not "
            f"a slot of the intent (its slots: {known}; and {', '.join(sorted(BUILTIN_NAMES))})"
        )
    return source


class TemplateFailed(Exception):
    """A checked template that still failed at run time (a slot of the wrong kind, a
    function that raised); the step that owns it says so."""


class ValueMissing(TemplateFailed):
    """A template would have said None: a sensor with no reading yet, a slot not given."""


async def render(text: str, variables: dict[str, Any], spoken: bool = True) -> str:
    """``text`` with ``variables`` (plain text comes back as it is); ``spoken`` text
    has its runs of whitespace made single spaces (a payload keeps them)."""
    if not is_template(text):
        return text
    from jinja2 import TemplateError

    try:
        rendered: str = await compiled(text).render_async(**variables)
    except _NoValue as exc:
        raise ValueMissing(str(exc)) from exc
    except (TemplateError, TypeError, ValueError, ArithmeticError, LookupError) as exc:
        raise TemplateFailed(f"{type(exc).__name__}: {exc}") from exc
    return " ".join(rendered.split()) if spoken else rendered
