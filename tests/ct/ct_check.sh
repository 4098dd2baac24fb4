#!/usr/bin/env bash
# Runs one ct_taint target under valgrind memcheck and judges the result.
#   ct_check.sh clean VALGRIND PROGRAM TARGET            passes when memcheck reports nothing
#   ct_check.sh leak  VALGRIND PROGRAM TARGET MSG FUNC   passes only when memcheck reports MSG
#                                                        in FUNC (a control that must be caught)
# A missing valgrind is a failure: the suite proves nothing without it.
set -u
mode=$1 valgrind=$2 prog=$3 target=$4
expect_msg=${5:-} expect_fn=${6:-}

if ! command -v "$valgrind" >/dev/null 2>&1; then
  echo "ct_check: valgrind ($valgrind) not found; install valgrind (scripts/setup.sh)" >&2
  exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
opts=(--tool=memcheck --error-exitcode=99 --leak-check=no --log-file="$log")
"$valgrind" "${opts[@]}" "$prog" "$target"
rc=$?

case $mode in
clean)
  if [ "$rc" -eq 0 ]; then
    echo "ct_check: $target: memcheck clean"
    exit 0
  fi
  cat "$log" >&2
  if [ "$rc" -eq 99 ]; then
    echo "ct_check: $target: secret-dependent branch or address (memcheck errors above)." >&2
    echo "ct_check: rerunning with --track-origins=yes to show where the secret came from:" >&2
    "$valgrind" "${opts[@]}" --log-file=/dev/stderr --track-origins=yes "$prog" "$target" \
      >/dev/null
  else
    echo "ct_check: $target: exit status $rc" >&2
  fi
  exit 1
  ;;
leak)
  cat "$log"
  if [ "$rc" -ne 99 ]; then
    echo "ct_check: $target: control NOT caught (exit $rc, expected 99): the harness is blind" >&2
    exit 1
  fi
  if ! grep -qF "$expect_msg" "$log"; then
    echo "ct_check: $target: memcheck did not say \"$expect_msg\"" >&2
    exit 1
  fi
  if ! grep -q "$expect_fn" <<<"$(grep -F "$expect_msg" -A2 "$log")"; then
    echo "ct_check: $target: the report does not point at $expect_fn" >&2
    exit 1
  fi
  echo "ct_check: $target: control caught as expected: $expect_msg in $expect_fn"
  exit 0
  ;;
*)
  echo "ct_check: unknown mode $mode" >&2
  exit 2
  ;;
esac
