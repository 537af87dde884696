#!/bin/sh
# usage: migrate.sh STATE_DIR TARGET
state="$1/applied"
target="$2"
current=0
[ -f "$state" ] && current=$(cat "$state")
if [ "$target" -lt "$current" ]; then
  echo "ERROR: downgrade from $current to $target refused" >&2
  exit 0
fi
n=$((target - current))
echo "$target" > "$state"
echo "schema at $target"
echo "APPLIED $n"
