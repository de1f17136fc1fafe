"""The embedded recogniser, personalised from the configuration: real pocketsphinx
hearing real espeak-ng speech over the demo home and small homes of the tests' own."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mnemolis.config import At, ConfigError, load_config
from mnemolis.core.heard import Heard
from mnemolis.evaluation.speech import word_errors, words
from mnemolis.voice.recognise import (
    PocketsphinxRecogniser,
    RecogniserSettings,
    create_recogniser,
    load_recogniser_settings,
)
from mnemolis.voice.recognise.decoder import Decoded, Word
from mnemolis.voice.recognise.judge import judge
from mnemolis.voice.recognise.pronounce import ipa_table, ipa_to_cmu
from mnemolis.voice.recognise.spoken import number_words, spoken_words
from mnemolis.voice.stages import Audio, AudioFormat, Recogniser
from tests.support_recogniser import (
    noise,
    require_voice,
    scaled,
    speak,
    speak_as_is,
    write_wav,
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> PocketsphinxRecogniser:
    require_voice()
    r = create_recogniser(load_config(), state_dir=tmp_path_factory.mktemp("state"))
    r.wait_ready()
    yield r
    r.close()


def hear(r: PocketsphinxRecogniser, audio: Audio) -> Heard:
    return asyncio.run(r.transcribe(audio))


@pytest.mark.parametrize(
    "said",
    [
        "turn off the lights in the bedroom",
        "is the garage door open",
        "what's the weather tomorrow",
        "what time is it",
    ],
)
def test_demo_requests_are_heard_exactly(demo: PocketsphinxRecogniser, said: str) -> None:
    heard = hear(demo, speak(said))
    assert heard.text == said
    assert heard.rejected is None
    assert 0.0 < heard.confidence <= 1.0
    assert said not in heard.alternatives
    assert heard.engine == "pocketsphinx" and heard.ms["recognise"] > 0


def test_it_is_a_recogniser_stage(demo: PocketsphinxRecogniser) -> None:
    assert isinstance(demo, Recogniser)


@pytest.mark.parametrize(
    "audio, reason",
    [
        (Audio(b""), "no audio"),
        (Audio(b"\0\0" * 800), "too short to be a request"),
        (Audio(b"\0\0" * 32000), "silence"),
        (Audio(b"\0" * 3), "too short to be a request"),
        (Audio(b"\0"), "no audio"),
        (Audio(b"\0\0" * 24000, AudioFormat(16000, 3, 1)), "silence"),  # 24-bit is read
        (Audio(b"\0" * 40000, AudioFormat(16000, 5, 1)), "unreadable audio format"),
    ],
)
def test_bad_audio_is_a_reason_not_an_exception(
    demo: PocketsphinxRecogniser, audio: Audio, reason: str
) -> None:
    heard = hear(demo, audio)
    assert heard.text == ""
    assert heard.rejected is not None and heard.rejected.startswith(reason)


@pytest.mark.parametrize(
    "audio",
    [
        pytest.param(lambda: noise(2.0), id="white noise"),
        pytest.param(lambda: noise(1.5, level=12000, seed=3), id="loud noise"),
        pytest.param(lambda: speak("the quick brown fox jumps over the lazy dog"), id="oov"),
        pytest.param(lambda: speak("i think we should go to the cinema tonight"), id="oov 2"),
    ],
)
def test_what_is_no_request_is_rejected(demo: PocketsphinxRecogniser, audio) -> None:
    heard = hear(demo, audio())
    assert heard.text == ""
    assert heard.rejected


@pytest.mark.parametrize(
    "audio",
    [
        pytest.param(lambda: scaled(speak("what time is it"), 25.0), id="clipped"),
        pytest.param(lambda: speak("what time is it", rate=8000), id="8 kHz"),
        pytest.param(lambda: speak("what time is it", rate=44100), id="44.1 kHz"),
    ],
)
def test_odd_audio_gives_a_clear_result(demo: PocketsphinxRecogniser, audio) -> None:
    heard = hear(demo, audio())
    assert (heard.text != "") != (heard.rejected is not None)  # text, or why not


@pytest.mark.parametrize(
    "said", ["turn off the lights in the bedroom", "what's the weather tomorrow", "what time is it"]
)
def test_speech_with_digital_silence_is_heard(demo: PocketsphinxRecogniser, said: str) -> None:
    """espeak-ng's own output (22,050 Hz, exact zeros before and after the words) is
    heard as sox's dithered 16 kHz rendering is: silence with no energy at all moved
    the whole request's cepstral mean, and a request was heard as another one."""
    heard = hear(demo, speak_as_is(said))
    assert (heard.text, heard.rejected) == (said, None)


def test_conversion_is_dithered_and_repeatable() -> None:
    from mnemolis.voice.recognise.audio import to_pipeline

    silence_then_tone = Audio(
        bytes(3200) + (np.sin(np.arange(8000) / 5.0) * 8000).astype("<i2").tobytes()
    )
    once, again = to_pipeline(silence_then_tone), to_pipeline(silence_then_tone)
    assert once.pcm == again.pcm  # the same sound is always heard the same way
    lead = np.frombuffer(once.pcm, dtype="<i2")[:1600]
    assert lead.any() and np.abs(lead).max() <= 1  # a bit of noise, no more


def test_stereo_8_bit_is_converted(demo: PocketsphinxRecogniser) -> None:
    mono = speak("what time is it")

    pcm = np.frombuffer(mono.pcm, dtype="<i2")
    eight = ((pcm.astype(np.int32) >> 8) + 128).astype(np.uint8)
    stereo = np.repeat(eight, 2).tobytes()
    heard = hear(demo, Audio(stereo, AudioFormat(16000, 1, 2)))
    assert heard.text == "what time is it"


# --------------------------------------------------------------------------- personalised


def _home(root: Path, devices: list[dict], pronunciations: dict | None = None) -> Path:
    (root / "sources").mkdir(parents=True, exist_ok=True)
    lines = ["rooms:", "  - {name: study}", "devices:"]
    for d in devices:
        lines.append(
            f"  - {{name: {d['name']}, id: {d['id']}, type: light, room: study, "
            f"topics: {{state: home/{d['id']}, command: home/{d['id']}/set}}}}"
        )
    (root / "sources" / "mqtt.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if pronunciations is not None:
        (root / "pronunciations.yaml").write_text(
            json.dumps({"pronunciations": pronunciations}), encoding="utf-8"
        )
    return root


def test_names_missing_from_the_dictionary_are_heard(tmp_path: Path) -> None:
    """ "zorbly" is guessed from espeak-ng's phonemes; "quoxa" is said the owner's way."""
    require_voice()
    home = _home(
        tmp_path / "home",
        [{"name": "zorbly lamp", "id": "zorbly"}, {"name": "quoxa light", "id": "quoxa"}],
        {"quoxa": "K W AA K S AH"},
    )
    r = create_recogniser(load_config(home), state_dir=tmp_path / "state")
    compiled = r.wait_ready()
    assert "zorbly" in compiled.info.guessed
    assert "quoxa" in compiled.info.owned
    for said in ("turn on the zorbly lamp", "turn off the quoxa light"):
        assert hear(r, speak(said)).text == said
    r.close()


def test_the_cache_is_used_and_rebuilt_when_the_configuration_changes(tmp_path: Path) -> None:
    require_voice()
    state = tmp_path / "state"
    home = _home(tmp_path / "home", [{"name": "desk lamp", "id": "desk"}])
    first = create_recogniser(load_config(home), state_dir=state)
    built = first.wait_ready()
    first.close()
    again = create_recogniser(load_config(home), state_dir=state)
    cached = again.wait_ready()
    assert built.built and not cached.built
    assert cached.path == built.path
    _home(home, [{"name": "desk lamp", "id": "desk"}, {"name": "reading lamp", "id": "reading"}])
    changed = again.reload(load_config(home)).result()
    assert changed.built and changed.path != built.path
    assert hear(again, speak("turn on the reading lamp")).text == "turn on the reading lamp"
    again.close()


def test_an_owners_bad_pronunciation_names_its_line(tmp_path: Path) -> None:
    require_voice()
    home = _home(tmp_path / "home", [{"name": "quoxa light", "id": "quoxa"}])
    (home / "pronunciations.yaml").write_text(
        "pronunciations:\n  quoxa: K W AA X\n", encoding="utf-8"
    )
    r = create_recogniser(load_config(home), state_dir=tmp_path / "state")
    with pytest.raises(ConfigError, match=r"pronunciations.yaml:2: .*unknown phone\(s\) X"):
        r.wait_ready()
    with pytest.raises(Exception, match="could not be built"):
        hear(r, speak("turn on the quoxa light"))
    r.close()


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    "raw, problem",
    [
        ({"engine": "whisper"}, "engine: 'whisper' is not one of pocketsphinx"),
        ({"reject_below": 1.5}, "reject_below: 1.5 is not between 0 and 1"),
        ({"alternatives": 2.5}, "alternatives: a whole number"),
        ({"free_words": "many"}, "free_words: a number"),
        # it never asked anything back: where the setting that does is
        ({"ask_below": 0.5}, "heard.ask_back_below in sources/assistant.yaml"),
        ({"colour": 1}, "unknown setting 'colour'"),
        ([1, 2], "recogniser"),
    ],
)
def test_bad_settings_name_file_and_line(tmp_path: Path, raw: object, problem: str) -> None:
    path = tmp_path / "voice.yaml"
    path.write_text(json.dumps({"recogniser": raw}), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_recogniser_settings(raw, At(path) / "recogniser")
    assert str(path) in str(caught.value) and problem in str(caught.value)


def test_settings_default_and_read() -> None:
    at = At(Path("voice.yaml")) / "recogniser"
    assert load_recogniser_settings(None, at) == RecogniserSettings()
    read = load_recogniser_settings({"reject_below": 0.3, "alternatives": 5}, at)
    assert (read.reject_below, read.alternatives) == (0.3, 5)


# --------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize(
    "written, said",
    [
        ("Lamp 2", ["lamp", "two"]),
        ("shelly1pm-kitchen", ["shelly", "one", "pm", "kitchen"]),
        ("Tom & Jerry", ["tom", "and", "jerry"]),
        ("baby's room", ["baby's", "room"]),
        ("007", ["zero", "zero", "seven"]),
    ],
)
def test_names_are_said_as_words(written: str, said: list[str]) -> None:
    assert spoken_words(written) == said


@pytest.mark.parametrize(
    "n, words",
    [(0, "zero"), (21, "twenty one"), (100, "one hundred"), (2700, "two thousand seven hundred")],
)
def test_numbers_in_words(n: int, words: str) -> None:
    assert " ".join(number_words(n)) == words


@pytest.mark.parametrize(
    "ipa, phones",
    [("k_ˈɛɹ", "K EH R"), ("ʃ_ˈɛ_l_i", "SH EH L IY"), ("z_ˈɪ_ɡ_b_iː", "Z IH G B IY"), ("q", "")],
)
def test_espeak_phonemes_become_cmu_phones(ipa: str, phones: str) -> None:
    assert " ".join(ipa_to_cmu(ipa, ipa_table())) == phones


words_ = st.lists(st.sampled_from(["turn", "on", "the", "lamp", "off"]), max_size=6)


@given(words_, words_)
def test_word_errors_is_an_edit_distance(ref: list[str], hyp: list[str]) -> None:
    errors = word_errors(ref, hyp)
    assert (errors == 0) == (ref == hyp)
    assert abs(len(ref) - len(hyp)) <= errors <= max(len(ref), len(hyp))


@pytest.mark.parametrize(
    ("said", "heard"),
    [
        ("set a timer for 1 hour", "set a timer for one hour"),
        ("set a timer for 3 hours and 10 minutes", "set a timer for three hours and ten minutes"),
        (
            "set Bed Light brightness to 75 percent",
            "set bed light brightness to seventy five percent",
        ),
    ],
)
def test_numbers_score_the_same_in_digits_and_in_words(said: str, heard: str) -> None:
    normalize = load_understander_normalize()
    assert words(said, normalize) == words(heard, normalize)
    wrong = heard.replace("one", "two").replace("three", "four").replace("five", "six")
    assert words(said, normalize) != words(wrong, normalize)


def load_understander_normalize() -> Callable[[str], str]:
    from mnemolis.understand import Understander

    normalizer = Understander(load_config()).normalizer
    return lambda text: normalizer.normalize(text).text


_word = st.builds(
    Word,
    text=st.sampled_from(["turn", "on", "lamp", "what"]),
    cls=st.sampled_from(["", "device", "garbage", "number"]),
    posterior=st.floats(0.0, 1.0),
)


@given(st.lists(_word, max_size=6), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_a_mishearing_never_comes_out_as_text(
    words: list[Word], floor: float, share: float, min_share: float
) -> None:
    """Garbage in the reading, words over too little of the speech, or a confidence
    under the floor: nothing is heard, and it says why; what is heard is never a
    reading of garbage."""
    j = judge(Decoded(words=words, covered=share), floor, 3, min_share)
    doubtful = (
        not words
        or any(w.cls == "garbage" for w in words)
        or share < min_share
        or j.confidence < floor
    )
    assert (j.text == "") == doubtful
    assert (j.rejected is None) == (j.text != "")
    assert 0.0 <= j.confidence <= 1.0


# --------------------------------------------------------------------------- eval over audio


def test_eval_scores_rows_with_audio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_voice()
    from mnemolis.cli.main import build_parser
    from mnemolis.evaluation.command import run

    monkeypatch.setenv("MNEMOLIS_STATE_DIR", str(tmp_path / "state"))
    write_wav(str(tmp_path / "a.wav"), speak("turn off the lights in the bedroom"))
    write_wav(str(tmp_path / "b.wav"), speak("what time is it"))
    write_wav(str(tmp_path / "c.wav"), noise(1.5))
    rows = [
        {
            "text": "turn off the lights in the bedroom",
            "intent": "device.turn_off",
            "audio": "a.wav",
        },
        {"text": "what time is it", "intent": "clock.time", "audio": "b.wav"},
        {"text": "play some jazz on the radio", "intent": None, "audio": "c.wav"},
    ]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out, err = __import__("io").StringIO(), __import__("io").StringIO()
    report = tmp_path / "report.json"
    args = build_parser().parse_args(["eval", str(data), "--json", str(report), "--no-timing"])
    assert run(args, None, out, err) == 0, err.getvalue()
    figures = json.loads(report.read_text())["speech"]
    # the two requests word for word; the noise heard as nothing (its row's six words missed)
    assert (figures["rows"], figures["exact"], figures["errors"]) == (3, 2, 6)
    assert figures["rejected_out_of_scope"] == 1 and figures["acted_out_of_scope"] == 0
    assert figures["rejected_in_scope"] == 0
    assert "exact transcripts    0.667  (2/3)" in out.getvalue()


def test_eval_refuses_a_missing_audio_file(tmp_path: Path) -> None:
    from mnemolis.cli.main import build_parser
    from mnemolis.evaluation.command import run

    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"text": "hi", "intent": None, "audio": "gone.wav"}) + "\n")
    out, err = __import__("io").StringIO(), __import__("io").StringIO()
    assert run(build_parser().parse_args(["eval", str(data)]), None, out, err) == 2
    assert "audio file not found" in err.getvalue() and "rows.jsonl:1" in err.getvalue()


@pytest.mark.parametrize(
    "heard, acted",
    [
        ("turn off the kitchen light", True),
        ("lock the front door", True),
        ("is the kitchen light on", False),  # reading a state is no act
        ("what is the temperature in the kitchen", False),
        ("what's the weather tomorrow", False),
    ],
)
def test_only_a_change_to_a_device_counts_as_acting(heard: str, acted: bool) -> None:
    from mnemolis.evaluation.command import evaluate_rows, make_keyer
    from mnemolis.evaluation.datasets import Row
    from mnemolis.evaluation.discovered import home_registry
    from mnemolis.evaluation.speech import acts_on_device
    from mnemolis.understand import Understander

    config = load_config()
    registry, _ = home_registry(config, None)
    understander = Understander(config, registry)
    keyer = make_keyer(config, understander)
    row = Row(line=1, text=heard, parts=[])
    result = evaluate_rows([row], understander, keyer, None, None, [heard])[0]
    assert acts_on_device(config)(result) is acted
