#!/bin/sh
# Run "$@" with this machine's system directories read-only, in the private mount namespace of
#     unshare -m --propagation private tests/run_realroles/read_only_system.sh COMMAND...
# (as root): a role's path the cutting did not move into the scenario then fails in both tools
# instead of writing on the machine that records or measures. The scratch directories (under
# $TMPDIR or /tmp) and the recordings stay writable.
set -e
for d in /usr /etc /opt /root /var /srv /home /boot /mnt /media; do
  if [ -d "$d" ]; then
    mount --bind -o ro "$d" "$d" 2>/dev/null || mount -o remount,bind,ro "$d"
  fi
done
exec "$@"
