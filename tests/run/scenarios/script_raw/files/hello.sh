#!/bin/sh
echo "args: $*"
echo "in: $(basename "$(pwd)")"
echo "env: ${GREETING:-unset}"
echo to-stderr >&2
