#!/bin/sh
echo "args: $*"
echo "cwd: $(basename "$(pwd)")"
echo "to stderr" >&2
touch installed.flag
