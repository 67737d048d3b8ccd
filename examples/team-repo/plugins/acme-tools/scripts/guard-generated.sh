#!/bin/sh
# Blocks commits that touch generated files.
exit 0
