#!/bin/sh
# Install crate's build and test dependencies on Debian/Ubuntu.
# Does nothing when everything is already installed.
set -e
PKGS="build-essential autoconf automake pkg-config
libncurses-dev libsqlite3-dev libavformat-dev libavcodec-dev libswresample-dev libavutil-dev
libasound2-dev libtagc0-dev libtag1-dev libsystemd-dev g++ libebur128-dev libaubio-dev
ffmpeg tmux sqlite3 alsa-utils dbus-daemon clang libclang-rt-14-dev valgrind python3 procps"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
