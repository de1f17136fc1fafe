"""Sound in: WAV files of any rate, width and channel count read and converted, bad files
refused with one sentence each, and a stream converted chunk by chunk."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemolis.voice.audio import Converter, level, to_pipeline
from mnemolis.voice.stages import PIPELINE_FORMAT, AudioFormat, BadAudio
from mnemolis.voice.wav import parse_wav, read_wav, wav_bytes
from tests.support_voice import need, render, sox_make

MAX_S = 20.0


def header(rate: int = 16000, channels: int = 1, bits: int = 16, data: int = 0, tag: int = 1) -> bytes:
    align = channels * bits // 8
    fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * align, align, bits)
    return (
        b"RIFF" + struct.pack("<I", 36 + data) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
        + b"data" + struct.pack("<I", data)
    )  # fmt: skip


# (what the file holds, the reason, words of the sentence)
BAD_FILES = [
    (b"", "empty", "is empty"),
    (header(), "empty", "holds no sound"),
    (header(data=32000) + b"\0" * 1000, "truncated", "promises 1.00 s of sound, it holds 0.03 s"),
    (header()[:30], "truncated", "ends inside its header"),
    (b"RIFF\x10\x00", "truncated", "ends inside its header"),
    (header()[:36], "truncated", "ends before its sound"),
    (b"ID3\x04\x00" + b"\0" * 100, "not_wav", "is an MP3 file, not a WAV file"),
    (b"OggS" + b"\0" * 100, "not_wav", "is an Ogg file, not a WAV file"),
    (b"turn off the kitchen light\n", "not_wav", "is not a WAV file"),
    (header(tag=0x11, data=100) + b"\0" * 100, "unsupported", "is encoded as format 0x0011"),
    (header(rate=16000 * 300, data=0)[:44], "empty", "holds no sound"),
]


@pytest.mark.parametrize(("content", "reason", "words"), BAD_FILES)
def test_a_bad_file_is_refused_with_a_sentence(
    tmp_path: Path, content: bytes, reason: str, words: str
) -> None:
    path = tmp_path / "request.wav"
    path.write_bytes(content)
    with pytest.raises(BadAudio) as refused:
        read_wav(path, MAX_S)
    assert refused.value.reason == reason
    assert words in str(refused.value)
    assert str(path) in str(refused.value)


def test_a_missing_file_and_a_directory_are_refused(tmp_path: Path) -> None:
    for path, words in ((tmp_path / "nowhere.wav", "cannot read"), (tmp_path, "is a directory")):
        with pytest.raises(BadAudio) as refused:
            read_wav(path, MAX_S)
        assert words in str(refused.value)


def test_a_five_minute_file_is_cut_with_a_reason_reading_only_its_header(tmp_path: Path) -> None:
    long = sox_make(tmp_path / "long.wav", "synth", "300", "sine", "440")
    assert long.stat().st_size > 9_000_000
    with pytest.raises(BadAudio) as refused:
        read_wav(long, MAX_S)
    assert refused.value.reason == "too_long"
    assert "is 300.0 s long; a request is at most 20 s" in str(refused.value)
    assert "nothing was done" in str(refused.value)


def test_a_streamed_file_without_a_length_is_read_to_its_end_and_bounded(tmp_path: Path) -> None:
    """espeak-ng --stdout writes a header that says "until the end"."""
    espeak = need("espeak-ng")
    out = subprocess.run(
        [espeak, "--stdout", "turn off the kitchen light"], capture_output=True, check=True
    ).stdout
    assert struct.unpack("<I", out[40:44])[0] >= 0x7FFF0000
    heard = parse_wav(out, "espeak", MAX_S)
    assert heard.source == AudioFormat(22050, 2, 1)
    assert 0.8 < heard.seconds < 3.0
    assert abs(heard.audio.seconds - heard.seconds) < 0.01
    with pytest.raises(BadAudio) as refused:
        parse_wav(out, "espeak", 0.5)
    assert refused.value.reason == "too_long"


# (sox options after the rendering: rate, channels, bits / encoding)
FORMATS = [
    ([], AudioFormat(22050, 2, 1), False),
    (["-r", "8000"], AudioFormat(8000, 2, 1), False),
    (["-c", "2"], AudioFormat(22050, 2, 2), False),
    (["-r", "44100", "-c", "2", "-b", "24"], AudioFormat(44100, 3, 2), False),
    (["-r", "48000", "-b", "32", "-e", "floating-point"], AudioFormat(48000, 4, 1), True),
    (["-b", "8", "-e", "unsigned-integer"], AudioFormat(22050, 1, 1), False),
    (["-r", "16000"], PIPELINE_FORMAT, False),
]


@pytest.mark.parametrize(("options", "source", "is_float"), FORMATS)
def test_any_rate_width_and_channel_count_is_converted(
    tmp_path: Path, options: list[str], source: AudioFormat, is_float: bool
) -> None:
    espeak = render("turn off the kitchen light", tmp_path / "espeak.wav", pad_s=0.0)
    converted = tmp_path / "converted.wav"
    subprocess.run([need("sox"), str(espeak), *options, str(converted)], check=True)
    reference = read_wav(espeak, MAX_S)
    heard = read_wav(converted, MAX_S)
    assert (heard.source, heard.is_float) == (source, is_float)
    assert heard.audio.format == PIPELINE_FORMAT
    assert abs(heard.audio.seconds - reference.audio.seconds) < 0.01
    a = np.frombuffer(reference.audio.pcm, "<i2").astype(float)
    b = np.frombuffer(heard.audio.pcm, "<i2").astype(float)
    n = min(len(a), len(b))
    if source.rate >= 16000:  # the same speech, the same loudness
        assert np.corrcoef(a[:n], b[:n])[0, 1] > 0.97
    assert abs(level(heard.audio).rms_dbfs - level(reference.audio).rms_dbfs) < 1.5


@settings(max_examples=40, deadline=None)
@given(
    samples=st.lists(st.integers(-32768, 32767), min_size=1, max_size=4000),
    rate=st.sampled_from([8000, 11025, 16000, 22050, 44100, 48000]),
    split=st.integers(1, 500),
)
def test_a_stream_converts_like_a_whole(samples: list[int], rate: int, split: int) -> None:
    """Chunks of any size converted one after another give the sound converted whole
    (its length; for 16 kHz, the very same bytes)."""
    pcm = np.array(samples, dtype="<i2").tobytes()
    fmt = AudioFormat(rate, 2, 1)
    whole = to_pipeline(pcm, fmt)
    converter = Converter(fmt)
    step = split * 2 + 1  # odd: chunks split samples in half
    parts = [converter.convert(pcm[i : i + step]).pcm for i in range(0, len(pcm), step)]
    parts.append(converter.convert(b"", last=True).pcm)
    streamed = b"".join(parts)
    if rate == 16000:
        assert streamed == whole.pcm == pcm
    else:
        assert abs(len(streamed) - len(whole.pcm)) <= 4 * (1 + len(parts))


def test_what_is_written_reads_back_the_same(tmp_path: Path) -> None:
    tone = sox_make(tmp_path / "tone.wav", "synth", "0.5", "sine", "440")
    heard = read_wav(tone, MAX_S)
    again = parse_wav(wav_bytes(heard.audio), "again", MAX_S)
    assert again.audio == heard.audio and not again.converted


@pytest.mark.parametrize(
    ("synth", "clipped"),
    [(["synth", "1", "sine", "440", "vol", "0.5"], False), (["synth", "1", "sine", "440", "gain", "20"], True)],
)
def test_clipping_is_measured(tmp_path: Path, synth: list[str], clipped: bool) -> None:
    sound = read_wav(sox_make(tmp_path / "s.wav", *synth), MAX_S).audio
    assert (level(sound).clipped > 0.02) is clipped
