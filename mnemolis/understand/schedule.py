"""Times in what people say: durations, clock times and days.

One reader serves three needs, with the word tables of `intents/<lang>/timers.yaml`:

- slots of type ``duration`` (seconds: "for an hour and a half" = 5400), ``time``
  (a `When`: "in 20 minutes", "at 6:30 tomorrow") and ``text`` (the words of a
  part that no phrase, name or time explains: a timer's name, a reminder's
  message), filled for any intent that takes them (`TimedSlots`);
- a time at the edge of an action makes the action scheduled (`scheduled.py`);
- a duration with "and" inside ("an hour and a half") is a protected span, so
  decomposition never splits it (`TimeReader.is_name`, a `NameSource`).

Understanding does not know the time now: a clock time stays as spoken (7:00, or
"7:00 or 19:00, whichever comes first"), and the timers source resolves it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from mnemolis.config import Config, IntentSpec
from mnemolis.core.plan import When
from mnemolis.understand.analysis import Analysis
from mnemolis.understand.intents import Match
from mnemolis.understand.names import NameIndex
from mnemolis.understand.slots import SlotExtractor, SlotFill, SlotResult

#: Slot types this module fills.
TIMED_TYPES = ("duration", "time", "text")
#: Day slot values that name a day a time can fall on (not "now", "week", "weekend").
DAYS = (
    "today",
    "tonight",
    "tomorrow",
    "day_after_tomorrow",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
_CLOCK_TOKEN = re.compile(r"^(\d{1,2})[:.](\d{2})$")
_NUMBER = re.compile(r"^\d+(\.\d+)?$")

Phrases = dict[tuple[str, ...], str]

#: What the values of the word tables mean (the words themselves are in YAML).
UNIT_SECONDS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}
FRACTIONS = {"half": 0.5, "quarter": 0.25, "three_quarters": 0.75}
AMOUNTS = {"one": 1.0, "couple": 2.0, "few": 3.0}
CLOCK_WORDS = {"noon": (12, 0), "midnight": (0, 0)}


@dataclass(frozen=True)
class TimeSpan:
    """A time found in the query: its tokens and what it says.

    ``kind`` is ``after`` ("in 5 minutes", "5 minutes from now"), ``at`` (a clock
    time, maybe on a day), ``day`` (a day alone: "tomorrow") or ``for`` (a bare
    duration: a timer's length)."""

    start: int
    end: int
    kind: str
    when: When
    duration_s: float | None = None


class Table:
    """A word table of timers.yaml: spoken forms (as words) and their values, looked up
    by their first word (the reader asks at every word of a query, so this is hot)."""

    def __init__(self, config: Config, slot: str, keep: Sequence[str] | None = None) -> None:
        spec = config.slots.get(slot)
        values = spec.values if spec is not None else {}
        self.forms: Phrases = {
            tuple(form.split()): value
            for form, value in values.items()
            if keep is None or value in keep
        }
        self._by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for form, value in sorted(self.forms.items(), key=lambda f: -len(f[0])):
            self._by_first.setdefault(form[0], []).append((form, value))

    def firsts(self) -> set[str]:
        return set(self._by_first)

    def lasts(self) -> set[str]:
        return {form[-1] for form in self.forms}

    def longest(self, words: Sequence[str], i: int, end: int) -> tuple[str, int] | None:
        """The longest entry spoken at ``words[i:]``, and where it ends."""
        if i >= end:
            return None
        for form, value in self._by_first.get(words[i], ()):
            stop = i + len(form)
            if stop <= end and tuple(words[i:stop]) == form:
                return value, stop
        return None


def _number(word: str) -> float | None:
    return float(word) if _NUMBER.match(word) else None


class TimeReader:
    """Reads durations and clock times over the lower-case words of an analysis."""

    def __init__(self, config: Config) -> None:
        self.config = config
        units = Table(config, "time_unit").forms
        fractions = Table(config, "time_fraction").forms
        self.units = {form[0]: UNIT_SECONDS[v] for form, v in units.items() if v in UNIT_SECONDS}
        self.fractions = {form[0]: FRACTIONS[v] for form, v in fractions.items() if v in FRACTIONS}
        self.amounts = Table(config, "time_amount")
        self.meridiem = Table(config, "meridiem")
        self.clock_words = Table(config, "clock_word")
        self.relation = Table(config, "time_relation")
        self.oclock = Table(config, "on_the_hour")
        self.leads = Table(config, "time_lead")
        self.tails = Table(config, "time_tail")
        self.days = Table(config, "day", keep=DAYS)
        #: "at sunset", "this evening", "tomorrow morning": times no clock places yet
        self.vague = Table(config, "vague_time")
        self.this = Table(config, "vague_time_lead")
        self.articles = {
            form[-1] for form, v in self.amounts.forms.items() if v == "one" and len(form) == 1
        }
        self.articles.discard("one")
        #: the words a time can start with (besides digits): the rest are skipped at once
        self.starters = (
            set(self.units)
            | set(self.fractions)
            | self.amounts.firsts()
            | self.clock_words.firsts()
            | self.leads.firsts()
            | self.days.firsts()
            | self.vague.firsts()
            | self.this.firsts()
        )
        #: a time has one of these words (or a digit): a part without any has none
        self.cores = (
            set(self.units)
            | set(self.fractions)
            | self.clock_words.lasts()
            | self.days.lasts()
            | self.vague.lasts()
        )
        self.quiet = config.language.stop_words | config.language.filler_words
        self.text_edges = {
            name: {" ".join(form) for form in Table(config, f"{name}_edges").forms}
            for name, spec in config.slots.items()
            if spec.type == "text"
        }

    # ------------------------------------------------------------------ durations

    def duration(self, words: Sequence[str], i: int, end: int) -> tuple[float, int] | None:
        """ "5 minutes", "an hour and a half", "2 hours and 30 minutes": seconds and end."""
        total, j = 0.0, i
        while True:
            one = self._one_duration(words, j, end)
            if one is None:
                break
            total, j = total + one[0], one[1]
            if j < end and words[j] == "and" and self._one_duration(words, j + 1, end):
                j += 1
        return (total, j) if j > i else None

    def _one_duration(self, words: Sequence[str], i: int, end: int) -> tuple[float, int] | None:
        j, amount, extra = i, None, 0.0
        if j < end and (n := _number(words[j])) is not None:
            amount, j = n, j + 1
        elif (said := self.amounts.longest(words, j, end)) is not None:
            amount, j = AMOUNTS.get(said[0], 1.0), said[1]
        if amount is not None and (half := self._and_a_fraction(words, j, end)) is not None:
            extra, j = half  # "1 and a half hours"
        fraction = None
        if j < end and words[j] in self.fractions:
            fraction, j = self.fractions[words[j]], j + 1
            if j < end and words[j] == "of":
                j += 1
            if j < end and words[j] in self.articles:
                j += 1
        if j >= end or words[j] not in self.units or (amount is None and fraction is None):
            return None
        unit, j = self.units[words[j]], j + 1
        seconds = (amount if amount is not None else 1.0) * (fraction or 1.0) * unit
        seconds += extra * unit
        if (half := self._and_a_fraction(words, j, end)) is not None:
            seconds, j = seconds + half[0] * unit, half[1]  # "an hour and a half"
        return seconds, j

    def _and_a_fraction(self, words: Sequence[str], i: int, end: int) -> tuple[float, int] | None:
        if i + 3 <= end and words[i] == "and" and words[i + 1] in self.articles:
            fraction = self.fractions.get(words[i + 2])
            if fraction is not None:
                return fraction, i + 3
        return None

    # ------------------------------------------------------------------ clock times

    def clock(self, words: Sequence[str], i: int, end: int) -> tuple[When, int, bool] | None:
        """ "6:30", "7 pm", "half past 7", "noon": the time, its end, and whether the
        words alone show it is a time (a colon, am/pm, o'clock, a clock word)."""
        named = self.clock_words.longest(words, i, end)
        if named is not None and named[0] in CLOCK_WORDS:
            hour, minute = CLOCK_WORDS[named[0]]
            return When(hour=hour, minute=minute), named[1], True
        found = self._relative_clock(words, i, end) or self._plain_clock(words, i, end)
        if found is None:
            return None
        hour, minute, j, sure, zero = found
        said = self.meridiem.longest(words, j, end)
        if said is not None and 1 <= hour <= 12:
            hour = (hour % 12) + (12 if said[0] == "pm" else 0)
            return When(hour=hour, minute=minute), said[1], True
        if j < end and words[j] in self.units:
            return None  # "at 5 minutes": a duration
        twelve = 1 <= hour <= 12 and not zero
        return When(hour=hour % 24, minute=minute, am_or_pm=twelve), j, sure

    def _plain_clock(
        self, words: Sequence[str], i: int, end: int
    ) -> tuple[int, int, int, bool, bool] | None:
        if i >= end:
            return None
        word = words[i]
        token = _CLOCK_TOKEN.match(word)
        if token is not None:
            hour, minute = int(token.group(1)), int(token.group(2))
            if hour > 24 or minute > 59:
                return None
            return hour, minute, i + 1, ":" in word, word.startswith("0")
        if not word.isdecimal() or int(word) > 24:
            return None
        hour, j, minute = int(word), i + 1, 0
        if j < end and words[j].isdecimal() and len(words[j]) == 2 and int(words[j]) < 60:
            minute, j = int(words[j]), j + 1  # "7 30" (from "seven thirty")
        sure = False
        if (oclock := self.oclock.longest(words, j, end)) is not None:
            j, sure = oclock[1], True
        return hour, minute, j, sure, word.startswith("0") and len(word) == 2

    def _relative_clock(
        self, words: Sequence[str], i: int, end: int
    ) -> tuple[int, int, int, bool, bool] | None:
        """ "half past 7", "quarter to 8", "10 past 6"."""
        j, minutes = i, None
        if j < end and words[j] in self.articles:
            j += 1
        if j < end and words[j] in self.fractions:
            minutes, j = round(60 * self.fractions[words[j]]), j + 1
        elif j < end and words[j].isdecimal() and int(words[j]) < 60:
            minutes, j = int(words[j]), j + 1
            if j < end and words[j] in ("minute", "minutes"):
                j += 1
        relation = self.relation.longest(words, j, end) if minutes is not None else None
        if relation is None or minutes is None:
            return None
        j = relation[1]
        if j >= end or not words[j].isdecimal() or not 0 <= int(words[j]) <= 24:
            return None
        hour = int(words[j])
        if relation[0] == "to":
            hour, minutes = (hour - 1) % 24, 60 - minutes
        return hour, minutes, j + 1, True, False

    # ------------------------------------------------------------------ whole times

    def _day(self, words: Sequence[str], i: int, end: int) -> tuple[str, int, str | None] | None:
        day = self.days.longest(words, i, end)
        if day is None:
            return None
        hint = self.meridiem.longest(words, i, end)
        return day[0], day[1], hint[0] if hint is not None and hint[1] == day[1] else None

    def at(self, words: Sequence[str], i: int, end: int) -> TimeSpan | None:
        """The longest time that starts at ``words[i]``."""
        lead = self.leads.longest(words, i, end)
        tried: list[TimeSpan] = []
        if lead is not None and lead[0] == "after":
            found = self.duration(words, lead[1], end)
            if found is not None:
                seconds, j = found
                if (tail := self.tails.longest(words, j, end)) is not None:
                    j = tail[1]
                tried.append(TimeSpan(i, j, "after", When(after_s=seconds), seconds))
        found = self.duration(words, i, end)
        if found is not None:
            seconds, j = found
            tail = self.tails.longest(words, j, end)
            if tail is not None:
                tried.append(TimeSpan(i, tail[1], "after", When(after_s=seconds), seconds))
            else:
                tried.append(TimeSpan(i, j, "for", When(after_s=seconds), seconds))
        if lead is not None and words[i] == "for" and (d := self.duration(words, lead[1], end)):
            tried.append(TimeSpan(i, d[1], "for", When(after_s=d[0]), d[0]))  # "for 10 minutes"
        clock = self._clock_on_day(words, i, end, lead)
        if clock is not None:
            tried.append(clock)
        else:
            # "remind me tomorrow", "on friday": a day without a time (the source picks the hour)
            first = lead[1] if lead is not None and lead[0] == "at" else i
            if (day := self._day(words, first, end)) is not None and day[0] != "today":
                tonight = day[0] == "tonight"
                when = When(
                    day="today" if tonight else day[0], vague="tonight" if tonight else None
                )
                tried.append(TimeSpan(i, day[1], "day", when))
        if (vague := self._vague(words, i, end, lead)) is not None:
            tried.append(vague)
        return max(tried, key=lambda s: s.end - s.start) if tried else None

    def _vague(
        self, words: Sequence[str], i: int, end: int, lead: tuple[str, int] | None
    ) -> TimeSpan | None:
        """[lead] [day] [this|the] vague word: "at sunset", "in the evening", "tomorrow
        morning". Said with nothing before it ("morning"), the word is no time."""
        j = lead[1] if lead is not None else i
        day = self._day(words, j, end)
        if day is not None:
            j = day[1]
        this = self.this.longest(words, j, end)
        if this is not None:
            j = this[1]
        said = self.vague.longest(words, j, end)
        bare = lead is None and day is None and (this is None or this[0] == "the")
        if said is None or bare:
            return None  # "the morning routine", "good evening": no time
        on = None if day is None or day[0] in ("today", "tonight") else day[0]
        return TimeSpan(i, said[1], "vague", When(day=on, vague=said[0]))

    def _clock_on_day(
        self, words: Sequence[str], i: int, end: int, lead: tuple[str, int] | None
    ) -> TimeSpan | None:
        """[day] [at] clock [day]: "tomorrow at 7", "at 6:30 on monday", "11 pm"."""
        j, day, hint = i, None, None
        if (found := self._day(words, j, end)) is not None:
            day, j, hint = found
            if (again := self.leads.longest(words, j, end)) is not None and again[0] == "at":
                lead, j = again, again[1]
        elif lead is not None and lead[0] == "at":
            j = lead[1]
        clock = self.clock(words, j, end)
        if clock is None:
            return None
        when, j, sure = clock
        if not (sure or day is not None or (lead is not None and lead[0] == "at")):
            return None
        if day is None:
            after = j
            if j < end and words[j] == "on":
                after = j + 1
            if (found := self._day(words, after, end)) is not None:
                day, j, hint = found[0], found[1], found[2]
        if when.am_or_pm and hint is not None and when.hour is not None:
            when = When(hour=when.hour % 12 + (12 if hint == "pm" else 0), minute=when.minute)
        when.day = "today" if day == "tonight" else day
        return TimeSpan(i, j, "at", when)

    def find(self, a: Analysis, start: int, end: int) -> list[TimeSpan]:
        """Every time in ``[start, end)``, longest first at each place, not overlapping."""
        words = [t.lower for t in a.tokens]
        out: list[TimeSpan] = []
        if not any(w in self.cores or w[:1].isdigit() for w in words[start:end]):
            return out
        i = start
        while i < end:
            if words[i] not in self.starters and not words[i][:1].isdigit():
                i += 1
                continue
            span = self.at(words, i, end)
            if span is None:
                i += 1
                continue
            span.when.text = a.span_text(span.start, span.end)
            out.append(span)
            i = span.end
        return out

    def is_name(self, text: str) -> bool:
        """A duration with "and" inside ("an hour and a half") is one thing: a
        `NameSource` for decomposition's protected spans."""
        words = text.split()
        if "and" not in words or not any(w in self.units for w in words):
            return False
        found = self.duration(words, 0, len(words))
        return found is not None and found[1] == len(words)


class TimedSlots(SlotExtractor):
    """The slot extractor, with the rules of the duration, time and text types."""

    def __init__(self, config: Config, names: NameIndex, reader: TimeReader) -> None:
        super().__init__(config, names)
        self.reader = reader

    def extract(
        self, a: Analysis, start: int, end: int, intent: IntentSpec, match: Match | None
    ) -> SlotResult:
        out = super().extract(a, start, end, intent, match)
        timed = [s for s in intent.slots if self.config.slots[s].type in TIMED_TYPES]
        if not timed:
            return out
        spans = self.reader.find(a, start, end)
        kinds = {self.config.slots[s].type for s in timed}
        for name in timed:
            kind = self.config.slots[name].type
            if kind == "duration":
                span = next((s for s in spans if s.kind == "for"), None)
                if span is not None and span.duration_s is not None:
                    out.fills[name] = SlotFill(
                        name, _whole(span.duration_s), span.start, span.end, "time"
                    )
            elif kind == "time":
                span = next((s for s in spans if s.kind != "for"), None)
                if span is None and "duration" not in kinds:
                    span = next(iter(spans), None)  # "set an alarm for 10 minutes"
                if span is not None:
                    value = span.when.to_dict()
                    out.fills[name] = SlotFill(name, value, span.start, span.end, "time")
        for fill in out.fills.values():
            out.covered.update(fill.tokens)
        times = {i for span in spans for i in range(span.start, span.end)}
        for name in timed:
            if self.config.slots[name].type == "text":
                self._text(a, start, end, intent, name, out, times)
        return out

    def _text(
        self,
        a: Analysis,
        start: int,
        end: int,
        intent: IntentSpec,
        name: str,
        out: SlotResult,
        times: set[int],
    ) -> None:
        """The longest run of words no phrase of the intent, no slot and no time explains,
        without the words that frame it (its table ``<slot>_edges``)."""
        framing = self.reader.text_edges.get(name, set())
        # a time is never part of a name or a reminder's message, but is of a broadcast's
        keeps = self.config.slots[name].keeps_times
        explained = out.covered | (set() if keeps else times)
        for m in a.matches:
            if m.intent == intent.name and m.inside(start, end):
                explained.update(m.literal)
        toks = a.tokens
        runs: list[tuple[int, int]] = []
        i = start
        while i < end:
            if i in explained or toks[i].is_punct:
                i += 1
                continue
            j = i
            while j < end and j not in explained and not toks[j].is_punct:
                j += 1
            s, e = i, j
            while s < e and toks[s].lower in framing:
                s += 1
            while e > s and toks[e - 1].lower in framing:
                e -= 1
            content = sum(1 for k in range(s, e) if toks[k].lower not in self.reader.quiet)
            if content:
                runs.append((s, e))
            i = j
        if runs:
            s, e = max(runs, key=lambda r: (r[1] - r[0], -r[0]))
            out.fills[name] = SlotFill(name, a.span_text(s, e).lower(), s, e, "words")


def _whole(seconds: float) -> int | float:
    return int(seconds) if float(seconds).is_integer() else round(seconds, 1)
