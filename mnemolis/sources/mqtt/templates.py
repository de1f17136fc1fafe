"""Home Assistant's templates, run with Jinja2 in a bounded sandbox.

Discovery configs describe how to read a state (``value_template``) and how
to write a command (``command_template``) in Jinja, the template language of
Home Assistant. Mnemolis renders them with Jinja2's immutable sandbox (no
attribute starting with ``_``, no mutation of lists and dicts, no unsafe
callables) and the filters Home Assistant adds (`template_functions`). A
template comes from the network, so every render is bounded:

* every loop iteration, call, filter and attribute access is a *step*; a
  render takes at most `Bounds.steps` of them and `Bounds.seconds` of time;
* ``*``, ``+``, ``%``, ``**``, ``~`` and the string-growing filters and
  methods check the size of what they would build before building it, and
  the output stops at `Bounds.output_chars`;
* ``range`` stops at 100,000 items (Jinja2's own sandbox limit).

A template that does not compile, or names a Home Assistant function that
needs its state machine (``states()``), is refused when the config is read
(`TemplateError` with the reason); one that fails on a message leaves that
message unread, as Home Assistant does. Both follow Home Assistant's
rendering: value templates see ``value`` and ``value_json``, command
templates ``value`` and their variables, and the result is stripped.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import meta, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from mnemolis.sources.mqtt import template_functions as fn
from mnemolis.sources.mqtt import template_tables


class TemplateError(ValueError):
    """A template that cannot be compiled or rendered; the message says why."""


@dataclass(frozen=True)
class Bounds:
    """What one render may cost."""

    steps: int = 100_000
    seconds: float = 0.05
    output_chars: int = 65_536


DEFAULT_BOUNDS = Bounds()
CHECK_CLOCK_EVERY = 64
COMPILED_KEPT = 1024
TEMPLATE_CHARS = 65_536  # the longest template text compiled
#: A ``%`` or ``format`` specification with a width of five digits or more is refused.
_WIDE_SPEC = re.compile(r"[%{][^%{}]*?(\d{5,})")
_TEMPLATE_MARKS = ("{{", "{%", "{#")


@dataclass
class _Budget:
    bounds: Bounds
    deadline: float
    steps: int = 0


_local = threading.local()


def _budget() -> _Budget | None:
    budget: _Budget | None = getattr(_local, "budget", None)
    return budget


def _step() -> None:
    budget = _budget()
    if budget is None:
        return
    budget.steps += 1
    if budget.steps > budget.bounds.steps:
        raise TemplateError(f"the template took more than {budget.bounds.steps} steps")
    if budget.steps % CHECK_CLOCK_EVERY == 0 and time.perf_counter() > budget.deadline:
        raise TemplateError(f"the template took longer than {budget.bounds.seconds * 1000:g} ms")


def _limit() -> int:
    budget = _budget()
    return budget.bounds.output_chars if budget is not None else DEFAULT_BOUNDS.output_chars


def _check_size(size: int) -> None:
    if size > _limit():
        raise TemplateError(f"the template would build more than {_limit()} characters")


def _size(value: Any) -> int:
    if isinstance(value, str | bytes | list | tuple | dict):
        return len(value)
    return 0


def _check_format(spec: Any) -> None:
    if isinstance(spec, str) and _WIDE_SPEC.search(spec):
        raise TemplateError("a format wider than 9999 characters")


def _items(iterable: Any) -> Iterator[Any]:
    """Every loop of a template iterates through here: one step per item."""
    for item in iterable:
        _step()
        yield item


def _concat(parts: Iterable[Any]) -> str:
    texts = [str(p) for p in parts]
    _check_size(sum(len(t) for t in texts))
    return "".join(texts)


class _Bounder(NodeTransformer):
    """Route loops and ``~`` through the environment's bounded helpers."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Call(
            nodes.EnvironmentAttribute("bounded_items"), [node.iter], [], None, None
        )
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Call(
            nodes.EnvironmentAttribute("bounded_concat"),
            [nodes.List(list(node.nodes))],
            [],
            None,
            None,
        )


#: Methods of str whose first argument is a width or a count of the result.
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
#: What Jinja passes ahead of a filter's value (``pass_environment`` and friends).
_PASSED = (jinja2.Environment, nodes.EvalContext, jinja2.runtime.Context)
_GROWING_FILTERS = frozenset({"center", "indent", "replace", "join", "format", "wordwrap"})


def _precheck(name: str, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a string operation whose result would be over the limit, before it runs."""
    limit = _limit()
    if name in _WIDTH_METHODS or name in ("center", "indent"):
        widths = [a for a in (*args, *kwargs.values()) if isinstance(a, int)]
        if any(w > limit for w in widths):
            raise TemplateError(f"{name} wider than {limit} characters")
        if name in ("indent", "expandtabs"):
            lines = str(target).count("\n") + str(target).count("\t") + 1
            _check_size(_size(target) + lines * max(widths or [0]))
    elif name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = str(target).count(old) if old else _size(target) + 1
        _check_size(_size(target) + count * len(new))
    elif name == "join" and hasattr(target, "__len__"):
        glue = next((a for a in (*args, *kwargs.values()) if isinstance(a, str)), "")
        items = target if isinstance(target, list | tuple | str) else ()
        _check_size(len(target) * len(glue) + sum(_size(x) for x in items))
    elif name == "format":
        _check_format(target)


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """Home Assistant's template environment, with every render bounded."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self) -> None:
        super().__init__(
            extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"],
            undefined=jinja2.Undefined,
            autoescape=False,
        )
        self.globals.pop("lipsum", None)
        self.globals.update(template_tables.GLOBALS)
        self.filters.update(template_tables.FILTERS)
        self.tests.update(template_tables.TESTS)
        self.filters = {name: self._bounded_filter(name, f) for name, f in self.filters.items()}
        self.bounded_items = _items
        self.bounded_concat = _concat

    @staticmethod
    def _bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            _step()
            if name in _GROWING_FILTERS:
                lead = 0
                while lead < len(args) and isinstance(args[lead], _PASSED):
                    lead += 1
                if lead < len(args):
                    target = args[lead]
                    if name == "join" and not hasattr(target, "__len__"):
                        target = list(_items(target))  # a generator: count it first
                        args = (*args[:lead], target, *args[lead + 1 :])
                    _precheck(name, target, tuple(args[lead + 1 :]), kwargs)
            result = function(*args, **kwargs)
            _check_size(_size(result))
            return result

        for attribute in ("jinja_pass_arg",):  # keep Jinja's context/env passing markers
            if hasattr(function, attribute):
                setattr(run, attribute, getattr(function, attribute))
        return run

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        for node in tree.find_all(nodes.Name):
            if node.name.startswith("__"):
                raise TemplateError(f"the name {node.name!r} is not allowed in a template")
        result = _Bounder().visit(tree)
        assert isinstance(result, nodes.Template)
        return result

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        _step()
        name = getattr(__obj, "__name__", "")
        original = getattr(__obj, "__wrapped__", __obj)  # the sandbox wraps str.format
        target = getattr(original, "__self__", None)
        if isinstance(target, str) and name in (*_WIDTH_METHODS, "replace", "join", "format"):
            _precheck(name, target if name != "join" else (args[0] if args else ""), args, kwargs)
            if name == "join" and args and isinstance(args[0], list | tuple):
                _precheck("join", args[0], (target,), {})
        result = super().call(__context, __obj, *args, **kwargs)
        _check_size(_size(result))
        return result

    def getattr(self, obj: Any, attribute: str) -> Any:
        _step()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _step()
        return super().getitem(obj, argument)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _step()
        if operator == "*":
            for seq, count in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(count, int):
                    _check_size(len(seq) * max(count, 0))
        elif operator == "+" and isinstance(left, str | list | tuple):
            _check_size(_size(left) + _size(right))
        elif operator == "**" and isinstance(left, int) and isinstance(right, int):
            if abs(left) > 1 and right * abs(left).bit_length() > 65_536:
                raise TemplateError("a power too large to compute")
        elif operator == "%":
            _check_format(left)
        result = self.binop_table[operator](left, right)
        _check_size(_size(result))
        return result


@dataclass(frozen=True)
class Compiled:
    """One compiled template and what it needs."""

    source: str
    template: jinja2.Template
    names: frozenset[str]  # variables and functions the template reads

    @property
    def is_static(self) -> bool:
        """Home Assistant's test: no ``{{``, ``{%`` or ``{#``, so the text is the value."""
        return not any(mark in self.source for mark in _TEMPLATE_MARKS)


class TemplateEngine:
    """Compiles (once per source text) and renders templates within `Bounds`."""

    def __init__(self, bounds: Bounds = DEFAULT_BOUNDS) -> None:
        self.bounds = bounds
        self.environment = BoundedEnvironment()
        self._compiled: dict[str, Compiled] = {}
        self._lock = threading.Lock()

    def compile(self, source: str) -> Compiled:
        """The compiled template, or `TemplateError` saying why it cannot be used."""
        with self._lock:
            found = self._compiled.get(source)
        if found is not None:
            return found
        if not isinstance(source, str):
            raise TemplateError("a template must be text")
        if len(source) > TEMPLATE_CHARS:
            raise TemplateError(f"a template longer than {TEMPLATE_CHARS} characters")
        try:
            tree = self.environment.parse(source)
            template = self.environment.from_string(tree)
        except TemplateError:
            raise
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"the template does not compile: {exc.message}") from None
        except (jinja2.TemplateError, RecursionError, MemoryError) as exc:
            raise TemplateError(f"the template does not compile: {exc}") from None
        names = frozenset(meta.find_undeclared_variables(tree))
        needs = sorted(names & fn.NEEDS_HOME_ASSISTANT)
        if needs:
            raise TemplateError(
                f"the template uses {needs[0]}(), which needs Home Assistant's own states"
            )
        compiled = Compiled(source, template, names)
        with self._lock:
            if len(self._compiled) >= COMPILED_KEPT:
                self._compiled.pop(next(iter(self._compiled)))
            self._compiled[source] = compiled
        return compiled

    def render(self, source: str, variables: dict[str, Any]) -> str:
        """Render with ``variables``; the result stripped, as Home Assistant does."""
        compiled = self.compile(source)
        if compiled.is_static:
            return source
        outer = _budget()
        _local.budget = _Budget(self.bounds, time.perf_counter() + self.bounds.seconds)
        try:
            pieces: list[str] = []
            size = 0
            for piece in compiled.template.generate(variables):
                size += len(piece)
                if size > self.bounds.output_chars:
                    raise TemplateError(
                        f"the template made more than {self.bounds.output_chars} characters"
                    )
                pieces.append(piece)
                _step()
            return "".join(pieces).strip()
        except TemplateError:
            raise
        except (jinja2.TemplateError, ArithmeticError, LookupError, TypeError, ValueError) as exc:
            raise TemplateError(f"{type(exc).__name__}: {exc}"[:300]) from None
        except (RecursionError, MemoryError) as exc:
            raise TemplateError(f"the template ran out of room: {type(exc).__name__}") from None
        finally:
            _local.budget = outer

    def render_value(
        self, source: str, payload: str, variables: dict[str, Any] | None = None
    ) -> str:
        """A value template over a received payload: ``value`` and, for JSON, ``value_json``."""
        values: dict[str, Any] = dict(variables or {})
        values["value"] = payload
        with contextlib.suppress(ValueError, RecursionError):
            values["value_json"] = json.loads(payload)
        return self.render(source, values)

    def render_command(
        self, source: str | None, value: Any, variables: dict[str, Any] | None = None
    ) -> str | bytes | int | float | None:
        """A command template (or the value itself without one), as Home Assistant's
        ``MqttCommandTemplate``: a rendered ``b'...'`` literal becomes those bytes."""
        if source is None:
            return value  # type: ignore[no-any-return]
        values: dict[str, Any] = {"value": value}
        values.update(variables or {})
        rendered = self.render(source, values)
        if rendered.startswith(("b'", 'b"')):
            try:
                literal = ast.literal_eval(rendered)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return rendered
            if isinstance(literal, bytes):
                return literal
        return rendered


ENGINE = TemplateEngine()


def check(source: Any) -> str:
    """The template text when it compiles here; `TemplateError` otherwise."""
    if not isinstance(source, str):
        raise TemplateError("a template must be text")
    ENGINE.compile(source)
    return source
