#!/bin/sh
# prints one status line per component
for c in $COMPONENTS; do
  case "$c" in
    *broken*) echo "$c: ERROR connection refused" ;;
    *) echo "$c: OK" ;;
  esac
done
