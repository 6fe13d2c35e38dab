#!/usr/bin/env bash
# Install the table firmware on Raspberry Pi OS / Debian 12 (Bookworm) as services.
#
#   sudo bash systemd/install.sh [--seats N] [--profile NAME] [--board pi5|pi|none]
#                                [--require-compiled] [--root DIR] [--no-apt] [--no-venv]
#
# What it does, in order (docs/hardware.md, "First install"):
#  1. installs the system packages: Python, the compiler and headers the
#     compiled engine and pyscard need, pcscd (enabled), and the KMS libraries
#     the screens' display driver loads (libdrm, libgbm, libEGL and Mesa's EGL
#     vendor, libGLESv2, and Mesa's DRI drivers (vc4/v3d), which Raspberry Pi
#     OS Lite does not ship and SDL's kmsdrm needs);
#  2. creates the users: `pokertable` runs the controller and alone reads the
#     configuration and the journal; each screen runs as its own user
#     (`pokertable-console`, `pokertable-seat1`...) in the group
#     `pokertable-screens`, which may connect to the controller's socket;
#  3. builds the firmware from a copy of this checkout (nothing is written
#     into the checkout) into /opt/pokertable/venv: the compiled engine
#     (mypyc, built in a build environment of its own and showing its progress;
#     mypy never enters the runtime venv) with its build dependencies, the hardware
#     libraries and the GPIO pin factory for this board (lgpio on a Pi 5,
#     RPi.GPIO on earlier models), then checks which engine Python imports;
#  4. writes /etc/pokertable/table.toml with `pokertable init` (only if it does
#     not exist) and one credential file per terminal in /etc/pokertable-terminals/
#     (root:pokertable-<terminal> 0440: that screen's user and the controller,
#     which is in every screen's group, read it), and creates /var/lib/pokertable
#     (mode 0700);
#  5. installs the units and udev rules and enables them; `systemctl
#     daemon-reload` only when systemd is running (so the script also works in
#     a chroot or an image build).
#
# --root DIR installs the files, users and units into DIR instead of / (no
# packages, no virtual environment, no systemctl calls on the running system);
# the tests use it on a temporary root to check every file's owner and mode.
set -euo pipefail

SEATS=0
PROFILE=casino-cash
BOARD=auto
ROOT=/
APT=1
VENV_BUILD=1
REQUIRE_COMPILED=0
while [ $# -gt 0 ]; do
    case "$1" in
        --seats) SEATS="$2"; shift 2 ;;
        --profile) PROFILE="$2"; shift 2 ;;
        --board) BOARD="$2"; shift 2 ;;
        --root) ROOT="$2"; shift 2 ;;
        --no-apt) APT=0; shift ;;
        --no-venv) VENV_BUILD=0; shift ;;
        --require-compiled) REQUIRE_COMPILED=1; shift ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        [0-9]*) SEATS="$1"; shift ;;  # the old form: install.sh SEATS
        *) echo "install.sh: unknown option $1; see install.sh --help." >&2; exit 2 ;;
    esac
done
case "$SEATS" in
    ''|*[!0-9]*) echo "install.sh: --seats takes a number from 0 to 10." >&2; exit 2 ;;
esac
if [ "$SEATS" -gt 10 ]; then
    echo "install.sh: a table has at most 10 seats; --seats $SEATS is too many." >&2
    exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "Run this script as root (sudo bash systemd/install.sh)." >&2
    exit 1
fi
ROOT="$(cd "$ROOT" && pwd)"
if [ "$ROOT" != / ]; then
    APT=0
    VENV_BUILD=0
fi
P="${ROOT%/}"  # prefix for every path written
SRC="$(cd "$(dirname "$0")/.." && pwd)"
VENV=/opt/pokertable/venv
SOCKET=/run/pokertable/table.sock
log() { echo "install.sh: $*"; }

# ---------------------------------------------------------------- 1. packages
if [ "$APT" = 1 ]; then
    log "installing system packages"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 python3-venv python3-dev gcc libpcsclite-dev pcscd \
        libdrm2 libgbm1 libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri ca-certificates
fi

# ---------------------------------------------------------------- 2. users
# Users and groups are created in $ROOT's own /etc files (useradd --prefix),
# and files are given numeric owners read from them, so the same steps work
# on / and on an image or a test root.
has_group() { grep -q "^$1:" "$P/etc/group"; }
has_user() { grep -q "^$1:" "$P/etc/passwd"; }
uid_of() { awk -F: -v n="$1" '$1 == n { print $3 }' "$P/etc/passwd"; }
gid_of() { awk -F: -v n="$1" '$1 == n { print $3 }' "$P/etc/group"; }
prefix_args=()
[ "$ROOT" != / ] && prefix_args=(--prefix "$ROOT")

add_group() {
    has_group "$1" || groupadd "${prefix_args[@]}" --system "$1"
}
add_user() {  # add_user NAME GROUP,GROUP...
    if ! has_user "$1"; then
        useradd "${prefix_args[@]}" --system --user-group --no-create-home \
            --home-dir /nonexistent --shell /usr/sbin/nologin "$1"
    fi
    usermod "${prefix_args[@]}" --append --groups "$2" "$1"
}
# gpio and i2c exist on Raspberry Pi OS (its udev rules give them the
# devices); plain Debian lacks them, so they are created when missing.
for group in dialout video input render gpio i2c pokertable-screens; do
    add_group "$group"
done
add_user pokertable dialout,gpio,i2c,pokertable-screens
SCREENS=(console)
for seat in $(seq 1 "$SEATS"); do SCREENS+=("seat$seat"); done
for terminal in "${SCREENS[@]}"; do
    add_user "pokertable-$terminal" video,render,input,pokertable-screens
    # The controller reads every terminal's secret through the terminal's group.
    usermod "${prefix_args[@]}" --append --groups "pokertable-$terminal" pokertable
done
CONTROLLER_UID="$(uid_of pokertable)"
CONTROLLER_GID="$(gid_of pokertable)"

# ---------------------------------------------------------------- 3. firmware
pick_board() {
    local model=""
    [ -r /proc/device-tree/model ] && model="$(tr -d '\0' < /proc/device-tree/model)"
    [ -z "$model" ] && model="$(awk -F': ' '/^Model/ { print $2 }' /proc/cpuinfo 2>/dev/null)"
    case "$model" in
        *"Raspberry Pi 5"*|*"Compute Module 5"*) echo pi5 ;;
        *"Raspberry Pi"*) echo pi ;;
        *) case "$(uname -m)" in aarch64|armv7l) echo pi5 ;; *) echo none ;; esac ;;
    esac
}
[ "$BOARD" = auto ] && BOARD="$(pick_board)"
# The pin factory table.toml names is the one installed here (init is told it).
case "$BOARD" in pi) PIN_FACTORY=rpigpio ;; *) PIN_FACTORY=lgpio ;; esac
if [ "$VENV_BUILD" = 1 ]; then
    case "$BOARD" in
        pi5) EXTRAS="hardware,pi5" ;;   # lgpio: the Pi 5's GPIO (and any Pi's)
        pi) EXTRAS="hardware,pi" ;;     # RPi.GPIO: Pi 4 and earlier
        none) EXTRAS="hardware" ;;
        *) echo "install.sh: --board is pi5, pi or none, not '$BOARD'." >&2; exit 2 ;;
    esac
    log "board: $BOARD; installing pokertable[$EXTRAS] into $VENV"
    # Build from a copy: pip and setuptools write build/ and *.egg-info next
    # to the sources, which must not become root-owned files in the checkout.
    WORK="$(mktemp -d /tmp/pokertable-build.XXXXXX)"
    trap 'rm -rf "$WORK"' EXIT
    tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude=./build --exclude=./dist \
        --exclude='*.egg-info' --exclude='__pycache__' --exclude='*.so' \
        --exclude=./.mypy_cache --exclude=./.pytest_cache --exclude=./.ruff_cache \
        -cf - . | tar -C "$WORK" -xf -
    install -d -o root -g root -m 0755 /opt/pokertable
    python3 -m venv "$VENV"
    PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
    # The venv seeds Debian's setuptools 66; it is upgraded within the bounds
    # pyproject.toml's build-system names (the SPDX license string needs 77).
    SETUPTOOLS="setuptools>=77,<81"
    "${PIP[@]}" install --upgrade pip "$SETUPTOOLS" wheel
    "${PIP[@]}" install "$WORK[$EXTRAS]"
    # The compiled engine is built in a build environment of its own (mypy and
    # mypyc, ~41 MB, never enter the runtime venv), with the runtime
    # dependencies mypyc reads the types of; only the wheel is installed.
    BUILD="$WORK/build-env"
    python3 -m venv "$BUILD"
    BPIP=("$BUILD/bin/python" -m pip --disable-pip-version-check)
    "${BPIP[@]}" install --upgrade pip "$SETUPTOOLS" wheel "mypy>=1.10"
    "${BPIP[@]}" install "$WORK[$EXTRAS]"
    ENGINE=pure
    log "compiling the engine with mypyc (10-20 minutes on a Pi); the build's own" \
        "output follows: mypyc's phases, then one compiler line per module"
    # -v: pip shows the build's output as it goes instead of a spinner that says
    # only "still running..." for 15 minutes.
    if (cd "$WORK" && POKERTABLE_MYPYC=1 "${BPIP[@]}" wheel -v --no-build-isolation --no-deps \
            -w "$WORK/dist" .); then
        "${PIP[@]}" install --force-reinstall --no-deps "$WORK"/dist/pokertable-*.whl
        ENGINE="$(cd / && "$VENV/bin/python" -c \
            'import firmware.engine.hand as h; print("compiled" if h.__file__.endswith(".so") else "pure")')"
    fi
    if "$VENV/bin/python" -c 'import mypy' 2>/dev/null; then
        "${PIP[@]}" uninstall -y mypy  # an older install's build tool: not the runtime's
    fi
    if [ "$ENGINE" = compiled ]; then
        log "the compiled engine is installed and imported"
    elif [ "$REQUIRE_COMPILED" = 1 ]; then
        echo "install.sh: the compiled engine did not build or is not the one imported;" \
            "see the compiler output above (needs gcc and python3-dev)." >&2
        exit 1
    else
        echo "install.sh: WARNING: the compiled engine did not build; the table runs the" \
            "pure-Python engine (same behaviour, about half the speed)." >&2
    fi
    echo "$ENGINE" > /opt/pokertable/ENGINE
    install -d -m 0755 /opt/pokertable/docs
    cp "$SRC/README.md" /opt/pokertable/README.md
    cp "$SRC"/docs/*.md /opt/pokertable/docs/
fi

# ---------------------------------------------------------------- 4. configuration and data
# /etc/pokertable: root-owned, readable by the controller's group only. Each
# terminal's secret is a file of its own, readable by that screen's group (its
# user, and the controller, which is in every screen's group) and nobody else.
install -d -o 0 -g "$CONTROLLER_GID" -m 0750 "$P/etc/pokertable"
install -d -o 0 -g 0 -m 0711 "$P/etc/pokertable-terminals"
if [ ! -f "$P/etc/pokertable/table.toml" ]; then
    if [ -x "$VENV/bin/pokertable" ] && [ "$ROOT" = / ]; then
        INIT=("$VENV/bin/pokertable")
    else
        INIT=(env "PYTHONPATH=$SRC" python3 -m firmware.cli.main)
    fi
    "${INIT[@]}" init --profile "$PROFILE" --seats "$SEATS" --socket "$SOCKET" \
        --socket-group pokertable-screens --secrets-dir /etc/pokertable-terminals \
        --pin-factory "$PIN_FACTORY" \
        --write-secrets "$P/etc/pokertable-terminals" --output "$P/etc/pokertable/table.toml"
    log "wrote /etc/pokertable/table.toml; check it with: pokertable config check /etc/pokertable/table.toml"
fi
chown 0:"$CONTROLLER_GID" "$P/etc/pokertable/table.toml"
chmod 0640 "$P/etc/pokertable/table.toml"
for terminal in "${SCREENS[@]}"; do
    secret="$P/etc/pokertable-terminals/$terminal.secret"
    [ -e "$secret" ] || continue
    chown 0:"$(gid_of "pokertable-$terminal")" "$secret"
    chmod 0440 "$secret"
done
# The data directory (journal, history, tag registry): the controller alone.
install -d -o "$CONTROLLER_UID" -g "$CONTROLLER_GID" -m 0700 "$P/var/lib/pokertable"
# The journal's seal key: root's alone, outside the data folder (the unit hands
# it to the controller with LoadCredential=, read-only; docs/security.md). The
# key of an older install, beside the journal, moves here; a new key is made
# only while there is no journal (never over one with records).
install -d -o 0 -g 0 -m 0700 "$P/etc/pokertable/seal"
SEAL="$P/etc/pokertable/seal/journal.key"
if [ ! -f "$SEAL" ]; then
    if [ -f "$P/var/lib/pokertable/journal.key" ]; then
        mv "$P/var/lib/pokertable/journal.key" "$SEAL"
        log "moved the journal's seal key to /etc/pokertable/seal/journal.key"
    elif [ ! -e "$P/var/lib/pokertable/journal.sqlite" ]; then
        (umask 077 && head -c 32 /dev/urandom > "$SEAL")
        log "made the journal's seal key /etc/pokertable/seal/journal.key (root only)"
    else
        log "the journal has no seal key: check it with 'pokertable audit verify'," \
            "then 'pokertable audit seal --key /etc/pokertable/seal/journal.key" \
            "/var/lib/pokertable/journal.sqlite'"
    fi
fi
if [ -f "$SEAL" ]; then
    chown 0:0 "$SEAL"
    chmod 0600 "$SEAL"
fi

# ---------------------------------------------------------------- 5. units
install -d -m 0755 "$P/etc/systemd/system" "$P/etc/udev/rules.d"
install -m 0644 "$SRC"/systemd/*.service "$P/etc/systemd/system/"
install -m 0644 "$SRC/systemd/99-pokertable.rules" "$P/etc/udev/rules.d/"
UNITS=(pokertable.service pokertable-console.service)
for seat in $(seq 1 "$SEATS"); do UNITS+=("pokertable-seat@${seat}.service"); done
if [ "$ROOT" = / ] && [ -d /run/systemd/system ]; then
    # A running system: reload, then enable (pcscd too: the card readers).
    udevadm control --reload-rules || true
    systemctl daemon-reload
    systemctl enable pcscd.socket 2>/dev/null || true
    systemctl enable "${UNITS[@]}"
else
    # A chroot, an image or a test root: systemd is not running there, so
    # nothing is reloaded; `systemctl --root` enables the units offline.
    if command -v systemctl >/dev/null 2>&1; then
        systemctl --root="$ROOT" enable pcscd.socket 2>/dev/null || true
        systemctl --root="$ROOT" enable "${UNITS[@]}"
    else
        log "systemctl not found: enable ${UNITS[*]} on the running system"
    fi
fi
log "installed. Check the configuration, test the devices, then start:"
log "  pokertable config check /etc/pokertable/table.toml"
log "  sudo -u pokertable pokertable diag"
log "  systemctl start pokertable.service"
