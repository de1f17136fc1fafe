"""Collecting configuration errors instead of stopping at the first.

An owner who runs `mnemolis check` should see every mistake of every file in
one go, each with its file and line. Loaders run each independent piece (a
file, an intent, a slot, a device, a routine step) under `Problems.each`,
which keeps the error and carries on; at the end `raise_any` raises them
together as one `ConfigErrors`, which reads as the first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from mnemolis.config.yaml_at import ConfigError, ConfigErrors


@dataclass
class Problems:
    """The errors found so far, in the order they were found."""

    errors: list[ConfigError] = field(default_factory=list)

    def add(self, error: ConfigError) -> None:
        self.errors.extend(error.errors)

    @contextmanager
    def each(self) -> Iterator[None]:
        """Run one independent piece; its error is kept, and the caller goes on."""
        try:
            yield
        except ConfigError as error:
            self.add(error)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def raise_any(self) -> None:
        """Raise every error kept (one `ConfigErrors`), if there is any."""
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise ConfigErrors(self.errors)
