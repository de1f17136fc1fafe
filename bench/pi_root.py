"""A Debian bookworm arm64 root for `make pi-check`, built once and cached.

debootstrap (Debian's package) builds the root; qemu-user-static with
binfmt-support runs its arm64 programs on this machine. The root is kept as
a tarball in the cache directory, named by what went into it, and every run
unpacks a fresh copy, so a run never sees what the last one installed. pip's
downloads are cached beside it (bind-mounted as root's pip cache).

Where pip goes through an HTTPS-intercepting proxy, the chroot needs the
host's CA bundle: it is copied in and named in the chroot's /etc/pip.conf
(a real Pi needs neither).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUITE = "bookworm"
ARCH = "arm64"
MIRROR = "http://deb.debian.org/debian"
#: What a Raspberry Pi OS Lite has that the page relies on (python3-venv: the page
#: installs it only if missing, and it is not, which saves an emulated apt run).
INCLUDE = ("python3", "python3-venv", "python3-pip", "ca-certificates", "git", "sudo")
#: The Pi's own login, as on Raspberry Pi OS: a sudoer with no password.
PI_USER = "pi"
HOST_PACKAGES = ("debootstrap", "qemu-user-static", "binfmt-support", "mosquitto")
#: The network namespace the emulated Pi's daemon lives in: loopback only, with a
#: Mosquitto of its own on 127.0.0.1:1883, as the page's minimal mqtt.yaml expects.
NETNS = "mnemolis-pi-check"


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, text=True, **kwargs)  # type: ignore[call-overload, no-any-return]


def check_host() -> None:
    """Root, the three Debian packages, and arm64 binaries runnable through binfmt."""
    if os.geteuid() != 0:
        sys.exit("pi-check needs root (debootstrap, chroot, mounts)")
    tools = ("debootstrap", "qemu-aarch64-static", "ip")
    missing = [p for p in tools if shutil.which(p) is None]
    if not Path("/usr/sbin/mosquitto").is_file():
        missing.append("mosquitto")
    if missing:
        sys.exit("pi-check needs: apt-get install -y " + " ".join(HOST_PACKAGES))
    binfmt = Path("/proc/sys/fs/binfmt_misc")
    if not (binfmt / "status").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(binfmt)], check=False)
    if not (binfmt / "qemu-aarch64").exists():
        subprocess.run(["update-binfmts", "--enable", "qemu-aarch64"], check=False)
    if not (binfmt / "qemu-aarch64").exists():
        sys.exit("arm64 binaries cannot run here: binfmt_misc has no qemu-aarch64 entry")
    with_credentials(binfmt / "qemu-aarch64")


def with_credentials(entry: Path) -> None:
    """sudo is setuid: qemu must run it with the binary's credentials (the C flag), which
    Debian's registration leaves off; the entry is registered again with it."""
    fields = dict(line.split(" ", 1) for line in entry.read_text().splitlines() if " " in line)
    flags = fields["flags:"].strip()
    if "C" in flags:
        return

    def escaped(hexes: str) -> str:
        return "".join(f"\\x{hexes[i : i + 2]}" for i in range(0, len(hexes), 2))

    rule = (
        f":{entry.name}:M:{fields['offset'].strip()}:{escaped(fields['magic'].strip())}:"
        f"{escaped(fields['mask'].strip())}:{fields['interpreter'].strip()}:{flags}C"
    )
    entry.write_text("-1")
    (entry.parent / "register").write_text(rule)


def base_tarball(cache: Path) -> Path:
    """The cached root, built with debootstrap when missing (~12 minutes)."""
    key = hashlib.sha256(f"{SUITE} {ARCH} {MIRROR} {' '.join(INCLUDE)}".encode()).hexdigest()
    tarball = cache / f"{SUITE}-{ARCH}-{key[:12]}.tar"
    if tarball.is_file():
        return tarball
    build = cache / "build-root"
    shutil.rmtree(build, ignore_errors=True)
    print(f"pi-check: building the {SUITE} {ARCH} root with debootstrap (once)", flush=True)
    run(["debootstrap", f"--arch={ARCH}", "--variant=minbase", f"--include={','.join(INCLUDE)}",
         SUITE, str(build), MIRROR], stdout=subprocess.DEVNULL)  # fmt: skip
    # the Pi's login: a user with sudo and no password, as Raspberry Pi OS sets it up
    run(["chroot", str(build), "useradd", "--create-home", "--shell", "/bin/bash", PI_USER])
    sudoers = build / "etc" / "sudoers.d" / "010_pi-nopasswd"
    sudoers.write_text(f"{PI_USER} ALL=(ALL) NOPASSWD: ALL\n")
    sudoers.chmod(0o440)
    partial = tarball.with_suffix(".partial")
    run(["tar", "-C", str(build), "-cf", str(partial), "."])
    partial.rename(tarball)
    shutil.rmtree(build)
    return tarball


def fresh_root(cache: Path, tarball: Path) -> Path:
    """A new copy of the cached root for this run."""
    root = cache / "run" / "root"
    if (cache / "run").exists():
        unmount_all(root)
        shutil.rmtree(cache / "run")
    root.mkdir(parents=True)
    run(["tar", "-C", str(root), "-xf", str(tarball)])
    shutil.copy("/etc/resolv.conf", root / "etc" / "resolv.conf")
    with (root / "etc" / "hosts").open("a") as hosts:  # sudo looks its host name up
        hosts.write(f"127.0.1.1 {os.uname().nodename}\n")
    return root


def trust_host_ca(root: Path, bundle: str | None) -> None:
    """The host's CA bundle in the chroot's pip.conf, for an intercepting proxy."""
    if not bundle or not Path(bundle).is_file():
        return
    shutil.copy(bundle, root / "etc" / "pi-check-host-ca.pem")
    (root / "etc" / "pip.conf").write_text("[global]\ncert = /etc/pi-check-host-ca.pem\n")


def _mounted(root: Path) -> list[str]:
    prefix = str(root.resolve())
    with open("/proc/self/mounts") as mounts:
        points = [line.split()[1] for line in mounts]
    return [p for p in points if p == prefix or p.startswith(prefix + "/")]


def unmount_all(root: Path) -> None:
    for point in sorted(_mounted(root), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False)


@contextmanager
def mounted(root: Path, pip_cache: Path) -> Iterator[None]:
    """/proc, /dev, /dev/pts, a tmpfs /run and the pip cache, unmounted afterwards."""
    pip_cache.mkdir(parents=True, exist_ok=True)
    (root / "root" / ".cache" / "pip").mkdir(parents=True, exist_ok=True)
    try:
        run(["mount", "-t", "proc", "proc", str(root / "proc")])
        run(["mount", "--bind", "/dev", str(root / "dev")])
        run(["mount", "--bind", "/dev/pts", str(root / "dev" / "pts")])
        run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", str(root / "run")])
        run(["mount", "--bind", str(pip_cache), str(root / "root" / ".cache" / "pip")])
        yield
    finally:
        unmount_all(root)


@contextmanager
def isolated_network(folder: Path) -> Iterator[None]:
    """`NETNS` with its loopback up and a Mosquitto (this machine's) listening in it."""
    subprocess.run(["ip", "netns", "delete", NETNS], check=False, stderr=subprocess.DEVNULL)
    run(["ip", "netns", "add", NETNS])
    broker = None
    try:
        run(["ip", "netns", "exec", NETNS, "ip", "link", "set", "lo", "up"])
        conf = folder / "mosquitto.conf"
        conf.write_text("listener 1883 127.0.0.1\nallow_anonymous true\npersistence false\n")
        broker = subprocess.Popen(
            ["ip", "netns", "exec", NETNS, "/usr/sbin/mosquitto", "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        yield
    finally:
        if broker is not None:
            broker.terminate()
            broker.wait(10)
        subprocess.run(["ip", "netns", "delete", NETNS], check=False)
