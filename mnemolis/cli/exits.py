"""The exit statuses of the commands that answer (`ask`, `demo`, `listen`), in one place."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2
EXIT_PARTIAL = 3
EXIT_NOT_UNDERSTOOD = 4
EXIT_WAITING = 5
#: `mnemolis ask`: the exit status of each outcome of an answer (`Outcome` is a StrEnum).
OUTCOME_EXIT = {
    "answered": EXIT_OK,
    "failed": EXIT_FAILED,
    "partial": EXIT_PARTIAL,
    "not_understood": EXIT_NOT_UNDERSTOOD,
    "waiting": EXIT_WAITING,
}
#: `mnemolis listen` and `demo --wav/--voice`: the sound could not be used.
EXIT_BAD_AUDIO = 6

ASK_EXIT_HELP = """exit status:
  0  every part was answered (a fact said, an action done, or refused by a rule)
  1  parts were understood, but none could be answered (a source down, a timeout)
  2  the configuration is broken (the message names the file and line)
  3  partial: some parts were answered, others failed or were out of scope
  4  nothing understood: every part was out of scope, or there was no request
  5  waiting: a "Do you want me to ...?" or "Which one do you mean?" needs a next
     turn, which a one-shot ask does not have (use `mnemolis chat`)"""
