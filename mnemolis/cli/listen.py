"""`mnemolis listen` and `mnemolis demo --voice / --wav`: the voice front-ends.

Thin: they read `sources/voice.yaml`, load the engines once (`VoiceKit`), build
one `VoicePipeline` and print what it does. ``--wav FILE...`` answers recorded
requests in one process (the recogniser loaded once; each whole file is the
request, or, with ``--wake``, what follows the wake word in it); without it,
the microphone: wake word, request, spoken answer, and a follow-up without
the wake word when the answer asks a question.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemolis.cli.exits import EXIT_BAD_AUDIO, EXIT_FAILED, OUTCOME_EXIT
from mnemolis.cli.subcommand import add_command

if TYPE_CHECKING:
    from mnemolis.config import Config
    from mnemolis.runtime.assistant import Assistant
    from mnemolis.voice.events import Event
    from mnemolis.voice.pipeline import Turn

LISTEN_EXIT_HELP = """exit status (of the last file; a file that could not be used wins):
  0  every part was answered
  1  parts were understood but none answered, or an engine (recogniser, voice) failed
  2  the configuration is broken (the message names the file and line)
  3  partial: some parts were answered, others failed or were out of scope
  4  nothing understood: silence, noise, no wake word, or no request Mnemolis serves
  5  waiting: "Did you say ...?" or "Do you want me to ...?" needs a next turn
  6  the sound could not be used: not a WAV file, empty, truncated, clipped, longer
     than limits.max_request_s, or a microphone that is missing or busy"""


def add_voice_options(p: argparse.ArgumentParser) -> None:
    """The options `listen` and `demo` share."""
    p.add_argument(
        "--wav",
        nargs="+",
        metavar="FILE",
        help="answer these recorded requests instead of the microphone (any rate and "
        "channel count; each whole file is one request, turns of one conversation)",
    )
    p.add_argument(
        "--wake", action="store_true", help="with --wav: the request follows the wake word"
    )
    p.add_argument(
        "--say-to", metavar="FILE.wav", help="write the spoken answer (of the last file) here"
    )
    p.add_argument("--microphone", metavar="NAME", help="the microphone by name (input.microphone)")


def add_listen_parser(sub: Any, room_help: str, command: Callable[..., int]) -> None:
    p = add_command(
        sub,
        "listen",
        command,
        help="answer spoken requests: the microphone, or WAV files",
        description="Listen for the wake word, hear the request, answer it aloud; a "
        "question back is answered without the wake word. With --wav, answer recorded "
        "requests instead. Settings: sources/voice.yaml (docs/voice.md).",
        epilog=LISTEN_EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_voice_options(p)
    p.add_argument("--room", metavar="AREA", help=room_help)
    p.add_argument("--json", action="store_true", help="print one JSON object a request")


def _exit_of(turn: Turn) -> int:
    from mnemolis.voice.pipeline import BAD_AUDIO

    if turn.outcome == BAD_AUDIO:
        return EXIT_BAD_AUDIO
    return OUTCOME_EXIT.get(turn.outcome, EXIT_FAILED)


def _show(turn: Turn, as_json: bool, many: bool) -> None:
    if as_json:
        print(json.dumps(turn.to_dict(), ensure_ascii=False), flush=True)
        return
    heard = turn.heard
    where = f"{turn.name}: " if many and turn.name else ""
    said = f"heard {heard.text!r} ({heard.confidence:.2f})" if heard.text else "heard nothing"
    why = f" ({heard.rejected})" if not heard.text and heard.rejected else ""
    print(f"{where}{said}{why}", file=sys.stderr)
    for note in turn.notes:
        print(f"{where}note: {note}", file=sys.stderr)
    print(turn.said, flush=True)


def _event_line(event: Event) -> str | None:
    from mnemolis.voice.events import NothingSaid, SpeechStarted, TooLong, Woke

    if isinstance(event, Woke):
        return f"woke ({event.wake_word}): listening"
    if isinstance(event, SpeechStarted):
        return "speech started"
    if isinstance(event, NothingSaid):
        return "nothing said: waiting for the wake word"
    if isinstance(event, TooLong):
        return f"the request went on for {event.seconds:.0f} s: cut"
    return None


async def run_voice(
    assistant: Assistant, config: Config, args: argparse.Namespace, front_end: str, room: str | None
) -> int:
    """The voice front-end over a running assistant: files (``--wav``) or the microphone."""
    import asyncio

    from mnemolis.core.origin import Origin
    from mnemolis.core.state_dir import state_dir
    from mnemolis.voice.engines import load_kit
    from mnemolis.voice.inputs import CommandSource, MemorySource, SoundDeviceSource
    from mnemolis.voice.outputs import CommandSink, NullSink, SoundDeviceSink, WavFileSink
    from mnemolis.voice.pipeline import VoicePipeline
    from mnemolis.voice.stages import AudioFormat, AudioSink, AudioSource, BadAudio, StageError
    from mnemolis.voice.wav import read_wav

    try:
        kit = await load_kit(config, state_dir())
    except StageError as exc:
        print(f"mnemolis: {exc}", file=sys.stderr)
        return 1
    settings = kit.settings
    origin = Origin(front_end=front_end, session="voice", room=room or settings.room)
    sink: AudioSink
    if args.say_to:
        sink = WavFileSink(Path(args.say_to))
    elif args.wav:
        sink = NullSink()
    elif settings.output.command:
        sink = CommandSink(settings.output.command)
    else:
        sink = SoundDeviceSink(settings.output.speaker)
    pipeline = VoicePipeline(assistant, kit, origin, sink, speak=bool(args.say_to or not args.wav))
    as_json = bool(getattr(args, "json", False))
    many = bool(args.wav and len(args.wav) > 1)
    status = 0
    worst: int | None = None

    def shown(turn: Turn) -> None:
        nonlocal status, worst
        _show(turn, as_json, many)
        status = _exit_of(turn)
        if status in (1, EXIT_BAD_AUDIO):
            worst = status

    if args.wav:
        for name in args.wav:
            try:
                wav = await asyncio.to_thread(read_wav, Path(name), settings.limits.max_request_s)
            except BadAudio as exc:
                print(f"mnemolis: {exc}", file=sys.stderr)
                shown(await pipeline.refused(exc, name, []))
                continue
            notes = [f"converted from {wav.describe()}"] if wav.converted else []
            if not args.wake:
                turn = await pipeline.answer(wav.audio, name, notes)
                shown(turn)
                continue
            turns: list[Turn] = []
            await pipeline.converse(MemorySource(wav.audio), turns.append, live=False, turns=1)
            if not turns:
                phrase = settings.wake.model.replace("_", " ")
                turns.append(await pipeline.no_wake_word(name, phrase))
            turns[0].notes[:0] = notes
            turns[0].name = name
            shown(turns[0])
        return worst if worst is not None else status

    source: AudioSource
    fmt = AudioFormat(settings.input.rate, 2, settings.input.channels)
    if settings.input.command:
        source = CommandSource(settings.input.command, fmt)
    else:
        source = SoundDeviceSource(args.microphone or settings.input.microphone, fmt)

    def event(happened: Event) -> None:
        line = _event_line(happened)
        if line is not None:
            print(line, file=sys.stderr, flush=True)

    phrase = settings.wake.model.replace("_", " ")
    print(f"listening for {phrase!r} (Ctrl-C ends)", file=sys.stderr, flush=True)
    try:
        await pipeline.converse(source, shown, event, wake=True, live=True)
    except BadAudio as exc:
        print(f"mnemolis: {exc}", file=sys.stderr)
        return EXIT_BAD_AUDIO
    return status
