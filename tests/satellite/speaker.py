"""A wyoming-satellite's --snd-command for the tests: each spoken answer (raw 16 kHz,
16-bit mono on standard input, one run of the command per answer) saved as the next
numbered .raw file of the folder given. Only the standard library."""

import os
import sys

folder = sys.argv[1]
data = sys.stdin.buffer.read()
number = len([n for n in os.listdir(folder) if n.endswith(".raw")])
part = os.path.join(folder, f"{number:03d}.part")
with open(part, "wb") as out:
    out.write(data)
os.replace(part, os.path.join(folder, f"{number:03d}.raw"))
