#!/usr/bin/env bash
# The install check on an emulated Raspberry Pi (arm64 Debian Bookworm under
# qemu-user), without a Pi. Not part of `make test`: it takes about half an
# hour (emulated dpkg and gcc are slow). Run as root on a Debian/Ubuntu x86_64
# machine:
#
#   sudo bash systemd/check-emulated-pi.sh [--base DIR|FILE.tar] [--work DIR] [--keep] [--reuse]
#
# --keep leaves WORK/root in place after the check; --reuse starts from that
# root (packages and environment already installed: a faster second run);
# --boot-only (implies --reuse) reinstalls only the configuration, users and
# units (install.sh --no-venv, the firmware built by the last run kept) and
# runs the boot check.
#
# 1. Root: copies --base (a debootstrapped arm64 root, a folder or a tar), or
#    builds one with debootstrap and qemu-user-static and saves it as
#    WORK/root-base.tar for the next run.
# 2. Copies this checkout into the root, owned by an ordinary user `tech`.
# 3. Runs `systemd/install.sh --seats 2 --require-compiled` inside (chroot).
# 4. Checks: the compiled engine is the one imported; the pin factory library
#    is installed; the checkout holds no root-owned build/ or *.egg-info;
#    `pokertable config check`, `pokertable run`, `pokertable diag` (as the
#    controller, and as `tech`: a sentence, not a traceback), and a short test
#    subset on the installed (compiled) firmware.
# 5. Boots the root with `systemd-nspawn -b` and checks that the controller,
#    the console and both seat screens are active and were never restarted,
#    and that the console and seats are connected (`pokertable status`).
#
# What this cannot show without a Pi: the GPIO lines (/dev/gpiochip*), the
# displays (/dev/dri: the screens run SDL's dummy video driver here), the USB
# serial boards and card readers, and the seccomp filters of the units
# (qemu-user does not support seccomp, so systemd skips SystemCallFilter=,
# RestrictAddressFamilies= and MemoryDenyWriteExecute= in the container).
# Timings under emulation are not Pi timings. Each step's time is printed and
# written to WORK/timings.txt.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
BASE=""
WORK=/var/tmp/pokertable-emulated-pi
KEEP=0
REUSE=0
BOOT_ONLY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --base) BASE="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --reuse) REUSE=1; KEEP=1; shift ;;
        --boot-only) BOOT_ONLY=1; REUSE=1; KEEP=1; shift ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "check-emulated-pi.sh: unknown option $1; see --help." >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" -ne 0 ]; then
    echo "Run this check as root (debootstrap, chroot and systemd-nspawn need it)." >&2
    exit 1
fi
ROOT="$WORK/root"
TIMINGS="$WORK/timings.txt"
mkdir -p "$WORK"
: > "$TIMINGS"
STEP_START=0
step() { STEP_NAME="$1"; STEP_START=$(date +%s); echo "=== $1"; }
done_step() {
    local took=$(( $(date +%s) - STEP_START ))
    printf '%-48s %5d s\n' "$STEP_NAME" "$took" | tee -a "$TIMINGS"
}
fail() { echo "check-emulated-pi.sh: FAILED: $*" >&2; exit 1; }

MOUNTED=()
mount_root() {
    for fs in proc sys dev dev/pts; do
        mkdir -p "$ROOT/$fs"
        case "$fs" in
            proc) mount -t proc proc "$ROOT/proc" ;;
            sys) mount --rbind /sys "$ROOT/sys"; mount --make-rslave "$ROOT/sys" ;;
            dev) mount --rbind /dev "$ROOT/dev"; mount --make-rslave "$ROOT/dev" ;;
            dev/pts) continue ;;
        esac
        MOUNTED+=("$ROOT/$fs")
    done
}
umount_root() {
    local i
    for (( i=${#MOUNTED[@]}-1; i>=0; i-- )); do
        umount -R "${MOUNTED[$i]}" 2>/dev/null || umount -lR "${MOUNTED[$i]}" 2>/dev/null || true
    done
    MOUNTED=()
}
NSPAWN_PID=""
cleanup() {
    if [ -n "$NSPAWN_PID" ] && kill "$NSPAWN_PID" 2>/dev/null; then
        for _ in $(seq 1 30); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 1; done
        kill -9 "$NSPAWN_PID" 2>/dev/null || true  # a container that would not stop
        wait "$NSPAWN_PID" 2>/dev/null || true
    fi
    umount_root
    if [ "$KEEP" = 0 ] && [ -d "$ROOT" ]; then rm -rf "$ROOT"; fi
}
trap cleanup EXIT
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 bash -c "$1"; }

# ---------------------------------------------------------------- 0. host
step "host prerequisites"
for tool in debootstrap systemd-nspawn chroot; do
    command -v "$tool" >/dev/null || fail "$tool is missing: apt-get install debootstrap systemd-container"
done
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] \
    || fail "no aarch64 binfmt handler: apt-get install qemu-user-static binfmt-support"
grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 || fail "the qemu-aarch64 handler is disabled"
done_step

# ---------------------------------------------------------------- 1. root
step "arm64 root ready"
if [ "$REUSE" = 1 ] && [ -x "$ROOT/usr/bin/python3" ]; then
    echo "reusing $ROOT"
elif [ -d "$BASE" ]; then
    rm -rf "$ROOT"
    # --one-file-system: not what may be mounted in it (proc, sys, dev).
    mkdir -p "$ROOT" && tar -C "$BASE" --one-file-system -cf - . | tar -C "$ROOT" -xf -
elif [ -f "$BASE" ]; then
    rm -rf "$ROOT" && mkdir -p "$ROOT" && tar -C "$ROOT" -xf "$BASE"
elif [ -f "$WORK/root-base.tar" ]; then
    rm -rf "$ROOT" && mkdir -p "$ROOT" && tar -C "$ROOT" -xf "$WORK/root-base.tar"
else
    rm -rf "$ROOT"
    MIRROR=$(grep -hoE 'https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/* \
        2>/dev/null | head -1)
    debootstrap --foreign --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,python3-dev,gcc,make,sudo,systemd,systemd-sysv,udev,dbus,git,pcscd,libpcsclite-dev,ca-certificates \
        bookworm "$ROOT" "${MIRROR:-http://deb.debian.org/debian}"
    chroot "$ROOT" /debootstrap/debootstrap --second-stage
    tar -C "$ROOT" -cf "$WORK/root-base.tar" .
fi
[ "$(chroot "$ROOT" uname -m)" = aarch64 ] || fail "the root does not run as aarch64"
# The host's network settings and extra certificate authorities (pip over a proxy).
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
    in_root "update-ca-certificates >/dev/null 2>&1 || true"
fi
echo pokertable-pi > "$ROOT/etc/hostname"
done_step

# ---------------------------------------------------------------- 2. checkout
step "checkout copied (owned by tech)"
in_root "id tech >/dev/null 2>&1 || useradd --create-home --shell /bin/bash tech"
rm -rf "$ROOT/home/tech/pokertable"
mkdir -p "$ROOT/home/tech/pokertable"
tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude='__pycache__' --exclude=./build \
    --exclude='*.egg-info' --exclude='*.so' --exclude=./.mypy_cache --exclude=./.pytest_cache \
    --exclude=./.ruff_cache -cf - . | tar -C "$ROOT/home/tech/pokertable" -xf -
in_root "chown -R tech:tech /home/tech/pokertable"
done_step

# ---------------------------------------------------------------- 3. install
mount_root
if [ "$BOOT_ONLY" = 1 ]; then
    step "install.sh --seats 2 --no-venv (boot only)"
    rm -rf "$ROOT/etc/pokertable" "$ROOT/etc/pokertable-terminals" "$ROOT/var/lib/pokertable"
    in_root "cd /home/tech/pokertable && bash systemd/install.sh --seats 2 --no-venv" \
        > "$WORK/install.log" 2>&1 || { tail -40 "$WORK/install.log"; fail "install.sh failed"; }
    done_step
fi
if [ "$BOOT_ONLY" = 0 ]; then
step "install.sh --seats 2 --require-compiled"
in_root "cd /home/tech/pokertable && bash systemd/install.sh --seats 2 --require-compiled" \
    > "$WORK/install.log" 2>&1 || { tail -40 "$WORK/install.log"; fail "install.sh failed"; }
done_step

# ---------------------------------------------------------------- 4. checks in the chroot
step "checks: engine, pin factory, checkout, commands"
PY=/opt/pokertable/venv/bin/python
in_root "cd / && $PY -c 'import firmware.engine.hand as h; assert h.__file__.endswith(\".so\"), h.__file__; print(\"engine:\", h.__file__)'" \
    || fail "the compiled engine is not the one imported"
in_root "$PY -c 'import lgpio; print(\"pin factory library: lgpio\", lgpio.__file__)'" \
    || fail "lgpio (the Pi 5 pin factory) is not installed"
in_root "$PY -c 'import importlib.util as u; assert u.find_spec(\"numpy\") is None'" \
    || fail "numpy is installed in the table's runtime"
in_root "$PY -c 'import importlib.util as u; assert u.find_spec(\"mypy\") is None'" \
    || fail "mypy (a build tool) is installed in the table's runtime"
in_root "grep -q 'pin_factory = \"lgpio\"' /etc/pokertable/table.toml || \
    ! grep -q pin_factory /etc/pokertable/table.toml" \
    || fail "table.toml names another pin factory than the lgpio install.sh installed"
in_root "ls /usr/lib/*/dri/v3d_dri.so /usr/lib/*/dri/vc4_dri.so >/dev/null && \
    ls /usr/lib/*/libgbm.so.1 /usr/lib/*/libEGL_mesa.so.0 >/dev/null" \
    || fail "Mesa's DRI drivers, GBM or EGL (SDL's kmsdrm) are not installed"
in_root "test -f /etc/pokertable/seal/journal.key && \
    test \"\$(stat -c %a /etc/pokertable/seal/journal.key)\" = 600" \
    || fail "the journal's seal key is not in /etc/pokertable/seal (root only)"
grep -q "still running" "$WORK/install.log" && ! grep -q "pokertable: mypyc compiles" "$WORK/install.log" \
    && fail "the compiled build showed no progress"
LEFT=$(in_root "find /home/tech/pokertable \\( -name build -o -name '*.egg-info' -o -name dist \\) -user root")
[ -z "$LEFT" ] || fail "install.sh left root-owned build files in the checkout: $LEFT"
in_root "/opt/pokertable/venv/bin/pokertable config check /etc/pokertable/table.toml" \
    || fail "the installed configuration does not pass its check"
in_root "cd /tmp && /opt/pokertable/venv/bin/pokertable run --hands 5 --lang en | tail -3" \
    || fail "pokertable run failed"
in_root "cd /tmp && runuser -u pokertable -- /opt/pokertable/venv/bin/pokertable diag </dev/null" \
    > "$WORK/diag.log" 2>&1 || true
grep -q Traceback "$WORK/diag.log" && fail "diag as the controller's user ended in a traceback"
in_root "cd /tmp && runuser -u tech -- /opt/pokertable/venv/bin/pokertable diag </dev/null" \
    > "$WORK/diag-tech.log" 2>&1 && fail "diag as tech should say it may not read the configuration"
grep -q Traceback "$WORK/diag-tech.log" && fail "diag as tech ended in a traceback"
echo "diag as tech: $(tail -1 "$WORK/diag-tech.log")"
[ -z "$(find "$ROOT/var/lib/pokertable" -user root)" ] \
    || fail "a command left root-owned files in /var/lib/pokertable"
done_step

step "short test subset on the installed firmware"
in_root "$PY -m pip install --quiet pytest hypothesis >/dev/null 2>&1" || fail "pytest did not install"
rm -rf "$ROOT/tmp/pt" && mkdir -p "$ROOT/tmp/pt"
cp -r "$SRC/tests" "$ROOT/tmp/pt/tests"
cp -r "$SRC/systemd" "$ROOT/tmp/pt/systemd"
# -c /dev/null: not the checkout's pytest settings (they put the checkout first on the
# path); the firmware imported is the installed, compiled one.
in_root "cd /tmp/pt && $PY -m pytest -q -c /dev/null -p no:cacheprovider \
    tests/test_cards.py tests/test_rules_pots.py tests/test_rules_betting.py tests/test_install.py" \
    || fail "the test subset failed"
done_step
fi  # not --boot-only
umount_root

# ---------------------------------------------------------------- 5. boot
step "boot with systemd-nspawn -b; every unit active"
# On a machine without displays the screens use SDL's dummy driver.
for unit in pokertable-console.service pokertable-seat@.service; do
    mkdir -p "$ROOT/etc/systemd/system/$unit.d"
    printf '[Service]\nEnvironment=SDL_VIDEODRIVER=dummy\n' \
        > "$ROOT/etc/systemd/system/$unit.d/emulated.conf"
done
systemd-nspawn -b -D "$ROOT" --register=no --keep-unit --console=passive \
    > "$WORK/boot.log" 2>&1 &
NSPAWN_PID=$!
LEADER=""
for _ in $(seq 1 120); do
    LEADER=$(pgrep -P "$NSPAWN_PID" | head -1 || true)
    [ -n "$LEADER" ] && break
    sleep 1
done
[ -n "$LEADER" ] || fail "the container did not start"
inside() { nsenter --target "$LEADER" --mount --uts --ipc --net --pid -- "$@"; }
UNITS=(pokertable.service pokertable-console.service pokertable-seat@1.service pokertable-seat@2.service)
for _ in $(seq 1 180); do
    state=$(inside systemctl is-system-running 2>/dev/null || true)
    case "$state" in running|degraded) break ;; esac
    sleep 1
done
echo "system: $state"
sleep 20  # long enough for a crash loop to show in NRestarts
for unit in "${UNITS[@]}"; do
    active=$(inside systemctl is-active "$unit" || true)
    restarts=$(inside systemctl show -p NRestarts --value "$unit")
    echo "$unit: $active, restarts $restarts"
    if [ "$active" != active ] || [ "$restarts" != 0 ]; then
        inside journalctl -u "$unit" --no-pager | tail -20
        fail "$unit is $active after $restarts restart(s)"
    fi
done
inside journalctl -u pokertable.service --no-pager -o cat | grep -m1 "Table started\|Table restored"
inside /opt/pokertable/venv/bin/pokertable status | tee "$WORK/status.txt"
grep -q "console, seat1, seat2" "$WORK/status.txt" || fail "the screens are not all connected"
inside systemctl poweroff || true
wait "$NSPAWN_PID" 2>/dev/null || true
NSPAWN_PID=""
done_step

echo "All checks passed. Timings (emulated, not Pi figures):"
cat "$TIMINGS"
