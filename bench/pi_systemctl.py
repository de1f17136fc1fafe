#!/usr/bin/python3
"""`systemctl` and `journalctl` for `make pi-check`'s chroot, where no systemd runs.

Copied into the chroot as /usr/local/bin/systemctl and journalctl. It does
for the unit in /etc/systemd/system what systemd does with the lines the
daemon relies on: User= and Group= (with the user's groups), Environment=,
RuntimeDirectory=, StateDirectory=, CacheDirectory= and their modes (and the
$RUNTIME_DIRECTORY, $STATE_DIRECTORY, $CACHE_DIRECTORY it hands over),
UMask=, LimitNOFILE=, ExecStart=, ExecReload= as SIGHUP, a stop as SIGTERM
waiting TimeoutStopSec=. The sandboxing lines (ProtectSystem= and the like)
are not emulated. The daemon's output goes to /var/log/<unit>.log, which
`journalctl -u <unit>` prints (without following it).
"""

from __future__ import annotations

import grp
import os
import pwd
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

UNITS = Path("/etc/systemd/system")


def unit(name: str) -> dict[str, list[str]]:
    name = name.removesuffix(".service")
    entries: dict[str, list[str]] = {}
    for raw in (UNITS / f"{name}.service").read_text().splitlines():
        line = raw.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, value = line.split("=", 1)
            entries.setdefault(key.strip(), []).append(value.strip())
    return entries


def one(entries: dict[str, list[str]], key: str, default: str = "") -> str:
    return entries.get(key, [default])[-1]


def pid_file(name: str) -> Path:
    return Path("/run") / f"{name.removesuffix('.service')}.pid"


def running(name: str) -> int | None:
    try:
        pid = int(pid_file(name).read_text())
        os.kill(pid, 0)
    except PermissionError:  # another user's process (`systemctl status` needs no root)
        pass
    except (OSError, ValueError):
        return None
    stat = Path(f"/proc/{pid}/stat").read_text().split()
    return None if stat[2] == "Z" else pid


def start(name: str) -> None:
    if running(name):
        return
    entries = unit(name)
    user = pwd.getpwnam(one(entries, "User", "root"))
    gid = grp.getgrnam(one(entries, "Group", user.pw_name)).gr_gid
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": user.pw_dir}
    env.update(e.split("=", 1) for e in entries.get("Environment", []))
    for kind, base in (("Runtime", "/run"), ("State", "/var/lib"), ("Cache", "/var/cache")):
        for sub in one(entries, f"{kind}Directory").split():
            path = Path(base) / sub
            path.mkdir(parents=True, exist_ok=True)
            os.chown(path, user.pw_uid, gid)
            path.chmod(int(one(entries, f"{kind}DirectoryMode", "0755"), 8))
            env[f"{kind.upper()}_DIRECTORY"] = str(path)
    limit = int(one(entries, "LimitNOFILE", "1024"))
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and limit > hard:  # a container may not raise it
        print(f"systemctl (pi-check): LimitNOFILE={limit} capped at {hard}", file=sys.stderr)
        limit = hard
    umask = int(one(entries, "UMask", "0022"), 8)

    def as_user() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
        os.setgid(gid)
        os.initgroups(user.pw_name, gid)
        os.setuid(user.pw_uid)
        os.umask(umask)
        os.setsid()

    log = open(f"/var/log/{name.removesuffix('.service')}.log", "ab")  # noqa: SIM115
    # when the daemon was started, for pi-check's timing (this shim's own start is not its)
    Path("/run").joinpath(f"{name.removesuffix('.service')}.started").write_text(str(time.time()))
    process = subprocess.Popen(
        one(entries, "ExecStart").split(), env=env, cwd="/", stdin=subprocess.DEVNULL,
        stdout=log, stderr=subprocess.STDOUT, preexec_fn=as_user,
    )  # fmt: skip
    pid_file(name).write_text(str(process.pid))


def stop(name: str) -> None:
    pid = running(name)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + float(one(unit(name), "TimeoutStopSec", "90"))
    while running(name) and time.monotonic() < deadline:
        time.sleep(0.1)
    if running(name):
        os.kill(pid, signal.SIGKILL)


def systemctl(args: list[str]) -> int:
    words = [a for a in args if not a.startswith("-")]
    if not words or words[0] == "daemon-reload":
        return 0
    verb, names = words[0], words[1:]
    for name in names:
        if (verb == "enable" and "--now" in args) or verb == "start":
            start(name)
        elif verb == "stop":
            stop(name)
        elif verb == "restart":
            stop(name)
            start(name)
        elif verb == "reload":
            pid = running(name)
            if pid is None:
                print(f"{name} is not running", file=sys.stderr)
                return 1
            os.kill(pid, signal.SIGHUP)
        elif verb in ("status", "is-active"):
            pid = running(name)
            print(f"{name}: {'active (running), pid ' + str(pid) if pid else 'inactive (dead)'}")
            if pid is None:
                return 3
    return 0


def journalctl(args: list[str]) -> int:
    name = args[args.index("-u") + 1] if "-u" in args else ""
    log = Path(f"/var/log/{name.removesuffix('.service')}.log")
    sys.stdout.write(log.read_text(errors="replace") if log.is_file() else "")
    return 0


if __name__ == "__main__":
    tool = Path(sys.argv[0]).name
    sys.exit(journalctl(sys.argv[1:]) if tool == "journalctl" else systemctl(sys.argv[1:]))
