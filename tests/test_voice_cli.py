"""`mnemolis demo --wav` and `mnemolis listen --wav` answer rendered requests over the demo
home and act on its devices; a doubtful action is asked back; bad sound gets a clear
status and nothing is done; the microphone's conversation follows a question up
without the wake word. Real espeak-ng, pocketsphinx and wake word throughout."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mnemolis.cli.main import main
from mnemolis.demo.simulator import Simulator
from mnemolis.voice.wav import read_wav
from tests.support_demo import demo_cache
from tests.support_home import home
from tests.support_kiwix import fixture_test_zims
from tests.support_mqtt import broker
from tests.support_open_meteo import open_meteo
from tests.support_voice import (
    FailingRecogniser,
    GrammarRecogniser,
    configured,
    need,
    recogniser_fixture,
    render,
    sox_make,
)

__all__ = ["broker", "demo_cache", "fixture_test_zims", "home", "open_meteo"]

SENTENCES = (
    "turn off the kitchen light",
    "turn on the bedroom light",
    "open the garage door",
    "yes",
    "no",
)


fixture_recogniser = recogniser_fixture(SENTENCES)

#: sox's options for the raw sound a microphone command gives (16 kHz, 16-bit, mono)
RAW = ["-t", "raw", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed"]

#: An `arecord`-like microphone command in a room with a person in it: the first request
#: as it is spoken (20 ms every 20 ms, never all at once), then, once the speaker has
#: played something (a file appears), a moment later, the answer, then a second of quiet.
PERSON = (
    "import os, sys, time\n"
    "def say(data):\n"
    "    start = time.monotonic()\n"
    "    for n in range(0, len(data), 640):\n"
    "        time.sleep(max(0.0, start + n / 32000 - time.monotonic()))\n"
    "        sys.stdout.buffer.write(data[n:n + 640]); sys.stdout.buffer.flush()\n"
    "say(open(sys.argv[1], 'rb').read())\n"
    "while not os.path.exists(sys.argv[2]):\n"
    "    say(bytes(640))\n"
    "time.sleep(1.0)\n"
    "say(open(sys.argv[3], 'rb').read() + bytes(32000))\n"
)

#: A speaker command: reads what it is given to play, then says it played something.
SPEAKER = "import sys; sys.stdin.buffer.read(); open(sys.argv[1], 'a').close()"


def demo(cache: Path, *args: str) -> list[str]:
    return ["demo", "--cache", str(cache), *args]


def results(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_demo_wav_answers_and_acts_on_the_demo_home_in_one_conversation(
    demo_cache: Path, recogniser: GrammarRecogniser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [
        render("turn off the kitchen light", tmp_path / "on.wav"),
        render("open the garage door", tmp_path / "garage.wav", rate=44100, channels=2),
        render("yes", tmp_path / "yes.wav"),
    ]
    answer_wav = tmp_path / "answer.wav"
    code = main(demo(demo_cache, "--json", "--say-to", str(answer_wav), "--wav", *map(str, files)))
    on, garage, yes = results(capsys.readouterr().out)
    assert on["heard"]["text"] == "turn off the kitchen light"
    assert on["answer"] == "Done: the kitchen light is off."
    assert on["parts"][0]["status"] == "done" and on["file"] == str(files[0])
    assert set(on["heard"]["ms"]) >= {"check", "recognise", "answer", "voice"}
    assert garage["answer"] == "Do you want me to open the garage door?"
    assert garage["outcome"] == "waiting"
    assert "converted from 44100 Hz, 2 channels, 16-bit" in garage["notes"]
    assert yes["answer"] == "Done: the garage door is open."
    assert code == 0
    spoken = read_wav(answer_wav, 20)  # the last answer, spoken
    assert spoken.seconds > 1.0
    assert (asyncio.run(recogniser.transcribe(spoken.audio))).text == ""  # not a request


def test_a_doubtful_action_is_asked_back_and_a_spoken_yes_runs_it(
    demo_cache: Path, recogniser: GrammarRecogniser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recogniser.unsure = ("turn on the bedroom light",)  # 0.4: under heard.ask_back_below (0.6)
    files = [render(t, tmp_path / f"{n}.wav") for n, t in enumerate(["turn on the bedroom light", "yes"])]
    asked_code = main(demo(demo_cache, "--json", "--wav", str(files[0])))
    [asked] = results(capsys.readouterr().out)
    assert asked["answer"] == "Did you say: turn on the bedroom light?"
    assert (asked_code, asked["outcome"]) == (5, "waiting")
    assert asked["heard"]["confidence"] == 0.4
    code = main(demo(demo_cache, "--json", "--wav", *map(str, files)))
    first, yes = results(capsys.readouterr().out)
    assert first["parts"][0]["data"]["waiting_for"] == "heard"
    assert yes["answer"] == "Done: the bedroom light is on."
    assert code == 0


# (how the file is made, exit status, words of the answer, the problem)
BAD_SOUND = [
    ("silence", 4, "Sorry, I didn't catch that.", None, "silence"),
    ("noise", 4, "Sorry, I didn't catch that.", None, "no speech, only noise"),
    ("clipped", 6, "the sound is clipped", "bad_audio:clipped", "clipped"),
    ("long", 6, "a request is at most 20 s", "bad_audio:too_long", "too_long"),
    ("empty", 6, "is empty", "bad_audio:empty", "empty"),
    ("truncated", 6, "is truncated", "bad_audio:truncated", "truncated"),
    ("text", 6, "is not a WAV file", "bad_audio:not_wav", "not_wav"),
    ("mumble", 4, "Sorry, I didn't catch that.", None, "not a request I know"),
]


def make(kind: str, path: Path) -> Path:
    if kind == "silence":
        return sox_make(path, "trim", "0", "2")
    if kind == "noise":
        return sox_make(path, "synth", "2", "brownnoise", "vol", "0.2")
    if kind == "long":
        return sox_make(path, "synth", "300", "sine", "300")
    if kind == "mumble":  # speech, but none of the requests
        return render("the quick brown fox jumps over the lazy dog", path)
    spoken = render("turn off the kitchen light", path)
    if kind == "clipped":
        loud = path.with_name("loud.wav")
        subprocess.run([need("sox"), "-q", str(spoken), str(loud), "gain", "30"], check=True)
        return loud
    data = spoken.read_bytes()  # truncated: a header that promises more than the file holds
    cut = {"empty": b"", "truncated": data[: len(data) // 2], "text": b"turn on the light\n"}
    path.write_bytes(cut[kind])
    return path


@pytest.mark.parametrize(("kind", "status", "words", "problem", "reason"), BAD_SOUND)
def test_bad_sound_gets_a_clear_status_and_nothing_is_done(
    demo_cache: Path,
    recogniser: GrammarRecogniser,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    status: int,
    words: str,
    problem: str | None,
    reason: str,
) -> None:
    path = make(kind, tmp_path / "request.wav")
    code = main(demo(demo_cache, "--json", "--wav", str(path)))
    [result] = results(capsys.readouterr().out)
    assert code == status
    assert words in result["answer"]
    assert result.get("problem") == problem
    assert result["heard"]["text"] == "" and result["heard"]["rejected"] == reason
    assert all(p["status"] != "done" for p in result["parts"])


def test_a_recogniser_that_fails_is_status_1_and_nothing_is_done(
    demo_cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configured(monkeypatch, FailingRecogniser())
    path = render("turn off the kitchen light", tmp_path / "on.wav")
    code = main(demo(demo_cache, "--json", "--wav", str(path)))
    [result] = results(capsys.readouterr().out)
    assert code == 1
    assert result["answer"].startswith("The recogniser failed: the recogniser at tcp://127.0.0.1:1")
    assert result["problem"] == "failed:recogniser" and result["parts"] == []


def test_without_espeak_ng_the_answer_is_given_and_the_voice_says_why(
    demo_cache: Path, recogniser: GrammarRecogniser, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = render("turn off the kitchen light", tmp_path / "on.wav")
    monkeypatch.setenv("PATH", "/nonexistent")
    code = main(demo(demo_cache, "--wav", str(path), "--say-to", str(tmp_path / "a.wav")))
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.strip() == "Done: the kitchen light is off."
    assert "apt-get install espeak-ng" in captured.err
    assert not (tmp_path / "a.wav").exists()


@pytest.mark.parametrize(
    ("said", "wake", "status", "answer"),
    [
        ("okay nabu, turn off the kitchen light", True, 0, "Done: the kitchen light is off."),
        ("turn off the kitchen light", True, 4, "I did not hear the wake word (okay nabu)"),
    ],
)
def test_demo_wav_with_the_wake_word(
    demo_cache: Path,
    recogniser: GrammarRecogniser,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    said: str,
    wake: bool,
    status: int,
    answer: str,
) -> None:
    path = render(said, tmp_path / "said.wav", pad_s=0.6)
    code = main(demo(demo_cache, "--wake", "--wav", str(path)))
    assert (code, capsys.readouterr().out.strip()) == (status, answer)


def test_listen_wav_answers_over_the_home_it_is_configured_for(
    home: Simulator, recogniser: GrammarRecogniser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [render(t, tmp_path / f"{n}.wav") for n, t in enumerate(["open the garage door", "yes"])]
    code = main(["listen", "--json", "--room", "kitchen", "--wav", *map(str, files)])
    asked, done = results(capsys.readouterr().out)
    assert asked["answer"] == "Do you want me to open the garage door?"
    assert done["answer"] == "Done: the garage door is open."
    assert code == 0
    assert [c.device for c in home.received()] == ["garage door"]


def test_the_microphone_conversation_follows_a_question_up_without_the_wake_word(
    demo_cache: Path, recogniser: GrammarRecogniser, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A microphone, as `arecord` would stream it, in a room where a person says the wake
    word and "open the garage door", hears the question back, then says "yes" with no
    wake word. The person answers when the speaker has asked, however busy the machine."""
    asked, yes = tmp_path / "asked.raw", tmp_path / "yes.raw"
    for said, raw in (("okay nabu, open the garage door", asked), ("yes", yes)):
        wav = render(said, tmp_path / "said.wav", pad_s=0.6)
        subprocess.run([need("sox"), "-q", str(wav), *RAW, str(raw)], check=True)
    heard = tmp_path / "speaker-played"
    config = tmp_path / "config"
    (config / "sources").mkdir(parents=True)
    person = [sys.executable, "-c", PERSON, str(asked), str(heard), str(yes)]
    speaker = [sys.executable, "-c", SPEAKER, str(heard)]
    (config / "sources" / "voice.yaml").write_text(
        f"input:\n  command: {json.dumps(person)}\noutput:\n  command: {json.dumps(speaker)}\n"
        "earcons:\n  enabled: false\n",
        encoding="utf-8",
    )
    (config / "sources" / "mqtt.yaml").symlink_to(Path(__file__).parents[1] / "sources" / "mqtt.yaml")
    code = main(["--config", str(config), "demo", "--cache", str(demo_cache), "--voice"])
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "Do you want me to open the garage door?",
        "Done: the garage door is open.",
    ]
    assert "woke (okay_nabu): listening" in captured.err
    assert code == 0


def test_doctor_reports_each_voice_stage(home: Simulator, capsys: pytest.CaptureFixture[str]) -> None:
    need("espeak-ng")
    main(["doctor"])
    lines = capsys.readouterr().out.splitlines()
    found = {line.split()[1]: line.split()[0] for line in lines if line and not line.startswith(" ")}
    assert found["wake"] == "OK" and "'Okay Nabu' (okay_nabu, cut-off 0.85)" in "\n".join(lines)
    assert found["speech"] == "OK"
    assert found["espeak-ng"] == "OK"
    assert found["microphone"] in ("OK", "WARNING")  # a machine without a sound card warns


# (voice.yaml, the error)
VOICE_YAML = [
    ("wake:\n  model: okay_mnemolis\n", "sources/voice.yaml:2: wake.model must be one of okay_nabu"),
    ("end_of_speech:\n  silence_s: 0\n", "sources/voice.yaml:2: end_of_speech.silence_s must be a number from 0.1 to 10"),
    ("input:\n  command: arecord\n", "sources/voice.yaml:2: input.command must be a program and its arguments"),
    ("earcons:\n  start: {tones: [20000]}\n", "sources/voice.yaml:2: earcons.start.tones must be a list of frequencies"),
    ("speaker: usb\n", "sources/voice.yaml:1: unknown key 'speaker'"),
]


@pytest.mark.parametrize(("text", "error"), VOICE_YAML)
def test_check_reads_voice_yaml_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, error: str
) -> None:
    (tmp_path / "sources").mkdir()
    (tmp_path / "sources" / "voice.yaml").write_text(text, encoding="utf-8")
    assert main(["--config", str(tmp_path), "check"]) == 2
    assert error in capsys.readouterr().err.replace(str(tmp_path) + "/", "")
