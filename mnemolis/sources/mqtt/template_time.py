"""Home Assistant's time filters and globals for templates (``as_timestamp``, ``now`` ...)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mnemolis.sources.mqtt.template_functions import MISSING, is_number, no_default


def _local(moment: datetime) -> datetime:
    return moment.astimezone()


def now() -> datetime:
    return datetime.now().astimezone()


def utcnow() -> datetime:
    return datetime.now(UTC)


def _moment(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.astimezone()
    if is_number(value):
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.astimezone()
    return None


def as_datetime(value: Any, default: Any = MISSING) -> Any:
    moment = _moment(value)
    if moment is None:
        if default is MISSING:
            raise no_default("as_datetime", value)
        return default
    return moment


def as_timestamp(value: Any, default: Any = MISSING) -> Any:
    moment = _moment(value)
    if moment is None:
        if default is MISSING:
            raise no_default("as_timestamp", value)
        return default
    return moment.timestamp()


def as_local(value: datetime) -> datetime:
    return _local(value)


def timestamp_custom(
    value: Any, format_string: str = "%Y-%m-%d %H:%M:%S", local: bool = True, default: Any = MISSING
) -> Any:
    try:
        moment = datetime.fromtimestamp(float(value), UTC)
        return (_local(moment) if local else moment).strftime(format_string)
    except (ValueError, TypeError, OverflowError, OSError):
        if default is MISSING:
            raise no_default("timestamp_custom", value) from None
        return default


def timestamp_local(value: Any, default: Any = MISSING) -> Any:
    try:
        return _local(datetime.fromtimestamp(float(value), UTC)).isoformat()
    except (ValueError, TypeError, OverflowError, OSError):
        if default is MISSING:
            raise no_default("timestamp_local", value) from None
        return default


def timestamp_utc(value: Any, default: Any = MISSING) -> Any:
    try:
        return datetime.fromtimestamp(float(value), UTC).isoformat()
    except (ValueError, TypeError, OverflowError, OSError):
        if default is MISSING:
            raise no_default("timestamp_utc", value) from None
        return default


def strptime(value: str, format_string: str, default: Any = MISSING) -> Any:
    try:
        return datetime.strptime(value, format_string)
    except (ValueError, TypeError):
        if default is MISSING:
            raise no_default("strptime", value) from None
        return default
