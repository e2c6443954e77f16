#!/bin/sh
# if_present.sh command NAME EXE ARGS...   runs EXE ARGS if NAME is a command on PATH
# if_present.sh directory DIR EXE ARGS...  runs EXE ARGS if DIR is a directory
# if_present.sh file FILE EXE ARGS...       runs EXE ARGS if FILE is an executable file
# if_present.sh skip REASON                runs nothing
# Otherwise says why in TAP's words for a test that runs nothing ("1..0 # SKIP reason"), which
# `meson test` (protocol 'tap', as for the Catch2 tests it wraps) counts as skipped: a test that
# cannot run here is shown as skipped, never as passed.
kind=$1 name=$2
shift 2
case "$kind" in
  command) command -v "$name" >/dev/null 2>&1 && exec "$@"; why="command $name not found" ;;
  directory) [ -d "$name" ] && exec "$@"; why="directory ${name:-(none named)} not found" ;;
  file) [ -x "$name" ] && exec "$@"; why="$name not built" ;;
  skip) why=$name ;;
  *) echo "if_present.sh: unknown kind $kind" >&2; exit 2 ;;
esac
echo "1..0 # SKIP $why"
