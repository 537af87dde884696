#!/bin/sh
# One run of the real-role comparison in its own sandbox (sandbox.py starts it as root):
#     unshare -m -n --propagation private sh sandbox_run.sh SCRATCH COMMAND...
# COMMAND sees this machine read-only but SCRATCH (its scenario's scratch directory, at the same
# path), a fresh empty temporary directory around it and on /tmp and /dev/shm, /proc/sys and /sys
# read-only, and a network namespace of its own (only a loopback that is down). Whatever a role's
# command does, it reaches no file, kernel setting or network of the machine that compares: what
# it writes outside SCRATCH fails or vanishes with the namespace, in both tools alike.
set -eu
scratch=$1
shift
top=$(dirname "$scratch")
exec 3<"$scratch"                      # the scratch directory, still reachable once $top is covered
mount -t tmpfs -o mode=1777 tmpfs "$top"
if [ "$top" != /tmp ]; then mount -t tmpfs -o mode=1777 tmpfs /tmp; fi
mkdir -p "$scratch"
mount --no-canonicalize --bind /proc/self/fd/3 "$scratch"  # the descriptor itself, not its path
exec 3<&-
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -o remount,bind,ro /
mount -o remount,bind,ro /dev
for d in /sys /proc/sys; do
  mount --bind "$d" "$d"
  mount -o remount,bind,ro "$d"
done
cd "$PWD"
exec "$@"
