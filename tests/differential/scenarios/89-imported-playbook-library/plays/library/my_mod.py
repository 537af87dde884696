#!/usr/bin/python
print("{}")
