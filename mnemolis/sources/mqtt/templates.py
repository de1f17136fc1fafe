"""Home Assistant's templates, run with Jinja2 in a bounded sandbox.

Discovery configs describe how to read a state (``value_template``) and how
to write a command (``command_template``) in Jinja, the template language of
Home Assistant. Mnemolis renders them with Jinja2's immutable sandbox (no
attribute starting with ``_``, no mutation of lists and dicts, no unsafe
callables) and the filters Home Assistant adds (`template_functions`). A
template comes from the network, so both its compilation and every render
are bounded (`template_budget`):

* compiling: at most `TEMPLATE_CHARS` characters, `TEMPLATE_TOKENS` tokens
  and `TEMPLATE_NODES` syntax nodes, no integer literal over the bits bound;
  compiled once per text, kept in a cache weighed by nodes (least recently
  used out first), a refusal cached too;
* every loop iteration, call, filter and attribute access is a *step*; a
  render takes at most `Bounds.steps` of them and `Bounds.seconds` of time,
  the clock read at every step;
* ``*``, ``+``, ``%``, ``**``, ``~`` and the string-growing filters and
  methods check the size of what they would build before building it (for
  integers, their bits), and the output stops at `Bounds.output_chars`;
* regular expressions run with a time-out (`template_regex`);
* ``range`` stops at 100,000 items (Jinja2's own sandbox limit).

A template that does not compile, or names a Home Assistant function that
needs its state machine (``states()``), is refused when the config is read
(`TemplateError` with the reason); one that fails on a message leaves that
message unread, as Home Assistant does; one that breaks a bound is disabled
for its device (`template_faults`). Both follow Home Assistant's
rendering: value templates see ``value`` and ``value_json``, command
templates ``value`` and their variables, and the result is stripped.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import meta, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from mnemolis.sources.mqtt import template_functions as fn
from mnemolis.sources.mqtt import template_tables
from mnemolis.sources.mqtt.template_budget import (
    DEFAULT_BOUNDS,
    BoundBroken,
    Bounds,
    TemplateError,
    check_bits,
    check_result,
    check_size,
    running,
    size_of,
    step,
)
from mnemolis.sources.mqtt.template_budget import bounds as active_bounds
from mnemolis.sources.mqtt.template_faults import Faults

__all__ = [
    "DEFAULT_BOUNDS",
    "ENGINE",
    "BoundBroken",
    "Bounds",
    "Compiled",
    "TemplateDisabled",
    "TemplateEngine",
    "TemplateError",
    "check",
]

TEMPLATE_CHARS = 16_384  # the longest template text compiled
TEMPLATE_TOKENS = 2_000  # counted by the lexer before anything is parsed
TEMPLATE_NODES = 1_000  # syntax nodes after parsing; code generation costs ~80 µs a node
COMPILED_NODES = 100_000  # the compiled cache's weight (a node keeps ~120 bytes of code)
#: A ``%`` or ``format`` specification with a width of five digits or more, or a width
#: taken from an argument (``%*d``, ``{:{}}``), is refused.
_WIDE_SPEC = re.compile(r"[%{][^%{}]*?(\d{5,})|%[^a-zA-Z%]*\*|\{[^{}]*:[^{}]*\{")
_TEMPLATE_MARKS = ("{{", "{%", "{#")


class TemplateDisabled(TemplateError):
    """A template that broke a bound earlier and is no longer run for its device."""


def _check_format(spec: Any) -> None:
    if isinstance(spec, str) and _WIDE_SPEC.search(spec):
        raise BoundBroken("size", "a format wider than 9999 characters, or as wide as an argument")


def _items(iterable: Any) -> Iterator[Any]:
    """Every loop of a template iterates through here: one step per item."""
    for item in iterable:
        step()
        yield item


def _concat(parts: Iterable[Any]) -> str:
    texts = [str(p) for p in parts]
    check_size(sum(len(t) for t in texts))
    return "".join(texts)


def _node_count(tree: nodes.Node) -> int:
    count, todo = 0, [tree]
    while todo:
        node = todo.pop()
        count += 1
        todo.extend(node.iter_child_nodes())
    return count


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


#: Methods of str and bytes whose first argument is a width or a count of the result.
_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})
_TEXTS = (str, bytes, bytearray)
#: What Jinja passes ahead of a filter's value (``pass_environment`` and friends).
_PASSED = (jinja2.Environment, nodes.EvalContext, jinja2.runtime.Context)
_GROWING_FILTERS = frozenset(
    {"center", "indent", "replace", "join", "format", "wordwrap", "tojson", "to_json"}
)


def _precheck(name: str, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a string operation whose result would be over the limit, before it runs."""
    limit = active_bounds().output_chars
    if name in _WIDTH_METHODS or name in ("center", "indent", "tojson", "to_json"):
        widths = [a for a in (*args, *kwargs.values()) if isinstance(a, int)]
        if any(w > limit for w in widths):
            raise BoundBroken("size", f"{name} wider than {limit} characters")
        if name in ("indent", "expandtabs"):
            lines = str(target).count("\n") + str(target).count("\t") + 1
            check_size(size_of(target) + lines * max(widths or [0]))
        if name in ("tojson", "to_json") and widths and widths[0] > 16:
            raise BoundBroken("size", f"{name} indented by more than 16")
    elif name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = str(target).count(old) if old else size_of(target) + 1
        check_size(size_of(target) + count * len(new))
    elif name == "join" and hasattr(target, "__len__"):
        glue = next((a for a in (*args, *kwargs.values()) if isinstance(a, str)), "")
        items = target if isinstance(target, list | tuple | str) else ()
        check_size(len(target) * len(glue) + sum(size_of(x) for x in items))
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
            step()
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
            check_result(result)
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
        size = _node_count(tree)
        if size > TEMPLATE_NODES:
            raise TemplateError(f"a template of more than {TEMPLATE_NODES} parts ({size})")
        for const in tree.find_all(nodes.Const):
            if isinstance(const.value, int) and const.value.bit_length() > DEFAULT_BOUNDS.int_bits:
                raise TemplateError(f"an integer of more than {DEFAULT_BOUNDS.int_bits} bits")
        result = _Bounder().visit(tree)
        assert isinstance(result, nodes.Template)
        return result

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        step()
        name = getattr(__obj, "__name__", "")
        original = getattr(__obj, "__wrapped__", __obj)  # the sandbox wraps str.format
        target = getattr(original, "__self__", None)
        if isinstance(target, _TEXTS) and name in (*_WIDTH_METHODS, "replace", "join", "format"):
            _precheck(name, target if name != "join" else (args[0] if args else ""), args, kwargs)
            if name == "join" and args and isinstance(args[0], list | tuple):
                _precheck("join", args[0], (target,), {})
        elif isinstance(target, int) and name == "to_bytes":
            length = args[0] if args else kwargs.get("length", 1)
            if isinstance(length, int):
                check_size(length)
        result = super().call(__context, __obj, *args, **kwargs)
        check_result(result)
        return result

    def getattr(self, obj: Any, attribute: str) -> Any:
        step()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        step()
        return super().getitem(obj, argument)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        step()
        if operator == "*":
            if isinstance(left, int) and isinstance(right, int):
                check_bits(left.bit_length() + right.bit_length())
            for seq, count in ((left, right), (right, left)):
                if isinstance(seq, str | bytes | list | tuple) and isinstance(count, int):
                    check_size(len(seq) * max(count, 0))
        elif operator == "+" and isinstance(left, str | bytes | list | tuple):
            check_size(size_of(left) + size_of(right))
        elif operator == "**" and isinstance(left, int) and isinstance(right, int):
            if abs(left) > 1 and right > 0:
                check_bits(right * abs(left).bit_length())
        elif operator == "%":
            _check_format(left)
        result = self.binop_table[operator](left, right)
        check_result(result)
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


class _Cache:
    """Compiled templates (and refusals) by text, least recently used out first, weighed
    by syntax nodes so that many large templates cannot hold memory."""

    def __init__(self, weight: int) -> None:
        self.weight = weight
        self.held = 0
        self._entries: OrderedDict[str, tuple[Compiled | TemplateError, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, source: str) -> Compiled | TemplateError | None:
        with self._lock:
            entry = self._entries.get(source)
            if entry is None:
                return None
            self._entries.move_to_end(source)
            return entry[0]

    def put(self, source: str, result: Compiled | TemplateError, weight: int) -> None:
        with self._lock:
            old = self._entries.pop(source, None)
            self.held -= old[1] if old is not None else 0
            self._entries[source] = (result, weight)
            self.held += weight
            while self.held > self.weight and len(self._entries) > 1:
                _gone, (_result, gone_weight) = self._entries.popitem(last=False)
                self.held -= gone_weight

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


class TemplateEngine:
    """Compiles (once per source text) and renders templates within `Bounds`."""

    def __init__(self, bounds: Bounds = DEFAULT_BOUNDS, cache_nodes: int = COMPILED_NODES) -> None:
        self.bounds = bounds
        self.environment = BoundedEnvironment()
        self.cache = _Cache(cache_nodes)
        self.faults = Faults()

    def compile(self, source: str) -> Compiled:
        """The compiled template, or `TemplateError` saying why it cannot be used."""
        if not isinstance(source, str):
            raise TemplateError("a template must be text")
        found = self.cache.get(source)
        if found is None:
            found, weight = self._compile(source)
            self.cache.put(source, found, weight)
        if isinstance(found, TemplateError):
            raise TemplateError(str(found))
        return found

    def _compile(self, source: str) -> tuple[Compiled | TemplateError, int]:
        """A compiled template and its weight in nodes, or the refusal (weight 1)."""
        if len(source) > TEMPLATE_CHARS:
            return TemplateError(f"a template longer than {TEMPLATE_CHARS} characters"), 1
        try:
            for tokens, _token in enumerate(self.environment.lex(source), 1):
                if tokens > TEMPLATE_TOKENS:
                    return TemplateError(f"a template of more than {TEMPLATE_TOKENS} tokens"), 1
            tree = self.environment.parse(source)
            weight = _node_count(tree)
            template = self.environment.from_string(tree)
        except TemplateError as exc:
            return exc, 1
        except jinja2.TemplateSyntaxError as exc:
            return TemplateError(f"the template does not compile: {exc.message}"), 1
        except (jinja2.TemplateError, ValueError, RecursionError, MemoryError) as exc:
            return TemplateError(f"the template does not compile: {exc}"[:300]), 1
        names = frozenset(meta.find_undeclared_variables(tree))
        needs = sorted(names & fn.NEEDS_HOME_ASSISTANT)
        if needs:
            reason = f"the template uses {needs[0]}(), which needs Home Assistant's own states"
            return TemplateError(reason), 1
        return Compiled(source, template, names), weight

    def render(
        self, source: str, variables: dict[str, Any], owner: tuple[str, str] | None = None
    ) -> str:
        """Render with ``variables``; the result stripped, as Home Assistant does.

        ``owner`` (device id, template key): a template that breaks a bound is
        disabled for that device (`TemplateDisabled` from then on)."""
        if owner is not None:
            reason = self.faults.disabled(owner[0], owner[1], source)
            if reason is not None:
                raise TemplateDisabled(reason)
        try:
            return self._render(source, variables)
        except BoundBroken as exc:
            if owner is not None and self.faults.record(owner[0], owner[1], source, exc):
                raise TemplateDisabled(f"{owner[1]} disabled: {exc}") from None
            raise

    def _render(self, source: str, variables: dict[str, Any]) -> str:
        compiled = self.compile(source)
        if compiled.is_static:
            return source
        with running(self.bounds):
            try:
                pieces: list[str] = []
                size = 0
                for piece in compiled.template.generate(variables):
                    size += len(piece)
                    if size > self.bounds.output_chars:
                        raise BoundBroken(
                            "size",
                            f"the template made more than {self.bounds.output_chars} characters",
                        )
                    pieces.append(piece)
                    step()
                return "".join(pieces).strip()
            except TemplateError:
                raise
            except (
                jinja2.TemplateError,
                ArithmeticError,
                LookupError,
                TypeError,
                ValueError,
            ) as exc:
                raise TemplateError(f"{type(exc).__name__}: {exc}"[:300]) from None
            except (RecursionError, MemoryError) as exc:
                raise BoundBroken(
                    "size", f"the template ran out of room: {type(exc).__name__}"
                ) from None

    def render_value(
        self,
        source: str,
        payload: str,
        variables: dict[str, Any] | None = None,
        owner: tuple[str, str] | None = None,
    ) -> str:
        """A value template over a received payload: ``value`` and, for JSON, ``value_json``."""
        values: dict[str, Any] = dict(variables or {})
        values["value"] = payload
        with contextlib.suppress(ValueError, RecursionError):
            values["value_json"] = json.loads(payload)
        return self.render(source, values, owner)

    def render_command(
        self,
        source: str | None,
        value: Any,
        variables: dict[str, Any] | None = None,
        owner: tuple[str, str] | None = None,
    ) -> str | bytes | int | float | None:
        """A command template (or the value itself without one), as Home Assistant's
        ``MqttCommandTemplate``: a rendered ``b'...'`` literal becomes those bytes."""
        if source is None:
            return value  # type: ignore[no-any-return]
        values: dict[str, Any] = {"value": value}
        values.update(variables or {})
        rendered = self.render(source, values, owner)
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
