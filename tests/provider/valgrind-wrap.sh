#!/bin/sh
# Test wrapper of the 'valgrind' setup: $1 is valgrind, the rest the test command. A shell
# script is not run under valgrind itself; it gets the valgrind command in $BS_OPENSSL_WRAPPER.
vg=$1
shift
opts="--error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-origins=yes --quiet"
case "$1" in
*.sh | */sh | */bash)
    BS_OPENSSL_WRAPPER="$vg $opts"
    export BS_OPENSSL_WRAPPER
    exec "$@"
    ;;
esac
# shellcheck disable=SC2086 # $opts is a list of options
exec "$vg" $opts "$@"
