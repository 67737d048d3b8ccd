#!/bin/sh
# Formats the files Claude just edited.
exec npx prettier --write .
