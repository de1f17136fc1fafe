"""The `mnemolis` command: ask, chat, demo, doctor, parse, explain and check
(the daemon, `mnemolis serve`, lives in serve/).

Each command imports what it uses when it runs: `mnemolis --help` loads no
spaCy, and `ask` and `chat` first try a running daemon (`serve.client`),
which needs only the standard library, before they start an assistant of
their own (``--local`` forces that).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mnemolis.cli import plans
from mnemolis.cli.exits import (
    ASK_EXIT_HELP,
    EXIT_CONFIG,
    EXIT_FAILED,
    EXIT_NOT_UNDERSTOOD,
    EXIT_OK,
    OUTCOME_EXIT,
)
from mnemolis.cli.listen import add_listen_parser, add_voice_options
from mnemolis.cli.subcommand import add_command

if TYPE_CHECKING:  # loaded only by the commands that use them
    from mnemolis.cli.doctor import Finding
    from mnemolis.config import Config
    from mnemolis.demo.home import DemoHome
    from mnemolis.runtime.answer import Answer

LOCAL_HELP = (
    "answer in this process, even when a `mnemolis serve` is running (by default the "
    "running daemon answers, if it serves the same configuration)"
)
ROOM_HELP = (
    'the area the request is spoken in: "turn on the lights" then means its lights '
    "(as a satellite's area does for the daemon)"
)


def _load(args: argparse.Namespace) -> Config:
    from mnemolis.config import load_config

    return load_config(args.config)


def _load_at_home(args: argparse.Namespace) -> Config:
    """The configuration of a command that answers in this process: a newcomer on the
    shipped home is told so, and only warnings are logged (`_quiet_logs`)."""
    from mnemolis.cli.newcomer import say_note, shipped_home_note

    config = _load(args)
    say_note(shipped_home_note(args, config))
    _quiet_logs()
    return config


def cmd_check(args: argparse.Namespace) -> int:
    from mnemolis.cli.check import run_check

    return run_check(args.config, args.where)


def source_extras() -> dict[str, object]:
    """What the CLI hands the sources: the demo ZIM, built only if a source asks for it
    (the Kiwix source, when no book is configured)."""

    def demo_book(directory: Path | None) -> Path:
        from mnemolis.demo.zim import demo_book as build

        return build(directory)

    return {"demo_zim": demo_book}


def _quiet_logs() -> None:
    """Sources log what went wrong; the reply already says it, so only warnings show, and
    of the broker connection only errors: a reply that needed the broker says it was down,
    and one that did not ("what time is it") need not hear about it."""
    logging.basicConfig(level=logging.WARNING, format="mnemolis: %(message)s")
    logging.getLogger("mnemolis.mqtt_connection").setLevel(logging.ERROR)


def _print_answer(answer: Answer, as_json: bool) -> None:
    from mnemolis.cli.chat import print_answer

    print_answer(answer, as_json)


async def _ask_once(config: Config, text: str, room: str | None) -> Answer:
    from mnemolis.core.origin import Origin
    from mnemolis.runtime.assistant import Assistant

    async with Assistant.running(
        config, one_shot=True, extras=source_extras(), answers_once=True
    ) as assistant:
        return await assistant.ask(text, origin=Origin(front_end="cli", room=room))


def _room(args: argparse.Namespace) -> str | None:
    """``--room``: the area the request is spoken in, as a front-end would say it."""
    room = getattr(args, "room", None)
    return " ".join(room.lower().split()) or None if isinstance(room, str) else None


def cmd_ask(args: argparse.Namespace) -> int:
    import asyncio  # only the commands that run a loop pay for it

    from mnemolis.serve.cli_client import ask_through_daemon

    text = " ".join(args.query)
    if not text.strip():
        print(
            "mnemolis: nothing to ask: say it after ask (mnemolis ask what time is it)",
            file=sys.stderr,
        )
        return EXIT_NOT_UNDERSTOOD
    through_daemon = ask_through_daemon(args, text)
    if through_daemon is not None:
        return through_daemon
    config = _load_at_home(args)
    answer = asyncio.run(_ask_once(config, text, _room(args)))
    _print_answer(answer, args.json)
    return OUTCOME_EXIT[answer.outcome]


async def _chat(config: Config, as_json: bool, room: str | None) -> int:
    from mnemolis.cli.chat import converse
    from mnemolis.runtime.assistant import Assistant

    async with Assistant.running(config, one_shot=True, extras=source_extras()) as assistant:
        return await converse(assistant, as_json, room=room)


def cmd_chat(args: argparse.Namespace) -> int:
    import asyncio  # only the commands that run a loop pay for it

    from mnemolis.cli.chat import turns
    from mnemolis.serve.cli_client import chat_through_daemon

    through_daemon = chat_through_daemon(args, turns)
    if through_daemon is not None:
        return through_daemon
    config = _load_at_home(args)
    return asyncio.run(_chat(config, args.json, _room(args)))


async def _doctor(config: Config, environ: dict[str, str] | None = None) -> list[Finding]:
    from mnemolis.cli.doctor import diagnose
    from mnemolis.runtime.assistant import Assistant

    async with Assistant.running(
        config, one_shot=True, extras=source_extras(), environ=environ
    ) as assistant:
        findings = await diagnose(assistant)
    from mnemolis.serve.satellite_doctor import satellite_findings
    from mnemolis.voice.doctor import voice_findings

    return findings + await voice_findings(config) + await satellite_findings(config)


def _print_findings(findings: list[Finding]) -> int:
    from mnemolis.cli.doctor import Level, format_findings

    for line in format_findings(findings):
        print(line)
    return EXIT_FAILED if any(f.level is Level.BROKEN for f in findings) else EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    import asyncio  # only the commands that run a loop pay for it

    config = _load_at_home(args)
    return _print_findings(asyncio.run(_doctor(config)))


async def _demo(config: Config, home: DemoHome, args: argparse.Namespace) -> int:
    from mnemolis.demo.home import intro
    from mnemolis.runtime.assistant import Assistant

    async with Assistant.running(
        config,
        environ=home.environment.variables(),
        extras=source_extras(),
        answers_once=args.ask is not None or bool(args.wav),
        one_shot=True,
    ) as assistant:
        if args.wav or args.voice:
            from mnemolis.cli.listen import run_voice

            return await run_voice(assistant, config, args, "demo", _room(args))
        if args.ask is not None:
            from mnemolis.core.origin import Origin

            answer = await assistant.ask(args.ask, origin=Origin("demo", room=_room(args)))
            _print_answer(answer, args.json)
            return OUTCOME_EXIT[answer.outcome]
        if sys.stdin.isatty():
            print("\n".join(intro()), file=sys.stderr)
        from mnemolis.cli.chat import converse

        return await converse(assistant, args.json, front_end="demo", room=_room(args))


def cmd_demo(args: argparse.Namespace) -> int:
    """The embedded default home, then a chat with it (or one answer with --ask)."""
    import asyncio  # only the commands that run a loop pay for it

    from mnemolis.cli.newcomer import PURE_VERBS, demo_config_dir, run_demo_verb
    from mnemolis.config import load_config
    from mnemolis.demo.home import DemoHome

    verb = next((v for v in PURE_VERBS if getattr(args, v, None) is not None), None)
    if verb is not None:
        return run_demo_verb(args, verb, {"parse": plans.cmd_parse, "explain": plans.cmd_explain})
    config = load_config(demo_config_dir(args))
    _quiet_logs()
    # the demo's weather service fails by design, and every weather answer says so
    weather_log = logging.getLogger("mnemolis.sources.weather.source")
    level = weather_log.level
    weather_log.setLevel(logging.ERROR)
    home = DemoHome(config, Path(args.cache) if args.cache else None)
    try:
        try:
            home.start()
        except (OSError, TimeoutError) as exc:
            print(f"mnemolis: the demo home could not start: {exc}", file=sys.stderr)
            return EXIT_FAILED
        if args.doctor:
            return _print_findings(asyncio.run(_doctor(config, home.environment.variables())))
        if args.ask is None and not args.wav:
            for line in home.summary():
                print(f"demo: {line}", file=sys.stderr)
        return asyncio.run(_demo(config, home, args))
    finally:
        home.stop()
        weather_log.setLevel(level)


def cmd_listen(args: argparse.Namespace) -> int:
    """`mnemolis listen`: the microphone, or recorded requests (`cli.listen`)."""
    import asyncio  # only the commands that run a loop pay for it

    from mnemolis.cli.listen import run_voice
    from mnemolis.runtime.assistant import Assistant

    config = _load(args)
    _quiet_logs()

    async def listen() -> int:
        async with Assistant.running(config, one_shot=True, extras=source_extras()) as assistant:
            return await run_voice(assistant, config, args, "listen", _room(args))

    return asyncio.run(listen())


#: Commands whose parsers import their own modules (config, evaluation): built only when
#: asked for, or for ``--help`` and mistakes, so `mnemolis ask` parses its line at once.
OWN_PARSERS = ("serve", "eval", "devices")


def _command_word(argv: Sequence[str]) -> str | None:
    """The subcommand in ``argv`` (after ``--config DIR``), or None."""
    words = iter(argv)
    for word in words:
        if word == "--config":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _add_answer_options(p: argparse.ArgumentParser, json_help: str) -> None:
    """The options `ask` and `chat` share: --json, --local and --room."""
    p.add_argument("--json", action="store_true", help=json_help)
    p.add_argument("--local", action="store_true", help=LOCAL_HELP)
    p.add_argument("--room", metavar="AREA", help=ROOM_HELP)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the ``command`` about to run, the others' heavy parsers
    (`OWN_PARSERS`) are left out unless it is one of them."""
    parser = argparse.ArgumentParser(
        prog="mnemolis", description="A local-first conversational router for the home."
    )
    parser.add_argument("--config", help="directory holding intents/ and sources/")
    sub = parser.add_subparsers(dest="command", required=True)

    p = add_command(
        sub, "parse", plans.cmd_parse, help="print the plan of each query as one JSON line"
    )
    p.add_argument("queries", nargs="*", help="queries (default: one per line on stdin)")
    p.add_argument(
        "--conversation", action="store_true", help="stdin lines are turns of one conversation"
    )

    p = add_command(
        sub, "explain", plans.cmd_explain, help="show each understanding stage and its time"
    )
    p.add_argument("queries", nargs="*")

    p = add_command(
        sub,
        "check",
        cmd_check,
        help="validate intents/ and sources/ and run every intent example",
        description="Read the configuration (the owner's directory over the shipped one), "
        "report every error with its file and line, check routines against the home, run "
        "every intent example; exit 2 for configuration errors, 1 for failing examples.",
    )
    p.add_argument(
        "--where",
        nargs="*",
        metavar="INTENT",
        help="say where each intent (all of them, or those named) and each of its phrases "
        "and examples was written",
    )

    p = add_command(
        sub,
        "ask",
        cmd_ask,
        help="answer one request through the sources",
        description="Understand one request, ask the sources, act, and print one reply.",
        epilog=ASK_EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("query", nargs="*", help='the request, e.g. "turn off the kitchen light"')
    _add_answer_options(p, "print the structured result as JSON")

    p = add_command(
        sub,
        "chat",
        cmd_chat,
        help="a conversation: one request a line, context kept across turns",
        description="Talk to Mnemolis one line at a time; it remembers devices and topics, "
        "asks which one you mean, and waits for a yes before unlocking or opening. "
        "Reads standard input (a prompt only on a terminal); ends at end of input or 'quit'.",
    )
    _add_answer_options(p, "print each turn's structured result")

    add_command(
        sub,
        "doctor",
        cmd_doctor,
        help="check every configured source and say what to fix",
        description="Start every configured source and check it for real (the broker and "
        "devices, the encyclopedia books, the weather service, the clock, timers and lists in "
        "the state directory, the music players, routines' webhooks) and the intents' "
        "examples; exit status 1 when something is broken.",
    )

    p = add_command(
        sub,
        "demo",
        cmd_demo,
        help="the embedded default home, then a chat with it",
        description="Start the demo home in this process (an MQTT broker on a free loopback "
        "port with the simulated devices of sources/mqtt.yaml, the demo encyclopedia, the "
        "demo's recorded forecast, an mpd with a generated library where mpd is installed), "
        "then chat with it; --ask, --parse, --explain and --doctor do one thing instead. "
        "Uses the bundled configuration unless --config names another, and keeps its timers "
        "and lists in its own cache, never the real ones. No root, no network; the home "
        "stops when the command ends.",
        epilog=ASK_EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    one = p.add_mutually_exclusive_group()
    one.add_argument("--ask", metavar="REQUEST", help="answer this one request and exit")
    one.add_argument("--parse", metavar="REQUEST", help="print its plan as JSON (nothing starts)")
    one.add_argument("--explain", metavar="REQUEST", help="how it is understood, stage by stage")
    one.add_argument("--doctor", action="store_true", help="check every source of the demo home")
    p.add_argument(
        "--voice", action="store_true", help="talk to the demo home: the microphone, wake word"
    )
    add_voice_options(p)
    p.add_argument("--room", metavar="AREA", help=ROOM_HELP)
    p.add_argument("--json", action="store_true", help="print the structured result as JSON")
    p.add_argument(
        "--cache", metavar="DIR", help="where the demo keeps its files (default: ~/.cache/mnemolis)"
    )

    add_listen_parser(sub, ROOM_HELP, cmd_listen)

    known = {*sub.choices, *OWN_PARSERS}
    if command is None or command not in known or command in OWN_PARSERS:
        from mnemolis.cli.devices import add_devices_parser
        from mnemolis.evaluation.command import add_eval_parser
        from mnemolis.serve.command import add_serve_parser

        add_serve_parser(sub)
        add_eval_parser(sub)
        add_devices_parser(sub)
    return parser


def _is_config_error(exc: Exception) -> bool:
    """Without importing the configuration code: a command that never loaded it raised none."""
    yaml_at = sys.modules.get("mnemolis.config.yaml_at")
    return yaml_at is not None and isinstance(exc, yaml_at.ConfigError)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_word(argv))
    args = parser.parse_args(argv)
    args.source_extras = source_extras()
    try:
        result: int = args.func(args)
        return result
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except PermissionError as exc:  # /etc/mnemolis of a user not (yet) in its group
        from mnemolis.core.permissions import denied

        print(f"mnemolis: {denied(exc)}", file=sys.stderr)
        return EXIT_CONFIG
    except Exception as exc:
        if not _is_config_error(exc):
            raise
        for error in getattr(exc, "errors", [exc]):  # every one of them, each with its place
            print(f"mnemolis: configuration error: {error}", file=sys.stderr)
        return EXIT_CONFIG
