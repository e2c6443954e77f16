#!/bin/sh
# if_present.sh command NAME EXE ARGS...   runs EXE ARGS if NAME is a command on PATH
# if_present.sh directory DIR EXE ARGS...  runs EXE ARGS if DIR is a directory
# if_present.sh skip REASON                runs nothing
# Otherwise says why and exits 77, which `meson test` counts as one skipped test: a test that
# cannot run here is shown as skipped, never as passed.
kind=$1 name=$2
shift 2
case "$kind" in
  command) command -v "$name" >/dev/null 2>&1 && exec "$@" ;;
  directory) [ -d "$name" ] && exec "$@" ;;
  skip) echo "skipped: $name"; exit 77 ;;
esac
echo "skipped: $kind $name not found"
exit 77
