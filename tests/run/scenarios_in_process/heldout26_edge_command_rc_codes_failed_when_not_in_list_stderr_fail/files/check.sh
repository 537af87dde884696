#!/bin/sh
case "$1" in
  disk) echo "disk ok"; exit 0 ;;
  memory) echo "memory high" ; echo "warning: 91% used" >&2; exit 1 ;;
  certs) echo "checking certs"; echo "error: cert expires in 2 days" >&2; exit 2 ;;
esac
