"""Voice: audio in, audio out, the same assistant in the middle.

    microphone / WAV / satellite -> wake word -> end of speech -> speech to text
        -> assistant (the text, with the origin room and what was heard)
        -> text to speech -> speaker / WAV / satellite

Each stage is one small protocol (`stages`): an embedded engine (pocketsphinx,
espeak-ng, micro-wakeword) or a Wyoming engine named by URI. The recogniser's
language model is compiled from the loaded configuration, so what can be said is
exactly what the configuration understands. The engines are an optional extra
(``pip install mnemolis[voice]``): nothing here is imported by a text-only command.
"""
