#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shell completions the packages install: generated from the executables'
# own --help (packaging/gen-completions.sh), they must parse in bash, zsh and
# fish, and complete what a user types: a command, a command's verbs, an option.
# Usage: check_completions.sh SOURCE_DIR GATEHOUSE_CLI GATEHOUSE
set -euo pipefail
src=$1
cli=$2
gui=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

bash "$src/packaging/gen-completions.sh" "$cli" "$gui" "$out"

# Syntax: each shell parses its file without running it.
bash -n "$out/gatehouse-cli.bash" || fail "bash cannot parse gatehouse-cli.bash"
zsh -n "$out/_gatehouse-cli" || fail "zsh cannot parse _gatehouse-cli"
fish --no-execute "$out/gatehouse-cli.fish" || fail "fish cannot parse gatehouse-cli.fish"

# What the parser knows, from its own help: the verbs of "queue" and "lock".
help=$("$cli" --help)
queue_verbs=$(sed -n '/^Commands:/,/^$/p' <<<"$help" | grep -E '^  queue [a-z]' | awk '{print $2}' | sort -u)
[ -n "$queue_verbs" ] || fail "gatehouse-cli --help lists no queue verbs"

# bash: complete "gatehouse-cli qu", "gatehouse-cli queue ", "gatehouse-cli --re".
bash_complete() {
    bash -c '
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _gatehouse_cli
        printf "%s\n" "${COMPREPLY[@]}"' _ "$out/gatehouse-cli.bash" "$@"
}
grep -qx queue <<<"$(bash_complete gatehouse-cli qu)" || fail "bash: 'gatehouse-cli qu' does not complete to queue"
got=$(bash_complete gatehouse-cli queue "") || true
for v in $queue_verbs; do
    grep -qx -- "$v" <<<"$got" || fail "bash: 'gatehouse-cli queue ' does not offer $v"
done
grep -qx -- --read-only <<<"$(bash_complete gatehouse-cli --read)" \
    || fail "bash: '--read' does not complete to --read-only"

# fish: the completions it would offer for the same lines.
fish_complete() {
    fish --no-config -c "source '$out/gatehouse-cli.fish'; complete -C '$1'" | cut -f1
}
grep -qx queue <<<"$(fish_complete 'gatehouse-cli qu')" || fail "fish: 'gatehouse-cli qu' does not complete to queue"
got=$(fish_complete 'gatehouse-cli queue ') || true
for v in $queue_verbs; do
    grep -qx -- "$v" <<<"$got" || fail "fish: 'gatehouse-cli queue ' does not offer $v"
done
grep -qx -- --read-only <<<"$(fish_complete 'gatehouse-cli --read')" \
    || fail "fish: '--read' does not complete to --read-only"

# zsh: the file as compsys loads it (it calls its function), with compadd
# printing what it would offer.
zsh_complete() {
    zsh -f -c '
        compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
        _files() { :; }
        file=$1; shift
        service=gatehouse-cli
        words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}
        source "$file"' _ "$out/_gatehouse-cli" "$@" 2>/dev/null | sed '/^$/d'
}
grep -qx queue <<<"$(zsh_complete gatehouse-cli qu)" || fail "zsh: 'gatehouse-cli qu' does not offer queue"
got=$(zsh_complete gatehouse-cli queue "") || true
for v in $queue_verbs; do
    grep -qx -- "$v" <<<"$got" || fail "zsh: 'gatehouse-cli queue ' does not offer $v"
done
grep -qx -- --read-only <<<"$(zsh_complete gatehouse-cli --read)" \
    || fail "zsh: '--read' does not offer --read-only"

# The console's --help and --version answer on a machine with no display (a
# server, an SSH session): printed, exit 0, never a platform-plugin abort.
for flag in --help --version; do
    said=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$gui" "$flag" 2>&1) \
        || fail "gatehouse $flag without a display exits $?: $said"
    grep -qi -- "gatehouse" <<<"$said" || fail "gatehouse $flag without a display printed: $said"
done
grep -q -- "--url" <<<"$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$gui" --help 2>&1)" \
    || fail "gatehouse --help without a display does not list --url"

if [ "$failures" -gt 0 ]; then
    echo "$failures completion check(s) failed" >&2
    exit 1
fi
echo "completions: bash, zsh and fish parse and complete commands, queue verbs and options; gatehouse --help and --version answer without a display"
