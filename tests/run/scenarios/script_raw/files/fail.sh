#!/bin/sh
echo failing
exit 3
